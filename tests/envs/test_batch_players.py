"""The batch's opponents against the bots they stand for, decision for decision: the
vector environment's batch plays many tables, and every decision an opponent makes there
is compared with what its bot in ``agents/`` answers, in the same deal, on the engine's
hand replayed from the batch's log (the bot's own hooks called as a table calls them, a
mixed answer drawn as a dealer draws it).
Also every holding's value on a board against the evaluator, and a policy over the
observation vectors against the same policy played as a bot by the single environment."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.agents import DealStart, SessionContext, load_agent, observe
from dp_arena.engine import Action, ActionKind, HandState, Mix, evaluate, new_hand
from dp_arena.engine.deck import deck_for
from dp_arena.engine.mixes import MixDraws
from dp_arena.envs.batch.cards import HOLDINGS, board_values
from dp_arena.envs.batch.engine import CALL, CHECK, FOLD, RAISE
from dp_arena.envs.batch.tables import BatchTables
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from tests.envs.helpers import play_in_lockstep

KINDS = {
    FOLD: ActionKind.FOLD,
    CHECK: ActionKind.CHECK,
    CALL: ActionKind.CALL,
    RAISE: ActionKind.RAISE,
}


class _Checked:
    """Wraps a batch player: every decision it makes is compared with its bot's."""

    def __init__(self, tables: BatchTables, index: int, spec: str) -> None:
        self.tables = tables
        self.player = tables.players[index]
        self.spec = spec
        self.bots: dict[tuple[int, int, int], Any] = {}
        self.decisions = 0
        tables.players[index] = self  # type: ignore[call-overload]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.player, name)

    def _hand(self, row: int) -> HandState:
        tables = self.tables
        batch = tables.batch
        seed = tables.event_seeds[row]
        assert seed is not None
        deal = int(tables.deal[row])
        hand = new_hand(
            tables.rules,
            deck_for(seed, 0, int(tables.session[row]), deal),
            button=deal % tables.seat_count,
        )
        for kind, amount in zip(
            batch.log_kinds[row, : batch.log_length[row]].tolist(),
            batch.log_amounts[row, : batch.log_length[row]].tolist(),
            strict=True,
        ):
            hand.apply(Action(KINDS[kind], amount if kind == RAISE else None))
        return hand

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        kinds, amounts = self.player.decide(tables, rows, seats)
        for line, (row, seat) in enumerate(zip(rows.tolist(), seats.tolist(), strict=True)):
            hand = self._hand(row)
            assert hand.actor == seat
            context = SessionContext(
                event=f"capped_holdem_v0:{tables.event_seeds[row]}",
                section=0,
                session=int(tables.session[row]),
                deal_number=int(tables.deal[row]),
                deals_in_session=tables.deals,
            )
            key = (row, seat, int(tables.serial[row]))
            bot = self.bots.get(key)
            if bot is None:
                bot = self.bots[key] = load_agent(self.spec)
                hook = getattr(bot, "begin_deal", None)
                if hook is not None:
                    hole = hand.hole_cards[seat]
                    assert hole is not None
                    hook(DealStart(seat, hand.seat_count, hand.button, hole, context))
            expected = bot.act(observe(hand, seat, context))
            if isinstance(expected, Mix):  # drawn as a dealer draws it
                draws = MixDraws(tables.event_seeds[row] or 0, 0, int(tables.session[row]), 0)
                expected = draws.action(expected, int(tables.deal[row]), len(hand.history))
            got = Action(
                KINDS[int(kinds[line])], int(amounts[line]) if kinds[line] == RAISE else None
            )
            assert got == expected, (self.spec, row, seat, hand.history, got, expected)
            self.decisions += 1
        return kinds, amounts


