"""The skill as a web service (POST /alexa beside the phone relay) on a real loopback port.

Requests are signed the way Alexa signs them: a certificate chain made here with
`cryptography` (root CA, intermediate, signing certificate for echo-api.amazon.com) that
only these tests trust, the body signed with SHA-256 + PKCS#1 v1.5, the signature in the
`Signature-256` header and the chain's URL in `SignatureCertChainUrl`. Anything unsigned,
tampered with, signed by an untrusted chain, fetched from a wrong URL, stale, or meant for
another skill is refused with 400 and changes nothing in the store.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
from werkzeug.serving import make_server

from phones.web import create_app
from skill.builder import build_skill_builder
from skill.web import init_alexa
from store import open_store
from tests.alexa_envelopes import SKILL_ID, Echo, speech

CERT_URL = "https://s3.amazonaws.com/echo.api/echo-api-cert-test.pem"


# ---------------------------------------------------------------------- certificates


@dataclass
class Chain:
    root_der: bytes
    pem: bytes  # leaf first, then the intermediate
    key: rsa.RSAPrivateKey


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Wolf Village tests")])


def _cert(subject: str, issuer: str, key: rsa.RSAPrivateKey, signer: rsa.RSAPrivateKey,
          ca: bool, san: str | None = None) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - dt.timedelta(days=1))
               .not_valid_after(now + dt.timedelta(days=30))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                              critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                   signer.public_key()), critical=False))
    usage = dict(digital_signature=not ca, content_commitment=False, key_encipherment=not ca,
                 data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                 encipher_only=False, decipher_only=False)
    builder = builder.add_extension(x509.KeyUsage(**usage), critical=True)
    if san:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(san)]),
                                        critical=False)
    return builder.sign(signer, hashes.SHA256())


def make_chain(tag: str) -> Chain:
    def key() -> rsa.RSAPrivateKey:
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    root_key, mid_key, leaf_key = key(), key(), key()
    root = _cert(f"{tag} root", f"{tag} root", root_key, root_key, ca=True)
    mid = _cert(f"{tag} intermediate", f"{tag} root", mid_key, root_key, ca=True)
    leaf = _cert("echo-api.amazon.com", f"{tag} intermediate", leaf_key, mid_key, ca=False,
                 san="echo-api.amazon.com")
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (leaf, mid))
    return Chain(root.public_bytes(serialization.Encoding.DER), pem, leaf_key)


@pytest.fixture(scope="module")
def trusted() -> Chain:
    return make_chain("Trusted test")


@pytest.fixture(scope="module")
def untrusted() -> Chain:
    return make_chain("Self-made")


def sign(body: bytes, key: rsa.RSAPrivateKey) -> str:
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode()


# ---------------------------------------------------------------------- the server


@dataclass
class Server:
    url: str
    store: Any
    chains: dict[str, bytes]


def serve(app: Any) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)


def build(tmp_path: Path, verify: bool, trust_root: bytes,
          chains: dict[str, bytes]) -> tuple[Any, Any]:
    store = open_store(f"sqlite:///{tmp_path / 'games.db'}")
    app = create_app(store, SECRET_KEY="test-only")
    skill = build_skill_builder(relay=app.extensions["wolfvillage_relay"],
                                public_url="https://wolf.example.org",
                                skill_id=SKILL_ID).create()
    fetch: Callable[[str], bytes] = lambda url: chains[url]  # noqa: E731  (KeyError: refused)
    init_alexa(app, skill, verify=verify, trust_roots=[trust_root], fetch_chain=fetch)
    return app, store


@pytest.fixture
def server(tmp_path: Path, trusted: Chain, untrusted: Chain) -> Iterator[Server]:
    chains = {CERT_URL: trusted.pem,
              "https://s3.amazonaws.com/echo.api/self-made.pem": untrusted.pem,
              "https://s3.amazonaws.com/echo.api/%2e%2e/evil/x.pem": trusted.pem,
              "https://s3.amazonaws.com/echo.api%2F..%2Fevil/x.pem": trusted.pem,
              "https://example.com/echo.api/echo-api-cert-test.pem": trusted.pem}
    app, store = build(tmp_path, True, trusted.root_der, chains)
    for url in serve(app):
        yield Server(url, store, chains)
    store.close()


def post(server: Server, env: dict[str, Any], key: rsa.RSAPrivateKey | None,
         cert_url: str | None = CERT_URL, body: bytes | None = None,
         header: str = "Signature-256") -> requests.Response:
    signed = json.dumps(env).encode()
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers[header] = sign(signed, key)
    if cert_url is not None:
        headers["SignatureCertChainUrl"] = cert_url
    return requests.post(f"{server.url}/alexa", data=body if body is not None else signed,
                         headers=headers, timeout=10)


def stored(server: Server, echo: Echo) -> Any:
    """Everything the store holds for this device's table (None: no table)."""
    game_id = server.store.lookup(f"alexa:{echo.device_id}")
    if game_id is None:
        return None
    game = server.store.load(game_id)
    keys = ("alexa-spoken", "alexa-roster", "alexa-clock", "alexa-host")
    return (game.version, game.entries, [server.store.lookup(f"{k}:{game_id}") for k in keys])


