"""The native vector environment of :mod:`dp_arena.envs.gym.single_agent`: ``num_envs``
tables, each one learner against fixed opponents, stepped together, with the
observations, masks and rewards of all of them in NumPy arrays.

Registered as the ``vector_entry_point`` of ``"dp_arena/CappedHoldem-v0"``::

    import gymnasium
    import dp_arena.envs

    envs = gymnasium.make_vec("dp_arena/CappedHoldem-v0", num_envs=64,
                              vectorization_mode="vector_entry_point", opponents=["random"])
    observations, infos = envs.reset(seed=0)       # table i plays event seed 0 + i
    observations, rewards, terminated, truncated, infos = envs.step(actions)

Every table is the single environment's game, step for step: the same rules and
arguments, the same decks for the same seed (table ``i`` of ``reset(seed=s)`` is
``SingleAgentEnv.reset(seed=s + i)``, as ``SyncVectorEnv`` seeds its copies; a reset
without a seed plays each table's next session), the same masks and rewards, the same
opponents' hooks. The tests play it beside ``SyncVectorEnv`` over the single env and
compare every array of every step. Gymnasium's three autoreset modes are supported
(``autoreset_mode``: ``"NextStep"``, the default, ``"SameStep"`` with ``final_obs`` in the
infos, and ``"Disabled"`` with ``reset(options={"reset_mask": ...})``).

How the tables are played (``batched`` says which way): against the built-in
``random``, ``calling-station``, ``aggressive`` and ``tag`` bots and policies over
the observation vectors (a learner's frozen snapshots: any callable
``policy(observations, masks) -> actions``), with the net reward, all tables are one batch
(:mod:`dp_arena.envs.batch.tables`): the rules stepped as NumPy arrays across tables
(:mod:`dp_arena.envs.batch.engine`), the decks of many deals shuffled together, the
showdown values read from the evaluator's tables, the observations and masks encoded as
arrays, each opponent deciding for every table where one of its seats is to act, one call
a step of the batch (:mod:`dp_arena.envs.batch.players`), and the learners' typed
observations built only on request (``views()``, by replaying the deal on the engine).
Any other line-up (the ``equity`` bot, a file's class, an agent object), the duplicate
reward, or ``native_opponents=False`` plays each table straight on the engine
(:mod:`dp_arena.envs.gym.vector_tables`): no AEC bookkeeping, no typed observation for the
learner, the built-in ``random`` and ``calling-station`` bots played natively
(:mod:`dp_arena.envs.native_opponents`), any other opponent through its typed
observation and hooks, as the single env plays it.
``infos`` holds ``"action_mask"``; a table whose episode just ended (its next step resets
it under the ``NextStep`` autoreset, and ignores its action) has the mask of check/call
alone, so every row has a legal action and a masked softmax over all rows stays finite.

``illegal_action="fallback"`` plays check/call (never masked) for a masked action instead
of refusing the step, and counts it: ``infos["illegal_action"]`` marks the tables whose
action was replaced this step, ``infos["illegal_actions"]`` counts them in each table's
episode (what plain PPO needs: it samples masked actions).

``reward="duplicate"`` pays each deal's net minus the net of ``reference`` (an agent
spec) playing the same cards in the same seat at a shadow table, against its own copies
of the same opponents: the luck of the cards mostly cancels, the order of the actions'
values does not change, and unlike the mirrored tables of
:mod:`~dp_arena.envs.duplicate_holdem_v0` it is not 0 for a deterministic learner (only
for one that plays exactly as the reference).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Protocol, Unpack

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from dp_arena.agents.observation import Observation
from dp_arena.agents.seat import SeatFault
from dp_arena.engine import LegalActions
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.batch.tables import BatchTables, batchable
from dp_arena.envs.deals import TableOptions
from dp_arena.envs.discrete_actions import CALL
from dp_arena.envs.gym.single_agent import check_opponents
from dp_arena.envs.gym.vector_tables import EngineTables
from dp_arena.envs.policy_agent import Opponent
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason

__all__ = ["SingleAgentVectorEnv"]

_MAX_ENVS = 65_536


class SingleAgentVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` tables of :class:`~dp_arena.envs.gym.single_agent.SingleAgentEnv`; see
    the module docstring. ``native_opponents=False`` plays the built-in opponents through
    their typed observations too, table by table (the tests compare the ways);
    ``batched`` tells whether the tables are played as one batch."""

    # Gymnasium reads ``metadata`` from the instance's type; this one is never mutated
    # (each instance sets its own copy with its autoreset mode).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        opponents: Sequence[Opponent] = ("calling-station",),
        learner_seat: int = 0,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        native_opponents: bool = True,
        reward: str = "net",
        reference: str = "calling-station",
        **options: Unpack[TableOptions],
    ) -> None:
        if (
            not isinstance(num_envs, int)
            or isinstance(num_envs, bool)
            or not 1 <= num_envs <= _MAX_ENVS
        ):
            raise ConfigError(
                f"num_envs must be an integer 1..{_MAX_ENVS:_}, not {num_envs!r}", field="num_envs"
            )
        num_players = check_opponents(opponents, learner_seat)
        if reward not in REWARDS:
            raise ConfigError(
                f"reward must be one of {list(REWARDS)}, not {reward!r}", field="reward"
            )
        if reward == "duplicate" and not isinstance(reference, str):
            raise ConfigError(
                f"reference must be an agent spec, not {reference!r}", field="reference"
            )
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ConfigError(
                f"autoreset_mode must be one of {[m.value for m in AutoresetMode]},"
                f" not {autoreset_mode!r}",
                field="autoreset_mode",
            ) from None
        # One table of the single env validates the arguments and gives rules and spaces.
        model = capped_holdem_v0.raw_env(num_players=num_players, **options)
        learner = model.agent_grid[0][learner_seat]
        self.num_envs = num_envs
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.flat = model.flat
        self.rules = model.rules
        self.deals = model.deals
        self.action_table = model.action_table
        self.illegal_action = model.illegal_action
        self.learner_seat = learner_seat
        self.single_observation_space = model.observation_space(learner)
        self.single_action_space = model.action_space(learner)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.reward = reward
        self.reference = reference
        self.batched = (
            native_opponents
            and reward == "net"
            and batchable(opponents, model.rules, model.action_table)
        )
        self.tables: _Tables
        if self.batched:
            self.tables = BatchTables(
                model.rules,
                model.deals,
                model.action_table,
                learner_seat,
                list(opponents),
                num_envs,
            )
        else:
            self.tables = EngineTables(
                model,
                learner_seat,
                opponents,
                num_envs,
                native_opponents=native_opponents,
                reward=reward,
                reference=reference,
            )
        self._done = np.zeros(num_envs, dtype=bool)
        self._masks = np.zeros((num_envs, self.action_table.size), dtype=np.int8)
        self._replaced = np.zeros(num_envs, dtype=bool)  # this step's fallbacks
        self._illegal_counts = np.zeros(num_envs, dtype=np.int64)  # this episode's

    # -- the VectorEnv interface -----------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every table (or those of ``options["reset_mask"]``): table ``i`` plays
        session 0 of event seed ``seed + i``; a list gives each table its seed; without
        one each table plays its next session."""
        seeds: list[int | None]
        if isinstance(seed, Sequence):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset: {len(seeds)} seeds for {self.num_envs} environments")
            super().reset(seed=None)
        else:
            base = None if seed is None else operator.index(seed)  # NumPy integers too
            super().reset(seed=base)
            seeds = [None if base is None else base + index for index in range(self.num_envs)]
        reset_mask = (options or {}).get("reset_mask")
        chosen = (
            list(range(self.num_envs))
            if reset_mask is None
            else np.flatnonzero(np.asarray(reset_mask, dtype=bool)).tolist()
        )
        self.tables.reset(chosen, [seeds[index] for index in chosen])
        self._done[chosen] = False
        self._replaced[:] = False
        self._illegal_counts[chosen] = 0
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step: {self.num_envs} actions expected, not shape {actions.shape}")
        mode = self.autoreset_mode
        done = self._done
        if mode is AutoresetMode.DISABLED and done.any():
            index = int(np.flatnonzero(done)[0])
            raise ValueError(
                f"step: environment {index}'s episode is over; with autoreset disabled, reset"
                " it first (reset(options={'reset_mask': ...}))"
            )
        actions = self._check(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        if done.any():  # NextStep: this step resets them; their actions are ignored
            over = np.flatnonzero(done)
            playing = np.flatnonzero(~done)
            self.tables.reset(over.tolist(), [None] * over.size)
            done[over] = False
            self._illegal_counts[over] = 0
        else:
            playing = np.arange(self.num_envs)
        if playing.size:
            rewards[playing], terminated[playing] = self.tables.act(
                playing, actions[playing].astype(np.int64)
            )
        infos: dict[str, Any] = {}
        if mode is AutoresetMode.SAME_STEP and terminated.any():
            final = self._observations()
            ended = np.flatnonzero(terminated).tolist()
            self.tables.reset(ended, [None] * len(ended))
            infos["final_obs"] = final
            infos["_final_obs"] = terminated.copy()
            # The ended tables' last infos; the step's infos are those of their reset.
            final_info = self._infos()
            for key in list(final_info):
                if not key.startswith("_"):
                    final_info[f"_{key}"] = terminated.copy()
            infos["final_info"] = final_info
            infos["_final_info"] = terminated.copy()
            self._replaced[ended] = False
            self._illegal_counts[ended] = 0
        elif mode is not AutoresetMode.SAME_STEP:
            done |= terminated
        observations = self._observations()
        infos.update(self._infos())
        return observations, rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def close_extras(self, **kwargs: Any) -> None:
        tables = self.__dict__.get("tables")  # none when the arguments were refused
        if tables is not None:
            tables.close()

    # -- queries ---------------------------------------------------------------------

    def views(self) -> list[Observation | None]:
        """Each table's typed observation of the learner's decision (``None`` for a table
        whose session is over): what the single env's ``info["observation"]`` holds."""
        return self.tables.views()

    def action_masks(self) -> np.ndarray:
        """Every table's action mask, shape ``(num_envs, actions)`` (sb3-contrib's name)."""
        return self._masks.copy()

    @property
    def opponent_faults(self) -> list[tuple[int, int, SeatFault]]:
        """``(table, seat, fault)`` for every fault of an opponent so far."""
        return self.tables.faults

    # -- internals -------------------------------------------------------------------

    def _check(self, actions: np.ndarray) -> np.ndarray:
        """The actions to play: refuse the whole step, before any table moves, when one
        action is masked, or (``illegal_action="fallback"``) play check/call for each
        masked one, counted."""
        if not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                IllegalReason.UNKNOWN_ACTION,
                f"step: actions must be integers, not {actions.dtype}",
                action=actions,
            )
        inside = (actions >= 0) & (actions < self.action_table.size)
        allowed = np.zeros(self.num_envs, dtype=bool)
        rows = np.flatnonzero(inside)
        allowed[rows] = self._masks[rows, actions[rows]] == 1
        masked = ~self._done & ~allowed
        self._replaced[:] = False
        if self.illegal_action == "fallback" and masked.any() and inside[masked].all():
            self._replaced[:] = masked
            self._illegal_counts += masked
            return np.where(masked, CALL, actions)
        bad = np.flatnonzero(masked)
        if bad.size:
            index = int(bad[0])
            legal, pot, current_bet = self.tables.legal(index)
            try:
                self.action_table.to_action(
                    int(actions[index]), legal, pot=pot, current_bet=current_bet
                )
            except IllegalActionError as error:
                raise IllegalActionError(
                    error.reason, f"environment {index}: {error}", action=int(actions[index])
                ) from None
            raise AssertionError("a masked action was accepted")  # the mask is the rules'
        return actions

    def _observations(self) -> Any:
        vectors, self._masks = self.tables.observations()
        # A table whose session is over: check/call alone (see the module docstring); at
        # the others check/call is always legal already.
        self._masks[:, CALL] = 1
        if self.flat:
            return vectors
        return {"observation": vectors, "action_mask": self._masks.copy()}

    def _infos(self) -> dict[str, Any]:
        infos = {
            "action_mask": self._masks.copy(),
            "_action_mask": np.ones(self.num_envs, dtype=bool),
        }
        if self.illegal_action == "fallback":
            every = np.ones(self.num_envs, dtype=bool)
            infos["illegal_action"] = self._replaced.copy()
            infos["_illegal_action"] = every
            infos["illegal_actions"] = self._illegal_counts.copy()
            infos["_illegal_actions"] = every.copy()
        return infos


REWARDS = ("net", "duplicate")


class _Tables(Protocol):
    """What the environment asks of its tables (:class:`BatchTables`, :class:`EngineTables`)."""

    def reset(self, rows: Sequence[int], seeds: Sequence[int | None]) -> None: ...

    def act(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def observations(self) -> tuple[np.ndarray, np.ndarray]: ...

    def legal(self, row: int) -> tuple[LegalActions, int, int]: ...

    def views(self) -> list[Observation | None]: ...

    @property
    def faults(self) -> list[tuple[int, int, SeatFault]]: ...

    def close(self) -> None: ...
