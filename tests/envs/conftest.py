"""Fixtures of the environment tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def no_multiprocessing_helpers_left() -> Iterator[None]:
    """Stops the helper processes multiprocessing starts once and keeps (its resource
    tracker and fork server), so that the tests that count a test process's children
    (the sandbox's) find none of them."""
    yield
    from multiprocessing import forkserver, resource_tracker

    resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
    forkserver._forkserver._stop()  # type: ignore[attr-defined]
