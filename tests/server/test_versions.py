"""One owner of a bot version: a server's submissions name their versions in the bot
registry and ask it for the rest. A database of the schema that copied the versions'
facts upgrades without losing any (each fact read after is the one stored before),
refuses to upgrade, changing nothing, when its registry no longer holds them, and comes
back down with its copies."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from dp_arena.errors import ConfigError
from dp_arena.registry import Registry, read_manifest
from dp_arena.server import crud, views
from dp_arena.server.db import Database
from dp_arena.server.house import builtin_hash, seat_house_bots
from dp_arena.server.versions import BotVersion, version_of

BOT = "class Bot:\n    def act(self, observation):\n        return 'check'\n"


def _registry(root: Path, versions: dict[str, str]) -> Registry:
    """A registry holding a version of each bot, labelled as given."""
    registry = Registry(root)
    for name, label in versions.items():
        folder = root.parent / "sources" / name
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(BOT + f"# {name}\n")
        (folder / "bot.toml").write_text(
            f'name = "{name}"\nversion = "{label}"\nentry = "bot.py:Bot"\n'
        )
        registry.add(folder, read_manifest(folder), owner="alice")
    return registry


def _old_database(tmp_path: Path, registry: Registry) -> Database:
    """A database of the schema before: an author's bot accepted (version 1 of calla),
    the same content uploaded again (rejected, naming the same version), one still being
    checked, and a house bot, each copying its version's label and hash."""
    calla = registry.resolve("calla@1")
    database = Database(f"sqlite:///{tmp_path / 'arena.db'}", registry=registry.root)
    database.migrate("0003")
    with database.engine.begin() as connection:
        for statement in (
            "INSERT INTO authors (name, created_at, house) VALUES ('alice', 't', 0)",
            "INSERT INTO authors (name, created_at, house) VALUES ('house', 't', 1)",
            "INSERT INTO bots (name, author_id, created_at) VALUES ('calla', 1, 't')",
            "INSERT INTO bots (name, author_id, created_at) VALUES ('tag', 2, 't')",
        ):
            connection.execute(text(statement))
        keys = ("author", "bot", "status", "archive", "name", "label", "version", "digest")
        for values in (
            (1, 1, "accepted", "a", "calla", calla.label, 1, calla.sha256, None),
            (1, 1, "rejected", "b", "calla", calla.label, 1, calla.sha256, "unchanged"),
            (1, None, "checking", "c", None, None, None, None, None),
            (2, 2, "accepted", "builtin", "tag", "built-in", 1, builtin_hash("tag"), None),
        ):
            connection.execute(
                text(
                    "INSERT INTO submissions (author_id, bot_id, status, archive_sha256,"
                    " archive_bytes, created_at, name, label, version, sha256, reason) VALUES"
                    " (:author, :bot, :status, :archive, 1, 't', :name, :label, :version,"
                    " :digest, :reason)"
                ),
                dict(zip((*keys, "reason"), values, strict=True)),
            )
    return database


def _copies(database: Database) -> list[tuple[object, ...]]:
    with database.engine.connect() as connection:
        found = connection.execute(
            text("SELECT id, name, version, label, sha256 FROM submissions ORDER BY id")
        ).all()
    return [tuple(row) for row in found]


def test_an_old_database_upgrades_and_every_version_reads_as_it_was_copied(
    tmp_path: Path,
) -> None:
    registry = _registry(tmp_path / "registry", {"calla": "1.0-beta"})
    database = _old_database(tmp_path, registry)
    before = _copies(database)
    assert before[0][3] == "1.0-beta" and before[3][3] == "built-in"
    database.migrate()
    assert database.revision() == "0004"
    columns = {column["name"] for column in inspect(database.engine).get_columns("submissions")}
    assert {"label", "sha256"}.isdisjoint(columns) and "builtin_sha256" in columns
    with database.session() as session:
        rows = [crud.submission(session, submission) for submission, *_ in before]
        authors, house = crud.authors(session), crud.house_ids(session)
        shown = [views.submission_json(row, authors, house=house) for row in rows if row]
    # Read after the session closed too: a row keeps where its registry is.
    after = [version_of(row) for row in rows if row is not None]
    assert after == [
        None if label is None else BotVersion(str(label), str(digest))
        for _, _, _, label, digest in before
    ]
    assert [(data["version"], data["sha256"], data["ref"]) for data in shown] == [
        (label, digest, None if version is None else f"{name}@{version}")
        for _, name, version, label, digest in before
    ]
    database.downgrade("0003")
    assert _copies(database) == before
    database.close()


@pytest.mark.parametrize("registry_given", [True, False])
def test_an_upgrade_that_would_lose_a_version_is_refused_and_changes_nothing(
    tmp_path: Path, registry_given: bool
) -> None:
    registry = _registry(tmp_path / "registry", {"calla": "1"})
    database = _old_database(tmp_path, registry)
    before = _copies(database)
    if registry_given:  # the registry was replaced by one that lost calla's version 1
        (registry.root / "registry.sqlite").unlink()
        _registry(tmp_path / "registry", {"other": "1"})
        opened = Database(database.url, registry=registry.root)
    else:
        opened = Database(database.url)
    with pytest.raises(ConfigError, match=r"submissions 1 \(calla@1: not in the registry\),"):
        opened.migrate()
    assert opened.revision() == "0003" and _copies(opened) == before
    opened.close()
    database.close()


def test_house_bots_keep_their_own_versions(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'arena.db'}", registry=tmp_path / "none")
    database.migrate()
    assert seat_house_bots(database, ("tag",)) == ["tag@1"]
    assert seat_house_bots(database, ("tag",)) == ["tag@1"]  # the same code: the same version
    with database.session() as session:
        (row,) = crud.current_entries(session)
    assert version_of(row) == BotVersion("built-in", builtin_hash("tag"))
    database.close()
