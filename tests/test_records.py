"""The one generic serialiser (dp_arena.records): every record back exactly from its JSON,
the protocol's messages byte for byte as docs/protocol.md shows them, and bad data refused
with the record and field named."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.agents import DealEnd, DealStart, Observation, SessionContext
from dp_arena.records import codec, from_json, to_json
from dp_arena.results import DealRecord, Fault, FaultKind, TableSessionResult
from dp_arena.sandbox import protocol

if TYPE_CHECKING:
    from collections.abc import Sequence  # a hint only a type checker can resolve

PROTOCOL_DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"

# -- results: back exactly ---------------------------------------------------------------

names = st.text(max_size=8)
small = st.integers(-(10**6), 10**6)
faults = st.builds(
    Fault,
    kind=st.sampled_from(FaultKind),
    player=names,
    seat=st.integers(0, 5),
    deal=st.none() | st.integers(0, 99),
    street=st.none() | st.sampled_from(["preflop", "flop"]),
    detail=st.text(max_size=20),
    substituted=st.none() | st.just("check"),
)
deals = st.builds(
    DealRecord,
    deal=st.integers(0, 99),
    button=st.integers(0, 5),
    players=st.tuples(names, names),
    hole_cards=st.tuples(names, names),
    board=names,
    actions=st.lists(names, max_size=4).map(tuple),
    nets=st.tuples(small, small),
    absent=st.lists(st.integers(0, 5), max_size=2).map(tuple),
)
results = st.builds(
    TableSessionResult,
    table=st.integers(0, 9),
    players=st.lists(names, max_size=3).map(tuple),
    deals=st.lists(deals, max_size=3).map(tuple),
    faults=st.lists(faults, max_size=3).map(tuple),
    absent_seats=st.lists(st.integers(0, 5), max_size=2).map(tuple),
)


@given(results)
def test_a_result_comes_back_exactly_from_its_json_text(result: TableSessionResult) -> None:
    text = json.dumps(to_json(result))
    assert TableSessionResult.from_json(json.loads(text)) == result
    assert json.dumps(to_json(TableSessionResult.from_json(json.loads(text)))) == text


def test_a_results_json_is_its_fields_in_order_with_tuples_as_lists_and_enums_as_values() -> None:
    fault = Fault(FaultKind.TIMEOUT, "alice", 2, 7, "flop", "no answer in 1 s")
    assert json.dumps(to_json(fault)) == (
        '{"kind": "TIMEOUT", "player": "alice", "seat": 2, "deal": 7, "street": "flop",'
        ' "detail": "no answer in 1 s", "substituted": null}'
    )
    deal = DealRecord(3, 1, ("a", "b"), ("AsKd", "2c2d"), "", ("0:fold",), (-10, 10))
    assert to_json(deal) == {
        "deal": 3,
        "button": 1,
        "players": ["a", "b"],
        "hole_cards": ["AsKd", "2c2d"],
        "board": "",
        "actions": ["0:fold"],
        "nets": [-10, 10],
        "absent": [],
    }


def test_a_field_marked_omit_empty_is_written_only_when_it_holds_something() -> None:
    plain = DealRecord(3, 1, ("a", "b"), ("AsKd", "2c2d"), "", ("0:fold",), (-10, 10))
    assert "mixes" not in to_json(plain)  # as every deal was written before mixes existed
    mixed = DealRecord(
        3,
        1,
        ("a", "b"),
        ("AsKd", "2c2d"),
        "",
        ("0:fold",),
        (-10, 10),
        (),
        ((0, "fold 0.25, call 0.75"),),
    )
    text = json.dumps(to_json(mixed))
    assert text.endswith('"absent": [], "mixes": [[0, "fold 0.25, call 0.75"]]}')
    assert DealRecord.from_json(json.loads(text)) == mixed
    assert DealRecord.from_json(to_json(plain)) == plain


def test_a_missing_field_takes_its_default_or_is_named() -> None:
    data = to_json(DealRecord(3, 1, ("a", "b"), ("AsKd", "2c2d"), "", (), (-10, 10)))
    del data["absent"]  # written before absent seats were recorded
    assert DealRecord.from_json(data).absent == ()
    del data["nets"]
    with pytest.raises(KeyError, match="DealRecord: no 'nets'"):
        DealRecord.from_json(data)
    with pytest.raises(ValueError, match="'LATE'"):
        Fault.from_json({**to_json(Fault(FaultKind.CRASH, "a", 0, None, None, "")), "kind": "LATE"})


# -- the protocol: byte for byte as documented -------------------------------------------

RECORDS = {
    "session_start": ("context", SessionContext),
    "deal_start": ("deal", DealStart),
    "act": ("observation", Observation),
    "deal_end": ("result", DealEnd),
}


def _transcript() -> list[str]:
    lines = PROTOCOL_DOC.read_text(encoding="utf-8").splitlines()
    return [line[2:] for line in lines if line.startswith('> {"type":')]


def test_the_documented_dealer_messages_are_read_and_written_back_byte_for_byte() -> None:
    seen = set()
    for line in _transcript():
        message = json.loads(line)
        if message["type"] not in RECORDS:
            continue
        key, record_class = RECORDS[message["type"]]
        record = record_class.from_json(message[key])
        assert record == from_json(record_class, message[key])
        assert protocol.encode({**message, key: record.to_json()}) == (line + "\n").encode()
        seen.add(message["type"])
    assert seen == set(RECORDS)  # the page shows one of each


def test_an_observation_holds_typed_values_not_text() -> None:
    line = next(line for line in _transcript() if '"street":"flop"' in line)
    observation = Observation.from_json(json.loads(line)["observation"])
    assert observation.board_text == "5cKc5d" and observation.hole_cards_text == "KhAs"
    assert observation.street.name == "FLOP" and len(observation.history) == 3
    assert observation.history[0].kind.value == "raise" and observation.history[0].raise_to == 40
    assert isinstance(observation.street_bets, tuple) and observation.context.event == "demo"


def test_bad_cards_are_refused_naming_them() -> None:
    line = next(line for line in _transcript() if '"type":"act"' in line)
    data = json.loads(line)["observation"]
    with pytest.raises(ValueError, match="hole_cards must be two cards, not 'KhAsQd'"):
        Observation.from_json({**data, "hole_cards": "KhAsQd"})


# -- the mechanism -----------------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True, slots=True)
class Inner:
    colour: Colour
    pair: tuple[int, str]


@dataclasses.dataclass(frozen=True)
class Outer:
    inners: tuple[Inner, ...]
    lookup: dict[str, Inner]
    maybe: Inner | None
    shouted: str = dataclasses.field(default="", metadata=codec(str.upper, str.lower))
    tags: list[str] = dataclasses.field(default_factory=list)


def test_nested_records_enums_fixed_tuples_dicts_codecs_and_defaults() -> None:
    inner = Inner(Colour.RED, (1, "x"))
    outer = Outer((inner, inner), {"k": inner}, None, "hi", ["t"])
    data = to_json(outer)
    assert data == {
        "inners": [{"colour": "red", "pair": [1, "x"]}] * 2,
        "lookup": {"k": {"colour": "red", "pair": [1, "x"]}},
        "maybe": None,
        "shouted": "HI",
        "tags": ["t"],
    }
    assert from_json(Outer, json.loads(json.dumps(data))) == outer
    fresh = from_json(Outer, {"inners": [], "lookup": {}, "maybe": None})
    assert fresh == Outer((), {}, None) and fresh.tags is not Outer((), {}, None).tags
    with pytest.raises(ValueError, match=r"Inner.pair takes 2 items, not 3"):
        from_json(Inner, {"colour": "red", "pair": [1, "x", 2]})


@dataclasses.dataclass(frozen=True)
class Unreadable:
    either: int | str


@dataclasses.dataclass(frozen=True)
class Unresolved:
    items: Sequence[int]  # resolved by no one at run time


def test_what_it_cannot_read_is_said_and_what_it_cannot_resolve_is_walked() -> None:
    with pytest.raises(
        TypeError, match=re.escape("Unreadable.either is a union other than X | None")
    ):
        from_json(Unreadable, {"either": 1})
    assert to_json(Unresolved((1, 2))) == {"items": [1, 2]}
    assert to_json(Unreadable("a")) == {"either": "a"}


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, list, dict))


def test_every_value_written_is_plain_json() -> None:
    line = next(line for line in _transcript() if '"type":"deal_end"' in line)
    end = DealEnd.from_json(json.loads(line)["result"])
    stack = [to_json(end)]
    while stack:
        value = stack.pop()
        assert _plain(value) and not isinstance(value, enum.Enum)
        stack.extend(
            value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        )
