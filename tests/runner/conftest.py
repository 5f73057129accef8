"""Fixtures shared by the runner tests."""

from __future__ import annotations

import pytest


@pytest.fixture()
def fixed_code_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests that start and resume a run in this process while the working tree may
    change under them (other work goes on in this checkout): the code version they
    record and check stands still. Tests of the code version itself run a snapshot."""
    monkeypatch.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    monkeypatch.setattr("dp_arena.runner.resume.code_version", lambda: "1" * 64)
