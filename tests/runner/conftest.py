"""Fixtures shared by the runner tests."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ray_token() -> Iterator[Path]:
    """One token for every Ray cluster the runner tests start: Ray 2.60 turns token
    authentication on by default, and a driver process reads its token once (a fresh
    machine has no ``~/.ray/auth_token``). ``RAY_AUTH_TOKEN_PATH`` names it meanwhile."""
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-ray-token-"))
    token = folder / "auth_token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    saved = os.environ.get("RAY_AUTH_TOKEN_PATH")
    os.environ["RAY_AUTH_TOKEN_PATH"] = str(token)
    try:
        yield token
    finally:
        if saved is None:
            os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
        else:
            os.environ["RAY_AUTH_TOKEN_PATH"] = saved
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def fixed_code_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests that start and resume a run in this process while the working tree may
    change under them (other work goes on in this checkout): the code version they
    record and check stands still. Tests of the code version itself run a snapshot."""
    monkeypatch.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    monkeypatch.setattr("dp_arena.runner.resume.code_version", lambda: "1" * 64)
