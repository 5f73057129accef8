"""Quick Play: the rules' prize example from hand-made nets, exact splits and rake,
continuous play's schedule worked by hand, and whole events with built-in bots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dp_arena.errors import ConfigError
from dp_arena.tournament.event import run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import check_config, parse_config
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.quickplay.ledger import Ledger
from dp_arena.tournament.quickplay.money import set_awards, set_money
from dp_arena.tournament.quickplay.schedule import schedule_sets
from dp_arena.units import SerialExecutor

# -- the rules' example --------------------------------------------------------------

SEATING = (("A", "a1", "a2", "a3"), ("B", "b1", "b2", "b3"), ("C", "c1", "c2", "c3"))
# Seat position 0, by deal: A wins deals 1, 5 and 6 and has the best total; B wins deals
# 2 and 3; C wins deal 4. Seat 1 loses what seat 0 wins; seats 2 and 3 always fold for 0.
SEAT_ZERO = {
    "A": (300, -50, -50, -50, 200, 100),  # total +450
    "B": (0, 100, 80, -100, 0, 0),  # total +80
    "C": (-100, 0, 0, 50, -20, -10),  # total -80
}


def _nets() -> list[list[tuple[int, ...]]]:
    return [
        [(net, -net, 0, 0) for net in SEAT_ZERO[row[0]]]  # every deal's nets sum to zero
        for row in SEATING
    ]


def _won(awards: list[Any]) -> dict[str, int]:
    won: dict[str, int] = {}
    for award in awards:
        won[award.player] = won.get(award.player, 0) + award.net_cents
    return won


def test_the_seeds_prize_example() -> None:
    """Seed 000: 12 players, 3 tables x 4, 6 deals, $2 buy-in, 50 % set money: set money
    $3.00 and hand money $0.50 per seat position; the player who wins hands 1, 5 and 6
    and the set wins $4.50, the one winning hands 2 and 3 $1.00, hand 4 alone $0.50."""
    money = set_money(players=12, seats=4, deals=6, buy_in_cents=200, set_basis_points=5000)
    assert money.pool_cents == 2400
    assert money.set_money == (300, 300, 300, 300)
    assert money.hand_money == ((50,) * 6,) * 4
    won = _won(set_awards(money, SEATING, _nets(), starting_stack=6000))
    assert (won["A"], won["B"], won.get("C")) == (450, 100, 50)
    # Seat 1 mirrors seat 0: a1 loses the most on deals 1, 5, 6 ... every hand goes to
    # whoever lost least there; seats 2 and 3 tie on every deal and on the set.
    assert won["a1"] + won["b1"] + won["c1"] == 600
    assert (won["a2"], won["b2"], won["c2"]) == (6 * 17 + 100, 6 * 17 + 100, 6 * 16 + 100)
    assert sum(won.values()) == 2400


def test_rake_is_taken_from_each_amount_won() -> None:
    """5 %: $0.50 of hand money pays a 2-cent rake (2.5 rounded down), $3.00 of set money
    15 cents; the first player keeps 3 x 48 + 285 = 429 cents."""
    money = set_money(players=12, seats=4, deals=6, buy_in_cents=200, set_basis_points=5000)
    awards = set_awards(money, SEATING, _nets(), starting_stack=6000, rake_basis_points=500)
    mine = [award for award in awards if award.player == "A"]
    assert {(award.deal, award.gross_cents, award.rake_cents) for award in mine} == {
        (0, 50, 2),
        (4, 50, 2),
        (5, 50, 2),
        (None, 300, 15),
    }
    assert _won(awards)["A"] == 429
    assert sum(award.net_cents + award.rake_cents for award in awards) == 2400


@pytest.mark.parametrize("players", [4, 6, 9, 10, 12, 15, 20, 25, 30])
@pytest.mark.parametrize("buy_in", [1, 7, 200, 333])
@pytest.mark.parametrize("set_percent", [0, 33, 50, 100])
def test_set_and_hand_money_add_up_to_the_pool(players: int, buy_in: int, set_percent: int) -> None:
    for seats in range(2, 7):
        if players % seats or not 2 <= players // seats <= 5:
            continue
        deals = {2: 4, 3: 6, 4: 4, 5: 5, 6: 6}[seats]
        money = set_money(
            players=players,
            seats=seats,
            deals=deals,
            buy_in_cents=buy_in,
            set_basis_points=set_percent * 100,
        )
        assert money.total_cents == money.pool_cents == players * buy_in
        hand = [cents for row in money.hand_money for cents in row]
        assert max(money.set_money) - min(money.set_money) <= 1
        assert max(hand) - min(hand) <= 1


# -- continuous play ----------------------------------------------------------------

PLAYERS = [f"p{index}" for index in range(1, 17)]


def _schedule(players: list[str], **overrides: Any) -> Any:
    options: dict[str, Any] = {
        "seats": 4,
        "deals": 4,
        "seed": 1,
        "sets": 1,
        "sets_by_player": {},
        "leave_basis_points": 0,
        "arrivals": None,
        "max_rounds": 100,
    }
    options.update(overrides)
    return schedule_sets(players, **options)


def _shape(schedule: Any) -> list[tuple[int, int, int, tuple[str, ...]]]:
    return [
        (planned.round, planned.contest, planned.tables, tuple(sorted(planned.players)))
        for planned in schedule.sets
    ]


def test_late_joiners_fill_new_tables_in_the_next_set() -> None:
    """16 players, 4 a table, 10 there at the start and 6 joining during the first set,
    3 sets each: set 1 at 2 tables (p9, p10 wait: no third table), set 2 at 4 tables with
    everyone, set 3 the same, set 4 at 2 tables (p1..p8 have played their 3 sets)."""
    schedule = _schedule(PLAYERS, sets=3, arrivals=[10, 6])
    first, everyone, second = tuple(sorted(PLAYERS[:8])), tuple(sorted(PLAYERS)), PLAYERS[8:]
    assert _shape(schedule) == [
        (1, 1, 2, first),
        (2, 1, 4, everyone),
        (3, 1, 4, everyone),
        (4, 1, 2, tuple(sorted(second))),
    ]
    assert dict(schedule.sets_played) == dict.fromkeys(PLAYERS, 3)


def test_one_set_each() -> None:
    """Everyone leaves after one set: p9, p10 and the 6 later arrivals play set 2."""
    schedule = _schedule(PLAYERS, arrivals=[10, 6])
    assert _shape(schedule) == [
        (1, 1, 2, tuple(sorted(PLAYERS[:8]))),
        (2, 1, 2, tuple(sorted(PLAYERS[8:]))),
    ]


def test_more_than_five_tables_open_new_contests() -> None:
    """24 heads-up players arrive at once: 5 tables, 5 tables, then 2 tables."""
    players = [f"q{index:02d}" for index in range(24)]
    schedule = _schedule(players, seats=2)
    assert [(planned.contest, planned.tables) for planned in schedule.sets] == [
        (1, 5),
        (2, 5),
        (3, 2),
    ]
    seated = [player for planned in schedule.sets for player in planned.players]
    assert sorted(seated) == sorted(players)  # each exactly once


def test_leaving_and_own_numbers_of_sets() -> None:
    schedule = _schedule(PLAYERS[:8], sets=5, sets_by_player={"p1": 1, "p2": 2})
    played = dict(schedule.sets_played)
    # p1 leaves after set 1, so 7 remain: one table short; the contest ends.
    assert played["p1"] == 1 and len(schedule.sets) == 1
    # 10 % leave after each set: the contest shrinks from 4 tables to 2, then stops when
    # fewer than 8 remain (3 still there wait for players who never come).
    leaving = _schedule(PLAYERS, sets=50, leave_basis_points=1000)
    counts = [count for _, count in leaving.sets_played]
    assert all(1 <= count <= 50 for count in counts) and max(counts) > 1
    everyone_leaves = _schedule(PLAYERS, sets=50, leave_basis_points=10000)
    assert dict(everyone_leaves.sets_played) == dict.fromkeys(PLAYERS, 1)
    for planned in leaving.sets:
        assert 2 <= planned.tables <= 5 and all(len(row) == 4 for row in planned.seating)
        assert len(set(planned.players)) == len(planned.players)


# -- whole events ---------------------------------------------------------------------


def _config(players: int = 8, seed: int = 3, **options: Any) -> Any:
    data: dict[str, Any] = {
        "event": {"name": "qp test", "format": "quickplay", "seed": seed},
        "field": {"count": players, "from": ["random", "calling-station", "aggressive"]},
        "options": options,
    }
    return parse_config(data)


def test_bad_options_are_named() -> None:
    data = {
        "event": {"name": "x", "format": "quickplay"},
        "field": {"count": 8, "from": ["random"]},
        "options": {"seats": 9, "set_percent": 120, "rake_percent": 2.555, "colour": 1},
    }
    _, problems = check_config(data)
    text = [str(problem) for problem in problems]
    assert any(line.startswith("options.seats: must be an integer from 2 to 6") for line in text)
    assert any(line.startswith("options.set_percent: must be a percentage") for line in text)
    assert any(line.startswith("options.rake_percent: must be a percentage") for line in text)
    assert any(line.startswith("options.colour: unknown option") for line in text)
    with pytest.raises(ConfigError, match="arrivals: adds up to 5"):
        get_format("quickplay").plan(_config(arrivals=[3, 2]))
    with pytest.raises(ConfigError, match="needs at least 12 entrants"):
        get_format("quickplay").plan(_config(seats=6))


def test_a_continuous_event_settles_every_set_exactly(tmp_path: Path) -> None:
    config = _config(
        players=10,
        seats=2,
        sets=3,
        leave_percent=25,
        arrivals=[6, 4],
        rake_percent=5,
        balance_cents=1000,
    )
    event_format = get_format("quickplay")
    plan = event_format.plan(config)
    runtime = Runtime(SerialExecutor(), log_dir=str(tmp_path / "logs"))
    result = event_format.play(config, plan, runtime)
    details = result.details
    assert len(details.sets) == len(plan.sessions) == len(result.sessions) >= 2
    assert sum(record.pool_cents for record in details.sets) == plan.prizes.pool_cents
    for record, outcome in zip(details.sets, result.sessions, strict=True):
        assert sum(a.net_cents + a.rake_cents for a in record.awards) == record.pool_cents
        # The hand money of each deal went to the seat position's best net there.
        section = outcome.sections[0]
        for seat in range(section.seats):
            for deal in range(record.deals):
                nets = {t.players[seat]: t.deal_nets[deal][seat] for t in section.table_results}
                best = max(nets.values())
                winners = {a.player for a in record.awards if a.seat == seat and a.deal == deal}
                assert winners == {player for player, net in nets.items() if net == best}
    for money in details.players:
        assert money.main_after_cents == (
            money.main_before_cents - money.credit_in_cents + money.credit_returned_cents
        )
        assert (
            money.credit_returned_cents
            == money.credit_in_cents - money.buy_ins_cents + money.won_cents
        )
    # The ledger: only the opening deposits entered it, and nothing was lost.
    assert details.ledger_total_before_cents == 0
    assert details.ledger_total_after_cents == 10 * 1000
    assert (
        sum(money.main_after_cents for money in details.players) + details.rake_cents
        == details.ledger_total_after_cents
    )
    paid = sum(standing.prize_cents for standing in result.standings)
    assert paid + details.rake_cents == plan.prizes.pool_cents
    # Played again over the same ledger (a resumed run): no cent moves twice.
    again = event_format.play(config, plan, runtime)
    assert again.details == details
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        assert ledger.total() == 10 * 1000
        assert sum(ledger.main(money.player) for money in details.players) == sum(
            money.main_after_cents for money in details.players
        )


def test_same_seed_same_results(tmp_path: Path) -> None:
    config = _config(players=9, sets=2, seats=2, rake_percent=2.5)
    first = run_event(config, tmp_path / "a", executor=SerialExecutor())
    second = run_event(config, tmp_path / "b", executor=SerialExecutor())
    text = (tmp_path / "a" / "results.json").read_text()
    assert text == (tmp_path / "b" / "results.json").read_text()
    document = json.loads(text)
    assert (
        document["details"]["sets"]
        and document["prizes"]["pool_cents"] == first.plan.prizes.pool_cents
    )
    assert second.result.details.players == first.result.details.players


def test_a_killed_run_resumes_to_the_same_results_without_moving_money_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run stops (as if killed) while the units of its second round are being stored,
    after the first round's sets were settled in the ledger; ``resume`` plays the event
    again over the same ledger and ends with the uninterrupted run's results.json."""
    from dp_arena.rundir.store import RunStore
    from dp_arena.runner import ExecutorOptions, resume_run, start_run

    config = _config(players=8, seats=2, sets=3, rake_percent=5)
    serial = ExecutorOptions("serial")
    start_run(config, tmp_path / "whole", serial, quiet=True)
    original_put = RunStore.put
    calls = {"count": 0}

    def put_then_die(self: RunStore, *args: Any, **kwargs: Any) -> Any:
        calls["count"] += 1
        if calls["count"] == 6:  # round 1 is one set at 4 tables: die in round 2
            raise KeyboardInterrupt("killed")
        return original_put(self, *args, **kwargs)

    monkeypatch.setattr(RunStore, "put", put_then_die)
    with pytest.raises(KeyboardInterrupt):
        start_run(config, tmp_path / "killed", serial, quiet=True)
    monkeypatch.setattr(RunStore, "put", original_put)
    with Ledger(tmp_path / "killed" / "ledger.sqlite") as ledger:
        settled_before = [entry for entry in ledger.journal() if entry.kind == "buy-in"]
    assert settled_before  # the first round's sets were settled before the kill
    resume_run(tmp_path / "killed", serial, quiet=True)
    whole = (tmp_path / "whole" / "results.json").read_text()
    assert (tmp_path / "killed" / "results.json").read_text() == whole
    with (
        Ledger(tmp_path / "killed" / "ledger.sqlite") as killed,
        Ledger(tmp_path / "whole" / "ledger.sqlite") as reference,
    ):
        assert killed.total() == reference.total() == 8 * 100 * 200
        assert len(killed.journal()) == len(reference.journal())


