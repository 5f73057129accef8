"""The NumPy learner: a small retraining improves on its untrained self in a duplicate
evaluation with fixed seeds; the features, the policy file and the built-in bot."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dp_arena.agents import load_agent
from dp_arena.engine import parse_cards
from dp_arena.errors import AgentError, ConfigError
from dp_arena.learn import LinearPolicy, PolicyBot, TrainConfig, train
from dp_arena.learn.evaluate import block_scores_against, summarize
from dp_arena.learn.features import FEATURE_NAMES, equity, preflop_equity

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


SHIPPED_WEIGHTS = ROOT / "agents" / "learned_weights.json"
WIDTH = len(FEATURE_NAMES)


def _tampered(edit: Callable[[dict[str, Any]], None]) -> str:
    """The shipped weights file's JSON after ``edit``."""
    data = json.loads(SHIPPED_WEIGHTS.read_text())
    edit(data)
    return json.dumps(data)


def _set_weight(row: int, column: int, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["weights"][row].__setitem__(column, value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _tampered(lambda data: data.update(weights=data["weights"][:-1])),
            rf"weights must have shape \(6, {WIDTH}\), not \(5, {WIDTH}\)",
        ),
        (_tampered(_set_weight(2, 3, float("nan"))), r"weights\[2\]\[3\] is nan, not a number"),
        (_tampered(_set_weight(0, 1, float("-inf"))), r"weights\[0\]\[1\] is -inf, not a number"),
        (_tampered(_set_weight(1, 0, 1e308)), r"weights\[1\]\[0\] = 1e\+308 is beyond ±1e\+06"),
        (_tampered(_set_weight(0, 0, "x")), "weights must be a table of numbers"),
        (
            _tampered(lambda data: data["weights"].__setitem__(0, [[1] * WIDTH])),
            "weights must be a table of numbers",
        ),
        (_tampered(lambda data: data.pop("weights")), "weights are missing"),
        (_tampered(lambda data: data.update(raise_sizes="min")), "raise_sizes must be a list"),
        (
            _tampered(lambda data: data["raise_sizes"].__setitem__(1, -3)),
            r"raise_sizes\[1\] must be 'min', 'all-in' or a pot fraction",
        ),
        (_tampered(lambda data: data.update(metadata=[1])), r"metadata must be an object"),
        (_tampered(lambda data: data.update(format="other")), "not a dp-arena/linear-policy/v1"),
        (SHIPPED_WEIGHTS.read_text()[:500], "cannot read the policy: not JSON"),  # truncated
        ("hello", "cannot read the policy: not JSON"),
        ("[" * 100_000 + "]" * 100_000, "cannot read the policy: JSON nested too deeply"),
    ],
    ids=[
        "a row missing",
        "nan",
        "-inf",
        "1e308",
        "a string",
        "ragged",
        "no weights",
        "raise sizes a string",
        "a negative raise size",
        "metadata a list",
        "another format",
        "truncated",
        "not JSON",
        "nested too deeply",
    ],
)
def test_a_tampered_weights_file_is_refused_naming_it(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "learned_weights.json"
    path.write_text(text)
    with pytest.raises(AgentError, match=message) as caught:
        LinearPolicy.load(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_weights_that_are_not_text_or_too_large_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "learned_weights.json"
    path.write_bytes(bytes(range(128, 256)))
    with pytest.raises(AgentError, match=rf"^{path}: cannot read the policy: not JSON"):
        LinearPolicy.load(path)
    monkeypatch.setattr("dp_arena.learn.policy.MAX_FILE_BYTES", 100)
    path.write_text(SHIPPED_WEIGHTS.read_text())
    with pytest.raises(AgentError, match=rf"^{path}: not a policy: larger than"):
        LinearPolicy.load(path)


def test_a_match_names_the_tampered_weights_of_a_learned_bot(tmp_path: Path) -> None:
    """The learned bot beside weights with a NaN: it does not load (a fault of that bot,
    named with the file), instead of playing whatever NaN logits pick."""
    (tmp_path / "learned.py").write_text((ROOT / "agents" / "learned.py").read_text())
    weights = tmp_path / "learned_weights.json"
    weights.write_text(_tampered(_set_weight(0, 0, float("nan"))))
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "match",
            f"{tmp_path / 'learned.py'}:LearnedBot",
            "random",
            "--deals",
            "2",
            "--trusted",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 3, completed.stderr  # does not load (docs/agents.md)
    assert "was not loaded (LOAD_ERROR)" in completed.stderr
    assert f"{weights}: weights[0][0] is nan, not a number" in completed.stderr
    assert "Traceback" not in completed.stderr


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
    # The shipped weights are a full run of the shipped recipe.
    assert weights["metadata"]["recipe"] == "configs/learned.toml"
    assert weights["metadata"]["iterations"] >= 10


TINY_TRAINING = ["--episodes", "4", "--tables", "2", "--deals", "4"]


def _train(*arguments: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dp_arena.cli", "train", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_train_command_writes_weights_and_evaluates(tmp_path: Path) -> None:
    output = tmp_path / "weights.json"
    completed = _train(*TINY_TRAINING, "--output", str(output), "--evaluate-deals", "20")
    assert completed.returncode == 0, completed.stderr
    assert "vs random" in completed.stdout and "vs calling-station" in completed.stdout
    assert LinearPolicy.load(output).metadata["episodes"] == 4


def test_train_by_default_writes_a_new_file_under_runs_and_leaves_the_shipped_weights(
    tmp_path: Path,
) -> None:
    shipped = SHIPPED_WEIGHTS.read_bytes()
    try:
        completed = _train(*TINY_TRAINING, "--evaluate-deals", "0", cwd=tmp_path)
        assert completed.returncode == 0, completed.stderr
        assert SHIPPED_WEIGHTS.read_bytes() == shipped
    finally:
        if SHIPPED_WEIGHTS.read_bytes() != shipped:  # never leave the repository changed
            SHIPPED_WEIGHTS.write_bytes(shipped)
    written = list((tmp_path / "runs").glob("learned-weights-*.json"))
    assert len(written) == 1, completed.stdout
    assert LinearPolicy.load(written[0]).metadata["episodes"] == 4
    assert str(Path("runs") / written[0].name) in completed.stdout
    # A second run at once gets a file of its own, not the first one's.
    again = _train(*TINY_TRAINING, "--evaluate-deals", "0", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(list((tmp_path / "runs").glob("learned-weights-*.json"))) == 2
    assert LinearPolicy.load(written[0]).metadata["episodes"] == 4


def test_train_refuses_an_existing_output_before_training_unless_forced(tmp_path: Path) -> None:
    output = tmp_path / "mine.json"
    output.write_text("keep me")
    refused = _train(*TINY_TRAINING, "--evaluate-deals", "0", "--output", str(output))
    assert refused.returncode == 2
    assert "--force" in refused.stderr and str(output) in refused.stderr
    assert "training:" not in refused.stdout  # refused before any episode
    assert output.read_text() == "keep me"
    # The shipped weights are an existing file like any other.
    shipped = SHIPPED_WEIGHTS.read_bytes()
    refused = _train(*TINY_TRAINING, "--output", str(SHIPPED_WEIGHTS))
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert SHIPPED_WEIGHTS.read_bytes() == shipped
    forced = _train(*TINY_TRAINING, "--evaluate-deals", "0", "--output", str(output), "--force")
    assert forced.returncode == 0, forced.stderr
    assert LinearPolicy.load(output).metadata["episodes"] == 4


def test_the_documented_way_to_ship_a_policy_file_plays_a_match(tmp_path: Path) -> None:
    """docs/envs.md: a policy file beside a small bot class, played by spec in a match."""
    text = (ROOT / "docs" / "envs.md").read_text()
    code = text.split("To ship your own policy file")[1].split("```python\n")[1].split("```")[0]
    (tmp_path / "my_bot.py").write_text(code)
    LinearPolicy.zeros().save(tmp_path / "my_weights.json")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "match",
            f"{tmp_path / 'my_bot.py'}:MyBot",
            "random",
            "--deals",
            "4",
            "--seed",
            "1",
            "--trusted",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    assert "MyBot" in completed.stdout or "my_bot" in completed.stdout
