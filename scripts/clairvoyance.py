"""Measure the clairvoyance test (docs/rankings.md): its calibration on honest bots and its
power on bots that see cards they should not.

    python scripts/clairvoyance.py calibrate [--seeds N] [--deals D] [--workers W]
    python scripts/clairvoyance.py power [--seeds N] [--deals D] [--workers W]
    python scripts/clairvoyance.py designs [--seeds N]

``calibrate`` plays duplicate matches of honest bots (every built-in, a player with private
randomness, heads-up and six-handed) and reports the distribution of z and of p, own and
table test: how many p fall below 0.05, 0.01 and 0.001 and how many are flagged.
``power`` plays the clairvoyant bots of ``tests/ratings/cheaters.py`` against the
calling station and the tight-aggressive bot heads-up and in six-handed matches, and
reports after how many deals each is flagged (the test run deal after deal), what it won
over the same player without its knowledge, and whether its honest opponents were flagged.
``designs`` measures the alternatives the design was chosen among. Every match uses a
public seed: the results repeat. A JSON of every figure is written with ``--json PATH``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ratings.cheaters

from dp_arena.agents import DealStart, InProcessSeat, Observation, load_agent, parse_spec
from dp_arena.engine import Action, deck_for
from dp_arena.match import MatchConfig, play_match
from dp_arena.ratings.clairvoyance import DESIGN, Design, Ledger, deal_terms
from tests.ratings.cheaters import Clairvoyant

BUILTINS = ("random", "calling-station", "aggressive", "tag", "equity", "learned")
HONEST = (*BUILTINS, "noisy")  # noisy: the cheaters' player on its own cards, 30% random
CHEATERS = ("all", "board", "next", "opponent")


class PrivateRandom:
    """The random bot with randomness of its own (not seeded from the deal): its mirrored
    copies play the same cards differently."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.bot: Any = load_agent(parse_spec("random"))

    def begin_deal(self, start: DealStart) -> None:
        self.bot.rng = random.Random(self.rng.getrandbits(64))

    def act(self, observation: Observation) -> Action:
        return self.bot.act(observation)  # type: ignore[no-any-return]


def _seat(spec: str, name: str, seed: int, copy: int) -> InProcessSeat:
    if spec == "noisy":
        agent: Any = Clairvoyant(seed, "none", noise=0.3, rng_seed=seed * 1000 + copy)
    elif spec == "private-random":
        agent = PrivateRandom(seed * 1000 + copy)
    elif spec.startswith("cheat:"):
        agent = Clairvoyant(seed, spec.partition(":")[2])
    elif spec == "honest":
        agent = Clairvoyant(seed, "none")
    else:
        agent = load_agent(parse_spec(spec))
    return InProcessSeat(agent, name)


def play(specs: Sequence[str], deals: int, seed: int) -> Any:
    copies = itertools.count()
    config = MatchConfig(tuple(specs), deals=deals, seed=seed)
    return play_match(
        config,
        seat_factory=lambda spec, name: _seat(spec, name, seed, next(copies)),
        adjusted=False,
        clairvoyance=False,
    )


def running(result: Any, seed: int, design: Design = DESIGN) -> dict[str, dict[str, Any]]:
    """Each agent's test after every deal: the first deal at which its own test and its
    table test flag it, and its final result."""
    config = result.config
    rules = config.rules()
    ledger = Ledger(design)
    first: dict[str, dict[str, int | None]] = {
        name: {"own": None, "table": None} for name in result.names
    }
    for deal in range(config.deals):
        deck = deck_for(seed, 0, 0, deal)
        for index, table in enumerate(result.tables):
            record = table.deals[deal]
            for seat, terms in enumerate(deal_terms(rules, record, deck, design)):
                if terms:
                    ledger.add(record.players[seat], (deal,), index, terms)
        ledger.close()
        for name in result.names:
            test = ledger.result(name)
            if first[name]["own"] is None and test.flagged:
                first[name]["own"] = deal + 1
            if first[name]["table"] is None and test.table.flagged:
                first[name]["table"] = deal + 1
    out = {}
    for score in result.scores:
        test = ledger.result(score.name)
        out[score.name] = {
            "mbb": score.summary.mean,
            "z": test.own.z,
            "p": test.p,
            "table_z": test.table.z,
            "table_p": test.table.p,
            "flagged_at": first[score.name]["own"],
            "table_flagged_at": first[score.name]["table"],
        }
    return out


# -- calibration -------------------------------------------------------------------------


def _calibration_match(job: tuple[tuple[str, ...], int, int]) -> list[dict[str, Any]]:
    specs, deals, seed = job
    started = time.process_time()
    result = play(specs, deals, seed)
    tests = running(result, seed)
    seconds = time.process_time() - started
    return [
        {"bot": spec, "seats": len(specs), "deals": deals, "seed": seed, "cpu": seconds, **test}
        for spec, test in zip(specs, (tests[name] for name in result.names), strict=True)
    ]