def test_the_shipped_config_plans_and_plays() -> None:
    from dp_arena.keys import EventKey
    from dp_arena.tournament.config import with_key
    from dp_arena.tournament.loading import load_config

    # The shipped config names no seed: a real run deals from a secret key, as here.
    shipped = load_config(Path(__file__).resolve().parents[3] / "configs" / "quickplay.toml")
    config = with_key(shipped, EventKey.secret())
    event_format = get_format(config.format)
    plan = event_format.plan(config)
    result = event_format.play(config, plan, Runtime(SerialExecutor()))
    rounds = {record.round for record in result.details.sets}
    assert len(rounds) >= 2  # continuous play: later joiners and players playing again
    paid = sum(standing.prize_cents for standing in result.standings)
    assert paid + result.details.rake_cents == plan.prizes.pool_cents


def test_the_config_check_names_unknown_players() -> None:
    _, problems = check_config(
        {
            "event": {"name": "x", "format": "quickplay"},
            "field": {"count": 8, "from": ["random"]},
            "options": {"sets_by_player": {"nobody": 2}},
        }
    )
    assert [str(problem) for problem in problems] == [
        "options.sets_by_player: nobody not among the entrants"
    ]


# -- standings and the summary ----------------------------------------------------------


def _money(player: str, won: int, buy_ins: int, sets: int, rake: int = 0) -> Any:
    from dp_arena.tournament.quickplay.purses import PlayerMoney

    return PlayerMoney(
        player=player,
        sets_played=sets,
        buy_ins_cents=buy_ins,
        won_cents=won,
        rake_cents=rake,
        credit_in_cents=buy_ins,
        credit_returned_cents=won,
        main_before_cents=1000,
        main_after_cents=1000 - buy_ins + won,
    )


