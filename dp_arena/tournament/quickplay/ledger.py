"""The credit game balance ledger of Quick Play (docs/formats.md): players' main balances, their
credit balances per game, and the rake the house collected, in integer cents in SQLite.

Money moves only between these accounts:

- a **deposit** opens or tops up a main balance (money entering the ledger);
- **joining** a game (and topping up later) moves cents from the main balance to the
  player's credit balance for that game;
- a **set settlement** takes every player's buy-in from its credit balance, pays the
  winnings into the winners' credit balances, and adds the rake to the house; the
  buy-ins equal the winnings plus the rake, so the set moves money without creating
  any;
- **leaving** a game returns the whole credit balance to the main balance.

So, apart from deposits, the sum of all main balances, all credit balances and the rake
collected never changes (:meth:`Ledger.total`). Every operation is one SQLite
transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``): a crash or an error in the middle
leaves the ledger as it was before the operation, never half-changed. A set is settled
at most once: its id is recorded in the same transaction, so settling it again (say,
after resuming a killed run) is refused.

The file persists between events: a player's main balance carries over from one Quick
Play event to the next when they share a ledger file.

Every operation takes an optional ``key``: an operation whose key the ledger has seen
is not done again, and returns what it returned the first time. An event that is played
again over the same ledger (``dp-arena resume`` replays a killed run's event from the
start) thus moves every cent exactly once. :meth:`Ledger.remember` keeps a value (a
balance seen before the event) under a key in the same way.

>>> ledger = Ledger(":memory:")
>>> ledger.deposit("ann", 1000); ledger.deposit("bob", 1000)
>>> ledger.move_to_credit("ann", "qp", 400), ledger.move_to_credit("bob", "qp", 400)
(400, 400)
>>> ledger.settle_set("qp", "set-1", {"ann": 200, "bob": 200}, {"ann": 380}, rake_cents=20)
>>> ledger.credit("ann", "qp"), ledger.credit("bob", "qp"), ledger.rake("qp")
(580, 200, 20)
>>> ledger.leave("ann", "qp"), ledger.main("ann")
(580, 1180)
>>> ledger.total()
2000
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dp_arena.errors import LedgerError

__all__ = ["Ledger", "LedgerEntry"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    player TEXT PRIMARY KEY,
    main_cents INTEGER NOT NULL CHECK (main_cents >= 0)
);
CREATE TABLE IF NOT EXISTS credits (
    player TEXT NOT NULL REFERENCES accounts (player),
    game TEXT NOT NULL,
    credit_cents INTEGER NOT NULL CHECK (credit_cents >= 0),
    PRIMARY KEY (player, game)
);
CREATE TABLE IF NOT EXISTS house (
    game TEXT PRIMARY KEY,
    rake_cents INTEGER NOT NULL CHECK (rake_cents >= 0)
);
CREATE TABLE IF NOT EXISTS settlements (
    game TEXT NOT NULL,
    set_id TEXT NOT NULL,
    buy_ins_cents INTEGER NOT NULL,
    rake_cents INTEGER NOT NULL,
    PRIMARY KEY (game, set_id)
);
CREATE TABLE IF NOT EXISTS operations (
    key TEXT PRIMARY KEY,
    cents INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    entry INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT,
    set_id TEXT,
    player TEXT,
    kind TEXT NOT NULL,
    cents INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One line of the journal: ``kind`` is ``deposit``, ``credit`` (main → credit),
    ``buy-in``, ``winnings``, ``rake`` or ``leave`` (credit → main)."""

    entry: int
    game: str | None
    set_id: str | None
    player: str | None
    kind: str
    cents: int


