"""Whole events of every format played with built-in bots: they complete, keep the
rules' invariants, and give the same results.json for the same config and seed."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from dp_arena.results import TableSessionResult, session_from_records
from dp_arena.tournament.config import EventConfig
from dp_arena.tournament.documents import plain_session, session_part_text
from dp_arena.tournament.event import run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import parse_config
from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome, SessionOutcome
from dp_arena.tournament.plan import EventPlan
from dp_arena.units import SerialExecutor, TableUnit, run_unit

BOTS = Path(__file__).resolve().parent / "bots"


def _config(
    format_name: str, players: int, *, seed: int = 3, entrants: Sequence[dict] = ()
) -> EventConfig:
    data: dict[str, Any] = {
        "event": {"name": f"test {format_name}", "format": format_name, "seed": seed}
    }
    field = players - len(entrants)
    if field:
        data["field"] = {"count": field, "from": ["random", "calling-station"]}
    if entrants:
        data["entrants"] = list(entrants)
    return parse_config(data)


def _play(config: EventConfig, executor: Any = None) -> tuple[EventPlan, EventResult]:
    event_format = get_format(config.format)
    plan = event_format.plan(config)
    return plan, event_format.play(config, plan, Runtime(executor or SerialExecutor()))


def _check_invariants(config: EventConfig, plan: EventPlan, result: EventResult) -> None:
    entrants = {entrant.player for entrant in config.entrants}
    assert sorted(standing.player for standing in result.standings) == sorted(entrants)
    assert sum(standing.prize_cents for standing in result.standings) == plan.prizes.pool_cents
    assert len(result.sessions) == len(plan.sessions)
    for session_plan, outcome in zip(plan.sessions, result.sessions, strict=True):
        if isinstance(outcome, RoundRobinOutcome):
            assert session_plan.round_robin is not None
            assert outcome.slots.count(None) == session_plan.round_robin.absent
            total_points = sum(points for _, points in outcome.points)
            per_match = sum(session_plan.round_robin.points_by_place) * 2
            assert (
                total_points <= per_match * session_plan.round_robin.matches
            )  # absent players score 0
            for match in outcome.matches:
                for table in match.table_results:
                    assert all(sum(nets) == 0 for nets in table.deal_nets)
            continue
        assert isinstance(outcome, SessionOutcome)
        assert len(outcome.advancing) == (session_plan.advancing or 0)
        for section_plan, section in zip(session_plan.sections, outcome.sections, strict=True):
            rows = section.players
            assert sum(1 for row in rows if row.player is None) == section_plan.absent
            # Absent players never advance and earn nothing.
            assert all(
                not row.advanced and row.carryover_out == 0 for row in rows if row.player is None
            )
            for table in section.table_results:
                assert len(table.deal_nets) == section_plan.deals
                assert all(sum(nets) == 0 for nets in table.deal_nets)  # chips are conserved
            for seat in range(section.seats):
                ranks = sorted(row.rank for row in rows if row.seat == seat)
                assert ranks == list(range(1, section.tables + 1))
                advancing = sum(1 for row in rows if row.seat == seat and row.advanced)
                assert advancing == (
                    0
                    if session_plan.final
                    else section_plan.advancing
                    or section.tables
                    - sum(1 for row in rows if row.seat == seat and row.player is None)
                )
            for row in rows:
                assert row.total_chips == row.starting_chips + row.carryover_in + row.session_net


@pytest.mark.parametrize(
    "format_name, players",
    [
        ("regular", 4),
        ("regular", 5),
        ("regular", 7),
        ("regular", 13),
        ("regular", 31),
        ("short", 7),
        ("short", 13),
        ("short", 25),
        ("short", 35),
        ("sng-short", 15),
        ("sng-round-robin", 4),
        ("sng-round-robin", 6),
    ],
)
def test_full_events_complete_and_keep_the_invariants(format_name: str, players: int) -> None:
    config = _config(format_name, players)
    plan, result = _play(config)
    _check_invariants(config, plan, result)
    assert result.faults == ()


def test_carryover_is_earned_by_rank_and_added_to_the_next_session_only() -> None:
    config = _config("regular", 13)
    _, result = _play(config)
    first, second, third = result.sessions[0], result.sessions[1], result.sessions[2]
    assert isinstance(first, SessionOutcome) and isinstance(second, SessionOutcome)
    assert isinstance(third, SessionOutcome)
    earned = {
        row.player: row.carryover_out
        for section in first.sections
        for row in section.players
        if row.player
    }
    # 5 tables: 500 per place -> 2000, 1500, 1000, 500, 0 by rank.
    for row in first.sections[0].players:
        if row.player:
            assert row.carryover_out == (5 - row.rank) * 500
    for row in second.sections[0].players:
        if row.player:
            assert row.carryover_in == earned[row.player]
            assert row.carryover_out == ((5 - row.rank) * 800 if row.advanced else 0)
    carried = dict(second.carryover)
    for row in third.sections[0].players:  # the semifinal: carryover from session 2 only
        assert row.player is not None and row.carryover_in == carried[row.player]
        assert row.carryover_out == 0  # none into the final


def test_absent_players_never_advance_or_win() -> None:
    for format_name, players in (("regular", 5), ("regular", 11), ("short", 13), ("short", 21)):
        config = _config(format_name, players)
        plan, result = _play(config)
        assert plan.sessions[0].round_robin is not None or plan.sessions[0].sections[0].absent > 0
        _check_invariants(config, plan, result)
        winners = [standing for standing in result.standings if standing.prize_cents]
        assert winners and all(
            standing.player in {e.player for e in config.entrants} for standing in winners
        )


class _ReversedExecutor:
    """Runs units last first (as a parallel executor might finish them) and returns the
    results in order."""

    def run(
        self,
        units: Sequence[TableUnit],
        on_result: Callable[[int, TableSessionResult], None] | None = None,
    ) -> list[TableSessionResult]:
        results: dict[int, TableSessionResult] = {}
        for index in reversed(range(len(units))):
            results[index] = run_unit(units[index])
            if on_result is not None:
                on_result(index, results[index])
        return [results[index] for index in range(len(units))]


def test_same_seed_same_results_json_whatever_the_executor(tmp_path: Path) -> None:
    config = _config("regular", 13, seed=11)
    first = run_event(config, tmp_path / "a")
    second = run_event(config, tmp_path / "b", executor=_ReversedExecutor())
    text = (tmp_path / "a" / "results.json").read_bytes()
    assert text == (tmp_path / "b" / "results.json").read_bytes()
    assert first.summary == second.summary
    run_event(_config("regular", 13, seed=12), tmp_path / "c")
    assert (tmp_path / "c" / "results.json").read_bytes() != text


def test_the_run_directory(tmp_path: Path) -> None:
    config = _config("sng-round-robin", 4)
    run = run_event(config, tmp_path / "run")
    document = json.loads((tmp_path / "run" / "results.json").read_text())
    assert set(document) >= {
        "event",
        "entrants",
        "plan",
        "sessions",
        "standings",
        "prizes",
        "faults",
    }
    assert document["prizes"]["paid_cents"] == document["prizes"]["pool_cents"] == 4000
    assert document["prizes"]["fees_cents"] == 400
    assert (tmp_path / "run" / "summary.txt").read_text() == run.summary
    assert json.loads((tmp_path / "run" / "timing.json").read_text())["deals_played"] == 3 * 2 * 6
    assert (tmp_path / "run" / "sessions" / "session-1.jsonl").is_file()
    histories = sorted((tmp_path / "run" / "histories").glob("*.phhs"))
    if histories:  # PHH writing is there when dp_arena.engine.phh is
        assert len(histories) == 6 and document["histories"] == [
            f"histories/{path.name}" for path in histories
        ]
        from dp_arena.engine.phh import replay_file

        results = replay_file(histories[0])
        assert len(results) == 6
    assert not list((tmp_path / "run").rglob("*.tmp"))
    with pytest.raises(Exception, match="already holds a finished run"):
        run_event(config, tmp_path / "run")


def test_the_summary_indexes_the_sessions_parts_and_totals_every_entrant(tmp_path: Path) -> None:
    """results.json holds no table: each session is a part of its own, JSON Lines that
    join into the session's object again, named with its digest; each entrant's totals
    are those of its tables; and a long list is one row a line."""
    config = _config("regular", 40, seed=3)
    run = run_event(config, tmp_path / "run", keep_sessions=True)
    text = (tmp_path / "run" / "results.json").read_text()
    document = json.loads(text)
    assert "table_results" not in text and "deal_nets" not in text
    assert [entry["session"] for entry in document["sessions"]] == [
        outcome.session for outcome in run.result.sessions
    ]
    for entry, outcome in zip(document["sessions"], run.result.sessions, strict=True):
        part = (tmp_path / "run" / entry["part"]).read_bytes()
        assert hashlib.sha256(part).hexdigest() == entry["sha256"]
        records = [json.loads(line) for line in part.splitlines()]
        assert len(records) == entry["records"] and records[0]["record"] == "session"
        assert session_from_records(records) == plain_session(outcome)
        # Written a table at a time, it is the text of the session's whole object.
        assert part == session_part_text(plain_session(outcome)).encode()
    nets: Counter[str] = Counter()
    deals: Counter[str] = Counter()
    for outcome in run.result.sessions:
        groups = outcome.matches if isinstance(outcome, RoundRobinOutcome) else outcome.sections
        for group in groups:
            for table in group.table_results:
                for seat, player in enumerate(table.players):
                    if player is not None:
                        nets[player] += sum(deal[seat] for deal in table.deal_nets)
                        deals[player] += len(table.deal_nets)
    totals = {row["player"]: row for row in document["totals"]}
    assert [row["player"] for row in document["totals"]] == [e.player for e in config.entrants]
    assert all(totals[player]["net_chips"] == nets[player] for player in totals)
    assert all(totals[player]["deals"] == deals[player] for player in totals)
    assert sum(row["net_chips"] for row in document["totals"]) == 0
    lines = text.splitlines()
    for entrant in config.entrants:  # one line each, whole
        assert sum(f'"player": "{entrant.player}"' in line for line in lines) >= 2


@pytest.mark.parametrize(("format_name", "players"), [("regular", 40), ("short", 25)])
def test_a_run_forgets_each_session_once_its_part_is_written(
    tmp_path: Path, format_name: str, players: int
) -> None:
    """By default a run keeps no session's whole outcome, only what the summary needs:
    every file is the same as a run's that kept them all, and the parts give them back."""
    config = _config(format_name, players, seed=5)
    kept = run_event(config, tmp_path / "kept", keep_sessions=True)
    run = run_event(config, tmp_path / "run")
    assert run.result.sessions == () and len(kept.result.sessions) == len(run.result.briefs) > 1
    assert run.result.briefs == kept.result.briefs and run.result.totals == kept.result.totals
    assert list(run.sessions()) == [plain_session(outcome) for outcome in kept.result.sessions]
    files = sorted(
        path.relative_to(tmp_path / "kept")
        for path in (tmp_path / "kept").rglob("*")
        if path.is_file() and path.name != "timing.json"
    )
    assert Path("results.json") in files and Path("summary.txt") in files
    for name in files:
        assert (tmp_path / "run" / name).read_bytes() == (tmp_path / "kept" / name).read_bytes()


