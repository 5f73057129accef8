"""The players' money in one Quick Play event (docs/formats.md), kept in the credit game
balance ledger: opening accounts, moving money into credit balances, settling each set
in one transaction, and returning credit balances when players leave."""

from __future__ import annotations

from dataclasses import dataclass

from dp_arena.errors import RunError
from dp_arena.tournament.config import EventConfig
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.quickplay.ledger import Ledger
from dp_arena.tournament.quickplay.money import Award
from dp_arena.tournament.quickplay.options import QuickPlayOptions
from dp_arena.tournament.quickplay.schedule import PlannedSet, QuickPlaySchedule

__all__ = ["PlayerMoney", "Purses"]


@dataclass(frozen=True, slots=True)
class PlayerMoney:
    """A player's money in the event: buy-ins paid, amounts won (after rake), what it
    moved into its credit balance and got back, and its main balance before and after."""

    player: str
    sets_played: int
    buy_ins_cents: int
    won_cents: int
    rake_cents: int
    credit_in_cents: int
    credit_returned_cents: int
    main_before_cents: int
    main_after_cents: int

    @property
    def profit_cents(self) -> int:
        return self.won_cents - self.buy_ins_cents


class Purses:
    """The players' money in one Quick Play event, kept in the ledger.

    Decisions (how much to move into a credit balance) are taken on this event's own
    tally, not on the ledger's balances, and every ledger operation carries a key made of
    the run and the set: an event played again over the same ledger (a resumed run)
    takes the same decisions and moves no cent twice."""

    def __init__(
        self,
        ledger: Ledger,
        config: EventConfig,
        options: QuickPlayOptions,
        schedule: QuickPlaySchedule,
        buy_in: int,
        runtime: Runtime,
    ) -> None:
        self.ledger = ledger
        self.options = options
        self.buy_in = buy_in
        self.game = f"quickplay:{config.name}:{buy_in}"
        run = str(runtime.run_dir.path) if runtime.run_dir else "in-memory"
        self.prefix = f"{self.game}@{run}"
        self.sets_played = dict(schedule.sets_played)
        self.last_set = schedule.last_set_of()
        self.total_before = ledger.remember(f"{self.prefix}#total-before", ledger.total())
        players = [entrant.player for entrant in config.entrants]
        opening = options.balance_cents if options.balance_cents is not None else 100 * buy_in
        for player in players:
            if not ledger.has_account(player):
                ledger.deposit(player, opening, key=f"{self.prefix}#open-{player}")
        self.main_before = {
            player: ledger.remember(f"{self.prefix}#main-before-{player}", ledger.main(player))
            for player in players
        }
        short = [
            f"{player} ({format_cents(self.main_before[player])} for {count} buy-ins"
            f" of {format_cents(buy_in)})"
            for player, count in self.sets_played.items()
            if self.main_before[player] < count * buy_in
        ]
        if short:
            raise RunError(
                f"Quick Play: main balances too small for the planned sets: {', '.join(short)};"
                " raise options.balance_cents or lower options.sets"
            )
        self.main = dict(self.main_before)
        self.credit = dict.fromkeys(players, 0)
        self.credit_in = dict.fromkeys(players, 0)
        self.returned = dict.fromkeys(players, 0)
        self.paid = dict.fromkeys(players, 0)
        self.won = dict.fromkeys(players, 0)
        self.raked = dict.fromkeys(players, 0)

    def before_set(self, planned: PlannedSet) -> None:
        """Move money into the credit balance of each player of the set who joins now or
        cannot pay the buy-in."""
        for player in sorted(planned.players):
            if self.credit_in[player] and self.credit[player] >= self.buy_in:
                continue
            wanted = self.options.credit_cents or self.sets_played[player] * self.buy_in
            amount = min(self.main[player], max(wanted, self.buy_in - self.credit[player]))
            self.ledger.move_to_credit(
                player, self.game, amount, key=f"{self.prefix}#credit-{planned.set_number}-{player}"
            )
            self.main[player] -= amount
            self.credit[player] += amount
            self.credit_in[player] += amount

    def settle(self, planned: PlannedSet, awards: list[Award]) -> None:
        """Settle the set in one ledger transaction; players whose last set it was leave."""
        winnings: dict[str, int] = {}
        for award in awards:
            winnings[award.player] = winnings.get(award.player, 0) + award.net_cents
            self.won[award.player] += award.net_cents
            self.raked[award.player] += award.rake_cents
        for player in planned.players:
            self.paid[player] += self.buy_in
            self.credit[player] += winnings.get(player, 0) - self.buy_in
        self.ledger.settle_set(
            self.game,
            f"{self.prefix}#set-{planned.set_number}",
            dict.fromkeys(planned.players, self.buy_in),
            winnings,
            rake_cents=sum(award.rake_cents for award in awards),
        )
        for player in sorted(planned.players):
            if self.last_set[player] == planned.set_number:
                cents = self.ledger.leave(
                    player, self.game, key=f"{self.prefix}#leave-{planned.set_number}-{player}"
                )
                self.returned[player] += cents
                self.main[player] += cents
                self.credit[player] = 0

    def money(self) -> tuple[PlayerMoney, ...]:
        return tuple(
            PlayerMoney(
                player=player,
                sets_played=self.sets_played[player],
                buy_ins_cents=self.paid[player],
                won_cents=self.won[player],
                rake_cents=self.raked[player],
                credit_in_cents=self.credit_in[player],
                credit_returned_cents=self.returned[player],
                main_before_cents=self.main_before[player],
                main_after_cents=self.main[player],
            )
            for player in self.main_before
        )
