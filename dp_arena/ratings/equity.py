"""The all-in equity adjustment: a deal whose betting ended before the river with two or
more players still in is scored by its expected nets over every possible rest of the
board, instead of by the board that happened to come.

Once every player but at most one is all-in, nobody decides anything again; what the
remaining board does to the nets is pure luck. Replacing the realised nets by their
expectation over the remaining boards removes that luck and keeps everything the
players chose (who put how much in, who folded). The expectation is exact: every
possible rest of the board is counted (:mod:`dp_arena.ratings.runouts`: the flop's and
the turn's completions one by one, a pre-flop all-in's 1.7 million boards by their
ranks, in milliseconds), and the mirrored tables of a deal share the count.

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

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import NotRequired, TypedDict, Unpack

from dp_arena.engine import Action, Card, HandState, Street, TableRules, parse_cards
from dp_arena.engine.showdown import split_pot
from dp_arena.errors import DPArenaError, HandHistoryError
from dp_arena.ratings.runouts import outcome_counts
from dp_arena.results import DealRecord

__all__ = [
    "RecordedHand",
    "adjusted_nets",
    "all_in_nets",
    "expected_payoffs",
    "outcome_counts",
    "pot_payoffs",
    "recorded_hand",
    "replay",
]


class RecordedHand(TypedDict):
    """A deal record's hand, as the keywords of :func:`replay`, :func:`adjusted_nets` and
    :func:`~dp_arena.ratings.board_luck.board_luck_nets`: cards as text (``"AsKd"`` per
    seat, the board as dealt), the compact action log (``"3:raise 120"``, ``"0:fold"``)
    and the seats absent from the deal (none when left out)."""

    button: int
    hole_cards: Sequence[str]
    board: str
    actions: Sequence[str]
    absent: NotRequired[Sequence[int]]


def recorded_hand(record: DealRecord) -> RecordedHand:
    """The hand of one deal record: ``replay(rules, **recorded_hand(record))``."""
    return RecordedHand(
        button=record.button,
        hole_cards=record.hole_cards,
        board=record.board,
        actions=record.actions,
        absent=record.absent,
    )


def replay(
    rules: TableRules,
    *,
    button: int,
    hole_cards: Sequence[str],
    board: str,
    actions: Sequence[str],
    absent: Sequence[int] = (),
    on_street: Callable[[Street, HandState], None] | None = None,
    before_action: Callable[[int, HandState], None] | None = None,
) -> HandState:
    """The finished hand of a deal record: cards as text (``"AsKd"`` per seat, the board
    as dealt) and the compact action log (``"3:raise 120"``, ``"0:fold"``).

    ``on_street(street, state)`` hears of every street whose cards came (the flop, the
    turn, the river), with the hand as it stood when they came: the chips committed then,
    who had folded. A hand that went all in before the river reports the rest of its
    streets at its last action. ``before_action(index, state)`` sees the hand just
    before each action is applied (``index`` counts the actions from 0)."""
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
    reached = Street.PREFLOP
    for index, text in enumerate(actions):
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
        if before_action is not None:
            before_action(index, state)
        try:
            state.apply(action)
        except DPArenaError as error:
            raise HandHistoryError(f"action {text!r} refused: {error}") from None
        if on_street is not None and state.street > reached:
            # The showdown comes after the river: every street up to the river came.
            now = min(state.street, Street.RIVER)
            for street in range(reached + 1, now + 1):
                on_street(Street(street), state)
            reached = now
    if not state.is_complete:
        raise HandHistoryError("the actions end before the hand does")
    return state


def _pair(cards: tuple[Card, ...]) -> tuple[Card, Card]:
    if len(cards) != 2:
        raise ValueError(f"a hand holds two cards, not {len(cards)}")
    return cards[0], cards[1]


def all_in_nets(rules: TableRules, record: DealRecord) -> tuple[Fraction, ...]:
    """The all-in equity nets of one deal record (:func:`adjusted_nets` of its fields)."""
    return adjusted_nets(rules, **recorded_hand(record), nets=record.nets)


def adjusted_nets(
    rules: TableRules, *, nets: Sequence[int] | None = None, **hand: Unpack[RecordedHand]
) -> tuple[Fraction, ...]:
    """Every seat's net in the ``hand`` (:class:`RecordedHand`'s keywords), by equity
    when the betting ended before the river with two or more players in the hand,
    otherwise the real net (as a fraction either way).

    ``nets``, the deal's recorded nets, spare the replay of a hand whose real nets
    stand anyway: one that all but one player folded, or one in which nobody can have
    gone all in. (A player puts in at most the largest bet of each of the four streets,
    so while four times the largest bet or raise stays below the cap, which is every
    seat's stack, nobody is all in, and two players still in the hand saw the river.)"""
    if nets is not None and len(nets) == rules.seat_count and _nets_stand(rules, hand["actions"]):
        return tuple(Fraction(net) for net in nets)
    state = replay(rules, **hand)
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


def _nets_stand(rules: TableRules, actions: Sequence[str]) -> bool:
    """Whether the actions alone show that a hand's real nets stand (see
    :func:`adjusted_nets`); unreadable actions are left to the replay to report."""
    if sum(1 for action in actions if action.endswith(":fold")) == rules.seat_count - 1:
        return True
    try:
        largest = max(
            (int(action.rpartition(" ")[2]) for action in actions if ":raise " in action),
            default=0,
        )
    except ValueError:
        return False
    return rules.cap is not None and 4 * max(largest, rules.big_blind) < rules.cap


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
    that are neither ``dead`` nor on the board, with the chips each seat ``committed``.

    The showdown orders are counted for every hand dealt (folded ones too), not only the
    live ones: the mirrored tables of a deal hold the same cards, so they ask the same
    question whoever folded there, and :func:`outcome_counts` answers it once. The
    order of the live hands is read off the order of all of them."""
    for seat in live:
        if hole_cards[seat] is None:
            raise HandHistoryError(f"seat {seat} is in the hand but its hole cards are unknown")
    dealt = tuple(seat for seat, hole in enumerate(hole_cards) if hole is not None)
    holes = tuple(hole for hole in hole_cards if hole is not None)
    counts = outcome_counts(holes, tuple(known_board), tuple(sorted(set(dead))))
    positions = [dealt.index(seat) for seat in live]
    live_counts: dict[tuple[int, ...], int] = {}
    for ranks, count in counts.items():
        mine = [ranks[position] for position in positions]
        # Among the live hands: how many live hands beat each (ties share a rank).
        order = tuple(sum(other < rank for other in mine) for rank in mine)
        live_counts[order] = live_counts.get(order, 0) + count
    total = sum(live_counts.values())
    seat_count = len(committed)
    expected = [0] * seat_count  # sums of net x boards: exact integers, divided once
    for order, count in live_counts.items():
        ranked = dict(zip(live, order, strict=True))
        for seat, net in enumerate(pot_payoffs(committed, ranked, button)):
            expected[seat] += net * count
    return tuple(Fraction(value, total) for value in expected)


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
