"""A short tournament in which four entrants share the colluding bot's code
(``tests/sandbox/hostile_bots/colluder``), beside two calling stations: the event the
runner tests play to show that a team of sandboxed copies gains nothing, serially and on
Ray, over the same bots with no channel at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.tournament.loading import load_config
from tests.sandbox.test_mirrors import colluder


def team_event(folder: Path, channel: str, *, seed: int = 2) -> Path:
    """The config of the tournament, its four colluders using ``channel``."""
    bot = colluder(folder.parent) / "bot.py"
    entrants = "".join(
        f'[[entrants]]\nname = "colluder-{index}"\nagent = "{bot}:{channel}"\n\n'
        for index in range(1, 5)
    )
    folder.mkdir(parents=True)
    config = folder / "event.toml"
    config.write_text(
        f'[event]\nname = "colluders"\nformat = "short"\nseed = {seed}\n\n'
        "[table]\ncap = 1000\nsmall_blind = 10\nbig_blind = 20\n\n"
        f'{entrants}[field]\ncount = 2\nfrom = ["calling-station"]\n',
        encoding="utf-8",
    )
    return config


def outcome(config: Path, run_dir: Path, executor: ExecutorOptions) -> dict[str, Any]:
    """What the players took home: every player's net chips and deals, and the prizes."""
    start_run(load_config(config), run_dir, executor, quiet=True)
    results = json.loads((run_dir / "results.json").read_text())
    return {
        "totals": {
            total["player"]: (total["net_chips"], total["deals"]) for total in results["totals"]
        },
        "prizes": {place["player"]: place.get("prize_cents") for place in results["standings"]},
    }
