"""The AWS deployment: template.yaml (SAM), the ASK CLI skill package, the Lambda code folder
and the phone relay's Lambda handler. Nothing here reaches AWS or Alexa: the template is
linted and read, the package and the code folder are built into tmp_path, and the relay's
handler answers hand-made API Gateway events over a SQLite store (and a moto-mocked Secrets
Manager)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "deploy"))

import build_lambda  # noqa: E402
import build_skill_package as bsp  # noqa: E402

TEMPLATE = ROOT / "template.yaml"
ALEXA = {"en-US", "en-GB", "es-ES", "es-MX", "de-DE", "fr-FR", "nl-NL"}
BOX_ONLY = {"fi-FI", "pl-PL"}
PSEUDO = {"AWS::Region", "AWS::AccountId", "AWS::URLSuffix", "AWS::StackName",
          "AWS::Partition", "AWS::NoValue", "AWS::StackId"}


# ---------------------------------------------------------------------- reading the template


class CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (!Ref, !Sub, !If...) as their long forms."""


def _tag(loader: CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {name: value}


CfnLoader.add_multi_constructor("!", _tag)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=CfnLoader)


def walk(node: Any):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def refs(node: Any) -> set[str]:
    """Every name a Ref, GetAtt or Sub inside `node` points at."""
    found: set[str] = set()
    for item in walk(node):
        if not isinstance(item, dict):
            continue
        if "Ref" in item:
            found.add(item["Ref"])
        if "Fn::GetAtt" in item:
            found.add(item["Fn::GetAtt"][0])
        if "Fn::Sub" in item:
            text = item["Fn::Sub"] if isinstance(item["Fn::Sub"], str) else item["Fn::Sub"][0]
            found |= {name.split(".")[0] for name in re.findall(r"\$\{([^}!]+)\}", text)}
    return found


def function(template: dict[str, Any], name: str) -> dict[str, Any]:
    resource = template["Resources"][name]
    assert resource["Type"] == "AWS::Serverless::Function"
    return resource["Properties"]


def env(template: dict[str, Any], name: str) -> dict[str, Any]:
    merged = dict(template["Globals"]["Function"]["Environment"]["Variables"])
    merged.update(function(template, name).get("Environment", {}).get("Variables", {}))
    return merged


# ---------------------------------------------------------------------- template.yaml


def test_cfn_lint_passes_on_the_template() -> None:
    cfn_lint = Path(sys.executable).parent / "cfn-lint"
    result = subprocess.run([str(cfn_lint), str(TEMPLATE)], capture_output=True, text=True,
                            timeout=300, check=False)
    # exit code bits: 2 errors, 4 warnings, 8 informational; only errors fail
    assert result.returncode & 2 == 0 and result.returncode in (0, 4, 8, 12), result.stdout
    assert not re.search(r"^E\d{4}", result.stdout, re.M), result.stdout


def test_every_reference_names_something_the_template_defines(template) -> None:
    known = set(template["Parameters"]) | set(template["Resources"]) | PSEUDO
    assert refs(template["Resources"]) | refs(template["Outputs"]) | refs(template["Globals"]) \
        <= known
    conditions = set(template.get("Conditions", {}))
    for item in walk(template["Resources"]):
        if isinstance(item, dict) and "Fn::If" in item:
            assert item["Fn::If"][0] in conditions


def test_the_skill_function_has_an_alexa_trigger_bound_to_the_skill_id(template) -> None:
    assert template["Parameters"]["SkillId"]["Type"] == "String"
    skill = function(template, "SkillFunction")
    runtime = skill.get("Runtime") or template["Globals"]["Function"]["Runtime"]
    assert runtime in ("python3.11", "python3.12")
    assert skill["Handler"] == "skill.lambda_function.lambda_handler"
    alexa = [e for e in skill["Events"].values() if e["Type"] == "AlexaSkill"]
    assert len(alexa) == 1
    assert "SkillId" in refs(alexa[0]["Properties"]["SkillId"])
    pattern = re.compile(template["Parameters"]["SkillId"]["AllowedPattern"])
    assert pattern.match("amzn1.ask.skill.0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b")
    assert not pattern.match("arn:aws:lambda:us-east-1:123456789012:function:x")


