"""Peak memory of `wolfvillage box`: PocketSphinx alone, and with the Whisper back-up.

    .venv/bin/python bench/box_memory.py [--whisper none,tiny.en,base] [--compute int8]
    .venv/bin/python bench/box_memory.py --lang fr   # a French box (base, and PocketSphinx's
                                                     # second opinion: round 16)

This machine has no audio device (the box itself would fall back to the console), so a
fresh subprocess builds what `local_voice.main.serve_box` builds, without the audio
devices: the store, the phone relay (Flask app), a room and its game, the Piper voice
(through the disk cache), the recognisers (PocketSphinx, and the Whisper back-up named by
`recognizer.whisper_model`) with the vote grammar of a 20-player table, then hears one
vote (through the back-up too: it is forced to run), then the same vote over three other
talkers (in English, through the babble filter, round 26), and says one line. It reports its
peak RSS (ru_maxrss). Targets: PocketSphinx alone <= 250 MB, with tiny.en <= 700 MB.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS_MB = {"none": 250, "tiny.en": 700}
CHILD = r"""
import resource, sys, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from local_voice.config import BoxConfig
from local_voice.box import make_voice
from local_voice.grammar import build_grammar
from local_voice.hearing import EXPECT, understand_audio
from local_voice.recognizers import make_recognizer
from phones.web import create_app
from store import open_store

tmp = Path({tmp!r})
config = BoxConfig.from_dict({{"language": {lang!r},
                              "recognizer": {{"whisper_model": {whisper!r},
                                              "whisper_compute": {compute!r}}}}})
store = open_store("sqlite:///" + str(tmp / "box.db"))
app = create_app(store, CALL_PAUSE=config.call_pause)
relay = app.extensions["wolfvillage_relay"]
code, _ = relay.create_room(config.language)
game_id = store.lookup(f"room:{{code}}")
session = relay.session(game_id)
voice = make_voice(config.language, config.piper, tmp / "voice")
recognizer = make_recognizer(config.engine, config.model or None, config.whisper(),
                             config.language, compute_type=config.whisper_compute)
if hasattr(recognizer, "RUN_BELOW"):
    recognizer.RUN_BELOW = 2.0  # the back-up runs on this vote whatever the first pass says
names, said = {names!r}, {said!r}
audio = voice.synthesize(said, cache_it=False)
heard = understand_audio(audio, recognizer, config.language, names, EXPECT["vote"])
# the same vote over three other talkers: in English the babble filter runs too (round 26)
sys.path.insert(0, {bench!r})
from voice_accuracy import babble
understand_audio(babble(audio.resampled(16000), seed=1), recognizer, config.language, names,
                 EXPECT["vote"])
voice.synthesize(names[1], cache_it=False)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{peak:.0f}} {{heard.text!r}}")
"""


def _table(lang: str) -> tuple[list[str], str]:
    """The bench's table in `lang` (bench/voice_accuracy.py: 20 names in English, 10 in
    another language) and one vote for its second player: its model's first carrier."""
    sys.path.insert(0, str(ROOT / "bench"))
    import voice_accuracy

    if lang == "en":
        return voice_accuracy.NAMES, "I vote for Siobhan"
    names = voice_accuracy.LANGS[lang]
    carrier = voice_accuracy._model_samples(lang, "VoteIntent", True)[0]
    return names, carrier.replace("{player}", names[1])


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--whisper", default="none,tiny.en",
                        help="back-ups to measure, comma-separated (none, tiny.en, base)")
    parser.add_argument("--lang", default="en",
                        help="the box's language (another than English: --whisper base)")
    parser.add_argument("--compute", default="float32",
                        help="recognizer.whisper_compute: float32 (the box's) or int8")
    args = parser.parse_args()
    ok = True
    names, said = _table(args.lang)
    whispers = args.whisper.split(",") if args.lang == "en" or \
        args.whisper != parser.get_default("whisper") else ["base"]
    for whisper in whispers:
        with tempfile.TemporaryDirectory() as tmp:
            child = CHILD.format(root=str(ROOT), bench=str(ROOT / "bench"), tmp=tmp,
                                 whisper=whisper,
                                 compute=args.compute, lang=args.lang, names=names,
                                 said=said)
            out = subprocess.run([sys.executable, "-c", child], capture_output=True,
                                 text=True, cwd=ROOT)
        if out.returncode != 0:
            print(out.stderr[-2000:])
            return 1
        peak, heard = out.stdout.strip().split(" ", 1)
        peak_mb = float(peak)
        target = TARGETS_MB.get(whisper)
        met = target is None or peak_mb <= target
        ok &= met
        print(f"box components ({args.lang}: relay, game, voice, PocketSphinx, back-up {whisper}"
              f"{'' if whisper == 'none' else ' ' + args.compute}; heard "
              f"{heard}): peak RSS {peak_mb:.0f} MB"
              + (f" (target <= {target} MB: {'met' if met else 'NOT met'})" if target else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
