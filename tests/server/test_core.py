"""The server's pieces without a server: the ladder's match is the duplicate match, the
standings are the ratings package's, the pairing favours what the ranking is least sure
of, and the migrations make exactly the models' schema."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from dp_arena.match import MatchConfig, block_scores, play_match, score_match, seatings
from dp_arena.ratings import board_luck
from dp_arena.ratings.clairvoyance import Steps
from dp_arena.server.db import Database, normalise_url
from dp_arena.server.matches import match_units, verify_match
from dp_arena.server.models import Base
from dp_arena.server.pairing import PairStats, choose_table, pair_value
from dp_arena.server.standings import (
    LadderMatch,
    compute_standings,
    default_adjusted,
    leaderboard_json,
    match_blocks,
    match_steps,
)
from dp_arena.units import SerialExecutor


def test_the_ladder_plays_the_duplicate_match_of_dp_arena_match() -> None:
    config = MatchConfig(("tag", "random"), deals=12, seed=5)
    names = ("tag", "random")
    results = SerialExecutor().run(match_units(config, names))
    direct = play_match(config)
    assert tuple(results) == direct.tables
    scored = score_match(config, names, seatings(2), tuple(results))
    assert [score.summary.mean for score in scored.scores] == [
        score.summary.mean for score in direct.scores
    ]


def test_a_published_match_verifies_and_a_changed_one_does_not() -> None:
    config = MatchConfig(("tag", "random"), deals=6, seed=9)
    results = SerialExecutor().run(match_units(config, ("a@1", "b@1")))
    data = {
        "key": config.event_key.hex,
        "commitment": config.event_key.commitment,
        "tables": [result_json(result) for result in results],
        "bots": [{"ref": "a@1"}, {"ref": "b@1"}],
        "deals": 6,
        "betting": "no-limit",
        "small_blind": 10,
        "big_blind": 20,
        "cap": 1000,
    }
    assert verify_match(data) == []
    forged = {**data, "commitment": "0" * 64}
    assert verify_match(forged) == ["the revealed key does not hash to the commitment"]
    tampered = dict(data)
    tampered["tables"] = [dict(table) for table in data["tables"]]
    deals = [dict(deal) for deal in tampered["tables"][0]["deals"]]
    deals[2]["hole_cards"] = list(reversed(deals[2]["hole_cards"]))
    tampered["tables"][0]["deals"] = deals
    problems = verify_match(tampered)
    assert any("table 1, deal 3" in problem and "hole cards" in problem for problem in problems)


def test_verify_match_recomputes_each_bots_clairvoyance_test() -> None:
    config = MatchConfig(("tag", "random"), deals=8, seed=9)
    names = ("a@1", "b@1")
    results = SerialExecutor().run(match_units(config, names))
    scored = score_match(config, names, seatings(2), tuple(results)).to_json()
    data = {
        "key": config.event_key.hex,
        "commitment": config.event_key.commitment,
        "tables": [result_json(result) for result in results],
        "bots": [
            {"ref": name, "clairvoyance": agent["clairvoyance"]}
            for name, agent in zip(names, scored["agents"], strict=True)
        ],
        "deals": 8,
        "betting": "no-limit",
        "small_blind": 10,
        "big_blind": 20,
        "cap": 1000,
    }
    assert verify_match(data) == []
    data["bots"][1]["clairvoyance"] = {**data["bots"][1]["clairvoyance"], "p": 0.5}
    (problem,) = verify_match(data)
    assert problem.startswith("b@1: the clairvoyance test published is")


def test_the_standings_join_each_bots_clairvoyance_steps_over_its_matches() -> None:
    """A bot's test over the ladder is its steps of every match, in the order of the
    matches: one match alone gives exactly the test of dp-arena match."""
    matches = []
    alone = {}
    for number, seed in enumerate((6, 7), start=1):
        config = MatchConfig(("tag", "random"), deals=10, seed=seed)
        names = ("tag@1", "random@1")
        tables = tuple(SerialExecutor().run(match_units(config, names)))
        matches.append(LadderMatch(number, config.rules(), tables, config.event_key.seed))
        alone[number] = score_match(config, names, seatings(2), tables)
    steps = {match.id: match_steps(match) for match in matches}
    assert Steps.join([steps[1]["tag@1"]]) == alone[1].scores[0].clairvoyance
    adjusted = default_adjusted()
    blocks = {match.id: match_blocks(match, adjusted) for match in matches}
    standings = compute_standings(matches, blocks, adjusted=adjusted, resamples=50, steps=steps)
    tag = standings.by_ref["tag@1"].clairvoyance
    assert tag is not None and tag.deals == 20
    assert tag == Steps.join([steps[1]["tag@1"], steps[2]["tag@1"]])
    assert not tag.flagged


def result_json(result: object) -> dict[str, object]:
    from dp_arena.results import to_json

    return to_json(result)  # type: ignore[no-any-return]


def test_standings_are_zero_sum_and_rank_the_better_bot_first() -> None:
    matches = []
    for number, seed in enumerate((1, 2, 3), start=1):
        config = MatchConfig(("tag", "calling-station"), deals=20, seed=seed)
        tables = tuple(SerialExecutor().run(match_units(config, ("tag@1", "station@1"))))
        matches.append(LadderMatch(number, config.rules(), tables))
    adjusted = default_adjusted()
    blocks = {match.id: match_blocks(match, adjusted) for match in matches}
    standings = compute_standings(matches, blocks, adjusted=adjusted, resamples=200)
    tag, station = standings.by_ref["tag@1"], standings.by_ref["station@1"]
    assert tag.deals == station.deals == 60 and tag.matches == station.matches == 3
    assert math.isclose(tag.mbb_per_deal, -station.mbb_per_deal, abs_tol=1e-9)
    assert tag.mbb_per_deal > 0 and tag.mu > station.mu
    assert tag.ci95 is not None and tag.ci95[0] <= tag.mbb_per_deal <= tag.ci95[1]
    beats = standings.beats("tag@1", "station@1")
    assert beats is not None and beats > 0.5


def test_the_ladder_adjusts_by_the_board_luck_of_every_street_beside_the_raw_score() -> None:
    adjusted = default_adjusted()
    # Board and action terms; these bots answer with single actions, so only the board's.
    assert adjusted is not None and adjusted.key == "board+action"
    matches = []
    for number, seed in enumerate((4, 5), start=1):
        config = MatchConfig(("tag", "aggressive"), deals=15, seed=seed)
        tables = tuple(SerialExecutor().run(match_units(config, ("tag@1", "aggro@1"))))
        matches.append(LadderMatch(number, config.rules(), tables))
    blocks = {match.id: match_blocks(match, adjusted) for match in matches}
    standings = compute_standings(matches, blocks, adjusted=adjusted, resamples=200)
    # Again from the hands alone: each deal's real nets less every street's luck (the
    # street-by-street account), scored as dp-arena match scores a duplicate match.
    raw: dict[str, list[float]] = {"tag@1": [], "aggro@1": []}
    corrected: dict[str, list[float]] = {"tag@1": [], "aggro@1": []}
    streets = 0
    for match in matches:
        nets_of = []
        for table in match.tables:
            accounts = [
                board_luck(
                    match.rules,
                    button=deal.button,
                    hole_cards=deal.hole_cards,
                    board=deal.board,
                    actions=deal.actions,
                    absent=deal.absent,
                )
                for deal in table.deals
            ]
            for account, deal in zip(accounts, table.deals, strict=True):
                assert account.real == tuple(deal.nets)
                lucks = [street.luck for street in account.streets]
                assert account.nets == tuple(
                    net - sum(luck[seat] for luck in lucks) for seat, net in enumerate(deal.nets)
                )
                streets += len(account.streets)
            nets_of.append([account.nets for account in accounts])
        names = [match.tables[0].players[seat] for seat in range(2)]
        scored = block_scores(match.tables, seatings(2), match.rules.big_blind)
        scored_adjusted = block_scores(match.tables, seatings(2), match.rules.big_blind, nets_of)
        for index, name in enumerate(names):
            raw[name] += [float(score) for score in scored[index]]
            corrected[name] += [float(score) for score in scored_adjusted[index]]
    assert streets > 0  # some boards came: there was luck to take out
    for name in raw:
        standing = standings.by_ref[name]
        assert standing.mbb_per_deal == pytest.approx(sum(raw[name]) / len(raw[name]))
        assert standing.adjusted_mbb == pytest.approx(sum(corrected[name]) / len(corrected[name]))
        assert standing.adjusted_ci95 is not None
    assert raw["tag@1"] != corrected["tag@1"]
    tag, aggro = standings.by_ref["tag@1"], standings.by_ref["aggro@1"]
    assert tag.adjusted_mbb is not None and aggro.adjusted_mbb is not None
    assert tag.adjusted_mbb == pytest.approx(-aggro.adjusted_mbb)
    # The API's leaderboard shows both, and names the adjustment.
    board = leaderboard_json(
        standings,
        [
            {"id": 1, "name": "tag", "version": "1", "ref": "tag@1", "author": "a"},
            {"id": 2, "name": "aggro", "version": "1", "ref": "aggro@1", "author": "b"},
        ],
        matches=2,
        updated="now",
    )
    assert board["adjusted"]["key"] == "board+action"
    assert board["adjusted"]["terms"] == ["board", "action"]
    for line in board["bots"]:
        standing = standings.by_ref[line["ref"]]
        assert line["mbb_per_deal"] == pytest.approx(standing.mbb_per_deal, abs=0.001)
        assert line["adjusted"]["mbb_per_deal"] == pytest.approx(standing.adjusted_mbb, abs=0.001)


def test_every_bot_plays_in_its_turn_with_the_bots_its_rank_is_least_sure_against() -> None:
    known = {
        "a@1": PairStats(400, 900.0),
        "b@1": PairStats(400, 900.0),
        "c@1": PairStats(400, 900.0),
    }
    sure = {("a@1", "b@1"): 0.999, ("a@1", "c@1"): 0.52, ("b@1", "c@1"): 0.99}

    def p_beats(first: str, second: str) -> float | None:
        return sure.get((first, second)) or (
            None if (second, first) not in sure else 1 - sure[second, first]
        )

    def table(
        entries: list[str], last: dict[str, int], size: int = 2, met: object = None
    ) -> tuple[str, ...] | None:
        return choose_table(entries, known, p_beats, met or {}, last, size=size, deals=100)  # type: ignore[arg-type]

    # The bot that waited longest sits first, with the bot it is least sure to beat.
    assert table(["a@1", "b@1", "c@1"], {"a@1": 3, "b@1": 2, "c@1": 1}) == ("c@1", "a@1")
    assert table(["a@1", "b@1", "c@1"], {"a@1": 1, "b@1": 2, "c@1": 3}) == ("a@1", "c@1")
    # b is sure of its rank against both, and still plays when its turn comes.
    assert table(["a@1", "b@1", "c@1"], {"a@1": 3, "b@1": 1, "c@1": 2})[0] == "b@1"  # type: ignore[index]
    # A new version has played nothing: it sits first; the next new one the match after.
    entries = ["a@1", "b@1", "c@1", "d@1", "e@1"]
    last = {"a@1": 4, "b@1": 5, "c@1": 6}
    assert table(entries, last) == ("d@1", "a@1")
    assert table(entries, {**last, "d@1": 7, "a@1": 7}) == ("e@1", "a@1")
    # Among equals, the bots that met less often.
    met = {frozenset(("a@1", "d@1")): 2, frozenset(("b@1", "d@1")): 1}
    assert table(["a@1", "b@1", "c@1", "d@1"], {"a@1": 1, "b@1": 1, "c@1": 1}, met=met)[:1] == (
        "d@1",
    )  # type: ignore[index]
    assert table(["a@1", "b@1", "c@1", "d@1"], {"a@1": 1, "b@1": 1, "c@1": 1}, met=met) == (
        "d@1",
        "c@1",
    )
    # Three at a table: each added bot is the one worth most against those seated.
    three = table(["a@1", "b@1", "c@1", "d@1"], {"a@1": 1, "b@1": 2, "c@1": 3, "d@1": 4}, size=3)
    assert three is not None and three[0] == "a@1" and len(set(three)) == 3
    assert table(["a@1", "b@1"], {}, size=3) is None
    assert table(["a@1"], {}) is None
    # Fewer deals so far: more to gain from the same match.
    assert pair_value(PairStats(10, 900.0), PairStats(10, 900.0), 0.5, deals=100) > pair_value(
        PairStats(1000, 900.0), PairStats(1000, 900.0), 0.5, deals=100
    )


def test_the_migrations_make_the_models_schema(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'arena.db'}")
    with caplog.at_level(logging.INFO):
        assert database.migrate() is None
        assert database.migrate() == "0004"  # a second time changes nothing
    # One line says what ran, none when nothing did; none of Alembic's own.
    assert caplog.messages == ["database schema made: now at migration 0004"]
    assert database.revision() == "0004"
    with database.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    database.close()


def test_a_database_of_the_first_schema_is_upgraded_with_its_rows(tmp_path: Path) -> None:
    """A heads-up server's database: its tournaments gain a commitment, its matches'
    first and second bots become their players 0 and 1, and back down again."""
    from sqlalchemy import text

    database = Database(f"sqlite:///{tmp_path / 'arena.db'}")
    database.migrate("0001")
    with database.engine.begin() as connection:
        for statement in (
            (
                "INSERT INTO tournaments (name, status, config, run_dir, created_at)"
                " VALUES ('cup', 'published', '', '/r', '2026-01-01T00:00:00Z')"
            ),
            "INSERT INTO authors (name, created_at) VALUES ('alice', 't')",
            *(
                "INSERT INTO submissions (author_id, status, archive_sha256, archive_bytes,"
                f" created_at) VALUES (1, 'accepted', '{digest}', 1, 't')"
                for digest in ("a", "b")
            ),
            (
                "INSERT INTO matches (status, first_id, second_id, deals, betting, small_blind,"
                " big_blind, cap, commitment, created_at, attempts)"
                " VALUES ('finished', 2, 1, 8, 'no-limit', 10, 20, 1000, 'c', 't', 1)"
            ),
            (
                "INSERT INTO ladder_points (match_id, submission_id, deals, mbb_per_deal, mu,"
                " sigma, created_at) VALUES (1, 2, 8, '1.5', '25', '8', 't')"
            ),
        ):
            connection.execute(text(statement))
    database.migrate()
    assert database.revision() == "0004"
    with database.engine.connect() as connection:
        rows = connection.execute(text("SELECT name, commitment FROM tournaments")).all()
        players = connection.execute(
            text("SELECT match_id, position, submission_id FROM match_players ORDER BY position")
        ).all()
        authors = connection.execute(text("SELECT name, house, disabled_at FROM authors")).all()
    assert [tuple(row) for row in rows] == [("cup", None)]
    assert [tuple(row) for row in players] == [(1, 0, 2), (1, 1, 1)]
    assert [tuple(row) for row in authors] == [("alice", False, None)]
    database.downgrade("0001")
    assert database.revision() == "0001"
    with database.engine.connect() as connection:
        matches = connection.execute(text("SELECT first_id, second_id FROM matches")).all()
    assert [tuple(row) for row in matches] == [(2, 1)]
    database.close()


def test_database_urls() -> None:
    assert normalise_url("postgresql://u@h/n").startswith("postgresql+psycopg://")
    assert normalise_url("sqlite:///arena.db") == "sqlite:///arena.db"
    for bad in ("mysql://u@h/n", "not a url"):
        try:
            normalise_url(bad)
        except Exception as error:  # noqa: BLE001 - any refusal names the option
            assert "--db" in str(error)
        else:
            raise AssertionError(f"{bad!r} was taken")
