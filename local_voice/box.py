"""The offline narrator box: the narrator's cues through a speaker, people's answers through a
microphone, secret choices through the phone relay on the local network. No cloud.

The loop is the same for a real room and for the tests: `Ears` give utterances (a
microphone, or recordings), a `Mouth` speaks (a speaker, or WAV files). What to say is
always "the cues since what was last said", replayed from the stored log, so taps on the
phones, spoken answers and a restart all go through one path.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from local_voice.enrollment import BadClip, Voiceprints, clip_samples
from local_voice.hearing import Hearing, Listening, understand_audio
from local_voice.recognizers import Recognizer
from local_voice.voices import Audio, CachedVoice, Voice
from narrator import Clock, Heard, Listen, Pause, Say, Tick
from narrator.cues import Record
from narrator.narrator import ALWAYS, LOBBY_INTENTS
from narrator.protocols import NAME_ANSWER, NOBODY_ANSWER
from narrator.scripts import DEFAULT_RULESET, script_class
from phones.relay import Relay, handle
from speech import line

LOBBY_LISTEN = Listen((*LOBBY_INTENTS, *ALWAYS), None, timeout=4.0)
TICK_EVERY = 10.0
YES_NO = ("AMAZON.YesIntent", "AMAZON.NoIntent")
# the lines with a player's name the narrator may say right after hearing an answer are
# synthesised for every name when the game starts, so they come from the disk cache: the
# narrator's own (every game's: "Did you say Ana?", "Ana's vote is taken back.") and the
# game script's (Script.name_lines)
ANSWER_LINES = ("did_you_say", "vote_undone")


def name_lines(ruleset: str = DEFAULT_RULESET) -> tuple[str, ...]:
    """The lines with a name the table may hear right after a spoken answer in this game:
    only those are made ahead for every name (a One Night table does not need Wolf
    Village's deaths by poison: 18 lines a name became 4, a Pi's minutes of Piper)."""
    return (*ANSWER_LINES, *script_class(ruleset).name_lines)


NAME_LINES = name_lines()  # (Wolf Village's, the default game)
# lines without a name that can be the first of an answer to a vote (a misheard one; the
# last vote closing the vote): cached up front too, or their first use costs a synthesis
# after the end of speech ("The village has decided.": 300-330 ms of Piper, round 10)
FIXED_LINES = ("not_understood", "village_decided")


def _nobody_phrases(lang: str) -> list[str]:
    from local_voice.grammar import build_grammar, words_of

    phrases = build_grammar(lang, ("NobodyIntent", "SkipIntent"), []).phrases
    return sorted({" ".join(words_of(p)) for p in phrases} - {""}, key=len)


class Ears(Protocol):
    def utterance(self, listen: Listen, timeout: float) -> Audio | None: ...


class StreamingEars(Ears, Protocol):
    """Ears that feed the recogniser while the person speaks (a microphone)."""

    def hear(self, listen: Listen, timeout: float,
             listening: Callable[[], Listening]) -> Hearing | None: ...


class Mouth(Protocol):
    def say(self, sentences: list[tuple[str, float]]) -> None: ...


@dataclass
class VoiceMouth:
    """Speaks sentence by sentence: the first plays while the next is synthesised.
    Lines without a player's name are cached on disk (they are the same every game)."""

    voice: CachedVoice
    play: Callable[[Audio], None]
    names: Callable[[], list[str]] = lambda: []
    log: list[str] = field(default_factory=list)
    lang: str = "en"
    prepared: set[tuple[str, str]] = field(default_factory=set)  # (line, name) made
    _preparing: threading.Thread | None = field(default=None, repr=False)

    def prepare(self, names: list[str], wait: bool = False,
                keys: tuple[str, ...] = NAME_LINES) -> None:
        """Synthesise, in a background thread, each of the game's name lines (`keys`) for
        each of `names` not done yet, into the disk cache: the answer to a vote then
        starts at once. (A game changed in the lobby has its own lines made then.)"""
        todo = [(key, n) for key in keys for n in names if (key, n) not in self.prepared]
        if not todo:
            return
        fixed = [] if self.prepared else list(FIXED_LINES)  # the first time only
        self.prepared.update(todo)
        lang = self.lang

        def work(my_turn: Callable[[], None]) -> None:
            my_turn()
            for key in fixed:
                try:
                    self.voice.synthesize(line(lang, key, {}), cache_it=True)
                except (KeyError, ValueError):
                    continue
            for key in dict.fromkeys(k for k, _ in todo):  # the likeliest next lines first
                # "Did you say skip?": a doubtful nobody/skip is confirmed with the words
                # heard, which can only be one of the grammar's few phrases for them
                said = [*(n for k, n in todo if k == key),
                        *(_nobody_phrases(lang) if key == "did_you_say" and fixed else [])]
                for name in said:
                    try:
                        text = line(lang, key, {"name": name})
                    except (KeyError, ValueError):
                        continue
                    self.voice.synthesize(text, cache_it=True)

        self._in_background(work, "voice-prepare", wait)

    def prepare_lines(self, texts: Callable[[], list[str]], wait: bool = False) -> None:
        """Synthesise the lines `texts()` gives that are not made yet into the disk cache,
        in the background: `texts` at once (the question being asked now), the lines
        after whatever is being prepared already. The narrator's answers ahead
        (Box.prepare_answers)."""

        def work(my_turn: Callable[[], None]) -> None:
            try:
                made = texts()
            except Exception:  # only a head start: the answer is synthesised when said
                logging.getLogger(__name__).exception("the answers' lines ahead")
                made = []
            my_turn()
            for text in dict.fromkeys(made):
                if text and not self.voice.has(text):
                    self.voice.synthesize(text, cache_it=True)

        self._in_background(work, "voice-ahead", wait)

    def _in_background(self, work: Callable[[Callable[[], None]], None], name: str,
                       wait: bool) -> None:
        """`work(my_turn)` in a thread of its own; `my_turn()` waits for whatever was being
        prepared before it (one synthesis at a time). With `wait`, until it is done."""
        before = self._preparing

        def my_turn() -> None:
            if before is not None:
                before.join()

        self._preparing = threading.Thread(target=work, args=(my_turn,), name=name,
                                           daemon=True)
        self._preparing.start()
        if wait:
            self._preparing.join()

    def say(self, sentences: list[tuple[str, float]]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        names = self.names()
        with ThreadPoolExecutor(max_workers=1) as synth:
            jobs = [synth.submit(self._render, text, pause, names) for text, pause in sentences]
            for job in jobs:
                audio, text = job.result()
                self.log.append(text)
                self.play(audio)

    def _render(self, text: str, pause: float, names: list[str]) -> tuple[Audio, str]:
        fixed = not any(name in text for name in names)
        audio = self.voice.synthesize(text, cache_it=fixed or self.voice.has(text)) if text \
            else Audio.silence(0)
        if pause:
            silence = Audio.silence(pause, audio.rate)
            audio = Audio(__import__("numpy").concatenate([audio.samples, silence.samples]),
                          audio.rate)
        return audio, text


@dataclass
class Box:
    relay: Relay
    game_id: str
    ears: Ears
    mouth: Mouth
    recognizer: Recognizer
    lang: str = "en"
    confidence: float = 0.5
    clock: Callable[[], float] = time.monotonic
    spoken: int = 0
    last_tick: float | None = None
    heard: list[Hearing] = field(default_factory=list)
    # the players' clips of their own names (local_voice.enrollment), given to the
    # recogniser at start and whenever one is recorded
    voiceprints: Voiceprints | None = None
    # the voters told to say the number and the name together (`seat_and_name_hint`,
    # `tell_a_noisy_room`): once each at this table (a box serves one room, new games
    # included)
    hinted: set[str] = field(default_factory=set)
    # the box's ears have measured other people talking over something said at this
    # table (anything: the lobby, the debate, an answer), so the room is noisy
    heard_chatter: bool = False

    def session(self) -> Any:
        return self.relay.session(self.game_id)

    # ---------------------------------------------------------------- speaking

    def perform(self, cues: list[Any]) -> None:
        if any(isinstance(cue, Listen) for cue in cues):
            self.prepare_answers()  # in the background, while the question is asked
        sentences: list[tuple[str, float]] = []
        for cue in cues:
            if isinstance(cue, Record):
                # "Ana, please say your name": said first, then the box listens for it
                if sentences:
                    self.mouth.say(sentences)
                    sentences = []
                self.record_name(cue.player)
            elif isinstance(cue, Say):
                sentences.append((line(self.lang, cue.key, cue.params), 0.0))
            elif isinstance(cue, Pause):
                if sentences:
                    text, pause = sentences[-1]
                    sentences[-1] = (text, pause + cue.seconds)
                else:
                    sentences.append(("", cue.seconds))
            elif isinstance(cue, Clock):
                self.last_tick = self.clock() if cue.action == "start" else None
        if sentences:
            self.mouth.say(sentences)

    def prepare_answers(self, wait: bool = False) -> None:
        """The lines the narrator would say first to each answer of the question about to
        be asked (`Narrator.answers_ahead`), made in the background while it is asked: the
        name lines are made at game start, but a tie's announcement names several players
        and cost 280-330 ms of Piper after the last vote (docs/voice.md, round 20)."""
        ahead = getattr(self.mouth, "prepare_lines", None)
        if ahead is None:
            return

        def texts() -> list[str]:
            out = []
            for cue in self.relay.answers_ahead(self.game_id):
                try:
                    out.append(line(self.lang, cue.key, cue.params))
                except (KeyError, ValueError):
                    continue
            return out

        ahead(texts, wait)

    def catch_up(self) -> bool:
        """Say what happened since the voice last spoke (taps, answers, a restart)."""
        session = self.session()
        if session.version <= self.spoken:
            return False
        cues = session.cues_since(self.spoken)
        self.spoken = session.version
        self.perform(cues)
        return True

    # ---------------------------------------------------------------- one beat

    def step(self) -> None:
        if self.catch_up():
            return
        narrator = self.session().narrator
        if narrator.timer is not None and not narrator.paused:
            # the narrator's timer (the debate clock, a night call held open) runs on the
            # time the box lets pass: at most every TICK_EVERY, and when it is due (its
            # end, or sooner a moment its script waits for: a warning, a tap held back)
            now = self.clock()
            if self.last_tick is None:
                self.last_tick = now
            if now - self.last_tick >= min(TICK_EVERY, max(narrator.timer_due() or 0.0, 0.1)):
                handle(self.relay, self.game_id, Tick(now - self.last_tick))
                self.last_tick = now
                return
        else:
            self.last_tick = None  # the next timer counts from when it starts
        listen = LOBBY_LISTEN if narrator.phase == "lobby" else narrator.listening()
        if listen is None:
            time.sleep(0.05)  # the phones are busy; their taps arrive through the relay
            return
        timeout = min(listen.timeout, TICK_EVERY) if narrator.timer is not None else (
            listen.timeout)
        self.tell_a_noisy_room(narrator, listen)
        hearing = self.listen(listen, timeout)
        if hearing is not None:
            self.answer(hearing)

    def _names(self) -> list[str]:
        narrator = self.session().narrator
        return list(narrator.game.players if narrator.game else [])

    def listen(self, listen: Listen, timeout: float) -> Hearing | None:
        """The next answer, understood while it is spoken when the ears can stream."""
        names = self._names()
        prepare = getattr(self.mouth, "prepare", None)
        if prepare and names:
            # once per name and line, in the background: this game's lines only
            prepare(names, keys=name_lines(self.session().narrator.config.ruleset))
        hear = getattr(self.ears, "hear", None)
        if hear is None:
            audio = self.ears.utterance(listen, timeout)
            return None if audio is None else self.hear(audio, listen)
        # the grammar is built and its search compiled before anyone speaks (and the
        # back-up's likeliest sentences scored on silence, in the background)
        pairs = self.pairs_asked()
        ready = [Listening(self.recognizer, self.lang, names, listen.intents, pairs)]
        warm = getattr(self.recognizer, "prepare", None)
        if warm is not None:
            warm(ready[0].grammar)

        def listening() -> Listening:
            return ready.pop() if ready else Listening(self.recognizer, self.lang, names,
                                                       listen.intents, pairs)

        hearing = hear(listen, timeout, listening)
        if hearing is not None:
            self._heard(hearing)
        return hearing

    def hear(self, audio: Audio, listen: Listen) -> Hearing:
        hearing = understand_audio(audio, self.recognizer, self.lang, self._names(),
                                   listen.intents, pairs=self.pairs_asked())
        self._heard(hearing)
        return hearing

    def _heard(self, hearing: Hearing) -> None:
        from local_voice.fusion import noisy

        self.heard.append(hearing)
        # what the recogniser measured on this utterance (its first pass's snr)
        if noisy(getattr(self.recognizer, "last_features", {}) or {}):
            self.heard_chatter = True

    def answer(self, hearing: Hearing) -> None:
        narrator = self.session().narrator
        listen = narrator.listening()
        self.seat_and_name_hint(hearing, narrator, listen)
        if hearing.intent is None:
            reply = handle(self.relay, self.game_id, Heard("AMAZON.FallbackIntent"))
            self.perform(reply.cues)
            return
        # a yes or no to a yes-or-no question is not asked about again
        unsure = hearing.confidence < self.confidence and hearing.intent not in YES_NO
        if unsure and not self._names_someone(hearing, narrator):
            # a command heard badly ("start the game"?): the box asks itself
            if not self.confirm(hearing):
                self.perform(narrator.current_prompt())
                return
            unsure = False
        # an answer naming a player (or nobody) that the box is unsure of goes to the
        # narrator as such: it asks by the player's number, aloud and on the voter's phone
        reply = handle(self.relay, self.game_id,
                       Heard(hearing.intent, hearing.slots, listen.player if listen else None,
                             sure=not unsure))
        if not reply.accepted:
            self.perform(reply.cues)

    def seat_and_name_hint(self, hearing: Hearing, narrator: Any, listen: Listen | None
                           ) -> None:
        """A voter whose answer the box could not take for the chatter around it (its
        ears measured other people talking) is told once at this table to say the number
        and the name together ("like this: number 4, Ben", their own): over babble the two
        are heard right far more often than a name alone (docs/voice.md, round 31)."""
        from local_voice.fusion import noisy

        if not self._names_a_player(narrator, listen):
            return
        taken = hearing.intent is not None and hearing.confidence >= self.confidence
        if taken or listen.player in self.hinted or not noisy(
                getattr(self.recognizer, "last_features", {}) or {}):
            return
        self._tell_seat_and_name(narrator, listen.player)

    def tell_a_noisy_room(self, narrator: Any, listen: Listen | None) -> None:
        """A table the box has heard other people talking at (`heard_chatter`: in the
        lobby, the debate, an answer it took anyway) is told the same before the first
        answer naming a player it listens for, with that voter's number and name, before
        a vote is lost: in babble the bench's votes by name are heard right 41-43 % of
        the time, by seat and name together 72-82 % (docs/voice.md, rounds 31-33 and 39).
        Once at this table: a table already told (by either) is not told again."""
        if self.heard_chatter and not self.hinted and self._names_a_player(narrator, listen):
            self._tell_seat_and_name(narrator, listen.player)

    @staticmethod
    def _names_a_player(narrator: Any, listen: Listen | None) -> bool:
        """`listen` waits for one voter's answer naming a player (a vote, an election)."""
        return listen is not None and listen.player is not None and \
            narrator.game is not None and any(i in NAME_ANSWER for i in listen.intents)

    def _tell_seat_and_name(self, narrator: Any, voter: str) -> None:
        self.hinted.add(voter)
        seat = list(narrator.game.players).index(voter) + 1
        self.perform([Say("noisy_seat_and_name", {"seat": seat, "name": voter})])

    def pairs_asked(self) -> bool:
        """The table has been told to say the number and the name together: from then on
        the box listens for them (Grammar.pairs)."""
        return bool(self.hinted)

    @staticmethod
    def _names_someone(hearing: Hearing, narrator: Any) -> bool:
        # a name the table does not have ("player" in the slots, no player) goes to the
        # narrator too, which says it knows no one by that name and asks again
        return narrator.game is not None and (
            hearing.player is not None or hearing.intent in NOBODY_ANSWER
            or bool(hearing.slots.get("player")))

    def confirm(self, hearing: Hearing) -> bool:
        """"Did you say Sam?" — only a clear yes counts the answer."""
        said = hearing.player or hearing.text
        self.mouth.say([(line(self.lang, "did_you_say", {"name": said}), 0.0)])
        yes = self.listen(Listen(YES_NO), 6.0)
        return yes is not None and yes.intent == "AMAZON.YesIntent"

    # ---------------------------------------------------------------- names

    def record_name(self, name: str, timeout: float = 6.0) -> bool:
        """Listen for `name` saying their own name once (the narrator has asked them to)
        and learn it: the clip is kept for this table and given to the recogniser. False
        if nothing usable was said (silence, or a clip too long or empty)."""
        audio = self.ears.utterance(Listen((), name, timeout=timeout), timeout)
        if audio is None:
            return False
        try:
            self.learn_name(name, audio)
        except BadClip:
            return False
        return True

    def learn_name(self, name: str, audio: Audio) -> None:
        """A clip of `name` saying their name (recorded here, or re-recorded on the host
        page): kept (replacing the old one) and used from the next utterance on."""
        samples = self.voiceprints.add(name, audio) if self.voiceprints else clip_samples(
            audio)
        enroll = getattr(self.recognizer, "enroll", None)
        if enroll is not None:
            enroll(name, samples, self.lang)

    def forget_name(self, name: str) -> None:
        if self.voiceprints is not None:
            self.voiceprints.remove(name)
        forget = getattr(self.recognizer, "forget", None)
        if forget is not None:
            forget(name)

    def load_voiceprints(self) -> list[str]:
        """Give the recogniser every clip kept for this table (a restarted box)."""
        if self.voiceprints is None:
            return []
        enroll = getattr(self.recognizer, "enroll", None)
        done = []
        for name, samples in self.voiceprints.items():
            if enroll is not None:
                enroll(name, samples, self.lang)
            done.append(name)
        return done

    def run(self, until: Callable[[], bool]) -> None:
        while not until():
            self.step()


def welcome(lang: str, url: str, code: str) -> list[Any]:
    return [Say("welcome_box", {"url": url, "code": code})]


def make_voice(lang: str, piper: dict[str, str], cache_dir: Any) -> CachedVoice:
    from local_voice.voices import voice_for

    voice: Voice = voice_for(lang, piper)
    return CachedVoice(voice, cache_dir)
