"""A finished run's result files as tests read and change them: ``results.json`` (the
summary) and the sessions' parts, kept consistent with each other (each part's digest in
the summary), so that a test can change what a run says and see what readers make of it."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dp_arena.ratings.runs import read_sessions
from dp_arena.tournament.documents import session_part_text, summary_text


def results(run_dir: Path) -> dict[str, Any]:
    """``results.json`` with each session's object in place of its part's entry (the
    shape of a version-1 ``results.json``)."""
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    data["sessions"] = list(read_sessions(run_dir, data))
    return data


def write_results(run_dir: Path, data: dict[str, Any]) -> None:
    """Write ``data`` (as :func:`results` gives it) back: each session to its part, and
    the summary with the parts' new digests."""
    summary = dict(data)
    entries = []
    for session in data["sessions"]:
        name = f"sessions/session-{session['session']}.jsonl"
        text = session_part_text(session)
        (run_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (run_dir / name).write_text(text, encoding="utf-8")
        entries.append(
            {
                "session": session["session"],
                "kind": session["kind"],
                "part": name,
                "records": text.count("\n"),
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            }
        )
    summary["sessions"] = entries
    (run_dir / "results.json").write_text(summary_text(summary), encoding="utf-8")


def edit_results(run_dir: Path, edit: Callable[[dict[str, Any]], object]) -> None:
    """Change a run's results (summary and parts) with ``edit`` of :func:`results`."""
    data = results(run_dir)
    edit(data)
    write_results(run_dir, data)


def copy_results(run_dir: Path, folder: Path, replace: Callable[[str], str] | None = None) -> Path:
    """``results.json`` and the sessions' parts of ``run_dir`` (nothing else: no store)
    copied into ``folder``, their text changed by ``replace`` (digests kept right)."""
    folder.mkdir(parents=True, exist_ok=True)
    if replace is None:
        shutil.copy(run_dir / "results.json", folder / "results.json")
        shutil.copytree(run_dir / "sessions", folder / "sessions", dirs_exist_ok=True)
        return folder
    data = json.loads(replace(json.dumps(results(run_dir))))
    write_results(folder, data)
    return folder
