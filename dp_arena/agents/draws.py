"""Counter-based random draws for bots: the ``k``-th number of a deal is a pure function of
a 64-bit key and ``k``, so a batch of tables can draw what every bot would draw, for all
of them at once, with array arithmetic (the vector environment does, in
:mod:`dp_arena.envs.batch_players`), where a seeded generator must be started and stepped
one bot at a time.

A session's key is the first 8 bytes of BLAKE2b of a text (the bot's seed and where the
session sits: event, section, session); a deal's key, for one seat, mixes the session
key with the deal and the seat; draw ``k`` mixes the deal key with ``k``. The mixing is
SplitMix64's finaliser over the key plus ``n`` times its odd "golden" constant, modulo
2**64. A uniform choice among ``n`` things takes the top 53 bits of a draw as a fraction
in [0, 1) and multiplies it by ``n`` in floating point (the same IEEE operations in
Python and in NumPy; the bias is below 2**-40 for any ``n`` a table needs).

>>> session = session_key("0:match:0:0")
>>> deal = deal_key(session, deal=3, seat=1)
>>> [below(draw(deal, k), 6) for k in range(8)] == [below(draw(deal, k), 6) for k in range(8)]
True
>>> 0 <= below(draw(deal, 0), 1000) < 1000
True
"""

from __future__ import annotations

import hashlib

__all__ = ["GAMMA", "MASK", "below", "deal_key", "draw", "mix", "session_key"]

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # 2**64 over the golden ratio, odd (SplitMix64's increment)
_MIX_1 = 0xBF58476D1CE4E5B9
_MIX_2 = 0x94D049BB133111EB
_UNIT = 2.0**-53
_SEAT_BITS = 4  # seats 0..15: a table has at most 10


def mix(value: int) -> int:
    """SplitMix64's finaliser: a bijection of 64-bit integers that scatters every bit."""
    value = ((value ^ (value >> 30)) * _MIX_1) & MASK
    value = ((value ^ (value >> 27)) * _MIX_2) & MASK
    return value ^ (value >> 31)


def session_key(text: str) -> int:
    """The key of a session named by ``text`` (a bot's seed and the session's place)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def deal_key(session: int, *, deal: int, seat: int) -> int:
    """The key of ``seat``'s draws in ``deal`` of the session keyed ``session``."""
    return mix((session + (((deal << _SEAT_BITS) | seat) + 1) * GAMMA) & MASK)


def draw(key: int, counter: int) -> int:
    """Draw number ``counter`` (0, 1, ...) of ``key``: a uniform 64-bit integer."""
    return mix((key + (counter + 1) * GAMMA) & MASK)


def below(value: int, count: int) -> int:
    """A uniform integer in ``[0, count)`` from the 64-bit draw ``value``."""
    return int((value >> 11) * _UNIT * count)
