"""Human-readable text of a plan (``dp-arena plan``) and of a finished event's summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dp_arena.tournament.code import code_label
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.outcomes import EventResult, Standing
from dp_arena.tournament.plan import EventPlan, PrizeKind, SessionKind, SessionPlan

__all__ = [
    "SCREEN_PLACES",
    "SummaryParts",
    "describe_plan",
    "describe_result",
    "format_points",
    "place_text",
]

# The most places a summary printed on the terminal lists (summary.txt lists them all).
SCREEN_PLACES = 100
# A session of more sections than this is summed up by its sizes, not listed one by one.
LISTED_SECTIONS = 12


@dataclass(frozen=True, slots=True)
class SummaryParts:
    """What a format says in its own words in its event's summary
    (:meth:`~dp_arena.tournament.interface.EventFormat.summary_parts`), each part left
    empty where the usual text serves: words after the prize pool in the first line, the
    standings table in place of the usual one, and words after the amount paid."""

    after_pool: str = ""
    standings: tuple[str, ...] = ()
    after_paid: str = ""


def format_points(points: Fraction) -> str:
    return str(points.numerator) if points.denominator == 1 else f"{float(points):g}"


def _session_lines(session: SessionPlan) -> list[str]:
    blinds = f"{session.small_blind}/{session.big_blind}"
    rules = f"capped {session.betting.value} {blinds}, cap {session.cap}"
    if session.kind is SessionKind.ROUND_ROBIN:
        rr = session.round_robin
        assert rr is not None
        absent = f" ({rr.absent} absent)" if rr.absent else ""
        lines = [
            (
                f"session {session.session}: round robin of {rr.players}{absent},"
                f" {rr.matches} mini-matches x {rr.deals_per_match} deals ({rr.deals} deals),"
                f" {rr.players // 2} heads-up tables each, starting stack {rr.starting_stack},"
                f" {rules}; points by place {rr.points_by_place}"
            )
        ]
        for match, tables in enumerate(rr.schedule, start=1):
            pairs = ", ".join(f"{first + 1} v {second + 1}" for first, second in tables)
            lines.append(f"    mini-match {match}: slots {pairs}  (seat 0 v seat 1)")
        return lines
    flags = []
    if not session.eliminating:
        flags.append("no elimination")
    if session.final:
        flags.append("decides the prizes")
    if session.carryover_step:
        flags.append(f"carryover {session.carryover_step} per place")
    advancing = session.advancing
    head = (
        f"session {session.session}: {session.players} players in {len(session.sections)} section"
        f"{'s' if len(session.sections) > 1 else ''}, {rules}"
    )
    if advancing is not None:
        head += f"; {advancing} go on"
    if flags:
        head += f" ({', '.join(flags)})"
    lines = [head]
    # Sections alike one after the other share a line ("sections 1-3335: ..."): a big
    # session is a few lines, not thousands.
    runs: list[tuple[int, int, str]] = []
    for section in session.sections:
        advance = (
            "all advance"
            if section.advancing is None and not session.final
            else "last session"
            if section.advancing is None
            else f"{section.advancing} of {section.tables} advance per seat position"
        )
        text = (
            f"{section.players} players, {section.tables} tables x {section.seats},"
            f" {section.absent} absent, {section.deals} deals"
            f" (stack {session.cap * section.deals}), {advance}"
        )
        if runs and runs[-1][2] == text and runs[-1][1] == section.section - 1:
            runs[-1] = (runs[-1][0], section.section, text)
        else:
            runs.append((section.section, section.section, text))
    for first, last, text in runs:
        label = f"section {first}" if first == last else f"sections {first}-{last}"
        lines.append(f"    {label}: {text}")
    return lines


def describe_plan(plan: EventPlan, title: str, *, deck: str | None = None) -> str:
    """The plan for people; ``deck`` says where the decks come from (default: the seed)."""
    prizes = plan.prizes
    lines = [
        f'{title} "{plan.event}": {plan.entrants} entrants, {deck or f"seed {plan.seed}"}',
        (
            f"buy-in {format_cents(prizes.buy_in_cents)} + fee {format_cents(prizes.fee_cents)};"
            f" prize pool {format_cents(prizes.pool_cents)}"
        ),
        "",
    ]
    for session in plan.sessions:
        lines += _session_lines(session)
    lines.append(f"deals dealt: {plan.deals}")
    lines += ["", "prizes:"]
    if prizes.kind is PrizeKind.PLACES:
        for place, cents in enumerate(prizes.places, start=1):
            lines.append(f"    place {place}: {format_cents(cents)}")
    elif prizes.kind is PrizeKind.SEAT_POSITIONS:
        for seat, places in enumerate(prizes.seat_positions):
            paid = ", ".join(
                f"place {place} {format_cents(cents)}"
                for place, cents in enumerate(places, start=1)
            )
            lines.append(f"    seat position {seat} of the last session: {paid}")
    elif prizes.kind is PrizeKind.ROUND_ROBIN_POINTS:
        lines.append(f"    overall winner: {format_cents(prizes.winner_cents)}")
        lines.append(f"    shared in proportion to points: {format_cents(prizes.points_cents)}")
    lines += [f"    {note}" for note in prizes.notes]
    return "\n".join(lines) + "\n"


def place_text(standing: Standing) -> str:
    """A standing's place as the summary shows it: ``3``, or ``3-4`` when shared."""
    if standing.place == standing.place_to:
        return str(standing.place)
    return f"{standing.place}-{standing.place_to}"


