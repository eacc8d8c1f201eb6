"""The Werewords game: a deterministic state machine over (set-up, seed, actions).

Phases: night (the mayor chooses the word) -> day (the mayor answers with tokens) -> the
ending: the seer hunt when the word was guessed, the final vote when it was not -> over.
"Whoops" swaps the two endings until one is resolved.

The rules never read time. The day's timer is the narrator's: `["clock", "time_up", null]`
tells the rules it ran out. The 15 seconds of the seer hunt and the minute of discussion
before the final vote are the narrator's too: the rules wait for every werewolf's
`guess_seer` and every player's `vote`, and the narrator presses for them when its time is
up (a werewolf must point: «luego debe señalar a un jugador»).

As in Wolf Village, `apply` checks everything before it changes anything, so a refused
action leaves the game exactly as it was.
"""

from __future__ import annotations

import random
from typing import Any

from rules.core import CLOCK, TABLE, Decision, Event, Refused
from rules.werewords import wins
from rules.werewords.roles import CALL_ORDER, MAYOR_CALL, ROLES, side_of
from rules.werewords.setup import Setup
from rules.werewords.tokens import DAY_ENDING_SUPPLY, SUPPLIES, SUPPLY_OF, TOKENS
from rules.werewords.wordlists import normalise

# Phases
NIGHT = "night"
DAY = "day"
SEER_HUNT = "seer_hunt"  # the word was guessed: the werewolves point at the seer
FINAL_VOTE = "final_vote"  # it was not: everybody points at a werewolf
OVER = "over"

# The two endings whoops swaps
GUESSED = "guessed"
NOT_GUESSED = "not_guessed"

VERBS = ("choose_word", "answer", "time_up", "whoops", "guess_seer", "vote")


