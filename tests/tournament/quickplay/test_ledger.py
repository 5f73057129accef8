"""The credit game balance ledger: money moves between accounts and is never created or
lost; a refused or interrupted operation changes nothing; balances persist; a replayed
operation is not done twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp_arena.errors import LedgerError
from dp_arena.tournament.quickplay.ledger import Ledger

GAME = "quickplay:test:200"


def _state(ledger: Ledger, players: list[str]) -> tuple[object, ...]:
    return (
        tuple(ledger.main(player) for player in players),
        tuple(ledger.credit(player, GAME) for player in players),
        ledger.rake(),
        len(ledger.journal()),
    )


def test_a_set_worked_by_hand() -> None:
    """Three players move $10 each into credit, a $2 set pays one of them $5.70 after a
    $0.30 rake; they leave with what their credit balances hold."""
    ledger = Ledger(":memory:")
    for player in ("ann", "bob", "cy"):
        ledger.deposit(player, 5000)
        ledger.move_to_credit(player, GAME, 1000)
    ledger.settle_set(
        GAME, "set-1", dict.fromkeys(("ann", "bob", "cy"), 200), {"bob": 570}, rake_cents=30
    )
    assert [ledger.credit(player, GAME) for player in ("ann", "bob", "cy")] == [800, 1370, 800]
    assert ledger.rake(GAME) == 30
    assert ledger.leave("bob", GAME) == 1370
    assert ledger.main("bob") == 4000 + 1370
    assert ledger.credit("bob", GAME) == 0
    assert ledger.total() == ledger.deposits() == 15000


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        (lambda ledger: ledger.move_to_credit("ann", GAME, 999_999), "main balance is"),
        (lambda ledger: ledger.move_to_credit("nobody", GAME, 1), "no account"),
        (lambda ledger: ledger.move_to_credit("ann", GAME, -5), "non-negative integer"),
        (
            lambda ledger: ledger.settle_set(
                GAME, "s", {"ann": 200, "bob": 200}, {"ann": 300}, rake_cents=0
            ),
            "pays out 300",
        ),
        (
            lambda ledger: ledger.settle_set(GAME, "s", {"ann": 200}, {"bob": 200}, rake_cents=0),
            "did not buy in",
        ),
        (
            # bob's credit (500) cannot pay a 600 buy-in: refused after ann's was taken.
            lambda ledger: ledger.settle_set(
                GAME, "s", {"ann": 600, "bob": 600}, {"ann": 1200}, rake_cents=0
            ),
            "cannot pay",
        ),
        (
            lambda ledger: ledger.settle_set(
                GAME, "set-0", {"ann": 150, "bob": 150}, {"bob": 300}, rake_cents=0
            ),
            "already settled",
        ),
    ],
)
def test_refused_operations_change_nothing(operation, message: str) -> None:  # type: ignore[no-untyped-def]
    ledger = Ledger(":memory:")
    for player, credit in (("ann", 1000), ("bob", 500)):
        ledger.deposit(player, 2000)
        ledger.move_to_credit(player, GAME, credit)
    ledger.settle_set(GAME, "set-0", {"ann": 100, "bob": 100}, {"ann": 200}, rake_cents=0)
    before = _state(ledger, ["ann", "bob"])
    with pytest.raises(LedgerError, match=message):
        operation(ledger)
    assert _state(ledger, ["ann", "bob"]) == before


def test_a_crash_in_the_middle_of_a_settlement_leaves_the_ledger_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The set's buy-ins and winnings are one transaction: a failure after some rows were
    written (here, while journalling the second winnings) rolls all of them back."""
    ledger = Ledger(":memory:")
    players = ["ann", "bob", "cy"]
    for player in players:
        ledger.deposit(player, 1000)
        ledger.move_to_credit(player, GAME, 600)
    before = _state(ledger, players)
    original = Ledger._journal
    calls = []

    def failing_journal(self: Ledger, *args: object) -> None:
        calls.append(args)
        if len(calls) == 5:  # 3 buy-ins and 1 winnings journalled, then the power goes
            raise OSError("disk unplugged")
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Ledger, "_journal", failing_journal)
    with pytest.raises(OSError, match="disk unplugged"):
        ledger.settle_set(
            GAME, "set-1", dict.fromkeys(players, 200), {"ann": 300, "bob": 300}, rake_cents=0
        )
    monkeypatch.setattr(Ledger, "_journal", original)
    assert _state(ledger, players) == before
    assert not ledger.is_settled(GAME, "set-1")
    # ... and the set can then be settled for real.
    ledger.settle_set(
        GAME, "set-1", dict.fromkeys(players, 200), {"ann": 300, "bob": 300}, rake_cents=0
    )
    assert [ledger.credit(player, GAME) for player in players] == [700, 700, 400]


