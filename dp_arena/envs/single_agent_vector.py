"""The native vector environment of :mod:`dp_arena.envs.single_agent`: ``num_envs``
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

It is fast because each table is played straight on the engine: no AEC bookkeeping, no
typed observation for the learner (``views()`` builds them on request), and the
built-in ``random`` and ``calling-station`` opponents are played natively
(:mod:`dp_arena.envs.native_opponents`, the same decisions without building their typed
observation). Any other opponent is played as the single env plays it, through its
typed observation and its hooks. ``infos`` holds ``"action_mask"`` (all zeros for a
table whose episode just ended).

``reward="duplicate"`` pays each deal's net minus the net of ``reference`` (an agent
spec) playing the same cards in the same seat at a shadow table, against its own copies
of the same opponents: the luck of the cards mostly cancels, the order of the actions'
values does not change, and unlike the mirrored tables of
:mod:`~dp_arena.envs.duplicate_holdem_v0` it is not 0 for a deterministic learner (only
for one that plays exactly as the reference).
"""

from __future__ import annotations

import copy
import operator
import os
from collections.abc import Sequence
from typing import Any, Unpack

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from dp_arena.agents.agent import Agent
from dp_arena.agents.observation import Observation, SessionContext
from dp_arena.agents.seat import InProcessSeat, SeatFault
from dp_arena.agents.spec import load_agent
from dp_arena.agents.table import observe as observe_actor
from dp_arena.engine import HandState, button_for_deal, deck_for, new_hand
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.encoding import encode_state
from dp_arena.envs.native_opponents import NATIVE_OPPONENTS, NativeOpponent
from dp_arena.envs.session_env import TableOptions
from dp_arena.envs.single_agent import check_opponents, tell_begin, tell_end
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason

__all__ = ["SingleAgentVectorEnv"]

_MAX_ENVS = 65_536


class SingleAgentVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """``num_envs`` tables of :class:`~dp_arena.envs.single_agent.SingleAgentEnv`; see
    the module docstring. ``native_opponents=False`` plays the built-in opponents through
    their typed observations too (the tests compare both ways)."""

    # Gymnasium reads ``metadata`` from the instance's type; this one is never mutated
    # (each instance sets its own copy with its autoreset mode).
    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        opponents: Sequence[str | Agent] = ("calling-station",),
        learner_seat: int = 0,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        native_opponents: bool = True,
        reward: str = "net",
        reference: str = "calling-station",
        **options: Unpack[TableOptions],
    ) -> None:
        self.tables: list[_Table] = []
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
        self.learner_seat = learner_seat
        self.single_observation_space = model.observation_space(learner)
        self.single_action_space = model.action_space(learner)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.reward = reward
        self.reference = reference
        for _ in range(num_envs):
            native, seats = _players(opponents, learner_seat, native_opponents)
            table = _Table(model, learner_seat, seats, native)
            if reward == "duplicate":
                # The shadow table: the reference in the learner's seat, its own copies of
                # the opponents, the same deals.
                shadow_native, shadow_seats = _players(
                    [*opponents[:learner_seat], reference, *opponents[learner_seat:]],
                    None,
                    native_opponents,
                )
                table.shadow = _Shadow(model, shadow_seats, shadow_native)
            self.tables.append(table)
        self._done = np.zeros(num_envs, dtype=bool)
        self._masks = np.zeros((num_envs, self.action_table.size), dtype=np.int8)
        self._mask_rows = {
            (can_fold, can_raise): tuple(
                int(value) for value in self.action_table.mask_array_for(can_fold, can_raise)
            )
            for can_fold in (False, True)
            for can_raise in (False, True)
        }
        self._closed_row = (0,) * self.action_table.size

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
            range(self.num_envs)
            if reset_mask is None
            else np.flatnonzero(np.asarray(reset_mask, dtype=bool)).tolist()
        )
        for index in chosen:
            self.tables[index].reset(seeds[index])
            self._done[index] = False
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step: {self.num_envs} actions expected, not shape {actions.shape}")
        mode = self.autoreset_mode
        if mode is AutoresetMode.DISABLED and self._done.any():
            index = int(np.flatnonzero(self._done)[0])
            raise ValueError(
                f"step: environment {index}'s episode is over; with autoreset disabled, reset"
                " it first (reset(options={'reset_mask': ...}))"
            )
        self._check(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        done = self._done
        for index, (table, action) in enumerate(zip(self.tables, actions.tolist(), strict=True)):
            if done[index]:  # NextStep: this step resets it; its action is ignored
                table.reset(None)
                done[index] = False
                continue
            rewards[index] = table.act(action)
            terminated[index] = table.done
        infos: dict[str, Any] = {}
        if mode is AutoresetMode.SAME_STEP and terminated.any():
            final = self._observations()
            for index in np.flatnonzero(terminated).tolist():
                self.tables[index].reset(None)
            infos["final_obs"] = final
            infos["_final_obs"] = terminated.copy()
            infos["final_info"] = {}
            infos["_final_info"] = terminated.copy()
        elif mode is not AutoresetMode.SAME_STEP:
            done |= terminated
        observations = self._observations()
        infos.update(self._infos())
        return observations, rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def close_extras(self, **kwargs: Any) -> None:
        for table in self.tables:
            seats = list(table.seats.values())
            if table.shadow is not None:
                seats += table.shadow.seats.values()
            for seat in seats:
                seat.close()

    # -- queries ---------------------------------------------------------------------

    def views(self) -> list[Observation | None]:
        """Each table's typed observation of the learner's decision (``None`` for a table
        whose session is over): what the single env's ``info["observation"]`` holds."""
        return [table.view() for table in self.tables]

    def action_masks(self) -> np.ndarray:
        """Every table's action mask, shape ``(num_envs, actions)`` (sb3-contrib's name)."""
        return self._masks.copy()

    @property
    def opponent_faults(self) -> list[tuple[int, int, SeatFault]]:
        """``(table, seat, fault)`` for every fault of an opponent so far."""
        return [
            (index, seat, fault)
            for index, table in enumerate(self.tables)
            for seat, fault in table.faults
        ]

    # -- internals -------------------------------------------------------------------

    def _check(self, actions: np.ndarray) -> None:
        """Refuse the whole step, before any table moves, when one action is masked."""
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
        bad = np.flatnonzero(~self._done & ~allowed)
        if bad.size:
            index = int(bad[0])
            hand = self.tables[index].hand
            try:
                self.action_table.to_action(
                    int(actions[index]),
                    hand.legal_actions(),
                    pot=hand.pot_total,
                    current_bet=hand.current_bet,
                )
            except IllegalActionError as error:
                raise IllegalActionError(
                    error.reason, f"environment {index}: {error}", action=int(actions[index])
                ) from None
            raise AssertionError("a masked action was accepted")  # the mask is the rules'

    def _observations(self) -> Any:
        rows = []
        masks = []
        mask_rows = self._mask_rows
        closed = self._closed_row
        for table in self.tables:
            rows.append(table.values())
            if table.done:
                masks.append(closed)
            else:
                legal = table.hand.legal_actions()
                masks.append(mask_rows[legal.can_fold, legal.min_raise_to is not None])
        vectors = np.array(rows, dtype=np.float32)
        self._masks = np.array(masks, dtype=np.int8)
        if self.flat:
            return vectors
        return {"observation": vectors, "action_mask": self._masks.copy()}

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": np.ones(self.num_envs, dtype=bool),
        }


REWARDS = ("net", "duplicate")


