"""Cards as small integers, and their text form.

A card is an ``int`` from 0 to 51: ``rank * 4 + suit``, where rank 0 is a deuce and
rank 12 an ace, and suits are clubs, diamonds, hearts, spades (0..3). The text form is
the usual two characters, rank then suit: ``"As"``, ``"Td"``, ``"2c"``.

>>> parse_card("As")
51
>>> format_cards(parse_cards("AhKh2c"))
'AhKh2c'
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "card_rank",
    "card_suit",
    "format_card",
    "format_cards",
    "make_card",
    "parse_card",
    "parse_cards",
]

Card = int

RANKS = "23456789TJQKA"
SUITS = "cdhs"

_CARD_BY_TEXT = {
    rank + suit: r * 4 + s for r, rank in enumerate(RANKS) for s, suit in enumerate(SUITS)
}
_TEXT_BY_CARD = {card: text for text, card in _CARD_BY_TEXT.items()}


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c, d, h, s)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise ValueError(f"no card has rank {rank} and suit {suit}")
    return rank * 4 + suit


def card_rank(card: Card) -> int:
    return card >> 2


def card_suit(card: Card) -> int:
    return card & 3


def parse_card(text: str) -> Card:
    """Parse one card such as ``"As"``; ranks and suits are case-insensitive (``"aS"``)."""
    key = text[:1].upper() + text[1:].lower()
    try:
        return _CARD_BY_TEXT[key]
    except KeyError:
        raise ValueError(
            f"not a card: {text!r} (expected a rank of {RANKS} and a suit of {SUITS})"
        ) from None


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse concatenated cards such as ``"AhKh2c"`` (spaces are ignored)."""
    compact = text.replace(" ", "")
    if len(compact) % 2:
        raise ValueError(f"not a list of cards: {text!r}")
    return tuple(parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2))


def format_card(card: Card) -> str:
    try:
        return _TEXT_BY_CARD[card]
    except KeyError:
        raise ValueError(f"not a card: {card!r}") from None


def format_cards(cards: Iterable[Card]) -> str:
    # By the table's own look-up: every deal's record and hand history writes its cards.
    try:
        return "".join(map(_TEXT_BY_CARD.__getitem__, cards))
    except KeyError as error:
        raise ValueError(f"not a card: {error.args[0]!r}") from None
