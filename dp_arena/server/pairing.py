"""Which bots the ladder seats next: every bot in its turn, with the bots its match
tells the ranking most about.

The table's first bot is the one that has waited longest: a bot never seated comes first
(new versions play at once), then the one whose latest match is the oldest, so every bot
in the ladder keeps playing however sure its rank is. Its opponents are then added one
at a time, each the bot whose pairs with those seated are worth most (below): bots of
close ratings, and new bots, come first.

For a pair (a, b), a match of ``deals`` deals adds that many blocks to each; with ``n``
blocks and a spread of block scores ``s``, a bot's mean has variance ``s²/n``, so the
match takes ``s²(1/n − 1/(n + deals))`` off each one's variance: the **gain**. What it
is worth depends on how unsure their order is: ``u = 1 − |2p − 1|``, with ``p`` the
bootstrap's chance that a beats b (1 for a coin flip, 0 when one is surely ahead). The
pair with the largest ``u × gain`` is played; a bot with fewer than two blocks has an
unknown spread and an infinite gain, so new versions play first. Pairs that have met
less often come first among equals, then the names, so the choice is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PairStats", "choose_table", "pair_value"]

# A spread for bots with too few blocks to measure one: large (one big blind a deal,
# squared, in mbb), so that they are measured first.
UNKNOWN_VARIANCE = 1000.0**2


@dataclass(frozen=True, slots=True)
class PairStats:
    """A bot's blocks so far and the standard deviation of its block scores."""

    blocks: int
    deviation: float | None


def _gain(stats: PairStats | None, deals: int, fallback: float) -> float:
    if stats is None or stats.blocks < 2:
        return math.inf
    variance = stats.deviation**2 if stats.deviation is not None else fallback
    return variance * (1 / stats.blocks - 1 / (stats.blocks + deals))


def pair_value(
    first: PairStats | None,
    second: PairStats | None,
    p_first_beats: float | None,
    *,
    deals: int,
    fallback_variance: float = UNKNOWN_VARIANCE,
) -> float:
    """``u × gain`` of one pair (infinite when either bot is new)."""
    gain = _gain(first, deals, fallback_variance) + _gain(second, deals, fallback_variance)
    uncertainty = 1.0 if p_first_beats is None else 1.0 - abs(2.0 * p_first_beats - 1.0)
    if math.isinf(gain):
        return math.inf
    return uncertainty * gain


def choose_table(
    entries: Sequence[str],
    stats: Mapping[str, PairStats],
    p_beats: Callable[[str, str], float | None],
    meetings: Mapping[frozenset[str], int],
    last_played: Mapping[str, int],
    *,
    size: int,
    deals: int,
) -> tuple[str, ...] | None:
    """The ``size`` bots of the next match among ``entries`` (``None`` with fewer):
    ``last_played[bot]`` orders their latest matches (absent: never played), ``meetings``
    counts the matches each pair has met in."""
    if size < 2 or len(entries) < size:
        return None
    anchor = min(entries, key=lambda entry: (last_played.get(entry, -1), entry))
    table = [anchor]
    while len(table) < size:

        def worth(candidate: str) -> tuple[float, int, str]:
            value = sum(
                pair_value(
                    stats.get(candidate),
                    stats.get(seated),
                    p_beats(candidate, seated),
                    deals=deals,
                )
                for seated in table
            )
            met = sum(meetings.get(frozenset((candidate, seated)), 0) for seated in table)
            return (-value, met, candidate)

        table.append(min((entry for entry in entries if entry not in table), key=worth))
    return tuple(table)
