"""The ladder: accepted bots play heads-up duplicate matches, one after another, for as
long as the server runs.

Each match is the duplicate match of :mod:`dp_arena.match` (its seatings, its scores),
played as table units through the runner's executors (serial in the server's ladder
thread, or Ray, embedded or a cluster), every seat a sandboxed process. The match's
deck key is made first; its commitment goes into the database and the key into an
owner-only file before any card is dealt; when the match is over the key is revealed in
the database and the file removed. A match cut short (a restart, a kill -9) is played
again from its first deal with the same key, so the committed decks are the ones dealt;
a match whose key file was lost is void, never dealt again from another key.

After each match the standings are computed again from every finished match
(:mod:`dp_arena.server.standings`) and stored, with a point per ranked bot for its
score over time; the next pair is the one whose match most reduces the ranking's
uncertainty (:mod:`dp_arena.server.pairing`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dp_arena.engine import Betting
from dp_arena.errors import DPArenaError, RunError
from dp_arena.keys import EventKey
from dp_arena.match import MatchConfig, match_clairvoyance, score_match, seatings
from dp_arena.ratings import DealBlock
from dp_arena.ratings.clairvoyance import Steps
from dp_arena.registry import Registry, pinned_spec
from dp_arena.results import TableSessionResult, to_json
from dp_arena.runner.launch import EventExecutor, SerialRun
from dp_arena.runner.verify import check_draws, check_unit
from dp_arena.server import crud, views
from dp_arena.server.db import Database
from dp_arena.server.models import Match, Submission, now
from dp_arena.server.pairing import PairStats, choose_pair
from dp_arena.server.settings import DataDir, ServerSettings
from dp_arena.server.standings import (
    LadderMatch,
    Standings,
    compute_standings,
    default_adjusted,
    leaderboard_json,
    match_blocks,
    match_rules,
    match_steps,
)
from dp_arena.server.worker import Worker
from dp_arena.tournament.units import Executor, SeatAssignment, TableUnit

if TYPE_CHECKING:
    from dp_arena.runner.replay import Replay

__all__ = ["Ladder", "match_units", "replay_match", "verify_match"]

log = logging.getLogger("dp_arena.server")


class _LadderThread(SerialRun):
    """The serial executor as the ladder plays on it: in its own thread."""

    description = "serial (in the ladder's thread)"


MATCH_EVENT = "match"  # what the bots' context names the event: nothing about the key


def match_units(
    config: MatchConfig, names: Sequence[str], log_dir: str | None = None
) -> list[TableUnit]:
    """The table units of a duplicate match: one table per seating of
    :func:`dp_arena.match.seatings`, every table dealt ``deck_for(key, 0, 0, deal)``,
    as :func:`dp_arena.match.play_match` deals them."""
    rules = config.rules()
    seat_count = config.agent_count
    return [
        TableUnit(
            event=MATCH_EVENT,
            event_seed=config.event_key.seed,
            session=0,
            section=0,
            table=table,
            rules=rules,
            deals=config.deals,
            seats=tuple(
                SeatAssignment(names[agent], config.specs[agent], trusted=False)
                for agent in seating
            ),
            starting_chips=((rules.cap or 0) * config.deals,) * seat_count,
            eliminating=False,
            log_dir=log_dir,
        )
        for table, seating in enumerate(seatings(seat_count))
    ]


def _config(match: Match, specs: Sequence[str], key: EventKey) -> MatchConfig:
    return MatchConfig(
        specs=tuple(specs),
        deals=match.deals,
        betting=Betting(match.betting),
        small_blind=match.small_blind,
        big_blind=match.big_blind,
        cap=match.cap,
        key=key,
    )


def tables_of(match: Match) -> tuple[TableSessionResult, ...]:
    if match.tables is None:
        return ()
    return tuple(TableSessionResult.from_json(table) for table in json.loads(match.tables))


def ladder_match(match: Match) -> LadderMatch:
    rules = match_rules(2, match.small_blind, match.big_blind, match.betting, match.cap)
    seed = None if match.key_hex is None else EventKey.from_hex(match.key_hex).seed
    return LadderMatch(match.id, rules, tables_of(match), seed)


def verify_match(
    data: dict[str, Any],
    *,
    replay_from: Path | None = None,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> list[str]:
    """The problems of a finished match's published data (``GET /api/matches/{id}``):
    its key against its commitment, every deal's cards against the key's decks, every
    deal's actions against its nets, and each bot's clairvoyance test against the one its
    tables and the key give. With ``replay_from`` (a bot registry), also every decision,
    played again by the match's bots from that registry (see :func:`replay_match`). An
    empty list when all is well."""
    import hashlib

    problems: list[str] = []
    key_hex = data.get("key")
    if not isinstance(key_hex, str):
        return ["the match's key is not revealed (is the match finished?)"]
    key = EventKey.from_hex(key_hex)
    if hashlib.sha256(key.material).hexdigest() != data.get("commitment"):
        problems.append("the revealed key does not hash to the commitment")
    tables = tuple(TableSessionResult.from_json(table) for table in data["tables"])
    players = [str(bot["ref"]) for bot in data["bots"]]
    config = MatchConfig(
        specs=("-",) * len(players),
        deals=int(data["deals"]),
        betting=Betting(data["betting"]),
        small_blind=int(data["small_blind"]),
        big_blind=int(data["big_blind"]),
        cap=int(data["cap"]),
        key=key,
    )
    for unit, result in zip(match_units(config, players), tables, strict=True):
        decks, hands = check_unit(unit, result)
        problems += decks + hands + check_draws(unit, result)[1]
    recorded_nets = [bot.get("net_chips") for bot in data["bots"]]
    if all(net is not None for net in recorded_nets):
        nets = _match_nets(len(players), tables)
        problems += [
            f"{player}: the tables give {net:+,} net chips, the match says {recorded:+,}"
            for player, net, recorded in zip(players, nets, recorded_nets, strict=True)
            if net != recorded
        ]
    if not problems:
        tested = match_clairvoyance(config, tables)
        for bot in data["bots"]:
            published = bot.get("clairvoyance")
            if published is None:  # a match played before the test: nothing to check
                continue
            recomputed = tested[str(bot["ref"])].to_json()
            if published != recomputed:
                problems.append(
                    f"{bot['ref']}: the clairvoyance test published is {published},"
                    f" its tables and the key give {recomputed}"
                )
    if replay_from is not None:
        problems += replay_match(data, config, tables, replay_from, on_progress=on_progress)
    return problems


def _match_nets(agents: int, tables: Sequence[TableSessionResult]) -> list[int]:
    """Each agent's net chips over a match's tables (seated as :func:`seatings` says)."""
    nets = [0] * agents
    for seating, table in zip(seatings(agents), tables, strict=True):
        for seat, agent in enumerate(seating):
            nets[agent] += table.session_nets[seat]
    return nets


def replay_match(
    data: dict[str, Any],
    config: MatchConfig,
    tables: Sequence[TableSessionResult],
    registry_root: Path,
    *,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> list[str]:
    """The problems found playing a finished match's tables again with its bots, seated
    from the registry at ``registry_root`` by their refs (each bot's folder must still
    hold the content the registry and the match name: :class:`RunError` otherwise), one
    table at a time in reverse order, each bot asked every decision with the view it had
    (see :mod:`dp_arena.runner.replay`). Where a bot answers otherwise, the match played
    freely by the bots says which net chips their own play gives."""
    from dp_arena.registry import content_hash
    from dp_arena.runner.replay import FreePlay, replay_units

    players = [str(bot["ref"]) for bot in data["bots"]]
    registry = Registry.existing(registry_root)
    specs, refused = [], []
    for bot in data["bots"]:
        ref = str(bot["ref"])
        try:
            stored = registry.resolve(ref)
        except DPArenaError as error:
            refused.append(f"{ref}: {error}")
            continue
        named = bot.get("sha256")
        if named is not None and named != stored.sha256:
            refused.append(f"{ref}: the match names content {named}, the registry {stored.sha256}")
        found = content_hash(stored.folder)
        if found != stored.sha256:
            refused.append(
                f"{ref}: its folder in the registry ({stored.folder}) hashes to {found}, not"
                f" to the {stored.sha256} its registry names: it was changed"
            )
        specs.append(pinned_spec(registry.root, stored))
    if refused:
        raise RunError("the match cannot be replayed:\n  - " + "\n  - ".join(refused))
    config = dataclasses.replace(config, specs=tuple(specs))
    units = match_units(config, players)
    replay = replay_units(units[::-1], lambda unit: tables[unit.table], on_progress=on_progress)
    problems = replay.problems()
    if not replay.passed:
        free = FreePlay(lambda _: True, lambda _: {}).run(units)
        nets = _match_nets(len(players), free)
        recorded = _match_nets(len(players), tables)
        problems += [
            f"{player}: the bots' own play gives {net:+,} net chips, the match records {before:+,}"
            for player, net, before in zip(players, nets, recorded, strict=True)
            if net != before
        ]
    return problems


class Ladder(Worker):
    """The ladder's thread: plays matches while the server runs (see the module)."""

    thread_name = "dp-arena-ladder"
    stop_seconds = 60.0

    def __init__(self, database: Database, settings: ServerSettings) -> None:
        self.database = database
        self.settings = settings
        self.data: DataDir = settings.data
        self.adjusted = default_adjusted()
        self._blocks: dict[int, tuple[DealBlock, ...]] = {}
        self._steps: dict[int, dict[str, Steps]] = {}
        self._standings: Standings | None = None
        self.matches_played = 0
        super().__init__()

    # -- life cycle --------------------------------------------------------------------

    @contextlib.contextmanager
    def _executor(self) -> Iterator[EventExecutor]:
        if self.settings.executor == "serial":
            yield _LadderThread()
            return
        from dp_arena.runner.ray_executor import RayExecutor

        with RayExecutor(
            address=self.settings.ray_address,
            workers=self.settings.workers,
            log_dir=self.data.root / "ray-logs",
        ) as executor:
            yield executor

    def _loop(self) -> None:
        try:
            self.recover()
            self.refresh_standings(None)
            with self._executor() as executor:
                log.info("the ladder's tables run on %s", executor.description)
                while not self._stop.is_set():
                    match_id = self.next_match()
                    if match_id is None:
                        self._idle()
                        continue
                    self.play(match_id, executor)
                    if self.settings.ladder_pause:
                        self._stop.wait(self.settings.ladder_pause)
        except Exception:  # the server keeps serving what it has
            log.exception("the ladder stopped")

    # -- recovery ----------------------------------------------------------------------

    def recover(self) -> None:
        """Matches a stop cut short are played again with their key, or void without one."""
        with self.database.session() as session:
            for match in crud.unfinished_matches(session):
                if not self.data.key(match.id).is_file():
                    match.status = crud.VOID
                    match.void_reason = (
                        "its secret key was lost before the match was played; it is never"
                        " dealt from another key"
                    )
                    log.warning("match %s is void: its key file is missing", match.id)
                elif match.status == crud.PLAYING:
                    match.status = crud.SCHEDULED
                    log.info("match %s was cut short: it is played again with its key", match.id)

    # -- choosing and playing ----------------------------------------------------------

    def next_match(self) -> int | None:
        """A scheduled match, or a new one between the pair that most reduces the
        ranking's uncertainty (``None`` while fewer than two bots are accepted)."""
        with self.database.session() as session:
            waiting = crud.unfinished_matches(session)
            if waiting:
                return waiting[0].id
            entries = crud.current_entries(session)
            by_ref = {str(entry.ref): entry for entry in entries}
            standings = self._standings or Standings({})
            stats = {
                ref: PairStats(standing.deals, standing.deviation)
                for ref, standing in standings.by_ref.items()
            }
            meetings: dict[frozenset[str], int] = {}
            ids = {entry.id: str(entry.ref) for entry in entries}
            for match in crud.finished_matches(session):
                if match.first_id in ids and match.second_id in ids:
                    met = frozenset((ids[match.first_id], ids[match.second_id]))
                    meetings[met] = meetings.get(met, 0) + 1
            pair = choose_pair(
                sorted(by_ref),
                stats,
                standings.beats,
                meetings,
                deals=self.settings.ladder_deals,
            )
            if pair is None:
                return None
            key = EventKey.secret()
            settings = self.settings
            match = crud.add_match(
                session,
                by_ref[pair[0]],
                by_ref[pair[1]],
                deals=settings.ladder_deals,
                betting=settings.betting,
                small_blind=settings.small_blind,
                big_blind=settings.big_blind,
                cap=settings.cap,
                commitment=key.commitment,
            )
            # The key is on disk, owner-only, before the commitment is committed: a match
            # whose commitment is stored always has its key. A file already there is an
            # orphan of a match whose row was never committed (its id is free again).
            self.data.key(match.id).unlink(missing_ok=True)
            key.write(self.data.key(match.id))
            return match.id

    def _seats(self, first: Submission, second: Submission) -> tuple[list[str], list[str]]:
        registry = Registry(self.data.registry)
        names, specs = [], []
        for entry in (first, second):
            stored = registry.resolve(str(entry.ref))
            names.append(str(entry.ref))
            specs.append(pinned_spec(registry.root, stored))
        return names, specs

    def play(self, match_id: int, executor: Executor) -> None:
        """Play one scheduled match to the end and record it, with the standings."""
        with self.database.session() as session:
            match = crud.match(session, match_id)
            if match is None or match.status != crud.SCHEDULED:
                return
            first = crud.submission(session, match.first_id)
            second = crud.submission(session, match.second_id)
            assert first is not None and second is not None
            match.status = crud.PLAYING
            match.started_at = now()
            match.attempts += 1
            names, specs = self._seats(first, second)
            key = EventKey.read(self.data.key(match_id))
            config = _config(match, specs, key)
        log.info("match %s: %s against %s, %s deals", match_id, names[0], names[1], config.deals)
        started = time.monotonic()
        units = match_units(config, names)
        results = executor.run(units)
        scored = score_match(config, tuple(names), seatings(2), tuple(results))
        outcome = scored.to_json()
        outcome["match"].pop("specs", None)  # the server's paths
        for agent in outcome["agents"]:
            agent.pop("spec", None)
        outcome["seconds"] = round(time.monotonic() - started, 3)
        tables = tuple(results)
        with self.database.session() as session:
            match = crud.match(session, match_id)
            assert match is not None
            match.tables = json.dumps([to_json(result) for result in results])
            match.result = json.dumps(outcome)
            match.key_hex = key.hex
            match.status = crud.FINISHED
            match.finished_at = now()
            session.flush()
            # The match, the standings with it and their points: one transaction.
            new = LadderMatch(match_id, config.rules(), tables, key.seed)
            self._store_standings(session, match_id, new)
        self.data.key(match_id).unlink(missing_ok=True)
        self.matches_played += 1
        log.info("match %s finished in %.1f s", match_id, time.monotonic() - started)

    # -- standings ---------------------------------------------------------------------

    def refresh_standings(self, match_id: int | None) -> None:
        """Compute the standings from every finished match and store them."""
        with self.database.session() as session:
            self._store_standings(session, match_id, None)

    def _store_standings(self, session: Any, match_id: int | None, new: LadderMatch | None) -> None:
        """The standings of every finished match, stored in ``session`` (with each ranked
        bot's point for its score over time, after a match)."""
        rows = list(crud.finished_matches(session))
        finished = [ladder_match(row) if new is None or row.id != new.id else new for row in rows]
        entries = crud.current_entries(session)
        authors = crud.authors(session)
        played = crud.submissions_by_id(
            session, sorted({m.first_id for m in rows} | {m.second_id for m in rows})
        )
        everyone = {str(row.ref): row.id for row in played.values()}
        for match in finished:
            if match.id not in self._blocks:
                try:
                    self._blocks[match.id] = match_blocks(match, self.adjusted)
                    self._steps[match.id] = match_steps(match)
                except (DPArenaError, ValueError) as error:
                    log.error("match %s cannot be scored: %s", match.id, error)
                    self._blocks[match.id] = ()
                    self._steps[match.id] = {}
        standings = compute_standings(
            finished,
            self._blocks,
            adjusted=self.adjusted,
            resamples=self.settings.resamples,
            steps=self._steps,
        )
        self._standings = standings
        data = leaderboard_json(
            standings,
            [views.entry_json(entry, authors) for entry in entries],
            matches=len(finished),
            updated=now(),
        )
        crud.add_snapshot(session, match_id, data)
        if match_id is None:
            return
        crud.add_points(
            session,
            match_id,
            [
                {
                    "submission": everyone[ref],
                    "deals": standing.deals,
                    "mbb_per_deal": round(standing.mbb_per_deal, 3),
                    "ci95": None
                    if standing.ci95 is None
                    else (round(standing.ci95[0], 3), round(standing.ci95[1], 3)),
                    "mu": round(standing.mu, 3),
                    "sigma": round(standing.sigma, 3),
                }
                for ref, standing in standings.by_ref.items()
                if ref in everyone
            ],
        )
