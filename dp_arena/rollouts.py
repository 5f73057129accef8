"""The rollout value of the action-luck terms: every action of a mix the dealer drew from
valued by playing the hand on after it, by fresh copies of the table's own bots.

The action-luck correction (:mod:`dp_arena.ratings.action_luck`) takes out of every
seat's net, at each decision the dealer drew from a bot's mix,

    luck = v(action drawn) - sum over the mix of p(a) x v(a)

for a value ``v`` of the hand after each action. Any ``v`` that does not depend on the
draw keeps the luck's mean at exactly zero; a ``v`` closer to what the hand is really
worth after each action takes out more of the draw's noise. The fixed value sees only the
chips in and the cards; what a draw does in a six-handed hand is mostly what the other
players do about it. The **rollout value** plays it:

- From the hand just before the decision, every action ``a`` of the mix is played first
  and the hand then played on to its end, ``rollouts`` times (``K``). The rollout uses
  the deal's real cards: the harness knows the deck, and the cards to come do not depend
  on the draw.
- The decisions of a rollout are answered by **rollout copies**: a fresh copy of each
  seat's bot, opened by the caller for this purpose, never the copy that played (which
  has heard how the hand went on, the draw included). A copy's mixes are drawn from
  numbers of the rollouts' own (:class:`Stream`): SHAKE-256 of text made from the event
  key, the table-session's place, the deal, the decision, ``k`` and the draw's number in
  the rollout; never from the action valued or the action the dealer drew. Rollout ``k``
  of every action reads the same numbers, and the ``j``-th numbers of the ``K``
  rollouts fall one in each ``K``-th of the unit interval (stratified), so ``v(a) -
  v(b)`` compares like with like.
- The outcome of a rollout is its net less the luck of the board cards dealt during it
  (the board-luck correction applied to the rollout), as the scores it corrects have the
  board's luck taken out already, and less the luck of every action the rollout drew
  from a copy's mix, valued by the fixed blend as the adjusted score values the dealer's
  draws: the adjusted net the score would give the rollout's hand, but for the luck of
  the streets before it. Those draw terms are control variates: each averages exactly
  zero over its draw whatever came before it, so they leave ``v(a)``'s expectation as it
  was and take out of each rollout the noise the fixed blend sees in its own draws.
  ``v(a)`` is every seat's mean outcome over the ``K``.

Why a copy cannot bias its own score: the deals of a table-session are valued in the
order they were played, and the decisions of a deal in the order they were made, so when a
copy plays the rollouts of a decision it has been told only of the hand before it (and of
earlier decisions' rollouts): nothing about the draw. Whatever it plays, the values do
not depend on the draw, and each term's mean stays zero. A copy that plays its rollouts
badly spoils the value (and with it the noise taken out of every score at its table), and
gains nothing. A rollout copy's faults (an error, a refusal, a timeout, a crash) play the
passive action there and are recorded nowhere: they are faults of no match.

Rollouts of a table-session are played after every mirrored table has played it: a copy
sees board cards the real hand never showed, and the deck is the same at every table.

Seven-deuce on the button against kings answers "fold 0.5, call 0.5" before the flop
(the hand-worked case of :mod:`dp_arena.ratings.action_luck`), and the rollout copies are
calling stations, which check the hand down after a call: folding is worth -10 to the
button, calling the 11.3% of a 40-chip pot its cards win, whatever the board the rollout
runs out (the luck of the streets dealt during it is taken out).

>>> from agents.calling_station import CallingStation
>>> from dp_arena.agents.seat import InProcessSeat
>>> from dp_arena.engine import TableRules, parse_cards
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20)
>>> state = HandState(rules, button=0, stacks=(1000, 1000), board=parse_cards("Ks7h2c3d4s"),
...     hole_cards=(parse_cards("7c2d"), parse_cards("KdKc")))
>>> copies = [InProcessSeat(CallingStation(), "button"), InProcessSeat(CallingStation(), "bb")]
>>> values = decision_rollout_values(state, Mix.parse("fold 0.5, call 0.5"), copies,
...     rollouts=2, prefix="example:", context=SessionContext())
>>> [[round(float(value), 2) for value in row] for row in values]
[[-10.0, 10.0], [-15.47, 15.47]]
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypeVar

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import Seat, SeatFault, WrappedSeat
from dp_arena.agents.table import observe
from dp_arena.engine import HandState, Street, TableRules, deck_for, new_hand
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.ratings.action_luck import ActionLuck, decision_values, recorded_action
from dp_arena.ratings.board_luck import expected_sums
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.sandbox import close_seats
from dp_arena.units import SeatOpener, TableUnit, open_unit_seats

__all__ = [
    "ROLLOUT_EVENT",
    "ROLLOUT_VERSION",
    "BenchedAfterFaults",
    "RolloutPlace",
    "Stream",
    "decision_rollout_values",
    "net_less_streets",
    "table_values",
    "unit_values",
]

ROLLOUT_VERSION = 2
# What a rollout copy's context names the event, with the rollout's number ("rollout:3"):
# nothing about the key. A bot that seeds itself from a deal's start answers alike in
# rollout k of every action, and differently from one k to the next.
ROLLOUT_EVENT = "rollout"
_WORDS = 1 << 64
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RolloutPlace:
    """Where a table-session's rollouts are keyed from: the event key (as the decks'
    integer) and the table-session's place, as the dealer's draws are."""

    event_seed: int
    section: int = 0
    session: int = 0
    table: int = 0

    def prefix(self, deal: int, decision: int) -> str:
        """The start of the text of every number of one decision's rollouts."""
        return (
            f"dp-arena/rollout/v{ROLLOUT_VERSION}:{self.event_seed}:{self.section}:"
            f"{self.session}:{self.table}:{deal}:{decision}:"
        )


