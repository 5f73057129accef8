"""The state of one hand (one deal at one table): who holds what, who owes what, whose turn.

A :class:`HandState` is created with the blinds posted and the first player to act
set. Query it with :meth:`HandState.legal_actions`, act with :meth:`HandState.apply`
(which validates first: an illegal action raises
:class:`~dp_arena.errors.IllegalActionError` and leaves the state untouched). When the
hand is over, :attr:`HandState.payoffs` holds every seat's net.

A heads-up hand, played to the end:

>>> from dp_arena.engine import Action, Betting, HandState, TableRules, parse_cards
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> state = HandState(
...     rules, button=0, stacks=(1000, 1000),
...     hole_cards=(parse_cards("AsAh"), parse_cards("Kd7c")),
...     board=parse_cards("2c7d9hJsQs"),
... )
>>> state.actor  # heads-up, the button posts the small blind and acts first preflop
0
>>> legal = state.legal_actions()
>>> legal.call_amount, legal.min_raise_to, legal.max_raise_to
(10, 40, 1000)
>>> _ = state.apply(Action.raise_to(60))
>>> _ = state.apply(Action.call())
>>> state.street.name, state.actor  # after the flop the big blind acts first
('FLOP', 1)
>>> _ = state.apply(Action.check())
>>> _ = state.apply(Action.raise_to(80))
>>> _ = state.apply(Action.raise_to(1000 - 60))  # all-in: the cap is 1000 for the deal
>>> _ = state.apply(Action.call())
>>> state.is_complete, state.payoffs
(True, (1000, -1000))
"""

from __future__ import annotations

import copy as copy_module
from collections.abc import Collection, Sequence

from dp_arena.engine import betting, showdown
from dp_arena.engine.actions import Action, ActionKind, ActionRecord, LegalActions, Street
from dp_arena.engine.cards import Card
from dp_arena.engine.rules import TableRules

__all__ = ["HAND_STATE_FIELDS", "HandState"]

# Every attribute of a hand: ``HandState.__slots__``, listed here too because a compiled
# build of the class has no ``__slots__`` to read them from.
HAND_STATE_FIELDS = (
    "_legal",
    "absent",
    "acted",
    "actor",
    "available",
    "big_blind_seat",
    "big_blind_unmatched",
    "board",
    "button",
    "committed",
    "current_bet",
    "folded",
    "history",
    "hole_cards",
    "largest_increment",
    "payoffs",
    "pots",
    "rules",
    "showdown_values",
    "small_blind_seat",
    "starting_stacks",
    "street",
    "street_bets",
)


def _is_positive_int(value: object) -> bool:
    return type(value) is int and value > 0


