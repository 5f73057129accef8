"""Taking an upload in: the archive kept whole under its submission's id, an archive
that cannot be written leaving neither a file nor a submission, and an ACPC agent refused
by a ladder it cannot play."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.server import crud, uploads
from dp_arena.server.checks import check_submission
from dp_arena.server.db import Database
from dp_arena.server.settings import ServerSettings


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Database, ServerSettings]]:
    settings = ServerSettings(
        db_url=f"sqlite:///{tmp_path / 'arena.db'}", data_dir=tmp_path / "data", ladder=False
    )
    settings.data.create()
    database = Database(settings.db_url, registry=settings.data.registry)
    database.migrate()
    yield database, settings
    database.close()


def test_an_upload_is_kept_whole_under_its_submissions_id(
    server: tuple[Database, ServerSettings],
) -> None:
    database, settings = server
    with database.session() as session:
        author, _ = crud.add_author(session, "alice")
    body = bytes(range(256)) * 40
    number = uploads.store_upload(database, settings, author, body, ".zip")
    assert [path.name for path in settings.data.uploads.iterdir()] == [f"{number}.zip"]
    assert settings.data.upload(number, ".zip").read_bytes() == body
    with database.session() as session:
        submission = crud.submission(session, number)
        assert submission is not None and submission.status == "checking"
        assert submission.archive_bytes == len(body)


def test_an_archive_not_written_leaves_no_submission(
    server: tuple[Database, ServerSettings], monkeypatch: pytest.MonkeyPatch
) -> None:
    database, settings = server
    with database.session() as session:
        author, _ = crud.add_author(session, "bob")

    def full_disk(path: Path, content: str | bytes, *, durable: bool = False) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(uploads, "write_atomic", full_disk)
    with pytest.raises(OSError, match="No space left"):
        uploads.store_upload(database, settings, author, b"archive", ".zip")
    assert list(settings.data.uploads.iterdir()) == []
    with database.session() as session:
        assert crud.checking_count(session, author) == 0


def test_a_pot_limit_ladder_refuses_an_acpc_agent_with_the_reason(
    server: tuple[Database, ServerSettings], tmp_path: Path
) -> None:
    database, settings = server
    with database.session() as session:
        author, _ = crud.add_author(session, "carol")
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr(
            "bot.toml",
            'name = "agent"\nversion = "1"\nprotocol = "acpc"\n'
            'command = "./player {game} {host} {port}"\n',
        )
        archive.writestr("player", "#!/bin/sh\n")
    number = uploads.store_upload(database, settings, author, bundle.getvalue(), ".zip")
    status = check_submission(database, settings.data, number, states=5, betting="pot-limit")
    assert status == "rejected"
    with database.session() as session:
        submission = crud.submission(session, number)
        assert submission is not None and submission.reason == "unplayable"
        assert "an ACPC agent plays no-limit only" in str(submission.message)
