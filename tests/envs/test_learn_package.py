"""The learning package loads its names when first used: a bot that plays a policy
imports neither the training loop nor the evaluation (nor the match runner and ratings
they stand on), in its own process or in a seat's; and ``train`` stays the function
whichever of it and its submodule is imported first."""

from __future__ import annotations

import json
import subprocess
import sys

import dp_arena.learn

_POLICY_BOT = """
import json, sys
from dp_arena.learn import PolicyBot
import dp_arena.learn.policy
print(json.dumps(sorted(name for name in sys.modules if name.startswith("dp_arena"))))
"""


def test_a_policy_bot_loads_neither_training_nor_evaluation() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", _POLICY_BOT], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert {"dp_arena.learn.bot", "dp_arena.learn.policy"} <= loaded
    heavy = {"dp_arena.learn.train", "dp_arena.learn.evaluate", "dp_arena.match"}
    assert sorted(loaded & heavy) == []


_SUBMODULE_FIRST = """
import sys
import dp_arena.learn.train
from dp_arena.learn import TrainConfig, train
module = sys.modules["dp_arena.learn.train"]
print(type(train).__name__, train is module.train, dp_arena.learn.train is train)
"""


def test_train_stays_the_function_after_its_submodule_is_imported() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", _SUBMODULE_FIRST], capture_output=True, text=True, check=True
    )
    # ``dp_arena.learn.train`` as an attribute is the function too: the package's name
    # is kept over the import system's binding of the submodule.
    assert done.stdout.split() == ["function", "True", "True"]


def test_every_public_name_is_there_when_asked_for() -> None:
    for name in dp_arena.learn.__all__:
        assert getattr(dp_arena.learn, name) is not None
        assert name in dir(dp_arena.learn)
    try:
        dp_arena.learn.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
