"""capped_holdem_v0: PettingZoo's own checks, seeding through the engine's deck, rewards,
the action mask and raise sizes worked by hand, and agreement with the agents' table."""

from __future__ import annotations

import numpy as np
import pytest

from dp_arena.agents import InProcessSeat, SessionContext, TableSession, play_table_session
from dp_arena.engine import Action, Betting, TableRules, deal_cards, deck_for, evaluate
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.encoding import observation_length
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason
from tests.envs.helpers import Caller, FoldToRaise, MinRaiser, api_test, run_quietly, seed_test


@pytest.mark.parametrize(
    ("num_players", "betting"),
    [(2, "no-limit"), (3, "pot-limit"), (6, "no-limit"), (10, "pot-limit")],
)
def test_pettingzoo_api_test(num_players: int, betting: str) -> None:
    env = capped_holdem_v0.env(num_players=num_players, betting=betting, deals=2 * num_players)
    run_quietly(api_test, env, num_cycles=200)


@pytest.mark.parametrize("num_players", [2, 6])
def test_pettingzoo_seed_test(num_players: int) -> None:
    run_quietly(
        seed_test, lambda: capped_holdem_v0.env(num_players=num_players, deals=4 * num_players), 300
    )


def test_cards_come_from_the_engines_deck_for_the_seed_and_session() -> None:
    env = capped_holdem_v0.env(num_players=3, deals=3)
    env.reset(seed=41)
    hole, _ = deal_cards(deck_for(41, 0, 0, 0), 3, 0)
    view = env.unwrapped.view
    assert [view(f"player_{seat}").hole_cards for seat in range(3)] == list(hole)
    vector = env.observe("player_1")["observation"]
    assert set(np.flatnonzero(vector[:52])) == set(hole[1])
    env.reset()  # the next session of the same event seed
    hole_next, _ = deal_cards(deck_for(41, 0, 1, 0), 3, 0)
    assert view("player_2").hole_cards == hole_next[2]
    env.reset(seed=41)  # back to session 0
    assert view("player_0").hole_cards == hole[0]


