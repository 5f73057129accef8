"""Final standings: places (shared by declared ties) and the players eliminated along the
way, grouped by the session that eliminated them (a later session places higher).

>>> groups_by_key(["ann", "bo", "cy", "dee"], key=len)
[['bo', 'cy'], ['ann', 'dee']]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from dp_arena.tournament.outcomes import Standing

__all__ = ["groups_by_key", "standings_from_groups"]

Item = TypeVar("Item")


def standings_from_groups(
    groups: Sequence[Sequence[str]],
    prizes: Mapping[str, int],
    eliminated_in: Mapping[str, int],
    order: Mapping[str, int],
) -> list[Standing]:
    """Standings: ``groups`` of the last session in finishing order (a group shares its
    places), then everyone in ``eliminated_in``, later sessions first, each session's
    players sharing their places (the rules do not order them)."""
    standings: list[Standing] = []
    place = 1
    for group in groups:
        for player in group:
            standings.append(Standing(player, place, place + len(group) - 1, prizes.get(player, 0)))
        place += len(group)
    for session in sorted(set(eliminated_in.values()), reverse=True):
        players = sorted(
            (p for p, s in eliminated_in.items() if s == session), key=order.__getitem__
        )
        for player in players:
            standings.append(
                Standing(player, place, place + len(players) - 1, prizes.get(player, 0), session)
            )
        place += len(players)
    return standings


def groups_by_key(items: Sequence[Item], key: Callable[[Item], Any]) -> list[list[Item]]:
    """``items`` ordered by ``key`` (smallest first), those with equal keys in one group
    (a shared place), each group in the order given."""
    ordered = sorted(items, key=key)  # stable: equal keys keep their order
    return [list(group) for _, group in itertools.groupby(ordered, key=key)]
