"""The deals of a session as every environment plays them: the table's options, the event
seed and session a table plays next, and each seat's context at a deal.

A session is ``deals`` deals at one table, every seat starting each deal with the cap, so
a seat's chips at a deal are ``cap x deals`` plus its session net before it. The AEC
environments, the Gymnasium ones and the batch build the contexts a bot sees here, so a
bot at any of them is told the same.

>>> contexts = deal_contexts("capped_holdem_v0:7", 0, 0, 3, 4, 1000, (20, -20))
>>> contexts[1].deal_number, contexts[1].session_net, contexts[1].session_chips
(3, -20, 3980)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypedDict

from dp_arena.agents.observation import SessionContext
from dp_arena.engine import Betting
from dp_arena.envs.discrete_actions import RaiseSize

__all__ = ["TableOptions", "deal_contexts", "next_session", "seat_context"]


class TableOptions(TypedDict, total=False):
    """The table's and the observation's arguments, the same for every environment over a
    session; each environment passes them on as it got them, and the AEC environment
    (:class:`~dp_arena.envs.aec.session.SessionEnv`) gives the defaults and checks them:
    ``betting`` ("no-limit"), ``cap`` (1000), ``blinds`` ((10, 20)), ``deals`` (one round
    of the button), ``raise_sizes``, ``observation_format`` ("dict"), ``illegal_action``
    ("raise")."""

    betting: str | Betting
    cap: int
    blinds: Sequence[int]
    deals: int | None
    raise_sizes: Sequence[RaiseSize]
    observation_format: str
    illegal_action: str


def next_session(seed: int | None, event_seed: int | None, session: int) -> tuple[int, int]:
    """The event seed and session a table plays after ``reset(seed)``, from the ones it
    played: session 0 of ``seed`` when one is given, else the next session of the same
    event (session 0 of a fresh random event at the first reset)."""
    if seed is not None:
        if isinstance(seed, bool) or not hasattr(seed, "__index__") or int(seed) < 0:
            raise ValueError(f"reset: seed must be a non-negative integer, not {seed!r}")
        return int(seed), 0
    if event_seed is None:
        return int.from_bytes(os.urandom(8), "little") >> 1, 0
    return event_seed, session + 1


def seat_context(
    event: str,
    session: int,
    table: int,
    deal: int,
    deals: int,
    cap: int,
    nets: tuple[int, ...],
    seat: int,
) -> SessionContext:
    """Seat ``seat``'s context at ``deal`` of ``session`` (``deals`` deals at ``table``),
    given every seat's session net before the deal, ``nets``."""
    return SessionContext(
        event=event,
        section=0,
        session=session,
        table=table,
        deal_number=deal,
        deals_in_session=deals,
        session_net=nets[seat],
        session_chips=cap * deals + nets[seat],
        eliminating=False,
        table_session_nets=nets,
    )


def deal_contexts(
    event: str, session: int, table: int, deal: int, deals: int, cap: int, nets: tuple[int, ...]
) -> list[SessionContext]:
    """Every seat's :func:`seat_context` at the deal."""
    return [
        seat_context(event, session, table, deal, deals, cap, nets, seat)
        for seat in range(len(nets))
    ]
