# One command sets everything up and runs the whole suite: `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup test lint bench run clean

$(BIN)/wolfvillage: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

setup: $(BIN)/wolfvillage

lint: setup
	$(BIN)/ruff check .

test: setup lint
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/replay_speed.py

# the main job: a whole table in a terminal (the offline narrator box will take over)
run: setup
	$(BIN)/wolfvillage console

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
