"""The all-in equity adjustment: a deal whose betting ended before the river with two or
more players still in is scored by its expected nets over every possible rest of the
board, instead of by the board that happened to come.

Once every player but at most one is all-in, nobody decides anything again; what the
remaining board does to the nets is pure luck. Replacing the realised nets by their
expectation over the remaining boards removes that luck and keeps everything the
players chose (who put how much in, who folded). The expectation is exact: every
combination of the cards still unseen is enumerated and scored with
:func:`dp_arena.engine.evaluator.evaluate`'s lookup tables (vectorised with NumPy, so
a pre-flop all-in's 1.7 million boards take well under a second).

*Unseen* means not in anybody's hand and not on the board yet: the harness knows every
seat's hole cards, folded and absent seats' included, and the deck is a uniform
permutation, so given them the rest of the board is uniform over the other cards (burn
cards are among them: they are unseen too). The expectation is exact in rational
numbers (:class:`fractions.Fraction`); the adjusted nets of a table sum to zero like
the real ones, and pots, side pots, split pots and odd chips are paid exactly as the
engine pays them (:mod:`dp_arena.engine.showdown`).

>>> from dp_arena.engine import Betting, TableRules
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> def nets(*actions):
...     return adjusted_nets(rules, button=0, hole_cards=("AsAh", "KdKc"),
...                          board="Ks7h2c3d4s", actions=actions)

The kings win every one of these hands (realised nets ``(-1000, 1000)``). All in before
the flop, the aces are an 81.3% favourite over 1,712,304 boards:

>>> [round(float(net), 2) for net in nets("0:raise 1000", "1:call")]
[625.11, -625.11]

All in on the flop against a set, the aces win 85 of the 990 turn and river pairs (an
ace without the last king: 2 x 42; both aces: quads): 85/990 x 2000 - 1000 chips:

>>> nets("0:call", "1:check", "1:raise 980", "0:call")
(Fraction(-82000, 99), Fraction(82000, 99))

All in on the river, nothing is left to chance and the real nets stand:

>>> nets("0:call", "1:check", "1:check", "0:check", "1:check", "0:check", "1:raise 980", "0:call")
(Fraction(-1000, 1), Fraction(1000, 1))
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from dp_arena.engine import Action, Card, HandState, Street, TableRules, parse_cards
from dp_arena.engine.evaluator import CARD_KEYS, FLUSH_SUIT, FLUSH_VALUES, NONFLUSH_VALUES
from dp_arena.engine.showdown import split_pot
from dp_arena.errors import DPArenaError, HandHistoryError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "adjusted_nets",
    "expected_payoffs",
    "outcome_counts",
    "pot_payoffs",
    "replay",
]


def replay(
    rules: TableRules,
    *,
    button: int,
    hole_cards: Sequence[str],
    board: str,
    actions: Sequence[str],
    absent: Sequence[int] = (),
) -> HandState:
    """The finished hand of a deal record: cards as text (``"AsKd"`` per seat, the board
    as dealt) and the compact action log (``"3:raise 120"``, ``"0:fold"``)."""
    try:
        holes = tuple(_pair(parse_cards(text)) for text in hole_cards)
        board_cards = parse_cards(board)
    except ValueError as error:
        raise HandHistoryError(f"{error}") from None
    # A hand that ended early has fewer board cards; they are never looked at, so any
    # unused cards fill the board to five.
    used = {card for hole in holes for card in hole} | set(board_cards)
    filler = [card for card in range(52) if card not in used][: 5 - len(board_cards)]
    if rules.cap is None:
        raise HandHistoryError("only capped deals (every seat starts with the cap) replay")
    state = HandState(
        rules,
        button=button,
        stacks=(rules.cap,) * rules.seat_count,
        hole_cards=holes,
        board=(*board_cards, *filler),
        absent=absent,
    )
    for text in actions:
        seat_text, _, action_text = text.partition(":")
        words = action_text.split()
        try:
            seat = int(seat_text)
            if words[0] == "raise":
                action = Action.raise_to(int(words[1]))
            else:
                action = {"fold": Action.fold(), "check": Action.check(), "call": Action.call()}[
                    words[0]
                ]
        except (ValueError, IndexError, KeyError):
            raise HandHistoryError(f"unreadable action {text!r}") from None
        if state.actor != seat:
            raise HandHistoryError(f"action {text!r} out of turn (seat {state.actor} acts)")
        try:
            state.apply(action)
        except DPArenaError as error:
            raise HandHistoryError(f"action {text!r} refused: {error}") from None
    if not state.is_complete:
        raise HandHistoryError("the actions end before the hand does")
    return state


def _pair(cards: tuple[Card, ...]) -> tuple[Card, Card]:
    if len(cards) != 2:
        raise ValueError(f"a hand holds two cards, not {len(cards)}")
    return cards[0], cards[1]


def adjusted_nets(
    rules: TableRules,
    *,
    button: int,
    hole_cards: Sequence[str],
    board: str,
    actions: Sequence[str],
    absent: Sequence[int] = (),
) -> tuple[Fraction, ...]:
    """Every seat's net, by equity when the betting ended before the river with two or
    more players in the hand, otherwise the real net (as a fraction either way)."""
    state = replay(
        rules, button=button, hole_cards=hole_cards, board=board, actions=actions, absent=absent
    )
    payoffs = state.payoffs
    assert payoffs is not None
    live = tuple(seat for seat in range(state.seat_count) if not state.folded[seat])
    # The street of the last decision: after it only cards came.
    closing = state.history[-1].street if state.history else Street.PREFLOP
    if len(live) < 2 or closing >= Street.RIVER:
        return tuple(Fraction(net) for net in payoffs)
    known = state.board[: closing.board_size]
    return expected_payoffs(
        committed=tuple(state.committed),
        live=live,
        hole_cards=state.hole_cards,
        known_board=known,
        dead=tuple(card for hole in state.hole_cards if hole is not None for card in hole),
        button=state.button,
    )


def expected_payoffs(
    *,
    committed: Sequence[int],
    live: Sequence[int],
    hole_cards: Sequence[tuple[Card, Card] | None],
    known_board: Sequence[Card],
    dead: Sequence[Card],
    button: int,
) -> tuple[Fraction, ...]:
    """Each seat's expected net over every completion of ``known_board`` from the cards
    that are neither ``dead`` nor on the board, with the chips each seat ``committed``."""
    live_holes = []
    for seat in live:
        hole = hole_cards[seat]
        if hole is None:
            raise HandHistoryError(f"seat {seat} is in the hand but its hole cards are unknown")
        live_holes.append(hole)
    counts = outcome_counts(tuple(live_holes), tuple(known_board), tuple(sorted(set(dead))))
    total = sum(counts.values())
    seat_count = len(committed)
    expected = [Fraction(0)] * seat_count
    for ranks, count in counts.items():
        order = dict(zip(live, ranks, strict=True))
        for seat, net in enumerate(pot_payoffs(committed, order, button)):
            expected[seat] += Fraction(net * count, total)
    return tuple(expected)


def pot_payoffs(committed: Sequence[int], ranks: dict[int, int], button: int) -> tuple[int, ...]:
    """Nets when the seats in ``ranks`` (live seats; a lower rank is a better hand, equal
    ranks tie) show down with these deal totals: pots by contribution level, split pots
    with odd chips from the left of the button, exactly as the engine settles a hand.

    >>> pot_payoffs([100, 300, 300], {0: 0, 1: 1, 2: 1}, button=0)  # 0 wins the main pot
    (200, -100, -100)
    """
    seat_count = len(committed)
    live = sorted(ranks)
    won = [0] * seat_count
    previous = 0
    top = max(committed[seat] for seat in live)
    for level in sorted({committed[seat] for seat in live}):
        amount = sum(min(chips, level) - min(chips, previous) for chips in committed)
        if level == top:  # folded chips above every live total stay in the top pot
            amount += sum(max(0, chips - level) for chips in committed)
        eligible = [seat for seat in live if committed[seat] >= level]
        best = min(ranks[seat] for seat in eligible)
        winners = [seat for seat in eligible if ranks[seat] == best]
        for seat, share in split_pot(amount, winners, button, seat_count).items():
            won[seat] += share
        previous = level
    return tuple(won[seat] - committed[seat] for seat in range(seat_count))


# -- enumeration -------------------------------------------------------------------------
#
# A seven-card value is looked up by the evaluator's key (see its docstring): rank counts
# in base 5 for hands without a flush, the flush suit's rank mask otherwise. The unseen
# cards are sorted by card number, so every runout's cards come in ascending rank; a
# runout's ranks are then one number in base 13 (at most 13^5), and each hand's non-flush
# value for every possible runout of ranks is a table of at most 6,188 entries, filled
# once and indexed by that number. Flushes are rare and are looked up row by row.

_RANK_BASE = 13


@functools.lru_cache(maxsize=512)  # mirrored tables of one deal share the same question
def outcome_counts(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], dead: tuple[Card, ...]
) -> dict[tuple[int, ...], int]:
    """How many completions of ``known_board`` give each showdown order of ``holes``:
    keys are per-hand ranks (0 = best; tied hands share a rank: the number of hands
    strictly better), values are how many boards give that order."""
    import numpy as np

    missing = 5 - len(known_board)
    excluded = set(dead) | set(known_board)
    unseen = np.array([card for card in range(52) if card not in excluded], dtype=np.int64)
    # One column of indices into ``unseen`` per runout card, ascending along each row.
    columns = _combinations(len(unseen), missing)
    rank_codes = np.zeros(len(columns[0]) if columns else 1, dtype=np.int64)
    suit_counts = np.zeros_like(rank_codes)  # the key's low 12 bits: 3 bits a suit
    for position, column in enumerate(columns):
        rank_codes += ((unseen >> 2) * _RANK_BASE**position)[column]
        suit_counts += (1 << 3 * (unseen & 3))[column]
    tables = _lookup_tables()
    values = np.empty((len(rank_codes), len(holes)), dtype=np.int64, order="F")
    for index, hole in enumerate(holes):
        fixed = (*hole, *known_board)
        fixed_key = sum(CARD_KEYS[card] for card in fixed)
        values[:, index] = _nonflush_table(fixed_key >> 12, missing)[rank_codes]
        suits = tables.flush_suit[suit_counts + (fixed_key & 0xFFF)]
        rows = np.flatnonzero(suits >= 0)
        if len(rows):
            suit = suits[rows]
            masks = np.array(
                [sum(1 << (card >> 2) for card in fixed if card & 3 == each) for each in range(4)]
            )[suit]
            for column in columns:
                cards = unseen[column[rows]]
                masks += ((cards & 3) == suit) << (cards >> 2)
            values[rows, index] = tables.flush_values[masks]
    # A hand's rank: how many hands beat it (so tied hands share a rank).
    base = len(holes)
    codes = np.zeros(len(values), dtype=np.int64)
    for index in range(base):
        rank = np.zeros(len(values), dtype=np.int64)
        for other in range(base):
            if other != index:
                rank += values[:, other] < values[:, index]
        codes += rank * base**index
    if base**base <= 1 << 20:
        tally = np.bincount(codes, minlength=base**base)
        found = np.flatnonzero(tally)
        pairs = zip(found.tolist(), tally[found].tolist(), strict=True)
    else:
        unique, counts = np.unique(codes, return_counts=True)
        pairs = zip(unique.tolist(), counts.tolist(), strict=True)
    result = {
        tuple((code // base**position) % base for position in range(base)): count
        for code, count in pairs
    }
    return dict(sorted(result.items()))


def _nonflush_table(fixed_counts: int, missing: int) -> np.ndarray:
    """Non-flush values of the fixed cards (their base-5 rank counts) plus every runout
    of ``missing`` ranks, indexed by the runout's ranks in base 13 (0 where impossible)."""
    import numpy as np

    table = np.zeros(_RANK_BASE**missing, dtype=np.int64)
    for runout in itertools.combinations_with_replacement(range(_RANK_BASE), missing):
        counts = fixed_counts + sum(5**rank for rank in runout)
        value = NONFLUSH_VALUES.get(counts)
        if value is not None:  # None: five of a rank, a runout no deck can give
            table[sum(rank * _RANK_BASE**position for position, rank in enumerate(runout))] = value
    return table


