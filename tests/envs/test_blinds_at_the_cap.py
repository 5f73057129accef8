"""Tables whose blinds reach the cap: heads-up with small blind = big blind = cap no one
ever acts, and every environment refuses it up front, naming the cap; with the big
blind at the cap and any other seat count or a smaller small blind, every session gives
the learner a decision and plays to its end (docs/envs.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.envs import SingleAgentEnv, capped_holdem_v0, duplicate_holdem_v0
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.errors import ConfigError

_EVERY_ENV: dict[str, Callable[..., Any]] = {
    "capped_holdem_v0": lambda **kw: capped_holdem_v0.env(num_players=2, **kw),
    "duplicate_holdem_v0": lambda **kw: duplicate_holdem_v0.env(num_players=2, tables=3, **kw),
    "SingleAgentEnv": lambda **kw: SingleAgentEnv(opponents=["random"], **kw),
    "gymnasium.make": lambda **kw: gymnasium.make(ENV_ID, opponents=["random"], **kw),
    "vector, batched": lambda **kw: SingleAgentVectorEnv(num_envs=4, opponents=["random"], **kw),
    "vector, table by table": lambda **kw: SingleAgentVectorEnv(
        num_envs=4, opponents=["random"], native_opponents=False, **kw
    ),
    "vector, duplicate reward": lambda **kw: SingleAgentVectorEnv(
        num_envs=4, opponents=["random"], reward="duplicate", **kw
    ),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("make", _EVERY_ENV.values(), ids=_EVERY_ENV.keys())
def test_heads_up_with_both_blinds_at_the_cap_is_refused_naming_the_cap(
    make: Callable[..., Any],
) -> None:
    # Before the refusal the Gymnasium environments' reset looked for a session with a
    # decision of the learner's for ever, and the AEC environments dealt every deal to
    # the showdown at once (deal after deal, until the recursion gave out).
    with pytest.raises(ConfigError, match="no deal ever gives a player a decision") as caught:
        env = make(cap=20, blinds=(20, 20), deals=400)
        env.reset(seed=0)
    assert caught.value.field == "cap"
    assert "cap 20 with blinds 20/20" in str(caught.value)


def _blinds_at_the_cap() -> list[tuple[int, tuple[int, int]]]:
    """Every seat count with the big blind at the cap (20), but the one refused."""
    return [
        (players, blinds)
        for players in range(2, 11)
        for blinds in ((10, 20), (20, 20))
        if (players, blinds) != (2, (20, 20))
    ]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("players", "blinds"), _blinds_at_the_cap())
def test_with_the_big_blind_at_the_cap_every_seat_has_decisions(
    players: int, blinds: tuple[int, int]
) -> None:
    # The learner is first to act before the flop once a round (the button heads-up, the
    # seat left of the big blind otherwise), with chips to call or fold.
    for learner_seat in range(players):
        env = SingleAgentEnv(
            opponents=["random"] * (players - 1),
            learner_seat=learner_seat,
            cap=20,
            blinds=blinds,
        )
        _, info = env.reset(seed=learner_seat)
        assert info["action_mask"][1] == 1
        total, terminated = 0.0, False
        while not terminated:
            _, reward, terminated, _, info = env.step(1)
            total += reward
        assert total == pytest.approx(env.table.session_nets[0][learner_seat] / 20)
    for native_opponents in (True, False):
        envs = SingleAgentVectorEnv(
            num_envs=8,
            opponents=["random"] * (players - 1),
            learner_seat=players - 1,
            native_opponents=native_opponents,
            autoreset_mode="SameStep",
            cap=20,
            blinds=blinds,
        )
        assert envs.batched is native_opponents
        _, infos = envs.reset(seed=3)
        ended = np.zeros(8, dtype=bool)
        for _ in range(4 * players):
            # Calling is legal at every table (a session that ends starts the next at
            # once), and every session ends.
            assert (infos["action_mask"][:, 1] == 1).all()
            _, _, terminated, _, infos = envs.step(np.ones(8, dtype=np.int64))
            ended |= terminated
        assert ended.all()
