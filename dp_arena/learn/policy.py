"""The linear softmax policy: one weight vector per discrete action, a logit per action
``w_a · features``, masked to the legal actions; saved as a small JSON file.

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
from dp_arena.learn.features import FEATURE_NAMES

__all__ = ["FORMAT", "LinearPolicy"]

FORMAT = "dp-arena/linear-policy/v1"
MAX_FILE_BYTES = 16 * 1024 * 1024  # a policy file: a few kilobytes; more is not one
# The largest weight a policy file may hold: trained weights are of order 1, and with
# features of order 1 a logit stays far from overflowing into inf or NaN.
MAX_WEIGHT = 1e6


class LinearPolicy:
    """Weights of shape ``(actions, features)`` over the action table of ``raise_sizes``."""

    def __init__(
        self,
        weights: np.ndarray,
        raise_sizes: Sequence[RaiseSize],
        metadata: dict[str, Any] | None = None,
    ):
        self.actions = ActionTable(raise_sizes)
        expected = (self.actions.size, len(FEATURE_NAMES))
        if weights.shape != expected:
            raise ValueError(f"weights must have shape {expected}, not {weights.shape}")
        self.weights = np.asarray(weights, dtype=np.float64)
        self.raise_sizes = tuple(raise_sizes)
        self.metadata = dict(metadata or {})

    @classmethod
    def zeros(cls, raise_sizes: Sequence[RaiseSize] = DEFAULT_RAISE_SIZES) -> LinearPolicy:
        """The untrained policy: every legal action equally likely."""
        table = ActionTable(raise_sizes)
        return cls(np.zeros((table.size, len(FEATURE_NAMES))), raise_sizes)

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
            "features": list(FEATURE_NAMES),
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
        if data.get("features") != list(FEATURE_NAMES):
            raise AgentError(
                f"{source}: its features {str(data.get('features'))[:300]}"
                f" are not this version's {list(FEATURE_NAMES)}"
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
            return cls(weights, tuple(raise_sizes), metadata)
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
