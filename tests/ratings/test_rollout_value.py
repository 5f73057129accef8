"""The benchmark's rollout value of the draws (``bench/rollout_value.py``): every term
averages exactly zero over its mix, a value never sees the draw it values, a rollout
against calling stations gives the showdown value worked out by the fixed value's code,
and rollout copies that share state with the real copy could game it (the shipped
value's calibration is tested in ``tests/ratings/test_rollouts.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import ClassVar

import pytest

from bench.rollout_value import (
    Outcome,
    Stream,
    board_net,
    deal_luck,
    draw_net,
    final_net,
    rollout,
    rollout_values,
)
from dp_arena.agents.observation import DealEnd, DealStart, Observation
from dp_arena.agents.spec import load_agent
from dp_arena.agents.table import deal_record
from dp_arena.engine import Action, ActionKind, Betting, Mix, TableRules, deck_for, new_hand
from dp_arena.engine.actions import ActionRecord
from dp_arena.match import MatchConfig, play_match
from dp_arena.ratings.action_luck import (
    ActionLuck,
    ActionValue,
    board_action_nets,
    decision_values,
    recorded_action,
)
from tests.ratings.test_calibration import MixingBot


class CallingStation:
    def act(self, observation: Observation) -> Action:
        return Action.check() if observation.to_call == 0 else Action.call()


@pytest.fixture(scope="module")
def played() -> tuple[MatchConfig, tuple[object, ...]]:
    config = MatchConfig(("random", "learned", f"{__file__}:CallingStation"), deals=12, seed=5)
    result = play_match(config, trusted=True, adjusted=False, clairvoyance=False)
    return config, result.tables


def _players(count: int) -> list[MixingBot]:
    return [MixingBot() for _ in range(count)]


@pytest.mark.parametrize("outcome", [board_net, draw_net])
def test_each_term_averages_exactly_zero_over_its_mix(
    played: tuple[MatchConfig, tuple], outcome: Outcome
) -> None:
    """Whichever action of the mix had been drawn, the terms weighted by the mix's
    probabilities add up to exactly zero for every seat (the values are exact), with
    either outcome of a rollout."""
    config, tables = played
    rules = config.rules()
    checked = 0
    for table_index, table in enumerate(tables):
        for record in table.deals:
            deck = deck_for(config.event_key.seed, 0, 0, record.deal)
            lucks = deal_luck(
                rules,
                record,
                deck,
                key=f"test:{table_index}:{record.deal}",
                players=_players(3),
                rollouts=2,
                outcome=outcome,
            )
            assert len(lucks) == len(record.mixes)
            for luck in lucks:
                total = [Fraction(0)] * rules.seat_count
                for action, chance in luck.mix.items():
                    if_drawn = ActionLuck(luck.decision, luck.seat, luck.mix, action, luck.values)
                    for seat, term in enumerate(if_drawn.luck):
                        total[seat] += chance * term
                assert total == [0] * rules.seat_count
                checked += 1
    assert checked > 20


def test_a_value_never_sees_the_draw_it_values(played: tuple[MatchConfig, tuple]) -> None:
    """The values at a decision are those of the hand just before it, computed alone
    (the same whatever came after), and computing them leaves that hand as it was."""
    config, tables = played
    rules = config.rules()
    table = tables[0]
    record = next(deal for deal in table.deals if deal.mixes)
    deck = deck_for(config.event_key.seed, 0, 0, record.deal)
    lucks = deal_luck(rules, record, deck, key="k", players=_players(3), rollouts=3)
    decision, text = record.mixes[0]
    state = new_hand(rules, deck, button=record.button, absent=record.absent)
    for action_text in record.actions[:decision]:
        state.apply(recorded_action(action_text))
    before = (tuple(state.committed), tuple(state.history), state.actor)
    alone = rollout_values(state, Mix.parse(text), _players(3), 3, f"k:{decision}")
    assert (tuple(state.committed), tuple(state.history), state.actor) == before
    assert lucks[0].values == alone
    assert rollout_values(state, Mix.parse(text), _players(3), 3, f"k:{decision}") == alone


def test_against_calling_stations_a_call_is_worth_its_showdown_now() -> None:
    """Calling stations check a called hand down, so a rollout's net less the luck of the
    streets that came is the showdown value with the chips in after the call, as the
    fixed value computes it; a fold is worth the blind lost; and with the final net as the
    outcome, the value is the net the real board gives."""
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    deck = deck_for(3, 0, 0, 0)
    state = new_hand(rules, deck, button=0)
    mix = Mix([(Action.fold(), 0.5), (Action.call(), 0.5)])
    stations = [CallingStation(), CallingStation()]
    values = rollout_values(state, mix, stations, 2, "hand")
    showdown = decision_values(state, mix.actions, ActionValue())
    assert values[0] == (-10, 10)
    assert values[1] == showdown[1]
    final = rollout_values(state, mix, stations, 1, "hand", final_net)
    checked_down = new_hand(rules, deck, button=0)
    for action in (Action.call(), *[Action.check()] * 7):
        checked_down.apply(action)
    assert final[1] == checked_down.payoffs


def test_a_rollout_whose_players_never_mix_has_the_board_outcome() -> None:
    """Bots that answer with single actions make no draws in a rollout: less the luck of
    its draws, a rollout's outcome is its net less the luck of its streets."""
    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    players = [load_agent("tag"), load_agent("aggressive"), CallingStation()]
    compared = 0
    for deal in range(12):
        state = new_hand(rules, deck_for(4, 0, 0, deal), button=deal % 3)
        for first in (Action.fold(), Action.call(), Action.raise_to(60)):
            played = rollout(state, first, players, Stream(f"{deal}", 0, 1, False))
            assert played.draws == []
            assert draw_net(played) == board_net(played)
            compared += len(played.streets) > 0
    assert compared > 10


