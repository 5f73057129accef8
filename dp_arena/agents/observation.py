"""What a bot sees: the typed :class:`Observation` of one decision, and what it is told
at the start of a session, at the start of a deal and at the end of a deal.

Every per-seat tuple is in seat order (seats ``0..seat_count-1``). Chips are integers.
Cards are integers (see :mod:`dp_arena.engine.cards`); the ``*_text`` properties give
them as text (``"AsKd"``). The same objects travel to external bots as JSON
(:meth:`Observation.to_json`), documented in ``docs/protocol.md``.

What a bot may see follows the duplicate rules (docs/formats.md): its own cards, the
board, every action at its own table, the cap graphic, the deal number and deals in the
session, its own session total; other players' session totals and its seat-position rank
only in sessions that eliminate no one (``None`` otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dp_arena.engine.actions import ActionKind, ActionRecord, LegalActions, Street
from dp_arena.engine.cards import Card, format_cards, parse_cards
from dp_arena.engine.rules import Betting
from dp_arena.records import JsonRecord, codec

__all__ = ["DealEnd", "DealStart", "Observation", "SessionContext"]


def _hole_cards(text: str) -> tuple[Card, Card]:
    hole = parse_cards(text)
    if len(hole) != 2:
        raise ValueError(f"hole_cards must be two cards, not {text!r}")
    return hole[0], hole[1]


def record_to_json(record: ActionRecord) -> dict[str, Any]:
    return {
        "seat": record.seat,
        "street": record.street.name.lower(),
        "action": record.kind.value,
        "chips": record.chips,
        "raise_to": record.raise_to,
        "all_in": record.all_in,
    }


def record_from_json(data: dict[str, Any]) -> ActionRecord:
    return ActionRecord(
        seat=data["seat"],
        street=Street[data["street"].upper()],
        kind=ActionKind(data["action"]),
        chips=data["chips"],
        raise_to=data["raise_to"],
        all_in=data["all_in"],
    )


def _shown_from_json(shown: list[str | None]) -> tuple[tuple[Card, Card] | None, ...]:
    cards = []
    for text in shown:
        parsed = None if text is None else parse_cards(text)
        if parsed is not None and len(parsed) != 2:
            raise ValueError(f"shown cards must be two cards, not {text!r}")
        cards.append(None if parsed is None else (parsed[0], parsed[1]))
    return tuple(cards)


# How the fields whose JSON is not their value are written (cards as text, a street by its
# name, each action's record as the protocol spells it), for the generic walk of
# dp_arena.records that writes and reads every record here (docs/protocol.md).
HOLE_CARDS = codec(format_cards, _hole_cards)
CARDS = codec(format_cards, parse_cards)
SHOWN_CARDS = codec(
    lambda shown: [None if cards is None else format_cards(cards) for cards in shown],
    _shown_from_json,
)
_STREET_NAMES = {street: street.name.lower() for street in Street}
_STREETS = {name: street for street, name in _STREET_NAMES.items()}
STREET = codec(_STREET_NAMES.__getitem__, _STREETS.__getitem__)
HISTORY = codec(
    lambda history: list(map(record_to_json, history)),
    lambda items: tuple(map(record_from_json, items)),
)


@dataclass(frozen=True, slots=True)
class SessionContext(JsonRecord):
    """Where a deal sits in its event, and the bot's own standing in the session.

    ``session_chips`` is the bot's total chips: its starting stack, plus carryover, plus
    its session net so far. ``table_session_nets`` (every seat's session net at this
    table) and ``seat_position_rank`` (1 = best so far in its seat position) are ``None``
    in sessions that eliminate players, where the duplicate rules hide them.
    """

    event: str = ""
    section: int = 0
    session: int = 0
    table: int = 0
    deal_number: int = 0
    deals_in_session: int = 1
    session_net: int = 0
    session_chips: int = 0
    eliminating: bool = False
    table_session_nets: tuple[int, ...] | None = None
    seat_position_rank: int | None = None


@dataclass(frozen=True, slots=True)
class Observation(JsonRecord):
    """Everything a bot may know when it is its turn to act.

    ``to_call`` is what a call adds (0: nothing is owed, checking is legal);
    ``min_raise_to``/``max_raise_to`` bound a raise *to* a street total and are ``None``
    when raising is not allowed. ``available`` and ``cap_gap`` are the cap graphic: each
    seat's chips still available this deal, and the cap minus the deal total of the last
    bettor or raiser.
    """

    seat: int
    seat_count: int
    button: int
    small_blind_seat: int
    big_blind_seat: int
    small_blind: int
    big_blind: int
    betting: Betting
    cap: int | None
    hole_cards: tuple[Card, Card] = field(metadata=HOLE_CARDS)
    board: tuple[Card, ...] = field(metadata=CARDS)
    street: Street = field(metadata=STREET)
    pot: int
    current_bet: int
    to_call: int
    min_raise_to: int | None
    max_raise_to: int | None
    legal_actions: tuple[ActionKind, ...]
    street_bets: tuple[int, ...]
    committed: tuple[int, ...]
    available: tuple[int, ...]
    cap_gap: int | None
    folded: tuple[bool, ...]
    absent: tuple[bool, ...]
    history: tuple[ActionRecord, ...] = field(metadata=HISTORY)
    context: SessionContext = field(default_factory=SessionContext)

    # -- conveniences ----------------------------------------------------------------

    @property
    def hole_cards_text(self) -> str:
        return format_cards(self.hole_cards)

    @property
    def board_text(self) -> str:
        return format_cards(self.board)

    @property
    def position(self) -> int:
        """Seats after the button: 1 is the first to act after the flop, 0 the button."""
        return (self.seat - self.button) % self.seat_count

    @property
    def players_in_hand(self) -> int:
        return self.folded.count(False)

    def can(self, kind: ActionKind) -> bool:
        return kind in self.legal_actions

    def legal(self) -> LegalActions:
        """The legal actions as the engine's :class:`~dp_arena.engine.LegalActions`."""
        return LegalActions(
            self.seat,
            ActionKind.FOLD in self.legal_actions,
            ActionKind.CHECK in self.legal_actions,
            self.to_call,
            self.min_raise_to,
            self.max_raise_to,
        )

    # -- JSON: the generic walk of dp_arena.records, by the fields' codecs above -------


@dataclass(frozen=True, slots=True)
class DealStart(JsonRecord):
    """Told to every seated bot when a deal begins."""

    seat: int
    seat_count: int
    button: int
    hole_cards: tuple[Card, Card] = field(metadata=HOLE_CARDS)
    context: SessionContext


@dataclass(frozen=True, slots=True)
class DealEnd(JsonRecord):
    """Told to every seated bot when a deal ends: the nets, the board that was dealt,
    the hole cards shown at the showdown (``None`` for a seat that did not show), and
    the whole action history."""

    seat: int
    net: int
    nets: tuple[int, ...]
    board: tuple[Card, ...] = field(metadata=CARDS)
    shown_cards: tuple[tuple[Card, Card] | None, ...] = field(metadata=SHOWN_CARDS)
    history: tuple[ActionRecord, ...] = field(metadata=HISTORY)
    context: SessionContext
