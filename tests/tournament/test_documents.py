"""``plain``: the records written a field at a time for speed come out as the general way
makes them (every seat's session and every table of a session's part)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.results import Fault, FaultKind
from dp_arena.tournament import documents
from dp_arena.tournament.documents import plain
from dp_arena.tournament.outcomes import PlayerSession, TableOutcome

names = st.one_of(st.none(), st.text(max_size=8))
chips = st.integers(min_value=-(10**12), max_value=10**12)
faults = st.builds(
    Fault,
    st.sampled_from(FaultKind),
    st.text(max_size=5),
    st.integers(0, 9),
    st.one_of(st.none(), st.integers(0, 9)),
    st.one_of(st.none(), st.sampled_from(["preflop", "river"])),
    st.text(max_size=10),
    st.one_of(st.none(), st.sampled_from(["check", "fold"])),
)
sessions = st.builds(
    PlayerSession,
    names,
    st.integers(1, 9),
    st.integers(0, 9),
    chips,
    chips,
    chips,
    chips,
    st.lists(chips, max_size=4).map(tuple),
    st.integers(1, 30),
    st.one_of(st.none(), st.sampled_from(["total chips", "the draw"])),
    st.booleans(),
    chips,
)
tables = st.builds(
    TableOutcome,
    st.integers(1, 9),
    st.lists(names, max_size=6).map(tuple),
    st.lists(st.lists(chips, max_size=6).map(tuple), max_size=4).map(tuple),
    st.lists(faults, max_size=2).map(tuple),
    st.lists(st.integers(0, 5), max_size=3).map(tuple),
)


@given(record=st.one_of(sessions, tables))
def test_a_record_written_by_hand_is_what_the_general_way_makes(record: Any) -> None:
    by_hand = plain(record)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(documents, "_BY_HAND", {})
        general = plain(record)
    assert by_hand == general
    assert documents._line(by_hand) == documents._line(general)
    assert set(by_hand) == set(type(record).__dataclass_fields__)
