"""docs/agents.md stays true: its example bot plays, and its worked example is what the
engine shows a bot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dp_arena.agents import SessionContext, observe
from dp_arena.cli import main
from dp_arena.engine import Action, ActionKind, Betting, TableRules, deck_for, new_hand
from dp_arena.match import MatchConfig, play_match

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


@pytest.fixture(scope="module")
def example_bot(tmp_path_factory: pytest.TempPathFactory) -> str:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)
    source = next(block for block in blocks if block.startswith("# my_bot.py"))
    # A folder of its own, readable by the sandbox's unprivileged user (mktemp's is not).
    folder = tmp_path_factory.mktemp("guide") / "my_bot"
    folder.mkdir(mode=0o755)
    path = folder / "my_bot.py"
    path.write_text(source)
    return f"{path}:PairHunter"


@pytest.mark.parametrize("betting", list(Betting))
def test_the_example_bot_plays_without_faults(example_bot: str, betting: Betting) -> None:
    config = MatchConfig((example_bot, "calling-station", "random"), deals=30, betting=betting)
    result = play_match(config, trusted=True)
    assert [score.faults for score in result.scores] == [0, 0, 0]


def test_two_copies_of_the_example_bot_score_exactly_zero(example_bot: str) -> None:
    result = play_match(MatchConfig((example_bot, example_bot), deals=30), trusted=True)
    assert all(set(scores) == {0.0} for scores in result.block_scores)


def test_the_documented_command_runs_the_example_bot_sandboxed(
    example_bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", example_bot, "calling-station", "--deals", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agents"][0]["name"] == "PairHunter"
    assert sum(data["agents"][0]["faults"].values()) == 0


@pytest.mark.parametrize(
    ("betting", "max_raise_to"),
    # No-limit: all in, the whole cap. Pot-limit: 60 + the pot of 80 + the call of 40.
    [(Betting.NO_LIMIT, 1000), (Betting.POT_LIMIT, 180)],
)
def test_the_worked_example_observation(betting: Betting, max_raise_to: int) -> None:
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=betting, cap=1000)
    state = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
    state.apply(Action.raise_to(60))  # the button, who posted the small blind, raises to 60
    observation = observe(state, 1, SessionContext())
    assert (observation.pot, observation.current_bet, observation.to_call) == (80, 60, 40)
    assert (observation.min_raise_to, observation.max_raise_to) == (100, max_raise_to)
    assert observation.street_bets == observation.committed == (60, 20)
    assert (observation.available, observation.cap_gap) == ((940, 980), 940)
    assert observation.legal_actions == (ActionKind.FOLD, ActionKind.CALL, ActionKind.RAISE)
    (record,) = observation.history
    assert (record.seat, record.kind, record.chips, record.raise_to) == (
        0,
        ActionKind.RAISE,
        50,
        60,
    )
