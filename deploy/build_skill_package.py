"""Lay out the ASK CLI skill package: skill-package/interactionModels/custom/<locale>.json.

    python deploy/build_skill_package.py                      # into skill-package/
    python deploy/build_skill_package.py --endpoint ARN       # and set the Lambda endpoint
    python deploy/build_skill_package.py --out /tmp/pkg       # a complete copy elsewhere

interaction_models/ is the single source of what can be said; this copies the models of the
locales Alexa offers, byte for byte, and leaves out the box-only ones (Alexa has no Finnish
or Polish). The copies are generated: do not edit or commit them. Before writing, it checks
that every model in interaction_models/ is either an Alexa locale or a box-only one (so a
new model is never dropped silently), that the manifest lists exactly the Alexa locales, and
that each locale's example phrases name its invocation name and say its samples.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "interaction_models"
PACKAGE = ROOT / "skill-package"

ALEXA_LOCALES = ("en-US", "en-GB", "es-ES", "es-MX", "de-DE", "fr-FR", "nl-NL")
BOX_ONLY_LOCALES = ("fi-FI", "pl-PL")  # Alexa does not offer Finnish or Polish
MODELS_SUBDIR = Path("interactionModels") / "custom"
LAMBDA_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+"
                        r"(:[A-Za-z0-9_$-]+)?$")


class PackageError(Exception):
    pass


def load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def invocation_name(locale: str, models: Path = MODELS) -> str:
    model = load_json(models / f"{locale}.json")
    return str(model["interactionModel"]["languageModel"]["invocationName"])


def samples(locale: str, models: Path = MODELS) -> set[str]:
    model = load_json(models / f"{locale}.json")
    return {
        sample.lower()
        for intent in model["interactionModel"]["languageModel"]["intents"]
        for sample in intent.get("samples", [])
    }


def _plain(phrase: str) -> str:
    return re.sub(r"[.!?¡¿,]", "", phrase).strip().lower()


def check(manifest: dict[str, Any], models: Path = MODELS) -> None:
    found = sorted(path.stem for path in models.glob("*.json"))
    unknown = set(found) - set(ALEXA_LOCALES) - set(BOX_ONLY_LOCALES)
    if unknown:
        raise PackageError(f"interaction_models/ has {sorted(unknown)}: add each to "
                           "ALEXA_LOCALES or BOX_ONLY_LOCALES in deploy/build_skill_package.py")
    missing = set(ALEXA_LOCALES) - set(found)
    if missing:
        raise PackageError(f"interaction_models/ lacks the Alexa locales {sorted(missing)}")
    listed = manifest["manifest"]["publishingInformation"]["locales"]
    if set(listed) != set(ALEXA_LOCALES):
        raise PackageError(f"skill.json lists {sorted(listed)}, expected {sorted(ALEXA_LOCALES)}")
    for locale in ALEXA_LOCALES:
        phrases = listed[locale].get("examplePhrases") or []
        name = invocation_name(locale, models)
        if not phrases or name not in _plain(phrases[0]):
            raise PackageError(f"{locale}: the first example phrase must name {name!r}")
        said = samples(locale, models)
        for phrase in phrases[1:]:
            if _plain(phrase) not in said:
                raise PackageError(f"{locale}: example phrase {phrase!r} is not a sample")


def set_endpoint(manifest: dict[str, Any], arn: str) -> None:
    if not LAMBDA_ARN.match(arn):
        raise PackageError(f"{arn!r} is not a Lambda function ARN (the stack's SkillFunctionArn)")
    custom = manifest["manifest"].setdefault("apis", {}).setdefault("custom", {})
    custom["endpoint"] = {"uri": arn}


def build(out: Path = PACKAGE, endpoint: str | None = None, models: Path = MODELS,
          manifest_path: Path = PACKAGE / "skill.json") -> list[Path]:
    """Write the package into `out`; returns the model files written."""
    manifest = load_json(manifest_path)
    check(manifest, models)
    target = out / MODELS_SUBDIR
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.json"):
        if stale.stem not in ALEXA_LOCALES:
            stale.unlink()
    written = []
    for locale in ALEXA_LOCALES:
        destination = target / f"{locale}.json"
        shutil.copyfile(models / f"{locale}.json", destination)
        written.append(destination)
    out_manifest = out / "skill.json"
    if endpoint is not None:
        set_endpoint(manifest, endpoint)
        text = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
        out_manifest.write_text(text, encoding="utf-8")
    elif out_manifest.resolve() != manifest_path.resolve():
        shutil.copyfile(manifest_path, out_manifest)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=PACKAGE,
                        help="the package folder (default: skill-package/)")
    parser.add_argument("--endpoint", default=None,
                        help="the skill Lambda's ARN, written into skill.json's endpoint")
    args = parser.parse_args(argv)
    try:
        written = build(args.out, args.endpoint)
    except PackageError as problem:
        print(f"build_skill_package: {problem}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} interaction models to {args.out / MODELS_SUBDIR} "
          f"({', '.join(ALEXA_LOCALES)}; box-only, left out: {', '.join(BOX_ONLY_LOCALES)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
