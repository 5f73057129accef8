"""The per-address limits alone, on a clock of the test's own: a burst, then a wait
that the bucket's rate sets, writes counted twice, and a bounded memory of addresses."""

from __future__ import annotations

import pytest

from dp_arena.server import limits
from dp_arena.server.limits import RateLimit, Rates


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _limit(rates: Rates) -> tuple[RateLimit, Clock]:
    clock = Clock()
    return RateLimit(app=None, rates=rates, refuse=lambda request, wait: None, clock=clock), clock  # type: ignore[arg-type]


def test_a_burst_then_the_rate() -> None:
    limit, clock = _limit(Rates(requests_per_minute=60, writes_per_minute=0))
    assert [limit.wait("a", writes=False) for _ in range(15)] == [0.0] * 15  # 60 / 4
    assert limit.wait("a", writes=False) == pytest.approx(1.0)  # one a second
    clock.now += 1.0
    assert limit.wait("a", writes=False) == 0.0
    assert limit.wait("a", writes=False) > 0
    assert limit.wait("b", writes=False) == 0.0  # every address its own


def test_writes_have_their_own_smaller_budget() -> None:
    limit, clock = _limit(Rates(requests_per_minute=600, writes_per_minute=12))
    assert [limit.wait("a", writes=True) for _ in range(5)] == [0.0] * 5  # at least 5
    assert limit.wait("a", writes=True) == pytest.approx(5.0)  # 12 a minute
    assert limit.wait("a", writes=False) == 0.0  # reads go on
    clock.now += 5.0
    assert limit.wait("a", writes=True) == 0.0


def test_no_limit_at_zero() -> None:
    limit, _ = _limit(Rates(requests_per_minute=0, writes_per_minute=0))
    assert all(limit.wait("a", writes=True) == 0.0 for _ in range(10_000))
    assert limit.requests == {} and limit.writes == {}


def test_a_flood_of_addresses_is_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ADDRESSES", 100)
    limit, clock = _limit(Rates(requests_per_minute=60, writes_per_minute=0))
    for number in range(1000):
        limit.wait(f"10.0.{number // 256}.{number % 256}", writes=False)
    assert len(limit.requests) <= 100
    clock.now += 3600  # all full again: forgotten first
    limit.wait("late", writes=False)
    assert len(limit.requests) <= 100 and "late" in limit.requests
