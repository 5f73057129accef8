"""The rollout value of the draws (:mod:`dp_arena.rollouts`): every term averages
exactly zero over its mix, a copy is never told of a draw before it values it, the
values are the same from the same key and move with the place, the numbers are
stratified, faulty copies play passively and are recorded nowhere, the values are kept
in the deal record and used by the adjusted score in place of the fixed blend."""

from __future__ import annotations

import functools
import json
import random
from fractions import Fraction
from typing import Any

import pytest

from dp_arena.agents import InProcessSeat
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import Seat
from dp_arena.agents.spec import load_agent
from dp_arena.agents.table import deal_record
from dp_arena.engine import Action, ActionKind, Mix, TableRules, deck_for, new_hand
from dp_arena.errors import HandHistoryError
from dp_arena.match import MatchConfig, block_scores, play_match
from dp_arena.ratings.action_luck import (
    ActionLuck,
    action_luck,
    board_action_nets,
    recorded_action,
    stored_values,
)
from dp_arena.ratings.blocks import summarize_blocks
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.equity import recorded_hand
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.rollouts import (
    RolloutPlace,
    Stream,
    _Copies,
    _FixedLuck,
    _outcome,
    _play_on,
    decision_rollout_values,
    table_values,
)
from tests.ratings.test_calibration import MixingBot

SEED = 5
SPECS = ("random", "learned", "calling-station")


@pytest.fixture(scope="module")
def played() -> tuple[TableRules, tuple[TableSessionResult, ...]]:
    config = MatchConfig(SPECS, deals=8, seed=SEED)
    result = play_match(config, trusted=True, adjusted=False, clairvoyance=False)
    return config.rules(), result.tables


def _copies(table: TableSessionResult) -> list[Seat]:
    """Fresh in-process copies of a table's bots, in its seats' order."""
    specs = dict(zip(("random", "learned", "calling-station"), SPECS, strict=True))
    return [InProcessSeat(load_agent(specs[name]), name) for name in table.players]


def _deck(deal: int) -> tuple[int, ...]:
    return tuple(deck_for(SEED, 0, 0, deal))


@pytest.fixture(scope="module")
def valued(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
) -> tuple[TableSessionResult, ...]:
    rules, tables = played
    return tuple(
        table_values(
            rules, table, _deck, _copies(table), rollouts=2, place=RolloutPlace(SEED, table=index)
        )
        for index, table in enumerate(tables)
    )


def test_every_decision_drawn_from_a_mix_gets_values_and_nothing_else_changes(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
    valued: tuple[TableSessionResult, ...],
) -> None:
    _, tables = played
    checked = 0
    for table, table_valued in zip(tables, valued, strict=True):
        for record, with_values in zip(table.deals, table_valued.deals, strict=True):
            assert [decision for decision, _ in with_values.values] == [
                decision for decision, _ in record.mixes
            ]
            assert with_values == DealRecord(**{**_fields(record), "values": with_values.values})
            checked += len(record.mixes)
        assert table_valued.faults == table.faults
    assert checked > 20


def _fields(record: DealRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in DealRecord.__dataclass_fields__}


def test_each_term_averages_exactly_zero_over_its_mix(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
    valued: tuple[TableSessionResult, ...],
) -> None:
    """Whichever action of the mix had been drawn, the terms weighted by the mix's
    probabilities add up to exactly zero for every seat (the values are exact)."""
    rules, _ = played
    for table in valued:
        for record in table.deals:
            stored = stored_values(record)
            for decision, text in record.mixes:
                mix = Mix.parse(text)
                seat = int(record.actions[decision].partition(":")[0])
                total = [Fraction(0)] * rules.seat_count
                for action, chance in mix.items():
                    luck = ActionLuck(decision, seat, mix, action, stored[decision]).luck
                    for index, term in enumerate(luck):
                        total[index] += chance * term
                assert total == [0] * rules.seat_count