def test_the_skill_function_environment(template) -> None:
    variables = env(template, "SkillFunction")
    store = variables["WOLFVILLAGE_STORE"]["Fn::Sub"]
    assert store.startswith("dynamodb://${GamesTable}")
    assert variables["WOLFVILLAGE_SKILL_ID"] == {"Ref": "SkillId"}
    assert "RelayApi" in refs(variables["WOLFVILLAGE_PUBLIC_URL"])


def test_no_function_names_the_api_that_calls_it(template) -> None:
    """SAM writes a function's ARN into its HTTP API's routes, so a function whose own
    properties named that API would be a circular dependency that CloudFormation refuses."""
    for name, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        apis = {refs(event["Properties"].get("ApiId")).pop()
                for event in props.get("Events", {}).values()
                if event["Type"] in ("HttpApi", "Api") and event["Properties"].get("ApiId")}
        without_events = {k: v for k, v in props.items() if k != "Events"}
        assert not apis & refs(without_events), name


def test_the_store_url_in_the_template_opens_a_dynamodb_store(template, monkeypatch) -> None:
    import store.dynamodb_store as dynamodb_store
    from store import open_store

    opened: dict[str, Any] = {}
    monkeypatch.setattr(dynamodb_store, "DynamoDBStore",
                        lambda table, **options: opened.update(table=table, **options))
    url = env(template, "SkillFunction")["WOLFVILLAGE_STORE"]["Fn::Sub"]
    open_store(url.replace("${GamesTable}", "stack-GamesTable-X").replace("${GameTtlDays}", "30"))
    assert opened["table"] == "stack-GamesTable-X" and opened["ttl_days"] == 30.0


def test_the_table_is_the_one_the_store_expects(template) -> None:
    """The same keys, billing and TTL as store.dynamodb_store.create_table makes."""
    from store.dynamodb_store import create_table

    calls: dict[str, Any] = {}

    class Recorder:
        def create_table(self, **kwargs: Any) -> None:
            calls["create"] = kwargs

        def update_time_to_live(self, **kwargs: Any) -> None:
            calls["ttl"] = kwargs["TimeToLiveSpecification"]

    create_table(Recorder(), "games", wait=False)
    table = template["Resources"]["GamesTable"]
    assert table["Type"] == "AWS::DynamoDB::Table"
    props = table["Properties"]
    expected = calls["create"]
    assert props["BillingMode"] == expected["BillingMode"] == "PAY_PER_REQUEST"
    assert props["KeySchema"] == expected["KeySchema"]
    assert props["AttributeDefinitions"] == expected["AttributeDefinitions"]
    assert {(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]} \
        == {("pk", "HASH"), ("sk", "RANGE")}
    assert props["TimeToLiveSpecification"] == calls["ttl"] \
        == {"AttributeName": "expires_at", "Enabled": True}
    assert "GlobalSecondaryIndexes" not in props  # the store queries none


def test_policies_reach_the_games_table_and_the_relay_secret_only(template) -> None:
    for name in ("SkillFunction", "RelayFunction"):
        policies = function(template, name)["Policies"]
        assert {"DynamoDBCrudPolicy": {"TableName": {"Ref": "GamesTable"}}} in policies
        for policy in policies:
            assert isinstance(policy, dict), f"{name}: managed policy {policy!r} is too broad"
            (kind, args), = policy.items()
            if kind == "DynamoDBCrudPolicy":
                assert args == {"TableName": {"Ref": "GamesTable"}}
            else:
                assert name == "RelayFunction"
                assert kind == "AWSSecretsManagerGetSecretValuePolicy"
                assert args == {"SecretArn": {"Ref": "RelaySecret"}}
        assert "Role" not in function(template, name)
    for item in walk(template["Resources"]):
        if isinstance(item, dict) and "Resource" in item:
            assert item["Resource"] != "*"


def test_the_relay_is_served_behind_an_http_api_on_every_path(template) -> None:
    assert template["Resources"]["RelayApi"]["Type"] == "AWS::Serverless::HttpApi"
    relay = function(template, "RelayFunction")
    assert relay["Handler"] == "phones.lambda_function.handler"
    routes = {(e["Properties"]["Path"], e["Properties"]["Method"])
              for e in relay["Events"].values() if e["Type"] == "HttpApi"}
    assert routes == {("/", "ANY"), ("/{proxy+}", "ANY")}
    for event in relay["Events"].values():
        assert event["Properties"]["ApiId"] == {"Ref": "RelayApi"}
    assert env(template, "RelayFunction")["WOLFVILLAGE_SECRET_ARN"] == {"Ref": "RelaySecret"}


