"""A rollout value for the action terms, measured beside the fixed one and not used by the
adjusted score (``docs/rankings.md`` gives the figures).

At every decision the dealer drew from a mix, every action ``a`` of the mix is valued by
playing the hand on after it ``K`` times (**rollouts**) and averaging every seat's
outcome: the final net of the rollout, its net with the board's luck taken out, or that
less the luck of the rollout's own draws from its players' mixes as the fixed value
sees it (a control variate, :func:`draw_net`). A
rollout uses the deal's real cards (the harness knows the deck; the cards to come are
independent of the draw), and its later decisions are answered by **rollout players**:
fresh copies of the table's own bots (in-process built-ins, a stand-in for a costly one)
or one stand-in policy in every seat. A rollout player's mix is drawn from a stream of
its own, keyed by the deal, the table, the decision and the rollout's number ``k``, not
by the action valued: rollout ``k`` of every action reads the same numbers (common
random numbers, so that ``v(a) - v(b)`` is not swamped by the rollouts' noise).

Nothing in a value depends on the dealer's draw at its decision: the rollouts start from
the hand just before it and from each action of the mix, and their numbers come from
their own stream. So each term ``v(drawn) - sum p(a) v(a)`` keeps its mean of exactly
zero over the draw, whatever the rollouts did.
"""

from __future__ import annotations

import bisect
import copy as copy_module
import itertools
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from dp_arena.agents.observation import DealStart, SessionContext
from dp_arena.agents.table import observe
from dp_arena.engine import HandState, Street, TableRules, deck_for, new_hand
from dp_arena.engine.actions import Action
from dp_arena.engine.cards import Card
from dp_arena.engine.mixes import Mix
from dp_arena.engine.state import HAND_STATE_FIELDS
from dp_arena.ratings.action_luck import (
    ActionLuck,
    recorded_action,
    without_luck,
)
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.rollouts import _FixedLuck, net_less_streets

# The players answering a rollout's decisions: one agent per seat (``act(observation)``).
Players = Sequence[Any]
# A rollout's outcome for every seat, from the finished hand and its draws.
Outcome = Callable[["Rollout"], tuple[Fraction, ...]]
_CONTEXT = SessionContext(event="rollout")
_LISTS = ("available", "committed", "street_bets", "folded", "acted", "history")


def clone(state: HandState) -> HandState:
    """A copy of a hand in progress that shares nothing mutable with it."""
    if not hasattr(HandState, "__slots__"):  # the compiled build: copied by replaying
        return copy_module.copy(state)
    copy = object.__new__(HandState)
    for name in HAND_STATE_FIELDS:
        setattr(copy, name, getattr(state, name))
    for name in _LISTS:
        setattr(copy, name, list(getattr(state, name)))
    copy.showdown_values = dict(state.showdown_values)
    return copy


class Rollout:
    """One rollout played to the end: the finished ``state``; for every street whose
    cards came during it with two or more players in, who was in and the chips committed
    then (``streets``); and every action it drew from a rollout player's mix of two or
    more actions, with the hand just before it and the mix (``draws``)."""

    __slots__ = ("draws", "state", "streets")

    def __init__(self, state: HandState) -> None:
        self.state = state
        self.streets: list[tuple[Street, tuple[int, ...], tuple[int, ...]]] = []
        self.draws: list[tuple[HandState, Mix, Action]] = []


def rollout(state: HandState, first: Action, players: Players, stream: Stream) -> Rollout:
    """Play ``first`` and then the hand to the end in a copy of ``state``, each seat's
    decisions answered by its player, each mix drawn with ``stream``."""
    played = Rollout(clone(state))
    state = played.state
    reached = state.street
    answer: Action | Mix = first
    while True:
        legal = state.legal_actions()
        if isinstance(answer, Mix):
            if answer.refusal(legal) is not None:
                answer = legal.passive()
            else:
                drawn = _draw(answer, stream)
                if len(answer.actions) > 1:
                    played.draws.append((clone(state), answer, drawn))
                answer = drawn
        state.apply(legal.or_passive(answer))
        if state.street > reached:
            now = min(state.street, Street.RIVER)
            live = tuple(seat for seat in range(state.seat_count) if not state.folded[seat])
            if len(live) >= 2:
                for street in range(reached + 1, now + 1):
                    played.streets.append((Street(street), live, tuple(state.committed)))
            reached = now
        seat = state.actor
        if seat is None:
            return played
        if state.absent[seat]:
            answer = state.legal_actions().passive()
        else:
            try:
                answer = players[seat].act(observe(state, seat, _CONTEXT))
            except Exception:  # noqa: BLE001  # a failing rollout player plays as a faulty seat
                answer = state.legal_actions().passive()


class Stream:
    """The numbers of rollout ``k`` of ``rollouts`` at one decision (``key``), the same for
    every action of the mix: the ``j``-th mix drawn in the rollout reads the ``j``-th
    number. With ``stratified``, the ``j``-th numbers of the rollouts are spread over
    ``rollouts`` equal strata of the unit interval, one each in an order drawn apart for
    every ``j`` (Latin hypercube sampling); each is still uniform."""

    __slots__ = ("count", "k", "key", "rollouts", "stratified", "uniform")

    def __init__(self, key: str, k: int, rollouts: int, stratified: bool) -> None:
        self.key, self.k, self.rollouts, self.stratified = key, k, rollouts, stratified
        self.uniform = random.Random(f"{key}:{k}")
        self.count = 0

    def number(self, total: int) -> int:
        """A number uniform on ``0 .. total - 1``."""
        if not self.stratified:
            return self.uniform.randrange(total)
        order = list(range(self.rollouts))
        random.Random(f"{self.key}:order:{self.count}").shuffle(order)
        self.count += 1
        u = (order[self.k] + self.uniform.random()) / self.rollouts
        return min(int(u * total), total - 1)


