"""The checks of ``dp-arena verify`` that take an event's table-sessions: each stored one
against the key (``decks``, ``hands``), the event driver fed them (``results``), and
the table-sessions played again (``replay``, ``replayed results``)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dp_arena.engine import deck_for
from dp_arena.engine.cards import format_cards
from dp_arena.engine.deck import button_for_deal, deal_cards
from dp_arena.engine.mixes import Mix, MixDraws
from dp_arena.errors import DPArenaError, HandHistoryError, RunError
from dp_arena.ratings.equity import replay
from dp_arena.results import TableSessionResult, place_text
from dp_arena.rundir import RunDir, RunStore
from dp_arena.runner.fingerprint import code_version, unit_id
from dp_arena.runner.launch import stored_code
from dp_arena.runner.replay import FreePlay, Replay, replay_units, run_code_problems
from dp_arena.runner.verification import Verification
from dp_arena.runner.verify_documents import (
    check_clairvoyance,
    compare_files,
    read_json,
)
from dp_arena.tournament.code import code_label
from dp_arena.tournament.config import EventConfig
from dp_arena.tournament.event import run_event
from dp_arena.units import Executor, OnResult, TableUnit

__all__ = [
    "CLASSIC",
    "check_draws",
    "check_replay",
    "check_sessions",
    "check_unit",
    "stored_units",
]

CLASSIC = "classic"


def check_unit(unit: TableUnit, result: TableSessionResult) -> tuple[list[str], list[str]]:
    """The deck problems and the replay problems of one stored table-session: cards that
    are not ``deck_for(key, section, session, deal)``'s, and actions that do not replay
    to the recorded nets."""
    where = place_text(unit.session, unit.section, unit.table)
    deck_problems: list[str] = []
    hand_problems: list[str] = []
    seats = unit.rules.seat_count
    if result.players != unit.players:
        deck_problems.append(f"{where}: players {list(result.players)} are not the plan's")
    if len(result.deals) != unit.deals:
        deck_problems.append(f"{where}: {len(result.deals)} deals recorded, {unit.deals} planned")
    for position, record in enumerate(result.deals):
        deal = record.deal
        here = place_text(unit.session, unit.section, unit.table, deal)
        if deal != position:
            deck_problems.append(f"{here}: recorded in place {position + 1}")
            continue
        button = button_for_deal(deal, seats)
        holes, board = deal_cards(
            deck_for(unit.event_seed, unit.section, unit.session, deal), seats, button
        )
        dealt = tuple(format_cards(hole) for hole in holes)
        board_text = format_cards(board)
        if record.button != button:
            deck_problems.append(f"{here}: the button is at seat {record.button}, not {button}")
        if record.hole_cards != dealt:
            wrong = [
                seat
                for seat in range(seats)
                if record.hole_cards[seat : seat + 1] != dealt[seat : seat + 1]
            ]
            deck_problems.append(f"{here}: hole cards of seat(s) {wrong} are not the deck's")
        if len(record.board) not in (0, 6, 8, 10) or not board_text.startswith(record.board):
            deck_problems.append(f"{here}: board {record.board!r} is not the deck's")
        try:
            state = replay(
                unit.rules,
                button=button,
                hole_cards=dealt,
                board=board_text,
                actions=record.actions,
                absent=record.absent,
            )
        except HandHistoryError as error:
            hand_problems.append(f"{here}: {error}")
            continue
        if state.payoffs != record.nets:
            hand_problems.append(
                f"{here}: the actions give nets {list(state.payoffs or ())},"
                f" the record says {list(record.nets)}"
            )
    return deck_problems, hand_problems


def check_draws(unit: TableUnit, result: TableSessionResult) -> tuple[int, list[str]]:
    """How many recorded decisions were drawn from a bot's mix, and the problems with
    them: a mix that is not one, or an action that is not the one the key draws from the
    mix at that decision (:mod:`dp_arena.engine.mixes`). Whether each action of a mix
    was legal is the adjusted score's to check, as it replays the hand."""
    where = f"session {unit.session}, section {unit.section}, table {unit.table}"
    draws = MixDraws(unit.event_seed, unit.section, unit.session, unit.table)
    problems: list[str] = []
    count = 0
    for record in result.deals:
        for decision, text in record.mixes:
            count += 1
            here = f"{where}, deal {record.deal}, action {decision + 1}"
            if not 0 <= decision < len(record.actions):
                problems.append(f"{here}: the deal has no such action")
                continue
            try:
                mix = Mix.parse(text)
            except ValueError as error:
                problems.append(f"{here}: {error}")
                continue
            recorded = record.actions[decision].partition(":")[2]
            drawn = str(draws.action(mix, record.deal, decision))
            if drawn != recorded:
                problems.append(f"{here}: recorded {recorded}, the key draws {drawn} from {mix}")
    return count, problems


