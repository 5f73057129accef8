"""``dp_arena.frozen.maker``: the instances it makes are those their class makes."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.engine.actions import ActionKind, ActionRecord, LegalActions, Street
from dp_arena.engine.rules import Betting
from dp_arena.frozen import maker

# Any value will do: the records store what they are given.
values = st.one_of(st.integers(), st.none(), st.booleans(), st.text(max_size=5))


def _same(made: Any, expected: Any) -> None:
    assert type(made) is type(expected)
    assert made == expected
    assert hash(made) == hash(expected)
    assert repr(made) == repr(expected)
    assert pickle.loads(pickle.dumps(made)) == expected
    for field in dataclasses.fields(expected):
        assert getattr(made, field.name) is getattr(expected, field.name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, field.name, 0)


@pytest.mark.parametrize(
    "cls", [Observation, SessionContext, DealStart, DealEnd, LegalActions, ActionRecord]
)
@given(data=st.data())
def test_an_instance_made_is_the_one_its_class_makes(cls: type, data: st.DataObject) -> None:
    names = [field.name for field in dataclasses.fields(cls)]
    given_values = [data.draw(st.tuples(values).map(lambda drawn: drawn[0])) for _ in names]
    expected = cls(*given_values)
    _same(maker(cls)(*given_values), expected)
    assert type(maker(cls)(*given_values)) is cls
    _same(maker(cls)(**dict(zip(names, given_values, strict=True))), expected)


def test_a_real_observation_record_and_legal_actions() -> None:
    legal = maker(LegalActions)(2, True, False, 10, 20, 300)
    assert legal.kinds == LegalActions(2, True, False, 10, 20, 300).kinds
    record = maker(ActionRecord)(1, Street.FLOP, ActionKind.RAISE, 40, 40, False)
    assert record == ActionRecord(1, Street.FLOP, ActionKind.RAISE, 40, 40, False)
    context = SessionContext(event="e", deal_number=3, table_session_nets=(1, -1))
    fields: dict[str, Any] = {
        "seat": 0, "seat_count": 2, "button": 0, "small_blind_seat": 0, "big_blind_seat": 1,
        "small_blind": 50, "big_blind": 100, "betting": Betting.POT_LIMIT, "cap": 2000,
        "hole_cards": (0, 1), "board": (), "street": Street.PREFLOP, "pot": 150,
        "current_bet": 100, "to_call": 50, "min_raise_to": 200, "max_raise_to": 300,
        "legal_actions": legal.kinds, "street_bets": (50, 100), "committed": (50, 100),
        "available": (1950, 1900), "cap_gap": 1900, "folded": (False, False),
        "absent": (False, False), "history": (record,), "context": context,
    }  # fmt: skip
    _same(maker(Observation)(**fields), Observation(**fields))
    assert maker(Observation)(**fields).to_json() == Observation(**fields).to_json()


def test_a_missing_or_unknown_field_is_refused_as_by_the_class() -> None:
    with pytest.raises(TypeError):
        maker(LegalActions)(1, True, False, 10, 20)
    with pytest.raises(TypeError):
        maker(LegalActions)(1, True, False, 10, 20, 30, colour="red")


@dataclasses.dataclass(frozen=True)
class _NotSlotted:
    value: int


@dataclasses.dataclass(slots=True)
class _NotFrozen:
    value: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


@dataclasses.dataclass(frozen=True, slots=True)
class _Defaulted:
    value: int
    derived: int = dataclasses.field(init=False, default=0)


@dataclasses.dataclass(frozen=True, slots=True)
class _Clashing:
    _cls: int


@pytest.mark.parametrize("cls", [_NotSlotted, _NotFrozen, _Checked, _Defaulted, _Clashing, int])
def test_a_class_it_cannot_stand_for_is_refused(cls: type) -> None:
    with pytest.raises(TypeError, match="maker"):
        maker(cls)