def test_every_table_of_a_section_plays_the_same_cards() -> None:
    """The duplicate guarantee, through the units the formats build."""
    config = _config("regular", 23)
    plan = get_format("regular").plan(config)
    seen: list[tuple[TableUnit, TableSessionResult]] = []

    class Recording(SerialExecutor):
        def run(
            self, units: Sequence[TableUnit], on_result: Any = None
        ) -> list[TableSessionResult]:
            results = super().run(units, on_result)
            seen.extend(zip(units, results, strict=True))
            return results

    get_format("regular").play(config, plan, Runtime(Recording()))
    by_section: dict[tuple[int, int], list[TableSessionResult]] = {}
    for unit, result in seen:
        by_section.setdefault((unit.session, unit.section), []).append(result)
    assert len(by_section) > 5
    for results in by_section.values():
        for deal in range(len(results[0].deals)):
            assert len({result.deals[deal].hole_cards for result in results}) == 1
            boards = sorted((result.deals[deal].board for result in results), key=len)
            assert all(
                boards[-1].startswith(board) for board in boards
            )  # shorter when folded early


def test_bots_see_no_standings_in_elimination_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "spy.jsonl"
    monkeypatch.setenv("DP_ARENA_SPY_LOG", str(log))
    spies = [
        {"name": f"spy-{index}", "agent": f"{BOTS / 'spy.py'}:Spy", "trusted": True}
        for index in range(8)
    ]
    config = _config("regular", 8, entrants=spies)
    _, result = _play(config)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    by_session = Counter((line["session"], line["eliminating"]) for line in lines)
    # Session 1 eliminates no one: standings visible. Session 2 (the semifinal) hides them.
    # The round-robin final (session 3) eliminates no one.
    assert set(by_session) == {(1, False), (2, True), (3, False)}
    for line in lines:
        if line["eliminating"]:
            assert line["table_session_nets"] is None and line["seat_position_rank"] is None
        else:
            assert line["table_session_nets"] is not None
        assert line["session_chips"] >= 0
    assert result.faults == ()


