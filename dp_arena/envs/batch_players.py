"""The opponents of the vector environment's batch: each decides for every table whose
turn it is at one of its seats, with array operations, exactly as its bot decides at one
table (the tests play each beside its bot, decision for decision).

- ``calling-station`` calls any bet and checks otherwise.
- ``random`` (``agents/random_bot.py``) draws a legal kind and a raise amount from the
  counter-based draws of :mod:`dp_arena.agents.draws`, for all tables at once.
- ``aggressive`` (``agents/aggressive.py``) raises by a drawn share of the pot while it
  may; its draws come from a Mersenne Twister per table and seat, seeded from the deal's
  text as the bot seeds it, at the first raise of the deal (a Python loop over the raises).
- ``tag`` (``agents/tag.py``): :mod:`dp_arena.envs.batch_tag`.
- A **policy** over the observation vectors: any callable ``policy(observations, masks)
  -> actions`` (a frozen snapshot of a learner, say), called once per step of the batch
  with the vectors and masks of every table where one of its seats is to act.

A player whose decisions depend only on the deal in play (not on the session's nets)
lets the batch leave a deal the learner folded out of unplayed (``leaves``); a policy
sees its session net in its observation, so the deals go on where one plays.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from dp_arena.agents.draws import GAMMA, session_key
from dp_arena.agents.seat import SeatFault
from dp_arena.envs.batch_encoding import encode_rows, row_masks
from dp_arena.envs.batch_engine import CALL, CHECK, FOLD, RAISE
from dp_arena.envs.policy_agent import is_policy
from dp_arena.results import FaultKind

if TYPE_CHECKING:
    from dp_arena.envs.batch_tables import BatchTables

__all__ = [
    "BatchPlayer",
    "CallingStationPlayer",
    "Policy",
    "PolicyPlayer",
    "RandomPlayer",
    "is_policy",
]

# A policy over batched observations: (observations, masks) -> one action index per row.
Policy = Callable[[np.ndarray, np.ndarray], Any]

_U64 = np.uint64
_MIX_1 = _U64(0xBF58476D1CE4E5B9)
_MIX_2 = _U64(0x94D049BB133111EB)
_GAMMA = _U64(GAMMA)
_UNIT = 2.0**-53
# The legal kinds for each permission pattern (fold 8, check 4, call 2, raise 1), in the
# order of LegalActions.kinds, padded, and how many there are.
_KIND_LISTS = np.zeros((16, 4), dtype=np.int64)
_KIND_COUNTS = np.zeros(16, dtype=np.int64)
for _bits in range(16):
    _kinds = [code for code, bit in ((FOLD, 8), (CHECK, 4), (CALL, 2), (RAISE, 1)) if _bits & bit]
    _KIND_LISTS[_bits, : len(_kinds)] = _kinds
    _KIND_COUNTS[_bits] = len(_kinds)


class BatchPlayer(Protocol):
    """One opponent of the batch, at one or more seats; see the module docstring."""

    leaves: bool

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None: ...

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None: ...

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The kinds and raise-to amounts of ``seats`` to act at ``rows``."""
        ...


def passive(tables: BatchTables, rows: np.ndarray) -> np.ndarray:
    """Check where nothing is owed, fold otherwise."""
    return np.where(tables.batch.owed[rows] > 0, FOLD, CHECK)


def calls(tables: BatchTables, rows: np.ndarray) -> np.ndarray:
    """Call where something is owed, check otherwise."""
    return np.where(tables.batch.call_amount[rows] > 0, CALL, CHECK)


class CallingStationPlayer:
    """``agents/calling_station.py``: calls any bet, checks otherwise."""

    leaves = True

    def __init__(self, tables: int, seats: int) -> None:
        return None

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return calls(tables, rows), np.zeros(rows.size, dtype=np.int64)


def _mix(values: np.ndarray) -> np.ndarray:
    """:func:`dp_arena.agents.draws.mix` of every element (uint64, wrapping)."""
    values = (values ^ (values >> _U64(30))) * _MIX_1
    values = (values ^ (values >> _U64(27))) * _MIX_2
    mixed: np.ndarray = values ^ (values >> _U64(31))
    return mixed


