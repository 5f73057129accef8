"""Parsing a PHH hand's ``actions``: each action string into a :class:`Step`, and the
cards of the whole hand, scanned before it is replayed (:class:`HandCards`).

The action grammar is PHH's: ``d dh pK cards``, ``d db cards``, ``pK f``, ``pK cc``,
``pK cbr N``, ``pK sm [cards|-]``; anything after ``#`` is a commentary, and an empty or
comment-only action is a no-op. A card is two characters, ``??`` when unknown.

>>> [step.verb for step in parse_actions(["d dh p1 As??", "p2 cbr 60 # open", "", "p1 sm"], "x", 2)]
['dh', 'cbr', '', 'muck']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dp_arena.engine.cards import Card, format_card, parse_card
from dp_arena.errors import HandHistoryError

__all__ = ["MAX_AMOUNT", "HandCards", "Step", "parse_actions", "whole_amount"]

# The largest amount of chips a history may name: far beyond any game (other tools keep
# chips in 64-bit integers), and it keeps a hostile 1e999999999 from becoming an integer
# of a billion digits.
MAX_AMOUNT = 10**18


def whole_amount(value: Decimal) -> int | None:
    """``value`` as a whole number of chips of at most :data:`MAX_AMOUNT` (in size), or
    ``None`` when it is not one."""
    if not value.is_finite() or (value and value.adjusted() > 18):
        return None
    if value != value.to_integral_value() or abs(value) > MAX_AMOUNT:
        return None
    return int(value)


@dataclass(frozen=True, slots=True)
class Step:
    """One parsed entry of ``actions``: ``verb`` is ``dh``/``db`` for the dealer;
    ``f``/``cc``/``cbr``, ``sm`` (show) or ``muck`` for a player; ``""`` for a no-op."""

    index: int
    text: str
    player: int | None  # from 0 (PHH's p1 is 0)
    verb: str
    cards: tuple[Card | None, ...] | None = None  # None for "pK sm -": shows the cards dealt
    amount: int | None = None

    def error(self, message: str, where: str) -> HandHistoryError:
        return HandHistoryError(message, file=where, action_index=self.index, action_text=self.text)


def parse_actions(actions: Any, where: str, player_count: int) -> list[Step]:
    """The steps of a hand's ``actions`` array; ``where`` names the file in errors."""
    if not isinstance(actions, list):
        raise HandHistoryError(f"actions must be an array of strings, not {actions!r}", file=where)
    steps = []
    for index, text in enumerate(actions):
        if not isinstance(text, str):
            raise HandHistoryError(
                f"an action must be a string, not {text!r}",
                file=where,
                action_index=index,
                action_text=str(text),
            )
        steps.append(_parse_step(index, text, where, player_count))
    return steps


def _parse_step(index: int, text: str, where: str, player_count: int) -> Step:
    words = text.split("#", 1)[0].split()  # a '#' starts a commentary
    no_op = Step(index, text, None, "")
    if not words:
        return no_op

    def fail(message: str) -> HandHistoryError:
        return no_op.error(message, where)

    def player(word: str) -> int:
        number = word[1:]
        if word[:1] != "p" or not number.isdigit() or not 1 <= int(number) <= player_count:
            raise fail(f"{word!r} is not a player (p1..p{player_count})")
        return int(number) - 1

    def cards(word: str) -> tuple[Card | None, ...]:
        if len(word) % 2:
            raise fail(f"{word!r} is not a list of cards")
        parsed: list[Card | None] = []
        for start in range(0, len(word), 2):
            token = word[start : start + 2]
            if "?" in token:
                parsed.append(None)  # an unknown card
                continue
            try:
                parsed.append(parse_card(token))
            except ValueError as error:
                raise fail(str(error)) from None
        return tuple(parsed)

    head, arguments = words[0], words[1:]
    if head == "d":
        if len(arguments) == 3 and arguments[0] == "dh":
            return Step(index, text, player(arguments[1]), "dh", cards(arguments[2]))
        if len(arguments) == 2 and arguments[0] == "db":
            return Step(index, text, None, "db", cards(arguments[1]))
        raise fail("not a dealer action ('d dh pK cards' or 'd db cards')")
    seat = player(head)
    verb = arguments[0] if arguments else ""
    if verb in ("f", "cc") and len(arguments) == 1:
        return Step(index, text, seat, verb)
    if verb == "cbr" and len(arguments) == 2:
        amount = arguments[1]
        try:
            value = Decimal(amount)
        except ArithmeticError:
            raise fail(f"{amount[:40]!r} is not an amount") from None
        chips = whole_amount(value)
        if chips is None:
            raise fail(f"{amount[:40]!r} is not a whole number of chips up to 10**18")
        return Step(index, text, seat, "cbr", amount=chips)
    if verb == "sm" and len(arguments) <= 2:
        if len(arguments) == 1:
            return Step(index, text, seat, "muck")
        return Step(index, text, seat, "sm", None if arguments[1] == "-" else cards(arguments[1]))
    if verb in ("sd", "pb"):
        raise fail(f"'{verb}' (draw or stud) is not an action of Texas hold'em")
    raise fail("not an action: expected 'pK f', 'pK cc', 'pK cbr N' or 'pK sm [cards]'")


