"""The duplicate cash game: settlements worked by hand, zero-sum and exact to the cent
against exact fractions, the seating schedule's rules, and whole games with built-in
bots (duplicate deals across stretches, the button moving on, same seed → same results)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.errors import ConfigError
from dp_arena.results import TableSessionResult
from dp_arena.tournament.cash.schedule import schedule_cash_game
from dp_arena.tournament.cash.settlement import apply_rake, settle_average, settle_matchpoints
from dp_arena.tournament.event import run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import check_config, parse_config
from dp_arena.units import SerialExecutor, TableUnit

# -- settlement ---------------------------------------------------------------------


def test_average_settlement_by_hand() -> None:
    # Nets 300, -100, -110, 10: average 25; at 2 cents a chip: 550, -250, -270, -30.
    assert settle_average([300, -100, -110, 10], chip_value_cents=2) == (550, -250, -270, -30)
    # Nets 100, 0, 0: exact 66 2/3, -33 1/3, -33 1/3 cents; the cent left over by rounding
    # down goes to the largest remainder, the earlier table among equals.
    assert settle_average([100, 0, 0], chip_value_cents=1) == (67, -33, -34)
    # Everyone alike: nothing changes hands.
    assert settle_average([-20, -20, -20], chip_value_cents=5) == (0, 0, 0)
    assert settle_average([40], chip_value_cents=1) == (0,)


def test_matchpoint_settlement_by_hand() -> None:
    # Nets 500, 20, 20, -300: matchpoints 3, 1.5, 1.5, 0 against an average of 1.5.
    assert settle_matchpoints([500, 20, 20, -300], matchpoint_cents=100) == (150, 0, 0, -150)
    # Three players, one matchpoint = 1 cent: 2, 1, 0 → +1, 0, -1.
    assert settle_matchpoints([3, 2, 1], matchpoint_cents=1) == (1, 0, -1)
    # Two tied of two: 0.5 each, the average.
    assert settle_matchpoints([7, 7], matchpoint_cents=100) == (0, 0)


def test_rake_comes_from_positive_settlements_only() -> None:
    settled, rakes = apply_rake((550, -250, -270, -30), rake_basis_points=250)
    assert rakes == (13, 0, 0, 0)  # 2.5 % of 550 = 13.75, rounded down
    assert settled == (537, -250, -270, -30) and sum(settled) == -sum(rakes)


@given(
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=15),
    st.integers(1, 37),
)
def test_average_settlement_is_zero_sum_and_exact_to_a_cent(nets: list[int], value: int) -> None:
    settled = settle_average(nets, chip_value_cents=value)
    assert sum(settled) == 0
    average = Fraction(sum(nets), len(nets))
    for net, amount in zip(nets, settled, strict=True):
        exact = (net - average) * value
        assert abs(amount - exact) < 1
    # A better net never settles for less.
    pairs = sorted(zip(nets, settled, strict=True))
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(pairs) if a[0] < b[0])


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=15), st.integers(1, 301))
def test_matchpoint_settlement_is_zero_sum_and_exact_to_a_cent(nets: list[int], value: int) -> None:
    settled = settle_matchpoints(nets, matchpoint_cents=value)
    assert sum(settled) == 0
    for net, amount in zip(nets, settled, strict=True):
        points = sum(Fraction(1) if net > o else Fraction(1, 2) if net == o else 0 for o in nets)
        exact = (points - Fraction(1, 2) - Fraction(len(nets) - 1, 2)) * value
        assert abs(amount - exact) < 1


# -- the seating schedule -------------------------------------------------------------

PLAYERS = [f"p{index:02d}" for index in range(1, 15)]


def test_waiting_players_take_the_seats_of_those_who_leave() -> None:
    """6 players at 2 tables x 2, two deals each: the first four play deals 0-1, then the
    two who waited sit at table 1 (seats 0 and 1), which compares no one: the game ends."""
    schedule = schedule_cash_game(
        PLAYERS[:6], tables=2, seats=2, deals=10, seed=4, deals_per_player=2, leave_basis_points=0
    )
    assert [(s.first_deal, s.deals) for s in schedule.stretches] == [(0, 2)]
    assert sorted(p for row in schedule.stretches[0].seating for p in row if p) == PLAYERS[:4]
    assert dict(schedule.deals_played) == {**dict.fromkeys(PLAYERS[:4], 2), "p05": 0, "p06": 0}


@pytest.mark.parametrize("seed", range(6))
def test_schedule_rules_hold(seed: int) -> None:
    schedule = schedule_cash_game(
        PLAYERS, tables=2, seats=5, deals=60, seed=seed, deals_per_player=30, leave_basis_points=400
    )
    deal = 0
    left: set[str] = set()
    previous: Sequence[Sequence[str | None]] | None = None
    for stretch in schedule.stretches:
        assert stretch.first_deal == deal and stretch.deals >= 1
        assert stretch.seating != previous
        seated = [p for row in stretch.seating for p in row if p is not None]
        assert len(seated) == len(set(seated))
        assert not set(seated) & left  # a player who left never comes back
        if previous is not None:
            before = {p for row in previous for p in row if p is not None}
            left |= before - set(seated)
            waiting = [p for p in PLAYERS if p not in before and p not in left]
            # While players wait, every seat left empty is taken at the next deal.
            if len(waiting) >= stretch.absent:
                assert stretch.absent == 0 or len(waiting) == len(set(seated) - before)
        previous = stretch.seating
        deal += stretch.deals
    assert schedule.deals == deal <= 60
    assert all(count <= 30 for _, count in schedule.deals_played)


# -- whole games ----------------------------------------------------------------------


class _Recorder:
    """A serial executor that keeps every unit and result it ran."""

    def __init__(self) -> None:
        self.units: list[TableUnit] = []
        self.results: list[TableSessionResult] = []

    def run(
        self,
        units: Sequence[TableUnit],
        on_result: Callable[[int, TableSessionResult], None] | None = None,
    ) -> list[TableSessionResult]:
        results = SerialExecutor().run(units, on_result)
        self.units += units
        self.results += results
        return results


def _config(players: int = 10, seed: int = 2, **options: Any) -> Any:
    return parse_config(
        {
            "event": {"name": "cash test", "format": "cash", "seed": seed},
            "field": {"count": players, "from": ["random", "calling-station", "aggressive"]},
            "options": options,
        }
    )


@pytest.mark.parametrize("settlement", ["average", "matchpoints"])
def test_a_cash_game_settles_every_deal(settlement: str) -> None:
    config = _config(
        tables=2, seats=4, deals=20, leave_percent=6, settlement=settlement, rake_percent=5
    )
    event_format = get_format("cash")
    plan = event_format.plan(config)
    recorder = _Recorder()
    result = event_format.play(config, plan, Runtime(recorder))
    details = result.details
    assert len(details.stretches) == len(plan.sessions) >= 2  # someone left: a new stretch
    deals = sum(stretch.deals for stretch in details.stretches)
    occupied = sum(
        1
        for stretch in details.stretches
        for _ in range(stretch.deals)
        for seat in range(4)
        if any(table.players[seat] for table in stretch.tables)
    )
    assert len(details.settlements) == occupied
    assert len({(record.deal, record.seat) for record in details.settlements}) == occupied
    assert max(record.deal for record in details.settlements) == deals - 1
    for settlement_record in details.settlements:
        assert sum(settlement_record.settlements) == -settlement_record.rake_cents
        if settlement == "average":
            unraked = [
                a + r
                for a, r in zip(settlement_record.settlements, settlement_record.rakes, strict=True)
            ]
            average = Fraction(sum(settlement_record.nets), len(settlement_record.nets))
            for net, amount in zip(settlement_record.nets, unraked, strict=True):
                assert abs(amount - (net - average)) < 1
    money = sum(player.money_cents for player in details.players)
    assert money == -details.rake_cents == sum(s.prize_cents for s in result.standings)
    assert (
        sum(player.chips_net for player in details.players)
        + sum(
            net
            for stretch in details.stretches
            for table in stretch.tables
            for nets in table.deal_nets
            for seat, net in enumerate(nets)
            if table.players[seat] is None
        )
        == 0
    )  # chips are conserved: absent players' nets make up the rest
    # Duplicate deals at every table of a stretch, and the button moves one seat a deal
    # over the whole game although each stretch's units start their own deal count.
    seats = 4
    for index, stretch in enumerate(details.stretches):
        units = recorder.units[index * 2 : index * 2 + 2]
        results = recorder.results[index * 2 : index * 2 + 2]
        assert units[0].session == units[1].session == stretch.stretch
        for deal_index in range(stretch.deals):
            first, second = (result.deals[deal_index] for result in results)
            shown = min(len(first.board), len(second.board))  # a hand may end early
            assert first.hole_cards == second.hole_cards
            assert first.board[:shown] == second.board[:shown]
            rotation = stretch.first_deal % seats
            assert (first.button + rotation) % seats == (stretch.first_deal + deal_index) % seats
        # The unit's seats are the table's seats, rotated.
        for unit, table in zip(units, stretch.tables, strict=True):
            rotation = stretch.first_deal % seats
            assert [s.player for s in unit.seats] == [
                table.players[(i + rotation) % seats] or "(absent)" for i in range(seats)
            ]


def test_bad_cash_options_are_named() -> None:
    _, problems = check_config(
        {
            "event": {"name": "x", "format": "cash"},
            "field": {"count": 8, "from": ["random"]},
            "options": {"settlement": "median", "seats": 1, "rake_percent": -1},
        }
    )
    text = " | ".join(str(problem) for problem in problems)
    assert "options.settlement: must be one of 'average', 'matchpoints', not 'median'" in text
    assert "options.seats: must be an integer from 2 to 10" in text
    assert "options.rake_percent: must be a percentage" in text
    with pytest.raises(ConfigError, match="more than the 30 players"):
        get_format("cash").plan(_config(tables=8, seats=6))


def test_same_seed_same_results(tmp_path: Path) -> None:
    config = _config(players=9, tables=2, seats=4, deals=12, leave_percent=5)
    run_event(config, tmp_path / "a", executor=SerialExecutor())
    run_event(config, tmp_path / "b", executor=SerialExecutor())
    assert (tmp_path / "a" / "results.json").read_text() == (
        tmp_path / "b" / "results.json"
    ).read_text()


def test_the_shipped_config_plans_and_plays() -> None:
    from dp_arena.keys import EventKey
    from dp_arena.tournament.config import with_key
    from dp_arena.tournament.loading import load_config

    # The shipped config names no seed: a real run deals from a secret key, as here.
    shipped = load_config(Path(__file__).resolve().parents[3] / "configs" / "cash.toml")
    config = with_key(shipped, EventKey.secret())
    event_format = get_format(config.format)
    plan = event_format.plan(config)
    result = event_format.play(config, plan, Runtime(SerialExecutor()))
    assert len(result.details.stretches) == len(plan.sessions)
    assert sum(standing.prize_cents for standing in result.standings) == 0  # no rake
