"""RLlibBot: plays a policy trained by ``examples/rllib_train.py --export FILE``.

The file holds the policy network's layers as plain arrays; the bot encodes its typed
observation as the environment does (:func:`dp_arena.envs.encoding.encode`), runs the
layers with NumPy, and plays the legal discrete action with the largest logit
(deterministic, so a duplicate match replays it exactly). The file is ``RLLIB_POLICY``,
or ``rllib_policy.json`` beside this file::

    RLLIB_POLICY=rllib_policy.json dp-arena match examples/rllib_bot.py:RLlibBot random --trusted
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from dp_arena.agents import Observation
from dp_arena.engine import Action
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.encoding import encode

DEFAULT = Path(__file__).resolve().with_name("rllib_policy.json")
_ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
}


def mlp_logits(layers: list[dict[str, Any]], observations: np.ndarray) -> np.ndarray:
    """The exported network's logits for a batch of observation vectors."""
    values = np.asarray(observations, dtype=np.float64)
    for layer in layers:
        if "activation" in layer:
            values = _ACTIVATIONS[layer["activation"]](values)
        else:
            values = values @ np.asarray(layer["weight"]).T + np.asarray(layer["bias"])
    return values


class RLlibBot:
    def __init__(self, path: str | Path | None = None) -> None:
        source = Path(path or os.environ.get("RLLIB_POLICY") or DEFAULT)
        data = json.loads(source.read_text())
        if data.get("format") != "dp-arena/rllib-mlp/v1":
            raise ValueError(f"{source}: not an exported RLlib policy")
        self.layers = data["layers"]
        self.actions = ActionTable()

    def act(self, observation: Observation) -> Action:
        legal = observation.legal()
        mask = np.array(self.actions.mask(legal), dtype=bool)
        logits = mlp_logits(self.layers, encode(observation)[None, :])[0]
        index = int(np.argmax(np.where(mask, logits, -np.inf)))
        return self.actions.to_action(
            index, legal, pot=observation.pot, current_bet=observation.current_bet
        )
