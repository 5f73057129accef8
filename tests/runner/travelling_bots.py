"""Bots of three kinds that travel to Ray workers, written where a test says: a bot folder
(``bot.toml``, a module it imports, a data file it reads), a lone file among files it
must not take along, and two submitted registry bots (a Python class, a command line)."""

from __future__ import annotations

import shutil
from pathlib import Path

from dp_arena.registry import Registry, pinned_spec, read_manifest

FOLDER_BOT = """from __future__ import annotations

from pathlib import Path

from helper import threshold

from dp_arena.agents import Observation
from dp_arena.engine import Action

RAISE_ABOVE = int((Path(__file__).parent / "data" / "level.txt").read_text())


class FolderBot:
    def act(self, observation: Observation) -> Action:
        deal = observation.context.deal_number
        raising = observation.min_raise_to is not None and deal % threshold() < RAISE_ABOVE
        if raising and observation.min_raise_to is not None:
            return Action.raise_to(observation.min_raise_to)
        return Action.call() if observation.to_call else Action.check()
"""

LONE_BOT = """from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.engine import Action


class LoneBot:
    def act(self, observation: Observation) -> Action:
        if observation.to_call > 4 * observation.big_blind:
            return Action.fold()
        return Action.call() if observation.to_call else Action.check()
"""


def write_bots(folder: Path) -> dict[str, str]:
    """name -> agent spec of each bot, written under ``folder`` (the registry too)."""
    bot_folder = folder / "folder-bot"
    (bot_folder / "data").mkdir(parents=True)
    (bot_folder / "bot.toml").write_text(
        'name = "folder-bot"\nversion = "1"\nentry = "bot.py:FolderBot"\n'
    )
    (bot_folder / "bot.py").write_text(FOLDER_BOT)
    (bot_folder / "helper.py").write_text("def threshold() -> int:\n    return 3\n")
    (bot_folder / "data" / "level.txt").write_text("2\n")
    loose = folder / "loose"
    loose.mkdir()
    (loose / "lone.py").write_text(LONE_BOT)
    (loose / "unrelated.bin").write_bytes(b"\0" * 4096)
    submitted = folder / "submitted"
    submitted.mkdir()
    calling = Path(__file__).resolve().parents[2] / "agents" / "calling_station.py"
    (submitted / "calling_station_copy.py").write_text(calling.read_text())
    (submitted / "bot.toml").write_text(
        'name = "station"\nversion = "1"\nentry = "calling_station_copy.py:CallingStation"\n'
    )
    registry = Registry(folder / "registry")
    stored, _ = registry.add(submitted, read_manifest(submitted))
    # A command line over the pipe protocol (python3 bot.py), run in its stored folder.
    pipe = shutil.copytree(
        Path(__file__).resolve().parents[2] / "examples" / "bots" / "python", folder / "pipe"
    )
    piped, _ = registry.add(pipe, read_manifest(pipe))
    return {
        "folder-bot": f"{bot_folder / 'bot.py'}:FolderBot",
        "lone": f"{loose / 'lone.py'}:LoneBot",
        "station": pinned_spec(registry.root, stored),
        "pipe": pinned_spec(registry.root, piped),
    }


def entrants(specs: dict[str, str], *, trusted: bool = False) -> str:
    """``[[entrants]]`` TOML of the bots ``specs`` names."""
    flag = "true" if trusted else "false"
    return "".join(
        f'[[entrants]]\nname = "{name}"\nagent = "{spec}"\ntrusted = {flag}\n\n'
        for name, spec in specs.items()
    )