@pytest.mark.parametrize(
    ("specs", "betting", "cap", "blinds"),
    [
        (["tag"], "no-limit", 1000, (10, 20)),
        (["tag"], "pot-limit", 1000, (10, 20)),
        (["tag"] * 5, "no-limit", 1000, (10, 20)),
        (["tag", "aggressive", "tag"], "pot-limit", 300, (10, 20)),
        (["aggressive"], "no-limit", 1000, (10, 20)),
        (["aggressive"] * 5, "pot-limit", 1000, (10, 20)),
        (
            ["random", "tag", "aggressive", "calling-station", "tag", "random", "tag", "tag"],
            "no-limit",
            2000,
            (10, 20),
        ),
        (["tag", "random"], "no-limit", 45, (10, 20)),
        (["random"] * 5, "no-limit", 1000, (5, 10)),
    ],
)
def test_every_decision_is_the_bots(
    specs: list[str], betting: str, cap: int, blinds: tuple[int, int]
) -> None:
    seats = len(specs) + 1
    env = SingleAgentVectorEnv(
        num_envs=48,
        opponents=specs,
        learner_seat=seats // 2,
        deals=seats * 3,
        betting=betting,
        cap=cap,
        blinds=blinds,
        observation_format="flat",
    )
    assert env.batched
    tables = env.tables
    assert isinstance(tables, BatchTables)
    checked = [_Checked(tables, index, spec) for index, spec in enumerate(dict.fromkeys(specs))]
    _, infos = env.reset(seed=seats * 101 + cap)
    rng = np.random.default_rng(cap)
    for _ in range(60):
        masks = infos["action_mask"].astype(bool)
        # A learner that calls more than it folds, so that hands reach the river.
        weights = np.where(masks, np.array([1, 4, 1, 1, 1, 1]), 0).astype(float)
        actions = np.array([rng.choice(len(row), p=row / row.sum()) for row in weights])
        _, _, _, _, infos = env.step(actions)
    assert all(check.decisions > 200 for check in checked), [c.decisions for c in checked]


def test_every_holdings_value_on_a_board_is_the_evaluators() -> None:
    rng = random.Random(5)
    for size in (3, 4, 5):
        boards = [rng.sample(range(52), size) for _ in range(100)]
        for _ in range(60):  # boards of three or four cards of one suit: flushes
            suit = rng.randrange(4)
            flush = [rank * 4 + suit for rank in rng.sample(range(13), min(size, 3 + (size > 3)))]
            boards.append(
                flush + rng.sample([c for c in range(52) if c not in flush], size - len(flush))
            )
        values, possible = board_values(np.array(boards))
        for row, board in enumerate(boards):
            for holding in range(len(HOLDINGS)):
                low, high = (int(card) for card in HOLDINGS[holding])
                if low in board or high in board:
                    assert not possible[row, holding]
                else:
                    assert possible[row, holding]
                    assert values[row, holding] == evaluate((low, high, *board))


class GreedyLinear:
    """A deterministic policy over the observation vectors: the legal action of the
    largest logit of a fixed random linear map (a frozen snapshot of a learner)."""

    def __init__(self, length: int, actions: int, seed: int) -> None:
        self.weights = np.random.default_rng(seed).normal(size=(length, actions))

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        logits = (observations[:, :, None] * self.weights[None]).sum(axis=1)
        return np.where(masks == 1, logits, -np.inf).argmax(axis=1)


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_a_policy_opponent_plays_in_the_batch_as_in_the_single_env(seats: int) -> None:
    length = 117 + 14 * seats
    policy = GreedyLinear(length, 6, seed=seats)
    opponents: list[Any] = [policy] * (seats - 1)
    if seats == 3:
        opponents = [policy, "tag"]
    play_in_lockstep(
        opponents, opponents, seed=2, steps=80, deals=seats * 2, observation_format="flat"
    )


def test_a_policys_illegal_answer_is_a_fault_played_as_check_or_fold() -> None:
    def always_fold(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(len(observations), dtype=np.int64)

    vector = SingleAgentVectorEnv(num_envs=4, opponents=[always_fold], deals=4)
    vector.reset(seed=1)
    for _ in range(20):
        vector.step(np.ones(4, dtype=np.int64))
    faults = vector.opponent_faults
    assert faults and all(seat == 1 for _, seat, _ in faults)
    assert "action 0 is not legal now" in faults[0][2].detail


@pytest.mark.parametrize("seats", [2, 6])
def test_a_mixed_policy_is_drawn_in_the_batch_as_a_dealer_draws_it(seats: int) -> None:
    """A policy that answers probabilities (a learner's softmax at a temperature) is
    drawn from in the batch as the single env's dealer draws from the bot's mix: the same
    arrays at every step, while its answers really are mixed."""
    from dp_arena.learn import LinearPolicy, SoftmaxPolicy

    linear = LinearPolicy.zeros(feature_set="vector")
    linear.weights[:] = np.random.default_rng(seats).normal(size=linear.weights.shape)
    policy = SoftmaxPolicy(linear, temperature=2.0)
    mixed = 0

    def count_mixed(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        nonlocal mixed
        shares = policy.distribution(observations, masks)
        mixed += int((shares.max(axis=1) < 0.9).sum())
        return shares

    watched: Any = SoftmaxPolicy(linear, temperature=2.0)
    watched.distribution = count_mixed  # the batch's calls, counted
    vector = play_in_lockstep(
        [watched] * (seats - 1),
        [policy] * (seats - 1),
        seed=3,
        steps=80,
        deals=seats * 2,
        observation_format="flat",
    )
    assert mixed > 100
    assert not vector.opponent_faults