def test_outputs_and_code_folder(template) -> None:
    outputs = template["Outputs"]
    assert "RelayApi" in refs(outputs["RelayUrl"])
    assert outputs["GamesTableName"]["Value"] == {"Ref": "GamesTable"}
    assert outputs["SkillFunctionArn"]["Value"] == {"Fn::GetAtt": ["SkillFunction", "Arn"]}
    code_uri = ROOT / template["Globals"]["Function"]["CodeUri"]
    assert code_uri.resolve() == build_lambda.OUT.resolve()


# ---------------------------------------------------------------------- the Lambda code folder


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", line.strip(), maxsplit=1)[0].lower().replace("_", "-")
            for line in requirements if line.strip() and not line.strip().startswith("#")}


def test_lambda_requirements_are_project_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = _names(project["project"]["dependencies"])
    wanted = _names(build_lambda.REQUIREMENTS.read_text(encoding="utf-8").splitlines())
    assert wanted <= declared
    assert not wanted & {"piper-tts", "numpy", "vosk", "pocketsphinx", "sounddevice", "soxr"}


def test_build_lambda_lays_out_the_code_and_the_handlers_import_nothing_of_the_box(
        tmp_path) -> None:
    out = build_lambda.build(tmp_path / "lambda")
    for name in build_lambda.PACKAGES + build_lambda.DATA:
        assert (out / name).is_dir()
    assert (out / "requirements.txt").read_bytes() == build_lambda.REQUIREMENTS.read_bytes()
    assert not list(out.rglob("__pycache__"))
    probe = (
        "import json, sys\n"
        "import skill.lambda_function, phones.lambda_function\n"
        "from skill.builder import build_skill_builder\n"
        "build_skill_builder()\n"
        "phones.lambda_function.build_app()\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    environment = dict(os.environ, WOLFVILLAGE_STORE=f"sqlite:///{tmp_path}/games.db",
                       WOLFVILLAGE_SECRET="test-secret", PYTHONPATH=str(out))
    result = subprocess.run([sys.executable, "-c", probe], cwd=out, env=environment,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    assert not loaded & {"numpy", "piper", "vosk", "pocketsphinx", "sounddevice", "soxr",
                         "local_voice", "wolfvillage", "waitress"}
    for name in ("skill", "phones", "speech"):
        module = subprocess.run(
            [sys.executable, "-c", f"import {name}; print({name}.__file__)"], cwd=out,
            env=environment, capture_output=True, text=True, timeout=60, check=True)
        assert Path(module.stdout.strip()).is_relative_to(out)


# ---------------------------------------------------------------------- the skill package


def test_build_skill_package_writes_exactly_the_alexa_locales_byte_for_byte(tmp_path) -> None:
    out = tmp_path / "skill-package"
    stale = out / "interactionModels" / "custom" / "fi-FI.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    written = bsp.build(out)
    custom = out / "interactionModels" / "custom"
    assert {p.name for p in custom.iterdir()} == {f"{locale}.json" for locale in ALEXA}
    assert sorted(written) == sorted(custom.iterdir())
    for locale in ALEXA:
        assert (custom / f"{locale}.json").read_bytes() \
            == (ROOT / "interaction_models" / f"{locale}.json").read_bytes()
    assert (out / "skill.json").read_bytes() == (ROOT / "skill-package" / "skill.json").read_bytes()


def test_every_model_is_either_alexa_or_box_only() -> None:
    found = {path.stem for path in (ROOT / "interaction_models").glob("*.json")}
    assert found == ALEXA | BOX_ONLY
    assert set(bsp.ALEXA_LOCALES) == ALEXA and set(bsp.BOX_ONLY_LOCALES) == BOX_ONLY


def test_a_new_model_must_be_classified(tmp_path) -> None:
    models = tmp_path / "models"
    shutil.copytree(ROOT / "interaction_models", models)
    (models / "it-IT.json").write_bytes((models / "en-US.json").read_bytes())
    with pytest.raises(bsp.PackageError, match="it-IT"):
        bsp.build(tmp_path / "pkg", models=models)
    assert not (tmp_path / "pkg").exists()


def test_the_endpoint_option_sets_the_lambda_arn(tmp_path) -> None:
    arn = "arn:aws:lambda:eu-west-1:123456789012:function:wolf-SkillFunction-AbC123"
    assert bsp.main(["--out", str(tmp_path / "pkg"), "--endpoint", arn]) == 0
    manifest = json.loads((tmp_path / "pkg" / "skill.json").read_text(encoding="utf-8"))
    assert manifest["manifest"]["apis"]["custom"]["endpoint"] == {"uri": arn}
    assert manifest["manifest"]["apis"]["custom"]["interfaces"] \
        == [{"type": "ALEXA_PRESENTATION_APL"}]
    assert bsp.main(["--out", str(tmp_path / "bad"), "--endpoint", "https://example.org"]) == 1


def test_the_skill_manifest() -> None:
    manifest = json.loads((ROOT / "skill-package" / "skill.json").read_text(encoding="utf-8"))
    body = manifest["manifest"]
    assert body["manifestVersion"] == "1.0"
    publishing = body["publishingInformation"]
    assert set(publishing["locales"]) == ALEXA
    assert publishing["category"] == "GAMES"
    for locale, info in publishing["locales"].items():
        assert info["name"] and len(info["summary"]) <= 160 and len(info["description"]) <= 4000
        assert 1 <= len(info["examplePhrases"]) <= 3, locale
        assert bsp.invocation_name(locale) in info["examplePhrases"][0].lower()
    privacy = body["privacyAndCompliance"]
    for flag in ("allowsPurchases", "usesPersonalInfo", "isChildDirected", "isExportCompliant",
                 "containsAds"):
        assert isinstance(privacy[flag], bool)
    # the skill sends APL (the room's QR code) and DynamicEntities (the players' names)
    assert {"type": "ALEXA_PRESENTATION_APL"} in body["apis"]["custom"]["interfaces"]
    bsp.check(manifest)  # example phrases are samples of each locale's model


def test_ask_resources_deploys_the_skill_package_only() -> None:
    resources = json.loads((ROOT / "ask-resources.json").read_text(encoding="utf-8"))
    assert resources["askcliResourcesVersion"] == "2020-03-31"
    profile = resources["profiles"]["default"]
    assert Path(profile["skillMetadata"]["src"]) == Path("skill-package")
    # the code and the infrastructure are SAM's (template.yaml), not the ASK CLI's
    assert "code" not in profile and "skillInfrastructure" not in profile


# ---------------------------------------------------------------------- the relay on Lambda


def http_api_event(method: str, path: str, body: bytes | None = None,
                   headers: dict[str, str] | None = None, query: str = "") -> dict[str, Any]:
    """An API Gateway HTTP API (payload format 2.0) event, as the $default stage sends it."""
    host = "abc123defg.execute-api.eu-west-1.amazonaws.com"
    all_headers = {
        "host": host,
        "user-agent": "Mozilla/5.0 (test)",
        "accept": "text/html,application/json",
        "x-forwarded-for": "198.51.100.7",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
        "x-amzn-trace-id": "Root=1-00000000-000000000000000000000000",
    }
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "ANY /{proxy+}" if path != "/" else "ANY /",
        "rawPath": path,
        "rawQueryString": query,
        "headers": all_headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc123defg",
            "domainName": host,
            "domainPrefix": "abc123defg",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": "198.51.100.7", "userAgent": "Mozilla/5.0 (test)"},
            "requestId": "test-request",
            "routeKey": "ANY /{proxy+}" if path != "/" else "ANY /",
            "stage": "$default",
            "time": "01/Dec/2025:10:00:00 +0000",
            "timeEpoch": 1764583200000,
        },
        "isBase64Encoded": False,
    }
    if path != "/":
        event["pathParameters"] = {"proxy": path.lstrip("/")}
    if query:
        event["queryStringParameters"] = dict(p.split("=", 1) for p in query.split("&"))
    if body is not None:
        event["body"] = base64.b64encode(body).decode()
        event["isBase64Encoded"] = True
    return event


