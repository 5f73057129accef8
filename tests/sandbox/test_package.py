"""The sandbox package loads its public names when they are first used, so that a seat's
host (a template's zygote and the runner, which live in the package and run in every
seat) loads none of the dealer's machinery: no threads, processes or file-system code
to import, and no memory of theirs for each seat's fork to copy."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import dp_arena.sandbox
from dp_arena.engine import evaluator

# What only the dealer needs: a seat's host that loads any of them has pulled in the
# dealer's side of the package (directly or through dp_arena.sandbox's own names).
DEALER_ONLY = ("threading", "subprocess", "tempfile", "shutil")
# The dealer's wings of the sandbox; of them the bot side loads the syscall filter alone
# (each forked seat installs it on itself), which loads nothing else.
DEALER_WINGS = ("dp_arena.sandbox.dealer", "dp_arena.sandbox.confinement")
FILTER = ("dp_arena.sandbox.confinement", "dp_arena.sandbox.confinement.seccomp")


def _dealers_modules(loaded: set[str], *, standard: tuple[str, ...] = DEALER_ONLY) -> list[str]:
    return sorted(
        name
        for name in loaded
        if name in standard or (name.startswith(DEALER_WINGS) and name not in FILTER)
    )


_WARM_TEMPLATE = """
import argparse, json, sys
from dp_arena.sandbox.bot import zygote
config = zygote._Config(argparse.Namespace(
    filter="", masks="", own="/nonexistent", under_tmp=[], under_tmp_link=[], runner=[]
))
zygote._warm_up(config)
exec(config.runner.code, {"__name__": "not_main"})  # the runner's module, as a seat runs it
print(json.dumps(sorted(sys.modules)))
"""


def test_a_warm_template_and_its_runner_load_none_of_the_dealers_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", _WARM_TEMPLATE], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert "dp_arena.sandbox.bot.runner" in loaded and "dp_arena.engine.evaluator" in loaded
    assert "dp_arena.sandbox.confinement.seccomp" in loaded  # the wing's one module it needs
    assert _dealers_modules(loaded) == []


def test_the_acpc_shim_loads_none_of_the_dealers_modules() -> None:
    code = (
        "import json, sys, dp_arena.sandbox.bot.acpc_shim; print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert "dp_arena.sandbox.bot.acpc" in loaded
    assert _dealers_modules(loaded, standard=()) == []  # it starts its agent: subprocess is its own


# The sandbox's public names, pinned: what commands, tools and people import from it.
PUBLIC_NAMES = [
    "BotLaunch",
    "FailedSeat",
    "ForbiddenProgram",
    "Isolation",
    "Limits",
    "ProcessSeat",
    "close_seats",
    "folder_problem",
    "is_acpc",
    "isolation",
    "launch_for",
    "load_fault",
    "load_hint",
    "open_seat",
    "prepare",
    "resolve",
    "runs_in_process",
]


def test_the_public_names_are_the_pinned_ones() -> None:
    assert sorted(dp_arena.sandbox.__all__) == sorted(PUBLIC_NAMES)


def test_every_public_name_is_there_when_asked_for() -> None:
    for name in dp_arena.sandbox.__all__:
        assert getattr(dp_arena.sandbox, name) is not None
        assert name in dir(dp_arena.sandbox)
    assert (
        dp_arena.sandbox.open_seat
        is importlib.import_module("dp_arena.sandbox.dealer.seats").open_seat
    )
    try:
        dp_arena.sandbox.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_isolation_stays_the_function_after_its_submodule_is_imported() -> None:
    submodule = importlib.import_module("dp_arena.sandbox.confinement.isolation")
    from dp_arena.sandbox import isolation

    assert callable(isolation) and isolation is dp_arena.sandbox.isolation
    assert isolation() == submodule.detect()


def test_the_evaluators_rank_numbers_are_shared_by_the_entries_that_have_them() -> None:
    table = evaluator.NONFLUSH_VALUES
    assert len(table) > 70_000
    # At most one object per rank number (1-7,462), not one per entry.
    assert len({id(value) for value in table.values()}) <= 7462


_THREADED_TEMPLATE = """
import threading
from dp_arena.sandbox.bot import zygote
zygote._check_single_threaded()  # one thread: nothing to say
stop = threading.Event()
threading.Thread(target=stop.wait).start()
try:
    zygote._check_single_threaded()
except RuntimeError as error:
    print(error)
stop.set()
"""


def test_a_template_with_a_second_thread_refuses_to_fork_seats() -> None:
    """A fork copies only the forking thread; a template that found another after its
    imports would not start (and its bot's seats would be exec'd)."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", _THREADED_TEMPLATE], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "the template holds 2 threads after its imports"