class HandState:
    """One hand in progress. Seats are ``0..seat_count-1``; every per-seat list is in seat
    order. Treat the attributes as read-only: only :meth:`apply` changes a hand."""

    __slots__ = HAND_STATE_FIELDS

    rules: TableRules
    button: int
    starting_stacks: tuple[int, ...]
    hole_cards: tuple[tuple[Card, Card] | None, ...]
    board: tuple[Card, ...]
    absent: tuple[bool, ...]
    small_blind_seat: int
    big_blind_seat: int
    available: list[int]
    committed: list[int]
    street_bets: list[int]
    folded: list[bool]
    acted: list[bool]
    street: Street
    actor: int | None
    current_bet: int
    big_blind_unmatched: bool
    largest_increment: int
    history: list[ActionRecord]
    payoffs: tuple[int, ...] | None
    pots: tuple[showdown.Pot, ...]
    showdown_values: dict[int, int]
    _legal: LegalActions | None

    def __init__(
        self,
        rules: TableRules,
        *,
        button: int,
        stacks: Sequence[int],
        hole_cards: Sequence[tuple[Card, Card] | None],
        board: Sequence[Card],
        absent: Collection[int] = (),
    ) -> None:
        seat_count = rules.seat_count
        if not 0 <= button < seat_count:
            raise ValueError(f"button must be a seat 0..{seat_count - 1}, not {button}")
        # Read as objects: a stack of 500.0 is refused by name, also in a compiled build.
        given: Sequence[object] = stacks
        if len(given) != seat_count or not all(_is_positive_int(stack) for stack in given):
            raise ValueError(f"stacks must be {seat_count} positive integers, not {list(stacks)}")
        if len(hole_cards) != seat_count:
            raise ValueError(f"hole_cards must have one entry per seat ({seat_count})")
        if len(board) != 5:
            raise ValueError(f"board must have five cards, not {len(board)}")
        self.rules = rules
        self.button = button
        self.starting_stacks = tuple(stacks)
        self.hole_cards = tuple(hole_cards)
        self.board = tuple(board)
        self.absent = tuple(seat in absent for seat in range(seat_count))
        cap = rules.cap
        self.available = list(stacks) if cap is None else [min(stack, cap) for stack in stacks]
        self.committed = [0] * seat_count
        self.street_bets = [0] * seat_count
        self.folded = [False] * seat_count
        self.acted = [False] * seat_count
        self.street = Street.PREFLOP
        self.actor = None
        self.current_bet = 0
        self.big_blind_unmatched = False
        self.largest_increment = 0
        self.history = []
        self.payoffs = None
        self.pots = ()
        self.showdown_values = {}
        self._legal = None
        # Heads-up the button posts the small blind (docs/rules.md).
        self.small_blind_seat = button if seat_count == 2 else (button + 1) % seat_count
        self.big_blind_seat = (self.small_blind_seat + 1) % seat_count
        betting.post_blinds(self)

    # -- queries ---------------------------------------------------------------------

    @property
    def seat_count(self) -> int:
        return self.rules.seat_count

    @property
    def is_complete(self) -> bool:
        return self.payoffs is not None

    @property
    def visible_board(self) -> tuple[Card, ...]:
        return self.board[: self.street.board_size]

    @property
    def pot_total(self) -> int:
        """Every chip committed this deal, the bets of the current street included."""
        return sum(self.committed)

    @property
    def final_stacks(self) -> tuple[int, ...]:
        if self.payoffs is None:
            raise ValueError("the hand is not over")
        return tuple(
            stack + payoff for stack, payoff in zip(self.starting_stacks, self.payoffs, strict=True)
        )

    def is_all_in(self, seat: int) -> bool:
        return self.available[seat] == 0

    def cap_graphic(self) -> tuple[tuple[int, ...], int | None]:
        """The cap graphic (docs/rules.md): each seat's chips still available this deal, and
        the cap minus the deal total of the last bettor or raiser (``None`` without a cap).
        The last bettor/raiser always holds the largest deal total."""
        cap = self.rules.cap
        return tuple(self.available), None if cap is None else cap - max(self.committed)

    def legal_actions(self) -> LegalActions:
        """What the player to act may do; raises if the hand is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = betting.legal_actions(self)
        return legal

    # -- acting ----------------------------------------------------------------------

    def apply(self, action: Action) -> ActionRecord:
        """Validate and apply the decision of the player to act."""
        return betting.apply_action(self, action)

    def copy(self) -> HandState:
        """A copy of the hand in progress that shares nothing mutable with it, made
        attribute by attribute (``copy.copy`` replays the whole hand; this is what
        something playing many continuations of one hand wants). The compiled build
        makes no hand without ``__init__``, so it copies by replaying."""
        if _COMPILED:
            return copy_module.copy(self)
        twin = HandState.__new__(HandState)
        twin.rules = self.rules
        twin.button = self.button
        twin.starting_stacks = self.starting_stacks
        twin.hole_cards = self.hole_cards
        twin.board = self.board
        twin.absent = self.absent
        twin.small_blind_seat = self.small_blind_seat
        twin.big_blind_seat = self.big_blind_seat
        twin.available = list(self.available)
        twin.committed = list(self.committed)
        twin.street_bets = list(self.street_bets)
        twin.folded = list(self.folded)
        twin.acted = list(self.acted)
        twin.street = self.street
        twin.actor = self.actor
        twin.current_bet = self.current_bet
        twin.big_blind_unmatched = self.big_blind_unmatched
        twin.largest_increment = self.largest_increment
        twin.history = list(self.history)
        twin.payoffs = self.payoffs
        twin.pots = self.pots
        twin.showdown_values = dict(self.showdown_values)
        twin._legal = self._legal
        return twin

    def __reduce__(self) -> tuple[object, ...]:
        """Copies and pickles as its deal and its actions, replayed on rebuilding (the
        engine is deterministic), so a compiled build copies as the pure one does."""
        absent = tuple(seat for seat, missing in enumerate(self.absent) if missing)
        actions = tuple((record.kind.value, record.raise_to) for record in self.history)
        return (
            _rebuild,
            (
                self.rules,
                self.button,
                self.starting_stacks,
                self.hole_cards,
                self.board,
                absent,
                actions,
            ),
        )

    def __repr__(self) -> str:
        return (
            f"HandState(street={self.street.name}, actor={self.actor}, pot={self.pot_total},"
            f" committed={self.committed}, available={self.available}, folded={self.folded})"
        )


def _rebuild(
    rules: TableRules,
    button: int,
    stacks: tuple[int, ...],
    hole_cards: tuple[tuple[Card, Card] | None, ...],
    board: tuple[Card, ...],
    absent: tuple[int, ...],
    actions: tuple[tuple[str, int | None], ...],
) -> HandState:
    state = HandState(
        rules, button=button, stacks=stacks, hole_cards=hole_cards, board=board, absent=absent
    )
    for kind, amount in actions:
        state.apply(Action(ActionKind(kind), amount))
    return state


# A compiled build of the class has no ``__slots__`` and makes no instance without
# ``__init__`` (:meth:`HandState.copy`).
_COMPILED = not hasattr(HandState, "__slots__")
