"""Who the ladder seats, without a server: the table is chosen when the match starts, so a
bot withdrawn (or an author disabled) before then never plays, not even in a match cut
short and played again; a paused ladder starts nothing; house bots are seated as the
organiser names them; and an author's uploads are counted in the database, one after
the other, however many arrive at once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from dp_arena.errors import ConfigError
from dp_arena.server import crud, moderation
from dp_arena.server.db import Database
from dp_arena.server.house import builtin_hash, parse_house_bots, seat_house_bots
from dp_arena.server.ladder import Ladder
from dp_arena.server.settings import ServerSettings
from dp_arena.server.uploads import UploadRefused, store_upload

from .helpers import accepted


def _arena(tmp_path: Path, url: str | None = None, **options: object) -> tuple[Database, Ladder]:
    settings = ServerSettings(
        db_url=url or f"sqlite:///{tmp_path / 'arena.db'}",
        data_dir=tmp_path / "data",
        ladder_deals=4,
        **options,  # type: ignore[arg-type]
    )
    settings.data.create()
    database = Database(settings.db_url, registry=settings.data.registry)
    database.migrate()
    return database, Ladder(database, settings)


def _players(database: Database, match_id: int) -> list[str]:
    with database.session() as session:
        ids = crud.players_of(session, [match_id])[match_id]
        rows = crud.submissions_by_id(session, ids)
        return [str(rows[player].ref) for player in ids]


def test_house_bots_are_seated_as_named_and_leave_when_left_out(tmp_path: Path) -> None:
    database, _ = _arena(tmp_path)
    assert parse_house_bots(" tag, equity,tag ") == ("tag", "equity")
    with pytest.raises(ConfigError, match="not a built-in"):
        parse_house_bots("tag,nobody")
    assert seat_house_bots(database, ("tag", "calling-station")) == ["tag@1", "calling-station@1"]
    assert seat_house_bots(database, ("tag", "calling-station")) == ["tag@1", "calling-station@1"]
    with database.session() as session:
        entries = crud.current_entries(session)
        house = crud.house_ids(session)
        assert sorted(str(entry.ref) for entry in entries) == ["calling-station@1", "tag@1"]
        assert all(entry.author_id in house for entry in entries)
        assert entries[0].builtin_sha256 == builtin_hash(str(entries[0].name))
    # Left out: off the ladder, its rows kept; named again: back, the same version.
    seat_house_bots(database, ("tag",))
    with database.session() as session:
        assert [str(entry.ref) for entry in crud.current_entries(session)] == ["tag@1"]
        assert crud.bot_named(session, "calling-station") is not None
    assert seat_house_bots(database, ("tag", "calling-station")) == ["tag@1", "calling-station@1"]
    # An author's bot of a built-in's name keeps it: the house bot is refused, said so.
    accepted(database, "alice", "equity")
    with pytest.raises(ConfigError, match="belongs to the author alice"):
        seat_house_bots(database, ("equity",))


def test_a_withdrawn_bot_is_never_seated_not_even_in_a_match_played_again(tmp_path: Path) -> None:
    database, ladder = _arena(tmp_path, table_size=3)
    seat_house_bots(database, ("tag", "calling-station", "random"))
    accepted(database, "alice", "calla")
    first = ladder.next_match()
    assert first is not None and len(_players(database, first)) == 3
    # A stop cuts it; before the restart one of its bots is withdrawn.
    ladder.recover()
    withdrawn = _players(database, first)[0].split("@")[0]
    moderation.withdraw_bot(database, withdrawn, actor="test")
    second = ladder.next_match()
    assert second is not None and second != first
    with database.session() as session:
        cut = crud.match(session, first)
        assert cut is not None and cut.status == crud.VOID
        assert f"{withdrawn}@1 is withdrawn" in str(cut.void_reason)
    assert not ladder.data.key(first).exists()  # never dealt: its key is gone
    assert all(not ref.startswith(f"{withdrawn}@") for ref in _players(database, second))


def test_a_match_that_cannot_be_played_is_void_and_the_ladder_goes_on(tmp_path: Path) -> None:
    """calla's rows say accepted, but the registry holds no such bot: its match fails
    when its seats are made, is void (the reason names no server path), and the next
    match is chosen as usual."""
    database, ladder = _arena(tmp_path)
    seat_house_bots(database, ("tag",))
    accepted(database, "alice", "calla")
    match_id = ladder.next_match()
    assert match_id is not None
    ladder.play_or_void(match_id, None)
    with database.session() as session:
        match = crud.match(session, match_id)
        assert match is not None and match.status == crud.VOID
        assert str(match.void_reason).startswith("it could not be played: ")
        assert str(ladder.data.root) not in str(match.void_reason)
    assert not ladder.data.key(match_id).exists()
    assert ladder.next_match() not in (None, match_id)


def test_a_disabled_authors_bots_and_a_paused_ladder(tmp_path: Path) -> None:
    database, ladder = _arena(tmp_path)
    seat_house_bots(database, ("tag",))
    accepted(database, "alice", "calla")
    accepted(database, "bob", "folda")
    message = moderation.set_author_disabled(database, "bob", True, actor="test")
    assert "bob is disabled" in message and "nothing was deleted" in message
    seated = set()
    for _ in range(4):
        match_id = ladder.next_match()
        assert match_id is not None
        seated |= set(_players(database, match_id))
        with database.session() as session:  # as if played: the next one is chosen
            row = crud.match(session, match_id)
            assert row is not None
            row.status = crud.FINISHED
    assert seated == {"tag@1", "calla@1"}
    with database.session() as session:
        assert crud.bot_named(session, "folda") is not None  # nothing deleted
    assert "paused" in moderation.set_ladder_paused(database, True, actor="test")
    assert ladder.next_match() is None
    moderation.set_ladder_paused(database, False, actor="test")
    moderation.set_author_disabled(database, "bob", False, actor="test")
    found = set()
    for _ in range(3):
        match_id = ladder.next_match()
        assert match_id is not None
        found |= set(_players(database, match_id))
        with database.session() as session:
            row = crud.match(session, match_id)
            assert row is not None
            row.status = crud.FINISHED
    assert "folda@1" in found
    with database.session() as session:
        actions = [row.action for row in crud.moderation_log(session)]
    assert actions == ["enable-author", "resume-ladder", "pause-ladder", "disable-author"]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_simultaneous_uploads_of_one_author_are_counted_in_the_database(
    url: str, tmp_path: Path
) -> None:
    """20 uploads at once: 5 wait for their check, 15 are refused, on SQLite and on
    PostgreSQL (every thread its own connection, as the server's request threads)."""
    database, ladder = _arena(tmp_path, url, max_checking=5)
    settings = ladder.settings
    name = f"carol{threading.get_ident() % 1000}-{tmp_path.name[-6:]}".replace("_", "-")
    with database.session() as session:
        author, _ = crud.add_author(session, name)
    outcomes: list[str] = []
    start = threading.Barrier(20)

    def upload(index: int) -> None:
        start.wait()
        try:
            store_upload(database, settings, author, f"PK {index}".encode(), ".zip")
        except UploadRefused as refusal:
            outcomes.append(refusal.reason)
        else:
            outcomes.append("taken")

    threads = [threading.Thread(target=upload, args=(index,)) for index in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == ["taken"] * 5 + ["too_many_checking"] * 15
    with database.session() as session:
        assert crud.checking_count(session, author) == 5
    database.close()
