"""A policy over batched observation vectors played as a bot: how the single
environment, the vector environment's table-by-table path and a match play an opponent
given as a policy (the vector environment's batch calls the policy itself, for many
tables at once: :class:`~dp_arena.envs.batch.players.PolicyPlayer`).

A policy is any callable ``policy(observations, masks) -> actions``: ``observations`` is
a float32 array of shape ``(rows, length)`` (the vectors of
:mod:`dp_arena.envs.encoding`), ``masks`` an int8 array of shape ``(rows, actions)``, and
the answer one discrete action index per row (:mod:`dp_arena.envs.discrete_actions`). It
must keep no state between calls: the batch asks it about many tables at once, in an
order of its own. Here it is asked about one decision at a time.

A **mixed** policy also has a method ``distribution(observations, masks)`` answering each
row's probabilities of the discrete actions, shape ``(rows, actions)`` (the learned
bot's softmax, say): it is played by them, as a mixed strategy the dealer draws from
(:func:`discrete_mix` makes a row's mix, the same way at one table and in the batch).

>>> import numpy as np
>>> from dp_arena.envs.discrete_actions import ActionTable
>>> def checks_or_calls(observations, masks):
...     return np.ones(len(observations), dtype=np.int64)
>>> bot = PolicyAgent(checks_or_calls, ActionTable(), "calls")
>>> from dp_arena.agents import SessionContext, observe
>>> from dp_arena.engine import Betting, TableRules, deck_for, new_hand
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> str(bot.act(observe(new_hand(rules, deck_for(1, 0, 0, 0), button=0), 0, SessionContext())))
'call'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dp_arena.agents.agent import Agent
from dp_arena.agents.observation import Observation
from dp_arena.agents.spec import load_agent
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.encoding import encode

__all__ = [
    "Opponent",
    "PolicyAgent",
    "discrete_mix",
    "is_policy",
    "opponent_agent",
    "policy_distribution",
]

# An opponent of the Gymnasium environments: an agent spec, an agent object, or a policy.
Opponent = str | Agent | Callable[[np.ndarray, np.ndarray], Any]


class PolicyAgent:
    """Plays ``policy`` (see the module docstring) over ``action_table``'s actions."""

    def __init__(
        self, policy: Callable[[np.ndarray, np.ndarray], Any], action_table: ActionTable, name: str
    ) -> None:
        self.policy = policy
        self.action_table = action_table
        self.name = name

    def __deepcopy__(self, memo: dict[int, Any]) -> PolicyAgent:
        return self  # a policy keeps no state: every table may ask the same one

    def act(self, observation: Observation) -> Action | Mix:
        legal = observation.legal()
        mask = self.action_table.mask_array(legal)
        pot, current_bet = observation.pot, observation.current_bet
        distribution = policy_distribution(self.policy)
        if distribution is not None:
            probabilities = np.asarray(
                distribution(encode(observation)[None, :], mask[None, :]), dtype=np.float64
            )
            if probabilities.shape != (1, self.action_table.size):
                raise TypeError(
                    f"policy {self.name}: expected probabilities of shape"
                    f" {(1, self.action_table.size)}, got {probabilities.shape}"
                )
            return discrete_mix(
                probabilities[0],
                mask,
                lambda index: self.action_table.to_action(
                    index, legal, pot=pot, current_bet=current_bet
                ),
            )
        answer = np.asarray(self.policy(encode(observation)[None, :], mask[None, :]))
        if answer.shape != (1,) or not np.issubdtype(answer.dtype, np.integer):
            raise TypeError(
                f"policy {self.name}: expected 1 integer action, got {answer.dtype} of shape"
                f" {answer.shape}"
            )
        return self.action_table.to_action(int(answer[0]), legal, pot=pot, current_bet=current_bet)


def policy_distribution(policy: object) -> Callable[[np.ndarray, np.ndarray], Any] | None:
    """A mixed policy's ``distribution`` method, or ``None`` for a policy of actions."""
    distribution = getattr(policy, "distribution", None)
    return distribution if callable(distribution) else None


def discrete_mix(
    probabilities: np.ndarray, mask: np.ndarray, to_action: Callable[[int], Action]
) -> Mix:
    """The mix of one decision from its discrete actions' probabilities: each action with a
    positive probability, in index order, adds it to the engine action it comes to
    (``to_action``; two raise sizes clipped to the same amount are one action, its
    probability their sum, at most 1: a float sum of a distribution's parts can come out a
    hair above it). A probability on an action the mask refuses, or probabilities that are
    not a distribution, raise :class:`ValueError` naming it."""
    entries: dict[Action, float] = {}
    for index in np.flatnonzero(probabilities).tolist():
        if not mask[index]:
            raise ValueError(
                f"probability {float(probabilities[index]):g} on action {index}, which is not"
                f" legal now; action_mask is {mask.tolist()}"
            )
        action = to_action(index)
        entries[action] = min(entries.get(action, 0.0) + float(probabilities[index]), 1.0)
    return Mix(entries)


def is_policy(opponent: object) -> bool:
    """Whether an opponent is a policy over batched observations: a callable that is not
    an agent (an agent answers ``act``) and not a spec."""
    return callable(opponent) and not hasattr(opponent, "act") and not isinstance(opponent, str)


def opponent_agent(opponent: Opponent, action_table: ActionTable) -> tuple[Agent, str]:
    """The agent that plays ``opponent``, and its name: a spec loaded afresh, an agent
    object as it is, a policy as a :class:`PolicyAgent`."""
    if isinstance(opponent, str):
        return load_agent(opponent), opponent
    if is_policy(opponent):
        name = getattr(opponent, "__name__", type(opponent).__name__)
        return PolicyAgent(opponent, action_table, name), name  # type: ignore[arg-type]
    return opponent, type(opponent).__name__  # type: ignore[return-value]