def _word(text: str) -> int:
    """A 64-bit number from SHAKE-256 of ``text``."""
    return int.from_bytes(hashlib.shake_256(text.encode()).digest(8), "little")


class Stream:
    """The numbers of rollout ``k`` of ``rollouts`` at one decision (``prefix``, from
    :meth:`RolloutPlace.prefix`), the same for every action of the mix: the ``j``-th mix
    drawn in the rollout reads the ``j``-th number. The ``j``-th numbers of the rollouts
    fall one in each of ``rollouts`` equal strata of the unit interval, in an order drawn
    apart for every ``j`` (``orders`` holds them, shared by the decision's streams); each
    number is uniform on its own."""

    __slots__ = ("count", "k", "orders", "prefix", "rollouts")

    def __init__(self, prefix: str, k: int, rollouts: int, orders: dict[int, list[int]]) -> None:
        self.prefix, self.k, self.rollouts, self.orders = prefix, k, rollouts, orders
        self.count = 0

    def number(self, total: int) -> int:
        """A number on ``0 .. total - 1``: the next of the stream."""
        j = self.count
        self.count += 1
        order = self.orders.get(j)
        if order is None:
            # The strata in an order drawn by the words of the text (a tie of two 64-bit
            # words would only put two strata in index order).
            words = [_word(f"{self.prefix}order:{j}:{stratum}") for stratum in range(self.rollouts)]
            order = self.orders[j] = sorted(range(self.rollouts), key=words.__getitem__)
        word = _word(f"{self.prefix}{self.k}:{j}")
        # u = (stratum + word / 2**64) / rollouts, and the number is floor(u * total).
        return (order[self.k] * _WORDS + word) * total // (self.rollouts * _WORDS)

    def draw(self, mix: Mix) -> Action:
        """The action of ``mix`` whose share of its weights holds the next number."""
        number = self.number(mix.total)
        running = 0
        for action, weight in zip(mix.actions, mix.weights, strict=True):
            running += weight
            if number < running:
                return action
        raise AssertionError("a number below the total is below some running total")


class _Rollout:
    """One rollout being played: the hand; for every street whose cards came during it
    with two or more players in, who was in and the chips committed then; and for every
    action it drew from a copy's mix of two or more actions, the index of the action in
    the hand, the mix and every seat's luck of the draw by the fixed blend (``draws``)."""

    __slots__ = ("draws", "state", "streets")

    def __init__(self, state: HandState) -> None:
        self.state = state
        self.streets: list[tuple[Street, tuple[int, ...], tuple[int, ...]]] = []
        self.draws: list[tuple[int, Mix, tuple[Fraction, ...]]] = []


