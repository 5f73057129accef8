"""How much of the luck of the dealer's draws a **rollout value** takes out (the shipped
``dp_arena.rollouts``, what ``match --rollouts`` and ``dp-arena rollouts`` use), beside
the fixed value the adjusted score uses and the most any value could take out.

For each field of ``bench/bench_action_luck.py`` (fewer deals: rollouts cost), the same
deals scored board-adjusted, board+action-adjusted (the fixed value) and with the draws
valued by rollouts: :data:`ROLLOUTS` rollouts after each action of every mix, the
table's own bots answering every later decision (fresh copies, in-process built-ins),
the rollout players' mixes drawn from stratified numbers shared by every action, each
rollout's outcome its net less the luck of the streets that came during it and less the
luck of the draws it made from the rollout players' mixes, valued by the fixed value (a
control variate: each of those terms has a mean of zero, and they take out of the
outcome what the fixed value sees of the rollouts' own draws). For every pair of
neighbours, the deals needed to separate them 50 mbb apart relative to board-adjusted,
and beside them what a perfect value would leave: one minus the share of the pair's
variance the draws make (the same decks played again with other draws). The goal is at
most half.

``python -m bench.bench_rollout FIELD DEALS [options]`` measures one field; with
options, another variant (other rollout players, stand-ins, counts, numbers or outcome;
``--help``), played by ``bench/rollout_value.py``, the prototype of the shipped code.

The CPU time of the rollouts is shown as a multiple of the CPU time of playing the
deals. The learned bot's equity estimate, a pure function of the cards, is memoized in
the rollouts (not in the play), as a project computing rollouts would.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bench import bench_action_luck as luck_bench

ROLLOUTS = 8
FIELDS: dict[str, int] = {
    "heads-up: mixed tag vs learned": 500,
    "heads-up: mixed tag vs random": 500,
    "heads-up: learned vs random": 500,
    "6-max: mixed tag, random, learned, tag, equity, calling-station": 300,
}


@dataclass(frozen=True, slots=True)
class Variant:
    """A rollout value to measure: who answers the rollouts' decisions (``players``:
    ``own``, the table's own bots, with ``standins`` in place of some of them; or one spec
    in every seat), how many ``rollouts`` of every action, with ``stratified`` numbers or
    not, and the ``outcome`` (``draws``: the rollout's net less the luck of its streets and
    of its draws from the rollout players' mixes, valued by the fixed value; ``board``:
    less the luck of its streets only; ``final``: its net)."""

    players: str = "own"
    standins: tuple[tuple[str, str], ...] = ()
    rollouts: int = ROLLOUTS
    stratified: bool = True
    outcome: str = "draws"

    def players_of(self, specs: tuple[str, ...], agents: tuple[int, ...]) -> list[Any]:
        """The rollout players of a table's seats (``agents``: the agent in each seat)."""
        from dp_arena.agents.spec import load_agent

        if self.players != "own":
            return [load_agent(_spec(self.players)) for _ in agents]
        standins = dict(self.standins)
        return [load_agent(_spec(standins.get(specs[agent], specs[agent]))) for agent in agents]


# The value the adjusted score uses when asked for rollouts (``dp_arena.rollouts``): the
# table's own bots, eight stratified rollouts, the outcome less the luck of the
# rollout's streets and draws. The bold rows are measured with the shipped code itself;
# every other variant with ``bench/rollout_value.py``.
SHIPPED = Variant()


def _shipped_nets(
    rules: Any, tables: Any, event_seed: int, specs: tuple[str, ...], result: Any
) -> list[list[tuple[Fraction, ...]]]:
    """Every table's adjusted nets with its draws valued by :mod:`dp_arena.rollouts`, the
    copies fresh in-process built-ins (one per seat, for each table)."""
    from dp_arena.agents import InProcessSeat
    from dp_arena.engine import deck_for
    from dp_arena.ratings.action_luck import board_action_nets
    from dp_arena.rollouts import RolloutPlace, table_values

    found = []
    for index, table in enumerate(tables):
        copies = [
            InProcessSeat(agent, "copy")
            for agent in SHIPPED.players_of(specs, result.seatings[index])
        ]
        valued = table_values(
            rules,
            table,
            functools.partial(deck_for, event_seed, 0, 0),
            copies,
            rollouts=SHIPPED.rollouts,
            place=RolloutPlace(event_seed, table=index),
        )
        found.append([board_action_nets(rules, record) for record in valued.deals])
    return found