def _standing_lines(
    result: EventResult, absent_players: set[str], labels: Mapping[str, str]
) -> list[str]:
    """The standings, each entrant's code beside its name (``labels``, when known)."""
    lines = ["final standings:"]
    width = max((len(standing.player) for standing in result.standings), default=6)
    code_width = max((len(label) for label in labels.values()), default=0)
    for standing in result.standings:
        note = f"  (out in session {standing.eliminated_in})" if standing.eliminated_in else ""
        if standing.player in absent_players:
            note += "  (ABSENT: did not load)"
        prize = format_cents(standing.prize_cents) if standing.prize_cents else ""
        code = f"  {labels.get(standing.player, ''):<{code_width}}" if labels else ""
        lines.append(
            f"  {place_text(standing):>7}  {standing.player:<{width}}{code}  {prize:>10}{note}"
        )
    return lines


def _sections_text(seated: Sequence[int]) -> str:
    """A session's sections by their players: each listed, or, for many, summed up
    (``3,335 sections of 29-30 players (100,000 seated)``)."""
    if len(seated) <= LISTED_SECTIONS:
        return f"sections of {', '.join(str(players) for players in seated)} players"
    low, high = min(seated), max(seated)
    sizes = str(low) if low == high else f"{low}-{high}"
    return f"{len(seated):,} sections of {sizes} players ({sum(seated):,} seated)"


def _first_places(lines: list[str], entrants: int, places: int | None) -> list[str]:
    """Standings (their heading, then a line for each of ``entrants``) cut to the first
    ``places`` entrants' lines."""
    if places is None or entrants <= places:
        return lines
    heading = len(lines) - entrants
    more = entrants - places
    return [*lines[: heading + places], f"  ... and {more:,} more: summary.txt lists every place"]


def _benched_lines(result: EventResult) -> list[str]:
    """Every benching: where, how many deals it cost, and the fault kinds that did it."""
    benched = [(brief, bench) for brief in result.briefs for bench in brief.benched]
    if not benched:
        return []
    lines = ["", "benched (played on as absent players after faults):"]
    for brief, bench in benched:
        group = "mini-match" if brief.kind == "round-robin" else "section"
        lines.append(
            f"  {bench.player}: sat out {bench.deals_out} of {bench.deals} deals"
            f" (session {bench.session}, {group} {bench.section}, table {bench.table}):"
            f" {bench.reason}"
        )
    return lines


