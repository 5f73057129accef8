"""``dp-arena demo``: a short duplicate session of built-in bots at two mirrored tables.

Both tables play the same deals. Seat position k holds a different bot at each table,
so each seat position's comparison shows which bot did better with the same cards.
"""

from __future__ import annotations

import argparse

from dp_arena.agents import (
    InProcessSeat,
    SessionContext,
    TableSession,
    load_agent,
    play_table_session,
)
from dp_arena.engine import Betting, TableRules

MAX_ROUNDS = 1000  # rounds of the button: at most 10,000 deals, a session's most


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        nargs="+",
        default=["tag", "random", "calling-station"],
        metavar="SPEC",
        help="bots for table 0's seats; table 1 seats them rotated by one (default: %(default)s)",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="rounds of the button (default: %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="event seed (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    bots = list(args.bots)
    seat_count = len(bots)
    if not 2 <= seat_count <= 10:
        print("dp-arena demo: give 2 to 10 bots")
        return 2
    if not 1 <= args.rounds <= MAX_ROUNDS:
        print(
            f"dp-arena demo: --rounds must be an integer from 1 to {MAX_ROUNDS}, not {args.rounds}"
        )
        return 2
    rules = TableRules(
        seat_count=seat_count, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT, cap=1000
    )
    deals = args.rounds * seat_count
    seatings = [bots, bots[1:] + bots[:1]]
    print(
        f"Duplicate demo: 2 mirrored tables x {seat_count} seats, {deals} deals, capped pot-limit,"
        f" blinds 10/20, cap 1000, seed {args.seed}\n"
    )
    results = []
    for table_index, seating in enumerate(seatings):
        table = TableSession([InProcessSeat(load_agent(spec), spec) for spec in seating], seating)
        result = play_table_session(
            table,
            rules,
            event_seed=args.seed,
            section=0,
            session=0,
            deals=deals,
            context=SessionContext(event="demo"),
            table_index=table_index,
        )
        results.append(result)
        print(
            f"table {table_index}: "
            + ", ".join(f"seat {s} {name}" for s, name in enumerate(seating))
        )
    print("\nSeat-position comparison (session net in chips; same cards, same seat):")
    print(f"{'seat':>4}  {'table 0':<22} {'table 1':<22} {'difference':>10}")
    for seat in range(seat_count):
        entries = [(r.players[seat], r.session_nets[seat]) for r in results]
        (name0, net0), (name1, net1) = entries
        print(f"{seat:>4}  {name0:<15}{net0:>+7} {name1:<15}{net1:>+7} {net0 - net1:>+10}")
    faults = [fault for r in results for fault in r.faults]
    print(f"\nfaults: {len(faults)}")
    return 0
