"""``dp-arena check-agent SPEC``: the conformance check a bot author runs before
submitting, the same the harness runs (:mod:`dp_arena.sandbox.dealer.conformance`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dp_arena.commands import FAILED, NOT_LOADED, USAGE, arguments
from dp_arena.errors import AgentError, ConfigError
from dp_arena.sandbox.dealer.conformance import DEFAULT_STATES, check_agent
from dp_arena.sandbox.limits import Limits


def add_arguments(parser: argparse.ArgumentParser) -> None:
    arguments.add_spec_argument(parser)
    parser.add_argument(
        "--states",
        type=int,
        default=DEFAULT_STATES,
        help="random states to answer (default: %(default)s, as submit)",
    )
    parser.add_argument(
        "--deals", type=int, default=12, help="deals per table-session (default: %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the random states (default: %(default)s)"
    )
    parser.add_argument(
        "--action-timeout",
        type=float,
        default=Limits().action_timeout,
        help="seconds per decision (default: %(default)s)",
    )
    parser.add_argument(
        "--load-timeout",
        type=float,
        default=Limits().load_timeout,
        help="seconds to load (default: %(default)s)",
    )
    arguments.add_trusted_argument(parser)
    parser.add_argument("--log-dir", type=Path, help="keep the bot's stderr here")
    arguments.add_registry_argument(parser)
    arguments.add_json_argument(parser, "the report")


def run(args: argparse.Namespace) -> int:
    """Exit status 0 (the check passed); 1 (it failed); 2 (bad arguments, or a spec that
    names nothing); 3 (the bot did not load); see :mod:`dp_arena.commands`."""
    problem = _out_of_range(args)
    if problem is not None:
        print(f"dp-arena check-agent: {problem}", file=sys.stderr)
        return USAGE
    try:
        limits = Limits(action_timeout=args.action_timeout, load_timeout=args.load_timeout)
    except ConfigError as error:
        print(f"dp-arena check-agent: {error}", file=sys.stderr)
        return USAGE
    from dp_arena.match import check_spec

    try:  # a spec that names nothing is refused before anything starts
        spec = check_spec(args.spec, registry=args.registry)
    except AgentError as error:
        print(f"dp-arena check-agent: {error}", file=sys.stderr)
        return USAGE
    report = check_agent(
        spec,
        limits=limits,
        trusted=args.trusted,
        states=args.states,
        deals=args.deals,
        seed=args.seed,
        log_dir=args.log_dir,
    )
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print("\n".join(report.lines()))
    if report.passed:
        return 0
    return FAILED if report.loaded else NOT_LOADED


def _out_of_range(args: argparse.Namespace) -> str | None:
    """The first option out of its range (the same ranges as an event's config)."""
    for option, value, low, high in (
        ("--states", args.states, 1, 100_000),
        ("--deals", args.deals, 1, 10_000),
        ("--action-timeout", args.action_timeout, 0.001, 3600),
        ("--load-timeout", args.load_timeout, 0.001, 3600),
    ):
        if not low <= value <= high:  # also refuses nan
            return f"{option} must be from {low:_} to {high:_}, not {value}"
    return None
