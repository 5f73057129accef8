"""A finished run's deal blocks and seat-position comparisons, built from its sessions'
records (and the checkpoint store's full deal records, for adjusted nets), and the
reader of its JSON that names the file and the value at fault: what
:func:`dp_arena.ratings.runs.load_run` assembles into an event's record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from dp_arena.engine import Betting, TableRules
from dp_arena.errors import ConfigError, HandHistoryError, RunError
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.rundir import RunDir, RunStore
from dp_arena.rundir.rollouts import RolloutValues, with_values

__all__ = [
    "Comparison",
    "DealBlock",
    "FieldReader",
    "NetAdjustment",
    "ProgressCounter",
    "SeatPlay",
    "is_int",
    "match_comparisons",
    "read_json",
    "section_blocks",
    "section_comparisons",
    "store_results",
    "table_blocks",
]

NetAdjustment = Callable[[TableRules, DealRecord], tuple[Fraction, ...]]
"""A deal's adjusted nets (exact, one per seat) from the table's rules and its record."""


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """One entrant's play of one deal: where it sat, its net in chips, and its adjusted
    net (``None`` when the run kept no deal records or none was asked for)."""

    player: str
    table: int
    seat: int
    net: int
    adjusted_net: Fraction | None = None


@dataclass(frozen=True, slots=True)
class DealBlock:
    """One deal of one section of one session, as every table of the section played it
    (``deal`` counts from 0 within the session)."""

    event: str
    session: int
    section: int
    deal: int
    big_blind: int
    plays: tuple[SeatPlay, ...]

    @property
    def key(self) -> tuple[str, int, int, int]:
        return self.event, self.session, self.section, self.deal


@dataclass(frozen=True, slots=True)
class Comparison:
    """One seat position of one section (or mini-match) of one session: its entrants,
    best first, and their places (1 = best; players the rules could only separate by a
    random draw share a place)."""

    session: int
    section: int
    seat: int
    players: tuple[str, ...]
    places: tuple[int, ...]


class FieldReader:
    """Reads values out of parsed JSON, raising :class:`RunError` that names the file and
    the path of the value at fault."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str) -> RunError:
        return RunError(f"{self.path}: {where}: {message}")

    def get(self, data: Any, key: str, where: str, kind: type | tuple[type, ...]) -> Any:
        if not isinstance(data, dict):
            raise self.fail(where, f"expected an object, found {type(data).__name__}")
        if key not in data:
            raise self.fail(f"{where}.{key}" if where else key, "missing")
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            expected = (
                kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            )
            raise self.fail(
                f"{where}.{key}" if where else key,
                f"expected {expected}, found {type(value).__name__}",
            )
        return value


