"""The board-luck correction: the luck of every board card taken out of each seat's net,
whatever the players did before and after it.

When the flop, the turn or the river comes, each seat still in the hand has an **expected
net**: the mean of what it would net if nobody put in another chip and the hands were
shown down, over every possible rest of the board, from the real hole cards and the chips
committed at that moment. The cards that come move it; that move is the card's luck:

    luck of a street = expected net just after its cards - expected net just before

with the same chips committed on both sides. The corrected net is the real net minus the
luck of every street that came. Nothing in it is fitted or estimated from the data: the
expected nets are exact (every rest of the board counted), and the board is uniform over
the unseen cards whatever the bots did, so each street's luck averages exactly zero over
the cards that could have come, for any bots (``tests/ratings/test_board_luck.py``
enumerates them). The correction is therefore unbiased; it removes the part of the
variance that the cards alone cause.

What it cannot remove: the players' own choices. Two tables holding the same cards still
score apart when their players bet differently, and a fold, a bet or a bluff after a card
is kept whole; only the cards' effect on a showdown at the chips already in is taken out.

The all-in equity adjustment (:mod:`dp_arena.ratings.equity`) is its special case: it
takes out the luck of the cards that came after the last decision. Once a hand is all in
its chips stop moving, so the lucks of its last streets add up to the real net minus the
expected net when the betting stopped, and a hand all in before the flop gets exactly its
all-in equity net; one all in later also loses the luck of the streets before. A hand
whose cards never came (everybody folded to one player before the flop) keeps its real
net.

The expectations are shared: the mirrored tables of a deal hold the same cards, so the
showdown orders of every hand dealt, before the flop (counted by ranks,
:mod:`dp_arena.ratings.runouts`), on the flop (990 completions at most) and on the turn
(the rivers), are counted once per deal, and each table reads the order of its live
hands off them.

>>> from dp_arena.engine import Betting, TableRules
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> def nets(*actions):
...     return [round(float(net), 2) for net in board_luck_nets(
...         rules, button=0, hole_cards=("AsAh", "KdKc"), board="Ks7h2c3d4s", actions=actions)]

Checked down after a call before the flop, the kings win 20 chips. With 20 chips each
in, the aces' expected net was +12.50 before the flop (an 81% favourite in a 40-chip
pot) and -16.57 after it (the kings' set): the flop's luck. The turn and the river moved
it on to -18.18 and -20. Taken out, they leave the expectation before any card came:

>>> nets("0:call", "1:check", *["1:check", "0:check"] * 3)
[12.5, -12.5]

All in on the river: the cards' luck at 20 chips each (32.50 chips) is taken out; the
kings' bet of 980 on the river and the aces' call, decisions made with the board known,
are kept:

>>> nets("0:call", "1:check", "1:check", "0:check", "1:check", "0:check", "1:raise 980",
...      "0:call")
[-967.5, 967.5]

All in before the flop, it is the all-in equity net:

>>> nets("0:raise 1000", "1:call")
[625.11, -625.11]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Unpack

from dp_arena.engine import Card, HandState, Street, TableRules, evaluate
from dp_arena.engine.showdown import split_pot
from dp_arena.errors import HandHistoryError
from dp_arena.ratings.equity import RecordedHand, recorded_hand, replay
from dp_arena.ratings.runouts import forget_boards, outcome_table
from dp_arena.results import DealRecord

__all__ = [
    "BoardLuck",
    "StreetLuck",
    "board_luck",
    "board_luck_nets",
    "corrected_nets",
    "expected_sums",
    "forget_deals",
    "showdown_share",
    "showdown_shares",
]


@dataclass(frozen=True, slots=True)
class StreetLuck:
    """One street whose cards came with two or more players in the hand: who was in
    (``live``), the chips every seat had ``committed`` then, and every seat's expected
    net just ``before`` and just ``after`` the cards (a folded seat's is minus its
    chips, the same on both sides)."""

    street: Street
    live: tuple[int, ...]
    committed: tuple[int, ...]
    before: tuple[Fraction, ...]
    after: tuple[Fraction, ...]

    @property
    def luck(self) -> tuple[Fraction, ...]:
        """Every seat's luck of this street: after minus before."""
        return tuple(after - before for after, before in zip(self.after, self.before, strict=True))


@dataclass(frozen=True, slots=True)
class BoardLuck:
    """A deal's ``real`` nets, the luck of each of its ``streets``, and the corrected
    ``nets``: the real ones minus every street's luck."""

    real: tuple[int, ...]
    streets: tuple[StreetLuck, ...]
    nets: tuple[Fraction, ...]


