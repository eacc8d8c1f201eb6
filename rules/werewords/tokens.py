"""The mayor's answer tokens, as many as the box holds (seed 004, «Componentes»).

Yes and no are the two faces of the same 36 tokens, so they share one supply; when the
last of them is given the day ends («No más fichas»).
"""

from __future__ import annotations

TOKENS: tuple[str, ...] = ("yes", "no", "maybe", "so_close", "correct")

# The supply each token is taken from, and how many the box holds of it.
SUPPLY_OF: dict[str, str] = {
    "yes": "yes_no",
    "no": "yes_no",
    "maybe": "maybe",
    "so_close": "so_close",
    "correct": "correct",
}
SUPPLIES: dict[str, int] = {"yes_no": 36, "maybe": 10, "so_close": 1, "correct": 1}

# Running out of this one ends the day.
DAY_ENDING_SUPPLY = "yes_no"
