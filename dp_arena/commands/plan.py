"""``dp-arena plan FORMAT --players N [--json]``: the whole plan of an event before any
card is dealt. FORMAT is a format name (its default event for N players) or a config
file (N, when given, replaces the config's entrants with a field of N bots)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dp_arena.commands import NOT_LOADED
from dp_arena.commands.arguments import add_json_argument
from dp_arena.errors import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from dp_arena.commands.arguments import add_registry_argument
    from dp_arena.tournament.formats import FORMATS

    parser.add_argument(
        "format", metavar="FORMAT", help=f"a format ({', '.join(FORMATS)}) or a config file (.toml)"
    )
    parser.add_argument(
        "--players", type=int, metavar="N", help="number of entrants (required with a format name)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="a public seed to plan with (default: the config's; a config without one gets"
        " a secret key when it runs, and its plan is shown with seed 0)",
    )
    add_json_argument(parser, "the plan")
    add_registry_argument(parser, config=True)
    parser.add_argument(
        "--no-load",
        action="store_true",
        help="do not load the config's bots (by default each is loaded once, as `run` does,"
        " and any that cannot play is reported)",
    )


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from dp_arena.keys import EventKey
    from dp_arena.tournament.bounds import MAX_ENTRANTS, describe_range
    from dp_arena.tournament.config import with_key
    from dp_arena.tournament.describe import describe_plan
    from dp_arena.tournament.documents import plain
    from dp_arena.tournament.formats import FORMATS, get_format
    from dp_arena.tournament.loading import default_config, load_config

    if args.players is not None and not 1 <= args.players <= MAX_ENTRANTS:
        print(
            f"dp-arena plan: --players must be {describe_range(1, MAX_ENTRANTS)},"
            f" not {args.players}",
            file=sys.stderr,
        )
        return 2
    try:
        if args.format in FORMATS:
            if args.players is None:
                print(
                    f"dp-arena plan: give --players N with a format name ({args.format})",
                    file=sys.stderr,
                )
                return 2
            config = default_config(args.format, args.players, seed=args.seed or 0)
        elif Path(args.format).suffix == ".toml" or Path(args.format).exists():
            config = load_config(args.format, registry=args.registry)
            if args.players is not None:
                resized = default_config(config.format, args.players, seed=None, name=config.name)
                config = replace(
                    config,
                    entrants=resized.entrants,
                    field_from=resized.field_from,
                    field_count=resized.field_count,
                )
            if args.seed is not None:
                config = with_key(replace(config, seed=None), EventKey.from_seed(args.seed))
        else:
            print(
                f"dp-arena plan: {args.format!r} is neither a format"
                f" ({', '.join(FORMATS)}) nor a config file",
                file=sys.stderr,
            )
            return 2
    except ConfigError as error:
        print(f"dp-arena plan: {error}", file=sys.stderr)
        return 2
    deck = None
    if config.seed is None:
        # The real key is made when the run starts; seats and draws here are a preview.
        config = with_key(config, EventKey.from_seed(0))
        deck = "a secret deck key made when the run starts (seating shown with seed 0)"
    elif args.format not in FORMATS:
        deck = config.event_key.label()
    event_format = get_format(config.format)
    plan = event_format.plan(config)
    if args.json:
        print(json.dumps(plain(plan.to_json()), indent=2, sort_keys=True))
    else:
        print(describe_plan(plan, event_format.title, deck=deck), end="")
    if args.format in FORMATS or args.no_load or args.players is not None:
        return 0
    from dp_arena.commands.run import check_entrants

    # The same preflight as `dp-arena run`: a bot that cannot load is reported now.
    if check_entrants(config, quiet=args.json, allow_absent=False, command="plan") is None:
        return NOT_LOADED
    if not args.json:
        print(f"every entrant's bot loads ({len(config.entrants)} entrants)")
    return 0
