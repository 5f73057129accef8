"""dp-arena: a competition harness for poker bots playing duplicate capped hold'em.

The names a bot author or a script needs come from the top. Heads-up, the button posts
the small blind and acts first; here it folds and the big blind wins the small blind:

>>> import dp_arena
>>> rules = dp_arena.TableRules(seat_count=2, small_blind=10, big_blind=20)
>>> hand = dp_arena.new_hand(rules, dp_arena.deck_for(7, 0, 0, 0), button=0)
>>> hand.legal_actions().call_amount
10
>>> record = hand.apply(dp_arena.Action.fold())
>>> hand.is_complete, hand.payoffs
(True, (-10, 10))

They are the engine's (cards, rules, hands, actions), the agent API's (observations,
the :class:`Agent` protocol, seats, tables), the exception hierarchy, the result records,
and the duplicate match. Each loads its module on first use
(:func:`dp_arena.lazy.lazy_names`): ``import dp_arena`` itself imports nothing but that
small helper, so every ``dp-arena`` command (``--help`` included) starts at once, and
NumPy, Ray and PettingZoo load only in the subpackages that use them
(:mod:`dp_arena.envs`, :mod:`dp_arena.learn`, :mod:`dp_arena.runner`). The package's
layers are described in ``docs/architecture.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp_arena.lazy import lazy_names

if TYPE_CHECKING:
    # What the lazy attributes below resolve to, spelled out for type checkers and IDEs.
    from dp_arena.agents import (
        BUILTINS,
        AbsentSeat,
        Agent,
        AgentSpec,
        DealEnd,
        DealStart,
        FaultPolicy,
        InProcessSeat,
        Observation,
        Seat,
        SeatFault,
        SessionContext,
        TableSession,
        load_agent,
        parse_action,
        parse_spec,
        play_deal,
        play_table_session,
    )
    from dp_arena.engine import (
        Action,
        ActionKind,
        ActionRecord,
        Betting,
        Card,
        HandState,
        LegalActions,
        Mix,
        Street,
        TableRules,
        button_for_deal,
        deck_for,
        evaluate,
        format_card,
        format_cards,
        hand_class_name,
        new_hand,
        parse_card,
        parse_cards,
    )
    from dp_arena.errors import (
        AgentError,
        ConfigError,
        DPArenaError,
        HandHistoryError,
        IllegalActionError,
        IllegalReason,
        LedgerError,
        RunError,
        SubmissionError,
    )
    from dp_arena.match import MatchConfig, MatchResult, play_match
    from dp_arena.results import DealRecord, Fault, FaultKind, TableSessionResult

__version__ = "0.1.0"

__all__ = [
    "BUILTINS",
    "AbsentSeat",
    "Action",
    "ActionKind",
    "ActionRecord",
    "Agent",
    "AgentError",
    "AgentSpec",
    "Betting",
    "Card",
    "ConfigError",
    "DPArenaError",
    "DealEnd",
    "DealRecord",
    "DealStart",
    "Fault",
    "FaultKind",
    "FaultPolicy",
    "HandHistoryError",
    "HandState",
    "IllegalActionError",
    "IllegalReason",
    "InProcessSeat",
    "LedgerError",
    "LegalActions",
    "MatchConfig",
    "MatchResult",
    "Mix",
    "Observation",
    "RunError",
    "Seat",
    "SeatFault",
    "SessionContext",
    "Street",
    "SubmissionError",
    "TableRules",
    "TableSession",
    "TableSessionResult",
    "__version__",
    "button_for_deal",
    "deck_for",
    "evaluate",
    "format_card",
    "format_cards",
    "hand_class_name",
    "load_agent",
    "new_hand",
    "parse_action",
    "parse_card",
    "parse_cards",
    "parse_spec",
    "play_deal",
    "play_match",
    "play_table_session",
]

# Where the exported names live: each is in the ``__all__`` of one of these (a package's
# public surface, not a private file), looked through lightest first. Nothing loads until
# a name is used.
lazy_names(__name__, {}, search=("errors", "results", "engine", "agents", "match"))