def test_the_adjusted_nets_use_the_stored_values_in_place_of_the_fixed_blend(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
    valued: tuple[TableSessionResult, ...],
) -> None:
    """With stored values the nets are the board's correction less each decision's luck
    by those values; a record without them keeps the fixed blend; both sum to zero."""
    rules, tables = played
    moved = 0
    for table, table_valued in zip(tables, valued, strict=True):
        for record, with_values in zip(table.deals, table_valued.deals, strict=True):
            stored = stored_values(with_values)
            expected = list(corrected_nets(rules, record))
            for luck in action_luck(rules, **recorded_hand(record), mixes=record.mixes):
                by_rollouts = ActionLuck(
                    luck.decision, luck.seat, luck.mix, luck.drawn, stored[luck.decision]
                )
                for seat, term in enumerate(by_rollouts.luck):
                    expected[seat] -= term
            nets = board_action_nets(rules, with_values)
            assert nets == tuple(expected) and sum(nets) == 0
            moved += nets != board_action_nets(rules, record)
    assert moved > 5


def test_values_round_trip_through_the_record_json_and_are_left_out_when_none(
    valued: tuple[TableSessionResult, ...],
) -> None:
    table = valued[0]
    assert TableSessionResult.from_json(json.loads(json.dumps(table.to_json()))) == table
    record = next(record for record in table.deals if record.values)
    assert "values" in record.to_json()
    assert "values" not in DealRecord(**{**_fields(record), "values": ()}).to_json()


def test_stored_values_of_the_wrong_shape_or_place_are_refused(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
    valued: tuple[TableSessionResult, ...],
) -> None:
    rules, _ = played
    record = next(record for table in valued for record in table.deals if record.values)
    decision, rows = record.values[0]
    cases = {
        "not one per seat": ((decision, tuple(row[:-1] for row in rows)),),
        "drawn from no mix": (*record.values, (len(record.actions) - 1, rows)),
        "no fraction": ((decision, (("x",) * rules.seat_count,) * len(rows)),),
    }
    for words, values in cases.items():
        with pytest.raises(HandHistoryError, match=words):
            board_action_nets(rules, DealRecord(**{**_fields(record), "values": values}))


def test_the_same_key_gives_the_same_values_and_another_place_other_numbers(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
    valued: tuple[TableSessionResult, ...],
) -> None:
    rules, tables = played
    again = table_values(
        rules, tables[0], _deck, _copies(tables[0]), rollouts=2, place=RolloutPlace(SEED)
    )
    assert again == valued[0]
    elsewhere = table_values(
        rules, tables[0], _deck, _copies(tables[0]), rollouts=2, place=RolloutPlace(SEED + 1)
    )
    assert elsewhere != valued[0]


class Recorder:
    """A mixing bot that notes every observation it is given (the history it saw)."""

    def __init__(self, log: list[tuple[str, ...]]) -> None:
        self.log = log
        self.bot = MixingBot()

    def act(self, observation: Observation) -> Action | Mix:
        self.log.append(tuple(f"{r.seat}:{r.kind.value}" for r in observation.history))
        return self.bot.act(observation)


def test_a_copy_is_never_told_of_a_draw_before_it_values_it(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
) -> None:
    """While a decision's rollouts are played, every history a copy sees starts with the
    real hand before the decision followed by one action of the mix: never the real
    hand's later actions. The decisions are valued in the order they were made."""
    rules, tables = played
    logs: list[list[tuple[str, ...]]] = [[] for _ in range(rules.seat_count)]
    copies: list[Seat] = [InProcessSeat(Recorder(logs[seat]), "r") for seat in range(3)]
    table = tables[0]
    record = next(deal for deal in table.deals if len(deal.mixes) >= 2)
    state = new_hand(rules, _deck(record.deal), button=record.button, absent=record.absent)
    mixes = dict(record.mixes)
    real = [text.partition(" ")[0] for text in record.actions]  # seat:kind
    for index, text in enumerate(record.actions):
        if index in mixes:
            for log in logs:
                log.clear()
            mix = Mix.parse(mixes[index])
            decision_rollout_values(
                state, mix, copies, rollouts=2, prefix="p:", context=SessionContext()
            )
            heard = [history for log in logs for history in log]
            assert heard
            for history in heard:
                assert list(history[:index]) == real[:index]
                assert len(history) == index or history[index] in {
                    f"{state.actor}:{action.kind.value}" for action in mix.actions
                }
        state.apply(recorded_action(text))