class WerewordsGame:
    """One table's game. Build it with `rules.werewords.start(doc)`."""

    def __init__(self, setup: Setup, rng: random.Random):
        self.setup = setup
        self.options = setup.options
        self.rng = rng  # the deal and the draw used it; nothing in the game is left to chance
        self.players: list[str] = list(setup.players)
        self.seat: dict[str, int] = {name: i for i, name in enumerate(self.players)}
        self.roles: list[str] = list(setup.roles)
        self.mayor: int = setup.mayor
        self.words: tuple[str, ...] = setup.words
        self.events: list[Event] = []

        self.phase = NIGHT
        self.word: str | None = None
        self.left: dict[str, int] = dict(SUPPLIES)
        self.given: list[tuple[int, str]] = []  # (to, token), in order
        self.day_end: str | None = None  # "correct", "time_up" or "no_more_tokens"
        self.ending: str | None = None  # GUESSED or NOT_GUESSED
        self.guessed_by: int | None = None
        self.shown: list[int] = []  # the werewolves who showed themselves after a guess
        self.guesses: dict[int, int] = {}  # werewolf -> the player pointed at as the seer
        self.votes: dict[int, int] = {}  # voter -> the player pointed at as a werewolf
        self.revealed: list[int] = []  # the players the final pointing turned over
        self.counts: dict[int, int] | None = None
        self.winner: str | None = None
        self.winners: list[str] = []

        self._handlers = {
            "choose_word": self._choose_word,
            "answer": self._answer,
            "time_up": self._time_up,
            "whoops": self._whoops,
            "guess_seer": self._guess_seer,
            "vote": self._vote,
        }
        self._emit({"type": "mayor", "player": self.mayor_name, "how": setup.mayor_from})
        self._emit({"type": "night"})
        # the replay's record of the offer (events are the log's truth, not a player's view)
        self._emit({"type": "words_offered", "words": list(self.words)})

    # ------------------------------------------------------------------ queries

    @property
    def mayor_name(self) -> str:
        return self.players[self.mayor]

    def werewolves(self) -> list[int]:
        return [s for s, role in enumerate(self.roles) if role == "werewolf"]

    def pending(self) -> list[Decision]:
        if self.phase == NIGHT:
            return [Decision(self.mayor_name, "choose_word")]
        if self.phase == DAY:
            return [Decision(self.mayor_name, "answer"), Decision(CLOCK, "time_up")]
        if self.phase == SEER_HUNT:
            return [Decision(self.players[w], "guess_seer")
                    for w in self.werewolves() if w not in self.guesses]
        if self.phase == FINAL_VOTE:
            return [Decision(p, "vote")
                    for s, p in enumerate(self.players) if s not in self.votes]
        return []

    def optional_actions(self) -> list[Decision]:
        """What may be done now without the game waiting for it: whoops, at the end."""
        if self.phase in (SEER_HUNT, FINAL_VOTE):
            return [Decision(TABLE, "whoops"), Decision(self.mayor_name, "whoops")]
        return []

    def night_calls(self) -> list[str]:
        """Tonight's calls in order, from the deck (public: the deck is on the table)."""
        woken = {ROLES[card].call for card, _ in self.setup.deck if card in ROLES}
        return [call for call in CALL_ORDER if call == MAYOR_CALL or call in woken]

    def current_call(self) -> str | None:
        """The call of the decision pending now: the mayor's at night, none by day."""
        return MAYOR_CALL if self.phase == NIGHT else None

    def tokens_left(self) -> dict[str, int]:
        return dict(self.left)

    def tokens_given(self) -> list[dict[str, str]]:
        return [{"to": self.players[to], "token": token} for to, token in self.given]

    def alive_names(self) -> list[str]:
        return list(self.players)  # nobody dies in Werewords

    def roles_as_dealt(self) -> dict[str, str]:
        """The secret roles (the mayor's is the centre card they took)."""
        return dict(zip(self.players, self.roles, strict=True))

    def side_of(self, name: str) -> str:
        return side_of(self.roles[self.seat[name]])

    def replay_fields(self) -> dict[str, Any]:
        return {"mayor": self.mayor_name, "word": self.word}

    def legal_targets(self, actor: str, verb: str) -> list[Any]:
        """Every target the rules would accept from `actor` for `verb` right now."""
        if self.phase == OVER:
            return []
        if verb == "time_up":
            return [None] if actor == CLOCK and self.phase == DAY else []
        if verb == "whoops":
            allowed = actor in (TABLE, self.mayor_name)
            return [None] if allowed and self.phase in (SEER_HUNT, FINAL_VOTE) else []
        s = self.seat.get(actor)
        if s is None or Decision(actor, verb) not in self.pending():
            return []
        if verb == "choose_word":
            return list(self.words)
        if verb == "answer":
            tokens = [t for t in TOKENS if self.left[SUPPLY_OF[t]] > 0]
            return [{"to": p, "token": t}
                    for i, p in enumerate(self.players) if i != self.mayor for t in tokens]
        if verb == "guess_seer":
            return [p for i, p in enumerate(self.players) if self.roles[i] != "werewolf"]
        if verb == "vote":
            return [p for i, p in enumerate(self.players) if i != s]
        return []

    # ------------------------------------------------------------------ actions

    def apply(self, actor: Any, verb: Any, target: Any = None) -> list[Event]:
        """Accept one action or raise Refused with the reason; return the new events."""
        if self.phase == OVER:
            raise Refused("the game is over")
        if not isinstance(actor, str):
            raise Refused(f"the actor must be a player's name, not {actor!r}")
        if not isinstance(verb, str) or verb not in self._handlers:
            raise Refused(f"unknown action {verb!r} (Werewords: {', '.join(VERBS)})")
        if actor == CLOCK:
            if verb != "time_up":
                raise Refused(f"the clock only says time_up, not {verb}")
        elif verb == "time_up":
            raise Refused("only the clock says the time is up")
        elif actor == TABLE:
            if verb != "whoops":
                raise Refused(f"the host only presses whoops, not {verb}")
        elif actor not in self.seat:
            raise Refused(f"there is no player called {actor!r}")
        mark = len(self.events)
        self._handlers[verb](actor, target)
        return self.events[mark:]

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _player(self, target: Any, what: str) -> int:
        if not isinstance(target, str):
            raise Refused(f"{what} must be a player's name, not {target!r}")
        s = self.seat.get(target)
        if s is None:
            raise Refused(f"there is no player called {target!r}")
        return s

    def _only_mayor(self, actor: str, verb: str) -> None:
        if actor != self.mayor_name:
            raise Refused(f"only the mayor ({self.mayor_name}) may {verb}; {actor} is not mayor")

    # ------------------------------------------------------------------ night

    def _choose_word(self, actor: str, target: Any) -> None:
        self._only_mayor(actor, "choose the word")
        if self.phase != NIGHT:
            raise Refused("the magic word is already chosen")
        chosen = None
        if isinstance(target, str):
            folded = normalise(target).casefold()
            chosen = next((w for w in self.words if w.casefold() == folded), None)
        if chosen is None:
            # the mayor may see the offer, so naming it here tells nobody anything new
            raise Refused(f"{target!r} is not one of the offered words: {', '.join(self.words)}")
        self.word = chosen
        self._emit({"type": "word_chosen", "word": chosen})
        # The night's other calls (seer, werewolves, minion, beholder) only show what the
        # word now makes known; no decision is left, so the rules are in the day and the
        # narrator opens the token pad once it has narrated the last call.
        self.phase = DAY
        self._emit({"type": "day"})

    # ------------------------------------------------------------------ day

    def _answer(self, actor: str, target: Any) -> None:
        self._only_mayor(actor, "answer")
        if self.phase == NIGHT:
            raise Refused("the mayor must choose the magic word before answering")
        if self.phase != DAY:
            raise Refused("the day is over: no more answers")
        if not isinstance(target, dict) or set(target) != {"to", "token"}:
            raise Refused('an answer is {"to": player, "token": yes | no | maybe | so_close | '
                          "correct}")
        to = self._player(target["to"], "the player answered")
        if to == self.mayor:
            raise Refused("the mayor answers the other players, not themselves")
        token = target["token"]
        if token not in TOKENS:
            raise Refused(f"unknown token {token!r} (tokens: {', '.join(TOKENS)})")
        supply = SUPPLY_OF[token]
        if self.left[supply] == 0:
            kind = "yes/no" if supply == DAY_ENDING_SUPPLY else token.replace("_", " ")
            raise Refused(f"there is no {kind} token left")
        self.left[supply] -= 1
        self.given.append((to, token))
        self._emit({"type": "answer", "to": self.players[to], "token": token,
                    "left": self.left[supply]})
        if token == "correct":
            self.day_end = "correct"
            self.guessed_by = to
            self._emit({"type": "guessed", "by": self.players[to]})
            self._start_ending(GUESSED)
        elif supply == DAY_ENDING_SUPPLY and self.left[supply] == 0:
            # «cuando se entrega la última ficha Sí / No a un jugador, la Fase del Día termina»
            self.day_end = "no_more_tokens"
            self._emit({"type": "no_more_tokens"})
            self._start_ending(NOT_GUESSED)

    def _time_up(self, actor: str, target: Any) -> None:
        if target is not None:
            raise Refused("time_up takes no target")
        if self.phase == NIGHT:
            raise Refused("the day has not started: the mayor is still choosing the word")
        if self.phase != DAY:
            raise Refused("the day is already over")
        self.day_end = "time_up"
        self._emit({"type": "time_up"})
        self._start_ending(NOT_GUESSED)

    # ------------------------------------------------------------------ the ending

    def _start_ending(self, ending: str) -> None:
        self.ending = ending
        self.guesses = {}
        self.votes = {}
        if ending == GUESSED:
            # «solo el hombre lobo muestra su carta»: not the minion, who never shows
            self.phase = SEER_HUNT
            self.shown = self.werewolves()
            self._emit({"type": "werewolves_shown",
                        "players": [self.players[w] for w in self.shown]})
        else:
            self.phase = FINAL_VOTE

    def _whoops(self, actor: str, target: Any) -> None:
        if actor != TABLE:
            self._only_mayor(actor, "press whoops (or the host)")
        if target is not None:
            raise Refused("whoops takes no target")
        if self.phase not in (SEER_HUNT, FINAL_VOTE):
            raise Refused("whoops swaps how the day ended; the day has not ended yet")
        # «esto mostrará la otra condición del juego final»: the other ending, from its start
        other = NOT_GUESSED if self.ending == GUESSED else GUESSED
        self.guessed_by = None  # nobody is known to have guessed it after a whoops
        self._emit({"type": "whoops", "ending": other})
        self._start_ending(other)

    def _guess_seer(self, actor: str, target: Any) -> None:
        if self.phase != SEER_HUNT:
            raise Refused("the werewolves point at the seer only after the word is guessed")
        s = self.seat[actor]
        if self.roles[s] != "werewolf":
            # after a guess the werewolves are shown, so saying who is not one hides nothing
            raise Refused(f"only the werewolves guess the seer; {actor} is not a werewolf")
        if s in self.guesses:
            raise Refused(f"{actor} has already pointed at {self.players[self.guesses[s]]}")
        t = self._player(target, "the seer's guess")
        if self.roles[t] == "werewolf":
            raise Refused(f"{target} showed themselves as a werewolf; point at another player")
        self.guesses[s] = t
        self._emit({"type": "seer_guess", "werewolf": actor, "target": self.players[t]})
        if any(w not in self.guesses for w in self.werewolves()):
            return
        targets = sorted(set(self.guesses.values()))
        self.revealed = targets
        self._emit({"type": "revealed", "players": [self.players[t] for t in targets]})
        self._game_over(wins.seer_hunt_winner(self.roles, targets))

    def _vote(self, actor: str, target: Any) -> None:
        if self.phase != FINAL_VOTE:
            raise Refused("the final vote is only when the word was not guessed, after the day")
        s = self.seat[actor]
        if s in self.votes:
            raise Refused(f"{actor} has already pointed at {self.players[self.votes[s]]}")
        t = self._player(target, "the vote")
        if t == s:
            raise Refused("nobody may point at themselves («no puedes apuntarte a ti mismo»)")
        self.votes[s] = t
        if len(self.votes) < len(self.players):
            return
        winner, top, counts = wins.final_vote(self.roles, self.votes)
        self.counts = counts
        self.revealed = top
        self._emit({"type": "votes", "counts": {self.players[t]: n for t, n in counts.items()}})
        self._emit({"type": "revealed", "players": [self.players[t] for t in top]})
        self._game_over(winner)

    def _game_over(self, winner: str) -> None:
        self.phase = OVER
        self.winner = winner
        self.winners = [p for i, p in enumerate(self.players) if side_of(self.roles[i]) == winner]
        self._emit({"type": "game_over", "winner": winner, "winners": list(self.winners)})
