"""Every line the narrator can say, by stable key, in the seven languages; rendering."""

from speech.catalog_loader import LANGUAGES, catalog, line, units
from speech.render import to_plain, to_ssml

__all__ = ["LANGUAGES", "catalog", "line", "to_plain", "to_ssml", "units"]