def test_stratified_numbers_are_one_to_a_stratum_and_shared_by_every_action() -> None:
    rollouts, total = 8, 8000
    orders: dict[int, list[int]] = {}
    first = [Stream("d:", k, rollouts, orders).number(total) for k in range(rollouts)]
    assert [Stream("d:", k, rollouts, {}).number(total) for k in range(rollouts)] == first
    streams = [Stream("d:", k, rollouts, orders) for k in range(rollouts)]
    for _ in range(6):
        drawn = [stream.number(total) for stream in streams]
        assert all(0 <= number < total for number in drawn)
        assert sorted(number * rollouts // total for number in drawn) == list(range(rollouts))
    assert [Stream("e:", k, rollouts, {}).number(total) for k in range(rollouts)] != first


class Faulty:
    """Answers with what a hostile bot might send: an exception, an illegal action, a
    mix with an illegal action, nonsense; then a crash (the seat goes inactive)."""

    def __init__(self) -> None:
        self.calls = 0

    def begin_deal(self, start: DealStart) -> None:
        raise RuntimeError("no deal for me")

    def end_deal(self, end: DealEnd) -> None:
        raise RuntimeError("no end either")

    def act(self, observation: Observation) -> Any:
        self.calls += 1
        answers = [
            Action.raise_to(10**9),
            Mix([(Action.raise_to(10**9), 0.5), (Action.fold(), 0.5)]),
            "garbage",
        ]
        if self.calls % 4 == 0:
            raise ValueError("boom")
        return answers[self.calls % 3]


def test_faulty_copies_play_passively_and_their_faults_are_recorded_nowhere(
    played: tuple[TableRules, tuple[TableSessionResult, ...]],
) -> None:
    rules, tables = played
    table = tables[0]
    copies: list[Seat] = [InProcessSeat(Faulty(), "f") for _ in range(3)]
    found = table_values(rules, table, _deck, copies, rollouts=2, place=RolloutPlace(SEED))
    assert found.faults == table.faults
    for record in found.deals:
        for decision, rows in stored_values(record).items():
            assert len(rows) == len(Mix.parse(dict(record.mixes)[decision]).actions)
            assert all(sum(row) == 0 for row in rows)


def test_a_fold_is_worth_what_it_leaves_and_nothing_is_changed_in_the_hand() -> None:
    """Folding ends a heads-up hand: its value is the blind lost whatever the copies do,
    and valuing leaves the hand as it was."""
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20)
    state = new_hand(rules, deck_for(3, 0, 0, 0), button=0)
    before = (tuple(state.committed), tuple(state.history), state.actor)
    copies: list[Seat] = [InProcessSeat(MixingBot(), "a"), InProcessSeat(MixingBot(), "b")]
    values = decision_rollout_values(
        state,
        Mix([(Action.fold(), 0.5), (Action.call(), 0.5)]),
        copies,
        rollouts=4,
        prefix="q:",
        context=SessionContext(),
    )
    assert values[0] == (Fraction(-10), Fraction(10)) and sum(values[1]) == 0
    assert (tuple(state.committed), tuple(state.history), state.actor) == before


class TwoWay:
    """Mixes two actions at every decision, by the strength of its cards: checking or
    betting the pot, folding or calling (fewer actions to value than a bot mixing every
    kind and size, so that many matches' rollouts are cheap)."""

    def act(self, observation: Observation) -> Action | Mix:
        first, second = (card >> 2 for card in observation.hole_cards)
        strength = max(first, second) / 12 + (0.5 if first == second else 0.0)
        if observation.to_call == 0:
            if not observation.can(ActionKind.RAISE):
                return Action.check()
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            amount = observation.current_bet + observation.pot
            amount = min(max(amount, observation.min_raise_to), observation.max_raise_to)
            chance = min(0.2 + 0.3 * strength, 0.9)
            return Mix([(Action.check(), 1 - chance), (Action.raise_to(amount), chance)])
        chance = min(0.4 + 0.4 * strength, 0.95)
        return Mix([(Action.fold(), 1 - chance), (Action.call(), chance)])