def corrected_nets(rules: TableRules, record: DealRecord) -> tuple[Fraction, ...]:
    """The corrected nets of one deal record (:func:`board_luck_nets` of its fields)."""
    return board_luck_nets(rules, **recorded_hand(record), nets=record.nets)


def board_luck_nets(
    rules: TableRules, *, nets: Sequence[int] | None = None, **hand: Unpack[RecordedHand]
) -> tuple[Fraction, ...]:
    """Every seat's net in the ``hand`` (:class:`~dp_arena.ratings.equity.RecordedHand`'s
    keywords) with the luck of the board taken out (exact; a table's corrected nets sum
    to zero like the real ones). ``nets``, the deal's recorded nets, spare the replay of
    a hand in which no board card came."""
    if nets is not None and len(nets) == rules.seat_count and not hand["board"]:
        return tuple(Fraction(net) for net in nets)
    return _corrected(*_streets(rules, **hand))


def _corrected(state: HandState, streets: list[_Street]) -> tuple[Fraction, ...]:
    """The real nets of the replayed hand less the luck of ``streets``."""
    real = state.payoffs
    assert real is not None
    if not streets:
        return tuple(Fraction(net) for net in real)
    # Every expectation is a sum over boards divided by how many there are: the
    # corrections are added up as integers over one common denominator.
    denominator = math.lcm(*(total for values in streets for _, total in values[1:]))
    numerators = [net * denominator for net in real]
    for _, (before, before_total), (after, after_total) in streets:
        before_scale = denominator // before_total
        after_scale = denominator // after_total
        for seat in range(len(numerators)):
            numerators[seat] += before[seat] * before_scale - after[seat] * after_scale
    return tuple(Fraction(numerator, denominator) for numerator in numerators)


def board_luck(rules: TableRules, **hand: Unpack[RecordedHand]) -> BoardLuck:
    """The whole account of a deal's board luck: its real nets, each street's luck, and
    the corrected nets (those of :func:`board_luck_nets`)."""
    state, streets = _streets(rules, **hand)
    real = state.payoffs
    assert real is not None
    accounts = []
    corrected = [Fraction(net) for net in real]
    for (street, live, committed), (before, before_total), (after, after_total) in streets:
        account = StreetLuck(
            street=street,
            live=live,
            committed=committed,
            before=tuple(Fraction(value, before_total) for value in before),
            after=tuple(Fraction(value, after_total) for value in after),
        )
        corrected = [net - luck for net, luck in zip(corrected, account.luck, strict=True)]
        accounts.append(account)
    return BoardLuck(real=tuple(real), streets=tuple(accounts), nets=tuple(corrected))


# An expectation as every seat's sum of nets over the boards counted, and how many.
_Sums = tuple[tuple[int, ...], int]
_Street = tuple[tuple[Street, tuple[int, ...], tuple[int, ...]], _Sums, _Sums]


def _streets(
    rules: TableRules,
    button: int,
    hole_cards: Sequence[str],
    board: str,
    actions: Sequence[str],
    absent: Sequence[int] = (),
    before_action: Callable[[int, HandState], None] | None = None,
) -> tuple[HandState, list[_Street]]:
    """The replayed hand and, for every street whose cards came with two or more players
    in, who was in, the chips committed, and the expected nets before and after
    (``before_action``: told of every action, as :func:`replay` tells it)."""
    came: list[tuple[Street, tuple[int, ...], tuple[int, ...]]] = []

    def on_street(street: Street, state: HandState) -> None:
        live = tuple(seat for seat in range(state.seat_count) if not state.folded[seat])
        if len(live) >= 2:
            came.append((street, live, tuple(state.committed)))

    state = replay(
        rules,
        button=button,
        hole_cards=hole_cards,
        board=board,
        actions=actions,
        absent=absent,
        on_street=on_street,
        before_action=before_action,
    )
    dealt = tuple(seat for seat, hole in enumerate(state.hole_cards) if hole is not None)
    holes = tuple(hole for hole in state.hole_cards if hole is not None)
    for street, live, _ in came:
        if any(state.hole_cards[seat] is None for seat in live):
            raise HandHistoryError(
                f"a seat is in the hand on the {street.name.lower()} but its hole cards are unknown"
            )
    streets = []
    for street, live, committed in came:
        positions = tuple(dealt.index(seat) for seat in live)
        before = state.board[: Street(street - 1).board_size]
        after = state.board[: street.board_size]
        streets.append(
            (
                (street, live, committed),
                expected_sums(committed, live, positions, holes, tuple(before), state.button),
                expected_sums(committed, live, positions, holes, tuple(after), state.button),
            )
        )
    return state, streets