def _play(env, policy):  # type: ignore[no-untyped-def]
    """Play a whole episode with ``policy(agent, observation_dict, info)``; return rewards
    per step."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else policy(agent, observation, info))
    return totals


def test_heads_up_fold_and_button_rotation_worked_by_hand() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2, blinds=(10, 20))
    env.reset(seed=3)
    # Deal 0: the button (seat 0) posts the small blind and acts first; it folds.
    assert env.agent_selection == "player_0"
    env.step(0)
    assert env.rewards == {"player_0": -0.5, "player_1": 0.5}
    # Deal 1: the button moved to seat 1, which now posts the small blind and acts first.
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["observation"].button == 1
    env.step(1)  # the button calls
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.step(1)  # the big blind checks
    assert env.agent_selection == "player_0"  # after the flop the big blind acts first
    for _ in range(6):  # check it down: flop, turn, river
        env.step(1)
    assert all(env.terminations.values())
    hole, board = deal_cards(deck_for(3, 0, 0, 1), 2, 1)
    value_0, value_1 = evaluate((*hole[0], *board)), evaluate((*hole[1], *board))
    expected_0 = 0.0 if value_0 == value_1 else (1.0 if value_0 < value_1 else -1.0)
    assert env.rewards["player_0"] == expected_0 and env.rewards["player_1"] == -expected_0


def test_raise_sizes_and_mask_worked_by_hand() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2, raise_sizes=("min", 0.5, 1, "all-in"))
    env.reset(seed=1)
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1, 1, 1, 1, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 0, 0, 0]  # not its turn
    # Pot 30, owed 10, current bet 20: half pot raises to 20 + (30 + 10) / 2 = 40.
    env.step(3)
    hand = env.unwrapped.hands[0]
    assert hand.history[-1].raise_to == 40
    # Now the big blind owes 20 into a pot of 60: a pot raise goes to 40 + 80 = 120.
    env.step(4)
    assert hand.history[-1].raise_to == 120
    env.step(5)  # all-in: the whole cap
    assert hand.history[-1].raise_to == 1000 and hand.history[-1].all_in
    # Facing an all-in, raising is impossible: only fold and call remain.
    assert env.observe("player_1")["action_mask"].tolist() == [1, 1, 0, 0, 0, 0]


def test_pot_limit_all_in_is_the_pot_limit() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2, betting="pot-limit")
    env.reset(seed=1)
    env.step(5)  # the button's maximum: 20 + (30 + 10) = 60
    assert env.unwrapped.hands[0].history[-1].raise_to == 60


def test_illegal_actions_raise_a_clear_error_and_change_nothing() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2)
    env.reset(seed=1)
    env.step(1)  # the button calls; the big blind may check
    with pytest.raises(
        IllegalActionError, match=r"player_1: action 0 \(fold\) is masked.*action_mask is \[0, 1"
    ):
        env.step(0)
    with pytest.raises(IllegalActionError, match=r"outside Discrete\(6\)") as caught:
        env.step(6)
    assert caught.value.reason is IllegalReason.UNKNOWN_ACTION
    with pytest.raises(IllegalActionError, match="not an integer"):
        env.step("call")  # type: ignore[arg-type]
    assert env.agent_selection == "player_1" and len(env.unwrapped.hands[0].history) == 1
    env.step(np.int64(1))  # NumPy integers are actions too
    assert env.unwrapped.hands[0].street.name == "FLOP"


def test_engine_actions_are_accepted_and_validated() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2)
    env.reset(seed=1)
    env.step(Action.raise_to(77))
    assert env.unwrapped.hands[0].history[-1].raise_to == 77
    with pytest.raises(IllegalActionError, match="below the minimum"):
        env.step(Action.raise_to(80))


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_env_and_agents_table_agree_on_every_deal(num_players: int) -> None:
    """Bots acting on infos' typed Observation get, deal for deal, the nets the agents'
    own table loop (:func:`play_table_session`) gives the same bots with the same seed."""
    bots = [MinRaiser(), Caller(), FoldToRaise(), Caller(), MinRaiser(), FoldToRaise()][
        :num_players
    ]
    deals = 3 * num_players
    env = capped_holdem_v0.env(num_players=num_players, deals=deals, betting="pot-limit")
    env.reset(seed=99)
    per_deal = []
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        deals_done = env.unwrapped.deal
        env.step(bots[seat].act(info["observation"]))
        if env.unwrapped.deal != deals_done:  # this step ended a deal: its rewards are out
            per_deal.append(dict(env.rewards))
    rules = TableRules(
        seat_count=num_players, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT, cap=1000
    )
    table = TableSession(
        [InProcessSeat(bot, f"bot{seat}") for seat, bot in enumerate(bots)],
        [f"bot{seat}" for seat in range(num_players)],
    )
    result = play_table_session(
        table, rules, event_seed=99, section=0, session=0, deals=deals, context=SessionContext()
    )
    expected = [[net / 20 for net in record.nets] for record in result.deals]
    got = [[rewards[f"player_{seat}"] for seat in range(num_players)] for rewards in per_deal]
    assert got == expected
    assert all(abs(sum(row)) < 1e-9 for row in got)


def test_rewards_sum_to_the_session_nets() -> None:
    env = capped_holdem_v0.env(num_players=3, deals=6)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    totals = _play(
        env, lambda agent, obs, info: int(rng.choice(np.flatnonzero(obs["action_mask"])))
    )
    nets = env.unwrapped.session_nets[0]
    assert sum(nets) == 0
    assert totals == {f"player_{seat}": pytest.approx(nets[seat] / 20) for seat in range(3)}


def test_observation_vector_worked_by_hand() -> None:
    env = capped_holdem_v0.env(num_players=3, deals=3, cap=1000, blinds=(10, 20))
    env.reset(seed=8)
    # Deal 0, button seat 0 (3 players): seat 1 posts 10, seat 2 posts 20, seat 0 acts first.
    env.step(Action.raise_to(60))
    vector = env.observe("player_1")["observation"]
    assert vector.shape == (observation_length(3),) == (117 + 14 * 3,)
    hole, _ = deal_cards(deck_for(8, 0, 0, 0), 3, 0)
    assert sorted(np.flatnonzero(vector[:52])) == sorted(hole[1])
    assert vector[52:104].sum() == 0 and vector[104] == 1  # preflop, no board
    assert vector[108 + 1] == 1  # one seat after the button
    s = 108 + 3
    expected = [90 / 1000, 50 / 1000, 60 / 1000, 100 / 1000, 1000 / 1000, 940 / 1000, 1.0, 0.0, 0.0]
    assert vector[s : s + 9] == pytest.approx(expected)
    seats = s + 9  # relative seats: me (1), then 2, then 0
    assert vector[seats : seats + 5] == pytest.approx([0.01, 0.99, 0.01, 0, 0])
    assert vector[seats + 10 : seats + 15] == pytest.approx([0.06, 0.94, 0.06, 0, 0])
    history = seats + 15
    # Seat 0 is relative seat 2 of seat 1: one raise preflop, 60 chips.
    assert vector[history + 2 * 2 : history + 2 * 2 + 2] == pytest.approx([1 / 3, 0.06])


def test_render_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    env = capped_holdem_v0.env(num_players=2, deals=2, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "player_0" in text and "to act" in text
    human = capped_holdem_v0.env(num_players=2, deals=2, render_mode="human")
    human.reset(seed=2)
    human.step(1)
    assert "player_1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 11}, "num_players"),
        ({"num_players": 3, "deals": 4}, "deals"),
        ({"raise_sizes": ("min", -1)}, "raise_sizes[1]"),
        ({"betting": "limit"}, "betting"),
        ({"blinds": (20, 10)}, "blinds"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_configuration_names_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        capped_holdem_v0.env(**kwargs)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        # The engine knows nothing of the env, nor does the bot API.
        ("dp_arena.engine", "numpy pettingzoo gymnasium ray"),
        ("dp_arena.agents", "pettingzoo gymnasium dp_arena.envs"),
    ],
)
def test_lower_layers_do_not_import_the_env(package: str, forbidden: str) -> None:
    import subprocess
    import sys

    code = (
        f"import sys, {package};"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {forbidden.split()!r}"
        f" or m.startswith('dp_arena.envs')))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"
