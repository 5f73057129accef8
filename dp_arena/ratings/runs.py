"""Reading a run directory into what rankings are computed from: deal blocks (every
entrant's net on each deal, grouped by the deal they share), seat-position comparisons,
faults and prizes.

A run directory (``docs/results.md``) holds ``results.json``, the summary, and one part
per session, read one after the other (:func:`read_sessions`); when it also holds the
checkpoint store ``store.sqlite`` (every table's full deal records: cards and actions),
each net is paired with its adjusted net, a function of the deal record: by default the
luck of the board and of the dealer's draws from mixed strategies taken out
(:func:`dp_arena.ratings.action_luck.board_action_nets`), or the board-luck correction
alone (:mod:`dp_arena.ratings.board_luck`), or the all-in equity adjustment
(:func:`dp_arena.ratings.equity.all_in_nets`). When ``dp-arena rollouts`` has valued the
run's draws (``rollouts.sqlite``, finished), every deal record holds those values, and the
action-luck terms use them in place of the fixed blend.

A **block** is one deal of one section of one session (a mini-match of a round robin is
a section): every table of the section played it with the same cards in the same
seats. Absent players are not entrants and are left out of blocks and comparisons. A bot
is identified across events by :func:`bot_identity` of its code (``entrants[].code`` in
``results.json``), or of its agent spec in a run that recorded no code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.ratings.run_blocks import (
    Comparison,
    DealBlock,
    FieldReader,
    NetAdjustment,
    ProgressCounter,
    SeatPlay,
    is_int,
    match_comparisons,
    read_json,
    section_blocks,
    section_comparisons,
    store_results,
    table_blocks,
)
from dp_arena.results import Fault, session_from_records
from dp_arena.rundir import RunDir
from dp_arena.rundir.rollouts import read_values

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

# The groups of tables in a session's results, by the session's kind: a round robin's
# mini-matches, a session of sections' sections (their list's key, each one's number's).
_GROUPS = {"round-robin": ("matches", "match"), "sections": ("sections", "section")}


@dataclass(frozen=True, slots=True)
class EventRecord:
    """What rankings need of one finished run.

    ``label`` is the run directory's name; ``digest`` the SHA-256 of its
    ``results.json``; ``finished`` the time the run finished (from ``timing.json``, for
    ordering events), if known. ``entrants`` pairs each player with its agent spec as
    written, ``codes`` maps players to their code objects (``{}`` for a run that
    recorded none), ``prizes`` pairs each player with its prize in cents; ``results`` is
    the whole ``results.json``, as read; ``has_adjusted`` says whether every play has its
    adjusted net; ``rollouts`` the rollouts per action of the values its deal records
    hold (from ``rollouts.sqlite``, made by ``dp-arena rollouts``), ``None`` when they hold
    none."""

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
    rollouts: int | None = None
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
    if spec.startswith(REGISTRY_PREFIX):
        return spec.removeprefix(REGISTRY_PREFIX)
    return spec


# -- reading -----------------------------------------------------------------------------


def load_run(
    run_dir: Path,
    *,
    adjust: NetAdjustment | None = board_action_nets,
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
    data = read_json(raw, str(path))
    reader = FieldReader(path)
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
    rolled = read_values(run_dir) if adjust is not None else None
    details = store_results(run_dir, rolled) if adjust is not None else None
    counter = None
    if details is not None and progress is not None:
        counter = ProgressCounter(len(details), progress)
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
            blocks += section_blocks(
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
                comparisons += match_comparisons(reader, number, section_number, group, group_where)
        if kind == "sections":
            for s, section in enumerate(reader.get(session, "sections", where, list)):
                comparisons += section_comparisons(
                    reader, number, section, f"{where}.sections[{s}]"
                )
    prizes = reader.get(reader.get(data, "prizes", "", dict), "by_player", "prizes", dict)
    for player, cents in prizes.items():
        if not is_int(cents):
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
        rollouts=None if rolled is None or details is None else rolled.rollouts,
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
    reader = FieldReader(path)
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


def _joined(part: Path, raw: bytes) -> dict[str, Any]:
    records = []
    for number, line in enumerate(raw.splitlines(), start=1):
        record = read_json(line, f"{part}: line {number}")
        if not isinstance(record, dict):
            raise RunError(f"{part}: line {number}: not a record (an object)")
        records.append(record)
    try:
        return session_from_records(records)
    except (KeyError, TypeError, ValueError) as error:
        raise RunError(f"{part}: not a session's records: {error}") from None
