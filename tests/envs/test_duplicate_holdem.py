"""duplicate_holdem_v0: PettingZoo's checks, the duplicate guarantee across the mirrored
tables, and rewards relative to the seat position, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from dp_arena.engine import Action, deal_cards, deck_for
from dp_arena.envs import duplicate_holdem_v0
from tests.envs.helpers import Caller, MinRaiser, api_test, run_quietly, seed_test


@pytest.mark.parametrize(("num_players", "tables"), [(2, 2), (3, 3), (6, 2)])
def test_pettingzoo_api_test(num_players: int, tables: int) -> None:
    env = duplicate_holdem_v0.env(num_players=num_players, tables=tables, deals=num_players)
    run_quietly(api_test, env, num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    run_quietly(seed_test, lambda: duplicate_holdem_v0.env(num_players=3, tables=2, deals=6), 300)


def test_agents_are_named_by_table_and_seat() -> None:
    env = duplicate_holdem_v0.env(num_players=3, tables=2)
    assert env.possible_agents == ["t0_p0", "t0_p1", "t0_p2", "t1_p0", "t1_p1", "t1_p2"]


def test_every_table_gets_the_same_cards_every_deal() -> None:
    env = duplicate_holdem_v0.env(num_players=3, tables=3, deals=6)
    env.reset(seed=12)
    rng = np.random.default_rng(1)
    seen_deals = set()
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        raw = env.unwrapped
        if raw.deal not in seen_deals and not terminated:
            seen_deals.add(raw.deal)
            hole, board = deal_cards(deck_for(12, 0, 0, raw.deal), 3, raw.deal % 3)
            for hand in raw.hands:
                assert (
                    hand.hole_cards == hole and hand.board == board and hand.button == raw.deal % 3
                )
        env.step(
            None
            if terminated or truncated
            else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        )
    assert seen_deals == set(range(6))


def test_rewards_against_the_seat_position_worked_by_hand() -> None:
    env = duplicate_holdem_v0.env(num_players=2, tables=2, deals=2, blinds=(10, 20))
    env.reset(seed=4)
    env.step(0)  # table 0: the button folds its small blind: nets -10, +10
    assert env.agent_selection == "t1_p0" and not any(env.rewards.values())
    env.step(5)  # table 1: the button moves all-in...
    env.step(0)  # ...and the big blind folds: nets +20, -20
    # Seat 0's mean net is (-10 + 20) / 2 = 5, seat 1's is -5; rewards are in big blinds.
    assert env.rewards == {"t0_p0": -0.75, "t1_p0": 0.75, "t0_p1": 0.75, "t1_p1": -0.75}


def test_the_same_deterministic_play_at_every_table_scores_zero() -> None:
    """Duplicate's point: the same decisions with the same cards leave no luck to score."""
    env = duplicate_holdem_v0.env(num_players=3, tables=3, deals=9, betting="pot-limit")
    env.reset(seed=21)
    bots = [MinRaiser(), Caller(), MinRaiser()]
    for agent in env.agent_iter():
        _, reward, terminated, truncated, info = env.last()
        assert reward == 0.0
        seat = int(agent.split("_p")[1])
        env.step(None if terminated or truncated else bots[seat].act(info["observation"]))


def test_relative_rewards_sum_to_zero_in_each_seat_position() -> None:
    env = duplicate_holdem_v0.env(num_players=2, tables=3, deals=10)
    env.reset(seed=6)
    rng = np.random.default_rng(2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
        elif rng.random() < 0.2:
            env.step(
                Action.call()
                if env.unwrapped.hands[int(agent[1])].legal_actions().call_amount
                else Action.check()
            )
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    nets = env.unwrapped.session_nets
    for seat in range(2):
        assert sum(totals[f"t{table}_p{seat}"] for table in range(3)) == pytest.approx(
            0.0, abs=1e-9
        )
        mean = sum(nets[table][seat] for table in range(3)) / 3
        for table in range(3):
            assert totals[f"t{table}_p{seat}"] == pytest.approx((nets[table][seat] - mean) / 20)
