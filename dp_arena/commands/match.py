"""``dp-arena match``: a duplicate match between agents with full seat rotation.

``dp-arena match SPEC SPEC [SPEC...]`` seats k agents at a k-seat table, once for every
rotation of the agents around the seats, plays the same deals at every table and
prints each agent's duplicate score in milli-big-blinds per deal with a 95% confidence
interval over deal blocks, and its faults by kind (see :mod:`dp_arena.match`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from dp_arena.agents import BUILTINS
from dp_arena.commands import NOT_LOADED, USAGE, arguments
from dp_arena.engine import Betting
from dp_arena.errors import AgentError, ConfigError
from dp_arena.keys import EventKey
from dp_arena.match import (
    MAX_ROLLOUTS,
    MatchConfig,
    MatchResult,
    betting_problem,
    check_spec,
    play_match,
)
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.progress import ProgressLine
from dp_arena.ratings.blocks import BlockSummary
from dp_arena.ratings.clairvoyance import Clairvoyance
from dp_arena.ratings.evidence import FLAG_BELOW
from dp_arena.results import Fault, FaultKind
from dp_arena.sandbox import load_hint
from dp_arena.text import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    arguments.add_spec_argument(parser, agents="2 to 10 agents")
    arguments.add_deal_arguments(parser, deals=500, played="at every table")
    parser.add_argument(
        "--key",
        metavar="HEX",
        help="replay a match whose secret key was revealed (64 hexadecimal digits)",
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=0,
        metavar="K",
        help=(
            "value every action the dealer drew from a bot's mixed strategy by K rollouts"
            f" (2 to {MAX_ROLLOUTS}; 8 is a good start): each action of the mix is played on to"
            " the hand's end K times by fresh copies of the bots, sandboxed like the real"
            " ones, once every table has played. The luck-adjusted score then needs about a"
            " fifth to a half of the deals that the board's luck alone needs where bots"
            " randomise, against a third to all of them with the fixed blend; it costs tens"
            " of times the match's own CPU (about 25 times at K = 8, heads-up or six-handed)."
            " Default 0: the fixed blend, no rollouts"
        ),
    )
    arguments.add_json_argument(parser, "the result")
    arguments.add_trusted_argument(parser)
    arguments.add_progress_argument(parser)
    parser.add_argument(
        "--log-dir", type=Path, default=None, help="where sandboxed agents' output is kept"
    )
    arguments.add_registry_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Exit status 0; 2 for bad arguments or specs that name nothing; 3 when an agent
    could not be loaded (the match is still played and printed, the agent as an absent
    player); see :mod:`dp_arena.commands`."""
    try:
        arguments.check_deals(args.deals)
        if not 2 <= len(args.specs) <= 10:
            raise ConfigError(f"give 2 to 10 agents, not {len(args.specs)}", field="specs")
        specs = [check_spec(spec, registry=args.registry) for spec in args.specs]
        if args.key is not None and args.seed is not None:
            raise ConfigError("give --seed or --key, not both", field="key")
        try:
            key = None if args.key is None else EventKey.from_hex(args.key)
        except ValueError as error:
            raise ConfigError(f"--key: {error}", field="key") from None
        config = MatchConfig(
            tuple(specs),
            deals=args.deals,
            betting=Betting(args.betting),
            seed=args.seed,
            key=key,
            rollouts=args.rollouts,
        )
        problem = betting_problem(config.specs, config.betting)
        if problem is not None:
            raise ConfigError(f"{problem}: play --betting no-limit", field="betting")
    except (AgentError, ConfigError) as error:
        print(f"dp-arena match: {error}", file=sys.stderr)
        return USAGE
    if not args.quiet:
        print(f"dp-arena match: {config.event_key.describe()}", file=sys.stderr)
    progress = None if args.quiet or not sys.stderr.isatty() else Progress(sys.stderr)
    try:
        result = play_match(
            config,
            trusted=args.trusted,
            log_dir=args.log_dir,
            on_progress=None if progress is None else progress.update,
            on_rollouts=None if progress is None else progress.rollouts,
        )
    except AgentError as error:
        if progress is not None:
            progress.clear()
        print(f"dp-arena match: {error}", file=sys.stderr)
        return USAGE
    if progress is not None:
        progress.clear()
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(format_result(result, sandboxed=not args.trusted))
    # The match completes whatever the bots do, but a bot that never loaded makes its
    # scores meaningless: say so, and fail.
    unloaded: dict[str, Fault] = {}
    for table, fault in result.faults:
        if fault.kind in (FaultKind.LOAD_ERROR, FaultKind.LOAD_TIMEOUT):
            unloaded.setdefault(result.names[result.seatings[table][fault.seat]], fault)
    for name, fault in unloaded.items():
        spec = config.specs[result.names.index(name)]
        print(
            printable(
                f"dp-arena match: {name} was not loaded ({fault.kind.value}): {fault.detail}"
                + load_hint(spec, fault.detail)
            ),
            file=sys.stderr,
        )
    return NOT_LOADED if unloaded else 0


