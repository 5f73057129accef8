"""``Runtime.run_units``: every group's results in order, and each group told as soon as
its last unit is in (a section is scored while the others are still played); the
observer sees each result whole, the groups what is scored of it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dp_arena.results import DealRecord, ScoredResult, TableSessionResult
from dp_arena.tournament.interface import NullObserver, Runtime


def _result(unit: str) -> TableSessionResult:
    """A one-deal result that names its unit (its first player)."""
    players = (unit, "other")
    deal = DealRecord(0, 0, players, ("AsKd", "2c2d"), "", ("0:fold",), (-10, 10))
    return TableSessionResult(1, players, (deal,), (), ())


def _names(results: Sequence[ScoredResult]) -> list[str]:
    return [result.players[0] for result in results]


class _Shuffled:
    """Answers each unit with its own name, in a shuffled order, telling each answer as it
    comes (``hand_on``) or none at all; records what happened in ``events``."""

    def __init__(self, seed: int, events: list[tuple[str, Any]], *, hand_on: bool) -> None:
        self.seed = seed
        self.events = events
        self.hand_on = hand_on

    def run(self, units: Sequence[Any], on_result: Callable[[int, Any], None] | None = None) -> Any:
        order = list(range(len(units)))
        random.Random(self.seed).shuffle(order)
        for index in order:
            self.events.append(("unit", units[index]))
            if on_result is not None and self.hand_on:
                on_result(index, _result(units[index]))
        return [_result(unit) for unit in units]


GROUPS = [["a1", "a2", "a3"], [], ["b1"], ["c1", "c2"], ["d1", "d2", "d3", "d4"]]


@pytest.mark.parametrize("seed", range(8))
def test_each_group_is_told_once_right_after_its_last_unit(seed: int) -> None:
    events: list[tuple[str, Any]] = []
    runtime = Runtime(_Shuffled(seed, events, hand_on=True))

    def told(index: int, results: list[Any]) -> None:
        events.append(("group", (index, results)))

    grouped: Any = runtime.run_units("session 1", GROUPS, on_group=told)  # type: ignore[arg-type]
    assert [_names(group) for group in grouped] == GROUPS
    groups_told = [payload for kind, payload in events if kind == "group"]
    assert sorted(index for index, _ in groups_told) == list(range(len(GROUPS)))
    for index, results in groups_told:
        assert results == grouped[index]  # in the order of the group's units
        if GROUPS[index]:  # told at once after its last unit, before any other unit
            position = events.index(("group", (index, results)))
            last = max(events.index(("unit", unit)) for unit in GROUPS[index])
            assert position == last + 1 or events[last + 1][0] == "group"
            assert all(kind == "group" for kind, _ in events[last + 1 : position])


def test_groups_an_executor_does_not_hand_on_are_told_when_it_returns() -> None:
    events: list[tuple[str, Any]] = []
    runtime = Runtime(_Shuffled(3, events, hand_on=False))
    told: list[tuple[int, list[Any]]] = []
    grouped: Any = runtime.run_units(
        "session 1",
        GROUPS,  # type: ignore[arg-type]
        on_group=lambda index, results: told.append((index, results)),
    )
    assert sorted(told) == [(index, results) for index, results in enumerate(grouped)]
    assert _names(grouped[4]) == ["d1", "d2", "d3", "d4"]


class _Seeing(NullObserver):
    def __init__(self) -> None:
        self.seen: list[TableSessionResult] = []

    def unit_finished(self, unit: Any, result: TableSessionResult) -> None:
        self.seen.append(result)


@pytest.mark.parametrize("hand_on", [True, False])
def test_the_observer_sees_each_result_whole_and_the_groups_get_its_nets(hand_on: bool) -> None:
    observer = _Seeing()
    runtime = Runtime(_Shuffled(1, [], hand_on=hand_on), observer)
    grouped: Any = runtime.run_units("session 1", GROUPS)  # type: ignore[arg-type]
    units = [unit for group in GROUPS for unit in group]
    if hand_on:  # with its cards and actions, for the hand history
        assert sorted(result.players[0] for result in observer.seen) == sorted(units)
        assert all(result.deals[0].hole_cards == ("AsKd", "2c2d") for result in observer.seen)
    for group in grouped:
        for result in group:
            assert type(result) is ScoredResult
            assert result.deal_nets == ((-10, 10),)
            assert result.session_nets == (-10, 10)
            assert result == ScoredResult.of(_result(result.players[0]))