class _Tables:
    def __init__(self) -> None:
        import numpy as np

        self.flush_suit: npt.NDArray[np.int64] = np.array(FLUSH_SUIT, np.int64)
        self.flush_values: npt.NDArray[np.int64] = np.array(FLUSH_VALUES, np.int64)


@functools.lru_cache(maxsize=1)
def _lookup_tables() -> _Tables:
    return _Tables()


@functools.lru_cache(maxsize=8)
def _combinations(items: int, size: int) -> tuple[np.ndarray, ...]:
    """Every ``size``-subset of ``range(items)`` in lexicographic order, as ``size``
    columns (the subset of row ``r`` is ``column[r]`` of each column), built column by
    column (much faster than ``itertools.combinations`` for millions)."""
    import numpy as np

    if size == 0:
        return ()
    rows = np.arange(items, dtype=np.int64)[:, None]
    for _ in range(size - 1):
        last = rows[:, -1]
        extensions = items - 1 - last  # how many larger items can follow each row
        repeated = np.repeat(rows, extensions, axis=0)
        starts = np.repeat(last + 1, extensions)
        offsets = np.arange(int(extensions.sum())) - np.repeat(
            np.cumsum(extensions) - extensions, extensions
        )
        rows = np.hstack([repeated, (starts + offsets)[:, None]])
    columns = tuple(np.ascontiguousarray(rows[:, position]) for position in range(size))
    for column in columns:
        column.setflags(write=False)
    return columns
