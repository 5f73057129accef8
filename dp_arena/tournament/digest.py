"""The results digest: one SHA-256 over everything a finished run publishes as its outcome,
revealed in ``results.json`` beside the deck key, so that a copy of a run can be checked
against the digest its organiser published.

It is the SHA-256 of these bytes, one after the other:

1. the line ``dp-arena results digest v1`` and a newline;
2. ``results.json``'s data in canonical JSON, with ``event.results_digest`` (the digest
   itself) left out: keys sorted, no spaces (``,`` and ``:`` as separators), characters
   beyond ASCII written as themselves in UTF-8, numbers as Python's ``json`` writes them;
   then a newline;
3. one line for each file ``results.json`` names (each session's part, ``sessions[].part``,
   and each hand history, ``histories``, or ``details.histories`` for a classic
   freezeout), in sorted order of their paths: the file's SHA-256 in hex, two spaces,
   its path relative to the run directory, a newline (the lines ``sha256sum`` prints).

>>> document = {"event": {"name": "demo", "results_digest": "ignored"}, "histories": []}
>>> results_digest(document, lambda name: "") == results_digest(
...     {"event": {"name": "demo"}, "histories": []}, lambda name: "")
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["DIGEST_FIELD", "file_sha256", "listed_files", "results_digest"]

DIGEST_FIELD = "results_digest"  # in results.json's event, beside the revealed key
_HEADER = b"dp-arena results digest v1\n"
_CHUNK = 1 << 16  # canonical JSON hashed in pieces of about this many characters


def listed_files(document: Mapping[str, Any]) -> list[str]:
    """The files a ``results.json`` names, relative to its run directory, sorted: each
    session's part and each hand history."""
    names = {
        str(entry["part"])
        for entry in document.get("sessions") or ()
        if isinstance(entry, Mapping) and "part" in entry
    }
    details = document.get("details")
    histories = document.get("histories") or (
        details.get("histories") if isinstance(details, Mapping) else None
    )
    names.update(str(name) for name in histories or ())
    return sorted(names)


def _canonical_pieces(document: Mapping[str, Any]) -> Iterable[str]:
    event = {
        key: value for key, value in (document.get("event") or {}).items() if key != DIGEST_FIELD
    }
    body = {**document, "event": event}
    encoder = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return encoder.iterencode(body)


def results_digest(document: Mapping[str, Any], sha256_of: Callable[[str], str]) -> str:
    """The digest of ``document`` (``results.json``'s data) and of the files it names,
    whose SHA-256 ``sha256_of(path)`` gives (hex)."""
    digest = hashlib.sha256(_HEADER)
    pieces: list[str] = []
    size = 0
    for piece in _canonical_pieces(document):
        pieces.append(piece)
        size += len(piece)
        if size >= _CHUNK:  # a big event's summary is never whole in memory
            digest.update("".join(pieces).encode("utf-8"))
            pieces, size = [], 0
    digest.update("".join(pieces).encode("utf-8") + b"\n")
    for name in listed_files(document):
        digest.update(f"{sha256_of(name)}  {name}\n".encode())
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, in hex, read a piece at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