def read_json(raw: bytes, where: str) -> Any:
    """``raw`` read as JSON; :class:`RunError` naming ``where`` when it is not."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise RunError(f"{where}: not valid JSON: {error}") from None
    except RecursionError:
        raise RunError(f"{where}: not valid JSON: nested too deeply") from None


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ProgressCounter:
    """Counts the table-sessions adjusted for a progress callback."""

    def __init__(self, total: int, progress: Callable[[int, int], None]) -> None:
        self.total, self.done, self.progress = total, 0, progress

    def step(self) -> None:
        self.done += 1
        self.progress(self.done, self.total)


def store_results(
    run_dir: Path, rollouts: RolloutValues | None = None
) -> dict[tuple[int, int, int], TableSessionResult] | None:
    """(session, section, table) -> the table's full result, from the checkpoint store,
    or ``None`` when the run directory has none; with ``rollouts`` (the run's sidecar:
    :func:`~dp_arena.rundir.rollouts.read_values`), every deal record holds its values."""
    if not RunDir(run_dir).store.is_file():
        return None
    with RunStore.read(run_dir) as store:
        found = {
            (session, section, table): result for session, section, table, result in store.results()
        }
    if rollouts is None:
        return found
    sidecar = RunDir(run_dir).rollouts
    if set(rollouts.tables) != set(found):
        missing = sorted(set(found) - set(rollouts.tables)) or sorted(set(rollouts.tables))
        raise RunError(
            f"{sidecar}: its table-sessions are not the store's (first apart: session,"
            f" section, table {missing[0]})"
        )
    return {
        place: with_values(
            result,
            rollouts.tables[place],
            f"{sidecar}: session {place[0]}, section {place[1]}, table {place[2]}",
        )
        for place, result in found.items()
    }


def section_blocks(
    reader: FieldReader,
    label: str,
    session: int,
    section: int,
    plan: Mapping[str, Any],
    tables: Sequence[Any],
    where: str,
    details: Mapping[tuple[int, int, int], TableSessionResult] | None,
    adjust: NetAdjustment | None,
    counter: ProgressCounter | None = None,
) -> list[DealBlock]:
    big_blind = reader.get(plan, "big_blind", f"plan.sessions[{session}]", int)
    rows = []
    for index, table in enumerate(tables):
        table_where = f"{where}.table_results[{index}]"
        number = reader.get(table, "table", table_where, int)
        players = reader.get(table, "players", table_where, list)
        if not all(player is None or isinstance(player, str) for player in players):
            raise reader.fail(f"{table_where}.players", "expected names (or null for absent)")
        nets = reader.get(table, "deal_nets", table_where, list)
        for deal_index, deal in enumerate(nets):
            if (
                not isinstance(deal, list)
                or len(deal) != len(players)
                or not all(is_int(net) for net in deal)
                or sum(deal) != 0
            ):
                raise reader.fail(
                    f"{table_where}.deal_nets[{deal_index}]",
                    f"expected {len(players)} nets that sum to zero, found {deal!r:.200}",
                )
        adjusted = None
        if details is not None and adjust is not None:
            adjusted = _adjusted_nets(
                reader, plan, session, section, number, players, nets, details, adjust
            )
            if counter is not None:
                counter.step()
        rows.append((number, players, nets, adjusted))
    deal_count = min((len(nets) for _, _, nets, _ in rows), default=0)
    if any(len(nets) != deal_count for _, _, nets, _ in rows):
        raise reader.fail(where, "its tables played different numbers of deals")
    blocks = []
    for deal in range(deal_count):
        plays = tuple(
            SeatPlay(
                player=player,
                table=number,
                seat=seat,
                net=nets[deal][seat],
                adjusted_net=None if adjusted is None else adjusted[deal][seat],
            )
            for number, players, nets, adjusted in rows
            for seat, player in enumerate(players)
            if player is not None
        )
        blocks.append(DealBlock(label, session, section, deal, big_blind, plays))
    return blocks


def _adjusted_nets(
    reader: FieldReader,
    plan: Mapping[str, Any],
    session: int,
    section: int,
    table: int,
    players: Sequence[str | None],
    nets: Sequence[Sequence[int]],
    details: Mapping[tuple[int, int, int], TableSessionResult],
    adjust: NetAdjustment,
) -> list[tuple[Fraction, ...]]:
    where = f"store.sqlite: session {session}, section {section}, table {table}"
    result = details.get((session, section, table))
    if result is None:
        raise RunError(f"{reader.path.parent}: {where}: missing from the checkpoint store")
    try:
        rules = TableRules(
            seat_count=len(players),
            small_blind=plan["small_blind"],
            big_blind=plan["big_blind"],
            betting=Betting(plan["betting"]),
            cap=plan["cap"],
        )
    except (KeyError, ValueError, ConfigError) as error:
        raise reader.fail(f"plan.sessions[{session}]", f"no table rules: {error}") from None
    if len(result.deals) != len(nets):
        raise RunError(
            f"{reader.path.parent}: {where}: {len(result.deals)} deals,"
            f" results.json has {len(nets)}"
        )
    adjusted = []
    for record, recorded in zip(result.deals, nets, strict=True):
        if tuple(record.nets) != tuple(recorded):
            raise RunError(
                f"{reader.path.parent}: {where}, deal {record.deal}: the store's nets"
                f" {list(record.nets)} differ from results.json's {list(recorded)}"
            )
        try:
            adjusted.append(adjust(rules, record))
        except (HandHistoryError, ValueError) as error:
            raise RunError(f"{reader.path.parent}: {where}, deal {record.deal}: {error}") from None
    return adjusted


def section_comparisons(
    reader: FieldReader, session: int, section: Mapping[str, Any], where: str
) -> Iterator[Comparison]:
    number = reader.get(section, "section", where, int)
    rows = reader.get(section, "players", where, list)
    by_seat: dict[int, list[tuple[int, str | None, str | None]]] = {}
    for index, row in enumerate(rows):
        row_where = f"{where}.players[{index}]"
        seat = reader.get(row, "seat", row_where, int)
        rank = reader.get(row, "rank", row_where, int)
        player = reader.get(row, "player", row_where, (str, type(None)))
        decided_by = reader.get(row, "decided_by", row_where, (str, type(None)))
        by_seat.setdefault(seat, []).append((rank, player, decided_by))
    for seat in sorted(by_seat):
        players: list[str] = []
        places: list[int] = []
        place = 0
        for rank, player, decided_by in sorted(by_seat[seat], key=lambda item: item[0]):
            # A seeded draw is not a result: players it separated share a place.
            if decided_by != "draw" or not places:
                place = rank
            if player is not None:
                players.append(player)
                places.append(place)
        if len(players) >= 2:
            yield Comparison(session, number, seat, tuple(players), _dense(places))


def match_comparisons(
    reader: FieldReader, session: int, match: int, data: Mapping[str, Any], where: str
) -> Iterator[Comparison]:
    for index, comparison in enumerate(reader.get(data, "comparisons", where, list)):
        comparison_where = f"{where}.comparisons[{index}]"
        seat = reader.get(comparison, "seat", comparison_where, int)
        players = reader.get(comparison, "players", comparison_where, list)
        chips = reader.get(comparison, "total_chips", comparison_where, list)
        if (
            len(players) != len(chips)
            or not all(player is None or isinstance(player, str) for player in players)
            or not all(is_int(total) for total in chips)
        ):
            raise reader.fail(
                comparison_where, "expected as many players (names or null) as total_chips (ints)"
            )
        entries = sorted(
            (
                (total, player)
                for player, total in zip(players, chips, strict=True)
                if player is not None
            ),
            key=lambda entry: -entry[0],
        )
        if len(entries) >= 2:
            places = [1 + sum(other > total for other, _ in entries) for total, _ in entries]
            yield Comparison(
                session, match, seat, tuple(player for _, player in entries), _dense(places)
            )


def _dense(places: Sequence[int]) -> tuple[int, ...]:
    """Places renumbered 1, 2, ... among the players kept (ties keep sharing a place)."""
    order = sorted(set(places))
    return tuple(1 + order.index(place) for place in places)


def table_blocks(
    label: str,
    tables: Sequence[TableSessionResult],
    rules: TableRules,
    *,
    session: int = 1,
    section: int = 1,
    adjust: NetAdjustment | None = None,
) -> list[DealBlock]:
    """The blocks of mirrored tables that played the same deals (a duplicate match, or a
    section played outside an event): deal ``d`` of every table is one block, players are
    the tables' player names (absent seats of each deal left out). With ``adjust`` every
    play's adjusted net is computed from its deal record."""
    if not tables:
        return []
    deal_count = len(tables[0].deals)
    if any(len(table.deals) != deal_count for table in tables):
        raise ValueError("mirrored tables must have played the same number of deals")
    blocks = []
    for deal in range(deal_count):
        plays = []
        for number, table in enumerate(tables, start=1):
            record = table.deals[deal]
            adjusted = None if adjust is None else adjust(rules, record)
            for seat, player in enumerate(record.players):
                if seat in record.absent:
                    continue
                plays.append(
                    SeatPlay(
                        player=player,
                        table=number,
                        seat=seat,
                        net=record.nets[seat],
                        adjusted_net=None if adjusted is None else adjusted[seat],
                    )
                )
        blocks.append(DealBlock(label, session, section, deal, rules.big_blind, tuple(plays)))
    return blocks
