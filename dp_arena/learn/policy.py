"""The linear softmax policy: one weight vector per discrete action, a logit per action
``w_a · features``, masked to the legal actions; saved as a small JSON file.

Its features are either those of a typed observation (:mod:`dp_arena.learn.features`,
``feature_set="observation"``) or those read from the environments' observation vectors
(:mod:`dp_arena.learn.vector_features`, ``feature_set="vector"``); a policy of the second
kind is also a policy over batched observations (``policy(observations, masks) ->
actions``, its greedy actions), which the vector environment's batch plays as an
opponent, one call for all its tables, exactly as the bot plays at one table.

>>> import numpy as np
>>> policy = LinearPolicy.zeros(raise_sizes=("min", 1, "all-in"))
>>> policy.weights.shape  # 5 actions (fold, check/call, 3 raises) x 54 features
(5, 54)
>>> probabilities = policy.probabilities(np.ones(54), np.array([0, 1, 1, 1, 1]))
>>> probabilities.tolist()  # untrained: uniform over the legal actions
[0.0, 0.25, 0.25, 0.25, 0.25]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dp_arena.envs.discrete_actions import DEFAULT_RAISE_SIZES, ActionTable, RaiseSize
from dp_arena.errors import AgentError
from dp_arena.learn import vector_features
from dp_arena.learn.features import FEATURE_NAMES

__all__ = ["FEATURE_SETS", "FORMAT", "LinearPolicy", "SoftmaxPolicy"]

# The feature sets a policy may weigh, by name: their features' names, in order.
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "observation": FEATURE_NAMES,
    "vector": vector_features.FEATURE_NAMES,
}

FORMAT = "dp-arena/linear-policy/v1"
MAX_FILE_BYTES = 16 * 1024 * 1024  # a policy file: a few kilobytes; more is not one
# The largest weight a policy file may hold: trained weights are of order 1, and with
# features of order 1 a logit stays far from overflowing into inf or NaN.
MAX_WEIGHT = 1e6


class LinearPolicy:
    """Weights of shape ``(actions, features)`` over the action table of ``raise_sizes``
    and the features of ``feature_set`` (:data:`FEATURE_SETS`)."""

    def __init__(
        self,
        weights: np.ndarray,
        raise_sizes: Sequence[RaiseSize],
        metadata: dict[str, Any] | None = None,
        feature_set: str = "observation",
    ):
        if feature_set not in FEATURE_SETS:
            raise ValueError(
                f"feature_set must be one of {list(FEATURE_SETS)}, not {feature_set!r}"
            )
        self.feature_set = feature_set
        self.feature_names = FEATURE_SETS[feature_set]
        self.actions = ActionTable(raise_sizes)
        expected = (self.actions.size, len(self.feature_names))
        if weights.shape != expected:
            raise ValueError(f"weights must have shape {expected}, not {weights.shape}")
        self.weights = np.asarray(weights, dtype=np.float64)
        self.raise_sizes = tuple(raise_sizes)
        self.metadata = dict(metadata or {})

    @classmethod
    def zeros(
        cls,
        raise_sizes: Sequence[RaiseSize] = DEFAULT_RAISE_SIZES,
        feature_set: str = "observation",
    ) -> LinearPolicy:
        """The untrained policy: every legal action equally likely."""
        table = ActionTable(raise_sizes)
        width = len(FEATURE_SETS[feature_set])
        return cls(np.zeros((table.size, width)), raise_sizes, feature_set=feature_set)

    def copy(self) -> LinearPolicy:
        """A frozen snapshot: the same weights, never changed by the original's training."""
        return LinearPolicy(
            self.weights.copy(), self.raise_sizes, dict(self.metadata), self.feature_set
        )

    def logits(self, rows: np.ndarray) -> np.ndarray:
        """Every action's logit for each row of features, shape ``(rows, actions)``: the
        products summed feature by feature, in one order for every row (a row's logits do
        not depend on the other rows of its batch, as a matrix product's might)."""
        logits = np.zeros((rows.shape[0], self.weights.shape[0]), dtype=np.float64)
        for column in range(self.weights.shape[1]):
            logits += rows[:, column, None] * self.weights[None, :, column]
        return logits

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The greedy legal action of each row of observation vectors (a policy over
        batched observations; ``feature_set="vector"`` only): the first of the largest
        logits among the actions of the row's mask."""
        if self.feature_set != "vector":
            raise TypeError("only a policy over vector features plays observation vectors")
        logits = self.logits(vector_features.features(observations))
        chosen: np.ndarray = np.where(masks.astype(bool), logits, -np.inf).argmax(axis=1)
        return chosen

    def softmax(self, rows: np.ndarray, masks: np.ndarray, temperature: float) -> np.ndarray:
        """Each row's softmax of its logits over ``temperature`` among the actions of its
        mask, shape ``(rows, actions)``: every operation is done row by row alike, so a
        row's probabilities do not depend on the other rows of its batch."""
        logits = self.logits(rows)
        legal = masks.astype(bool)
        best = np.where(legal, logits, -np.inf).max(axis=1, keepdims=True)
        exponentials = np.exp(np.where(legal, (logits - best) / temperature, -np.inf))
        shares: np.ndarray = exponentials / exponentials.sum(axis=1, keepdims=True)
        return shares

    def probabilities(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The softmax over the legal actions (``mask`` 1) of the logits ``weights @ features``."""
        logits = self.weights @ features
        legal = mask.astype(bool)
        shifted = np.where(legal, logits - logits[legal].max(), -np.inf)
        exponentials = np.exp(shifted)
        return exponentials / exponentials.sum()  # type: ignore[no-any-return]

    def best(self, features: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action (the first of equals: deterministic)."""
        logits = np.where(mask.astype(bool), self.weights @ features, -np.inf)
        return int(np.argmax(logits))

    # -- files -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "features": list(self.feature_names),
            "actions": list(self.actions.labels),
            "raise_sizes": list(self.raise_sizes),
            "weights": [[round(float(value), 6) for value in row] for row in self.weights],
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, source: str = "<policy>") -> LinearPolicy:
        """The policy of a file's JSON; :class:`AgentError` naming ``source`` and the
        field at fault when it is not a whole, finite policy of this version."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise AgentError(f"{source}: not a {FORMAT} file")
        feature_set = next(
            (name for name, names in FEATURE_SETS.items() if data.get("features") == list(names)),
            None,
        )
        if feature_set is None:
            raise AgentError(
                f"{source}: its features {str(data.get('features'))[:300]} are not those of"
                f" this version's feature sets {list(FEATURE_SETS)}"
            )
        raise_sizes = data.get("raise_sizes")
        if not isinstance(raise_sizes, list):
            raise AgentError(f"{source}: raise_sizes must be a list, not {raise_sizes!r:.80}")
        metadata = data.get("metadata", {})
        if metadata is not None and not isinstance(metadata, dict):
            raise AgentError(f"{source}: metadata must be an object, not {metadata!r:.80}")
        try:
            weights = np.array(data["weights"], dtype=np.float64)
        except KeyError:
            raise AgentError(f"{source}: weights are missing") from None
        except (TypeError, ValueError) as error:
            raise AgentError(f"{source}: weights must be a table of numbers: {error}") from None
        if weights.ndim == 2 and not np.isfinite(weights).all():
            row, column = (int(index) for index in np.argwhere(~np.isfinite(weights))[0])
            raise AgentError(
                f"{source}: weights[{row}][{column}] is {weights[row, column]}, not a number"
            )
        if weights.ndim == 2 and np.abs(weights).max(initial=0.0) > MAX_WEIGHT:
            row, column = (int(index) for index in np.argwhere(np.abs(weights) > MAX_WEIGHT)[0])
            raise AgentError(
                f"{source}: weights[{row}][{column}] = {weights[row, column]:g} is beyond"
                f" ±{MAX_WEIGHT:g}: not a trained policy"
            )
        try:
            return cls(weights, tuple(raise_sizes), metadata, feature_set)
        except (TypeError, ValueError) as error:  # ConfigError is a ValueError
            raise AgentError(f"{source}: {error}") from None

    def to_text(self) -> str:
        """The policy file's text (JSON), as :meth:`save` writes it."""
        return json.dumps(self.to_json(), indent=1) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_text())

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        """The policy in the file ``path``; :class:`AgentError` naming the file when it
        cannot be read or is not a policy (not JSON, truncated, tampered with)."""
        try:
            with Path(path).open("rb") as file:
                raw = file.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise AgentError(f"{path}: cannot read the policy: {error.strerror or error}") from None
        if len(raw) > MAX_FILE_BYTES:
            raise AgentError(f"{path}: not a policy: larger than {MAX_FILE_BYTES // 2**20} MiB")
        try:
            data = json.loads(raw)
        except ValueError as error:  # not UTF-8, or not JSON (a truncated file too)
            raise AgentError(f"{path}: cannot read the policy: not JSON ({error})") from None
        except RecursionError:
            raise AgentError(f"{path}: cannot read the policy: JSON nested too deeply") from None
        return cls.from_json(data, source=str(path))

    def fit(
        self, batches: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], ridge: float
    ) -> None:
        """Every action's value but folding's (worth 0 from now on) refitted by ridge
        regression of its targets on its feature rows, from ``batches`` of (feature rows,
        actions taken, targets; a NaN target is left out). An action taken fewer times
        than there are features keeps the value 0."""
        rows = np.concatenate([batch[0] for batch in batches])
        actions = np.concatenate([batch[1] for batch in batches])
        targets = np.concatenate([batch[2] for batch in batches])
        known = ~np.isnan(targets)
        rows, actions, targets = rows[known], actions[known], targets[known]
        width = rows.shape[1]
        squares = np.zeros((self.actions.size, width, width))
        products = np.zeros((self.actions.size, width))
        counts = np.zeros(self.actions.size, dtype=np.int64)
        for action in range(1, self.actions.size):
            chosen = actions == action
            x = rows[chosen]
            squares[action] = x.T @ x
            products[action] = x.T @ targets[chosen]
            counts[action] = chosen.sum()
        self.fit_sums(squares, products, counts, ridge)

    def fit_sums(
        self, squares: np.ndarray, products: np.ndarray, counts: np.ndarray, ridge: float
    ) -> None:
        """The same ridge fit from each action's sums over its decisions: ``squares[a]``
        (its feature rows' x.T @ x), ``products[a]`` (x.T @ targets) and ``counts[a]`` (how
        many), so a learner can add iterations' sums instead of keeping their rows."""
        width = self.weights.shape[1]
        weights = np.zeros_like(self.weights)
        for action in range(1, self.actions.size):  # folding is worth 0 from now on
            if counts[action] < width:
                continue  # too few decisions to fit: the action keeps the value 0
            weights[action] = np.linalg.solve(
                squares[action] + ridge * np.eye(width), products[action]
            )
        self.weights[:] = weights


class SoftmaxPolicy:
    """A policy over vector features played as a mixed strategy: a mixed policy over
    batched observations (:mod:`dp_arena.envs.policy_agent`) whose ``distribution`` is the
    softmax of the logits at ``temperature`` (:meth:`LinearPolicy.softmax`); called, it
    answers the greedy actions."""

    def __init__(self, policy: LinearPolicy, temperature: float) -> None:
        if policy.feature_set != "vector":
            raise TypeError("only a policy over vector features plays observation vectors")
        if not temperature > 0:
            raise ValueError(f"a temperature must be positive, not {temperature!r}")
        self.policy = policy
        self.temperature = temperature
        self.__name__ = f"softmax-{temperature:g}"

    def distribution(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.policy.softmax(vector_features.features(observations), masks, self.temperature)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.policy(observations, masks)
