"""The games themselves: pure, deterministic, no I/O. See DESIGN.md."""

from rules import wolf_village  # noqa: F401  (registers the ruleset)
from rules.core import TABLE, Decision, Refused, SetupError, ruleset
from rules.replay import replay

__all__ = ["TABLE", "Decision", "Refused", "SetupError", "replay", "ruleset"]
