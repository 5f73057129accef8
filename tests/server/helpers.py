"""A real dp-arena server for the tests: ``dp-arena serve`` in its own process on a free
loopback port, bots to upload, and a PostgreSQL server of the tests' own."""

from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from dp_arena.server.db import Database

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "import sys; from dp_arena.cli import main; sys.exit(main())"]

CALLER = """from dp_arena.engine import Action, ActionKind


class Caller:
    def act(self, observation):
        if observation.can(ActionKind.CALL):
            return Action.call()
        return Action.check()
"""

FOLDER = '''from dp_arena.engine import Action, ActionKind


class Folder:
    """Checks when it can, folds to any bet."""

    def act(self, observation):
        if observation.can(ActionKind.CHECK):
            return Action.check()
        return Action.fold()
'''


def bot_folder(root: Path, name: str, source: str, cls: str, version: str = "1.0") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source, encoding="utf-8")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = {json.dumps(version)}\nentry = "bot.py:{cls}"\n',
        encoding="utf-8",
    )
    return folder


def zip_folder(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                bundle.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cli(
    *arguments: str, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *arguments], capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False
    )


def add_author(db: str, name: str, data: Path) -> str:
    done = cli("server", "add-author", name, "--db", db, "--data", str(data))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


class Server:
    """``dp-arena serve`` on a free port; :meth:`kill` sends SIGKILL, :meth:`start` again
    resumes on the same database."""

    def __init__(self, db: str, data: Path, log: Path, *options: str) -> None:
        self.db, self.data, self.log_path, self.options = db, data, log, options
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - the process keeps writing to it
        self.process = subprocess.Popen(
            [
                *CLI,
                "serve",
                "--db",
                self.db,
                "--data",
                str(self.data),
                "--port",
                str(self.port),
                *self.options,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.log()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError(f"the server did not start: {self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-4000:]

    def kill(self) -> None:
        """SIGKILL to the server and whatever it started (its sandboxed bots)."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=30, **kwargs)

    def wait_for(self, path: str, predicate: Any, timeout: float = 120, step: float = 0.2) -> Any:
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            answer = self.get(path)
            if answer.status_code == 200:
                last = answer.json()
                if predicate(last):
                    return last
            time.sleep(step)
        raise AssertionError(f"timed out waiting on {path}: last {last!r}\n{self.log()}")


@contextlib.contextmanager
def running(server: Server) -> Iterator[Server]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


# -- PostgreSQL ------------------------------------------------------------------------------


def postgres_binaries() -> Path | None:
    for candidate in [
        shutil.which("initdb"),
        *sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")),
    ]:
        if candidate and Path(candidate).with_name("pg_ctl").exists():
            return Path(candidate).resolve().parent
    return None


class Postgres:
    """A PostgreSQL server of the tests' own in a temporary folder (as ``nobody`` when the
    tests run as root: PostgreSQL refuses to run as root), on a free loopback port."""

    def __init__(self, binaries: Path, folder: Path) -> None:
        self.binaries, self.folder = binaries, folder
        self.port = free_port()
        self.data = folder / "pgdata"
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            self.prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

    @property
    def url(self) -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, *command],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )

    def start(self) -> str | None:
        """Start it; ``None``, or why it cannot be had here."""
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.prefix:
            os.chown(self.folder, 65534, 65534)
            os.chmod(self.folder, 0o700)
        made = self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "arena",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        if made.returncode != 0:
            return f"initdb failed: {made.stderr.strip()[-300:]}"
        options = f"-p {self.port} -k {self.folder} -h 127.0.0.1 -c fsync=off"
        started = self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-l",
            str(self.folder / "log"),
            "start",
        )
        if started.returncode != 0:
            return f"pg_ctl start failed: {started.stderr.strip()[-300:]}"
        return None

    def stop(self) -> None:
        self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")


def accepted(database: Database, author: str, bot: str, *, version: int = 1) -> int:
    """An accepted ``version`` of ``bot`` by ``author`` (rows only: nothing here plays it,
    and no archive is stored); its submission's id."""
    from dp_arena.server import crud
    from dp_arena.server.models import Submission, now

    with database.session() as session:
        found = crud.author_named(session, author) or crud.add_author(session, author)[0]
        claimed = crud.claim_bot_name(session, bot, found.id)
        assert claimed is not None
        row = Submission(
            author_id=found.id,
            bot_id=claimed.id,
            status=crud.ACCEPTED,
            archive_sha256="0" * 64,
            archive_bytes=1,
            created_at=now(),
            name=bot,
            version=version,
        )
        session.add(row)
        session.flush()
        return int(row.id)