def _spec(name: str) -> str:
    return luck_bench.MIXED_TAG if name == "mixed-tag" else name


def _field(label: str, deals: int, variant: Variant = Variant()) -> dict[str, Any]:
    import dp_arena.learn.features as learned_features
    from bench.rollout_value import OUTCOMES, Rollout, rollout_nets
    from dp_arena.match import block_scores
    from dp_arena.ratings.action_luck import board_action_nets
    from dp_arena.ratings.board_luck import corrected_nets, forget_deals

    specs = luck_bench.FIELDS[label][0]
    started = time.process_time()
    config, result = luck_bench._play(specs, deals)
    playing = time.process_time() - started
    rules = config.rules()

    def scored(nets: list[list[tuple[Fraction, ...]]] | None) -> list[list[float]]:
        exact = block_scores(result.tables, result.seatings, config.big_blind, nets)
        return [[float(score) for score in row] for row in exact]

    def adjusted(adjust: Any) -> list[list[tuple[Fraction, ...]]]:
        return [[adjust(rules, deal) for deal in table.deals] for table in result.tables]

    scores = {
        "board": scored(adjusted(corrected_nets)),
        "fixed": scored(adjusted(board_action_nets)),
    }
    forget_deals()
    plain_equity = learned_features.equity
    learned_features.equity = functools.lru_cache(maxsize=1 << 16)(plain_equity)
    try:
        outcome = OUTCOMES[variant.outcome]
        scoring = 0.0

        def timed(played: Rollout) -> tuple[Fraction, ...]:
            nonlocal scoring
            begun = time.process_time()
            found = outcome(played)
            scoring += time.process_time() - begun
            return found

        started = time.process_time()
        if variant == SHIPPED:
            nets = _shipped_nets(rules, result.tables, config.event_key.seed, specs, result)
        else:
            nets = rollout_nets(
                rules,
                result.tables,
                event_seed=config.event_key.seed,
                players_of=lambda table: variant.players_of(specs, result.seatings[table]),
                rollouts=variant.rollouts,
                outcome=timed,
                stratified=variant.stratified,
            )
        rolling = time.process_time() - started
    finally:
        learned_features.equity = plain_equity
    forget_deals()
    scores["rollout"] = scored(nets)
    _, other = luck_bench._play(specs, deals, "other")
    other_board = [
        [float(score) for score in row]
        for row in block_scores(
            other.tables,
            other.seatings,
            config.big_blind,
            [[corrected_nets(rules, deal) for deal in table.deals] for table in other.tables],
        )
    ]
    forget_deals()
    names = [name.split(":")[-1] for name in result.names]
    final = scores["fixed"]
    order = sorted(range(len(names)), key=lambda agent: -statistics.fmean(final[agent]))
    pairs = []
    for better, worse in itertools.pairwise(order):
        board = luck_bench._deals(scores["board"][better], scores["board"][worse])
        one = [a - b for a, b in zip(scores["board"][better], scores["board"][worse], strict=True)]
        two = [a - b for a, b in zip(other_board[better], other_board[worse], strict=True)]
        given_decks = statistics.variance([a - b for a, b in zip(one, two, strict=True)]) / 2
        share = given_decks / ((statistics.variance(one) + statistics.variance(two)) / 2)
        pairs.append(
            {
                "pair": f"{names[better]} > {names[worse]}",
                "board_deals": board,
                "fixed": round(luck_bench._deals(final[better], final[worse]) / board, 2),
                "rollout": round(
                    luck_bench._deals(scores["rollout"][better], scores["rollout"][worse]) / board,
                    2,
                ),
                "perfect": round(1 - share, 2),
            }
        )
    return {
        "deals": deals,
        "cost_x_play": round(rolling / playing, 1),
        # How much of it the outcomes took (the prototype times them; the shipped code not).
        "outcome_x_play": None if variant == SHIPPED else round(scoring / playing, 1),
        "pairs": pairs,
    }


