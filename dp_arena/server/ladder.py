"""The ladder: accepted bots play duplicate matches, one after another, for as long as the
server runs.

Each match seats k bots (``--table-size``, 2 to 6) at k mirrored tables, seats rotated:
the duplicate match of :mod:`dp_arena.match` (its seatings, its scores), as every event
format plays a section. It is played in a process of its own
(:mod:`dp_arena.server.match_process`), which a stop or the match's deadline ends at
once, or as table units on Ray (``--executor ray``); every bot is a sandboxed process,
a house bot (a built-in) plays in the match's process. The match's deck key is made
first; its commitment goes into the database and the key into an owner-only file before
any card is dealt; when the match is over the key is revealed in the database and the
file removed. A match cut short (a stop, a restart, a kill -9) is played again from its
first deal with the same key, so the committed decks are the ones dealt; a match whose
key file was lost is void, never dealt again from another key.

Who plays is decided when the match starts, in the same transaction that records it
(:meth:`Ladder.next_match`): only bots in the ladder at that moment (accepted, not
withdrawn, their author not disabled) are seated, and a match cut short is played again
only if all its bots still are (else it is void). While the ladder is paused (``dp-arena
server pause-ladder``) no match starts.

After each match the standings are computed again from every finished match
(:mod:`dp_arena.server.standings`) and stored, with a point per ranked bot for its
score over time; the next table is chosen by :func:`dp_arena.server.pairing.choose_table`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import shutil
import time
from collections.abc import Iterator, Sequence
from typing import Any

from dp_arena.errors import DPArenaError
from dp_arena.keys import EventKey
from dp_arena.match import score_match, seatings
from dp_arena.registry import Registry, pinned_spec
from dp_arena.results import TableSessionResult, to_json
from dp_arena.server import crud, views
from dp_arena.server.db import Database
from dp_arena.server.match_process import MatchCut, play_match_process
from dp_arena.server.matches import ladder_match, match_config, match_units
from dp_arena.server.models import Submission, now
from dp_arena.server.pairing import PairStats, choose_table
from dp_arena.server.settings import DataDir, ServerSettings
from dp_arena.server.standings import (
    LadderMatch,
    MatchRecord,
    Standings,
    default_adjusted,
    leaderboard_json,
    match_record,
    standings_of,
)
from dp_arena.server.worker import Worker
from dp_arena.text import printable
from dp_arena.units import Executor

__all__ = ["Ladder"]

log = logging.getLogger("dp_arena.server")


class Ladder(Worker):
    """The ladder's thread: plays matches while the server runs (see the module)."""

    thread_name = "dp-arena-ladder"
    stop_seconds = 5.0  # a match playing is cut at once; Ray's is given this long

    def __init__(self, database: Database, settings: ServerSettings) -> None:
        self.database = database
        self.settings = settings
        self.data: DataDir = settings.data
        self.adjusted = default_adjusted()
        self._records: dict[int, MatchRecord] = {}  # each finished match, scored once
        self._standings: Standings | None = None
        self.matches_played = 0
        super().__init__()

    # -- life cycle --------------------------------------------------------------------

    @contextlib.contextmanager
    def _executor(self) -> Iterator[Executor | None]:
        """Ray's executor with ``--executor ray``; ``None``: each match in a process."""
        if self.settings.executor == "serial":
            log.info("the ladder's matches play in a process of their own, one at a time")
            yield None
            return
        from dp_arena.runner.ray_executor import RayExecutor

        with RayExecutor(
            address=self.settings.ray_address,
            workers=self.settings.workers,
            log_dir=self.data.root / "ray-logs",
        ) as executor:
            log.info("the ladder's tables run on %s", executor.description)
            yield executor

    def _loop(self) -> None:
        try:
            self.recover()
            self.refresh_standings(None)
            with self._executor() as executor:
                while not self._stop.is_set():
                    match_id = self.next_match()
                    if match_id is None:
                        self._idle()
                        continue
                    self.play_or_void(match_id, executor)
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
        """The match to play now, recorded as playing: a match cut short, played again with
        its key if all its bots may still play (else void), or a new one at the table
        :func:`choose_table` chooses among the ladder's entries at this moment (``None``
        while the ladder is paused or has fewer entries than a table's seats)."""
        with self.database.session() as session:
            if crud.ladder_paused(session):
                return None
            for match in crud.unfinished_matches(session):
                players = crud.players_of(session, [match.id])[match.id]
                problems = crud.ineligible(session, players)
                if problems:
                    self._void(match, "it was cut short, and " + "; ".join(problems))
                    continue
                match.status = crud.PLAYING
                match.started_at = now()
                match.attempts += 1
                return match.id
            entries = crud.current_entries(session)
            group = self._choose(session, entries)
            if group is None:
                return None
            key = EventKey.secret()
            settings = self.settings
            match = crud.add_match(
                session,
                group,
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

    def _choose(self, session: Any, entries: Sequence[Submission]) -> list[Submission] | None:
        by_ref = {str(entry.ref): entry for entry in entries}
        standings = self._standings or Standings({})
        stats = {
            ref: PairStats(standing.deals, standing.deviation)
            for ref, standing in standings.by_ref.items()
        }
        refs = {entry.id: str(entry.ref) for entry in entries}
        meetings: dict[frozenset[str], int] = {}
        finished = [match.id for match in crud.finished_matches(session)]
        for players in crud.players_of(session, finished).values():
            met = [refs[player] for player in players if player in refs]
            for index, first in enumerate(met):
                for second in met[index + 1 :]:
                    pair = frozenset((first, second))
                    meetings[pair] = meetings.get(pair, 0) + 1
        last = {
            refs[player]: match
            for player, match in crud.last_played(session).items()
            if player in refs  # versions no longer in the ladder are not seated
        }
        group = choose_table(
            sorted(by_ref),
            stats,
            standings.beats,
            meetings,
            last,
            size=self.settings.table_size,
            deals=self.settings.ladder_deals,
        )
        if group is None:
            return None
        seated = [by_ref[ref] for ref in group]
        # Who sits left of whom stays the same at every table of a match (the seats
        # rotate): a new order each match, so that no bot always follows the same one.
        random.SystemRandom().shuffle(seated)
        return seated

    def play_or_void(self, match_id: int, executor: Executor | None) -> None:
        """:meth:`play`; a match that cannot be played (its bots' files gone, a broken
        process) is void, said on its page, and the ladder goes on."""
        try:
            self.play(match_id, executor)
        except Exception as error:  # one match's failure is not the ladder's
            log.exception("match %s could not be played", match_id)
            said = printable(f"{type(error).__name__}: {error}", 500)
            said = said.replace(str(self.data.root), "the server's data folder")
            with self.database.session() as session:
                match = crud.match(session, match_id)
                if match is not None and match.status == crud.PLAYING:
                    self._void(match, f"it could not be played: {said}")

    def _void(self, match: Any, reason: str) -> None:
        match.status = crud.VOID
        match.void_reason = reason
        match.finished_at = now()
        self.data.key(match.id).unlink(missing_ok=True)
        log.warning("match %s is void: %s", match.id, reason)

    def _seats(self, players: Sequence[Submission], house: frozenset[int]) -> list[str]:
        """Each player's spec: a house bot's built-in, or its version in the registry."""
        registry = Registry(self.data.registry)
        specs = []
        for entry in players:
            if entry.author_id in house:
                specs.append(str(entry.name))
            else:
                specs.append(pinned_spec(registry.root, registry.resolve(str(entry.ref))))
        return specs

    def play(self, match_id: int, executor: Executor | None) -> None:
        """Play one match recorded as playing to the end and record it, with the
        standings (or leave it to be played again when a stop cuts it)."""
        with self.database.session() as session:
            match = crud.match(session, match_id)
            if match is None or match.status != crud.PLAYING:
                return
            ids = crud.players_of(session, [match_id])[match_id]
            rows = crud.submissions_by_id(session, ids)
            players = [rows[player] for player in ids]
            house = crud.house_ids(session)
            names = [str(player.ref) for player in players]
            in_house = {str(player.ref) for player in players if player.author_id in house}
            key = EventKey.read(self.data.key(match_id))
            config = match_config(match, self._seats(players, house), key)
        log.info("match %s: %s, %s deals", match_id, " against ".join(names), config.deals)
        started = time.monotonic()
        logs = self.data.match_logs(match_id)
        shutil.rmtree(logs, ignore_errors=True)  # an attempt cut short: its logs go
        logs.mkdir(parents=True, mode=0o700)
        units = match_units(config, names, str(logs), house=in_house)
        try:
            results = self._play_units(units, executor, logs)
        except MatchCut as cut:
            if cut.reason == "stopped":
                log.info("match %s was cut short by the stop: it is played again", match_id)
                return
            with self.database.session() as session:
                row = crud.match(session, match_id)
                assert row is not None
                self._void(row, str(cut))
            return
        scored = score_match(config, tuple(names), seatings(len(names)), tuple(results))
        outcome = scored.to_json()
        outcome["match"].pop("specs", None)  # the server's paths
        for agent in outcome["agents"]:
            agent.pop("spec", None)
        outcome["seconds"] = round(time.monotonic() - started, 3)
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
            new = LadderMatch(match_id, config.rules(), tuple(results), key.seed)
            self._store_standings(session, match_id, new)
        self.data.key(match_id).unlink(missing_ok=True)
        self.matches_played += 1
        log.info("match %s finished in %.1f s", match_id, time.monotonic() - started)

    def _play_units(
        self, units: Sequence[Any], executor: Executor | None, logs: Any
    ) -> list[TableSessionResult]:
        deadline = self.settings.timeout_of(units[0].deals, len(units))
        if executor is None:
            return play_match_process(
                units, deadline=deadline, stop=self._stop, log=logs / "match.log"
            )
        return list(executor.run(units))

    # -- standings ---------------------------------------------------------------------

    def refresh_standings(self, match_id: int | None) -> None:
        """Compute the standings from every finished match and store them."""
        with self.database.session() as session:
            self._store_standings(session, match_id, None)

    def _store_standings(self, session: Any, match_id: int | None, new: LadderMatch | None) -> None:
        """The standings of every finished match, stored in ``session`` (with each ranked
        bot's point for its score over time, after a match)."""
        rows = list(crud.finished_matches(session))  # their tables are read when needed
        seated = crud.players_of(session, [row.id for row in rows])
        for row in rows:
            if row.id in self._records:
                continue
            match = new if new is not None and new.id == row.id else None
            if match is None:
                match = ladder_match(row, len(seated[row.id]))
            try:
                self._records[row.id] = match_record(match, self.adjusted)
            except (DPArenaError, ValueError) as error:
                log.error("match %s cannot be scored: %s", row.id, error)
        entries = crud.current_entries(session)
        authors = crud.authors(session)
        house = crud.house_ids(session)
        played = crud.submissions_by_id(
            session, sorted({player for players in seated.values() for player in players})
        )
        everyone = {str(row.ref): row.id for row in played.values()}
        records = [self._records[row.id] for row in rows if row.id in self._records]
        standings = standings_of(records, adjusted=self.adjusted, resamples=self.settings.resamples)
        self._standings = standings
        data = leaderboard_json(
            standings,
            [views.entry_json(entry, authors, house) for entry in entries],
            matches=len(rows),
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
