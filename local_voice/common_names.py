"""First names people are commonly called, per language: what a vote for someone who is
not at the table sounds like (`WhisperRecognizer.unlisted_name`).

English: the US Census Bureau's 1990 first names (public domain), as the `names` package
ships them, each list by frequency; the COMMONEST of each. Other languages have no list
yet: the box's other languages are heard by Whisper alone, which nothing here was
measured on.
"""

from __future__ import annotations

from functools import cache

# how many of each list (male, female): round 20 of docs/voice.md, the first names
# Whisper wrote where the box was about to count a vote for someone else: with 300 of
# each, none of the bench's clean, respelled or enrolled votes read right was stopped;
# with 1,000, "will" (for "lose me"), "sal" and "chi" stopped five
COMMONEST = 300
_SHEETS = ("dist.male.first", "dist.female.first")


@cache
def common_first_names(lang: str) -> frozenset[str]:
    """The commonest first names in `lang`, casefolded (empty where there is no list)."""
    if lang != "en":
        return frozenset()
    from importlib.resources import files

    names: set[str] = set()
    for sheet in _SHEETS:
        lines = files("names").joinpath(sheet).read_text(encoding="utf-8").splitlines()
        names |= {line.split()[0].casefold() for line in lines[:COMMONEST] if line.strip()}
    return frozenset(names)
