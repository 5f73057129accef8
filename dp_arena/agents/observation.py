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

__all__ = ["DealEnd", "DealStart", "Observation", "SessionContext"]


@dataclass(frozen=True, slots=True)
class SessionContext:
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

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "section": self.section,
            "session": self.session,
            "table": self.table,
            "deal_number": self.deal_number,
            "deals_in_session": self.deals_in_session,
            "session_net": self.session_net,
            "session_chips": self.session_chips,
            "eliminating": self.eliminating,
            "table_session_nets": None
            if self.table_session_nets is None
            else list(self.table_session_nets),
            "seat_position_rank": self.seat_position_rank,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionContext:
        nets = data.get("table_session_nets")
        return cls(**{**data, "table_session_nets": None if nets is None else tuple(nets)})


@dataclass(frozen=True, slots=True)
class Observation:
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
    hole_cards: tuple[Card, Card]
    board: tuple[Card, ...]
    street: Street
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
    history: tuple[ActionRecord, ...]
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

    # -- JSON ------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "seat_count": self.seat_count,
            "button": self.button,
            "small_blind_seat": self.small_blind_seat,
            "big_blind_seat": self.big_blind_seat,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "betting": self.betting.value,
            "cap": self.cap,
            "hole_cards": format_cards(self.hole_cards),
            "board": format_cards(self.board),
            "street": self.street.name.lower(),
            "pot": self.pot,
            "current_bet": self.current_bet,
            "to_call": self.to_call,
            "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to,
            "legal_actions": [kind.value for kind in self.legal_actions],
            "street_bets": list(self.street_bets),
            "committed": list(self.committed),
            "available": list(self.available),
            "cap_gap": self.cap_gap,
            "folded": list(self.folded),
            "absent": list(self.absent),
            "history": [record_to_json(record) for record in self.history],
            "context": self.context.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Observation:
        hole = _hole_cards(data["hole_cards"])
        return cls(
            seat=data["seat"],
            seat_count=data["seat_count"],
            button=data["button"],
            small_blind_seat=data["small_blind_seat"],
            big_blind_seat=data["big_blind_seat"],
            small_blind=data["small_blind"],
            big_blind=data["big_blind"],
            betting=Betting(data["betting"]),
            cap=data["cap"],
            hole_cards=hole,
            board=parse_cards(data["board"]),
            street=Street[data["street"].upper()],
            pot=data["pot"],
            current_bet=data["current_bet"],
            to_call=data["to_call"],
            min_raise_to=data["min_raise_to"],
            max_raise_to=data["max_raise_to"],
            legal_actions=tuple(ActionKind(kind) for kind in data["legal_actions"]),
            street_bets=tuple(data["street_bets"]),
            committed=tuple(data["committed"]),
            available=tuple(data["available"]),
            cap_gap=data["cap_gap"],
            folded=tuple(data["folded"]),
            absent=tuple(data["absent"]),
            history=tuple(record_from_json(item) for item in data["history"]),
            context=SessionContext.from_json(data["context"]),
        )


@dataclass(frozen=True, slots=True)
class DealStart:
    """Told to every seated bot when a deal begins."""

    seat: int
    seat_count: int
    button: int
    hole_cards: tuple[Card, Card]
    context: SessionContext

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "seat_count": self.seat_count,
            "button": self.button,
            "hole_cards": format_cards(self.hole_cards),
            "context": self.context.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealStart:
        hole = _hole_cards(data["hole_cards"])
        return cls(
            seat=data["seat"],
            seat_count=data["seat_count"],
            button=data["button"],
            hole_cards=hole,
            context=SessionContext.from_json(data["context"]),
        )


@dataclass(frozen=True, slots=True)
class DealEnd:
    """Told to every seated bot when a deal ends: the nets, the board that was dealt,
    the hole cards shown at the showdown (``None`` for a seat that did not show), and
    the whole action history."""

    seat: int
    net: int
    nets: tuple[int, ...]
    board: tuple[Card, ...]
    shown_cards: tuple[tuple[Card, Card] | None, ...]
    history: tuple[ActionRecord, ...]
    context: SessionContext

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "net": self.net,
            "nets": list(self.nets),
            "board": format_cards(self.board),
            "shown_cards": [
                None if cards is None else format_cards(cards) for cards in self.shown_cards
            ],
            "history": [record_to_json(record) for record in self.history],
            "context": self.context.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealEnd:
        shown = []
        for cards in data["shown_cards"]:
            parsed = None if cards is None else parse_cards(cards)
            if parsed is not None and len(parsed) != 2:
                raise ValueError(f"shown cards must be two cards, not {cards!r}")
            shown.append(None if parsed is None else (parsed[0], parsed[1]))
        return cls(
            seat=data["seat"],
            net=data["net"],
            nets=tuple(data["nets"]),
            board=parse_cards(data["board"]),
            shown_cards=tuple(shown),
            history=tuple(record_from_json(item) for item in data["history"]),
            context=SessionContext.from_json(data["context"]),
        )


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
