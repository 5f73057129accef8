"""``dp-arena submit PATH --server URL --token TOKEN``: upload a bot to a dp-arena server.

A folder is copied with the registry's own checks (no links out of it, no special
files, the size limits) and zipped; an archive is sent as it is. The server answers at
once with the submission's id and checks the bot in its sandbox in the background; this
command waits for the check (unless ``--no-wait``) and prints its outcome, ending with
the status. Standard library only: nothing to install to submit.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from dp_arena.commands import FAILED, USAGE
from dp_arena.errors import SubmissionError
from dp_arena.registry import unpack
from dp_arena.text import printable

__all__ = ["archive_bytes", "upload"]

WAIT_SECONDS = 600


def archive_bytes(path: Path) -> tuple[bytes, str]:
    """The bytes to send and their Content-Type: a folder zipped, an archive as it is."""
    name = path.name.lower()
    if path.is_file() and name.endswith(".zip"):
        return path.read_bytes(), "application/zip"
    if path.is_file() and name.endswith((".tar.gz", ".tgz")):
        return path.read_bytes(), "application/gzip"
    if not path.is_dir():
        raise SubmissionError("bad_archive", f"{path}: submit a folder, a .zip or a .tar.gz")
    staging = Path(tempfile.mkdtemp(prefix="dp-arena-upload-"))
    try:
        unpack(path, staging)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
            for file in sorted(staging.rglob("*")):
                if file.is_file():
                    info = zipfile.ZipInfo(file.relative_to(staging).as_posix())
                    info.external_attr = (file.stat().st_mode & 0o777 | 0o100000) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    bundle.writestr(info, file.read_bytes())
        return buffer.getvalue(), "application/zip"
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _request(
    url: str, *, token: str, method: str = "GET", body: bytes | None = None, kind: str = ""
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if kind:
        headers["Content-Type"] = kind
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        try:
            data = json.loads(error.read() or b"{}")
        except ValueError:
            data = {"error": "http", "message": f"HTTP {error.code}"}
        return error.code, data


def upload(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("DP_ARENA_TOKEN")
    if not token:
        print("dp-arena submit: --server needs --token TOKEN (or $DP_ARENA_TOKEN)", file=sys.stderr)
        return 2
    base = str(args.server).rstrip("/")
    try:
        body, kind = archive_bytes(args.path)
    except SubmissionError as error:
        print(printable(f"dp-arena submit: refused ({error.reason}): {error}"))
        return 1
    try:
        status, data = _request(
            f"{base}/api/bots", token=token, method="POST", body=body, kind=kind
        )
    except (urllib.error.URLError, OSError, ValueError) as error:
        print(printable(f"dp-arena submit: cannot reach {base}: {error}"), file=sys.stderr)
        return 2
    if status == 401:
        where = "--token" if args.token else "$DP_ARENA_TOKEN"
        print(
            printable(
                f"dp-arena submit: {base} does not accept the token given by {where}:"
                f" {data.get('message')}"
            ),
            file=sys.stderr,
        )
        return USAGE
    if status != 202:
        print(
            printable(
                f"dp-arena submit: the server refused the upload ({status}"
                f" {data.get('error')}): {data.get('message')}"
            )
        )
        return FAILED
    submission = data["id"]
    print(f"uploaded: submission {submission}; its check runs on the server ({base}{data['page']})")
    if args.no_wait:
        print(f"status: checking (follow it at {base}/api/bots/{submission})")
        return 0
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        status, data = _request(f"{base}/api/bots/{submission}", token=token)
        if status != 200 or data.get("status") != "checking" or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    if args.json:
        print(json.dumps(data, indent=2))
    state = data.get("status", "unknown")
    if state == "accepted":
        print(
            printable(f"accepted as {data['ref']} (version {data['version']}); it joins the ladder")
        )
    elif data.get("message"):
        print(printable(f"{data.get('reason')}: {data.get('message')}"))
    print(f"status: {state}")
    return 0 if state == "accepted" else 1
