"""Lay out the Lambda code folder that template.yaml's CodeUri names: deploy/build/lambda/.

    python deploy/build_lambda.py && sam build && sam deploy

Both functions share the folder: our packages that they import (rules, narrator, speech,
store, phones, skill), interaction_models/ (speech.understanding reads it beside speech/),
and requirements.txt (a copy of deploy/lambda-requirements.txt), which `sam build` installs
for the function's runtime. The offline box (local_voice/, wolfvillage/) and its audio
packages stay out, so the functions stay small.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "deploy" / "build" / "lambda"
PACKAGES = ("rules", "narrator", "speech", "store", "phones", "skill")
DATA = ("interaction_models",)
REQUIREMENTS = ROOT / "deploy" / "lambda-requirements.txt"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.db", "*.db-wal", "*.db-shm")


def build(out: Path = OUT) -> Path:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in PACKAGES + DATA:
        shutil.copytree(ROOT / name, out / name, ignore=SKIP)
    shutil.copyfile(REQUIREMENTS, out / "requirements.txt")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    out = build(args.out)
    print(f"Lambda code laid out in {out} ({', '.join(PACKAGES + DATA)} + requirements.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
