"""Reading a run directory into what rankings are computed from: deal blocks (every
entrant's net on each deal, grouped by the deal they share), seat-position comparisons,
faults and prizes.

A run directory (``docs/results.md``) holds ``results.json``, the summary, and one part
per session, read one after the other (:func:`read_sessions`); when it also holds the
checkpoint store ``store.sqlite`` (every table's full deal records: cards and actions),
each net is paired with its adjusted net, a function of the deal record: by default the
board-luck correction (:mod:`dp_arena.ratings.board_luck`), or the all-in equity
adjustment (:func:`dp_arena.ratings.equity.all_in_nets`).

A **block** is one deal of one section of one session (a mini-match of a round robin is
a section): every table of the section played it with the same cards in the same
seats. Absent players are not entrants and are left out of blocks and comparisons. A bot
is identified across events by :func:`bot_identity` of its code (``entrants[].code`` in
``results.json``), or of its agent spec in a run that recorded no code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from dp_arena.engine import Betting, TableRules
from dp_arena.errors import ConfigError, HandHistoryError, RunError
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.results import DealRecord, Fault, TableSessionResult, session_from_records
from dp_arena.rundir import RunDir, RunStore

__all__ = [
    "Comparison",
    "DealBlock",
    "EventRecord",
    "NetAdjustment",
    "SeatPlay",
    "bot_identity",
    "load_run",
    "read_sessions",
    "table_blocks",
]

RESULTS_FILE = RunDir.RESULTS
# The groups of tables in a session's results, by the session's kind: a round robin's
# mini-matches, a session of sections' sections (their list's key, each one's number's).
_GROUPS = {"round-robin": ("matches", "match"), "sections": ("sections", "section")}

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


@dataclass(frozen=True, slots=True)
class EventRecord:
    """What rankings need of one finished run.

    ``label`` is the run directory's name; ``digest`` the SHA-256 of its
    ``results.json``; ``finished`` the time the run finished (from ``timing.json``, for
    ordering events), if known. ``entrants`` pairs each player with its agent spec as
    written, ``codes`` maps players to their code objects (``{}`` for a run that
    recorded none), ``prizes`` pairs each player with its prize in cents; ``results`` is
    the whole ``results.json``, as read; ``has_adjusted`` says whether every play has its
    adjusted net."""

    label: str
    name: str
    format: str
    seed: int | None  # the public seed; None when the decks came from a secret key
    digest: str
    finished: str | None
    entrants: tuple[tuple[str, str], ...]
    blocks: tuple[DealBlock, ...]
    comparisons: tuple[Comparison, ...]
    faults: tuple[Fault, ...]
    prizes: tuple[tuple[str, int], ...]
    has_adjusted: bool
    codes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    results: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    run_dir: Path | None = field(default=None, compare=False, repr=False)

    def sessions(self) -> Iterator[dict[str, Any]]:
        """Each session's object, read from its part (or from ``results.json`` when it
        holds them, or when the record was made without its directory)."""
        if self.run_dir is None:
            yield from self.results.get("sessions", ())
            return
        yield from read_sessions(self.run_dir, self.results)

    @property
    def specs(self) -> dict[str, str]:
        return dict(self.entrants)

    def bots(self, identity: Callable[[str], str] | None = None) -> dict[str, str]:
        """player -> bot: :func:`bot_identity` of its code (of its spec when the run
        recorded no code), or ``identity`` of its spec."""
        if identity is not None:
            return {player: identity(spec) for player, spec in self.entrants}
        return {
            player: bot_identity(spec, self.codes.get(player)) for player, spec in self.entrants
        }


def bot_identity(spec: str, code: Mapping[str, Any] | None = None) -> str:
    """The name a bot is ranked and rated under across events. From its ``code``
    (``docs/results.md``): ``name@version`` for a registry bot, the name of a built-in,
    and for anything else its name with the first 8 hex digits of its content hash
    (the same code under another path is the same bot; other code is another). Without
    a code, from the spec: ``registry:name@version`` is ``name@version``
    (``registry:name`` stays ``name``), anything else the spec as written.

    >>> bot_identity("registry:alice@3"), bot_identity("tag"), bot_identity("bots/x.py:X")
    ('alice@3', 'tag', 'bots/x.py:X')
    >>> bot_identity("../x.py:X", {"kind": "file", "name": "x.py:X", "sha256": "3f2a9c1e77"})
    'x.py:X #3f2a9c1e'
    """
    if code:
        name = str(code.get("name"))
        if code.get("kind") == "builtin":
            return name
        if code.get("kind") == "registry":
            return name if code.get("version") is None else f"{name}@{code['version']}"
        digest = code.get("sha256")
        return f"{name} #{str(digest)[:8]}" if digest else name
    if spec.startswith("registry:"):
        return spec[len("registry:") :]
    return spec


# -- reading -----------------------------------------------------------------------------


class _Reader:
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


def load_run(
    run_dir: Path,
    *,
    adjust: NetAdjustment | None = corrected_nets,
    progress: Callable[[int, int], None] | None = None,
) -> EventRecord:
    """Read ``run_dir``. With ``adjust``, every play's adjusted net is computed from the
    checkpoint store's deal records when the directory has one (``has_adjusted`` says
    whether it did); ``progress(done, total)`` hears of every table-session adjusted."""
    path = RunDir(run_dir).results
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RunError(
            f"{run_dir} is not a finished run directory: cannot read {path}:"
            f" {error.strerror or error}"
        ) from None
    data = _json(raw, str(path))
    reader = _Reader(path)
    event = reader.get(data, "event", "", dict)
    label = run_dir.resolve().name
    plan_sessions = {
        reader.get(session, "session", "plan.sessions[]", int): session
        for session in reader.get(reader.get(data, "plan", "", dict), "sessions", "plan", list)
    }
    listed = reader.get(data, "entrants", "", list)
    entrants = tuple(
        (
            reader.get(entrant, "player", f"entrants[{index}]", str),
            reader.get(entrant, "spec", f"entrants[{index}]", str),
        )
        for index, entrant in enumerate(listed)
    )
    codes = {
        player: reader.get(entrant, "code", f"entrants[{index}]", dict)
        for index, ((player, _), entrant) in enumerate(zip(entrants, listed, strict=True))
        if "code" in entrant
    }
    details = _store_results(run_dir) if adjust is not None else None
    counter = None
    if details is not None and progress is not None:
        counter = _Counter(len(details), progress)
    blocks: list[DealBlock] = []
    comparisons: list[Comparison] = []
    for index, session in enumerate(read_sessions(run_dir, data)):
        where = f"sessions[{index}]"
        number = reader.get(session, "session", where, int)
        plan = plan_sessions.get(number)
        if plan is None:
            raise reader.fail(where, f"session {number} is not in the plan")
        kind = reader.get(session, "kind", where, str)
        if kind not in _GROUPS:
            raise reader.fail(f"{where}.kind", f"unknown session kind {kind!r}")
        list_key, number_key = _GROUPS[kind]
        groups = [
            (
                reader.get(group, number_key, f"{where}.{list_key}[{g}]", int),
                group,
                f"{where}.{list_key}[{g}]",
            )
            for g, group in enumerate(reader.get(session, list_key, where, list))
        ]
        for section_number, group, group_where in groups:
            tables = reader.get(group, "table_results", group_where, list)
            blocks += _section_blocks(
                reader,
                label,
                number,
                section_number,
                plan,
                tables,
                group_where,
                details,
                adjust,
                counter,
            )
            if kind == "round-robin":
                comparisons += _match_comparisons(
                    reader, number, section_number, group, group_where
                )
        if kind == "sections":
            for s, section in enumerate(reader.get(session, "sections", where, list)):
                comparisons += _section_comparisons(
                    reader, number, section, f"{where}.sections[{s}]"
                )
    prizes = reader.get(reader.get(data, "prizes", "", dict), "by_player", "prizes", dict)
    for player, cents in prizes.items():
        if not _is_int(cents):
            raise reader.fail(
                f"prizes.by_player.{player}", f"expected cents (int), found {cents!r:.40}"
            )
    try:
        faults = tuple(Fault.from_json(fault) for fault in reader.get(data, "faults", "", list))
    except (KeyError, TypeError, ValueError) as error:
        raise reader.fail("faults", f"not a list of faults: {error}") from None
    return EventRecord(
        label=label,
        name=reader.get(event, "name", "event", str),
        format=reader.get(event, "format", "event", str),
        seed=reader.get(event, "seed", "event", (int, type(None))),
        digest=hashlib.sha256(raw).hexdigest(),
        finished=RunDir(run_dir).finished_at(),
        entrants=entrants,
        blocks=tuple(blocks),
        comparisons=tuple(comparisons),
        faults=faults,
        prizes=tuple(sorted((str(player), cents) for player, cents in prizes.items())),
        has_adjusted=details is not None,
        codes=codes,
        results=data,
        run_dir=run_dir,
    )


def read_sessions(run_dir: Path, data: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The sessions of the run in ``run_dir`` whose ``results.json`` is ``data``, one at
    a time, in order: each read from its part (``sessions[].part``), checked against the
    digest the summary gives it, and joined into the session's object; a ``results.json``
    of version 1 holds the objects themselves. :class:`RunError` names the file and the
    line at fault."""
    layout = RunDir(run_dir)
    path = layout.results
    reader = _Reader(path)
    for index, entry in enumerate(reader.get(data, "sessions", "", list)):
        if not isinstance(entry, dict) or "part" not in entry:
            yield entry  # the session itself (version 1)
            continue
        where = f"sessions[{index}]"
        name = reader.get(entry, "part", where, str)
        digest = reader.get(entry, "sha256", where, str)
        part = layout.file(name)
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise reader.fail(f"{where}.part", f"not a part of the run directory: {name!r}")
        try:
            raw = part.read_bytes()
        except OSError as error:
            raise RunError(f"{part}: cannot read the session's part: {error.strerror}") from None
        if hashlib.sha256(raw).hexdigest() != digest:
            raise RunError(f"{part}: it is not the part {path.name} names (its SHA-256 differs)")
        yield _joined(part, raw)