# ---------------------------------------------------------------------- tests


def test_a_properly_signed_request_is_answered(server: Server, trusted: Chain):
    echo = Echo()
    response = post(server, echo.launch(), trusted.key)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert "Wolf Village" in speech(answer)
    echo.sent(answer)
    response = post(server, echo.intent("AMAZON.HelpIntent"), trusted.key)
    assert response.status_code == 200
    assert stored(server, echo) is not None


def joined(server: Server, trusted: Chain) -> Echo:
    """A table with a room and a player, built with good requests."""
    echo = Echo()
    for env in (echo.launch(), echo.intent("JoinIntent", {"player": {
            "name": "player", "value": "Ana", "confirmationStatus": "NONE"}})):
        response = post(server, env, trusted.key)
        assert response.status_code == 200, response.text
        echo.sent(response.json())
    return echo


def join_ben(echo: Echo) -> dict[str, Any]:
    return echo.intent("JoinIntent", {"player": {"name": "player", "value": "Ben",
                                                 "confirmationStatus": "NONE"}})


def twin(echo: Echo, **changes: Any) -> Echo:
    """The same device in the same session, with something changed."""
    return replace(echo, **changes)


def stale(echo: Echo) -> dict[str, Any]:
    return join_ben(twin(echo, age_seconds=151))


def other_skill(echo: Echo) -> dict[str, Any]:
    return join_ben(twin(echo, skill_id="amzn1.ask.skill.someone-else"))


def tampered(echo: Echo, key: rsa.RSAPrivateKey, s: Server) -> requests.Response:
    env = join_ben(echo)
    signed = json.dumps(env).encode()
    headers = {"Signature-256": sign(signed, key), "SignatureCertChainUrl": CERT_URL}
    body = signed.replace(b'"Ben"', b'"Bob"')
    return requests.post(f"{s.url}/alexa", data=body, headers=headers, timeout=10)


