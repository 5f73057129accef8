"""How much of the luck of randomising bots the action-luck terms take out: the same
deals of fields that include bots answering with mixed strategies (``learned``,
``random``, and ``bench/mixed_tag.py``: tag's action 80% of the time), scored raw,
board-adjusted (the board-luck correction alone) and board+action-adjusted (the
luck-adjusted score: the board's luck and the luck of every action the dealer drew).

For each field: the variance per deal of every agent's score, summed over the agents,
and its ratios; and for every pair of neighbours (ordered by the board+action score),
the deals needed to separate them 50 mbb apart (:func:`dp_arena.ratings.deals_needed`
over the standard error of their per-deal difference), by each score. The goal is
board+action at most half of board's. The means must not move (every term has mean
zero): the largest |z| of an agent's board+action minus raw score is shown beside them.

Then the same deals once more with **common random numbers**: the dealer's number for a
decision drawn from the event key, the section, session and deal, the seat and the
deal's actions so far, not the table, so that mirrored tables reaching the same
situation draw alike (each draw still uniform given the table's past). That is not what
the dealer does; it is measured here to show whether it would lower the variance
further.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from dp_arena.engine import HandState, Mix
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import MixDraws, draw_index

MIXED_TAG = f"{Path(__file__).resolve().with_name('mixed_tag.py')}:MixedTag"
SEED = 14
MARGIN = 50.0
FIELDS: dict[str, tuple[tuple[str, ...], int]] = {
    "heads-up: mixed tag vs learned": ((MIXED_TAG, "learned"), 2000),
    "heads-up: mixed tag vs random": ((MIXED_TAG, "random"), 2000),
    "heads-up: learned vs random": (("learned", "random"), 2000),
    "6-max: mixed tag, random, learned, tag, equity, calling-station": (
        (MIXED_TAG, "random", "learned", "tag", "equity", "calling-station"),
        300,
    ),
}


class CommonDraws(MixDraws):
    """Common random numbers: a decision's number from where the deal sits, the seat and
    the deal's actions so far, the same at every mirrored table (a measurement only)."""

    def at(self, mix: Mix, deal: int, state: HandState) -> Action:
        history = ",".join(
            f"{record.seat}:{record.kind.value}"
            + ("" if record.raise_to is None else f" {record.raise_to}")
            for record in state.history
        )
        material = (
            f"dp-arena/bench/common/v1:{self.event_seed}:{self.section}:{self.session}"
            f":{deal}:{state.actor}:{history}"
        ).encode()
        return mix.actions[draw_index(mix.weights, material)]


def _play(specs: tuple[str, ...], deals: int, common: bool) -> Any:
    from dp_arena.agents import InProcessSeat, SessionContext, TableSession, play_table_session
    from dp_arena.match import MatchConfig, agent_names, open_agent_seat, score_match, seatings

    config = MatchConfig(specs, deals=deals, seed=SEED)
    if not common:
        from dp_arena.match import play_match

        return config, play_match(config, trusted=True, adjusted=False, clairvoyance=False)
    names = agent_names(specs)
    seating = seatings(len(specs))
    tables = []
    for index, table_agents in enumerate(seating):
        seats = [
            open_agent_seat(specs[agent], name=names[agent], trusted=True) for agent in table_agents
        ]
        assert all(isinstance(seat, InProcessSeat) for seat in seats)
        table = TableSession(seats, [names[agent] for agent in table_agents])
        tables.append(
            play_table_session(
                table,
                config.rules(),
                event_seed=config.event_key.seed,
                section=0,
                session=0,
                deals=deals,
                context=SessionContext(event="match"),
                table_index=index,
                draws=CommonDraws(config.event_key.seed, 0, 0, index),
            )
        )
    result = score_match(config, names, seating, tuple(tables), adjusted=False, clairvoyance=False)
    return config, result


def _scores(config: Any, result: Any) -> tuple[dict[str, list[list[float]]], dict[str, float]]:
    """The block scores raw, board-adjusted and board+action-adjusted, and the CPU time
    of each adjustment in milliseconds per table-deal."""
    from dp_arena.match import block_scores
    from dp_arena.ratings.action_luck import board_action_nets
    from dp_arena.ratings.board_luck import corrected_nets, forget_deals

    def scored(adjust: Callable[..., tuple[Fraction, ...]] | None) -> list[list[float]]:
        nets = None
        if adjust is not None:
            nets = [[adjust(rules, deal) for deal in table.deals] for table in result.tables]
        exact = block_scores(result.tables, result.seatings, config.big_blind, nets)
        return [[float(score) for score in row] for row in exact]

    rules = config.rules()
    started = time.process_time()
    scores = {"raw": scored(None), "board": scored(corrected_nets)}
    forget_deals()
    middle = time.process_time()
    scores["board+action"] = scored(board_action_nets)
    forget_deals()
    table_deals = sum(len(table.deals) for table in result.tables)
    cost = {
        "board": (middle - started) / table_deals * 1000,
        "board+action": (time.process_time() - middle) / table_deals * 1000,
    }
    return scores, cost