def calibrate(seeds: int, deals: int, workers: int) -> dict[str, Any]:
    jobs: list[tuple[tuple[str, ...], int, int]] = []
    bots = (*HONEST, "private-random")
    for seed in range(seeds):
        for pair in itertools.combinations(bots, 2):
            jobs.append((pair, deals, 1000 + seed))
        for six in itertools.combinations(bots, 6):
            jobs.append((six, max(1, deals // 3), 2000 + seed))
    rows = [row for rows in _map(_calibration_match, jobs, workers) for row in rows]
    return {"rows": rows, "summary": _calibration_summary(rows)}


def _calibration_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    summary: dict[str, Any] = {"tests": len(rows)}
    # z of each statistic: first and hole in the own test, next and river in the table's.
    for index, name in enumerate(("first", "hole", "next", "river")):
        zs = [row["table_z"][index] for row in rows if row["table_z"][index] is not None]
        summary[f"z_{name}"] = {
            "count": len(zs),
            "mean": round(statistics.fmean(zs), 3),
            "sd": round(statistics.stdev(zs), 3),
            "beyond_3": sum(abs(z) > 3 for z in zs),
        }
    for kind, key in (("own", "p"), ("table", "table_p")):
        ps = [row[key] for row in rows]
        summary[f"p_{kind}"] = {
            "below": {str(alpha): sum(p < alpha for p in ps) for alpha in (0.05, 0.01, 0.001)},
            "smallest": min(ps),
            "flagged": sum(p < 1e-6 for p in ps),
        }
    return summary


# -- power -------------------------------------------------------------------------------


def _power_match(job: tuple[str, tuple[str, ...], int, int]) -> dict[str, Any]:
    knows, others, deals, seed = job
    cheat = play((f"cheat:{knows}", *others), deals, seed)
    tests = running(cheat, seed)
    baseline = play(("honest", *others), deals, seed)
    names = list(cheat.names)
    return {
        "knows": knows,
        "against": list(others),
        "seed": seed,
        "deals": deals,
        "gain_mbb": cheat.scores[0].summary.mean - baseline.scores[0].summary.mean,
        "cheater": tests[names[0]],
        "opponents": {name: tests[name] for name in names[1:]},
    }


def power(seeds: int, deals: int, workers: int) -> dict[str, Any]:
    fields = [
        ("calling-station",),
        ("tag",),
        ("tag", "calling-station", "aggressive", "random", "learned"),
    ]
    jobs = [
        (knows, others, deals if len(others) == 1 else max(1, deals // 2), 3000 + seed)
        for knows in CHEATERS
        for others in fields
        for seed in range(seeds)
    ]
    rows = _map(_power_match, jobs, workers)
    return {"rows": rows, "summary": _power_summary(rows)}


def _power_summary(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    summary = []
    for key, group in itertools.groupby(
        sorted(rows, key=lambda row: (row["knows"], row["against"])),
        key=lambda row: (row["knows"], tuple(row["against"])),
    ):
        found = list(group)
        own = [row["cheater"]["flagged_at"] for row in found]
        table = [row["cheater"]["table_flagged_at"] for row in found]
        framed = sum(1 for row in found for test in row["opponents"].values() if test["flagged_at"])
        framed_table = sum(
            1 for row in found for test in row["opponents"].values() if test["table_flagged_at"]
        )
        summary.append(
            {
                "knows": key[0],
                "against": "+".join(key[1]) if len(key[1]) == 1 else "6-max",
                "matches": len(found),
                "deals": found[0]["deals"],
                "gain_mbb": statistics.fmean(row["gain_mbb"] for row in found),
                "flagged": sum(at is not None for at in own),
                "median_deals_to_flag": _median(own),
                "table_flagged": sum(at is not None for at in table),
                "median_deals_to_table_flag": _median(table),
                "honest_opponents_flagged": framed,
                "honest_opponents_table_flagged": framed_table,
            }
        )
    return summary


def _median(values: Sequence[int | None]) -> float | None:
    """The median deal at which a test flagged, counting never as past the end."""
    ordered = sorted(math.inf if value is None else value for value in values)
    middle = (
        ordered[len(ordered) // 2]
        if len(ordered) % 2
        else statistics.fmean(ordered[len(ordered) // 2 - 1 : len(ordered) // 2 + 1])
    )
    return None if math.isinf(middle) else middle


# -- the alternatives the design was chosen among ----------------------------------------

ALTERNATIVES = {
    "chosen": DESIGN,
    "weights stay +1 (fold -1, else +1)": Design(
        round_weights=(-1, 1, 1), first_weights=(-1, 1, 1)
    ),
    "weights raise +2": Design(round_weights=(-1, 1, 2), first_weights=(-1, 1, 2)),
    "hole advantage by Chen score": Design(advantage="chen"),
    "next street only": Design(statistics=("first", "hole", "next")),
}


def _designs_match(job: tuple[str, tuple[str, ...], int, int]) -> dict[str, Any]:
    knows, others, deals, seed = job
    result = play((f"cheat:{knows}", *others), deals, seed)
    name = result.names[0]
    return {
        "knows": knows,
        "against": list(others),
        "seed": seed,
        "flagged_at": {
            label: running(result, seed, design)[name]["table_flagged_at"]
            for label, design in ALTERNATIVES.items()
        },
    }


def designs(seeds: int, deals: int, workers: int) -> dict[str, Any]:
    jobs = [
        (knows, others, deals, 4000 + seed)
        for knows in CHEATERS
        for others in (("calling-station",), ("tag",))
        for seed in range(seeds)
    ]
    rows = _map(_designs_match, jobs, workers)
    summary = {
        label: {
            knows: _median([row["flagged_at"][label] for row in rows if row["knows"] == knows])
            for knows in CHEATERS
        }
        for label in ALTERNATIVES
    }
    return {"rows": rows, "summary": summary}


# -- running -----------------------------------------------------------------------------


def _map(function: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> list[Any]:
    if workers <= 1:
        return [function(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(function, jobs))


def main(arguments: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("calibrate", "power", "designs"))
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args(arguments)
    started = time.perf_counter()
    run = {"calibrate": calibrate, "power": power, "designs": designs}[args.what]
    data = run(args.seeds, args.deals, args.workers)
    data["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(data["summary"], indent=2))
    print(f"{data['seconds']} s", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
