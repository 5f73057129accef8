"""Scoring a policy: a heads-up duplicate match (:mod:`dp_arena.match`) between an
in-memory agent and an opponent, scored per deal block with a 95% confidence interval.

The match plays every deal twice with the seats swapped (``deck_for(seed, 0, 0, d)`` at
both tables), so the luck of the cards cancels; an agent's block score for a deal is its
mean net over its two hands, in milli-big-blinds. The agent under test needs no spec:
it is seated through the match's seat factory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dp_arena.agents import Agent, InProcessSeat, Seat, load_agent
from dp_arena.engine import Betting
from dp_arena.match import MatchConfig, play_match
from dp_arena.ratings.blocks import summarize_blocks

__all__ = ["DuplicateScore", "block_scores_against", "duplicate_score", "summarize"]

_AGENT = "policy"  # the match's name for the agent under test


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
        return (
            f"{self.mean:+.0f} mbb/deal vs {self.opponent}"
            f" (95% CI {self.low:+.0f} .. {self.high:+.0f}, {self.blocks} deals)"
        )


def block_scores_against(
    make_agent: Callable[[], Agent],
    opponent: str | Callable[[], Agent],
    *,
    deals: int,
    seed: int,
    betting: Betting | str = Betting.NO_LIMIT,
) -> list[float]:
    """The agent's duplicate score in mbb for each of ``deals`` deal blocks."""
    opponent_spec = opponent if isinstance(opponent, str) else "opponent"

    def seat(spec: str, name: str) -> Seat:
        if spec == _AGENT:
            return InProcessSeat(make_agent(), name)
        return InProcessSeat(
            load_agent(opponent) if isinstance(opponent, str) else opponent(), name
        )

    config = MatchConfig(
        specs=(_AGENT, opponent_spec), deals=deals, seed=seed, betting=Betting(betting)
    )
    return list(play_match(config, seat_factory=seat).block_scores[0])


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
    """The mean of block scores with its Student-t 95% interval."""
    summary = summarize_blocks(scores)
    low = summary.low if summary.low is not None else summary.mean
    high = summary.high if summary.high is not None else summary.mean
    return DuplicateScore(opponent, summary.count, summary.mean, low, high)
