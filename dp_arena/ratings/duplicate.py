"""Duplicate scores: each play of a deal scored against its seat position, in
milli-big-blinds, and the per-block score matrix that rankings resample.

The score of one play is ``1000 x (net - mean net of its seat position on that deal) /
big blind``: the players compared held the same cards in the same seat at mirrored
tables, so the cards' luck cancels. A competitor's score on a block (one deal at every
mirrored table) is the mean over its plays in the block; its event score is the mean
over the blocks it played. Scores are exact fractions until they are summarised, so
the scores of a seat position sum to exactly zero.

A seat position that only one entrant played (the others were absent players) compares
nobody, so its play is not scored. With ``adjusted=True`` the plays' adjusted nets (the
board-luck correction, :mod:`dp_arena.ratings.board_luck`, or another adjustment of the
deal records) are scored instead of the real ones.

>>> from dp_arena.ratings.runs import DealBlock, SeatPlay
>>> block = DealBlock("e", 1, 1, 0, 40, (
...     SeatPlay("a", 1, 0, 100), SeatPlay("b", 1, 1, -100),
...     SeatPlay("c", 2, 0, -20), SeatPlay("d", 2, 1, 20)))
>>> {play.player: score for play, score in play_scores(block)}  # seat 0 means 40, seat 1 -40
{'a': Fraction(1500, 1), 'c': Fraction(-1500, 1), 'b': Fraction(-1500, 1), 'd': Fraction(1500, 1)}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from dp_arena.ratings.runs import DealBlock, SeatPlay

__all__ = ["ScoreMatrix", "play_scores", "score_matrix"]


def play_scores(block: DealBlock, *, adjusted: bool = False) -> Iterator[tuple[SeatPlay, Fraction]]:
    """Every scored play of ``block`` with its duplicate score in mbb (exact)."""
    by_seat: dict[int, list[SeatPlay]] = {}
    for play in block.plays:
        by_seat.setdefault(play.seat, []).append(play)
    for seat in sorted(by_seat):
        plays = by_seat[seat]
        if len(plays) < 2:
            continue
        nets = [_net(play, adjusted) for play in plays]
        total = sum(nets)
        count = len(nets)
        # (net - total / count) x 1000 / big blind, normalised once per play.
        scale = count * block.big_blind
        for play, net in zip(plays, nets, strict=True):
            difference = count * net - total
            yield play, Fraction(difference.numerator * 1000, difference.denominator * scale)


def _net(play: SeatPlay, adjusted: bool) -> Fraction | int:
    if not adjusted:
        return play.net
    if play.adjusted_net is None:
        raise ValueError(f"no adjusted net for {play.player!r}: the run kept no deal records")
    return play.adjusted_net


@dataclass(frozen=True, slots=True)
class ScoreMatrix:
    """Per-block duplicate scores: ``scores[competitor][block]`` in mbb, ``None`` where
    the competitor did not play the block; ``plays[competitor]`` how many plays it had.
    ``blocks`` are the block keys (event, session, section, deal), in order."""

    names: tuple[str, ...]
    blocks: tuple[tuple[str, int, int, int], ...]
    scores: tuple[tuple[float | None, ...], ...]
    plays: tuple[int, ...]
    sums: tuple[Fraction, ...]  # exact sum of each competitor's block scores

    def column(self, name: str) -> tuple[float | None, ...]:
        return self.scores[self.names.index(name)]

    def played(self, name: str) -> list[float]:
        """The scores of the blocks ``name`` played."""
        return [score for score in self.column(name) if score is not None]

    def mean(self, name: str) -> Fraction:
        """The exact mean block score of ``name``."""
        index = self.names.index(name)
        count = sum(score is not None for score in self.scores[index])
        return self.sums[index] / count


def score_matrix(
    blocks: Iterable[DealBlock],
    competitor: Callable[[str], str],
    *,
    adjusted: bool = False,
) -> ScoreMatrix:
    """The block scores of every competitor: ``competitor(player)`` names the one a play
    counts for (the bot, to rank bots; the player itself, to rank entrants). A
    competitor with several plays in a block scores their mean there."""
    totals: dict[str, dict[int, list[Fraction]]] = {}
    keys = []
    for index, block in enumerate(blocks):
        keys.append(block.key)
        for play, score in play_scores(block, adjusted=adjusted):
            totals.setdefault(competitor(play.player), {}).setdefault(index, []).append(score)
    names = tuple(sorted(totals))
    columns = []
    sums = []
    plays = []
    for name in names:
        by_block = {
            index: scores[0] if len(scores) == 1 else sum(scores, Fraction(0)) / len(scores)
            for index, scores in totals[name].items()
        }
        columns.append(
            tuple(
                float(by_block[index]) if index in by_block else None for index in range(len(keys))
            )
        )
        sums.append(sum(by_block.values(), Fraction(0)))
        plays.append(sum(len(scores) for scores in totals[name].values()))
    # Blocks nobody was scored on (every seat position had one entrant) carry no
    # information; they are kept so that every matrix of the same events lines up.
    return ScoreMatrix(names, tuple(keys), tuple(columns), tuple(plays), tuple(sums))