def _draw(mix: Mix, stream: Stream) -> Action:
    """The action of ``mix`` whose share of the weights holds the stream's next number."""
    number = stream.number(mix.total)
    return mix.actions[bisect.bisect_right(list(itertools.accumulate(mix.weights)), number)]


def rollout_values(
    state: HandState,
    mix: Mix,
    players: Players,
    rollouts: int,
    key: str,
    outcome: Outcome | None = None,
    stratified: bool = True,
) -> tuple[tuple[Fraction, ...], ...]:
    """Every seat's mean ``outcome`` (default :func:`board_net`) over ``rollouts``
    rollouts after each action of ``mix`` (its actor to act in ``state``, which is left
    as it is); rollout ``k`` of every action reads the numbers of ``key`` and ``k``."""
    outcome = outcome or board_net
    values = []
    for action in mix.actions:
        total = [Fraction(0)] * state.seat_count
        for k in range(rollouts):
            _begin(state, players, f"{key}:{k}")
            played = rollout(state, action, players, Stream(key, k, rollouts, stratified))
            for seat, net in enumerate(outcome(played)):
                total[seat] += net
        values.append(tuple(net / rollouts for net in total))
    return tuple(values)


def _begin(state: HandState, players: Players, event: str) -> None:
    """Tell every rollout player that has a ``begin_deal`` a deal begins, named by the
    rollout (the same for every action of the mix): a bot that seeds itself there
    answers alike in rollout ``k`` of every action."""
    context = SessionContext(event=event)
    for seat, player in enumerate(players):
        hole = state.hole_cards[seat]
        if hole is not None and hasattr(player, "begin_deal"):
            player.begin_deal(DealStart(seat, state.seat_count, state.button, hole, context))


def final_net(played: Rollout) -> tuple[Fraction, ...]:
    """A rollout's final net."""
    assert played.state.payoffs is not None
    return tuple(Fraction(net) for net in played.state.payoffs)


def board_net(played: Rollout) -> tuple[Fraction, ...]:
    """A rollout's final net less the luck of the streets that came during it."""
    return tuple(net_less_streets(played.state, played.streets))


def draw_net(played: Rollout) -> tuple[Fraction, ...]:
    """A rollout's :func:`board_net` less the luck of every action it drew from a rollout
    player's mix, valued as the adjusted score values the dealer's draws (the fixed value
    of :mod:`dp_arena.ratings.action_luck`): the adjusted net the score would give the
    rollout's hand, but for the luck of the streets before it.

    Each such term has a mean of exactly zero over its draw whatever came before it in
    the rollout (a rollout's number is uniform, and a mix's actions are drawn with its
    probabilities), so the rollout's mean outcome is the same as :func:`board_net`'s,
    with the part of its spread that the fixed value sees in the rollout players' draws
    taken out (a control variate). A rollout whose players answer with single actions
    has no such terms."""
    nets = list(board_net(played))
    for before, mix, drawn in played.draws:
        for seat, term in enumerate(_fixed_luck(before, mix, drawn)):
            nets[seat] -= term
    return tuple(nets)


# The fixed blend's luck of a draw, its values remembered for the hands most recently
# asked about (the shipped rollouts' own, so that the two outcomes are one).
_fixed_luck = _FixedLuck()


OUTCOMES: dict[str, Outcome] = {"final": final_net, "board": board_net, "draws": draw_net}


def deal_luck(
    rules: TableRules,
    record: DealRecord,
    deck: Sequence[Card],
    *,
    key: str,
    players: Players,
    rollouts: int,
    outcome: Outcome | None = None,
    stratified: bool = True,
) -> tuple[ActionLuck, ...]:
    """The luck of every decision of a deal drawn from a mix, valued by rollouts
    (``deck``: the deal's deck, every card of it; ``key``: names the deal's rollouts)."""
    if not record.mixes:
        return ()
    mixes = dict(record.mixes)
    state = new_hand(rules, deck, button=record.button, absent=record.absent)
    lucks = []
    for index, text in enumerate(record.actions):
        drawn = recorded_action(text)
        if index in mixes:
            mix = Mix.parse(mixes[index])
            seat = state.actor
            assert seat is not None
            values = rollout_values(
                state, mix, players, rollouts, f"{key}:{index}", outcome, stratified
            )
            lucks.append(ActionLuck(index, seat, mix, drawn, values))
        state.apply(drawn)
    if state.payoffs != record.nets:
        raise ValueError(f"deal {record.deal} does not replay from its deck as recorded")
    return tuple(lucks)


def rollout_nets(
    rules: TableRules,
    tables: Sequence[TableSessionResult],
    *,
    event_seed: int,
    players_of: Callable[[int], Players],
    rollouts: int,
    outcome: Outcome | None = None,
    stratified: bool = True,
) -> list[list[tuple[Fraction, ...]]]:
    """Every table's nets of every deal of a match (section 0, session 0) with the luck
    of the board and of the draws taken out, the draws valued by rollouts
    (``players_of(table)``: the rollout players of a table's seats)."""
    found = []
    for table_index, table in enumerate(tables):
        players = players_of(table_index)
        rows = []
        for record in table.deals:
            lucks = deal_luck(
                rules,
                record,
                deck_for(event_seed, 0, 0, record.deal),
                key=f"dp-arena/bench/rollout:{event_seed}:{table_index}:{record.deal}",
                players=players,
                rollouts=rollouts,
                outcome=outcome,
                stratified=stratified,
            )
            rows.append(without_luck(list(corrected_nets(rules, record)), lucks))
        found.append(rows)
    return found