def _cents(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise LedgerError(f"ledger: {what} must be a non-negative integer of cents, not {value!r}")
    return value


class Ledger:
    """A ledger in the SQLite file ``path`` (``":memory:"`` for a throwaway one)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: every operation opens its own explicit transaction.
            self._connection = sqlite3.connect(self.path, isolation_level=None)
            self._connection.execute("PRAGMA foreign_keys = ON")
            # executescript() would commit on its own; one statement at a time stays
            # inside the transaction.
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._connection.execute(statement)
        except sqlite3.Error as error:
            raise LedgerError(f"{self.path}: cannot open the ledger: {error}") from None

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        connection = self._connection
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def _done(self, key: str | None) -> int | None:
        """What the operation ``key`` returned, if it was done already."""
        if key is None:
            return None
        row = self._connection.execute(
            "SELECT cents FROM operations WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else int(row[0])

    def _mark(self, key: str | None, cents: int) -> None:
        if key is not None:
            self._connection.execute(
                "INSERT INTO operations (key, cents) VALUES (?, ?)", (key, cents)
            )

    def _journal(
        self, game: str | None, set_id: str | None, player: str | None, kind: str, cents: int
    ) -> None:
        self._connection.execute(
            "INSERT INTO journal (game, set_id, player, kind, cents) VALUES (?, ?, ?, ?, ?)",
            (game, set_id, player, kind, cents),
        )

    # -- queries -------------------------------------------------------------------

    def main(self, player: str) -> int:
        """The player's main balance (0 without an account)."""
        row = self._connection.execute(
            "SELECT main_cents FROM accounts WHERE player = ?", (player,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def has_account(self, player: str) -> bool:
        return (
            self._connection.execute(
                "SELECT 1 FROM accounts WHERE player = ?", (player,)
            ).fetchone()
            is not None
        )

    def credit(self, player: str, game: str) -> int:
        """The player's credit balance in ``game`` (0 when it has none)."""
        row = self._connection.execute(
            "SELECT credit_cents FROM credits WHERE player = ? AND game = ?", (player, game)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def rake(self, game: str | None = None) -> int:
        """Rake collected in ``game``, or in every game."""
        if game is None:
            row = self._connection.execute(
                "SELECT COALESCE(SUM(rake_cents), 0) FROM house"
            ).fetchone()
        else:
            row = self._connection.execute(
                "SELECT COALESCE(SUM(rake_cents), 0) FROM house WHERE game = ?", (game,)
            ).fetchone()
        return int(row[0])

    def total(self) -> int:
        """Every main balance, every credit balance and all rake collected: changed only
        by deposits."""
        main, credit, rake = self._connection.execute(
            "SELECT (SELECT COALESCE(SUM(main_cents), 0) FROM accounts),"
            " (SELECT COALESCE(SUM(credit_cents), 0) FROM credits),"
            " (SELECT COALESCE(SUM(rake_cents), 0) FROM house)"
        ).fetchone()
        return int(main) + int(credit) + int(rake)

    def deposits(self) -> int:
        """All cents ever deposited: what :meth:`total` must equal."""
        row = self._connection.execute(
            "SELECT COALESCE(SUM(cents), 0) FROM journal WHERE kind = 'deposit'"
        ).fetchone()
        return int(row[0])

    def is_settled(self, game: str, set_id: str) -> bool:
        return (
            self._connection.execute(
                "SELECT 1 FROM settlements WHERE game = ? AND set_id = ?", (game, set_id)
            ).fetchone()
            is not None
        )

    def journal(self) -> list[LedgerEntry]:
        rows = self._connection.execute(
            "SELECT entry, game, set_id, player, kind, cents FROM journal ORDER BY entry"
        ).fetchall()
        return [LedgerEntry(*row) for row in rows]

    # -- operations ------------------------------------------------------------------

    def remember(self, key: str, cents: int) -> int:
        """``cents``, kept under ``key``; the value kept first when ``key`` is known."""
        cents = _cents(cents, f"the value of {key!r}")
        with self._transaction():
            done = self._done(key)
            if done is not None:
                return done
            self._mark(key, cents)
        return cents

    def deposit(self, player: str, cents: int, *, key: str | None = None) -> None:
        """Add ``cents`` to the player's main balance, opening its account if needed."""
        cents = _cents(cents, f"the deposit of {player!r}")
        with self._transaction() as connection:
            if self._done(key) is not None:
                return
            self._mark(key, cents)
            connection.execute(
                "INSERT INTO accounts (player, main_cents) VALUES (?, ?)"
                " ON CONFLICT (player) DO UPDATE SET main_cents = main_cents + excluded.main_cents",
                (player, cents),
            )
            self._journal(None, None, player, "deposit", cents)

    def move_to_credit(self, player: str, game: str, cents: int, *, key: str | None = None) -> int:
        """Move ``cents`` of the player's main balance into its credit balance in ``game``
        (on joining the game, and when topping up before a set); the cents moved."""
        cents = _cents(cents, f"the credit of {player!r}")
        with self._transaction() as connection:
            done = self._done(key)
            if done is not None:
                return done
            self._mark(key, cents)
            main = self.main(player)
            if not self.has_account(player):
                raise LedgerError(f"ledger: {player!r} has no account")
            if main < cents:
                raise LedgerError(
                    f"ledger: {player!r} cannot move {cents} cents into {game!r}:"
                    f" its main balance is {main}"
                )
            connection.execute(
                "UPDATE accounts SET main_cents = main_cents - ? WHERE player = ?", (cents, player)
            )
            connection.execute(
                "INSERT INTO credits (player, game, credit_cents) VALUES (?, ?, ?)"
                " ON CONFLICT (player, game)"
                " DO UPDATE SET credit_cents = credit_cents + excluded.credit_cents",
                (player, game, cents),
            )
            self._journal(game, None, player, "credit", cents)
        return cents

    def settle_set(
        self,
        game: str,
        set_id: str,
        buy_ins: Mapping[str, int],
        winnings: Mapping[str, int],
        *,
        rake_cents: int,
    ) -> None:
        """Settle one set in one transaction: each player's buy-in out of its credit
        balance, each winner's winnings into it, the rake to the house. The buy-ins must
        equal the winnings plus the rake, every winner must have played the set, and a
        set is settled only once: settling it again with the same amounts does nothing
        (a replayed event), with other amounts is refused."""
        rake_cents = _cents(rake_cents, f"the rake of set {set_id!r}")
        for player, cents in buy_ins.items():
            _cents(cents, f"the buy-in of {player!r} in set {set_id!r}")
        for player, cents in winnings.items():
            _cents(cents, f"the winnings of {player!r} in set {set_id!r}")
            if player not in buy_ins:
                raise LedgerError(
                    f"ledger: set {set_id!r} pays {player!r}, who did not buy in to it"
                )
        paid_in = sum(buy_ins.values())
        paid_out = sum(winnings.values()) + rake_cents
        if paid_in != paid_out:
            raise LedgerError(
                f"ledger: set {set_id!r} takes {paid_in} cents in buy-ins but pays out"
                f" {paid_out} (winnings plus rake)"
            )
        with self._transaction() as connection:
            settled = connection.execute(
                "SELECT buy_ins_cents, rake_cents FROM settlements WHERE game = ? AND set_id = ?",
                (game, set_id),
            ).fetchone()
            if settled is not None:
                if tuple(settled) == (paid_in, rake_cents):
                    return
                raise LedgerError(
                    f"ledger: set {set_id!r} of {game!r} is already settled, with"
                    f" {settled[0]} cents of buy-ins and {settled[1]} of rake"
                )
            connection.execute(
                "INSERT INTO settlements (game, set_id, buy_ins_cents, rake_cents)"
                " VALUES (?, ?, ?, ?)",
                (game, set_id, paid_in, rake_cents),
            )
            for player, cents in sorted(buy_ins.items()):
                credit = self.credit(player, game)
                if credit < cents:
                    raise LedgerError(
                        f"ledger: {player!r} cannot pay the {cents}-cent buy-in of set"
                        f" {set_id!r}: its credit balance in {game!r} is {credit}"
                    )
                connection.execute(
                    "UPDATE credits SET credit_cents = credit_cents - ?"
                    " WHERE player = ? AND game = ?",
                    (cents, player, game),
                )
                self._journal(game, set_id, player, "buy-in", cents)
            for player, cents in sorted(winnings.items()):
                connection.execute(
                    "UPDATE credits SET credit_cents = credit_cents + ?"
                    " WHERE player = ? AND game = ?",
                    (cents, player, game),
                )
                self._journal(game, set_id, player, "winnings", cents)
            connection.execute(
                "INSERT INTO house (game, rake_cents) VALUES (?, ?)"
                " ON CONFLICT (game) DO UPDATE SET rake_cents = rake_cents + excluded.rake_cents",
                (game, rake_cents),
            )
            self._journal(game, set_id, None, "rake", rake_cents)

    def leave(self, player: str, game: str, *, key: str | None = None) -> int:
        """Return the player's whole credit balance in ``game`` to its main balance; the
        cents returned."""
        with self._transaction() as connection:
            done = self._done(key)
            if done is not None:
                return done
            cents = self.credit(player, game)
            self._mark(key, cents)
            connection.execute("DELETE FROM credits WHERE player = ? AND game = ?", (player, game))
            connection.execute(
                "UPDATE accounts SET main_cents = main_cents + ? WHERE player = ?", (cents, player)
            )
            self._journal(game, None, player, "leave", cents)
        return cents
