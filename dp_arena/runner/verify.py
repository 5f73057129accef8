"""Checking a finished run against its revealed key: what ``dp-arena verify RUN_DIR`` does.

When an event is over its key is in ``results.json``; anyone with the run directory can
then check that nothing was dealt or scored other than the key says. The checks, each
a line of the report:

``commitment``
    SHA-256 of the revealed key equals the commitment in ``results.json``, in the
    ``commitment`` file written before the first deal, in the store, and the one the
    organiser published (``--commitment``), when given.
``plan``
    The stored config, with the revealed key, plans exactly the event ``results.json``
    records (sections, tables, seats, prizes).
``decks``
    Every deal of every stored table-session holds the cards of
    ``deck_for(key, section, session, deal)``: each seat's hole cards and the board.
``hands``
    Every deal's recorded actions replay through the engine to its recorded nets.
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

A classic freezeout is played hand by hand in the coordinating process, not as table
units, so only ``commitment``, ``plan`` and ``histories`` apply to it; its standings are
not derived again. A public seed passes the same checks, and the report says that its
decks were predictable.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp_arena.engine import deck_for
from dp_arena.engine.cards import format_cards
from dp_arena.engine.deck import button_for_deal, deal_cards
from dp_arena.engine.phh_parse import HandCards, parse_actions
from dp_arena.engine.phh_read import load_histories, read_text, replay_hand
from dp_arena.errors import ConfigError, DPArenaError, HandHistoryError, RunError
from dp_arena.keys import EventKey
from dp_arena.ratings.equity import replay
from dp_arena.results import TableSessionResult
from dp_arena.runner.fingerprint import config_from_json, unit_id
from dp_arena.runner.launch import COMMITMENT_FILE, stored_code
from dp_arena.runner.store import RunStore
from dp_arena.tournament.config import EventConfig, with_key
from dp_arena.tournament.documents import plain
from dp_arena.tournament.event import run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.units import TableUnit

__all__ = ["Check", "Verification", "check_unit", "verify_run"]

CLASSIC = "classic"
_SHOWN = 5  # problems listed per check; the rest are counted


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a run: its name, whether it passed, what was checked or found."""

    name: str
    passed: bool
    detail: str
    problems: tuple[str, ...] = ()


@dataclass(slots=True)
class Verification:
    """Every check of one run directory."""

    run_dir: Path
    key: EventKey | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)

    def report(self) -> str:
        lines = [f"verifying {self.run_dir}"]
        if self.key is not None:
            lines.append(f"  key {self.key.hex}")
            if self.key.public:
                lines.append("  (a public seed: these decks were predictable to anyone)")
        for check in self.checks:
            lines.append(f"{'ok' if check.passed else 'FAILED':>6}  {check.name}: {check.detail}")
            lines += [f"          - {problem}" for problem in check.problems[:_SHOWN]]
            if len(check.problems) > _SHOWN:
                lines.append(f"          ... and {len(check.problems) - _SHOWN} more")
        verdict = "every check passed" if self.passed else "THE RUN DOES NOT VERIFY"
        lines.append(verdict)
        return "\n".join(lines) + "\n"

    def add(self, name: str, problems: Sequence[str], detail: str) -> None:
        self.checks.append(
            Check(
                name, not problems, detail if not problems else _failed(problems), tuple(problems)
            )
        )


def _failed(problems: Sequence[str]) -> str:
    return f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"


# -- one table-session -----------------------------------------------------------------


def check_unit(unit: TableUnit, result: TableSessionResult) -> tuple[list[str], list[str]]:
    """The deck problems and the replay problems of one stored table-session: cards that
    are not ``deck_for(key, section, session, deal)``'s, and actions that do not replay
    to the recorded nets."""
    where = f"session {unit.session}, section {unit.section}, table {unit.table}"
    deck_problems: list[str] = []
    hand_problems: list[str] = []
    seats = unit.rules.seat_count
    if result.players != unit.players:
        deck_problems.append(f"{where}: players {list(result.players)} are not the plan's")
    if len(result.deals) != unit.deals:
        deck_problems.append(f"{where}: {len(result.deals)} deals recorded, {unit.deals} planned")
    for position, record in enumerate(result.deals):
        deal = record.deal
        here = f"{where}, deal {deal}"
        if deal != position:
            deck_problems.append(f"{here}: recorded as deal {deal} in place {position}")
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


