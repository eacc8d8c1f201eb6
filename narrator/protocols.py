"""What the table may answer, the same in every game."""

from __future__ import annotations

# Intents that work at any moment.
ALWAYS = (
    "AMAZON.RepeatIntent",
    "AMAZON.HelpIntent",
    "AMAZON.PauseIntent",
    "AMAZON.ResumeIntent",
    "TimeLeftIntent",
)
# Answers that name a player.
NAME_ANSWER = ("VoteIntent", "ElectIntent")
# Answers that name nobody (an abstention, "skip").
NOBODY_ANSWER = ("NobodyIntent", "SkipIntent")
YES_NO = ("AMAZON.YesIntent", "AMAZON.NoIntent")