class _FixedLuck:
    """The fixed blend's luck of a draw (:mod:`dp_arena.ratings.action_luck`), its values
    remembered for the hands most recently asked about: the rollouts of every action at
    a decision, and of the decisions after it, reach the same hands, where a copy answers
    with the same mix and the rollouts draw different actions from it. A value depends
    on nothing of a hand but what its key holds."""

    REMEMBERED = 1 << 14

    def __init__(self) -> None:
        self.values: dict[
            tuple[object, ...], tuple[dict[Action, tuple[Fraction, ...]], tuple[Fraction, ...]]
        ] = {}

    def __call__(self, state: HandState, mix: Mix, drawn: Action) -> tuple[Fraction, ...]:
        key = (
            state.button,
            state.actor,
            state.hole_cards,
            state.board[: state.street.board_size],
            tuple(state.folded),
            tuple(state.committed),
            tuple(state.street_bets),
            tuple(state.available),
            state.current_bet,
            mix,
        )
        found = self.values.pop(key, None)
        if found is None:
            assert state.actor is not None
            luck = ActionLuck(0, state.actor, mix, drawn, decision_values(state, mix.actions))
            found = dict(zip(mix.actions, luck.values, strict=True)), luck.expected
            if len(self.values) >= self.REMEMBERED:
                del self.values[next(iter(self.values))]
        self.values[key] = found  # last in the dict's order: the most recently asked
        values, expected = found
        return tuple(value - mean for value, mean in zip(values[drawn], expected, strict=True))


class BenchedAfterFaults(WrappedSeat):
    """A rollout copy that plays as an absent player once it has made ``max_faults``
    faults or crashed, as a faulty seat at a table does, without being asked again (the
    rollouts ask only an active copy): a copy that hangs at every decision costs its
    timeout a few times, not at every decision of every rollout. Its faults are counted
    here and recorded nowhere."""

    def __init__(self, inner: Seat, max_faults: int) -> None:
        super().__init__(inner)
        self.faults_left = max_faults

    @property
    def active(self) -> bool:
        return self.faults_left > 0 and self.inner.active

    def _counted(self, answer: _T) -> _T:
        if isinstance(answer, SeatFault):
            self.faults_left -= 1
        return answer

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return self._counted(self.inner.begin_session(context))

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._counted(self.inner.begin_deal(start))

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        return self._counted(self.inner.decide(observation))

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._counted(self.inner.end_deal(end))


class _Copies:
    """The rollout copies of a table's seats, and whom to play passively: the absent
    seats of the deal and every copy that is not active any more."""

    def __init__(self, seats: Sequence[Seat]) -> None:
        self.seats = seats

    def answer(self, state: HandState, seat: int, context: SessionContext) -> Action | Mix:
        """The action played for ``seat``: its copy's answer (a mix drawn by the
        caller), or the passive action for a fault or a refusal."""
        legal = state.legal_actions()
        copy = self.seats[seat]
        if state.absent[seat] or not copy.active:
            return legal.passive()
        answer = copy.decide(observe(state, seat, context))
        if isinstance(answer, SeatFault):
            return legal.passive()
        if isinstance(answer, Mix):
            return answer  # drawn by the caller
        return answer if legal.allows(answer) else legal.passive()


