"""The duplicate deck: a pure function of (event seed, section, session, deal).

Every table of a section that plays deal *d* of a session gets the same deck, and the
same deck gives every seat the same cards at every table: that is the duplicate
guarantee. Nothing here depends on the process (no ``hash()``, no global ``random``).

The deck is a Fisher–Yates shuffle of ``range(52)`` (cards as in
:mod:`dp_arena.engine.cards`) driven by SHAKE-256 of the text
``"dp-arena/deck/v1:{event_seed}:{section}:{session}:{deal}"``. The stream is read as
little-endian 64-bit words; for position ``i`` from 51 down to 1 a word ``w`` is
accepted when ``w < 2**64 - 2**64 % (i + 1)`` (rejection keeps the draw unbiased) and
the card at ``i`` is swapped with the card at ``w % (i + 1)``. Any language with
SHAKE-256 can reproduce a deck from this paragraph.

Dealing (docs/rules.md): one card at a time starting at the seat left of the button, two
rounds; then burn and three flop cards, burn and the turn, burn and the river.

>>> deck = deck_for(event_seed=7, section=0, session=0, deal=0)
>>> sorted(deck) == list(range(52))
True
>>> hole_cards, board = deal_cards(deck, seat_count=2, button=0)
>>> hole_cards[1] == (deck[0], deck[2]) and board[0] == deck[5]
True
"""

from __future__ import annotations

import functools
import hashlib
import operator
import struct
from collections.abc import Iterator

from dp_arena.engine.cards import Card

__all__ = ["DECK_VERSION", "button_for_deal", "deal_cards", "deck_for"]

DECK_VERSION = 1
_WORDS = 64  # words read at once; 51 are needed unless a draw is rejected
_TWO_64 = 1 << 64
# _ACCEPT_BELOW[bound]: the largest multiple of ``bound`` not above 2**64; a word at or
# above it is rejected, so that ``word % bound`` is uniform.
_ACCEPT_BELOW = (0, *(_TWO_64 - _TWO_64 % bound for bound in range(1, 53)))
# Every bound is at most 52, so a word below 2**64 - 64 is accepted at every position.
_NEVER_REJECTED = _TWO_64 - 64
_POSITIONS = tuple(range(51, 0, -1))  # the positions swapped, in order
_BOUNDS = tuple(range(52, 1, -1))  # and the number of cards each draws among


def deck_for(event_seed: int, section: int, session: int, deal: int) -> tuple[Card, ...]:
    """The 52 cards of one deal, top of the deck first."""
    for name, value in (
        ("event_seed", event_seed),
        ("section", section),
        ("session", session),
        ("deal", deal),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"deck_for: {name} must be a non-negative integer, not {value!r}")
    return _deck(int(event_seed), int(section), int(session), int(deal))


# Every table of a section deals the same decks, and an event's histories deal them again:
# a process keeps the latest ones (a deck is a pure function of its four numbers).
@functools.lru_cache(maxsize=1024)
def _deck(event_seed: int, section: int, session: int, deal: int) -> tuple[Card, ...]:
    material = f"dp-arena/deck/v{DECK_VERSION}:{event_seed}:{section}:{session}:{deal}".encode()
    first = struct.unpack("<51Q", hashlib.shake_256(material).digest(8 * 51))
    if max(first) < _NEVER_REJECTED:
        # The usual case (all but about two decks in 10**16): the first 51 words are all
        # accepted, so each is used once, in order, without the stream's generator.
        cards = list(range(52))
        for position, other in zip(_POSITIONS, map(operator.mod, first, _BOUNDS), strict=True):
            cards[position], cards[other] = cards[other], cards[position]
        return tuple(cards)
    return _shuffle(_words(material))


def _shuffle(words: Iterator[int]) -> tuple[Card, ...]:
    """The Fisher–Yates shuffle of the module docstring over the stream ``words``."""
    cards = list(range(52))
    # Position bound - 1, from 51 down to 1, swaps with a uniform draw from 0..bound - 1.
    for bound, word in zip(range(52, 1, -1), words, strict=False):  # the stream has no end
        while word >= _ACCEPT_BELOW[bound]:
            word = next(words)
        position, other = bound - 1, word % bound
        cards[position], cards[other] = cards[other], cards[position]
    return tuple(cards)


def _words(material: bytes) -> Iterator[int]:
    """The SHAKE-256 stream of ``material`` as little-endian 64-bit words, without end."""
    shake = hashlib.shake_256(material)
    count = _WORDS
    yield from struct.unpack(f"<{count}Q", shake.digest(8 * count))
    while True:  # astronomically rare: a draw was rejected; read on in the same stream
        count *= 2
        yield from struct.unpack(f"<{count}Q", shake.digest(8 * count))[count // 2 :]


def button_for_deal(deal: int, seat_count: int) -> int:
    """The button starts at seat 0 on deal 0 of a session and moves one seat left a deal."""
    return deal % seat_count


def deal_cards(
    deck: tuple[Card, ...], seat_count: int, button: int
) -> tuple[tuple[tuple[Card, Card], ...], tuple[Card, ...]]:
    """Hole cards for each seat (seat order) and the five board cards, dealt from ``deck``."""
    if not 2 <= seat_count <= 10:
        raise ValueError(f"a table has 2 to 10 seats, not {seat_count}")
    first = [0] * seat_count
    second = [0] * seat_count
    for offset in range(seat_count):
        seat = (button + 1 + offset) % seat_count
        first[seat] = deck[offset]
        second[seat] = deck[seat_count + offset]
    top = 2 * seat_count  # burn, flop x3, burn, turn, burn, river
    board = (deck[top + 1], deck[top + 2], deck[top + 3], deck[top + 5], deck[top + 7])
    return tuple(zip(first, second, strict=True)), board
