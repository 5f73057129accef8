# The few commands everyone runs. `make run` and `make test` are the whole set-up on a
# fresh machine: each creates .venv and installs the project when it is missing or stale.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-slow test-rl test-native native bench bench-scale lint leaderboard luck dist clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing dp-arena and its dependencies into $(VENV) ..."
	@./.ci/system-deps.sh
	@$(BIN)/python -m pip install --quiet --upgrade pip 2>&1 | grep -v "is ignored: it is neither" || true
	@$(BIN)/python -m pip install --quiet -e '.[dev]' 2>&1 | grep -v "is ignored: it is neither" || true
	@$(BIN)/python -m compileall -q dp_arena >/dev/null  # sandboxed seats see it read-only
	@$(BIN)/python -c "import dp_arena, pokerkit, treys" || { echo "installation failed"; exit 1; }
	@touch $(STAMP)

# The demo plays on an embedded Ray, to show the runner end to end: for an event this small
# the default executor (auto) would play it in this process instead.
run: $(STAMP)
	$(BIN)/dp-arena run configs/demo.toml --executor ray

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not rl"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow --timeout 3600

test-rl: $(STAMP)
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install --quiet torch==2.13.0 2>&1 | grep -v "is ignored: it is neither" || true
	$(BIN)/python -m pip install --quiet -e '.[rl]' 2>&1 | grep -v "is ignored: it is neither" || true
	$(BIN)/python -m pytest -q -m rl

native: $(STAMP)  ## compile the hot modules with mypyc (optional: without it all is pure Python)
	$(BIN)/python scripts/build_native.py

# The compiled build against the same tests, the engine's slow oracles (PokerKit, the
# Pluribus hands) included; `make test` runs them on the pure-Python modules.
test-native: native
	$(BIN)/python -c "from dp_arena.engine import native; import dp_arena.engine.state, dp_arena.envs.encoding; assert native.active() == list(native.COMPILED), native.active(); print('compiled:', ', '.join(native.active()))"
	$(BIN)/python -m pytest -q -m "not rl" tests/engine
	$(BIN)/python -m pytest -q -m "not slow and not rl" tests/envs tests/agents tests/test_doctests.py

bench: $(STAMP)
	$(BIN)/python -m bench

bench-scale: $(STAMP)
	$(BIN)/python -m bench scale

lint: $(STAMP)
	$(BIN)/ruff check dp_arena agents tests bench examples scripts setup.py
	$(BIN)/ruff format --check dp_arena agents tests bench examples scripts setup.py
	$(BIN)/mypy

leaderboard: $(STAMP)  ## rebuild the committed leaderboard of the built-in bots
	sh leaderboards/builtins/make.sh

luck: $(STAMP)  ## the luck meter's figure for the README (about 12 minutes)
	$(BIN)/dp-arena luck --freezeouts 1,4,16 --plot docs/img/luck.png --json docs/img/luck.json

# The wheel and sdist of dp-arena in dist/: `pip install dist/dp_arena-*.whl` gives the whole
# tool (built-in bots included) to anyone, without a clone.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist . 2>&1 | grep -E "^Successfully|rror" || true
	@ls dist/*.whl dist/*.tar.gz

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bench/results dp_arena/engine/_native dist build