@dataclass(frozen=True, slots=True)
class HandCards:
    """The cards of a hand, known before it is replayed: the engine takes the hole cards
    and the whole board up front. Unknown cards get stand-ins (unused cards) that only
    matter if a showdown needs them, which the replay refuses."""

    hole_cards: tuple[tuple[Card, Card], ...]
    board: tuple[Card, ...]
    hole_known: tuple[bool, ...]
    board_known: int  # how many board cards, from the first, are known

    @classmethod
    def scan(cls, steps: Sequence[Step], where: str, player_count: int) -> HandCards:
        dealt: list[list[Card | None]] = [[] for _ in range(player_count)]
        shown: list[tuple[Card | None, ...] | None] = [None] * player_count
        board: list[Card | None] = []
        seen: dict[Card, Step] = {}

        def see(card: Card | None, step: Step) -> None:
            if card is None:
                return
            first = seen.setdefault(card, step)
            if first is not step and not (step.verb == "sm" and first.player == step.player):
                raise step.error(
                    f"{format_card(card)} is dealt twice"
                    f" (first in action {first.index} {first.text!r})",
                    where,
                )

        for step in steps:
            if step.verb == "dh":
                assert step.player is not None and step.cards is not None
                dealt[step.player].extend(step.cards)
                if len(dealt[step.player]) > 2:
                    raise step.error(f"p{step.player + 1} is dealt more than two hole cards", where)
                for card in step.cards:
                    see(card, step)
            elif step.verb == "db":
                assert step.cards is not None
                board.extend(step.cards)
                if len(board) > 5:
                    raise step.error("more than five board cards are dealt", where)
                for card in step.cards:
                    see(card, step)
            elif step.verb == "sm" and step.cards is not None:
                assert step.player is not None
                own = dealt[step.player]
                if len(step.cards) != 2:
                    raise step.error("a player shows two hole cards", where)
                if (
                    None not in step.cards
                    and None not in own
                    and len(own) == 2
                    and set(own) != set(step.cards)
                ):
                    raise step.error(f"p{step.player + 1} shows cards it was not dealt", where)
                for card in step.cards:
                    see(card, step)
                shown[step.player] = step.cards
        holes: list[tuple[Card | None, ...]] = []
        for player in range(player_count):
            candidate = shown[player]
            holes.append(
                candidate
                if candidate is not None and None not in candidate
                else tuple(dealt[player])
            )
        used = set(seen)
        spare = (card for card in range(52) if card not in used)
        hole_known = tuple(len(hole) == 2 and None not in hole for hole in holes)
        hole_cards: list[tuple[Card, Card]] = []
        for hole, known in zip(holes, hole_known, strict=True):
            first, second = hole if known else (None, None)
            hole_cards.append(
                (first, second)
                if first is not None and second is not None
                else (next(spare), next(spare))
            )
        board_known = next(
            (position for position, card in enumerate(board) if card is None), len(board)
        )
        full_board = tuple(card if card is not None else next(spare) for card in board)
        full_board += tuple(next(spare) for _ in range(5 - len(full_board)))
        return cls(tuple(hole_cards), full_board, hole_known, board_known)