class _AnsweredSessions:
    """An executor that plays nothing: it answers every unit with the result ``answer``
    gives for its id (the stored one, or the one a replay played), checking each against
    the key as it goes, and keeps the units it was asked for, in order."""

    def __init__(self, answer: Callable[[list[str]], Mapping[str, TableSessionResult]]) -> None:
        self.answer = answer
        self.asked: list[TableUnit] = []
        self.deals = 0
        self.deck_problems: list[str] = []
        self.hand_problems: list[str] = []
        self.draws = 0
        self.draw_problems: list[str] = []

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> list[TableSessionResult]:
        ids = [unit_id(unit) for unit in units]
        answered = self.answer(ids)
        results = []
        for index, (unit, identifier) in enumerate(zip(units, ids, strict=True)):
            result = answered.get(identifier)
            if result is None:
                raise _Missing(
                    f"{place_text(unit.session, unit.section, unit.table)}"
                    " is not in the store: the results cannot have come from this run's plan"
                )
            decks, hands = check_unit(unit, result)
            self.deck_problems += decks
            self.hand_problems += hands
            drawn, problems = check_draws(unit, result)
            self.draws += drawn
            self.draw_problems += problems
            self.asked.append(unit)
            self.deals += len(result.deals)
            if on_result is not None:
                on_result(index, result)
            results.append(result)
        return results


class _Missing(Exception):
    pass


def check_sessions(
    verification: Verification,
    run_dir: Path,
    config: EventConfig,
    store: RunStore,
    meta: dict[str, str],
) -> list[TableUnit]:
    """The checks of the stored table-sessions (``decks``, ``hands``, ``results``); the
    units the event driver asked for, in its order."""
    executor = _AnsweredSessions(store.get)
    histories = meta.get("histories", "yes") == "yes"
    recomputed: list[dict[str, Any]] = []
    problems = _regenerate(
        run_dir,
        config,
        store,
        executor,
        histories,
        lambda again: recomputed.append(read_json(RunDir(again).results)),
    )
    deals = _deals(executor.asked, executor.deals)
    verification.add(
        "decks",
        executor.deck_problems,
        f"{deals} at {len(executor.asked):,} table-sessions hold the deck's cards",
    )
    verification.add(
        "hands", executor.hand_problems, f"{deals} replay through the engine to their recorded nets"
    )
    verification.add(
        "draws",
        executor.draw_problems,
        f"{executor.draws:,} actions drawn from bots' mixed strategies are the ones the key"
        " draws from them"
        if executor.draws
        else "no bot answered with a mixed strategy: no draws to check",
    )
    verification.add(
        "results",
        problems,
        "the table-sessions give results.json and every session's part byte for byte"
        + (", and every hand history" if histories else ""),
    )
    if recomputed:
        check_clairvoyance(verification, read_json(RunDir(run_dir).results), recomputed[0])
    return executor.asked


def stored_units(config: EventConfig, store: RunStore) -> list[TableUnit]:
    """The table units of the run whose keyed ``config`` and ``store`` are given, in the
    order the event driver asks for them (fed the stored table-sessions: a later session
    of an eliminating event is seated from the earlier ones' results)."""
    executor = _AnsweredSessions(store.get)
    with tempfile.TemporaryDirectory(prefix="dp-arena-units-") as scratch:
        try:
            run_event(
                config,
                Path(scratch) / "run",
                executor=executor,
                histories=False,
                code=stored_code(store),
            )
        except _Missing as missing:
            raise RunError(f"{store.path}: {missing}") from None
    return executor.asked


def _deals(units: Sequence[TableUnit], table_deals: int) -> str:
    """``46 deals (170 table-deals)``: each deal of a section at every one of its tables."""
    sections: dict[tuple[int, int], int] = {}
    for unit in units:
        sections[unit.session, unit.section] = max(
            unit.deals, sections.get((unit.session, unit.section), 0)
        )
    deals = sum(sections.values())
    return f"{deals:,} deal{'s' * (deals != 1)} ({table_deals:,} table-deals)"