def _coverage(matches: int, deals: int, seed: int) -> float:
    """The share of the rollout-value intervals covering zero for three copies of one
    mixing bot (interchangeable: every true score is zero), each table's draws valued by
    fresh copies."""
    rng = random.Random(seed)
    covered = total = 0
    for _ in range(matches):
        config = MatchConfig(
            tuple(f"copy-{i}" for i in range(3)), deals=deals, seed=rng.getrandbits(32)
        )
        result = play_match(
            config,
            seat_factory=lambda _, name: InProcessSeat(TwoWay(), name),
            adjusted=False,
            clairvoyance=False,
        )
        event_seed = config.event_key.seed
        rules = config.rules()
        tables = [
            table_values(
                rules,
                table,
                functools.partial(deck_for, event_seed, 0, 0),
                [InProcessSeat(TwoWay(), "copy") for _ in range(3)],
                rollouts=2,
                place=RolloutPlace(event_seed, table=index),
            )
            for index, table in enumerate(result.tables)
        ]
        nets = [[board_action_nets(rules, record) for record in table.deals] for table in tables]
        scores = block_scores(tables, result.seatings, config.big_blind, nets)
        for agent in range(3):
            summary = summarize_blocks([float(value) for value in scores[agent]])
            assert summary.low is not None and summary.high is not None
            total += 1
            covered += summary.low <= 0 <= summary.high
    return covered / total


def test_intervals_of_copies_of_one_mixing_bot_scored_by_rollouts_cover_zero() -> None:
    """Calibration: 120 intervals of interchangeable bots, about 95% should cover zero
    (a binomial's 99.9% range at 120 is 0.87 to 1; every interval covering would mean
    intervals too wide)."""
    assert 0.87 <= _coverage(matches=40, deals=12, seed=2) < 1


def test_less_its_draws_a_rollout_from_the_first_action_is_scored_as_the_adjusted_score_would() -> (
    None
):
    """A rollout from a hand's first decision gives every seat the net the adjusted score
    gives the hand it played (the board's luck and the fixed blend's luck of every draw
    taken out), worked out from its record: the draw terms are the adjusted score's own."""
    rules = TableRules(seat_count=3, small_blind=10, big_blind=20)
    copies = _Copies([InProcessSeat(MixingBot(), "m") for _ in range(3)])
    checked = draws = 0
    for deal in range(20):
        state = new_hand(rules, deck_for(6, 0, 0, deal), button=deal % 3)
        for k in range(2):
            stream = Stream(f"{deal}:", k, 2, {})
            played = _play_on(state, Action.call(), copies, stream, SessionContext(), _FixedLuck())
            mixes = [(index, mix) for index, mix, _ in played.draws]
            record = deal_record(played.state, deal, ("a", "b", "c"), mixes)
            assert _outcome(played) == board_action_nets(rules, record)
            checked += 1
            draws += len(mixes)
    assert checked == 40 and draws > 40


def test_a_rollout_whose_copies_never_mix_has_no_draw_terms() -> None:
    """Bots answering with single actions make no draws: a rollout's outcome is then its
    net less the luck of its streets alone."""
    rules = TableRules(seat_count=3, small_blind=10, big_blind=20)
    copies = _Copies(
        [InProcessSeat(load_agent(spec), spec) for spec in ("tag", "aggressive", "calling-station")]
    )
    for deal in range(12):
        state = new_hand(rules, deck_for(4, 0, 0, deal), button=deal % 3)
        for first in (Action.fold(), Action.call(), Action.raise_to(60)):
            stream = Stream(f"{deal}:", 0, 1, {})
            played = _play_on(state, first, copies, stream, SessionContext(), _FixedLuck())
            assert played.draws == []
