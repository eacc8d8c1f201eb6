# One command sets everything up and runs the whole suite: `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup system-deps test lint bench run clean

$(BIN)/wolfvillage: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
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
# tests/conftest.py deals out one by one, longest work first. Idle 2-core x86, round 13:
# 8.8 to 10.5 min with two processes over five runs (529-631 s; round 12: 9.1-11.0; with
# three processes 11.5: the suite is CPU-bound, 13.6-16.3 CPU-minutes)
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
