"""Fitted Monte-Carlo control: a short run on the vector env beats its untrained self in a
paired duplicate evaluation, the same seed trains the same weights, the values it fits
are of what an action wins from now on, and a recipe file trains and writes its card."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dp_arena.errors import ConfigError
from dp_arena.learn import LinearPolicy, PolicyBot
from dp_arena.learn.evaluate import block_scores_against, summarize
from dp_arena.learn.fitted import FittedConfig, train_fitted
from dp_arena.learn.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]
SMALL = FittedConfig(
    iterations=3,
    decisions=1500,
    tables=8,
    lineups=(("random",), ("calling-station",)),
    seed=5,
)


@pytest.fixture(scope="module")
def small_policy() -> LinearPolicy:
    return train_fitted(SMALL)


def test_folding_is_worth_nothing_and_the_other_actions_are_fitted(
    small_policy: LinearPolicy,
) -> None:
    assert not small_policy.weights[0].any()  # fold: 0 from now on, never fitted
    assert np.abs(small_policy.weights[1:]).sum() > 0
    assert small_policy.metadata["iterations"] == 3


@pytest.mark.parametrize("opponent", ["random", "calling-station"])
def test_a_short_run_beats_its_untrained_self(small_policy: LinearPolicy, opponent: str) -> None:
    trained = block_scores_against(lambda: PolicyBot(small_policy), opponent, deals=300, seed=8)
    untrained = block_scores_against(
        lambda: PolicyBot(LinearPolicy.zeros()), opponent, deals=300, seed=8
    )
    difference = summarize([a - b for a, b in zip(trained, untrained, strict=True)], opponent)
    assert difference.low > 0, str(difference)


def test_the_same_seed_trains_the_same_weights() -> None:
    config = FittedConfig(iterations=1, decisions=400, tables=4, lineups=(("random",),), seed=2)
    first = train_fitted(config).weights
    assert np.array_equal(first, train_fitted(config).weights)
    other = FittedConfig(iterations=1, decisions=400, tables=4, lineups=(("random",),), seed=3)
    assert not np.array_equal(first, train_fitted(other).weights)


def test_the_duplicate_reward_trains_too() -> None:
    config = FittedConfig(
        iterations=1,
        decisions=400,
        tables=4,
        lineups=(("random",),),
        reward="duplicate",
        reference="calling-station",
    )
    policy = train_fitted(config)
    assert policy.metadata["reward"] == "duplicate" and np.abs(policy.weights).sum() > 0


def test_the_shipped_recipe_loads_and_bad_recipes_name_the_field(tmp_path: Path) -> None:
    recipe = load_recipe(ROOT / "configs" / "learned.toml")
    assert recipe.evaluate_deals >= 2000 and recipe.train.lineups
    bad = tmp_path / "bad.toml"
    bad.write_text("[train]\niterations = 2\nlearning_speed = 3\n")
    with pytest.raises(ConfigError, match="unknown fields") as caught:
        load_recipe(bad)
    assert caught.value.field == "learning_speed"
    bad.write_text("[train]\nexploration = 2.0\n")
    with pytest.raises(ConfigError) as caught:
        load_recipe(bad)
    assert caught.value.field == "exploration"


def test_train_with_a_recipe_writes_weights_and_a_card(tmp_path: Path) -> None:
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(
        "[train]\niterations = 1\ndecisions = 300\ntables = 4\n"
        'lineups = [["random"]]\n[evaluate]\ndeals = 20\nsix_max_deals = 0\nseed = 3\n'
    )
    output, card = tmp_path / "weights.json", tmp_path / "card.md"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "train",
            "--config",
            str(recipe),
            "--output",
            str(output),
            "--card",
            str(card),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    assert "vs tag" in completed.stdout and "vs random" in completed.stdout
    assert LinearPolicy.load(output).metadata["iterations"] == 1
    text = card.read_text()
    assert f"dp-arena train --config {recipe}" in text and "| random |" in text


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"tables": 0}, "tables", "train: tables must be an integer from 1 to 4_096, not 0"),
        ({"rounds": True}, "rounds", "train: rounds must be an integer from 1 to 1_000, not True"),
        ({"decisions": 99}, "decisions", "from 100 to 100_000_000, not 99"),
        ({"exploration": 1.5}, "exploration", "train: exploration must be in [0, 1]"),
        ({"ridge": -1.0}, "ridge", "train: ridge must be non-negative"),
        ({"ridge": float("inf")}, "ridge", "train: ridge must be non-negative"),
    ],
)
def test_a_config_out_of_range_is_refused_naming_the_field(
    change: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)) as refused:
        FittedConfig(**change)  # type: ignore[arg-type]
    assert refused.value.field == field


def test_the_fit_gives_each_action_the_least_squares_values_of_its_targets() -> None:
    """Targets that are exactly linear in the features are fitted back (no ridge), an
    action taken too rarely keeps 0, folding keeps 0, and NaN targets are left out."""
    policy = LinearPolicy.zeros(raise_sizes=("all-in",))
    width = policy.weights.shape[1]
    generator = np.random.default_rng(4)
    rows = generator.normal(size=(6 * width, width))
    truth = generator.normal(size=width)
    actions = np.ones(len(rows), dtype=np.int64)
    actions[: width // 2] = 2  # too few for the raise: it keeps 0
    actions[-3:] = 0  # folding is never fitted
    targets = rows @ truth
    targets[width // 2 : width // 2 + 2] = np.nan
    before = policy.weights.copy()
    half = 3 * width
    batches = [(rows[:half], actions[:half], targets[:half])]
    batches.append((rows[half:], actions[half:], targets[half:]))
    policy.fit(batches, 0.0)
    assert np.allclose(policy.weights[1], truth)
    assert (policy.weights[0] == before[0]).all() and (policy.weights[2] == 0).all()
