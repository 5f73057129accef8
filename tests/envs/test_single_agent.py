"""The Gymnasium single-agent wrapper: Gymnasium's own checker, opponents played as a
table plays them, and rewards that add up to the learner's session net."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from dp_arena.agents import (
    DealEnd,
    DealStart,
    InProcessSeat,
    SessionContext,
    TableSession,
    play_table_session,
)
from dp_arena.engine import Betting, TableRules
from dp_arena.envs import SingleAgentEnv
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.errors import ConfigError
from tests.envs.helpers import MinRaiser


@pytest.mark.parametrize(
    "opponents", [["calling-station"], ["random"], ["random", "calling-station", "random"]]
)
def test_gymnasium_check_env(opponents: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    env = gymnasium.make(ENV_ID, opponents=opponents, deals=len(opponents) + 1)
    check_env(env.unwrapped)  # also renders in every mode: "human" prints the table
    assert "player_0" in capsys.readouterr().out


def _play(env: SingleAgentEnv, seed: int, choose) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    observation, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        observation, reward, terminated, truncated, info = env.step(choose(observation, info))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


def test_rewards_add_up_to_the_learners_session_net() -> None:
    env = SingleAgentEnv(opponents=["random", "calling-station"], learner_seat=1, deals=9)
    rng = np.random.default_rng(3)
    total, _ = _play(env, 11, lambda obs, info: int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total == pytest.approx(env.table.session_nets[0][1] / 20)


def test_same_seed_same_episode_with_a_seeded_random_opponent() -> None:
    def run() -> tuple[float, int]:
        env = SingleAgentEnv(opponents=["random"], deals=20)
        rng = np.random.default_rng(5)
        return _play(env, 77, lambda obs, info: int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    assert run() == run()


def test_learner_and_opponents_play_as_at_the_agents_table() -> None:
    """A rule-based learner acting through the wrapper on info's typed observation gets
    the session net the agents' own table loop gives it against the same opponent."""
    env = SingleAgentEnv(opponents=["random"], learner_seat=0, deals=12, betting="pot-limit")
    learner = MinRaiser()
    total, _ = _play(env, 31, lambda obs, info: learner.act(info["observation"]))  # engine actions
    rules = TableRules(
        seat_count=2, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT, cap=1000
    )
    from dp_arena.agents import load_agent

    table = TableSession(
        [InProcessSeat(MinRaiser(), "learner"), InProcessSeat(load_agent("random"), "random")],
        ["learner", "random"],
    )
    # The wrapper tells opponents the event "capped_holdem_v0:<seed>", which seeds
    # RandomBot's choices.
    result = play_table_session(
        table,
        rules,
        event_seed=31,
        section=0,
        session=0,
        deals=12,
        context=SessionContext(event="capped_holdem_v0:31"),
    )
    assert total == pytest.approx(result.session_nets[0] / 20)


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []

    def begin_session(self, context: SessionContext) -> None:
        self.events.append(f"session {context.deals_in_session}")

    def begin_deal(self, start: DealStart) -> None:
        self.events.append(f"begin {start.context.deal_number}")

    def end_deal(self, end: DealEnd) -> None:
        self.events.append(f"end {end.context.deal_number} {end.net}")

    def act(self, observation):  # type: ignore[no-untyped-def]
        raise RuntimeError("a buggy bot")


def test_opponent_hooks_are_called_and_faults_become_check_or_fold() -> None:
    recorder = Recorder()
    env = SingleAgentEnv(opponents=[recorder], deals=2)
    total, _ = _play(env, 1, lambda obs, info: 1)  # the learner checks or calls
    # Its act() always fails, so it checks or folds: the learner never loses a chip.
    assert total >= 0
    assert recorder.events[0] == "session 2"
    assert [e.split()[0:2] for e in recorder.events[1:]] == [
        ["begin", "0"],
        ["end", "0"],
        ["begin", "1"],
        ["end", "1"],
    ]
    assert env.opponent_faults and all(
        "a buggy bot" in fault.detail for _, fault in env.opponent_faults
    )


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(ConfigError) as caught:
        SingleAgentEnv(opponents=["random"], learner_seat=2)
    assert caught.value.field == "learner_seat"
    with pytest.raises(ConfigError):
        SingleAgentEnv(opponents="random")  # type: ignore[arg-type]


class Folder:
    """Folds whenever it may, checks otherwise."""

    def act(self, observation):  # type: ignore[no-untyped-def]
        from dp_arena.engine import Action

        return Action.fold() if observation.to_call else Action.check()


def test_deals_before_the_learners_first_decision_are_paid_with_it() -> None:
    """Heads-up with the learner in seat 1, the opponent opens deal 0 as the button and
    folds: the learner's first decision comes in deal 1, and its reward includes deal 0."""
    env = SingleAgentEnv(opponents=[Folder()], learner_seat=1, deals=2)
    _, info = env.reset(seed=4)
    assert info["observation"].context.deal_number == 1
    total, _ = _play(env, 4, lambda obs, info: 1)
    # Deal 0 won the learner the small blind (10 chips): without it the total would be
    # half a big blind short of the session net.
    assert total == pytest.approx(env.table.session_nets[0][1] / 20)