class Progress:
    """The match's progress line: hands played of the match's hands."""

    def __init__(self, stream: TextIO) -> None:
        self.line = ProgressLine(stream, live=True)

    def update(self, played: int, total: int) -> None:
        self.line.show(
            f"match: {played:,}/{total:,} hands ({100 * played // total}%)", force=played == total
        )

    def rollouts(self, valued: int, total: int) -> None:
        self.line.show(
            f"match: rollouts, {valued:,}/{total:,} hands valued ({100 * valued // total}%)",
            force=valued == total,
        )

    def clear(self) -> None:
        self.line.finish()


def format_result(result: MatchResult, *, sandboxed: bool) -> str:
    config = result.config
    # A pinned registry spec names the registry's folder: show the bot and version only.
    others = [
        spec if not spec.startswith(REGISTRY_PREFIX) else REGISTRY_PREFIX + spec.rpartition("#")[2]
        for spec in config.specs
        if spec not in BUILTINS
    ]
    where = (
        f"; {', '.join(others)} ran {'sandboxed' if sandboxed else 'in-process'}" if others else ""
    )
    lines = [
        (
            f"Duplicate match: {config.agent_count} agents, {len(result.tables)} tables"
            f" (every seat rotation), {config.deals} deals, capped {config.betting.value},"
            f" blinds {config.small_blind}/{config.big_blind}, cap {config.cap},"
            f" {config.event_key.label()}{where}"
        ),
        "",
        (
            "Duplicate score in milli-big-blinds per deal (net minus the mean net of the same"
            " seat with the same cards), 95% CI over deal blocks; luck-adjusted"
            f"{_terms(config)}: the same with the luck of every board card, and of every"
            f" action the dealer drew from a bot's mixed strategy{_valued_by(config)}, taken"
            " out of the nets:"
        ),
        "",
    ]
    width = max(len("agent"), *(len(printable(score.name)) for score in result.scores))
    lines.append(
        f"{'agent':<{width}}  {'mbb/deal':>10}  {'95% CI':>23}  {'luck-adj.':>10}"
        f"  {'95% CI':>23}  {'net chips':>10}  {'clairvoyance':<27}  faults"
    )
    ranked = sorted(result.scores, key=lambda score: (-score.summary.mean, score.index))
    for score in ranked:
        summary = score.summary
        adjusted = score.adjusted
        faults = (
            ", ".join(f"{kind.value} {count}" for kind, count in score.fault_counts if count)
            or "none"
        )
        mean = "" if adjusted is None else f"{adjusted.mean:+.1f}"
        lines.append(
            f"{printable(score.name):<{width}}  {summary.mean:>+10.1f}  {_interval(summary):>23}"
            f"  {mean:>10}  {_interval(adjusted):>23}  {score.net:>+10}"
            f"  {clairvoyance_cell(score.clairvoyance):<27}  {faults}"
        )
    if any(score.clairvoyance is not None for score in result.scores):
        lines += [
            "",
            (
                "Clairvoyance: each agent's first decisions tested against the cards it could"
                " not see (z, and a p-value valid at any number of deals; FLAGGED below"
                f" {FLAG_BELOW:g}). '(table p ...)': the test of every decision, which also"
                " answer what the opponents did, flags a clairvoyant at its tables, itself or an"
                " opponent (docs/rankings.md)."
            ),
        ]
    key = config.event_key
    if not key.public:
        lines += [
            "",
            f"deck key (revealed): {key.hex}",
            f"commitment: {key.commitment} (replay with --key)",
        ]
    if result.faults:
        lines += ["", "First faults:"]
        for table, fault in result.faults[:5]:
            agent = result.names[result.seatings[table][fault.seat]]
            lines.append(
                f"  {agent} ({fault.kind.value}, table {table}, {fault_place(fault)}):"
                f" {fault.detail}"
            )
    # Names and fault details come from bots: no line reaches the terminal unescaped.
    return "\n".join(printable(line) for line in lines)


def _terms(config: MatchConfig) -> str:
    return f", {config.adjusted_terms}" if config.rollouts else ""


def _valued_by(config: MatchConfig) -> str:
    if not config.rollouts:
        return ""
    return (
        f" (valued by {config.rollouts} rollouts of each of its actions, played by fresh"
        " copies of the bots)"
    )


def clairvoyance_cell(test: Clairvoyance | None) -> str:
    """An agent's clairvoyance test in a few characters: its z and p, FLAGGED when its
    own test flags it, and the table test when that flags alone."""
    if test is None:
        return ""
    z = "" if test.z is None else f"z {test.z:+.1f} "
    cell = f"{z}p {test.p:.2g}"
    if test.flagged:
        return f"{cell} FLAGGED"
    if test.table.flagged:
        return f"{cell} (table p {test.table.p:.1g})"
    return cell


def _interval(summary: BlockSummary | None) -> str:
    if summary is None or summary.low is None or summary.high is None:
        return ""
    return f"[{summary.low:+.1f}, {summary.high:+.1f}]"


def fault_place(fault: Fault) -> str:
    """Where a fault happened: a decision's deal and street, or between deals for one
    reported at a notification (a hook's error, stray output)."""
    if fault.deal is None:
        return "session start"
    if fault.street is None:
        return f"between deals (deal {fault.deal})"
    return f"deal {fault.deal} {fault.street}"
