"""The layers of DESIGN.md's table: each top-level package imports only the packages of ours
its row allows.

Every .py file of each package is read with `ast` (never imported), and every import in it
counts: `import x`, `from x import y`, relative imports (resolved to the package they name),
imports inside functions and under `if TYPE_CHECKING:`. `wolfvillage/` (the command line),
`tests/` and `bench/` may import anything and are not read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# DESIGN.md, "The shape": "| folder | what lives there | what it may import |" ...
#   rules/       "nothing of ours"
#   narrator/    "`rules`, `speech` keys"
#   speech/      "nothing of ours"
#   skill/       "`narrator`, `speech`, `store`, `phones`"
#   local_voice/ "`narrator`, `speech`, `store`, `phones`"
#   phones/      "`narrator`, `speech`, `store`"
#   store/       "`rules`"
#   tests/, bench/ "everything"
# "The arrows only point down the table: `rules` knows nothing of speech, audio, HTTP or
# storage; the adapters (`skill`, `local_voice`, `phones`) are thin and never decide a rule."
# (docs/design.md adds `wolfvillage/`, the command line: "everything".)
ALLOWED: dict[str, frozenset[str]] = {
    "rules": frozenset(),
    "narrator": frozenset({"rules", "speech"}),
    "speech": frozenset(),
    "skill": frozenset({"narrator", "speech", "store", "phones"}),
    "local_voice": frozenset({"narrator", "speech", "store", "phones"}),
    "phones": frozenset({"narrator", "speech", "store"}),
    "store": frozenset({"rules"}),
}
ANYTHING = frozenset({"wolfvillage", "tests", "bench"})
OURS = frozenset(ALLOWED) | ANYTHING

# a crossing known and not yet fixed: file -> why (a strict xfail, so that the mark goes the
# day the crossing does). None now: the host page's voice, phones/audio.py, which imported
# local_voice.voices, is given its voice factory by whoever builds the app (VOICE_FACTORY).
OPEN_CROSSINGS: dict[str, str] = {}


def ours_imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) for every import of one of our packages in a file, in line order."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module_parts = list(path.relative_to(root).with_suffix("").parts)
    if module_parts[-1] == "__init__":
        module_parts.pop()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # `from . import x` in a/b/c.py is a.b; a relative import never leaves the
                # top-level package (Python refuses one that would)
                base = module_parts[: len(module_parts) - node.level
                                    + (path.name == "__init__.py")]
                name = ".".join(base + ([node.module] if node.module else []))
                found.append((node.lineno, name))
            else:
                found.append((node.lineno, node.module or ""))
    return sorted((line, name) for line, name in found if name.split(".")[0] in OURS)


def files() -> list[pytest.param]:
    out = []
    for package in ALLOWED:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            marks = ([pytest.mark.xfail(strict=True, reason=OPEN_CROSSINGS[rel])]
                     if rel in OPEN_CROSSINGS else [])
            out.append(pytest.param(package, path, id=rel, marks=marks))
    return out


@pytest.mark.parametrize(("package", "path"), files())
def test_each_file_imports_only_what_its_row_allows(package: str, path: Path) -> None:
    wrong = [f"{path.relative_to(ROOT)}:{line}: {name}"
             for line, name in ours_imported(path)
             if name.split(".")[0] not in ALLOWED[package] | {package}]
    assert not wrong, f"{package} may import only {sorted(ALLOWED[package])}: {wrong}"


def test_every_top_level_package_has_a_row() -> None:
    """A new package of ours cannot slip past the table."""
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages - OURS == set()
    assert set(ALLOWED) <= packages


def test_the_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The scan itself: top-level, in a function, under TYPE_CHECKING, from-imports and
    relative ones are all seen (a scan that missed one could never fail)."""
    source = (
        "from __future__ import annotations\n"
        "import rules.core\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from narrator.cues import Host\n"
        "def later():\n"
        "    import phones.relay as relay\n"
        "    from store import open_store\n"
        "from . import sibling\n"
        "from .other import thing\n"
        "import json\n"
    )
    (tmp_path / "speech").mkdir()
    probe = tmp_path / "speech" / "probe.py"
    probe.write_text(source, encoding="utf-8")
    seen = ours_imported(probe, root=tmp_path)
    assert [name for _, name in seen] == [
        "rules.core", "narrator.cues", "phones.relay", "store", "speech", "speech.other"]
