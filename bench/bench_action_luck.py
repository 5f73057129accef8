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

And the same deals once more with a **learned** value in place of the fixed one
(``bench/learned_value.py``): cross-fitted on the run's other deals, unbiased, measured
to show what it would gain (``board+learned``); the adjusted score does not use it.

And once more with **other draws** (every table drawing from another table's stream: the
same decks, draws independent of the dealer's), to measure the share of each pair's
board-adjusted variance that the draws make: what a perfect value of the draws could
take out at most, and so how far any value is from it.
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
        2000,
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


# Another table's stream: the same decks, draws independent of the dealer's own.
OTHER_DRAWS = 1000


def _play(specs: tuple[str, ...], deals: int, draws: str = "dealer") -> Any:
    """The match of ``specs``, the dealer drawing as it does (``dealer``), with common
    random numbers (``common``), or from other streams (``other``: the same decks, every
    draw independent of the dealer's)."""
    from dp_arena.agents import InProcessSeat, SessionContext, TableSession, play_table_session
    from dp_arena.match import MatchConfig, agent_names, open_agent_seat, score_match, seatings

    config = MatchConfig(specs, deals=deals, seed=SEED)
    if draws == "dealer":
        from dp_arena.match import play_match

        return config, play_match(config, trusted=True, adjusted=False, clairvoyance=False)
    seed = config.event_key.seed
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
                draws=(
                    CommonDraws(seed, 0, 0, index)
                    if draws == "common"
                    else MixDraws(seed, 0, 0, OTHER_DRAWS + index)
                ),
            )
        )
    result = score_match(config, names, seating, tuple(tables), adjusted=False, clairvoyance=False)
    return config, result


def _scores(
    config: Any, result: Any, learned: bool
) -> tuple[dict[str, list[list[float]]], dict[str, float]]:
    """The block scores raw, board-adjusted and board+action-adjusted (with ``learned``,
    board+learned-adjusted too: the cross-fitted learned value), and the CPU time of
    each adjustment in milliseconds per table-deal."""
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
    if learned:
        from bench.learned_value import learned_nets

        middle = time.process_time()
        nets = learned_nets(rules, result.tables)
        exact = block_scores(result.tables, result.seatings, config.big_blind, nets)
        scores["board+learned"] = [[float(score) for score in row] for row in exact]
        forget_deals()
        cost["board+learned"] = (time.process_time() - middle) / table_deals * 1000
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
        "order": order,
        "largest_z_of_mean_shift": round(max(z_scores), 2),
        "means": {
            key: {names[agent]: round(statistics.fmean(rows[agent]), 1) for agent in order}
            for key, rows in scores.items()
        },
    }


def _draws_share(
    first: list[list[float]], second: list[list[float]], measured: dict[str, Any]
) -> dict[str, float]:
    """For every pair of neighbours, the share of the variance of their per-deal score
    difference that the draws make: the same decks played twice with independent draws,
    ``Var(difference of the two plays) / 2`` (the variance given the decks) over the
    variance of either (board-adjusted block scores)."""
    shares = {}
    for pair, (better, worse) in zip(
        measured["pairs"], itertools.pairwise(measured["order"]), strict=True
    ):
        one = [a - b for a, b in zip(first[better], first[worse], strict=True)]
        two = [a - b for a, b in zip(second[better], second[worse], strict=True)]
        given_decks = statistics.variance([a - b for a, b in zip(one, two, strict=True)]) / 2
        total = (statistics.variance(one) + statistics.variance(two)) / 2
        shares[pair["pair"]] = round(given_decks / total, 3)
    return shares


def run() -> dict[str, object]:
    figures: dict[str, object] = {"seed": SEED, "margin_mbb": MARGIN}
    show = print
    show(
        "variance per deal (summed over the agents) and deals to separate neighbours"
        f" {MARGIN:g} mbb apart: raw / board-adjusted / board+action-adjusted"
    )
    ratios = []  # board+action's deals over board's, every pair of neighbours
    learned_ratios = []  # the same with the learned value
    for label, (specs, deals) in FIELDS.items():
        found: dict[str, Any] = {"deals": deals}
        for common in (False, True):
            config, result = _play(specs, deals, "common" if common else "dealer")
            short = [name.split(":")[-1] for name in result.names]
            scores, cost = _scores(config, result, learned=not common)
            measured = _figures(short, scores)
            found["common" if common else "independent"] = measured
            if not common:
                dealer_board = scores["board"]
                drawn = sum(len(deal.mixes) for table in result.tables for deal in table.deals)
                actions = sum(len(deal.actions) for table in result.tables for deal in table.deals)
                found["drawn_share"] = round(drawn / actions, 3)
                found["ms_per_table_deal"] = {key: round(value, 2) for key, value in cost.items()}
        config, result = _play(specs, deals, "other")
        other_board = _scores(config, result, learned=False)[0]["board"]
        found["draws_share"] = _draws_share(dealer_board, other_board, found["independent"])
        figures[label] = found
        measured = found["independent"]
        costs = found["ms_per_table_deal"]
        show(
            f"{label}, {deals} deals ({found['drawn_share']:.0%} of the actions drawn from"
            f" mixes; scoring {costs['board']:.1f} ms a table-deal for the board,"
            f" {costs['board+action']:.1f} for board+action,"
            f" {costs['board+learned']:.1f} for board+learned): variance board / raw"
            f" {measured['board_to_raw']:.2f},"
            f" board+action / raw {measured['action_to_raw']:.2f}, board+action / board"
            f" {measured['action_to_board']:.2f}; means moved by at most"
            f" {measured['largest_z_of_mean_shift']:.2f} standard errors"
        )
        show(
            "  the draws' share of the board-adjusted variance of each pair's difference"
            " (the same decks played again with other draws: what a perfect value of the"
            " draws could take out): "
            + ", ".join(f"{pair} {share:.2f}" for pair, share in found["draws_share"].items())
        )
        for pair in measured["pairs"]:
            ratios.append(pair["board+action"] / pair["board"])
            learned_ratios.append(pair["board+learned"] / pair["board"])
            show(
                f"  {pair['pair']}: deals raw {pair['raw']:,}, board {pair['board']:,},"
                f" board+action {pair['board+action']:,}"
                f" ({pair['board+action'] / pair['board']:.2f} x board); with the learned"
                f" value {pair['board+learned']:,}"
                f" ({pair['board+learned'] / pair['board']:.2f} x board)"
            )
        common_pairs = found["common"]["pairs"]
        show(
            "  the same with common random numbers across the mirrored tables (other draws,"
            " so other play): board+action deals "
            + ", ".join(f"{pair['pair']} {pair['board+action']:,}" for pair in common_pairs)
            + f" (variance board+action / raw {found['common']['action_to_raw']:.2f})"
        )
    met = sum(ratio <= 0.5 for ratio in ratios)
    figures["goal_met"] = f"{met} of {len(ratios)}"
    show(
        f"goal (board+action at most half the deals of board): met by {met} of"
        f" {len(ratios)} pairs of neighbours; board+action / board from"
        f" {min(ratios):.2f} to {max(ratios):.2f}; with the learned value (measured, not"
        f" used) from {min(learned_ratios):.2f} to {max(learned_ratios):.2f}"
    )
    return figures
