"""Ranking within a seat position (docs/formats.md) and the carryover it earns (docs/formats.md).

Players in the same section and seat number are ranked, highest first, by:

1. total chips (starting stack + carryover + session net);
2. session net;
3. the cumulative session net at the end of the previous round, then the round before
   that, and so on back to the first round;
4. a seeded draw.

Absent players always rank last. Money ties are *not* broken by this order: see
:func:`money_groups`.

>>> a = SeatScore("a", total_chips=9000, session_net=0, round_nets=(100, 0), draw=1)
>>> b = SeatScore("b", total_chips=9000, session_net=0, round_nets=(-40, 0), draw=0)
>>> [(entry.player, entry.decided_by) for entry in rank_seat_position([b, a])]
[('a', None), ('b', 'round 1')]
>>> carryover_steps(5, 800)
(3200, 2400, 1600, 800, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RankedScore", "SeatScore", "carryover_steps", "money_groups", "rank_seat_position"]


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One player's result in its seat position for one session.

    ``round_nets`` holds the cumulative session net at the end of each round (the last
    equals ``session_net``); ``draw`` is the player's place in the seeded draw of its seat
    position (lower wins). ``absent`` marks a placeholder seat.
    """

    player: str
    total_chips: int
    session_net: int
    round_nets: tuple[int, ...]
    draw: int
    absent: bool = False

    def key(self) -> tuple[int, ...]:
        """Sort key, smaller first: absent last, then the rules' tie-breakers
        (docs/formats.md) in order."""
        earlier_rounds = tuple(-net for net in reversed(self.round_nets[:-1]))
        return (int(self.absent), -self.total_chips, -self.session_net, *earlier_rounds, self.draw)


@dataclass(frozen=True, slots=True)
class RankedScore:
    """A :class:`SeatScore` with its rank (1 = best) and what separated it from the player
    ranked just above: ``"total chips"``, ``"session net"``, ``"round N"`` (cumulative net
    at the end of round N), ``"draw"`` or ``"absent"``; ``None`` for the first."""

    rank: int
    score: SeatScore
    decided_by: str | None

    @property
    def player(self) -> str:
        return self.score.player


def _criterion(above: SeatScore, below: SeatScore) -> str:
    if above.absent != below.absent:
        return "absent"
    if above.total_chips != below.total_chips:
        return "total chips"
    if above.session_net != below.session_net:
        return "session net"
    for round_index in range(len(above.round_nets) - 2, -1, -1):
        if above.round_nets[round_index] != below.round_nets[round_index]:
            return f"round {round_index + 1}"
    return "draw"


def rank_seat_position(scores: Sequence[SeatScore]) -> list[RankedScore]:
    """The players of one seat position, best first, every tie broken."""
    rounds = {len(score.round_nets) for score in scores if not score.absent}
    if len(rounds) > 1:
        raise ValueError(
            f"rank_seat_position: players played different numbers of rounds: {sorted(rounds)}"
        )
    ordered = sorted(scores, key=SeatScore.key)
    draws = [score.draw for score in ordered if not score.absent]
    if len(set(draws)) != len(draws):
        raise ValueError("rank_seat_position: draw positions must be distinct")
    return [
        RankedScore(rank, score, None if rank == 1 else _criterion(ordered[rank - 2], score))
        for rank, score in enumerate(ordered, start=1)
    ]


def money_groups(ranked: Sequence[RankedScore]) -> list[list[RankedScore]]:
    """The ranked players grouped by total chips: a tie that matters for money is not
    broken (docs/formats.md), so each group shares the money of the places it occupies. Absent
    players are left out: they never win."""
    groups: list[list[RankedScore]] = []
    for entry in ranked:
        if entry.score.absent:
            continue
        if groups and groups[-1][0].score.total_chips == entry.score.total_chips:
            groups[-1].append(entry)
        else:
            groups.append([entry])
    return groups


def carryover_steps(players: int, step: int) -> tuple[int, ...]:
    """Carryover by rank in a seat position of ``players``: the last gets 0, each higher
    place one ``step`` more (docs/formats.md)."""
    return tuple((players - 1 - index) * step for index in range(players))