def test_balances_persist_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Ledger(path) as ledger:
        ledger.deposit("ann", 1000)
        ledger.deposit("bob", 1000)
        ledger.move_to_credit("ann", GAME, 400)
        ledger.move_to_credit("bob", GAME, 400)
        ledger.settle_set(GAME, "set-1", {"ann": 200, "bob": 200}, {"bob": 380}, rake_cents=20)
    with Ledger(path) as ledger:
        assert (ledger.main("ann"), ledger.credit("ann", GAME)) == (600, 200)
        assert (ledger.main("bob"), ledger.credit("bob", GAME)) == (600, 580)
        assert ledger.rake(GAME) == 20 and ledger.total() == 2000
        assert ledger.is_settled(GAME, "set-1")
        assert ledger.leave("bob", GAME) == 580
    with Ledger(path) as ledger:
        assert ledger.main("bob") == 1180


def test_keyed_operations_are_done_once() -> None:
    """A replayed event (a resumed run) repeats its keyed operations: none moves money twice,
    and each answers what it answered the first time."""
    ledger = Ledger(":memory:")
    for _ in range(2):
        ledger.deposit("ann", 1000, key="open-ann")
        ledger.deposit("bob", 1000, key="open-bob")
        assert ledger.move_to_credit("ann", GAME, 300, key="credit-ann") == 300
        assert ledger.move_to_credit("bob", GAME, 300, key="credit-bob") == 300
        ledger.settle_set(GAME, "set-1", {"ann": 200, "bob": 200}, {"ann": 400}, rake_cents=0)
        assert ledger.leave("ann", GAME, key="leave-ann") == 500
        assert ledger.remember("seen", 7) == 7
    assert (ledger.main("ann"), ledger.main("bob"), ledger.credit("bob", GAME)) == (1200, 700, 100)
    assert ledger.remember("seen", 9) == 7
    with pytest.raises(LedgerError, match="already settled"):  # same set, other amounts
        ledger.settle_set(GAME, "set-1", {"ann": 100, "bob": 100}, {"ann": 200}, rake_cents=0)


PLAYERS = ["p0", "p1", "p2", "p3", "p4"]


@st.composite
def _operations(draw: st.DrawFn) -> list[tuple]:  # type: ignore[type-arg]
    operations: list[tuple] = []  # type: ignore[type-arg]
    for index in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["deposit", "credit", "settle", "leave"]))
        player = draw(st.sampled_from(PLAYERS))
        cents = draw(st.integers(0, 3000))
        players = draw(st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=5, unique=True))
        shares = draw(st.lists(st.integers(0, 10), min_size=len(players), max_size=len(players)))
        rake_share = draw(st.integers(0, 3))
        operations.append((kind, player, cents, players, shares, rake_share, f"set-{index}"))
    return operations


@settings(max_examples=50, deadline=None)
@given(_operations())
def test_money_is_never_created_or_lost(operations: list[tuple]) -> None:  # type: ignore[type-arg]
    """Any sequence of deposits, credit moves, set settlements and departures, including
    refused ones: the balances plus the rake always equal the deposits, and no balance
    goes negative."""
    ledger = Ledger(":memory:")
    for player in PLAYERS:
        ledger.deposit(player, 2000)
    for kind, player, cents, players, shares, rake_share, set_id in operations:
        try:
            if kind == "deposit":
                ledger.deposit(player, cents)
            elif kind == "credit":
                ledger.move_to_credit(player, GAME, cents)
            elif kind == "leave":
                ledger.leave(player, GAME)
            else:
                buy_in = cents // 10
                pool = buy_in * len(players)
                rake = pool * rake_share // 100
                weights = [share + 1 for share in shares]
                winnings = {
                    name: (pool - rake) * weight // sum(weights)
                    for name, weight in zip(players, weights, strict=True)
                }
                winnings[players[0]] += pool - rake - sum(winnings.values())
                ledger.settle_set(
                    GAME, set_id, dict.fromkeys(players, buy_in), winnings, rake_cents=rake
                )
        except LedgerError:
            pass  # a refused operation (an overdraft): must have changed nothing
        assert ledger.total() == ledger.deposits()
        assert all(ledger.main(name) >= 0 and ledger.credit(name, GAME) >= 0 for name in PLAYERS)


def test_a_ledger_file_that_is_not_a_database_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(bytes(range(256)) * 16)
    with pytest.raises(LedgerError, match=rf"^{path}: cannot open the ledger: file is not a"):
        Ledger(path)
    config = tmp_path / "event.toml"
    config.write_text(
        '[event]\nname = "q"\nformat = "quickplay"\n[options]\nledger = "garbage.sqlite"\n'
        '[field]\ncount = 8\nfrom = ["random"]\n'
    )
    from dp_arena.cli import main

    run_dir = tmp_path / "run"
    assert main(["run", str(config), "--run-dir", str(run_dir), "--executor", "serial"]) == 2
    error = capsys.readouterr().err
    assert error.splitlines()[-1] == (
        f"dp-arena run: {path}: cannot open the ledger: file is not a database"
    )
    assert "Traceback" not in error
    assert not (run_dir / "results.json").exists()
    assert path.read_bytes() == bytes(range(256)) * 16  # left as it was
