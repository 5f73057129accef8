"""Comparing a run's documents with those its table-sessions give again: ``results.json``
(what differs first, named as a dotted path, and every prize that moved), each session's
part and hand history byte for byte, and each entrant's clairvoyance test as published.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dp_arena.rundir import RunDir
from dp_arena.runner.verification import Verification
from dp_arena.tournament.digest import DIGEST_FIELD

__all__ = ["check_clairvoyance", "compare_files", "first_difference", "read_json"]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _without_clairvoyance(document: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """``results.json`` as a dp-arena without the clairvoyance test wrote it, with the
    ``original``'s results digest (a digest of files this dp-arena does not write; the
    ``digest`` check holds the files to it)."""
    stripped = {key: value for key, value in document.items() if key != "clairvoyance"}
    stripped["entrants"] = [
        {key: value for key, value in entrant.items() if key != "clairvoyance"}
        for entrant in document.get("entrants", ())
    ]
    event = dict(stripped.get("event") or {})
    event.pop(DIGEST_FIELD, None)
    if DIGEST_FIELD in (original.get("event") or {}):
        event[DIGEST_FIELD] = original["event"][DIGEST_FIELD]
    stripped["event"] = event
    return stripped


def check_clairvoyance(
    verification: Verification, original: dict[str, Any], recomputed: dict[str, Any]
) -> None:
    """The ``clairvoyance`` check: each entrant's test as the table-sessions and the key
    give it is the one ``results.json`` publishes."""
    if "clairvoyance" not in original:
        verification.add(
            "clairvoyance",
            [],
            "results.json was written before the clairvoyance test: none to check",
        )
        return
    if recomputed.get("clairvoyance") is None:
        verification.add("clairvoyance", [], "this format is not tested (docs/rankings.md)")
        return
    published = {
        str(entrant.get("player")): entrant.get("clairvoyance")
        for entrant in original.get("entrants", ())
    }
    problems = [
        f"{entrant['player']}: results.json says {_brief(published.get(entrant['player']))},"
        f" recomputed {_brief(entrant.get('clairvoyance'))}"
        for entrant in recomputed.get("entrants", ())
        if published.get(entrant["player"]) != entrant.get("clairvoyance")
    ]
    if original.get("clairvoyance") != recomputed["clairvoyance"]:
        problems.append(
            f"the summary says {_brief(original.get('clairvoyance'))},"
            f" recomputed {_brief(recomputed['clairvoyance'])}"
        )
    summary = recomputed["clairvoyance"]
    flagged = ", ".join(summary["flagged"]) or "none"
    table = ", ".join(summary["table_flagged"])
    verification.add(
        "clairvoyance",
        problems,
        f"{len(published)} entrants' tests recomputed from the table-sessions and the key"
        f" are results.json's; flagged: {flagged}"
        + (f"; at whose tables a clairvoyant played (table test): {table}" if table else ""),
    )


def compare_files(run_dir: Path, again: Path, histories: bool) -> list[str]:
    problems = []
    ours, theirs_again = RunDir(run_dir), RunDir(again)
    original = read_json(ours.results)
    recomputed = read_json(theirs_again.results)
    if "clairvoyance" not in original:  # written before the test: compared without it
        recomputed = _without_clairvoyance(recomputed, original)
    if original != recomputed:
        # The digest differs whenever anything does: name what differs first.
        problems.append(
            "results.json differs: "
            + first_difference(_undigested(recomputed), _undigested(original), "")
            if _undigested(recomputed) != _undigested(original)
            else "results.json differs: "
            + first_difference(recomputed, original, "")
            + " (and the files it names)"
        )
        problems += _moved_prizes(original, recomputed)
    folders = [(RunDir.SESSIONS, "*.jsonl")] + [(RunDir.HISTORIES, "*.phhs")] * histories
    for folder, pattern in folders:
        for path in sorted((again / folder).glob(pattern)):
            name = f"{folder}/{path.name}"
            theirs = ours.file(name)
            if not theirs.is_file():
                problems.append(f"{name} is missing")
            elif theirs.read_bytes() != path.read_bytes():
                problems.append(f"{name} differs from what the table-sessions give")
    return problems


def _undigested(results: Any) -> Any:
    if not isinstance(results, dict) or not isinstance(results.get("event"), dict):
        return results
    event = {key: value for key, value in results["event"].items() if key != DIGEST_FIELD}
    return {**results, "event": event}


def _moved_prizes(original: Any, recomputed: Any) -> list[str]:
    """Each player whose prize differs, recorded and recomputed."""
    try:
        before = dict(original["prizes"]["by_player"])
        after = dict(recomputed["prizes"]["by_player"])
    except (KeyError, TypeError, ValueError):
        return []
    return [
        f"prize of {player}: recorded {_cents(before.get(player))},"
        f" recomputed {_cents(after.get(player))}"
        for player in sorted(set(before) | set(after))
        if before.get(player) != after.get(player)
    ]


def _cents(value: Any) -> str:
    return f"${value / 100:,.2f}" if isinstance(value, int) else json.dumps(value)


def first_difference(expected: Any, found: Any, path: str) -> str:
    """Where two JSON values first differ, as a dotted path, and how."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for name in sorted(set(expected) | set(found)):
            if expected.get(name) != found.get(name):
                return first_difference(
                    expected.get(name), found.get(name), f"{path}.{name}".lstrip(".")
                )
    elif isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return f"{path}: {len(found)} items recorded, {len(expected)} recomputed"
        for index, (left, right) in enumerate(zip(expected, found, strict=True)):
            if left != right:
                return first_difference(left, right, f"{path}[{index}]")
    return f"{path or 'the document'}: recorded {_brief(found)}, recomputed {_brief(expected)}"


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
