"""The games themselves: pure, deterministic, no I/O. See DESIGN.md."""

from rules import one_night, werewords, wolf_village  # noqa: F401  (register the rulesets)
from rules.core import TABLE, Decision, Refused, SetupError, ruleset
from rules.replay import replay

__all__ = ["TABLE", "Decision", "Refused", "SetupError", "replay", "ruleset"]
