"""The progress display: plan totals worked by hand from the regular chart, the live
line's figures under a fake clock, and silence where there is no terminal."""

from __future__ import annotations

import io
from pathlib import Path

from dp_arena.runner.progress import PlanTotals, RunLog, RunProgress
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.loading import default_config
from tests.test_progress import Clock, Terminal


def test_plan_totals_of_an_eight_player_regular_tournament() -> None:
    # The rules: 8 players play 4 tables x 2 for 8 deals in session 1 and in session 2
    # (the semifinal, 6 of 8 go on), then the round robin of 6: 5 mini-matches of
    # 3 heads-up tables, 6 deals each (RR-30).
    plan = get_format("regular").plan(default_config("regular", 8))
    totals = PlanTotals.of(plan)
    assert totals == PlanTotals(
        sessions=3, table_sessions=4 + 4 + 5 * 3, table_deals=32 + 32 + 15 * 6
    )


def test_the_live_line_shows_sessions_tables_rate_and_eta() -> None:
    clock = Clock()
    stream = Terminal()
    progress = RunProgress(PlanTotals(3, 23, 154), stream=stream, clock=clock, refresh_seconds=0)
    progress.session_started(1, 4)
    progress.unit_done(8, stored=True)  # from the store: not played now, not in the rate
    clock.now += 2.0
    for _ in range(3):
        progress.unit_done(8)
    # 24 deals played in 2 s: 12 deals/s; 154 - 32 = 122 deals left: 10.2 s.
    assert progress.deals_played == 24
    assert progress.line() == (
        "session 1/3 | table-sessions 4/4 (event 4/23) | 32 table-deals | 1 from the store"
        " | 12 table-deals/s | ETA 0:00:10"
    )
    shown = stream.getvalue()
    assert shown.startswith("\rsession 1/3 | table-sessions 0/4")
    assert shown.endswith("\r" + progress.line() + "\x1b[K")
    progress.finish()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_no_terminal_or_quiet_means_no_output() -> None:
    for stream, live in ((io.StringIO(), None), (Terminal(), False)):
        progress = RunProgress(PlanTotals(1, 2, 12), stream=stream, live=live, refresh_seconds=0)
        progress.session_started(1, 2)
        progress.unit_done(6)
        progress.finish()
        assert stream.getvalue() == ""
        assert progress.units_done == 1


def test_the_line_is_refreshed_at_most_as_often_as_asked() -> None:
    clock = Clock()
    stream = Terminal()
    progress = RunProgress(PlanTotals(1, 100, 600), stream=stream, clock=clock, refresh_seconds=1.0)
    progress.session_started(1, 100)
    for _ in range(50):
        clock.now += 0.125  # exact in binary: 50 units over 6.25 s
        progress.unit_done(6)
    # One line at the start, then one per simulated second.
    assert stream.getvalue().count("\r") == 1 + 6


def test_the_run_log(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "run" / "run.log")
    log.write("one\ntwo")
    log.write("three")
    lines = log.path.read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["one", "two", "three"]