def _players(
    specs: Sequence[str | Agent], learner_seat: int | None, native_opponents: bool
) -> tuple[dict[int, NativeOpponent], dict[int, InProcessSeat]]:
    """The players of every seat but the learner's (all seats when it is ``None``):
    native where one stands for the spec, otherwise the loaded agent (a copy of an agent
    object, so that no two tables share a bot's state)."""
    seat_numbers = [
        seat for seat in range(len(specs) + (learner_seat is not None)) if seat != learner_seat
    ]
    native: dict[int, NativeOpponent] = {}
    loaded: dict[int, InProcessSeat] = {}
    for seat, spec in zip(seat_numbers, specs, strict=True):
        if native_opponents and isinstance(spec, str) and spec in NATIVE_OPPONENTS:
            native[seat] = NATIVE_OPPONENTS[spec]()
        else:
            if isinstance(spec, str):
                loaded[seat] = InProcessSeat(load_agent(spec), spec)
            else:  # an agent object: each table plays its own copy
                loaded[seat] = InProcessSeat(copy.deepcopy(spec), type(spec).__name__)
    return native, loaded


class _Shadow:
    """The duplicate reward's second table: the same deal, the reference policy in the
    learner's seat against its own copies of the opponents, played out by the bots."""

    __slots__ = ("faults", "native", "rules", "seats")

    def __init__(
        self,
        model: capped_holdem_v0.raw_env,
        seats: dict[int, InProcessSeat],
        native: dict[int, NativeOpponent],
    ) -> None:
        self.rules = model.rules
        self.seats = seats
        self.native = native
        self.faults: list[tuple[int, SeatFault]] = []

    def play(
        self,
        deck: tuple[int, ...],
        button: int,
        contexts: list[SessionContext],
        event: str,
        session: int,
        deal: int,
    ) -> tuple[int, ...]:
        """Play the deal to its end; every seat's net."""
        hand = new_hand(self.rules, deck, button=button)
        for seat, player in self.native.items():
            player.begin_deal(event, session, deal, seat)
        if self.seats:
            tell_begin(self.seats, hand, contexts, self.faults)
        while hand.actor is not None:
            actor = hand.actor
            native = self.native.get(actor)
            if native is not None:
                hand.apply(native.act(hand))
                continue
            legal = hand.legal_actions()
            answer = self.seats[actor].decide(observe_actor(hand, actor, contexts[actor]))
            if isinstance(answer, SeatFault):
                self.faults.append((actor, answer))
            hand.apply(legal.or_passive(answer))
        if self.seats:
            tell_end(self.seats, hand, contexts, self.faults)
        assert hand.payoffs is not None
        return hand.payoffs


