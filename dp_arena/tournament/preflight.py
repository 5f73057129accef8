"""Preflight: every entrant loaded once, the way its seats will load it, before a card is
dealt.

A bot that cannot load would sit out the whole event as an absent player. So before an
event starts, :func:`preflight` loads each distinct bot of the config (entrants that
share a spec share one load): the file, the class, the registry entry, the command's
start and its hello, in the sandbox with the event's limits and load timeout. Each
failure names every entrant it costs, the reason and, where one can be given, a
suggestion. ``dp-arena run`` refuses to start while there is one (nothing is written),
unless it is told to play anyway (``--allow-absent``); the entrants are then recorded
as absent (:func:`mark_absent`) and every summary and page says so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from dp_arena.results import FaultKind
from dp_arena.sandbox import load_fault, load_hint
from dp_arena.sandbox.limits import Limits
from dp_arena.tournament.config import Entrant, EventConfig

__all__ = ["LoadProblem", "describe_problems", "mark_absent", "preflight", "without_folders"]


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """A bot that did not load: the entrants it costs, their spec as written, the fault's
    kind (``LOAD_ERROR`` or ``LOAD_TIMEOUT``) and why."""

    players: tuple[str, ...]
    spec: str
    kind: FaultKind
    reason: str
    hint: str = ""  # what to do about it, when that can be said

    def describe(self) -> str:
        shown = ", ".join(self.players[:5]) + (
            f" and {len(self.players) - 5} more" if len(self.players) > 5 else ""
        )
        return f"{shown} ({self.spec}): {self.reason}{self.hint}"


def _hint(spec: str, kind: FaultKind, reason: str) -> str:
    if kind is FaultKind.LOAD_TIMEOUT:
        return " (it may need more time: raise [limits] load_timeout in the config)"
    return load_hint(spec, reason)


def preflight(
    config: EventConfig,
    *,
    workers: int | None = None,
    log_dir: Path | None = None,
    on_loaded: Callable[[int, int], None] | None = None,
) -> list[LoadProblem]:
    """Load every distinct bot of ``config`` once; the problems, in config order.
    ``on_loaded(done, total)`` is told after each load (for a progress line)."""
    groups: dict[tuple[str, bool], list[Entrant]] = {}
    already = {player for player, _ in config.absent}  # sitting out already: not loaded
    for entrant in config.entrants:
        if entrant.player in already:
            continue
        groups.setdefault((entrant.resolved, entrant.trusted), []).append(entrant)
    limits = Limits().with_changes(**dict(config.limits)) if config.limits else Limits()
    keys = list(groups)
    done = 0

    def load(key: tuple[str, bool]) -> LoadProblem | None:
        spec, trusted = key
        first = groups[key][0]
        fault = load_fault(
            spec,
            name=first.player,
            trusted=trusted,
            limits=limits,
            log_dir=None if log_dir is None else log_dir / first.player,
        )
        if fault is None:
            return None
        return LoadProblem(
            tuple(entrant.player for entrant in groups[key]),
            first.spec,
            fault.kind,
            fault.detail,
            _hint(spec, fault.kind, fault.detail),
        )

    problems: list[LoadProblem] = []
    # Loads wait on other processes (the sandbox), so threads overlap them well.
    count = workers or min(8, 2 * (os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=max(1, min(count, len(keys) or 1))) as pool:
        for problem in pool.map(load, keys):
            done += 1
            if on_loaded is not None:
                on_loaded(done, len(keys))
            if problem is not None:
                problems.append(problem)
    return problems


def describe_problems(problems: list[LoadProblem], *, entrants: int) -> str:
    """The refusal an organiser reads: every entrant that cannot play, and why."""
    players = sum(len(problem.players) for problem in problems)
    lines = [
        f"{players} of {entrants} entrant{'s' if entrants != 1 else ''} cannot play:"
        if players != 1
        else f"1 of {entrants} entrants cannot play:"
    ]
    lines += [f"  - {problem.describe()}" for problem in problems]
    return "\n".join(lines)


def mark_absent(config: EventConfig, problems: list[LoadProblem]) -> EventConfig:
    """``config`` with the entrants of ``problems`` recorded as absent, beside those it
    records already (they still hold their seats, and sit out as absent players)."""
    absent = dict(config.absent)
    absent |= {
        player: f"{problem.kind.value}: {without_folders(problem.reason)}"[:400]
        for problem in problems
        for player in problem.players
    }
    return replace(config, absent=tuple(sorted(absent.items())))


def without_folders(text: str) -> str:
    """The reason with the folders of absolute paths left out: results are published, and
    the organiser's folders are nobody's business (``/home/o/bots/x.py`` → ``x.py``)."""
    return re.sub(r"(?<![\w.])/(?:[^\s/:'\"]+/)+", "", text)
