"""The dealer seats sandboxed bots whatever descriptors it holds: ``crowded`` is seated by
a dealer holding more than 1,024, past which ``select`` refuses every one. The dealer runs
in a process of its own (descriptors and their limit are per process).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import HOSTILE

# -- any number of descriptors ----------------------------------------------------------

CROWDED_DEALER = """
import contextlib, io, json, os, resource, sys
from dp_arena.cli import main

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]


def command(*arguments):
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        status = main(list(arguments))
    return {"status": status, "output": json.loads(output.getvalue())}


bot = sys.argv[1]
match = command("match", bot, "calling-station", "--deals", "4", "--seed", "3", "--json", "--quiet")
check = command("check-agent", bot, "--states", "12", "--deals", "2", "--json")
print(json.dumps({"highest": max(held), "match": match, "check": check}))
"""


def test_a_dealer_holding_over_1024_descriptors_still_seats_sandboxed_bots(tmp_path: Path) -> None:
    """A supervisor's or a busy server's descriptors: ``select`` would refuse the seat's
    (numbered past 1,024) and every seat would fail to load; ``poll`` does not care. The
    bot also sees none of them."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard limit of open files here is {hard}, under 1,200")
    bot = f"{HOSTILE / 'crowded' / 'bot.py'}:Bot"
    done = subprocess.run(
        [sys.executable, "-c", CROWDED_DEALER, bot],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["highest"] > 1100
    match, check = outcome["match"], outcome["check"]
    faults = [f"{fault['kind']}: {fault['detail']}" for fault in match["output"]["faults"]]
    assert match["status"] == 0 and faults == []
    assert [score["hands"] for score in match["output"]["agents"]] == [8, 8]
    assert check["status"] == 0, check["output"]["problems"]
    assert check["output"]["passed"] and check["output"]["loaded"]
