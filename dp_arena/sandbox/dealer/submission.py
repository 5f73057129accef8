"""A submission checked and stored: the one acceptance of a bot, for ``dp-arena submit``
and the server's upload checks alike.

The submission is unpacked safely (:func:`dp_arena.registry.intake`), its manifest read,
a command bot's program checked against what the sandbox may show (``forbidden_program``
otherwise: see :mod:`dp_arena.sandbox.confinement.mounts`), a Python bot's class looked
for in its entry file's syntax (read within the bounds of :mod:`dp_arena.agents.source`),
and the bot must pass the conformance check of ``dp-arena check-agent``, sandboxed. An
accepted bot is stored by content hash: the same content again is a no-op, new content
the next version.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from dp_arena.agents.spec import class_problem, parse_spec
from dp_arena.errors import AgentError, SubmissionError
from dp_arena.registry import Manifest, Registry, StoredBot, content_hash, intake
from dp_arena.sandbox.confinement.mounts import ForbiddenProgram, check_command
from dp_arena.sandbox.dealer.conformance import DEFAULT_STATES, CheckReport, check_agent
from dp_arena.sandbox.limits import Limits

__all__ = ["submit"]


def submit(
    path: Path,
    *,
    registry: Registry,
    name: str | None = None,
    owner: str = "",
    states: int = DEFAULT_STATES,
    limits: Limits | None = None,
    vet: Callable[[Manifest], None] | None = None,
    on_report: Callable[[CheckReport, Path], None] | None = None,
) -> dict[str, object]:
    """Check and store one submission; the outcome as data. ``SubmissionError`` says
    why a submission is refused. ``vet(manifest)`` is asked before anything is checked
    and may refuse the submission by raising ``SubmissionError`` (the server refuses a
    name another author owns); ``on_report(report, folder)`` hears the conformance
    check's report, passed or failed, with the folder the bot was unpacked in."""
    folder, manifest = intake(path, name=name)
    try:
        if vet is not None:
            vet(manifest)
        if manifest.command is not None:
            try:
                check_command(manifest.command, folder)
            except ForbiddenProgram as error:
                raise SubmissionError("forbidden_program", f"{manifest.name}: {error}") from None
            except AgentError as error:
                raise SubmissionError("bad_manifest", f"{manifest.name}: {error}") from None
        known = registry.find(manifest.name, content_hash(folder))
        if known is not None:  # the same content again: nothing to check or store
            return _outcome(known, False, registry)
        if manifest.entry is not None:
            file, class_name = manifest.entry.split(":")
            spec = f"{folder / file}:{class_name}"
            # As check-agent does first: the class is looked for in the file's syntax,
            # read within bounds (a file too large or too deeply nested is refused here).
            problem = class_problem(folder / file, parse_spec(spec))
            if problem is not None:
                raise SubmissionError(
                    "failed_check", f"{manifest.name}: {problem.replace(str(folder), '.')}"
                )
        else:  # a command line or an ACPC agent, run in the bot's folder as a seat runs it
            spec = manifest.seat_spec(folder)
        report = check_agent(spec, states=states, limits=limits, bot_dir=folder)
        if on_report is not None:
            on_report(report, folder)
        if not report.passed:
            problems = "; ".join(report.problems[:3]) or "it made no decision"
            raise SubmissionError(
                "failed_check", f"{manifest.name}: the conformance check failed: {problems}"
            )
        stored, new = registry.add(folder, manifest, owner=owner)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _outcome(stored, new, registry)


def _outcome(stored: StoredBot, new: bool, registry: Registry) -> dict[str, object]:
    return {
        "name": stored.name,
        "version": stored.version,
        "ref": stored.ref,
        "sha256": stored.sha256,
        "label": stored.label,
        "new": new,
        "folder": str(stored.folder),
        "registry": str(registry.root),
    }