class _StoredSessions:
    """An executor that plays nothing: it answers every unit from the store, checking each
    against the key as it goes."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.units = 0
        self.deals = 0
        self.deck_problems: list[str] = []
        self.hand_problems: list[str] = []

    def run(
        self,
        units: Sequence[TableUnit],
        on_result: Callable[[int, TableSessionResult], None] | None = None,
    ) -> list[TableSessionResult]:
        ids = [unit_id(unit) for unit in units]
        stored = self.store.get(ids)
        results = []
        for index, (unit, identifier) in enumerate(zip(units, ids, strict=True)):
            result = stored.get(identifier)
            if result is None:
                raise _Missing(
                    f"session {unit.session}, section {unit.section}, table {unit.table}"
                    " is not in the store: the results cannot have come from this run's plan"
                )
            decks, hands = check_unit(unit, result)
            self.deck_problems += decks
            self.hand_problems += hands
            self.units += 1
            self.deals += len(result.deals)
            if on_result is not None:
                on_result(index, result)
            results.append(result)
        return results


class _Missing(Exception):
    pass


# -- the whole run -------------------------------------------------------------------------


def verify_run(run_dir: Path, *, commitment: str | None = None) -> Verification:
    """Every check of the finished run in ``run_dir``; :class:`RunError` when it is not a
    finished run that can be checked at all (no results, no revealed key, no store)."""
    results = _read_results(run_dir)
    key = _revealed_key(run_dir, results)
    verification = Verification(run_dir, key)
    store = _open_store(run_dir)
    try:
        meta = store.meta()
        _check_commitment(verification, run_dir, results, meta, key, commitment)
        config = _keyed_config(verification, meta, key)
        if config is None:
            return verification
        if not _check_plan(verification, config, results):
            return verification
        if config.format != CLASSIC:
            _check_sessions(verification, run_dir, config, store, meta)
        _check_histories(verification, run_dir, results, key, classic=config.format == CLASSIC)
    finally:
        store.close()
    return verification


def _read_results(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "results.json"
    if not path.is_file():
        raise RunError(f"{run_dir} has no results.json: only a finished run can be verified")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RunError(f"{path}: cannot be read as JSON ({error or 'nested too deeply'})") from None
    if not isinstance(data, dict) or not isinstance(data.get("event"), dict):
        raise RunError(f"{path}: not the results of a run (no event)")
    return data


def _revealed_key(run_dir: Path, results: dict[str, Any]) -> EventKey:
    event = results["event"]
    try:
        return EventKey.from_hex(str(event["key"]), public=event.get("predictable") is True)
    except (KeyError, ValueError):
        raise RunError(
            f"{run_dir / 'results.json'} reveals no deck key (event.key): it was written by"
            " a dp-arena without secret keys, and cannot be verified"
        ) from None


def _open_store(run_dir: Path) -> RunStore:
    if not RunStore.path_in(run_dir).is_file():
        raise RunError(f"{run_dir} has no store ({RunStore.path_in(run_dir).name}) to verify")
    return RunStore.read(run_dir)  # read-only: verifying never takes the run's lock


def _check_commitment(
    verification: Verification,
    run_dir: Path,
    results: dict[str, Any],
    meta: dict[str, str],
    key: EventKey,
    published: str | None,
) -> None:
    places: dict[str, str | None] = {"results.json": results["event"].get("commitment")}
    commitment_file = run_dir / COMMITMENT_FILE
    if commitment_file.is_file():
        places[COMMITMENT_FILE] = commitment_file.read_text(
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
        else [_first_difference(planned, results.get("plan"), "plan")]
    )
    verification.add(
        "plan", problems, f"the stored config with the key plans the recorded {config.format} event"
    )
    return not problems


def _check_sessions(
    verification: Verification,
    run_dir: Path,
    config: EventConfig,
    store: RunStore,
    meta: dict[str, str],
) -> None:
    executor = _StoredSessions(store)
    histories = meta.get("histories", "yes") == "yes"
    with tempfile.TemporaryDirectory(prefix="dp-arena-verify-") as scratch:
        again = Path(scratch) / "run"
        failure = None
        try:
            run_event(
                config, again, executor=executor, histories=histories, code=stored_code(store)
            )
        except _Missing as missing:
            failure = str(missing)
        except (AssertionError, DPArenaError) as error:
            # Writing a hand history replays each deal: tampered records stop it here.
            failure = f"the table-sessions cannot give results: {error}"
        verification.add(
            "decks",
            executor.deck_problems,
            f"{executor.deals:,} deals at {executor.units:,} tables hold the deck's cards",
        )
        verification.add(
            "hands",
            executor.hand_problems,
            f"{executor.deals:,} deals replay through the engine to their recorded nets",
        )
        original = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
        recomputed = None if failure else _read_json(again / "results.json")
        problems = [failure] if failure else _compare_files(run_dir, again, histories)
        verification.add(
            "results",
            problems,
            "the table-sessions give results.json and every session's part byte for byte"
            + (", and every hand history" if histories else ""),
        )
        if recomputed is not None:
            _check_clairvoyance(verification, original, recomputed)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _without_clairvoyance(document: dict[str, Any]) -> dict[str, Any]:
    """``results.json`` as a dp-arena without the clairvoyance test wrote it."""
    stripped = {key: value for key, value in document.items() if key != "clairvoyance"}
    stripped["entrants"] = [
        {key: value for key, value in entrant.items() if key != "clairvoyance"}
        for entrant in document.get("entrants", ())
    ]
    return stripped


def _check_clairvoyance(
    verification: Verification, original: dict[str, Any], recomputed: dict[str, Any]
) -> None:
    if "clairvoyance" not in original:
        verification.add(
            "clairvoyance",
            [],
            "results.json was written before the clairvoyance test: none to check",
        )
        return
    if recomputed.get("clairvoyance") is None:
        verification.add("clairvoyance", [], "this format is not tested (docs/rankings.md)")
        return
    published = {
        str(entrant.get("player")): entrant.get("clairvoyance")
        for entrant in original.get("entrants", ())
    }
    problems = [
        f"{entrant['player']}: results.json says {_brief(published.get(entrant['player']))},"
        f" recomputed {_brief(entrant.get('clairvoyance'))}"
        for entrant in recomputed.get("entrants", ())
        if published.get(entrant["player"]) != entrant.get("clairvoyance")
    ]
    if original.get("clairvoyance") != recomputed["clairvoyance"]:
        problems.append(
            f"the summary says {_brief(original.get('clairvoyance'))},"
            f" recomputed {_brief(recomputed['clairvoyance'])}"
        )
    summary = recomputed["clairvoyance"]
    flagged = ", ".join(summary["flagged"]) or "none"
    table = ", ".join(summary["table_flagged"])
    verification.add(
        "clairvoyance",
        problems,
        f"{len(published)} entrants' tests recomputed from the table-sessions and the key"
        f" are results.json's; flagged: {flagged}"
        + (f"; at whose tables a clairvoyant played (table test): {table}" if table else ""),
    )


def _compare_files(run_dir: Path, again: Path, histories: bool) -> list[str]:
    problems = []
    original = _read_json(run_dir / "results.json")
    recomputed = _read_json(again / "results.json")
    if "clairvoyance" not in original:  # written before the test: compared without it
        recomputed = _without_clairvoyance(recomputed)
    if original != recomputed:
        problems.append("results.json differs: " + _first_difference(recomputed, original, ""))
    for part in sorted((again / "sessions").glob("*.jsonl")):
        theirs = run_dir / "sessions" / part.name
        if not theirs.is_file():
            problems.append(f"sessions/{part.name} is missing")
        elif theirs.read_bytes() != part.read_bytes():
            problems.append(f"sessions/{part.name} differs from what the table-sessions give")
    names = sorted(path.name for path in (again / "histories").glob("*.phhs")) if histories else []
    for name in names:
        theirs = run_dir / "histories" / name
        if not theirs.is_file():
            problems.append(f"histories/{name} is missing")
        elif theirs.read_bytes() != (again / "histories" / name).read_bytes():
            problems.append(f"histories/{name} differs from what the table-sessions give")
    return problems


def _first_difference(expected: Any, found: Any, path: str) -> str:
    """Where two JSON values first differ, as a dotted path, and how."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for name in sorted(set(expected) | set(found)):
            if expected.get(name) != found.get(name):
                return _first_difference(
                    expected.get(name), found.get(name), f"{path}.{name}".lstrip(".")
                )
    elif isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return f"{path}: {len(found)} items recorded, {len(expected)} recomputed"
        for index, (left, right) in enumerate(zip(expected, found, strict=True)):
            if left != right:
                return _first_difference(left, right, f"{path}[{index}]")
    return f"{path or 'the document'}: recorded {_brief(found)}, recomputed {_brief(expected)}"


def _brief(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


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
