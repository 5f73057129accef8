"""A colluding bot uploaded to the server gains nothing on its ladder: its two copies in
a ladder match (one at each mirrored table, the second playing every deal after the
first) read each other's records of the cards through the page cache of the data file
they both hold when nothing stands between them; sandboxed, its match against a
calling bot ends exactly level, as the same bot without a channel's does."""

from __future__ import annotations

import json
import os
from pathlib import Path

from dp_arena.server import crud, views
from dp_arena.server.checks import check_submission
from dp_arena.server.db import Database
from dp_arena.server.ladder import Ladder
from dp_arena.server.settings import ServerSettings

from .helpers import CALLER, bot_folder, zip_folder

COLLUDER = Path(__file__).resolve().parents[1] / "sandbox" / "hostile_bots" / "colluder" / "bot.py"
RECORDS = 40  # a ladder match of 6 deals has 12 records (a seat of a deal each): all apart


def _upload(settings: ServerSettings, database: Database, folder: Path) -> None:
    with database.session() as session:
        author = crud.author_named(session, "mallory")
        assert author is not None
        submission = crud.add_submission(session, author, "0" * 64, 1).id
    settings.data.upload(submission, ".zip").write_bytes(zip_folder(folder))
    assert check_submission(database, settings.data, submission, states=5) == crud.ACCEPTED


def test_a_colluding_bot_ends_its_ladder_match_level(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    settings = ServerSettings(db_url=url, data_dir=tmp_path / "data", ladder_deals=6)
    settings.data.create()
    database = Database(url, registry=settings.data.registry)
    database.migrate()
    with database.session() as session:
        crud.add_author(session, "mallory")
    colluder = bot_folder(tmp_path / "bots", "colluder", COLLUDER.read_text(), "OwnPages")
    # Its records' pages, in a file a zip holds as it is (random bytes do not compress).
    (colluder / "data.bin").write_bytes(os.urandom(RECORDS * 64 * 4096))
    _upload(settings, database, colluder)
    _upload(settings, database, bot_folder(tmp_path / "bots", "caller", CALLER, "Caller"))
    for data in settings.data.root.rglob("data.bin"):  # the registry's copy, out of memory
        with data.open("rb") as file:
            os.fsync(file.fileno())
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    ladder = Ladder(database, settings)
    match_id = ladder.next_match()
    assert match_id is not None
    ladder.play(match_id, None)
    with database.session() as session:
        match = crud.match(session, match_id)
        assert match is not None and match.status == crud.FINISHED
        published = json.loads(json.dumps(views.match_data(session, match)))
    assert [bot["net_chips"] for bot in published["bots"]] == [0, 0]
    # Each seat holds the same cards at both tables and plays them the calling way.
    first, second = published["tables"]
    assert [deal["nets"] for deal in first["deals"]] == [deal["nets"] for deal in second["deals"]]
