"""A league for self-play: a pool of opponents (built-in bots, the learner's frozen
snapshots, any policy over batched observations), each with the learner's record
against it, sampled by prioritised fictitious self-play (PFSP, as in AlphaStar's league):
an opponent the learner beats less often is drawn more often.

The learner's **win rate** against a member is its share of the sessions it won (a
session won counts 1, drawn ½, lost 0), smoothed by a uniform prior (one win and one
loss assumed before any session): ``(wins + 1) / (sessions + 2)``. A member is drawn
with probability proportional to a weighting ``f`` of that rate ``p``:

| weighting | f(p) | draws most |
|---|---|---|
| ``"hard"`` (default) | (1 − p)² | the members the learner loses to |
| ``"linear"`` | 1 − p | the same, less sharply |
| ``"variance"`` | p (1 − p) | the members it is even with |
| ``"uniform"`` | 1 | every member alike (fictitious self-play) |

Snapshots are frozen copies (the ``copy()`` of a :class:`~dp_arena.learn.LinearPolicy`,
else a deep copy): training the learner on never changes them. Drawing is seeded, so a
seeded training run draws the same opponents.

>>> league = League(weighting="hard", seed=0)
>>> league.add("tag")
'tag'
>>> league.add("random")
'random'
>>> league.record("random", [1.0, 1.0, 1.0, 0.5])  # the learner beats random
>>> round(league.win_rate("random"), 3), round(league.win_rate("tag"), 3)
(0.75, 0.5)
>>> sorted(league.probabilities().items())  # tag, never beaten yet, comes up more
[('random', 0.2), ('tag', 0.8)]
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dp_arena.errors import ConfigError

__all__ = ["WEIGHTINGS", "League", "Member"]

WEIGHTINGS = ("hard", "linear", "variance", "uniform")


@dataclass(slots=True)
class Member:
    """One opponent of the league: an agent spec or a policy, and the learner's record."""

    name: str
    opponent: Any
    snapshot: bool = False
    sessions: float = 0.0
    wins: float = 0.0

    @property
    def win_rate(self) -> float:
        return (self.wins + 1.0) / (self.sessions + 2.0)


class League:
    """The pool; see the module docstring. ``capacity`` bounds the snapshots kept (the
    oldest goes first; built-ins and other members added with :meth:`add` stay)."""

    def __init__(
        self, *, weighting: str = "hard", seed: int = 0, capacity: int | None = None
    ) -> None:
        if weighting not in WEIGHTINGS:
            raise ConfigError(
                f"weighting must be one of {list(WEIGHTINGS)}, not {weighting!r}",
                field="weighting",
            )
        if capacity is not None and capacity < 1:
            raise ConfigError(f"capacity must be at least 1, not {capacity}", field="capacity")
        self.weighting = weighting
        self.capacity = capacity
        self.members: dict[str, Member] = {}
        self.rng = np.random.default_rng(seed)

    def add(self, opponent: Any, name: str | None = None) -> str:
        """Add a member that stays (an agent spec, or a policy); its name."""
        name = name or (opponent if isinstance(opponent, str) else f"member-{len(self.members)}")
        if name in self.members:
            raise ConfigError(f"the league has a member named {name!r} already", field="name")
        self.members[name] = Member(name, opponent)
        return name

    def add_snapshot(self, policy: Any, name: str | None = None) -> str:
        """Add a frozen copy of ``policy`` (the learner as it is now); its name."""
        frozen = policy.copy() if hasattr(policy, "copy") else copy.deepcopy(policy)
        count = sum(member.snapshot for member in self.members.values())
        name = name or f"snapshot-{count}"
        if name in self.members:
            raise ConfigError(f"the league has a member named {name!r} already", field="name")
        self.members[name] = Member(name, frozen, snapshot=True)
        snapshots = [member.name for member in self.members.values() if member.snapshot]
        if self.capacity is not None and len(snapshots) > self.capacity:
            del self.members[snapshots[0]]
        return name

    def win_rate(self, name: str) -> float:
        return self.members[name].win_rate

    def probabilities(self, *, snapshots: bool = True) -> dict[str, float]:
        """Each member's chance to be drawn now (with ``snapshots`` false, among the
        members that are not snapshots)."""
        members = [m for m in self.members.values() if snapshots or not m.snapshot]
        if not members:
            return {}
        rates = np.array([member.win_rate for member in members])
        if self.weighting == "hard":
            weights = (1.0 - rates) ** 2
        elif self.weighting == "linear":
            weights = 1.0 - rates
        elif self.weighting == "variance":
            weights = rates * (1.0 - rates)
        else:
            weights = np.ones_like(rates)
        total = weights.sum()
        shares = weights / total if total > 0 else np.full(len(rates), 1.0 / len(rates))
        return {m.name: float(share) for m, share in zip(members, shares, strict=True)}

    def sample(self, count: int = 1, *, snapshots: bool = True) -> list[Member]:
        """``count`` members drawn (with replacement) by their probabilities (with
        ``snapshots`` false, among the members that are not snapshots)."""
        probabilities = self.probabilities(snapshots=snapshots)
        if not probabilities:
            raise ConfigError("the league has no members to draw", field="members")
        names = list(probabilities)
        drawn = self.rng.choice(len(names), size=count, p=list(probabilities.values()))
        return [self.members[names[index]] for index in drawn.tolist()]

    def record(self, name: str | Sequence[str], outcomes: Iterable[float]) -> None:
        """Record the learner's sessions against a member (or each of a line-up's
        members): each outcome is 1 for a session won, ½ drawn, 0 lost (or a share)."""
        scores = [float(outcome) for outcome in outcomes]
        for member_name in [name] if isinstance(name, str) else list(name):
            member = self.members.get(member_name)
            if member is None:  # a snapshot let go since it was drawn
                continue
            member.sessions += len(scores)
            member.wins += sum(scores)

    def table(self) -> list[tuple[str, float, float, float]]:
        """``(name, sessions, win rate, chance to be drawn)`` of every member."""
        probabilities = self.probabilities()
        return [
            (member.name, member.sessions, member.win_rate, probabilities[member.name])
            for member in self.members.values()
        ]