def _winners(results: Mapping[str, Any]) -> set[str]:
    """The players who won a prize; in an event that pays none, those placed first."""
    paid = {
        str(player)
        for player, cents in results.get("prizes", {}).get("by_player", {}).items()
        if cents
    }
    return paid or {
        str(standing.get("player"))
        for standing in results.get("standings", ())
        if isinstance(standing, Mapping) and standing.get("place") == 1
    }


def _other_version(meta: Mapping[str, str]) -> str:
    """A note when this dp-arena is not the one that played the run."""
    recorded = meta.get("code_version")
    now = code_version()
    if recorded is None or recorded == now:
        return ""
    return (
        f"; note: the run was played by another dp-arena (code version {recorded[:12]},"
        f" this one {now[:12]}): a difference may come from that"
    )


def _regenerate(
    run_dir: Path,
    config: EventConfig,
    store: RunStore,
    executor: Executor,
    histories: bool,
    on_written: Callable[[Path], None] | None = None,
) -> list[str]:
    """Where the event driver, fed the table-sessions ``executor`` answers, writes other
    files than the run directory holds (``on_written(folder)`` is shown the files it
    wrote, when it wrote them all)."""
    with tempfile.TemporaryDirectory(prefix="dp-arena-verify-") as scratch:
        again = Path(scratch) / "run"
        try:
            run_event(
                config, again, executor=executor, histories=histories, code=stored_code(store)
            )
        except _Missing as missing:
            return [str(missing)]
        except (AssertionError, DPArenaError) as error:
            # Writing a hand history replays each deal: tampered records stop it here.
            return [f"the table-sessions cannot give results: {error}"]
        if on_written is not None:
            on_written(again)
        return compare_files(run_dir, again, histories)


def check_replay(
    verification: Verification,
    run_dir: Path,
    results: dict[str, Any],
    config: EventConfig,
    store: RunStore,
    meta: dict[str, str],
    units: list[TableUnit],
    *,
    winners_only: bool,
    on_progress: Callable[[Replay, int], None] | None,
) -> None:
    """``replay``: the table-sessions played again (see :mod:`dp_arena.runner.replay`),
    in reverse order; ``replayed results``: the event driver fed them gives the same files."""
    if config.format == CLASSIC:
        verification.refuse(
            "a classic freezeout is played hand by hand, its tables coupled, not in"
            " table-sessions: it cannot be replayed one table-session at a time"
        )
        return
    refused = run_code_problems(config, meta, run_dir)
    if refused:
        verification.refuse(*refused)
        return
    winners = _winners(results)
    chosen = [
        unit
        for unit in units
        if not winners_only or any(seat.player in winners for seat in unit.seats)
    ]

    def recorded(unit: TableUnit) -> TableSessionResult:
        identifier = unit_id(unit)
        return store.get([identifier])[identifier]

    replayed = replay_units(chosen[::-1], recorded, on_progress=on_progress)
    verification.replay = replayed
    codes = {str(entrant["player"]): entrant.get("code") for entrant in results["entrants"]}
    whose = f" (those of the {len(winners)} prize winners)" if winners_only else ""
    verification.add(
        "replay",
        replayed.problems(lambda player: f"{player} [{code_label(codes.get(player))}]"),
        f"{replayed.table_sessions:,} of {len(units):,} table-sessions{whose} played again"
        f" with their bots, one at a time, in reverse order: all {replayed.decisions:,}"
        " decisions answered as recorded"
        + (
            f" ({len(replayed.notes)} with bots' hook faults told at other deals, which"
            " timing decides)"
            if replayed.notes
            else ""
        )
        + _other_version(meta),
    )
    histories = meta.get("histories", "yes") == "yes"
    files = (
        "results.json (standings, prizes), every session's part"
        + (" and every hand history" if histories else "")
        + " byte for byte"
    )
    executor: Executor
    if replayed.passed:
        executor = _AnsweredSessions(
            lambda ids: {
                **store.get(
                    [identifier for identifier in ids if identifier not in replayed.results]
                ),
                **{
                    identifier: result
                    for identifier in ids
                    if (result := replayed.result(identifier)) is not None
                },
            }
        )
        detail = f"the replayed table-sessions give {files}"
    else:
        # What the bots' own play gives, nothing recorded imposed: which prizes move.
        chosen_ids = {unit_id(unit) for unit in chosen}
        executor = FreePlay(
            chosen_ids.__contains__,
            store.get,
            on_progress=on_progress,
            expected=len(chosen_ids),
        )
        detail = f"the bots' own play, nothing recorded imposed, gives {files}"
    verification.add(
        "replayed results", _regenerate(run_dir, config, store, executor, histories), detail
    )
