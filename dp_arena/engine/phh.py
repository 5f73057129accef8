"""PHH hand histories: the public surface of the writer (:mod:`~dp_arena.engine.phh_write`)
and the reader/replayer (:mod:`~dp_arena.engine.phh_read`, which parses actions with
:mod:`~dp_arena.engine.phh_parse`: ``parse_actions``, and ``HandCards``, the cards a
hand's actions show). ``docs/phh.md`` describes the conventions.

A hand written by dp-arena replays to the same stacks:

>>> from dp_arena.engine import TableRules, deck_for, new_hand
>>> rules = TableRules(seat_count=3, small_blind=10, big_blind=20)
>>> state = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
>>> while state.actor is not None:
...     _ = state.apply(state.legal_actions().passive())
>>> [result.finishing_stacks for result in replay_text(write_hand(state))]
[(990, 1010, 1000)]
"""

from __future__ import annotations

from dp_arena.engine.phh_parse import HandCards, parse_actions
from dp_arena.engine.phh_read import (
    PhhHand,
    ReplayResult,
    load_histories,
    read_text,
    replay_file,
    replay_hand,
    replay_text,
)
from dp_arena.engine.phh_write import (
    HandMeta,
    SessionHistory,
    player_seats,
    write_hand,
    write_session,
)

__all__ = [
    "HandCards",
    "HandMeta",
    "PhhHand",
    "ReplayResult",
    "SessionHistory",
    "load_histories",
    "parse_actions",
    "player_seats",
    "read_text",
    "replay_file",
    "replay_hand",
    "replay_text",
    "write_hand",
    "write_session",
]