@pytest.fixture
def relay_lambda(tmp_path, monkeypatch):
    import phones.lambda_function as module

    url = f"sqlite:///{tmp_path}/games.db"
    monkeypatch.setenv("WOLFVILLAGE_STORE", url)
    monkeypatch.setenv("WOLFVILLAGE_SECRET", "test-secret-" + "x" * 32)
    monkeypatch.delenv("WOLFVILLAGE_SECRET_ARN", raising=False)
    monkeypatch.setattr(module, "_handler", None)
    monkeypatch.setattr(module, "_app", None)
    yield module, url
    if module._app is not None:
        module._app.extensions["wolfvillage_relay"].store.close()


def header(response: dict[str, Any], name: str) -> str:
    found = {k.lower(): v for k, v in response.get("headers", {}).items()}
    return found[name.lower()]


def decoded(response: dict[str, Any]) -> bytes:
    body = response.get("body", "")
    return base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()


def test_the_relay_handler_answers_get_root_with_html(relay_lambda) -> None:
    module, _url = relay_lambda
    response = module.handler(http_api_event("GET", "/"), None)
    assert response["statusCode"] == 200
    assert header(response, "Content-Type").startswith("text/html")
    page = decoded(response).decode("utf-8")
    assert "<html" in page.lower() and "<form" in page.lower()
    assert "default-src 'none'" in header(response, "Content-Security-Policy")
    # the form's CSRF session cookie only travels over https
    cookies = response.get("cookies") or []
    assert any(c.startswith("session=") and "Secure" in c for c in cookies), cookies