class _Table:
    """One table of the vector environment: a session played straight on the engine."""

    __slots__ = (
        "action_table",
        "big_blind",
        "cap",
        "carried",
        "context_deal",
        "context_net",
        "contexts",
        "deal",
        "deals",
        "done",
        "event",
        "event_seed",
        "faults",
        "hand",
        "learner",
        "native",
        "nets",
        "pending",
        "reference_net",
        "rules",
        "seat_count",
        "seats",
        "session",
        "shadow",
    )

    def __init__(
        self,
        model: capped_holdem_v0.raw_env,
        learner_seat: int,
        seats: dict[int, InProcessSeat],
        native: dict[int, NativeOpponent],
    ) -> None:
        self.rules = model.rules
        self.seat_count = model.seat_count
        self.cap = model.cap
        self.big_blind = model.rules.big_blind
        self.deals = model.deals
        self.action_table = model.action_table
        self.learner = learner_seat
        self.seats = seats
        self.native = native
        self.faults: list[tuple[int, SeatFault]] = []
        self.event_seed: int | None = None
        self.event = ""
        self.session = 0
        self.deal = 0
        self.nets = [0] * self.seat_count
        self.contexts: list[SessionContext] = []
        self.context_deal = 0
        self.context_net = 0
        self.hand: HandState
        self.pending = 0.0
        self.carried = 0.0
        self.done = True
        self.shadow: _Shadow | None = None
        self.reference_net = 0

    def reset(self, seed: int | None) -> None:
        """Start a session as ``SingleAgentEnv.reset`` does, up to the learner's first
        decision (on to the next session when it has none in a whole one)."""
        if seed is not None:
            if isinstance(seed, bool) or not hasattr(seed, "__index__") or int(seed) < 0:
                raise ValueError(f"reset: seed must be a non-negative integer, not {seed!r}")
            self.event_seed = int(seed)
            self.session = 0
        elif self.event_seed is None:
            self.event_seed = int.from_bytes(os.urandom(8), "little") >> 1
            self.session = 0
        else:
            self.session += 1
        self.event = f"capped_holdem_v0:{self.event_seed}"
        while True:
            self.deal = 0
            self.nets = [0] * self.seat_count
            self.pending = 0.0
            self.done = False
            self._start_deal()
            self._play()
            if not self.done:
                break
            self.session += 1
        # Deals that ended before the learner's first decision are paid with it.
        self.carried = self.pending
        self.pending = 0.0

    def act(self, action: int) -> float:
        """Play the learner's discrete ``action`` and the opponents after it; the reward."""
        hand = self.hand
        hand.apply(
            self.action_table.to_action(
                action, hand.legal_actions(), pot=hand.pot_total, current_bet=hand.current_bet
            )
        )
        self._play()
        reward = self.carried + self.pending
        self.carried = 0.0
        self.pending = 0.0
        return reward

    def values(self) -> list[float]:
        return encode_state(
            self.hand, self.learner, self.context_deal, self.deals, self.context_net
        )

    def view(self) -> Observation | None:
        if self.done:
            return None
        return observe_actor(self.hand, self.learner, self._contexts()[self.learner])

    def _play(self) -> None:
        """Play the opponents (and deal on) until the learner is to act or the session ends."""
        learner = self.learner
        native = self.native
        seats = self.seats
        while True:
            hand = self.hand
            actor = hand.actor
            if actor is None:
                if seats:
                    tell_end(seats, hand, self.contexts, self.faults)
                payoffs = hand.payoffs
                assert payoffs is not None
                nets = self.nets
                for seat in range(self.seat_count):
                    nets[seat] += payoffs[seat]
                # The learner's net, or under the duplicate reward its net minus the
                # reference's on the same cards in the same seat.
                self.pending += (payoffs[learner] - self.reference_net) / self.big_blind
                self.deal += 1
                if self.deal == self.deals:
                    self.done = True
                    return
                self._start_deal()
                continue
            if actor == learner:
                return
            player = native.get(actor)
            if player is not None:
                hand.apply(player.act(hand))
                continue
            legal = hand.legal_actions()
            answer = seats[actor].decide(observe_actor(hand, actor, self.contexts[actor]))
            if isinstance(answer, SeatFault):
                self.faults.append((actor, answer))
            hand.apply(legal.or_passive(answer))

    def _start_deal(self) -> None:
        assert self.event_seed is not None
        deal = self.deal
        deck = deck_for(self.event_seed, 0, self.session, deal)
        button = button_for_deal(deal, self.seat_count)
        self.hand = new_hand(self.rules, deck, button=button)
        self.context_deal = deal
        self.context_net = self.nets[self.learner]
        for seat, player in self.native.items():
            player.begin_deal(self.event, self.session, deal, seat)
        self.contexts = []  # this deal's, built now for opponents that need them, else when asked
        if self.shadow is not None:
            nets = self.shadow.play(deck, button, self._contexts(), self.event, self.session, deal)
            self.reference_net = nets[self.learner]
        if self.seats:
            tell_begin(self.seats, self.hand, self._contexts(), self.faults)

    def _contexts(self) -> list[SessionContext]:
        """Every seat's context of the deal in play: as the single env builds them."""
        if self.contexts:
            return self.contexts
        nets = tuple(self.nets)  # the session nets before this deal: updated at its end
        starting = self.cap * self.deals
        self.contexts = [
            SessionContext(
                event=self.event,
                section=0,
                session=self.session,
                table=0,
                deal_number=self.deal,
                deals_in_session=self.deals,
                session_net=nets[seat],
                session_chips=starting + nets[seat],
                eliminating=False,
                table_session_nets=nets,
            )
            for seat in range(self.seat_count)
        ]
        return self.contexts
