"""The NumPy learner: a small retraining improves on its untrained self in a duplicate
evaluation with fixed seeds; the features, the policy file and the built-in bot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dp_arena.agents import load_agent
from dp_arena.engine import parse_cards
from dp_arena.errors import AgentError, ConfigError
from dp_arena.learn import LinearPolicy, PolicyBot, TrainConfig, train
from dp_arena.learn.evaluate import block_scores_against, summarize
from dp_arena.learn.features import equity, preflop_equity

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small_policy() -> LinearPolicy:
    return train(TrainConfig(episodes=80, tables=4, deals=10, seed=3))


@pytest.mark.parametrize("opponent", ["random", "calling-station"])
def test_small_retraining_beats_its_untrained_self(
    small_policy: LinearPolicy, opponent: str
) -> None:
    """Same deals, same opponent, paired per deal block: the trained policy's block scores
    minus the untrained policy's, with a 95% interval that must lie above zero."""
    trained = block_scores_against(lambda: PolicyBot(small_policy), opponent, deals=300, seed=5)
    untrained = block_scores_against(
        lambda: PolicyBot(LinearPolicy.zeros()), opponent, deals=300, seed=5
    )
    difference = summarize([a - b for a, b in zip(trained, untrained, strict=True)], opponent)
    assert difference.low > 0, str(difference)


def test_training_is_deterministic_for_a_seed() -> None:
    config = TrainConfig(episodes=3, tables=2, deals=4, seed=9)
    assert np.array_equal(train(config).weights, train(config).weights)
    assert not np.array_equal(
        train(config).weights, train(TrainConfig(episodes=3, tables=2, deals=4, seed=10)).weights
    )


def test_equity_against_known_values() -> None:
    # Exact figures (full enumeration, well known): AA 85.2% and 72o 34.6% against one random hand.
    assert preflop_equity(parse_cards("AdAc"), 1) == pytest.approx(0.852, abs=0.04)
    assert preflop_equity(parse_cards("7h2c"), 1) == pytest.approx(0.346, abs=0.04)
    # A made royal flush cannot lose; quads on the board with a lower kicker only tie or lose.
    assert equity(parse_cards("AsKs"), parse_cards("QsJsTs"), opponents=3, samples=50) == 1.0
    # The estimate is a pure function of the cards: the same in every call and process.
    assert equity(parse_cards("9h8h"), parse_cards("7h6c2d"), opponents=2, samples=40) == equity(
        parse_cards("9h8h"), parse_cards("7h6c2d"), opponents=2, samples=40
    )


def test_policy_file_round_trip_and_errors(tmp_path: Path, small_policy: LinearPolicy) -> None:
    path = tmp_path / "weights.json"
    small_policy.save(path)
    loaded = LinearPolicy.load(path)
    assert np.allclose(loaded.weights, small_policy.weights, atol=1e-6)
    assert loaded.raise_sizes == small_policy.raise_sizes
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(AgentError, match="features"):
        LinearPolicy.load(path)
    path.write_text("not json")
    with pytest.raises(AgentError, match=r"weights\.json"):
        LinearPolicy.load(path)


def test_bad_train_config_names_the_field() -> None:
    with pytest.raises(ConfigError) as caught:
        TrainConfig(deals=3)
    assert caught.value.field == "deals"


def test_the_shipped_learned_bot_loads_and_plays_legal_actions() -> None:
    bot = load_agent("learned")
    scores = block_scores_against(
        lambda: bot, "random", deals=20, seed=1
    )  # an illegal action would raise
    assert len(scores) == 20
    weights = json.loads((ROOT / "agents" / "learned_weights.json").read_text())
    assert weights["metadata"]["episodes"] >= 100  # the shipped weights are a full training run


def test_train_command_writes_weights_and_evaluates(tmp_path: Path) -> None:
    output = tmp_path / "weights.json"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "train",
            "--episodes",
            "4",
            "--tables",
            "2",
            "--deals",
            "4",
            "--output",
            str(output),
            "--evaluate-deals",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    assert "vs random" in completed.stdout and "vs calling-station" in completed.stdout
    assert LinearPolicy.load(output).metadata["episodes"] == 4
