"""A heads-up duplicate evaluation: an agent against an opponent at two mirrored tables
with the seats swapped, scored per deal block with a 95% confidence interval.

Deal ``d`` is dealt from ``deck_for(seed, 0, 0, d)`` at both tables; the agent holds
seat 0 at table 0 and seat 1 at table 1, so it plays both hands of every deal against
the same opponent. Its block score for deal ``d`` is the mean of its two nets, in
milli-big-blinds; the luck of the cards cancels between the two tables. This is the
heads-up case of :mod:`dp_arena.match`'s score (an agent's mean net per hand played).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from dp_arena.agents import (
    Agent,
    InProcessSeat,
    SessionContext,
    TableSession,
    load_agent,
    play_table_session,
)
from dp_arena.engine import Betting, TableRules

__all__ = ["DuplicateScore", "block_scores_against", "duplicate_score"]

_Z_95 = 1.959964  # blocks number in the hundreds or more: the normal quantile is the t quantile


@dataclass(frozen=True, slots=True)
class DuplicateScore:
    """Mean block score in mbb per deal and its 95% interval over ``blocks`` deal blocks."""

    opponent: str
    blocks: int
    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        return f"{self.mean:+.0f} mbb/deal vs {self.opponent} (95% CI {self.low:+.0f} .. {self.high:+.0f}, {self.blocks} deals)"


def block_scores_against(
    make_agent: Callable[[], Agent],
    opponent: str | Callable[[], Agent],
    *,
    deals: int,
    seed: int,
    betting: Betting | str = Betting.NO_LIMIT,
    blinds: tuple[int, int] = (10, 20),
    cap: int = 1000,
) -> list[float]:
    """The agent's score in mbb for each of ``deals`` deal blocks (``deals`` even)."""
    if deals <= 0 or deals % 2:
        raise ValueError(f"deals must be a positive even number (whole rounds), not {deals}")
    rules = TableRules(
        seat_count=2, small_blind=blinds[0], big_blind=blinds[1], betting=betting, cap=cap
    )

    def opponent_agent() -> Agent:
        return load_agent(opponent) if isinstance(opponent, str) else opponent()

    nets = []
    for table_index, agent_seat in enumerate((0, 1)):
        agents = [opponent_agent(), opponent_agent()]
        agents[agent_seat] = make_agent()
        names = ["opponent", "opponent"]
        names[agent_seat] = "agent"
        table = TableSession(
            [InProcessSeat(agent, name) for agent, name in zip(agents, names, strict=True)], names
        )
        result = play_table_session(
            table,
            rules,
            event_seed=seed,
            section=0,
            session=0,
            deals=deals,
            context=SessionContext(event=f"evaluate-{seed}"),
            table_index=table_index,
        )
        nets.append([record.nets[agent_seat] for record in result.deals])
    return [
        1000 * (first + second) / 2 / rules.big_blind for first, second in zip(*nets, strict=True)
    ]


def duplicate_score(
    make_agent: Callable[[], Agent],
    opponent: str | Callable[[], Agent],
    *,
    deals: int,
    seed: int,
    betting: Betting | str = Betting.NO_LIMIT,
    name: str | None = None,
) -> DuplicateScore:
    """The agent's duplicate score against ``opponent`` over ``deals`` deal blocks."""
    scores = block_scores_against(make_agent, opponent, deals=deals, seed=seed, betting=betting)
    return summarize(scores, name or (opponent if isinstance(opponent, str) else "opponent"))


def summarize(scores: list[float], opponent: str) -> DuplicateScore:
    count = len(scores)
    mean = sum(scores) / count
    variance = sum((score - mean) ** 2 for score in scores) / (count - 1) if count > 1 else 0.0
    half_width = _Z_95 * math.sqrt(variance / count)
    return DuplicateScore(opponent, count, mean, mean - half_width, mean + half_width)