def _deals(first: Sequence[float], second: Sequence[float]) -> int:
    from dp_arena.ratings.uncertainty import deals_needed

    differences = [a - b for a, b in zip(first, second, strict=True)]
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    return deals_needed(error, len(differences), MARGIN)


def _figures(names: Sequence[str], scores: dict[str, list[list[float]]]) -> dict[str, Any]:
    final = scores["board+action"]
    order = sorted(range(len(names)), key=lambda agent: -statistics.fmean(final[agent]))

    def total(rows: list[list[float]]) -> float:
        return sum(statistics.variance(row) for row in rows)

    pairs = []
    for better, worse in itertools.pairwise(order):
        found = {key: _deals(rows[better], rows[worse]) for key, rows in scores.items()}
        pairs.append({"pair": f"{names[better]} > {names[worse]}", **found})
    z_scores = []
    for agent in range(len(names)):
        shifts = [a - r for a, r in zip(final[agent], scores["raw"][agent], strict=True)]
        spread = statistics.stdev(shifts) / math.sqrt(len(shifts))
        z_scores.append(abs(statistics.fmean(shifts)) / spread if spread else 0.0)
    return {
        "agents": list(names),
        "board_to_raw": round(total(scores["board"]) / total(scores["raw"]), 3),
        "action_to_raw": round(total(final) / total(scores["raw"]), 3),
        "action_to_board": round(total(final) / total(scores["board"]), 3),
        "pairs": pairs,
        "largest_z_of_mean_shift": round(max(z_scores), 2),
        "means": {
            key: {names[agent]: round(statistics.fmean(rows[agent]), 1) for agent in order}
            for key, rows in scores.items()
        },
    }


def run() -> dict[str, object]:
    figures: dict[str, object] = {"seed": SEED, "margin_mbb": MARGIN}
    show = print
    show(
        "variance per deal (summed over the agents) and deals to separate neighbours"
        f" {MARGIN:g} mbb apart: raw / board-adjusted / board+action-adjusted"
    )
    for label, (specs, deals) in FIELDS.items():
        found: dict[str, Any] = {"deals": deals}
        for common in (False, True):
            config, result = _play(specs, deals, common)
            short = [name.split(":")[-1] for name in result.names]
            scores, cost = _scores(config, result)
            measured = _figures(short, scores)
            found["common" if common else "independent"] = measured
            if not common:
                drawn = sum(len(deal.mixes) for table in result.tables for deal in table.deals)
                actions = sum(len(deal.actions) for table in result.tables for deal in table.deals)
                found["drawn_share"] = round(drawn / actions, 3)
                found["ms_per_table_deal"] = {key: round(value, 2) for key, value in cost.items()}
        figures[label] = found
        measured = found["independent"]
        costs = found["ms_per_table_deal"]
        show(
            f"{label}, {deals} deals ({found['drawn_share']:.0%} of the actions drawn from"
            f" mixes; scoring {costs['board']:.1f} ms a table-deal for the board,"
            f" {costs['board+action']:.1f} for board+action): variance board / raw"
            f" {measured['board_to_raw']:.2f},"
            f" board+action / raw {measured['action_to_raw']:.2f}, board+action / board"
            f" {measured['action_to_board']:.2f}; means moved by at most"
            f" {measured['largest_z_of_mean_shift']:.2f} standard errors"
        )
        for pair in measured["pairs"]:
            show(
                f"  {pair['pair']}: deals raw {pair['raw']:,}, board {pair['board']:,},"
                f" board+action {pair['board+action']:,}"
                f" ({pair['board+action'] / pair['board']:.2f} x board)"
            )
        common_pairs = found["common"]["pairs"]
        show(
            "  with common random numbers across the mirrored tables: board+action deals "
            + ", ".join(f"{pair['board+action']:,}" for pair in common_pairs)
            + f" (variance board+action / raw {found['common']['action_to_raw']:.2f})"
        )
    return figures