def test_a_bot_that_cannot_load_plays_as_absent_and_the_event_completes() -> None:
    broken = {"name": "broken", "agent": f"{BOTS / 'spy.py'}:Broken", "trusted": True}
    config = _config("short", 8, entrants=[broken])
    plan, result = _play(config)
    _check_invariants(config, plan, result)
    assert {fault.kind.value for fault in result.faults if fault.player == "broken"} <= {
        "LOAD_ERROR",
        "CRASH",
    }
    assert any(fault.player == "broken" for fault in result.faults)


def test_units_are_plain_data_that_round_trip_through_json() -> None:
    config = _config("regular", 11)
    plan = get_format("regular").plan(config)
    units: list[TableUnit] = []

    class Keeping(SerialExecutor):
        def run(
            self, batch: Sequence[TableUnit], on_result: Any = None
        ) -> list[TableSessionResult]:
            units.extend(batch)
            return super().run(batch, on_result)

    get_format("regular").play(config, plan, Runtime(Keeping()))
    assert len({unit.key for unit in units}) == len(units)
    for unit in units:
        data = json.loads(json.dumps(unit.to_json()))
        assert TableUnit.from_json(data) == unit
    # A unit replayed alone gives the same result (what a worker elsewhere would return).
    assert run_unit(TableUnit.from_json(units[0].to_json())) == run_unit(units[0])