# Worked by hand: by money won, then fewer buy-ins; "b" and "f" are equal in both.
HAND_MADE = (
    _money("a", won=500, buy_ins=600, sets=3, rake=26),  # won the most, but paid the most
    _money("b", won=300, buy_ins=200, sets=1, rake=15),
    _money("c", won=500, buy_ins=200, sets=1, rake=26),
    _money("d", won=0, buy_ins=200, sets=1),
    _money("e", won=0, buy_ins=400, sets=2),
    _money("f", won=300, buy_ins=200, sets=1, rake=15),
)


def test_standings_rank_by_money_won_then_fewer_buy_ins() -> None:
    from dp_arena.tournament.quickplay.format import _standings

    standings = [
        (standing.player, standing.place, standing.place_to, standing.prize_cents)
        for standing in _standings(HAND_MADE)
    ]
    assert standings == [
        ("c", 1, 1, 500),
        ("a", 2, 2, 500),  # by profit (-1.00) it would be 5th, under b, f and d
        ("b", 3, 4, 300),
        ("f", 3, 4, 300),
        ("d", 5, 5, 0),
        ("e", 6, 6, 0),
    ]


def test_the_summary_shows_the_rake_and_the_money_behind_each_place() -> None:
    from dp_arena.tournament.describe import describe_result
    from dp_arena.tournament.outcomes import EventResult
    from dp_arena.tournament.quickplay.format import _standings
    from dp_arena.tournament.quickplay.records import QuickPlayDetails

    config = _config(players=8, seats=2, rake_percent=2.5)
    plan = get_format("quickplay").plan(config)
    details = QuickPlayDetails("qp", (), HAND_MADE, 82, 250, 0, 0)
    result = EventResult((), tuple(_standings(HAND_MADE)), (), details)
    parts = get_format("quickplay").summary_parts(result, frozenset())
    text = describe_result(plan, "Quick Play", result, parts=parts)
    lines = text.splitlines()
    assert lines[0].endswith(", rake 2.5 % of each amount won")
    start = lines.index(
        "final standings, by money won after the rake (equal winnings: fewer buy-ins first):"
    )
    assert [line.split() for line in lines[start + 2 : start + 8]] == [
        ["1", "c", "$5.00", "$2.00", "1", "+$3.00"],
        ["2", "a", "$5.00", "$6.00", "3", "-$1.00"],
        ["3-4", "b", "$3.00", "$2.00", "1", "+$1.00"],
        ["3-4", "f", "$3.00", "$2.00", "1", "+$1.00"],
        ["5", "d", "$0.00", "$2.00", "1", "-$2.00"],
        ["6", "e", "$0.00", "$4.00", "2", "-$4.00"],
    ]
    # Paid: 5 + 5 + 3 + 3 = $16.00 after the rake of 26 + 15 + 26 + 15 = 82 cents.
    assert (
        lines[-1]
        == f"paid $16.00 of {format_cents(plan.prizes.pool_cents)} (the rake kept $0.82); faults: 0"
    )


def test_a_played_event_summary_lists_money_in_order_and_the_rake(tmp_path: Path) -> None:
    config = _config(players=10, seats=2, sets=2, leave_percent=30, arrivals=[6, 4], rake_percent=5)
    run = run_event(config, tmp_path / "run", executor=SerialExecutor())
    summary = (tmp_path / "run" / "summary.txt").read_text().splitlines()
    details = run.result.details
    rake = sum(award.rake_cents for record in details.sets for award in record.awards)
    assert rake > 0
    assert summary[0].endswith(", rake 5 % of each amount won")
    assert f"(the rake kept {format_cents(rake)})" in summary[-1]
    start = next(index for index, line in enumerate(summary) if line.startswith("final standings"))
    rows = [line.split() for line in summary[start + 2 : start + 2 + 10]]
    won = [int(row[2].replace("$", "").replace(".", "")) for row in rows]
    assert won == sorted(won, reverse=True)
    by_player = {money.player: money.won_cents for money in details.players}
    assert [by_player[row[1]] for row in rows] == won