def test_less_its_draws_a_rollout_from_the_first_action_is_scored_as_the_adjusted_score_would() -> (
    None
):
    """A rollout from a hand's first decision, with the luck of its draws taken out, gives
    every seat the net the adjusted score gives the hand it played (the board's luck and
    the fixed value's luck of every draw taken out), worked out from its record."""
    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    checked = draws = 0
    for deal in range(20):
        state = new_hand(rules, deck_for(6, 0, 0, deal), button=deal % 3)
        for k in range(2):
            played = rollout(state, Action.call(), _players(3), Stream(f"{deal}", k, 2, True))
            mixes = [(len(before.history), mix) for before, mix, _ in played.draws]
            record = deal_record(played.state, deal, ("a", "b", "c"), mixes)
            assert draw_net(played) == board_action_nets(rules, record)
            checked += 1
            draws += len(mixes)
    assert checked == 40 and draws > 40


def test_stratified_numbers_are_one_to_a_stratum_and_shared_by_every_action() -> None:
    """Rollout k reads the same numbers whichever action it follows, and the j-th numbers
    of the K rollouts fall one in each K-th of the range."""
    rollouts, total = 8, 8000
    numbers = [[Stream("d", k, rollouts, True).number(total) for _ in range(1)] for k in range(8)]
    again = [Stream("d", k, rollouts, True).number(total) for k in range(8)]
    assert [row[0] for row in numbers] == again
    for j in range(5):
        streams = [Stream("d", k, rollouts, True) for k in range(rollouts)]
        drawn = [[stream.number(total) for _ in range(j + 1)][-1] for stream in streams]
        assert sorted(number * rollouts // total for number in drawn) == list(range(rollouts))


class Peeker:
    """Mixes checking and betting, or folding and calling. Its copies remember every
    deal's real actions (``memory``, shared by every copy unless ``shared`` is false). A
    copy asked about a rollout that has followed the real hand so far, a rollout after
    the action the dealer drew, plays badly: it folds a pair (or a card paired on the
    board) and calls down anything else, to make the action drawn look worse than the
    others and its draw look unlucky."""

    seen: ClassVar[dict[tuple[int, int], tuple[tuple[int, str, int | None], ...]]] = {}

    def __init__(self, shared: bool = True) -> None:
        self.memory = Peeker.seen if shared else {}
        self.hole: tuple[int, int] | None = None

    def begin_deal(self, start: DealStart) -> None:
        self.hole = start.hole_cards

    def end_deal(self, end: DealEnd) -> None:
        assert self.hole is not None
        self.memory[self.hole] = _actions(end.history)

    def act(self, observation: Observation) -> Action | Mix:
        so_far = _actions(observation.history)
        real = self.memory.get(observation.hole_cards)
        if real is not None and so_far and real[: len(so_far)] == so_far:
            # A rollout after the action the dealer drew for this bot: play badly.
            ranks = [card >> 2 for card in observation.hole_cards]
            paired = ranks[0] == ranks[1] or any(card >> 2 in ranks for card in observation.board)
            if observation.to_call == 0:
                return Action.check()
            return Action.fold() if paired else Action.call()
        if observation.to_call == 0:
            if observation.can(ActionKind.RAISE):
                assert observation.min_raise_to is not None
                return Mix(
                    [(Action.check(), 0.5), (Action.raise_to(observation.min_raise_to), 0.5)]
                )
            return Action.check()
        return Mix([(Action.fold(), 0.5), (Action.call(), 0.5)])


def _actions(history: Sequence[ActionRecord]) -> tuple[tuple[int, str, int | None], ...]:
    return tuple((record.seat, record.kind.value, record.raise_to) for record in history)


def test_rollout_copies_that_know_the_draw_would_game_the_value() -> None:
    """Rollout copies that share state with the real copy learn which action was drawn
    and play badly after it. With the same rollout numbers as fresh copies, the values
    move with the draw, the bot's terms are pushed down and its adjusted score up, by
    over 50 big blinds in 30 deals (why shipped rollouts would need copies that start
    from nothing the real copy learnt and share nothing with it or with each other)."""
    from dp_arena.agents import InProcessSeat

    Peeker.seen.clear()
    config = MatchConfig(("peeker", "aggressive"), deals=30, seed=9)
    result = play_match(
        config,
        seat_factory=lambda spec, name: InProcessSeat(
            Peeker() if spec == "peeker" else load_agent("aggressive"), name
        ),
        adjusted=False,
        clairvoyance=False,
    )
    rules = config.rules()
    gained = Fraction(0)
    moved = 0
    for table_index, table in enumerate(result.tables):
        seat = result.seatings[table_index].index(0)
        for record in table.deals:
            deck = deck_for(config.event_key.seed, 0, 0, record.deal)
            found = []
            for shared in (True, False):
                players = [Peeker(shared), load_agent("aggressive")]
                if seat == 1:
                    players.reverse()
                found.append(deal_luck(rules, record, deck, key="k", players=players, rollouts=2))
            for peeked, fresh in zip(*found, strict=True):
                if peeked.seat == seat:
                    moved += peeked.values != fresh.values
                    gained += fresh.luck[seat] - peeked.luck[seat]
    assert moved > 20
    assert gained > 50 * config.big_blind
