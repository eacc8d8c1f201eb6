"""First names people are commonly called, per language: what a vote for someone who is
not at the table sounds like (`WhisperRecognizer.unlisted_name`).

English: the US Census Bureau's 1990 first names (public domain), as the `names` package
ships them, each list by frequency; the COMMONEST of each.

The other languages: the first names of Faker's person providers (MIT), every country of
the language together (Spanish: es_ES, es_MX, es_AR, ...). Those lists are not ordered by
frequency, so all of each is taken: 1,730 Spanish names, 3,192 German, 1,099 French,
1,204 Dutch, 398 Finnish, 153 Polish once folded (Faker 40; Polish lacks some of its
commonest, such as Maja, Zuzanna and Lena). Round 22 of docs/voice.md measured them on
the bench's votes for a name the table does not have.

Names are kept folded as the matcher folds what it hears (`speech.understanding.normalize`:
casefolded, no accents, "ł" as "l"), since Whisper writes a name with or without its
accents ("sofia" for Sofía).
"""

from __future__ import annotations

from functools import cache

from speech.understanding import normalize as folded

# how many of each list (male, female): round 20 of docs/voice.md, the first names
# Whisper wrote where the box was about to count a vote for someone else: with 300 of
# each, none of the bench's clean, respelled or enrolled votes read right was stopped;
# with 1,000, "will" (for "lose me"), "sal" and "chi" stopped five
COMMONEST = 300
_SHEETS = ("dist.male.first", "dist.female.first")

# the class attributes Faker's person providers keep their first names in (a tuple, or
# a dict of name -> weight); a locale without its own list inherits its parent's
_FAKER_LISTS = ("first_names", "first_names_male", "first_names_female",
                "first_names_nonbinary")


@cache
def common_first_names(lang: str) -> frozenset[str]:
    """The commonest first names in `lang`, folded (empty where there is no list)."""
    if lang == "en":
        return _census_names()
    return _faker_names(lang)


def _census_names() -> frozenset[str]:
    from importlib.resources import files

    names: set[str] = set()
    for sheet in _SHEETS:
        lines = files("names").joinpath(sheet).read_text(encoding="utf-8").splitlines()
        names |= {folded(line.split()[0]) for line in lines[:COMMONEST] if line.strip()}
    return frozenset(names)


def _faker_names(lang: str) -> frozenset[str]:
    """Every first name of Faker's person providers for the countries speaking `lang`
    (its locales `lang` and `lang_XX`)."""
    import importlib
    import pkgutil

    import faker.providers.person as person

    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        if module.name != lang and not module.name.startswith(f"{lang}_"):
            continue
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attribute in _FAKER_LISTS:
            value = getattr(provider, attribute, None)
            # a property is how a few locales pick among their lists at run time: the
            # lists themselves are read from the other attributes
            if isinstance(value, tuple | list | dict):
                names |= {folded(str(name)) for name in value}
    return frozenset(names)
