"""The context a seat is given at each deal is its session's, with the deal's own figures:
built field by field for speed, it must agree with ``dataclasses.replace`` for every
field, including any field added later."""

from __future__ import annotations

import dataclasses

from dp_arena.agents.observation import SessionContext
from dp_arena.agents.table import _deal_context


def _unlike_the_defaults() -> SessionContext:
    """A context whose every field differs from its default (so none can be dropped)."""
    values = {
        "event": "e",
        "section": 2,
        "session": 3,
        "table": 4,
        "deal_number": 5,
        "deals_in_session": 6,
        "session_net": 7,
        "session_chips": 8,
        "eliminating": True,
        "table_session_nets": (1, -1),
        "seat_position_rank": 9,
    }
    assert set(values) == {field.name for field in dataclasses.fields(SessionContext)}
    context = SessionContext(**values)
    for field in dataclasses.fields(SessionContext):
        assert getattr(context, field.name) != field.default, field.name
    return context


def test_a_deal_context_keeps_every_field_of_its_session() -> None:
    base = _unlike_the_defaults()
    for nets in (None, (3, -3)):
        made = _deal_context(base, 11, -20, 480, nets)
        assert made == dataclasses.replace(
            base, deal_number=11, session_net=-20, session_chips=480, table_session_nets=nets
        )