# case: (what is sent, why the service refuses it, as it logs)
BAD: dict[str, tuple[Callable[..., requests.Response], str]] = {
    "unsigned": (lambda s, e, t, u: post(s, join_ben(e), None, None), "Missing Signature"),
    "signature only": (lambda s, e, t, u: post(s, join_ben(e), t.key, None),
                       "Missing Signature"),
    "body changed after signing": (lambda s, e, t, u: tampered(e, t.key, s),
                                   "Request body is not valid"),
    "untrusted chain": (lambda s, e, t, u: post(
        s, join_ben(e), u.key, "https://s3.amazonaws.com/echo.api/self-made.pem"),
        "Certificate chain is not valid"),
    "signed by another key": (lambda s, e, t, u: post(s, join_ben(e), u.key),
                              "Request body is not valid"),
    "wrong certificate host": (lambda s, e, t, u: post(
        s, join_ben(e), t.key, "https://example.com/echo.api/echo-api-cert-test.pem"),
        "invalid hostname"),
    "wrong certificate path": (lambda s, e, t, u: post(
        s, join_ben(e), t.key, "https://s3.amazonaws.com/not-echo.api/cert.pem"),
        "invalid path"),
    "http certificate url": (lambda s, e, t, u: post(
        s, join_ben(e), t.key, "http://s3.amazonaws.com/echo.api/echo-api-cert-test.pem"),
        "invalid protocol"),
    "stale": (lambda s, e, t, u: post(s, stale(e), t.key), "Timestamp verification failed"),
    "another skill": (lambda s, e, t, u: post(s, other_skill(e), t.key),
                      "refused an Alexa request"),
    "not json": (lambda s, e, t, u: post(s, {}, t.key, body=b"{not json"), "refused"),
    # the verifier library normalises the path without decoding it: S3 decodes %2e%2e and
    # serves /evil/x.pem, anyone's file (here a chain the tests trust, so only our own
    # check of the URL can refuse it)
    "percent-encoded dot segments in the certificate url": (lambda s, e, t, u: post(
        s, join_ben(e), t.key, "https://s3.amazonaws.com/echo.api/%2e%2e/evil/x.pem"),
        "encoded or escaped character"),
    "percent-encoded slash in the certificate url": (lambda s, e, t, u: post(
        s, join_ben(e), t.key, "https://s3.amazonaws.com/echo.api%2F..%2Fevil/x.pem"),
        "encoded or escaped character"),
    "nested too deep": (lambda s, e, t, u: post(
        s, {}, t.key, body=b'{"a":' * 2000 + b"1" + b"}" * 2000), "malformed"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_request_is_refused_with_400_and_changes_nothing(
        server: Server, trusted: Chain, untrusted: Chain, case: str,
        caplog: pytest.LogCaptureFixture):
    echo = joined(server, trusted)
    before = stored(server, echo)
    send, reason = BAD[case]
    with caplog.at_level(logging.INFO, logger="wolfvillage.skill"):
        response = send(server, echo, trusted, untrusted)
    assert response.status_code == 400, (case, response.text)
    assert any(reason in r.getMessage() for r in caplog.records), [
        r.getMessage() for r in caplog.records]
    assert "outputSpeech" not in response.text
    assert stored(server, echo) == before
    # and the table still answers properly signed requests
    ok = post(server, join_ben(echo), trusted.key)
    assert ok.status_code == 200
    assert stored(server, echo) != before


def test_a_stale_request_alone_is_refused(server: Server, trusted: Chain):
    echo = Echo(age_seconds=151)
    response = post(server, echo.launch(), trusted.key)
    assert response.status_code == 400
    assert stored(server, echo) is None
    fresh = Echo(age_seconds=100)  # within Alexa's 150 s tolerance
    assert post(server, fresh.launch(), trusted.key).status_code == 200


def test_the_legacy_sha1_header_name_is_not_enough(server: Server, trusted: Chain):
    echo = Echo()
    response = post(server, echo.launch(), trusted.key, header="Signature")
    assert response.status_code == 400
    assert stored(server, echo) is None


def test_the_development_flag_accepts_unsigned_requests_and_warns(
        tmp_path: Path, trusted: Chain, caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger="wolfvillage.skill"):
        app, store = build(tmp_path, False, trusted.root_der, {})
    assert any("verification is OFF" in r.getMessage() for r in caplog.records)
    for url in serve(app):
        server = Server(url, store, {})
        echo = Echo(age_seconds=3600)  # not even the timestamp is checked
        response = post(server, echo.launch(), None, None)
        assert response.status_code == 200
        assert "Wolf Village" in speech(response.json())
    store.close()


def test_the_endpoint_is_not_mounted_for_a_skill_without_an_id(tmp_path: Path,
                                                              trusted: Chain) -> None:
    """Without the skill id, ask-sdk answers any skill's signed requests."""
    store = open_store(f"sqlite:///{tmp_path / 'games.db'}")
    app = create_app(store, SECRET_KEY="test-only")
    skill = build_skill_builder(relay=app.extensions["wolfvillage_relay"]).create()
    with pytest.raises(ValueError, match="skill's id"):
        init_alexa(app, skill, trust_roots=[trusted.root_der])
    assert not any(rule.rule == "/alexa" for rule in app.url_map.iter_rules())
    store.close()


def test_the_phone_relay_still_serves_beside_alexa(server: Server, trusted: Chain):
    echo = joined(server, trusted)
    game_id = server.store.lookup(f"alexa:{echo.device_id}")
    code = json.loads(server.store.lookup(f"alexa-host:{game_id}"))["code"]
    page = requests.get(f"{server.url}/j/{code}", timeout=10)
    assert page.status_code == 200