def _json(raw: bytes, where: str) -> Any:
    """``raw`` read as JSON; :class:`RunError` naming ``where`` when it is not."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise RunError(f"{where}: not valid JSON: {error}") from None
    except RecursionError:
        raise RunError(f"{where}: not valid JSON: nested too deeply") from None


def _joined(part: Path, raw: bytes) -> dict[str, Any]:
    records = []
    for number, line in enumerate(raw.splitlines(), start=1):
        record = _json(line, f"{part}: line {number}")
        if not isinstance(record, dict):
            raise RunError(f"{part}: line {number}: not a record (an object)")
        records.append(record)
    try:
        return session_from_records(records)
    except (KeyError, TypeError, ValueError) as error:
        raise RunError(f"{part}: not a session's records: {error}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Counter:
    """Counts the table-sessions adjusted for a progress callback."""

    def __init__(self, total: int, progress: Callable[[int, int], None]) -> None:
        self.total, self.done, self.progress = total, 0, progress

    def step(self) -> None:
        self.done += 1
        self.progress(self.done, self.total)


def _store_results(run_dir: Path) -> dict[tuple[int, int, int], TableSessionResult] | None:
    """(session, section, table) -> the table's full result, from the checkpoint store,
    or ``None`` when the run directory has none."""
    if not RunDir(run_dir).store.is_file():
        return None
    with RunStore.read(run_dir) as store:
        return {
            (session, section, table): result for session, section, table, result in store.results()
        }


def _section_blocks(
    reader: _Reader,
    label: str,
    session: int,
    section: int,
    plan: Mapping[str, Any],
    tables: Sequence[Any],
    where: str,
    details: Mapping[tuple[int, int, int], TableSessionResult] | None,
    adjust: NetAdjustment | None,
    counter: _Counter | None = None,
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
                or not all(_is_int(net) for net in deal)
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
    reader: _Reader,
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


def _section_comparisons(
    reader: _Reader, session: int, section: Mapping[str, Any], where: str
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


def _match_comparisons(
    reader: _Reader, session: int, match: int, data: Mapping[str, Any], where: str
) -> Iterator[Comparison]:
    for index, comparison in enumerate(reader.get(data, "comparisons", where, list)):
        comparison_where = f"{where}.comparisons[{index}]"
        seat = reader.get(comparison, "seat", comparison_where, int)
        players = reader.get(comparison, "players", comparison_where, list)
        chips = reader.get(comparison, "total_chips", comparison_where, list)
        if (
            len(players) != len(chips)
            or not all(player is None or isinstance(player, str) for player in players)
            or not all(_is_int(total) for total in chips)
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
