"""Records as JSON: the hand-written methods against one generic mechanism, measured on
the records that cross a boundary most often.

Three generic candidates are timed against the hand-written code in the same run: the
dataclass walk of :mod:`dp_arena.records` (the package's own), ``msgspec``
(``to_builtins``/``convert``) and ``cattrs`` (``unstructure``/``structure``), each where
it can give the same JSON byte for byte (checked before timing):

- **observation out / in**: the :class:`~dp_arena.agents.Observation` a sandboxed bot is
  sent at every decision (encoded by the dealer, decoded by the bot's runner), from a
  six-handed table of built-in bots. Its JSON is not its fields (cards as text, a street
  by name, each action record as the protocol spells it): the walk reads that from the
  fields' codecs, cattrs from hooks registered per field; msgspec has no per-field hook
  for an ``int`` field written as text, so it is left out.
- **result out / in**: a :class:`~dp_arena.results.TableSessionResult` (a table-session of
  40 six-handed deals), as a worker sends it and the driver stores and reads it back.
  Out, the walk was already the code; in, the hand-written ``from_json`` it replaced is
  kept here as the reference.

Each of 7 rounds times the reference and then every candidate for at least 0.2 CPU
seconds each; a candidate's figure is the median of its rounds' ratios to the reference
(the hand-written code; for results out, where a walk was already the code, that walk
as it was, looking at every value's type, before its encoders were compiled).
Neither library is a dependency: without them their columns are empty. ``python -m bench
records`` runs it (about half a minute).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from dp_arena.agents import (
    BUILTINS,
    DealStart,
    InProcessSeat,
    Observation,
    SessionContext,
    TableSession,
    load_agent,
    play_table_session,
)
from dp_arena.agents.observation import _hole_cards, record_from_json, record_to_json
from dp_arena.engine import Betting, TableRules
from dp_arena.engine.actions import ActionKind, ActionRecord, Street
from dp_arena.engine.cards import Card, format_cards, parse_cards
from dp_arena.records import from_json, to_json
from dp_arena.results import DealRecord, Fault, FaultKind, TableSessionResult

ROUNDS = 7
MINIMUM_SECONDS = 0.2


# -- the hand-written observation JSON, as it was (the reference) ----------------------


def sessioncontext_by_hand(self: SessionContext) -> dict[str, Any]:
    return {
        "event": self.event,
        "section": self.section,
        "session": self.session,
        "table": self.table,
        "deal_number": self.deal_number,
        "deals_in_session": self.deals_in_session,
        "session_net": self.session_net,
        "session_chips": self.session_chips,
        "eliminating": self.eliminating,
        "table_session_nets": None
        if self.table_session_nets is None
        else list(self.table_session_nets),
        "seat_position_rank": self.seat_position_rank,
    }


def sessioncontext_from_hand(data: dict[str, Any]) -> SessionContext:
    nets = data.get("table_session_nets")
    return SessionContext(**{**data, "table_session_nets": None if nets is None else tuple(nets)})


def observation_by_hand(self: Observation) -> dict[str, Any]:
    return {
        "seat": self.seat,
        "seat_count": self.seat_count,
        "button": self.button,
        "small_blind_seat": self.small_blind_seat,
        "big_blind_seat": self.big_blind_seat,
        "small_blind": self.small_blind,
        "big_blind": self.big_blind,
        "betting": self.betting.value,
        "cap": self.cap,
        "hole_cards": format_cards(self.hole_cards),
        "board": format_cards(self.board),
        "street": self.street.name.lower(),
        "pot": self.pot,
        "current_bet": self.current_bet,
        "to_call": self.to_call,
        "min_raise_to": self.min_raise_to,
        "max_raise_to": self.max_raise_to,
        "legal_actions": [kind.value for kind in self.legal_actions],
        "street_bets": list(self.street_bets),
        "committed": list(self.committed),
        "available": list(self.available),
        "cap_gap": self.cap_gap,
        "folded": list(self.folded),
        "absent": list(self.absent),
        "history": [record_to_json(record) for record in self.history],
        "context": sessioncontext_by_hand(self.context),
    }


def observation_from_hand(data: dict[str, Any]) -> Observation:
    hole = _hole_cards(data["hole_cards"])
    return Observation(
        seat=data["seat"],
        seat_count=data["seat_count"],
        button=data["button"],
        small_blind_seat=data["small_blind_seat"],
        big_blind_seat=data["big_blind_seat"],
        small_blind=data["small_blind"],
        big_blind=data["big_blind"],
        betting=Betting(data["betting"]),
        cap=data["cap"],
        hole_cards=hole,
        board=parse_cards(data["board"]),
        street=Street[data["street"].upper()],
        pot=data["pot"],
        current_bet=data["current_bet"],
        to_call=data["to_call"],
        min_raise_to=data["min_raise_to"],
        max_raise_to=data["max_raise_to"],
        legal_actions=tuple(ActionKind(kind) for kind in data["legal_actions"]),
        street_bets=tuple(data["street_bets"]),
        committed=tuple(data["committed"]),
        available=tuple(data["available"]),
        cap_gap=data["cap_gap"],
        folded=tuple(data["folded"]),
        absent=tuple(data["absent"]),
        history=tuple(record_from_json(item) for item in data["history"]),
        context=sessioncontext_from_hand(data["context"]),
    )


# -- the hand-written decoding of results, as it was (the reference) -------------------


def fault_by_hand(data: dict[str, Any]) -> Fault:
    return Fault(
        kind=FaultKind(data["kind"]),
        player=data["player"],
        seat=data["seat"],
        deal=data["deal"],
        street=data["street"],
        detail=data["detail"],
        substituted=data.get("substituted"),
    )


def deal_by_hand(data: dict[str, Any]) -> DealRecord:
    return DealRecord(
        deal=data["deal"],
        button=data["button"],
        players=tuple(data["players"]),
        hole_cards=tuple(data["hole_cards"]),
        board=data["board"],
        actions=tuple(data["actions"]),
        nets=tuple(data["nets"]),
        absent=tuple(data.get("absent", ())),
        mixes=tuple((decision, text) for decision, text in data.get("mixes", ())),
    )


def result_by_hand(data: dict[str, Any]) -> TableSessionResult:
    return TableSessionResult(
        table=data["table"],
        players=tuple(data["players"]),
        deals=tuple(deal_by_hand(deal) for deal in data["deals"]),
        faults=tuple(fault_by_hand(fault) for fault in data["faults"]),
        absent_seats=tuple(data["absent_seats"]),
    )


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_OMIT_EMPTY: dict[type, frozenset[str]] = {}
_PLAIN = frozenset((str, int, float, bool, type(None)))


def walked_as_before(record: Any) -> Any:
    """The walk that wrote results before its encoders were compiled: field by field, the
    type of every value looked at."""
    names = _FIELD_NAMES.get(type(record))
    if names is None and dataclasses.is_dataclass(record) and not isinstance(record, type):
        fields = dataclasses.fields(record)
        names = _FIELD_NAMES[type(record)] = tuple(field.name for field in fields)
        _OMIT_EMPTY[type(record)] = frozenset(
            field.name for field in fields if field.metadata.get("omit_empty")
        )
    if names is not None:
        data = {}
        omitted = _OMIT_EMPTY[type(record)]
        for name in names:
            value = getattr(record, name)
            if not value and name in omitted:
                continue
            data[name] = value if type(value) in _PLAIN else walked_as_before(value)
        return data
    if isinstance(record, enum.Enum):
        return record.value
    if isinstance(record, (list, tuple)):
        return [item if type(item) in _PLAIN else walked_as_before(item) for item in record]
    if isinstance(record, dict):
        return {str(key): walked_as_before(value) for key, value in record.items()}
    return record


# -- samples ---------------------------------------------------------------------------


class Recorder:
    """A built-in bot that keeps every observation it is shown."""

    def __init__(self, name: str, seen: list[Observation]) -> None:
        self.agent = load_agent(name)
        self.seen = seen

    def act(self, observation: Observation) -> Any:
        self.seen.append(observation)
        return self.agent.act(observation)


def samples() -> tuple[list[Observation], TableSessionResult]:
    seen: list[Observation] = []
    names = ["tag", "aggressive", "calling-station", "equity", "random", "tag"]
    assert all(name in BUILTINS for name in names)
    seats = [InProcessSeat(Recorder(name, seen), f"p{seat}") for seat, name in enumerate(names)]
    table = TableSession(seats, [f"p{seat}" for seat in range(6)])
    rules = TableRules(seat_count=6, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    result = play_table_session(
        table,
        rules,
        event_seed=2026,
        section=1,
        session=1,
        deals=40,
        context=SessionContext(event="bench", deals_in_session=40),
    )
    return seen, result


# -- the candidates --------------------------------------------------------------------


def cattrs_converter() -> Any:
    """A cattrs converter giving the protocol's JSON of an observation (None without
    cattrs)."""
    try:
        import cattrs
        from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
    except ImportError:
        return None
    converter = cattrs.Converter()
    converter.register_unstructure_hook(tuple, list)  # type: ignore[arg-type]
    converter.register_unstructure_hook(ActionRecord, record_to_json)
    converter.register_structure_hook(ActionRecord, lambda data, _: record_from_json(data))
    converter.register_unstructure_hook(Street, lambda street: street.name.lower())
    converter.register_structure_hook(Street, lambda name, _: Street[name.upper()])

    def hole(text: str, _: Any) -> tuple[Card, Card]:
        first, second = parse_cards(text)
        return first, second

    cards = {
        "hole_cards": override(unstruct_hook=format_cards, struct_hook=hole),
        "board": override(unstruct_hook=format_cards, struct_hook=lambda t, _: parse_cards(t)),
    }
    for record, fields in ((Observation, cards), (DealStart, {"hole_cards": cards["hole_cards"]})):
        converter.register_unstructure_hook(
            record, make_dict_unstructure_fn(record, converter, **fields)
        )
        converter.register_structure_hook(
            record, make_dict_structure_fn(record, converter, **fields)
        )
    return converter


def rate(work: Callable[[], Any], items: int) -> float:
    """Items a CPU second of this process (what other processes do on a shared machine
    counts less than on a wall clock)."""
    done, started = 0, time.process_time()
    while (elapsed := time.process_time() - started) < MINIMUM_SECONDS:
        work()
        done += items
    return done / elapsed


def same(name: str, produced: Any, reference: Any) -> bool:
    """Whether a candidate's JSON text is the reference's, byte for byte."""
    if json.dumps(produced) == json.dumps(reference):
        return True
    print(f"  {name}: its JSON differs from the hand-written one, left out")
    return False


def run() -> dict[str, Any]:
    observations, result = samples()
    wire = [observation_by_hand(observation) for observation in observations]
    stored = to_json(result)
    converter = cattrs_converter()
    try:
        import msgspec
    except ImportError:
        msgspec = None  # type: ignore[assignment]

    rows: dict[str, dict[str, float | None]] = {}

    def measure(
        row: str, reference: Callable[[], Any], candidates: dict[str, Callable[[], Any]], n: int
    ) -> None:
        # Each round times the reference and then every candidate, one after the other:
        # a ratio is taken within a round, and the median of the rounds' ratios kept.
        rounds = []
        for _ in range(ROUNDS):
            base = rate(reference, n)
            rounds.append((base, {name: rate(work, n) / base for name, work in candidates.items()}))
        figures: dict[str, float | None] = {"reference": statistics.median(r[0] for r in rounds)}
        for name in candidates:
            figures[name] = statistics.median(r[1][name] for r in rounds)
        rows[row] = figures

    # Observations: every candidate checked to give the very same JSON first.
    out: dict[str, Callable[[], Any]] = {}
    if same("walk", [o.to_json() for o in observations], wire):  # as the dealer calls it
        out["walk"] = lambda: [o.to_json() for o in observations]
    if converter is not None and same(
        "cattrs", [converter.unstructure(o) for o in observations], wire
    ):
        out["cattrs"] = lambda: [converter.unstructure(o) for o in observations]
    measure(
        "observation out", lambda: [observation_by_hand(o) for o in observations], out, len(wire)
    )

    back: dict[str, Callable[[], Any]] = {}
    assert [Observation.from_json(data) for data in wire] == observations
    back["walk"] = lambda: [Observation.from_json(data) for data in wire]
    if converter is not None:
        assert [converter.structure(data, Observation) for data in wire] == observations
        back["cattrs"] = lambda: [converter.structure(data, Observation) for data in wire]
    assert [observation_from_hand(data) for data in wire] == observations
    measure("observation in", lambda: [observation_from_hand(d) for d in wire], back, len(wire))

    out = {"walk": lambda: to_json(result)}
    assert walked_as_before(result) == stored
    if msgspec is not None and same("msgspec", msgspec.to_builtins(result), stored):
        out["msgspec"] = lambda: msgspec.to_builtins(result)
    if converter is not None and same("cattrs", converter.unstructure(result), stored):
        out["cattrs"] = lambda: converter.unstructure(result)
    measure("result out", lambda: walked_as_before(result), out, 1)

    assert result_by_hand(stored) == result == from_json(TableSessionResult, stored)
    back = {"walk": lambda: from_json(TableSessionResult, stored)}
    if msgspec is not None:
        assert msgspec.convert(stored, TableSessionResult) == result
        back["msgspec"] = lambda: msgspec.convert(stored, TableSessionResult)
    if converter is not None:
        assert converter.structure(stored, TableSessionResult) == result
        back["cattrs"] = lambda: converter.structure(stored, TableSessionResult)
    measure("result in", lambda: result_by_hand(stored), back, 1)

    print(
        f"{len(wire)} observations of 40 six-handed deals; a result of"
        f" {len(result.deals)} deals. Items a second of the reference, and each"
        " candidate's speed as a ratio to it (>1: faster)"
    )
    header = f"{'':<16} {'reference/s':>12} {'walk':>8} {'msgspec':>8} {'cattrs':>8}"
    print(header)
    print("-" * len(header))
    for row, figures in rows.items():
        cells = [
            f"{figures[name]:>7.2f}x" if figures.get(name) else f"{'-':>8}"
            for name in ("walk", "msgspec", "cattrs")
        ]
        reference = "hand" if row != "result out" else "old walk"
        print(f"{row:<16} {figures['reference']:>10,.0f} {reference[0]} {' '.join(cells)}")
    return rows
