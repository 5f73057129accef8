"""Checking a finished run against its revealed key: what ``dp-arena verify RUN_DIR`` does.

When an event is over its key is in ``results.json``; anyone with the run directory can
then check that nothing was dealt or scored other than the key says. The checks, each
a line of the report:

``commitment``
    SHA-256 of the revealed key equals the commitment in ``results.json``, in the
    ``commitment`` file written before the first deal, in the store, and the one the
    organiser published (``--commitment``), when given.
``digest``
    The results digest (:mod:`dp_arena.tournament.digest`) of ``results.json`` and the
    files it names, computed again, equals the one ``results.json`` reveals and the one
    the organiser published (``--results-digest``), when given.
``plan``
    The stored config, with the revealed key, plans exactly the event ``results.json``
    records (sections, tables, seats, prizes).
``decks``
    Every deal of every stored table-session holds the cards of
    ``deck_for(key, section, session, deal)``: each seat's hole cards and the board.
``hands``
    Every deal's recorded actions replay through the engine to its recorded nets.
``draws``
    Every action the dealer drew from a bot's mixed strategy is the one the revealed key
    draws from the recorded mix at that decision (:mod:`dp_arena.engine.mixes`).
``results``
    The event driver, fed those table-sessions instead of bots, writes ``results.json``
    again byte for byte (every session, standing, prize and fault), and the same hand
    histories.
``histories``
    Every hand history replays through the PHH reader to the finishing stacks it
    records, with the deck's cards.
``clairvoyance``
    Each entrant's clairvoyance test (docs/rankings.md), recomputed from the stored
    table-sessions and the revealed key, is the one ``results.json`` publishes; the
    report names every bot it flags. (A run written before the test existed has none to
    check, and says so.)
``rollouts`` (when the run directory holds ``rollouts.sqlite``)
    The rollout values ``dp-arena rollouts`` made after the event belong to this
    ``results.json``, name their rollouts, scheme and code version, value every stored
    table-session, and hold one value per seat for each action of every mix drawn from,
    at those decisions only (:mod:`dp_arena.runner.verify_rollouts`).
``replay``, ``replayed results`` (with ``replay``), ``rollouts replayed`` (with ``--replay``)
    Every table-session, or those of the prize winners, played again by its bots one at
    a time in reverse order, each bot asked every decision with the view it had
    (:mod:`dp_arena.runner.replay`), answers as recorded; the event driver fed the
    replayed table-sessions (or, where a bot differs, the bots' own free play) writes the
    same files; the rollouts, played again by fresh copies of the bots, give every value
    kept. A bot whose code no longer hashes to the run's record is refused.

A classic freezeout is played hand by hand in the coordinating process, not as table
units, so only ``commitment``, ``digest``, ``plan`` and ``histories`` apply to it; its standings are
not derived again. A public seed passes the same checks, and the report says that its
decks were predictable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dp_arena.engine import deck_for
from dp_arena.engine.deck import deal_cards
from dp_arena.engine.phh import (
    HandCards,
    load_histories,
    parse_actions,
    read_text,
    replay_hand,
)
from dp_arena.errors import ConfigError, DPArenaError, HandHistoryError, RunError
from dp_arena.keys import EventKey
from dp_arena.rundir import RunDir, RunStore
from dp_arena.runner.fingerprint import config_from_json
from dp_arena.runner.replay import Replay
from dp_arena.runner.verification import Check, Verification
from dp_arena.runner.verify_documents import first_difference
from dp_arena.runner.verify_rollouts import check_rollouts, replay_rollouts
from dp_arena.runner.verify_tables import (
    CLASSIC,
    check_draws,
    check_replay,
    check_sessions,
    check_unit,
)
from dp_arena.tournament.config import EventConfig, with_key
from dp_arena.tournament.digest import DIGEST_FIELD, file_sha256, listed_files, results_digest
from dp_arena.tournament.documents import plain
from dp_arena.tournament.formats import get_format
from dp_arena.units import TableUnit

__all__ = [
    "Check",
    "Verification",
    "check_draws",
    "check_unit",
    "open_finished_store",
    "read_finished_results",
    "revealed_key",
    "verify_run",
]


def verify_run(
    run_dir: Path,
    *,
    commitment: str | None = None,
    results_digest: str | None = None,
    replay: str | None = None,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> Verification:
    """Every check of the finished run in ``run_dir`` (``commitment`` and ``results_digest``:
    those the organiser published, checked too; ``replay``: ``"all"`` to play every
    table-session again, ``"winners"`` those of the prize winners, with ``on_progress``
    told after each); :class:`RunError` when it is not a finished run that can be checked
    at all (no results, no revealed key, no store)."""
    results = read_finished_results(run_dir)
    key = revealed_key(run_dir, results)
    verification = Verification(run_dir, key)
    store = open_finished_store(run_dir)
    try:
        meta = store.meta()
        _check_commitment(verification, run_dir, results, meta, key, commitment)
        _check_digest(verification, run_dir, results, results_digest)
        config = _keyed_config(verification, meta, key)
        if config is None:
            return verification
        if not _check_plan(verification, config, results):
            return verification
        units: list[TableUnit] = []
        if config.format != CLASSIC:
            units = check_sessions(verification, run_dir, config, store, meta)
        _check_histories(verification, run_dir, results, key, classic=config.format == CLASSIC)
        rolled = check_rollouts(verification, run_dir, units, store.get)
        if replay is not None:
            check_replay(
                verification,
                run_dir,
                results,
                config,
                store,
                meta,
                units,
                winners_only=replay == "winners",
                on_progress=on_progress,
            )
            if rolled and replay == "all" and not verification.refused:
                replay_rollouts(verification, run_dir, units, store.get)
    finally:
        store.close()
    return verification


def read_finished_results(run_dir: Path, purpose: str = "verified") -> dict[str, Any]:
    """``results.json`` of the finished run in ``run_dir``; :class:`RunError` naming the
    file when there is none (only a finished run can be ``purpose``)."""
    layout = RunDir(run_dir)
    if not layout.is_finished():
        raise RunError(f"{run_dir} has no {layout.RESULTS}: only a finished run can be {purpose}")
    return layout.read_results()


def revealed_key(run_dir: Path, results: dict[str, Any]) -> EventKey:
    event = results["event"]
    try:
        return EventKey.from_hex(str(event["key"]), public=event.get("predictable") is True)
    except (KeyError, ValueError):
        raise RunError(
            f"{run_dir / 'results.json'} reveals no deck key (event.key): it was written by"
            " a dp-arena without secret keys, and cannot be verified"
        ) from None


def open_finished_store(run_dir: Path, purpose: str = "verify") -> RunStore:
    """The checkpoint store of a finished run, read-only."""
    if not RunStore.path_in(run_dir).is_file():
        raise RunError(f"{run_dir} has no store ({RunStore.path_in(run_dir).name}) to {purpose}")
    return RunStore.read(run_dir)  # read-only: verifying never takes the run's lock


def _check_commitment(
    verification: Verification,
    run_dir: Path,
    results: dict[str, Any],
    meta: dict[str, str],
    key: EventKey,
    published: str | None,
) -> None:
    places: dict[str, str | None] = {RunDir.RESULTS: results["event"].get("commitment")}
    commitment_file = RunDir(run_dir).commitment
    if commitment_file.is_file():
        places[RunDir.COMMITMENT] = commitment_file.read_text(
            encoding="ascii", errors="replace"
        ).strip()
    if "commitment" in meta:
        places["the store"] = meta["commitment"]
    if published is not None:
        places["--commitment"] = published.strip().lower()
    problems = [
        f"{place} says {value!r}" for place, value in places.items() if value != key.commitment
    ]
    if problems:
        problems.insert(0, f"SHA-256 of the revealed key is {key.commitment}")
    verification.add(
        "commitment",
        problems,
        f"SHA-256 of the revealed key is the commitment of {', '.join(places)}",
    )


def _check_digest(
    verification: Verification, run_dir: Path, results: dict[str, Any], published: str | None
) -> None:
    missing: list[str] = []

    def sha256_of(name: str) -> str:
        try:
            return file_sha256(run_dir / name)
        except OSError as error:
            missing.append(f"{name} cannot be read ({error.strerror or error})")
            return "-"

    digest = results_digest(results, sha256_of)
    verification.digest = digest
    places: dict[str, object] = {}
    if DIGEST_FIELD in results["event"]:
        places[RunDir.RESULTS] = results["event"][DIGEST_FIELD]
    if published is not None:
        places["--results-digest"] = published.strip().lower()
    problems = missing + [
        f"{place} says {value!r}" for place, value in places.items() if value != digest
    ]
    if len(problems) > len(missing):
        problems.insert(len(missing), f"the results digest of these files is {digest}")
    files = len(listed_files(results))
    detail = (
        f"the digest of results.json and the {files:,} files it names is that of"
        f" {', '.join(places)}"
        if places
        else "results.json reveals no results digest (a run from before digests): nothing to"
        " compare the files with"
    )
    verification.add("digest", problems, detail)


def _keyed_config(
    verification: Verification, meta: dict[str, str], key: EventKey
) -> EventConfig | None:
    try:
        config = config_from_json(json.loads(meta["config"]))
        return with_key(config, key)
    except (KeyError, ValueError, ConfigError, RunError) as error:
        verification.add("plan", [f"the stored config does not take the revealed key: {error}"], "")
        return None


def _check_plan(verification: Verification, config: EventConfig, results: dict[str, Any]) -> bool:
    try:
        plan = get_format(config.format).plan(config)
    except DPArenaError as error:
        verification.add("plan", [f"the stored config cannot be planned: {error}"], "")
        return False
    planned = json.loads(json.dumps(plain(plan.to_json())))
    problems = (
        []
        if planned == results.get("plan")
        else [first_difference(planned, results.get("plan"), "plan")]
    )
    verification.add(
        "plan", problems, f"the stored config with the key plans the recorded {config.format} event"
    )
    return not problems


def _check_histories(
    verification: Verification,
    run_dir: Path,
    results: dict[str, Any],
    key: EventKey,
    *,
    classic: bool,
) -> None:
    details = results.get("details")
    # A classic freezeout lists the histories it wrote itself among its details.
    names = results.get("histories") or (details or {}).get("histories") or []
    if not names:
        verification.add("histories", [], "the run wrote no hand histories")
        return
    problems: list[str] = []
    hands = 0
    for name in names:
        path = run_dir / str(name)
        try:
            loaded = load_histories(read_text(path), file=str(name))
        except HandHistoryError as error:
            problems.append(str(error))
            continue
        for hand in loaded:
            hands += 1
            problems += _check_history_hand(hand.fields, hand.where, key, classic=classic)
            try:
                replayed = replay_hand(hand)
            except HandHistoryError as error:
                problems.append(str(error))
                continue
            if replayed.matches_recorded() is False:
                problems.append(
                    f"{hand.where}: replays to {list(replayed.finishing_stacks)},"
                    " not its finishing_stacks"
                )
    verification.add(
        "histories",
        problems,
        f"{hands:,} hands in {len(names)} files replay to their finishing stacks"
        " with the deck's cards",
    )


def _check_history_hand(
    fields: dict[str, Any] | Any, where: str, key: EventKey, *, classic: bool
) -> list[str]:
    try:
        section, session, deal = (int(fields[name]) for name in ("_section", "_session", "_deal"))
        seats = [int(seat) for seat in fields["_seats"]]
        steps = parse_actions(fields["actions"], where, len(seats))
        cards = HandCards.scan(steps, where, len(seats))
    except (KeyError, TypeError, ValueError) as error:
        return [f"{where}: no deck id or seats to check ({error})"]
    except HandHistoryError as error:
        return [str(error)]
    # A freezeout's hand numbers count from 1; its deck ids from 0.
    index = deal - 1 if classic else deal
    holes, board = deal_cards(deck_for(key.seed, section, session, index), len(seats), seats[-1])
    problems = []
    for player, seat in enumerate(seats):
        if cards.hole_known[player] and tuple(cards.hole_cards[player]) != holes[seat]:
            problems.append(f"{where}: p{player + 1}'s hole cards are not the deck's")
    if cards.board[: cards.board_known] != board[: cards.board_known]:
        problems.append(f"{where}: the board is not the deck's")
    return problems