def run() -> dict[str, object]:
    figures: dict[str, object] = {"seed": luck_bench.SEED, "rollouts": ROLLOUTS}
    show = print
    show(
        f"deals needed to separate neighbours {luck_bench.MARGIN:g} mbb apart, relative to"
        f" board-adjusted: the fixed value, a rollout value ({ROLLOUTS} rollouts of every"
        " action, the table's own bots, each rollout's outcome less the luck of its streets"
        " and of its draws), and what a perfect value would leave"
    )
    ratios = []
    for label, deals in FIELDS.items():
        found = _field(label, deals)
        figures[label] = found
        show(f"{label}, {deals} deals (rollouts cost {found['cost_x_play']:g} x playing them)")
        for pair in found["pairs"]:
            ratios.append(pair["rollout"])
            show(
                f"  {pair['pair']}: board {pair['board_deals']:,} deals; fixed"
                f" {pair['fixed']:.2f}, rollout {pair['rollout']:.2f}, perfect"
                f" {pair['perfect']:.2f} x board"
            )
    met = sum(ratio <= 0.5 for ratio in ratios)
    figures["goal_met"] = f"{met} of {len(ratios)}"
    show(
        f"goal (at most half the deals of board): the rollout value meets it on {met} of"
        f" {len(ratios)} pairs of neighbours, {min(ratios):.2f} to {max(ratios):.2f}"
    )
    return figures


def main(argv: list[str]) -> int:
    """Measure one rollout value on one field: ``python -m bench.bench_rollout --help``."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_rollout", description=main.__doc__)
    parser.add_argument(
        "field",
        help="the start of a field's label, e.g. 6-max or 'heads-up: learned' (heads-up:"
        " each of the three)",
    )
    parser.add_argument("deals", type=int)
    parser.add_argument("--seed", type=int, default=luck_bench.SEED)
    parser.add_argument("--players", default="own", help="own, or one spec for every seat")
    parser.add_argument(
        "--standin",
        action="append",
        default=[],
        metavar="SPEC=SPEC",
        help="in the table's own bots, play the second in place of the first (equity=tag)",
    )
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS)
    parser.add_argument("--independent", action="store_true", help="numbers not stratified")
    parser.add_argument(
        "--outcome",
        choices=("board", "draws", "final"),
        default=Variant().outcome,
        help="a rollout's net less the luck of its streets (board), less that of its draws"
        " from the rollout players' mixes too, valued by the fixed value (draws), or its"
        " final net (final)",
    )
    options = parser.parse_args(argv)
    labels = [label for label in luck_bench.FIELDS if label.startswith(options.field)]
    if not labels:
        parser.error(f"field {options.field!r} names none of {list(luck_bench.FIELDS)}")
    if any("=" not in pair for pair in options.standin):
        parser.error("--standin takes SPEC=SPEC, e.g. equity=tag")
    luck_bench.SEED = options.seed
    variant = Variant(
        players=options.players,
        standins=tuple(
            (pair.partition("=")[0], pair.partition("=")[2]) for pair in options.standin
        ),
        rollouts=options.rollouts,
        stratified=not options.independent,
        outcome=options.outcome,
    )
    for label in labels:
        found = _field(label, options.deals, variant)
        print(f"{label}, {options.deals} deals, seed {options.seed}, {variant}")
        outcomes = found["outcome_x_play"]
        print(
            f"  rollouts cost {found['cost_x_play']:g} x playing the deals"
            + ("" if outcomes is None else f" (their outcomes {outcomes:g} x)")
        )
        for pair in found["pairs"]:
            print(
                f"  {pair['pair']}: fixed {pair['fixed']:.2f}, rollout {pair['rollout']:.2f},"
                f" perfect {pair['perfect']:.2f} x board"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