def test_the_relay_handler_creates_a_room_and_serves_its_qr_png(relay_lambda) -> None:
    module, _url = relay_lambda
    origin = "https://abc123defg.execute-api.eu-west-1.amazonaws.com"
    created = module.handler(http_api_event(
        "POST", "/api/rooms", json.dumps({"lang": "en"}).encode(),
        {"content-type": "application/json", "origin": origin}), None)
    assert created["statusCode"] == 200, decoded(created)
    room = json.loads(decoded(created))
    assert room["join_url"].startswith(origin + "/j/")
    host_page = module.handler(http_api_event("GET", f"/h/{room['host_token']}"), None)
    assert host_page["statusCode"] == 200
    # the device cookie is Secure: the HTTP API says the request came over https
    cookies = host_page.get("cookies") or []
    assert any(c.startswith("wv_device=") and "Secure" in c for c in cookies), cookies
    png = module.handler(http_api_event("GET", f"/qr/{room['code']}.png"), None)
    assert png["statusCode"] == 200 and png["isBase64Encoded"] is True
    assert decoded(png).startswith(b"\x89PNG\r\n\x1a\n")
    forged = module.handler(http_api_event(
        "POST", "/api/rooms", b"{}", {"content-type": "application/json",
                                      "origin": "https://evil.example"}), None)
    assert forged["statusCode"] == 403


def test_the_relay_handler_sees_what_another_instance_stored(relay_lambda) -> None:
    """The skill function and other relay instances write between two requests."""
    from phones.relay import Relay
    from store import open_store

    module, url = relay_lambda
    created = module.handler(http_api_event(
        "POST", "/api/rooms", b'{"lang": "en"}', {"content-type": "application/json"}), None)
    room = json.loads(decoded(created))
    device = {"x-wolf-device": "host-phone-" + "d" * 24}
    path = f"/api/h/{room['host_token']}"
    before = json.loads(decoded(module.handler(http_api_event("GET", path, headers=device),
                                               None)))
    elsewhere = open_store(url)
    try:
        Relay(elsewhere).join(room["code"], "Ana")
    finally:
        elsewhere.close()
    after = module.handler(http_api_event("GET", path, headers=device,
                                          query=f"since={before['version']}"), None)
    assert after["statusCode"] == 200
    seen = json.loads(decoded(after))
    assert seen["version"] != before["version"] and "Ana" in seen["players"]