def _below(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`dp_arena.agents.draws.below` of every element."""
    chosen: np.ndarray = ((values >> _U64(11)).astype(np.float64) * _UNIT * counts).astype(np.int64)
    return chosen


class RandomPlayer:
    """``agents/random_bot.py`` with its default seed, at every table and seat at once."""

    leaves = True

    def __init__(self, tables: int, seats: int) -> None:
        self.session_keys = np.zeros(tables, dtype=_U64)
        self.keys = np.zeros((tables, seats), dtype=_U64)
        self.counters = np.zeros((tables, seats), dtype=_U64)
        self._seat_codes = np.arange(seats, dtype=_U64)

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.session_keys[row] = session_key(
                f"random:0:capped_holdem_v0:{tables.event_seeds[row]}:0:{int(tables.session[row])}"
            )

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        # deal_key for every seat: mix(session + ((deal << 4 | seat) + 1) x GAMMA).
        codes = (tables.deal[rows].astype(_U64)[:, None] << _U64(4)) | self._seat_codes
        self.keys[rows] = _mix(self.session_keys[rows][:, None] + (codes + _U64(1)) * _GAMMA)
        self.counters[rows] = 0

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        keys = self.keys[rows, seats]
        counters = self.counters[rows, seats]
        self.counters[rows, seats] = counters + _U64(2)
        permissions = batch.permissions[rows]
        kind_draws = _mix(keys + (counters + _U64(1)) * _GAMMA)
        kinds = _KIND_LISTS[permissions, _below(kind_draws, _KIND_COUNTS[permissions])]
        amounts = np.zeros(rows.size, dtype=np.int64)
        raising = (kinds == RAISE).nonzero()[0]
        if raising.size:
            raised = rows[raising]
            low = batch.min_raise_to[raised]
            span = batch.max_raise_to[raised] - low + 1
            amount_draws = _mix(keys[raising] + (counters[raising] + _U64(2)) * _GAMMA)
            amounts[raising] = low + _below(amount_draws, span)
        return kinds, amounts


class AggressivePlayer:
    """``agents/aggressive.py`` with its defaults (two raises a street, seed 0)."""

    leaves = True
    max_raises = 2

    def __init__(self, tables: int, seats: int) -> None:
        self.generators: dict[tuple[int, int], random.Random] = {}
        self.prefixes = [""] * tables

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.prefixes[row] = (
                f"aggressive:0:capped_holdem_v0:{tables.event_seeds[row]}:0:"
                f"{int(tables.session[row])}:"
            )

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        generators = self.generators
        for row in rows.tolist():
            for seat in range(tables.seat_count):
                generators.pop((row, seat), None)

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        own_raises = batch.raises[rows, batch.street[rows], seats]
        raising = (batch.can_raise[rows] & (own_raises < self.max_raises)).nonzero()[0]
        kinds = calls(tables, rows)
        amounts = np.zeros(rows.size, dtype=np.int64)
        if raising.size:
            raised = rows[raising]
            kinds[raising] = RAISE
            pot_after_call = batch.committed[raised].sum(axis=1) + batch.call_amount[raised]
            draws = []
            generators = self.generators
            for row, seat, pot in zip(
                raised.tolist(), seats[raising].tolist(), pot_after_call.tolist(), strict=True
            ):
                generator = generators.get((row, seat))
                if generator is None:  # seeded as the bot seeds it at the deal's start
                    generator = random.Random(f"{self.prefixes[row]}{int(tables.deal[row])}:{seat}")
                    generators[row, seat] = generator
                draws.append(generator.randint(pot // 2, pot))
            wanted = batch.current_bet[raised] + np.array(draws, dtype=np.int64)
            amounts[raising] = np.minimum(
                np.maximum(wanted, batch.min_raise_to[raised]), batch.max_raise_to[raised]
            )
        return kinds, amounts


class PolicyPlayer:
    """A policy over batched observations (see the module docstring). A masked answer, or
    one that is not an action index, is a fault of that table's seat, played as
    check-or-fold, as a table plays a bot's illegal answer."""

    leaves = False  # its observation holds its session net: every deal is played out

    def __init__(self, policy: Policy, name: str) -> None:
        self.policy = policy
        self.name = name

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        action_table = tables.action_table
        vectors = encode_rows(
            batch, rows, seats, tables.deal[rows], tables.deals, tables.nets[rows, seats]
        )
        masks = row_masks(batch, rows, action_table.size)
        answer = np.asarray(self.policy(vectors, masks))
        if answer.shape != (rows.size,) or not np.issubdtype(answer.dtype, np.integer):
            raise TypeError(
                f"policy opponent {self.name}: expected {rows.size} integer actions, got"
                f" {answer.dtype} of shape {answer.shape}"
            )
        inside = (answer >= 0) & (answer < action_table.size)
        legal = np.zeros(rows.size, dtype=bool)
        legal[inside] = masks[inside.nonzero()[0], answer[inside]] == 1
        actions = np.where(legal, answer, 1)
        kinds, amounts = tables.discrete(rows, actions.astype(np.int64))
        illegal = (~legal).nonzero()[0]
        if illegal.size:
            kinds[illegal] = passive(tables, rows[illegal])
            amounts[illegal] = 0
            for index in illegal.tolist():
                tables.fault(
                    int(rows[index]),
                    int(seats[index]),
                    SeatFault(
                        FaultKind.ERROR,
                        f"policy {self.name}: action {int(answer[index])} is not legal now;"
                        f" action_mask is {masks[index].tolist()}",
                    ),
                )
        return kinds, amounts
