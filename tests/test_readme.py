"""The README's Python examples run, and do what the README says they do."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def _run(marker: str) -> dict[str, Any]:
    [block] = [block for block in BLOCKS if marker in block]
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    return namespace


def test_the_engine_example_plays_a_hand_whose_nets_sum_to_zero() -> None:
    hand = _run("new_hand")["hand"]
    assert hand.is_complete and sum(hand.payoffs) == 0


def test_the_bot_example_plays_exactly_like_the_calling_station() -> None:
    from dp_arena.agents import InProcessSeat, load_agent
    from dp_arena.match import MatchConfig, play_match

    always_call = _run("class AlwaysCall")["AlwaysCall"]

    def seats(spec: str, name: str) -> InProcessSeat:
        agent = always_call() if spec == "readme" else load_agent(spec)
        return InProcessSeat(agent, name)

    result = play_match(
        MatchConfig(specs=("readme", "calling-station"), deals=40, seed=3), seat_factory=seats
    )
    # The same decisions at every seat of every deal: the duplicate score is exactly zero.
    assert [score.summary.mean for score in result.scores] == [0, 0]
    assert all(score.faults == 0 for score in result.scores)


def test_the_environment_example_plays_a_whole_session() -> None:
    env = _run("capped_holdem_v0")["env"]
    assert all(env.terminations.values()) and not env.agents


def test_the_rankings_example_separates_bots(tmp_path: Path) -> None:
    # The README's leaderboard example, played (with a public seed, so that the test is
    # the same every time) and published: its page must show bots told apart, not only
    # intervals that all cross zero.
    from dp_arena.leaderboard import LeaderboardOptions, publish
    from dp_arena.runner.launch import ExecutorOptions, start_run
    from dp_arena.tournament.loading import load_config

    [block] = [
        b for b in re.findall(r"```sh\n(.*?)```", README.read_text(), re.DOTALL) if "publish" in b
    ]
    config_name = re.search(r"dp-arena run (\S+\.toml)", block).group(1)  # type: ignore[union-attr]
    text = (README.parent / config_name).read_text()
    config = tmp_path / "example.toml"
    config.write_text(text.replace("[event]\n", "[event]\nseed = 1\n", 1))
    start_run(load_config(config), tmp_path / "run", ExecutorOptions("serial"), quiet=True)
    data = publish([tmp_path / "run"], tmp_path / "out", LeaderboardOptions()).data
    separated = [row for row in data["separation"] if row["p_better_beats_worse"] >= 0.95]
    assert len(separated) >= 2
    clear_of_zero = [row for row in data["ranking"] if row["ci"][0] > 0 or row["ci"][1] < 0]
    assert len(clear_of_zero) >= 2