def _play_on(
    state: HandState,
    first: Action,
    copies: _Copies,
    stream: Stream,
    context: SessionContext,
    fixed_luck: _FixedLuck,
) -> _Rollout:
    """Play ``first`` and then the hand to its end in a copy of ``state``, the copies
    told the deal's start and end, their mixes drawn with ``stream``."""
    played = _Rollout(state.copy())
    state = played.state
    seat_count = state.seat_count
    for seat in range(seat_count):
        hole = state.hole_cards[seat]
        if hole is not None and not state.absent[seat] and copies.seats[seat].active:
            copies.seats[seat].begin_deal(DealStart(seat, seat_count, state.button, hole, context))
    reached = state.street
    answer: Action | Mix = first
    while True:
        legal = state.legal_actions()
        if isinstance(answer, Mix):
            if answer.refusal(legal) is not None:
                answer = legal.passive()
            else:
                drawn = stream.draw(answer)
                if len(answer.actions) > 1:
                    luck = fixed_luck(state, answer, drawn)
                    played.draws.append((len(state.history), answer, luck))
                answer = drawn
        state.apply(answer)
        if state.street > reached:
            now = min(state.street, Street.RIVER)
            live = tuple(seat for seat in range(seat_count) if not state.folded[seat])
            if len(live) >= 2:
                for street in range(reached + 1, now + 1):
                    played.streets.append((Street(street), live, tuple(state.committed)))
            reached = now
        if state.actor is None:
            break
        answer = copies.answer(state, state.actor, context)
    _tell_end(state, copies, context)
    return played


def _tell_end(state: HandState, copies: _Copies, context: SessionContext) -> None:
    assert state.payoffs is not None
    shown = tuple(
        state.hole_cards[seat] if seat in state.showdown_values else None
        for seat in range(state.seat_count)
    )
    board = state.board if state.showdown_values else state.visible_board
    history = tuple(state.history)
    for seat, copy in enumerate(copies.seats):
        if state.hole_cards[seat] is not None and not state.absent[seat] and copy.active:
            copy.end_deal(
                DealEnd(seat, state.payoffs[seat], state.payoffs, board, shown, history, context)
            )


def _outcome(played: _Rollout) -> tuple[Fraction, ...]:
    """A rollout's net less the luck of the streets that came during it and less the
    fixed blend's luck of every action it drew from a copy's mix."""
    nets = net_less_streets(played.state, played.streets)
    for _, _, luck in played.draws:
        for seat, term in enumerate(luck):
            nets[seat] -= term
    return tuple(nets)


def net_less_streets(
    state: HandState, streets: Sequence[tuple[Street, tuple[int, ...], tuple[int, ...]]]
) -> list[Fraction]:
    """The net of a finished hand less the luck of ``streets``: for each street, who was
    in and the chips committed when its cards came. A rollout passes the streets dealt
    during it: those before it are the same for every action of a mix, and their luck
    cancels from every term."""
    assert state.payoffs is not None
    nets = [Fraction(net) for net in state.payoffs]
    dealt = tuple(seat for seat, hole in enumerate(state.hole_cards) if hole is not None)
    holes = tuple(hole for hole in state.hole_cards if hole is not None)
    for street, live, committed in streets:
        positions = tuple(dealt.index(seat) for seat in live)
        before = state.board[: Street(street - 1).board_size]
        after = state.board[: street.board_size]
        before_sums, before_total = expected_sums(
            committed, live, positions, holes, before, state.button
        )
        after_sums, after_total = expected_sums(
            committed, live, positions, holes, after, state.button
        )
        for seat in range(len(nets)):
            nets[seat] += Fraction(before_sums[seat], before_total) - Fraction(
                after_sums[seat], after_total
            )
    return nets


def decision_rollout_values(
    state: HandState,
    mix: Mix,
    copies: Sequence[Seat],
    *,
    rollouts: int,
    prefix: str,
    context: SessionContext,
    fixed_luck: _FixedLuck | None = None,
) -> tuple[tuple[Fraction, ...], ...]:
    """Every seat's mean rollout outcome after each action of ``mix`` (its actor to act
    in ``state``, which is left as it is): ``rollouts`` rollouts each, rollout ``k`` of
    every action reading the numbers of ``prefix`` and ``k``, the copies told ``context``
    with the event ``"rollout:k"``."""
    if rollouts < 1:
        raise ValueError(f"rollouts must be at least 1, not {rollouts}")
    players = _Copies(copies)
    fixed_luck = fixed_luck or _FixedLuck()
    orders: dict[int, list[int]] = {}
    contexts = [replace(context, event=f"{ROLLOUT_EVENT}:{k}") for k in range(rollouts)]
    values = []
    for action in mix.actions:
        total = [Fraction(0)] * state.seat_count
        for k in range(rollouts):
            stream = Stream(prefix, k, rollouts, orders)
            for seat, net in enumerate(
                _outcome(_play_on(state, action, players, stream, contexts[k], fixed_luck))
            ):
                total[seat] += net
        values.append(tuple(net / rollouts for net in total))
    return tuple(values)


