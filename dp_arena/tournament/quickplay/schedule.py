"""Quick Play's continuous play (docs/formats.md) as a pure schedule: who joins when, which
sets are played in which round, at how many tables, who sits where, and who leaves.

The schedule is a function of the config and the seed alone, so it is the plan and can
be printed before any card is dealt:

- Entrants join the queue in config order: ``arrivals[0]`` of them before round 1,
  ``arrivals[k]`` while round ``k`` is played (so they can sit down in round ``k + 1``);
  by default everyone is there before round 1.
- In each round every running **contest** (a group of mirrored tables playing the same
  deals) plays one set. Before the round, each contest's continuing players are seated
  first and the queue fills the contest up to 5 tables; a contest that cannot fill 2
  tables dissolves and its players return to the front of the queue. Then, while the
  queue holds 2 tables of players, a new contest opens with as many whole tables as the
  queue fills, up to 5. Players who fit no whole table wait for the next round.
- After each set a player leaves once it has played its number of sets (``sets``, or
  its entry in ``sets_by_player``) or, with ``leave_percent``, when a seeded draw says
  so; otherwise it plays again in the same contest.
- Play ends when no contest can run and no one is still to arrive, or after
  ``max_rounds`` rounds.

Seats are drawn with :func:`~dp_arena.tournament.seating.seat_section`, using the draw
``("quickplay-seating", set)``; the leave draw of a player after a set is
``Draw(seed, "quickplay-leave", set, player).below(10000) < leave basis points``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dp_arena.tournament.draws import Draw
from dp_arena.tournament.money import BASIS_POINTS
from dp_arena.tournament.seating import seat_section

__all__ = ["MAX_TABLES", "MIN_TABLES", "PlannedSet", "QuickPlaySchedule", "schedule_sets"]

MAX_TABLES = 5  # mirrored tables of one contest (docs/formats.md)
MIN_TABLES = 2  # a set starts once two tables can be filled


@dataclass(frozen=True, slots=True)
class PlannedSet:
    """One set: its number (1, 2, ... in order of play), the round and the contest it
    belongs to, and the seating (``seating[t][s]`` is the player at seat ``s`` of table
    ``t + 1``)."""

    set_number: int
    round: int
    contest: int
    seats: int
    deals: int
    seating: tuple[tuple[str, ...], ...]

    @property
    def tables(self) -> int:
        return len(self.seating)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for row in self.seating for player in row)


@dataclass(frozen=True, slots=True)
class QuickPlaySchedule:
    """Every set in order, and how many sets each entrant plays (0: it never sat down)."""

    sets: tuple[PlannedSet, ...]
    sets_played: tuple[tuple[str, int], ...]
    rounds: int

    def last_set_of(self) -> dict[str, int]:
        """Each player who plays, and the number of its last set."""
        last: dict[str, int] = {}
        for planned in self.sets:
            for player in planned.players:
                last[player] = planned.set_number
        return last


def schedule_sets(
    players: Sequence[str],
    *,
    seats: int,
    deals: int,
    seed: int,
    sets: int,
    sets_by_player: Mapping[str, int],
    leave_basis_points: int,
    arrivals: Sequence[int] | None,
    max_rounds: int,
) -> QuickPlaySchedule:
    """The schedule of a Quick Play event of ``players`` (in config order)."""
    arrivals = tuple(arrivals) if arrivals is not None else (len(players),)
    if sum(arrivals) != len(players):
        raise ValueError(
            f"schedule_sets: arrivals {list(arrivals)} add up to {sum(arrivals)},"
            f" not the {len(players)} entrants"
        )
    order = {player: index for index, player in enumerate(players)}
    limit = {player: sets_by_player.get(player, sets) for player in players}
    pending = list(players)
    queue: list[str] = []
    contests: list[tuple[int, list[str]]] = []
    played: Counter[str] = Counter()
    planned: list[PlannedSet] = []
    next_contest = 1
    rounds = 0
    for round_number in range(1, max_rounds + 1):
        if round_number <= len(arrivals):
            count = arrivals[round_number - 1]
            queue += pending[:count]
            del pending[:count]
        running: list[tuple[int, list[str]]] = []
        for contest, continuing in contests:
            tables = min(MAX_TABLES, (len(continuing) + len(queue)) // seats)
            if tables < MIN_TABLES:
                queue[:0] = continuing
                continue
            seated = continuing[: tables * seats]
            needed = tables * seats - len(seated)
            seated += queue[:needed]
            del queue[:needed]
            queue[:0] = continuing[tables * seats :]
            running.append((contest, seated))
        while len(queue) >= MIN_TABLES * seats:
            tables = min(MAX_TABLES, len(queue) // seats)
            running.append((next_contest, queue[: tables * seats]))
            del queue[: tables * seats]
            next_contest += 1
        if not running:
            if round_number >= len(arrivals):
                break
            contests = []
            continue
        rounds = round_number
        contests = []
        for contest, members in running:
            set_number = len(planned) + 1
            seating = seat_section(
                sorted(members, key=order.__getitem__),
                tables=len(members) // seats,
                seats=seats,
                absent=0,
                draw=Draw(seed, "quickplay-seating", set_number),
            )
            planned.append(
                PlannedSet(
                    set_number=set_number,
                    round=round_number,
                    contest=contest,
                    seats=seats,
                    deals=deals,
                    seating=tuple(tuple(player or "" for player in row) for row in seating),
                )
            )
            continuing = []
            for player in sorted(members, key=order.__getitem__):
                played[player] += 1
                leaves = played[player] >= limit[player] or (
                    leave_basis_points > 0
                    and Draw(seed, "quickplay-leave", set_number, player).below(BASIS_POINTS)
                    < leave_basis_points
                )
                if not leaves:
                    continuing.append(player)
            contests.append((contest, continuing))
    return QuickPlaySchedule(
        sets=tuple(planned),
        sets_played=tuple((player, played[player]) for player in players),
        rounds=rounds,
    )
