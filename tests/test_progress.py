"""The one progress line (dp_arena.progress): drawn in place on a terminal at most as often
as asked, forced lines always; whole lines now and then in a log when asked; nothing
otherwise; cleared at the end."""

from __future__ import annotations

import io

from dp_arena.progress import ProgressLine, format_duration


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_terminal_line_is_redrawn_at_most_every_interval_and_when_forced() -> None:
    clock, stream = Clock(), Terminal()
    line = ProgressLine(stream, interval=1.0, clock=clock)
    for step in range(40):  # 40 updates over 5 s: one at the start, then one a second
        line.show(f"step {step}")
        clock.now += 0.125
    assert stream.getvalue().count("\r") == 5
    line.show("the end", force=True)
    assert stream.getvalue().endswith("\rthe end\x1b[K")
    line.finish()
    assert stream.getvalue().endswith("\r\x1b[K")
    line.finish()  # once only
    assert stream.getvalue().count("\r\x1b[K") == 1


def test_counts_stages_and_the_time_taken() -> None:
    clock, stream = Clock(), Terminal()
    line = ProgressLine(stream, timed=True, clock=clock)
    line.stage("reading the runs")
    clock.now += 3.4
    line.count("run-1", 812, 2040, "table-sessions")
    line.count("run-1", 2040, 2040, "table-sessions")  # the end of a count is always drawn
    assert stream.getvalue().split("\r")[1:] == [
        "reading the runs ...  [0 s]\x1b[K",
        "run-1: 812/2,040 table-sessions  [3 s]\x1b[K",
        "run-1: 2,040/2,040 table-sessions  [3 s]\x1b[K",
    ]


def test_a_log_gets_whole_lines_now_and_then_only_when_asked() -> None:
    clock = Clock()
    silent, log = io.StringIO(), io.StringIO()
    quiet = ProgressLine(silent, clock=clock)
    logged = ProgressLine(log, log_every=30.0, clock=clock)
    for second in range(95):
        for line in (quiet, logged):
            line.show(f"second {second}")
        clock.now += 1.0
    logged.show("done", force=True)
    quiet.finish(), logged.finish()
    assert silent.getvalue() == ""
    assert log.getvalue().splitlines() == ["second 30", "second 60", "second 90", "done"]


def test_quiet_means_nothing_even_on_a_terminal_or_in_a_log() -> None:
    for stream in (Terminal(), io.StringIO()):
        line = ProgressLine(stream, live=False, log_every=0.0)
        line.show("anything", force=True)
        line.finish()
        assert stream.getvalue() == ""


def test_durations() -> None:
    assert format_duration(3725.4) == "1:02:05"
    assert format_duration(0.4) == "0:00:00"
    assert format_duration(-3) == "0:00:00"