# The tables of a deal that put in the same chips ask the same question, and so does a
# street checked through: its expectation after the cards is the next one's before.
@functools.lru_cache(maxsize=1 << 12)
def expected_sums(
    committed: tuple[int, ...],
    live: tuple[int, ...],
    positions: tuple[int, ...],
    holes: tuple[tuple[Card, Card], ...],
    known_board: tuple[Card, ...],
    button: int,
) -> _Sums:
    """Every seat's net summed over every completion of ``known_board`` when the ``live``
    seats (``positions`` among ``holes``) show down with these chips, and how many
    completions there are.

    Pots are built as the engine builds them (:func:`~dp_arena.ratings.equity.pot_payoffs`):
    a pot per level of the live seats' totals, the chips of folded seats above the top
    level in the top pot, each pot split among the best hands eligible for it. Only who
    wins each pot matters, so each pot is paid once per set of winners, however many
    orders of the hands give it."""
    seat_count = len(committed)
    seat_of = dict(zip(positions, live, strict=True))
    total = 0
    sums = [0] * seat_count
    previous = 0
    levels = sorted({committed[seat] for seat in live})
    for level in levels:
        amount = sum(min(chips, level) - min(chips, previous) for chips in committed)
        if level == levels[-1]:
            amount += sum(max(0, chips - level) for chips in committed)
        eligible = tuple(
            position
            for position, seat in zip(positions, live, strict=True)
            if committed[seat] >= level
        )
        winners, total = _winners(holes, known_board, eligible)
        for winning, count in winners:
            seats = [seat_of[position] for position in winning]
            for seat, share in split_pot(amount, seats, button, seat_count).items():
                sums[seat] += share * count
        previous = level
    for seat in range(seat_count):
        sums[seat] -= committed[seat] * total
    return tuple(sums), total


def forget_deals() -> None:
    """Empty every cache of expectations of particular deals (they serve the mirrored
    tables of a deal; a process going on to other deals needs none of them again)."""
    for cached in (expected_sums, showdown_share, showdown_shares, _winners, _duels):
        cached.cache_clear()
    forget_boards()


@functools.lru_cache(maxsize=1 << 15)
def showdown_share(
    holes: tuple[tuple[Card, Card], ...],
    known_board: tuple[Card, ...],
    hand: int,
    opponents: tuple[int, ...],
) -> Fraction:
    """The share of a pot that ``holes[hand]`` wins in a showdown against the hands at
    ``opponents`` (indices into ``holes``, every hand dealt), over every completion of
    ``known_board`` from the cards nobody holds: its chance to win plus its part of every
    split (1/2 of a two-way tie...). Exact; the mirrored tables of a deal share it.

    >>> from dp_arena.engine import parse_cards
    >>> holes = (tuple(parse_cards("AdAc")), tuple(parse_cards("KhKs")))
    >>> share = showdown_share(holes, (), 0, (1,))
    >>> share == Fraction(1388072 * 2 + 6538, 2 * 1712304)  # wins, and half the splits
    True
    """
    winners, total = _winners(holes, known_board, tuple(sorted((hand, *opponents))))
    won = sum(Fraction(count, len(winning)) for winning, count in winners if hand in winning)
    return Fraction(won) / total


