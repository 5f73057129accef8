"""Fixtures of the server's tests: a PostgreSQL server of the tests' own, started once."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import Postgres, postgres_binaries


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    binaries = postgres_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server here (initdb and pg_ctl; .ci/system-deps.sh installs it)")
    # Its own folder right under the temporary directory: as root, the server runs as
    # nobody, who must reach it (pytest's folders are the owner's alone).
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-postgres-"))
    server = Postgres(binaries, folder)
    try:
        problem = server.start()
        if problem is not None:
            pytest.skip(f"PostgreSQL cannot be started here: {problem}")
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
