"""Shared helpers of the runner tests: event configs, the command line in a subprocess,
the reference results of the plain serial event driver, and reading a store with
nothing but ``sqlite3``."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from dp_arena.runner.fingerprint import bot_codes
from dp_arena.tournament.event import run_event
from dp_arena.tournament.loading import load_config

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"


def write_config(
    folder: Path,
    *,
    players: int = 40,
    seed: int = 11,
    pool: Sequence[str] = ("random", "calling-station", "aggressive", "tag"),
    entrants: str = "",
    name: str = "runner test",
) -> Path:
    """A regular tournament config of ``players`` (built-ins drawn from ``pool``, plus the
    ``[[entrants]]`` TOML in ``entrants``) written to ``folder/event.toml``."""
    folder.mkdir(parents=True, exist_ok=True)
    listed = entrants.count("[[entrants]]")
    pool_text = ", ".join(f'"{name}"' for name in pool)
    text = (
        f'[event]\nname = "{name}"\nformat = "regular"\nseed = {seed}\n\n'
        f"[field]\ncount = {players - listed}\nfrom = [{pool_text}]\n\n{entrants}"
    )
    path = folder / "event.toml"
    path.write_text(text, encoding="utf-8")
    return path


def reference_results(
    config_path: Path, run_dir: Path, code: Mapping[str, Mapping[str, object]] | None = None
) -> bytes:
    """``results.json`` of the plain serial event driver (no store, no Ray), given the
    entrants' code objects the runner records when it starts (``code``, or as the runner
    would record them now): the oracle every executor and every resume must match byte
    for byte."""
    config = load_config(config_path)
    run_event(config, run_dir, code=code if code is not None else bot_codes(config.entrants))
    return (run_dir / "results.json").read_bytes()


def snapshot(folder: Path) -> dict[str, str]:
    """Copy the ``dp_arena`` package and the built-in bots into ``folder`` and return the
    environment variables that make a subprocess import that copy: a frozen code version,
    as on a clean clone, while the working tree goes on changing (a kill-and-resume test
    spans several processes, and a resume refuses a changed source)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "dp_arena", folder / "dp_arena", ignore=ignore)
    shutil.copytree(ROOT / "agents", folder / "agents", ignore=ignore)
    return {"PYTHONPATH": str(folder)}


def snapshot_reference(config_path: Path, run_dir: Path, environment: Mapping[str, str]) -> bytes:
    """:func:`reference_results` computed by the code of a :func:`snapshot`."""
    program = (
        "import sys\nfrom pathlib import Path\n"
        "from dp_arena.tournament.loading import load_config\n"
        "from dp_arena.runner.fingerprint import bot_codes\n"
        "from dp_arena.tournament.event import run_event\n"
        "config = load_config(sys.argv[1])\n"
        "run_event(config, Path(sys.argv[2]), code=bot_codes(config.entrants))\n"
    )
    subprocess.run(
        [sys.executable, "-c", program, str(config_path), str(run_dir)],
        cwd=cli_folder(environment),
        env=cli_environment(environment),
        check=True,
        capture_output=True,
        timeout=240,
    )
    return (run_dir / "results.json").read_bytes()


def cli_command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "dp_arena.cli", *arguments]


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("RAY_ADDRESS", None)
    environment.update({"RAY_USAGE_STATS_ENABLED": "0", "PYTHONDONTWRITEBYTECODE": "1"})
    environment.update(extra or {})
    return environment


def cli_folder(extra_env: Mapping[str, str] | None = None) -> Path:
    """Where to run ``python -m``: it puts its working directory first on the path, so a
    snapshot's processes must run in the snapshot (not in the working tree)."""
    return Path((extra_env or {}).get("PYTHONPATH", ROOT))


def cli(
    *arguments: str, extra_env: Mapping[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """Run ``dp-arena ARGUMENTS`` in a fresh process."""
    return subprocess.run(
        cli_command(*arguments),
        cwd=cli_folder(extra_env),
        env=cli_environment(extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def stored_units(run_dir: Path) -> int:
    """Rows in the store's ``units`` table, read with plain sqlite3 (0 before it exists)."""
    path = run_dir / "store.sqlite"
    if not path.exists():
        return 0
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        with contextlib.closing(connection):
            return int(connection.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    except sqlite3.Error:
        return 0  # the schema is not there yet


def live_processes_of_a_run(variable: str, value: str, folder: Path | None) -> dict[int, str]:
    """Live (not zombie) processes, process id to name, that either have ``variable=value``
    in their environment or a file open under ``folder``. A process inherits its parent's
    environment, so a variable given to one command finds what it started and theirs,
    whatever they renamed themselves to; but a process that rewrites its command line (Ray's
    workers and agents do) may overwrite the start of its environment too, and then its
    open log files still tell where it belongs."""
    needle = f"{variable}={value}".encode()
    prefix = None if folder is None else str(folder.resolve()) + os.sep
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            name = (entry / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            belongs = needle in (entry / "environ").read_bytes().split(b"\0")
            if not belongs and prefix is not None:
                for descriptor in (entry / "fd").iterdir():
                    with contextlib.suppress(OSError):
                        belongs = belongs or os.readlink(descriptor).startswith(prefix)
        except OSError:
            continue
        if belongs and state != "Z":
            found[int(entry.name)] = name.strip()
    return found


def live_processes_mentioning(text: str) -> list[int]:
    """Process ids of live (not zombie) processes whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in command and state != "Z":
            found.append(int(entry.name))
    return found
