"""Quick Play's own words in an event's summary: the rake, and the standings with the
money behind each place."""

from __future__ import annotations

from dp_arena.tournament.describe import SummaryParts, place_text
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.outcomes import EventResult
from dp_arena.tournament.quickplay.records import QuickPlayDetails

__all__ = ["summary_parts"]


def summary_parts(
    result: EventResult, details: QuickPlayDetails, absent_players: frozenset[str]
) -> SummaryParts:
    """The rake after the prize pool, the standings by money, and the rake kept after
    the amount paid."""
    return SummaryParts(
        after_pool=f", rake {_format_percent(details.rake_basis_points)} of each amount won",
        standings=tuple(_standing_lines(result, details, absent_players)),
        after_paid=f" (the rake kept {format_cents(details.rake_cents)})",
    )


def _format_percent(basis_points: int) -> str:
    """``500`` → ``'5 %'``, ``250`` → ``'2.5 %'``."""
    whole, hundredths = divmod(basis_points, 100)
    return f"{whole}.{hundredths:02d}".rstrip("0").rstrip(".") + " %"


def _standing_lines(
    result: EventResult, details: QuickPlayDetails, absent_players: frozenset[str]
) -> list[str]:
    """Quick Play's standings with the money behind each place: won (after the rake),
    buy-ins and sets, and the net."""
    money = {player.player: player for player in details.players}
    width = max((len(standing.player) for standing in result.standings), default=6)
    lines = [
        "final standings, by money won after the rake (equal winnings: fewer buy-ins first):",
        f"  {'place':>7}  {'player':<{width}}  {'won':>10}  {'buy-ins':>10}  sets  {'net':>10}",
    ]
    for standing in result.standings:
        player = money[standing.player]
        net = ("+" if player.profit_cents > 0 else "") + format_cents(player.profit_cents)
        note = "  (ABSENT: did not load)" if standing.player in absent_players else ""
        lines.append(
            f"  {place_text(standing):>7}  {standing.player:<{width}}"
            f"  {format_cents(player.won_cents):>10}  {format_cents(player.buy_ins_cents):>10}"
            f"  {player.sets_played:>4}  {net:>10}{note}"
        )
    return lines
