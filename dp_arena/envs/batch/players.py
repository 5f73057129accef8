"""The opponents of the vector environment's batch: each decides for every table whose
turn it is at one of its seats, with array operations, exactly as its bot decides at one
table (the tests play each beside its bot, decision for decision).

- ``calling-station`` calls any bet and checks otherwise.
- ``random`` (``agents/random_bot.py``) answers its mix, which the batch draws from as a
  dealer draws it, for all tables at once.
- ``aggressive`` (``agents/aggressive.py``) raises by a drawn share of the pot while it
  may; its draws come from a Mersenne Twister per table and seat, seeded from the deal's
  text as the bot seeds it, at the first raise of the deal (a Python loop over the raises).
- ``tag`` (``agents/tag.py``): :mod:`dp_arena.envs.batch.tag`.
- A **policy** over the observation vectors: any callable ``policy(observations, masks)
  -> actions`` (a frozen snapshot of a learner, say), called once per step of the batch
  with the vectors and masks of every table where one of its seats is to act; a mixed
  policy answers probabilities instead (:mod:`dp_arena.envs.policy_agent`), each row's
  mix drawn as a dealer draws it.

A player whose decisions depend only on the deal in play (not on the session's nets)
lets the batch leave a deal the learner folded out of unplayed (``leaves``); a policy
sees its session net in its observation, so the deals go on where one plays.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from dp_arena.agents.seat import SeatFault
from dp_arena.agents.uniform import RAISE_SIZES
from dp_arena.engine.actions import Action, ActionKind
from dp_arena.engine.mixes import UNIT, draw_numbers
from dp_arena.envs.batch.encoding import encode_rows, row_masks
from dp_arena.envs.batch.engine import CALL, CHECK, FOLD, RAISE
from dp_arena.envs.policy_agent import discrete_mix, is_policy, policy_distribution
from dp_arena.results import FaultKind

if TYPE_CHECKING:
    from dp_arena.envs.batch.tables import BatchTables

__all__ = [
    "BatchPlayer",
    "CallingStationPlayer",
    "Policy",
    "PolicyPlayer",
    "RandomPlayer",
    "Stateless",
    "is_policy",
]

# A policy over batched observations: (observations, masks) -> one action index per row.
Policy = Callable[[np.ndarray, np.ndarray], Any]

# The legal kinds for each permission pattern (fold 8, check 4, call 2, raise 1), in the
# order of LegalActions.kinds, padded, and how many there are.
_KIND_LISTS = np.zeros((16, 4), dtype=np.int64)
_KIND_COUNTS = np.zeros(16, dtype=np.int64)
for _bits in range(16):
    _kinds = [code for code, bit in ((FOLD, 8), (CHECK, 4), (CALL, 2), (RAISE, 1)) if _bits & bit]
    _KIND_LISTS[_bits, : len(_kinds)] = _kinds
    _KIND_COUNTS[_bits] = len(_kinds)


_ACTION_KINDS = {
    FOLD: ActionKind.FOLD,
    CHECK: ActionKind.CHECK,
    CALL: ActionKind.CALL,
    RAISE: ActionKind.RAISE,
}
_ACTION_CODES = {kind: code for code, kind in _ACTION_KINDS.items()}


class BatchPlayer(Protocol):
    """One opponent of the batch, at one or more seats; see the module docstring."""

    leaves: bool
    # Whether its answers are checked against the masks before they are played (the
    # batch's engine then does not check them again).
    checked: bool

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


class Stateless:
    """A batch player that keeps nothing between sessions or deals (its hooks do
    nothing); it leaves a deal the learner folded out of unplayed."""

    leaves = True
    checked = False

    def __init__(self, tables: int, seats: int) -> None:
        return None

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None


class CallingStationPlayer(Stateless):
    """``agents/calling_station.py``: calls any bet, checks otherwise."""

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return calls(tables, rows), np.zeros(rows.size, dtype=np.int64)


class RandomPlayer(Stateless):
    """``agents/random_bot.py`` at every table and seat at once: its mix
    (:func:`~dp_arena.agents.uniform.uniform_mix`: every legal kind alike, a raise's share
    spread over :data:`~dp_arena.agents.uniform.RAISE_SIZES` amounts from the minimum to
    the maximum), drawn as a dealer draws it. The mixes' weights and the entries drawn are
    arrays; the number each decision draws is read from its own stream
    (:func:`~dp_arena.engine.mixes.draw_numbers`, one hash a decision)."""

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        permissions = batch.permissions[rows]
        counts = _KIND_COUNTS[permissions]
        raising = permissions & 1
        low, high = batch.min_raise_to[rows], batch.max_raise_to[rows]
        # raise_amounts: low + (2 i (high - low) + steps) // (2 steps), i = 0 .. steps,
        # nondecreasing; the distinct ones, in order, are the mix's raises.
        steps = RAISE_SIZES - 1
        grid = low[:, None] + (2 * np.arange(RAISE_SIZES) * (high - low)[:, None] + steps) // (
            2 * steps
        )
        first = np.ones(grid.shape, dtype=bool)
        first[:, 1:] = grid[:, 1:] != grid[:, :-1]
        distinct = np.where(raising == 1, first.sum(axis=1), 0)
        # A kind's probability is 1/k and a raise's 1/(k n), each kept in billionths
        # rounded to the nearest (never a half: k n < 2**10 never leaves one).
        plain = counts - raising
        kind_weight = (2 * UNIT + counts) // (2 * counts)
        shares = counts * np.maximum(distinct, 1)
        raise_weight = (2 * UNIT + shares) // (2 * shares)
        totals = plain * kind_weight + distinct * raise_weight
        numbers = np.zeros(rows.size, dtype=np.int64)
        # A mix of one action is that action, without a draw.
        drawing = ((plain + distinct) > 1).nonzero()[0]
        if drawing.size:
            drawn = rows[drawing]
            prefixes = tables.mix_prefixes
            materials = [
                f"{prefixes[row]}{deal}:{decision}".encode()
                for row, deal, decision in zip(
                    drawn.tolist(),
                    tables.deal[drawn].tolist(),
                    batch.log_length[drawn].tolist(),
                    strict=True,
                )
            ]
            numbers[drawing] = draw_numbers(totals[drawing].tolist(), materials)
        plain_total = plain * kind_weight
        kinds = _KIND_LISTS[permissions, np.minimum(numbers // kind_weight, 3)]
        amounts = np.zeros(rows.size, dtype=np.int64)
        raised = (numbers >= plain_total).nonzero()[0]
        if raised.size:
            kinds[raised] = RAISE
            place = (numbers[raised] - plain_total[raised]) // raise_weight[raised]
            # The place-th distinct amount of the row's grid.
            rank = np.cumsum(first[raised], axis=1) - 1
            column = (first[raised] & (rank == place[:, None])).argmax(axis=1)
            amounts[raised] = grid[raised, column]
        return kinds, amounts


class AggressivePlayer:
    """``agents/aggressive.py`` with its defaults (two raises a street, seed 0)."""

    leaves = True
    checked = False
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
    check-or-fold, as a table plays a bot's illegal answer. A mixed policy (one with a
    ``distribution`` method: :func:`~dp_arena.envs.policy_agent.policy_distribution`)
    answers each row with its probabilities, which become the row's mix
    (:func:`~dp_arena.envs.policy_agent.discrete_mix`, as the bot makes it at one table)
    and are drawn as a dealer draws them."""

    leaves = False  # its observation holds its session net: every deal is played out
    checked = True  # an answer the masks forbid is a fault, played as check-or-fold

    def __init__(self, policy: Policy, name: str) -> None:
        self.policy = policy
        self.name = name
        self.distribution = policy_distribution(policy)

    def start_sessions(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def start_deals(self, tables: BatchTables, rows: np.ndarray) -> None:
        return None

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        action_table = tables.action_table
        nets = tables.nets.reshape(-1).take(rows * tables.seat_count + seats)
        vectors = encode_rows(batch, rows, seats, tables.deal[rows], tables.deals, nets)
        masks = row_masks(batch, rows, action_table.size)
        if self.distribution is not None:
            return self._draw(tables, rows, seats, self.distribution(vectors, masks), masks)
        answer = np.asarray(self.policy(vectors, masks))
        if answer.shape != (rows.size,) or answer.dtype.kind not in "iu":  # integers
            raise TypeError(
                f"policy opponent {self.name}: expected {rows.size} integer actions, got"
                f" {answer.dtype} of shape {answer.shape}"
            )
        size = action_table.size
        inside = (answer >= 0) & (answer < size)
        # Each answer's mask entry (an answer outside the actions reads entry 0: not legal).
        picked = np.where(inside, answer, 0).astype(np.intp, copy=False)
        cells = np.arange(0, rows.size * size, size) + picked
        legal = inside & (masks.reshape(-1).take(cells) == 1)
        every = np.count_nonzero(legal) == rows.size
        actions = (answer if every else np.where(legal, answer, 1)).astype(np.int64, copy=False)
        kinds, amounts = tables.discrete(rows, actions)
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

    def _draw(
        self,
        tables: BatchTables,
        rows: np.ndarray,
        seats: np.ndarray,
        answer: object,
        masks: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The actions drawn from a mixed policy's probabilities at ``rows``."""
        size = tables.action_table.size
        probabilities = np.asarray(answer, dtype=np.float64)
        if probabilities.shape != (rows.size, size):
            raise TypeError(
                f"policy opponent {self.name}: expected probabilities of shape"
                f" {(rows.size, size)}, got {probabilities.shape}"
            )
        # Every legal discrete action's engine action at every row, found at once.
        codes = np.zeros((rows.size, size), dtype=np.int64)
        raise_to = np.zeros((rows.size, size), dtype=np.int64)
        for action in range(size):
            lines = (masks[:, action] == 1).nonzero()[0]
            if lines.size:
                codes[lines, action], raise_to[lines, action] = tables.discrete(
                    rows[lines], np.full(lines.size, action, dtype=np.int64)
                )
        kinds = passive(tables, rows)
        amounts = np.zeros(rows.size, dtype=np.int64)
        decisions = tables.batch.log_length[rows].tolist()
        for index, row in enumerate(rows.tolist()):
            to_action = functools.partial(
                _engine_action, codes[index].tolist(), raise_to[index].tolist()
            )
            try:
                mix = discrete_mix(probabilities[index], masks[index], to_action)
            except ValueError as error:
                fault = SeatFault(FaultKind.ERROR, f"policy {self.name}: {error}")
                tables.fault(row, int(seats[index]), fault)
                continue
            drawn = tables.draws[row].action(mix, int(tables.deal[row]), decisions[index])
            kinds[index] = _ACTION_CODES[drawn.kind]
            amounts[index] = drawn.amount or 0
        return kinds, amounts


def _engine_action(codes: list[int], raise_to: list[int], action: int) -> Action:
    """The engine action of discrete ``action`` from a row's codes and raise-to amounts."""
    code = codes[action]
    return Action(_ACTION_KINDS[code], raise_to[action] if code == RAISE else None)