def describe_result(
    plan: EventPlan,
    title: str,
    result: EventResult,
    *,
    parts: SummaryParts = SummaryParts(),
    deck: str | None = None,
    absent: Sequence[tuple[str, str]] = (),
    entrants: Sequence[Mapping[str, Any]] = (),
    places: int | None = None,
) -> str:
    """The summary for people; ``parts``: the format's own words; ``absent``: entrants
    that did not load, with the reason; ``entrants``: ``results.json``'s, whose code is
    shown beside each name; ``places``: list only the first that many places (the
    terminal's summary of a big field), saying how many more there are."""
    lines = [
        (
            f'{title} "{plan.event}": {plan.entrants} entrants, {deck or f"seed {plan.seed}"},'
            f" prize pool {format_cents(plan.prizes.pool_cents)}{parts.after_pool}"
        )
    ]
    for brief in result.briefs:
        if brief.kind == "round-robin":
            points = ", ".join(
                f"{player} {format_points(value)}"
                for player, value in sorted(brief.points, key=lambda item: -item[1])
            )
            lines.append(f"session {brief.session}: round robin, points: {points}")
        else:
            went_on = f"{brief.advancing:,} go on" if brief.advancing else "last session"
            lines.append(f"session {brief.session}: {_sections_text(brief.seated)}; {went_on}")
    absent_players = {player for player, _ in absent}
    lines.append("")
    if parts.standings:
        lines += _first_places(list(parts.standings), len(result.standings), places)
    else:
        # The organiser's own config names this code (a file name, a registry name).
        labels = {
            str(entrant.get("player")): code_label(entrant.get("code")) for entrant in entrants
        }
        lines += _first_places(
            _standing_lines(result, absent_players, labels), len(result.standings), places
        )
    lines += _benched_lines(result)
    lines += _clairvoyance_lines(entrants)
    paid = sum(standing.prize_cents for standing in result.standings)
    counts = Counter(fault.player for fault in result.faults)
    by_bot = ", ".join(f"{player} {count}" for player, count in sorted(counts.items()))
    lines += [
        "",
        (
            f"paid {format_cents(paid)} of {format_cents(plan.prizes.pool_cents)}"
            f"{parts.after_paid};"
            f" faults: {len(result.faults)}" + (f" ({by_bot})" if by_bot else "")
        ),
    ]
    if absent:
        lines += ["", "ABSENT: these entrants did not load and played as absent players:"]
        lines += [f"  {player}: {reason}" for player, reason in absent]
    return "\n".join(lines) + "\n"


def _clairvoyance_lines(entrants: Sequence[Mapping[str, Any]]) -> list[str]:
    """Who the clairvoyance test flags (docs/rankings.md), when the event was tested."""
    tests = {
        str(entrant.get("player")): entrant["clairvoyance"]
        for entrant in entrants
        if entrant.get("clairvoyance") is not None
    }
    if not tests:
        return []
    flagged = [player for player, test in tests.items() if test["flagged"]]
    table = [
        player for player, test in tests.items() if test["table"]["flagged"] and not test["flagged"]
    ]
    if not flagged and not table:
        return ["", f"clairvoyance test: no bot flagged ({len(tests):,} tested)"]
    lines = [""]
    if flagged:
        lines.append(
            "CLAIRVOYANCE: the first decisions of these bots depend on cards they could not"
            " see (p below one in a million):"
        )
        lines += [
            f"  {player}: z {tests[player]['z']}, p {tests[player]['p']:.3g}" for player in flagged
        ]
    if table:
        lines.append(
            "clairvoyance at their tables (every decision tested; the bot itself or an opponent"
            f" played on unseen cards): {', '.join(table)}"
        )
    return lines