def test_the_relay_secret_comes_from_secrets_manager(monkeypatch) -> None:
    import boto3
    from moto import mock_aws

    import phones.lambda_function as module

    monkeypatch.delenv("WOLFVILLAGE_SECRET", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SECRETSMANAGER", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        arn = boto3.client("secretsmanager").create_secret(
            Name="wolf-relay", SecretString="s3cret-from-the-stack")["ARN"]
        monkeypatch.setenv("WOLFVILLAGE_SECRET_ARN", arn)
        assert module.relay_secret() == "s3cret-from-the-stack"
    monkeypatch.delenv("WOLFVILLAGE_SECRET_ARN")
    with pytest.raises(RuntimeError, match="WOLFVILLAGE_SECRET"):
        module.relay_secret()


def test_the_transformed_template_has_no_cycle_and_lints(tmp_path, monkeypatch) -> None:
    """What CloudFormation really gets: SAM's transform (aws-sam-translator, a test
    dependency), then cfn-lint."""
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse

    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")

    class Policies:
        def load(self) -> dict[str, str]:
            return {"AWSLambdaBasicExecutionRole":
                    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"}

    cfn_lint = Path(sys.executable).parent / "cfn-lint"
    for index, parameters in enumerate(({"SkillId": ""},
                                        {"SkillId": "amzn1.ask.skill.0f1e2d3c-4b5a",
                                         "PublicUrl": "https://wolf.example.org"})):
        document = yaml_parse(TEMPLATE.read_text(encoding="utf-8"))
        document["Globals"]["Function"]["CodeUri"] = "s3://bucket/code.zip"  # as sam package
        out = tmp_path / f"transformed{index}.json"
        out.write_text(json.dumps(transform(document, parameters, Policies())))
        result = subprocess.run([str(cfn_lint), "--", str(out)], capture_output=True,
                                text=True, timeout=300, check=False)
        assert result.returncode & 2 == 0, result.stdout


# ---------------------------------------------------------------------- the two functions


def launch_request(skill_id: str, device: str = "amzn1.ask.device.TESTDEVICE") -> dict[str, Any]:
    """A LaunchRequest envelope as Alexa sends it to the skill's Lambda function."""
    application = {"applicationId": skill_id}
    user = {"userId": "amzn1.ask.account.TESTUSER"}
    return {
        "version": "1.0",
        "session": {"new": True, "sessionId": "amzn1.echo-api.session.test",
                    "application": application, "attributes": {}, "user": user},
        "context": {"System": {
            "application": application, "user": user,
            "device": {"deviceId": device, "supportedInterfaces": {}},
            "apiEndpoint": "https://api.amazonalexa.com",
            "apiAccessToken": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.test.token"}},
        "request": {"type": "LaunchRequest", "requestId": "amzn1.echo-api.request.test",
                    "timestamp": "2025-12-01T10:00:00Z", "locale": "en-US"},
    }


def test_a_room_the_skill_opens_is_joined_through_the_relay_function(relay_lambda,
                                                                     monkeypatch) -> None:
    """Both functions over one store, configured as template.yaml configures them."""
    from ask_sdk_core.exceptions import AskSdkException

    import skill.lambda_function as skill_lambda

    relay, _url = relay_lambda
    public = "https://abc123defg.execute-api.eu-west-1.amazonaws.com"
    skill_id = "amzn1.ask.skill.0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
    monkeypatch.setenv("WOLFVILLAGE_PUBLIC_URL", public)
    monkeypatch.setenv("WOLFVILLAGE_SKILL_ID", skill_id)
    monkeypatch.setattr(skill_lambda, "_handler", None)

    answer = skill_lambda.lambda_handler(launch_request(skill_id), None)
    card = answer["response"]["card"]["content"]
    join_url, code = card.split("\n")[:2]
    assert join_url == f"{public}/j/{code}"
    assert answer["response"]["outputSpeech"]["ssml"].startswith("<speak>")

    page = relay.handler(http_api_event("GET", f"/j/{code}"), None)
    assert page["statusCode"] == 200 and code in decoded(page).decode("utf-8")
    joined = relay.handler(http_api_event(
        "POST", f"/api/rooms/{code}/join", json.dumps({"name": "Ana"}).encode(),
        {"content-type": "application/json"}), None)
    assert joined["statusCode"] == 200, decoded(joined)

    with pytest.raises(AskSdkException):
        skill_lambda.lambda_handler(launch_request("amzn1.ask.skill.someone-else"), None)