@functools.lru_cache(maxsize=1 << 14)
def showdown_shares(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], live: tuple[int, ...]
) -> tuple[Fraction, ...]:
    """Every hand's :func:`showdown_share` against the ``live`` hands (indices into
    ``holes``, in order) at once: a live hand's against the other live hands (0 when it is
    the only one), any other hand's against all of them, as if it were still in. One count
    of the showdown orders serves every hand.

    >>> from dp_arena.engine import parse_cards
    >>> holes = tuple(tuple(parse_cards(hand)) for hand in ("AdAc", "KhKs", "7d2c"))
    >>> shares = showdown_shares(holes, tuple(parse_cards("Ks7h2h")), (0, 1))
    >>> shares == tuple(showdown_share(holes, tuple(parse_cards("Ks7h2h")), hand, others)
    ...                 for hand, others in ((0, (1,)), (1, (0,)), (2, (0, 1))))
    True
    """
    import numpy as np

    dead = tuple(sorted(card for hole in holes for card in hole))
    ranks, counts = outcome_table(holes, known_board, dead)
    ranks = ranks.astype(np.int64)
    total = int(counts.sum())
    best = ranks[:, list(live)].min(axis=1)[:, None]
    ties = (ranks[:, list(live)] == best).sum(axis=1)[:, None]
    is_live = np.zeros(len(holes), dtype=bool)
    is_live[list(live)] = True
    # A live hand wins its share of the best live hands; any other would win alone below
    # them and split one more way with them.
    won = np.where(is_live, ranks == best, ranks <= best)
    split = np.where(is_live | (ranks == best), ties + ~is_live, 1)
    # Shares in one common unit: every split size divides the lcm of 1..hands.
    unit = math.lcm(*range(1, len(holes) + 2))
    numerators = ((counts[:, None] * (unit // split)) * won).sum(axis=0).tolist()
    alone = len(live) == 1
    return tuple(
        Fraction(0) if alone and is_live[hand] else Fraction(numerator, total * unit)
        for hand, numerator in enumerate(numerators)
    )


# The mirrored tables of a deal ask the same few questions (one board a street, a pot or
# two, among a live set or two); a section's deals are asked table after table.
@functools.lru_cache(maxsize=1 << 15)
def _winners(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], eligible: tuple[int, ...]
) -> tuple[tuple[tuple[tuple[int, ...], int], ...], int]:
    """Who wins a pot that the hands at ``eligible`` (indices into ``holes``) may win:
    each set of winners with how many completions of ``known_board`` give it, and how
    many completions there are. The orders of every hand dealt are counted once per deal
    (:func:`outcome_table`); the winners are the eligible hands ranked best among them."""
    if len(known_board) == 5:  # the river has come: one board, the evaluator's answer
        values = [evaluate((*holes[index], *known_board)) for index in eligible]
        best = min(values)
        return ((tuple(i for i, v in zip(eligible, values, strict=True) if v == best), 1),), 1
    if len(eligible) == 2:  # a pot between two hands, the common case: counted once
        first, second = eligible
        duels = _duels(holes, known_board)
        wins, losses, ties = duels[first, second]
        total = wins + losses + ties
        found = (((first,), wins), ((first, second), ties), ((second,), losses))
        return tuple((winning, count) for winning, count in found if count), total
    dead = tuple(sorted(card for hole in holes for card in hole))
    ranks, counts = outcome_table(holes, known_board, dead)
    if len(counts) <= _FEW_ORDERS:
        tally: dict[tuple[int, ...], int] = {}
        for order, count in zip(ranks.tolist(), counts.tolist(), strict=True):
            best = min(order[index] for index in eligible)
            winning = tuple(index for index in eligible if order[index] == best)
            tally[winning] = tally.get(winning, 0) + count
        return tuple(sorted(tally.items())), sum(tally.values())
    import numpy as np

    mine = ranks[:, eligible]
    # Each order's winners as a bit mask over ``eligible``, tallied by mask.
    winning_bits = mine == mine.min(axis=1)[:, None]
    masks = winning_bits.astype(np.int64) @ (1 << np.arange(len(eligible), dtype=np.int64))
    found_masks, inverse = np.unique(masks, return_inverse=True)
    tally_array = np.zeros(len(found_masks), dtype=np.int64)
    np.add.at(tally_array, inverse, counts)
    winners = sorted(
        (tuple(index for bit, index in enumerate(eligible) if mask >> bit & 1), count)
        for mask, count in zip(found_masks.tolist(), tally_array.tolist(), strict=True)
    )
    return tuple(winners), int(counts.sum())


@functools.lru_cache(maxsize=1 << 13)
def _duels(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...]
) -> dict[tuple[int, int], tuple[int, int, int]]:
    """For every pair of hands dealt (``first < second``, indices into ``holes``): over
    every completion of ``known_board``, how often the first beats the second, loses to
    it, and ties."""
    import numpy as np

    dead = tuple(sorted(card for hole in holes for card in hole))
    ranks, counts = outcome_table(holes, known_board, dead)
    # ahead[i, j]: on how many boards hand i beats hand j.
    ahead = np.einsum("o,oij->ij", counts, ranks[:, :, None] < ranks[:, None, :]).tolist()
    total = int(counts.sum())
    return {
        (first, second): (
            ahead[first][second],
            ahead[second][first],
            total - ahead[first][second] - ahead[second][first],
        )
        for first in range(len(holes))
        for second in range(first + 1, len(holes))
    }


# Below this many orders a Python loop beats NumPy's per-call cost.
_FEW_ORDERS = 48