def table_values(
    rules: TableRules,
    result: TableSessionResult,
    deck_of: Callable[[int], Sequence[int]],
    seats: Sequence[Seat],
    *,
    rollouts: int,
    place: RolloutPlace,
    context: SessionContext | None = None,
    on_deal: Callable[[int], None] | None = None,
    max_faults: int = 3,
) -> TableSessionResult:
    """``result`` (a table-session played, its records with their mixes) with every
    decision drawn from a mix valued by rollouts, in its deal's record (``values``).

    ``deck_of(deal)``: the deal's deck. ``seats``: one fresh rollout copy per seat, opened
    by the caller (and closed by it), never the seats that played; the copies are told
    ``begin_session`` here, with ``context`` (default: the event ``"rollout"`` at the
    place's section, session and table; a copy is not told its standing in the session).
    A copy plays passively, without being asked again, once it has made ``max_faults``
    faults (:class:`BenchedAfterFaults`). Deals are valued in the order played, and
    ``on_deal(deal)`` is told after each."""
    if len(seats) != rules.seat_count:
        raise ValueError(f"one rollout copy per seat ({rules.seat_count}), not {len(seats)}")
    seats = [BenchedAfterFaults(seat, max_faults) for seat in seats]
    base = context or SessionContext(
        event=ROLLOUT_EVENT,
        section=place.section,
        session=place.session,
        table=place.table,
        deals_in_session=len(result.deals),
    )
    for seat in seats:
        if seat.active:
            seat.begin_session(base)
    records = []
    for record in result.deals:
        deal_context = replace(base, deal_number=record.deal)
        values = _deal_values(
            rules, record, deck_of(record.deal), seats, rollouts, place, deal_context
        )
        records.append(replace(record, values=values))
        if on_deal is not None:
            on_deal(record.deal)
    return replace(result, deals=tuple(records))


def unit_values(
    unit: TableUnit,
    result: TableSessionResult,
    rollouts: int,
    *,
    opener: SeatOpener | None = None,
    on_deal: Callable[[int], None] | None = None,
) -> TableSessionResult:
    """:func:`table_values` of ``unit``'s ``result``, played by fresh copies of its bots
    opened as a run opens its seats (:func:`~dp_arena.units.open_unit_seats`, or by
    ``opener``) for this table-session alone and closed after it; its decks, its place
    and its fault limit are the unit's."""
    seats = open_unit_seats(unit, opener=opener)
    try:
        return table_values(
            unit.rules,
            result,
            functools.partial(deck_for, unit.event_seed, unit.section, unit.session),
            seats,
            rollouts=rollouts,
            place=RolloutPlace(unit.event_seed, unit.section, unit.session, unit.table),
            on_deal=on_deal,
            max_faults=unit.max_faults,
        )
    finally:
        close_seats(seats)


def _deal_values(
    rules: TableRules,
    record: DealRecord,
    deck: Sequence[int],
    seats: Sequence[Seat],
    rollouts: int,
    place: RolloutPlace,
    context: SessionContext,
) -> tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]:
    if not record.mixes:
        return ()
    mixes = dict(record.mixes)
    state = new_hand(rules, deck, button=record.button, absent=record.absent)
    fixed_luck = _FixedLuck()  # the deal's decisions reach the same hands
    found = []
    for index, text in enumerate(record.actions):
        mix_text = mixes.get(index)
        if mix_text is not None:
            values = decision_rollout_values(
                state,
                Mix.parse(mix_text),
                seats,
                rollouts=rollouts,
                prefix=place.prefix(record.deal, index),
                context=context,
                fixed_luck=fixed_luck,
            )
            found.append((index, tuple(tuple(str(value) for value in row) for row in values)))
        state.apply(recorded_action(text))
    if state.payoffs != record.nets:
        raise ValueError(f"deal {record.deal} does not replay from its deck as recorded")
    return tuple(found)
