"""The agent API: what a bot sees (:class:`Observation`), what it answers
(:class:`~dp_arena.engine.Action`), the :class:`Agent` protocol, seats, and tables."""

from __future__ import annotations

from dp_arena.agents.agent import Agent, parse_action, parse_answer
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import AbsentSeat, InProcessSeat, Seat, SeatFault
from dp_arena.agents.spec import (
    BUILTINS,
    AgentSpec,
    SpecKind,
    load_agent,
    parse_spec,
    python_classes,
)
from dp_arena.agents.table import FaultPolicy, TableSession, observe, play_deal, play_table_session

__all__ = [
    "BUILTINS",
    "AbsentSeat",
    "Agent",
    "AgentSpec",
    "DealEnd",
    "DealStart",
    "FaultPolicy",
    "InProcessSeat",
    "Observation",
    "Seat",
    "SeatFault",
    "SessionContext",
    "SpecKind",
    "TableSession",
    "load_agent",
    "observe",
    "parse_action",
    "parse_answer",
    "parse_spec",
    "play_deal",
    "play_table_session",
    "python_classes",
]
