"""Asking for votes by the table's protocol, the same in every game.

Two protocols take every voter's own ballot: `roll_call` asks the voters one at a time, in
seat order, by name, and listens for that voter's answer; `phones` asks everybody at once
and waits for the ballots on their phones. (A show of hands, where the table counts and
reports only the outcome, is a game's own business: not every game can take it.) The
script says which voters are still to answer and the words of its game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from narrator.cues import Cue, Listen, Say, Wait

ROLL_CALL = "roll_call"
PHONES = "phones"


@dataclass(frozen=True)
class VoteLines:
    """The line keys of one kind of vote: `ask` names the voter asked ({name}); `intro`
    (or None) is said once, before the first voter of a roll call; `phones` asks
    everybody to vote on their phones."""

    ask: str
    phones: str
    intro: str | None = None


def ask_votes(protocol: str, verb: str, voters: Sequence[str], names: Sequence[str],
              lines: VoteLines, intents: tuple[str, ...], first: bool) -> list[Cue]:
    """The question for the votes still missing. `voters`: who has yet to vote, in seat
    order; `names`: who may be named; `first`: nobody has voted yet (the vote is opening:
    a roll call's intro, or the phones' one question, is due)."""
    if protocol == PHONES:
        # said once, when the vote opens: the phones then just wait for each other
        return [*([Say(lines.phones)] if first else []), Wait(tuple(voters), verb)]
    voter = voters[0]
    cues: list[Cue] = [Say(lines.intro)] if first and lines.intro else []
    return [*cues, Say(lines.ask, {"name": voter}),
            Listen(intents, voter, names=tuple(names))]