def test_identical_bots_tie_and_ties_share_the_money() -> None:
    """Calling stations in every seat play every mirrored deal identically, so every seat
    position ends level: money ties are not broken (docs/formats.md) and round-robin ties that
    nothing separates are declared ties (docs/formats.md)."""
    stations = [{"name": f"cs-{index}", "agent": "calling-station"} for index in range(6)]
    config = _config("short", 6, entrants=stations)  # final: 2 tables x 2, pool $60.00
    _, result = _play(config)
    finalists = [standing for standing in result.standings if standing.eliminated_in is None]
    assert len(finalists) == 4 and {standing.prize_cents for standing in finalists} == {1500}
    config = _config("sng-round-robin", 4, entrants=stations[:4])  # pool $40.00
    _, result = _play(config)
    assert [(s.place, s.place_to, s.prize_cents) for s in result.standings] == [(1, 4, 1000)] * 4


def test_a_big_field_is_summed_up_on_the_terminal_and_listed_whole_in_summary_txt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many sections are summed up by their sizes; the terminal's summary lists the first
    places only, summary.txt every one (thresholds lowered to keep the field small)."""
    import dp_arena.tournament.describe as describe
    import dp_arena.tournament.event as event

    monkeypatch.setattr(describe, "LISTED_SECTIONS", 3)
    monkeypatch.setattr(event, "SCREEN_PLACES", 10)
    config = _config("regular", 100)
    run = run_event(config, tmp_path / "run")
    first = run.plan.sessions[0]
    sizes = [section.players for section in first.sections]
    assert len(sizes) > 3 and sum(sizes) == 100
    low, high = min(sizes), max(sizes)
    spread = str(low) if low == high else f"{low}-{high}"
    went_on = run.result.briefs[0].advancing
    line = f"session 1: {len(sizes)} sections of {spread} players (100 seated); {went_on} go on"
    assert line in run.summary.splitlines()
    whole = (tmp_path / "run" / "summary.txt").read_text()
    assert whole == run.summary
    players = [standing.player for standing in run.result.standings]
    assert all(f"  {player} " in whole for player in players)
    screen = run.screen_summary.splitlines()
    heading = screen.index("final standings:")
    shown = screen[heading + 1 : heading + 11]
    assert [line.split()[1] for line in shown] == players[:10]
    assert screen[heading + 11] == "  ... and 90 more: summary.txt lists every place"
    assert not any(f"  {player} " in run.screen_summary for player in players[10:])
    # What follows the standings is the same on the terminal as in the file.
    assert run.screen_summary.split("summary.txt lists every place\n")[1] in whole


def test_a_field_within_the_limits_shows_the_same_summary_on_the_terminal(tmp_path: Path) -> None:
    run = run_event(_config("regular", 40), tmp_path / "run")
    assert run.screen_summary == run.summary
    assert "sections of" in run.summary and " seated)" not in run.summary


def test_a_sessions_part_is_written_while_the_next_session_plays(tmp_path: Path) -> None:
    """Not between the sessions, where the workers would wait for it: a session's part is
    on disk once the next session's first table is in, and the last one's by the end."""
    run_dir = tmp_path / "run"
    seen: list[tuple[int, list[str], list[str]]] = []

    class Watching(SerialExecutor):
        def run(self, units, on_result=None):  # type: ignore[no-untyped-def]
            def told(index: int, result: TableSessionResult) -> None:
                before = sorted(path.name for path in (run_dir / "sessions").glob("*.jsonl"))
                if on_result is not None:
                    on_result(index, result)
                after = sorted(path.name for path in (run_dir / "sessions").glob("*.jsonl"))
                if index == 0:
                    seen.append((units[0].session, before, after))

            return super().run(units, told)

    config = _config("regular", 40, seed=5)
    run = run_event(config, run_dir, executor=Watching())
    assert len(seen) == len(run.result.briefs) > 2
    for session, before, after in seen:
        parts = [f"session-{number}.jsonl" for number in range(1, session)]
        assert before == parts[:-1] and after == parts
    kept = run_event(config, tmp_path / "kept", keep_sessions=True)
    assert list(run.sessions()) == [plain_session(outcome) for outcome in kept.result.sessions]
    document = json.loads((run_dir / "results.json").read_text())
    assert [part["session"] for part in document["sessions"]] == list(range(1, len(seen) + 1))
