"""Which pages the leak crawls read again: a page is drawn from its viewer's view (which the
crawls read at every step), so while a view's `version` (a hash of its content) is the one
whose pages were read and checked, the pages are too; they are read again when it changes.
(About half of the steps leave a given viewer's view as it was.)"""

from __future__ import annotations


class PagesRead:
    def __init__(self) -> None:
        self.versions: dict[str, str] = {}  # viewer -> view version of its last pages
        self.reads = 0

    def changed(self, viewer: str, version: str) -> bool:
        """True (and noted) when `viewer`'s pages must be read: its view is new to them."""
        if self.versions.get(viewer) == version:
            return False
        self.versions[viewer] = version
        self.reads += 1
        return True
