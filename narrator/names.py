"""The players' names as the narrator takes them: what the phone relay checks a typed name
with before it seats anyone (the rules' own checks, so a name the relay lets in is one the
game accepts)."""

from rules.names import name_problem, normal_name, same_name

__all__ = ["name_problem", "normal_name", "same_name"]
