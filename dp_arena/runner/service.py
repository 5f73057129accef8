"""Starting, resuming and verifying a run: the one service that ``dp-arena run``,
``resume`` and ``verify`` and the server's tournaments call, so that each start gets the
same preflight and each end the same closing lines.

::

    checked = check_entrants(config, allow_absent=False)    # every bot loaded once
    key = claim(checked.config, run_dir)                     # a directory in use refused
                                                             # (or event_key_for(config))
    outcome = start(checked.config, run_dir, options, key=key)
    print(closing_lines(outcome, run_dir))
    outcome = resume(run_dir, options)                       # None: it had finished
    verification = verify(run_dir, replay="all")             # runner/verify.py's checks

A bot that cannot load refuses the start (:class:`~dp_arena.errors.ConfigError` naming
every entrant it costs and why, with nothing written), unless the caller allows absent
players: those entrants then sit out as absent players, and every summary says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.rundir import RunDir, refuse_if_running
from dp_arena.runner.executors import ExecutorOptions
from dp_arena.runner.launch import RunOutcome, event_key_for, start_run
from dp_arena.runner.resume import resume_run
from dp_arena.runner.verify import verify_run as verify
from dp_arena.tournament.config import EventConfig
from dp_arena.tournament.preflight import LoadProblem, describe_problems, mark_absent, preflight

__all__ = [
    "Preflight",
    "check_entrants",
    "claim",
    "closing_lines",
    "event_key_for",
    "resume",
    "start",
    "verify",
]


@dataclass(frozen=True, slots=True)
class Preflight:
    """What loading every entrant once found: the config to play (with the entrants whose
    bots failed marked absent) and the problems, one per bot that failed."""

    config: EventConfig
    problems: tuple[LoadProblem, ...]

    @property
    def text(self) -> str:
        """The problems for people (empty when every bot loaded)."""
        if not self.problems:
            return ""
        return describe_problems(list(self.problems), entrants=len(self.config.entrants))


def check_entrants(
    config: EventConfig,
    *,
    allow_absent: bool,
    on_loaded: Callable[[int, int], None] | None = None,
) -> Preflight:
    """Load every entrant once, the way its seats will load it (the preflight), beside
    the entrants whose bots the config's own check did not find. :class:`ConfigError`
    naming every entrant that cannot play (``absent_players``) unless ``allow_absent``;
    ``on_loaded(done, total)`` hears of each bot loaded."""
    from dp_arena.results import FaultKind

    specs = {entrant.player: entrant.spec for entrant in config.entrants}
    problems = [
        LoadProblem(
            (player,),
            specs.get(player, "?"),
            FaultKind.LOAD_ERROR,
            reason.removeprefix("LOAD_ERROR: "),
        )
        for player, reason in config.absent
    ]
    problems += preflight(config, on_loaded=on_loaded)
    checked = Preflight(config, tuple(problems))
    if not problems:
        return checked
    if not allow_absent:
        players = tuple(player for problem in problems for player in problem.players)
        raise ConfigError(checked.text, field="entrants", absent_players=players)
    return Preflight(mark_absent(config, problems), checked.problems)


def claim(config: EventConfig, run_dir: Path, key: EventKey | None = None) -> EventKey:
    """The deck key a new run of ``config`` in ``run_dir`` deals from (see
    :func:`~dp_arena.runner.launch.event_key_for`), once the directory is known not to be
    in use: checked before the key is announced."""
    refuse_if_running(run_dir)
    return event_key_for(config, key)


def start(
    config: EventConfig,
    run_dir: Path,
    options: ExecutorOptions | None = None,
    *,
    key: EventKey | None = None,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> RunOutcome:
    """Start ``config`` (checked by :func:`check_entrants`) in the new run directory
    ``run_dir`` and play it to the end."""
    return start_run(config, run_dir, options, quiet=quiet, key=key, stream=stream)


def resume(
    run_dir: Path,
    options: ExecutorOptions | None = None,
    *,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> RunOutcome | None:
    """Go on with the run in ``run_dir`` to the end; ``None`` when it had finished."""
    if RunDir(run_dir).is_finished():
        return None
    return resume_run(run_dir, options, quiet=quiet, stream=stream)


def closing_lines(outcome: RunOutcome, run_dir: Path) -> str:
    """What a run prints at its end: the event's summary, how it ran, where its results
    are and their digest."""
    return (
        f"{outcome.event.screen_summary}\n{outcome.report()}\n"
        f"results in {RunDir(run_dir).results}\n"
        f"results digest {outcome.event.results_digest}"
    )
