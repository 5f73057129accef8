"""The Gymnasium single-agent wrapper: one learner against fixed opponents, given as
agent specs and run in-process, at one capped table.

The learner sits at ``learner_seat``; every other seat holds one of ``opponents``
(``"random"``, ``"calling-station"``, ``"path/bot.py:Class"``…), loaded with
:func:`dp_arena.agents.load_agent` and played exactly as a table plays them: their
hooks (``begin_session``, ``begin_deal``, ``end_deal``) are called, and an exception or
an illegal answer is replaced by a check-or-fold. Observations, actions, masks and
rewards are those of :mod:`dp_arena.envs.capped_holdem_v0` for the learner's agent; a
step's reward is the learner's net, in big blinds, of every deal that ended since its
previous decision. An episode is one session; ``terminated`` is set when it ends.

Registered with Gymnasium as ``"dp_arena/CappedHoldem-v0"``::

    import gymnasium
    import dp_arena.envs

    env = gymnasium.make("dp_arena/CappedHoldem-v0", opponents=["random", "calling-station"])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import gymnasium
import numpy as np

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import InProcessSeat, SeatFault
from dp_arena.agents.table import played
from dp_arena.engine import HandState
from dp_arena.engine.mixes import MixDraws
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.deals import TableOptions
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.policy_agent import Opponent, opponent_agent
from dp_arena.errors import ConfigError

__all__ = [
    "ENV_ID",
    "SingleAgentEnv",
    "check_opponents",
    "load_opponents",
    "tell_begin",
    "tell_end",
]

ENV_ID = "dp_arena/CappedHoldem-v0"


class SingleAgentEnv(gymnasium.Env[Any, int]):
    """One learner against fixed opponents; see the module docstring."""

    # Gymnasium declares ``metadata`` as an attribute of the instance's type, so it is not
    # annotated ClassVar here; like every Env's, it is shared and never mutated.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[Opponent] = ("calling-station",),
        learner_seat: int = 0,
        render_mode: str | None = None,
        **options: Unpack[TableOptions],
    ) -> None:
        num_players = check_opponents(opponents, learner_seat)
        self.table = capped_holdem_v0.raw_env(
            num_players=num_players, render_mode=render_mode, **options
        )
        self.render_mode = render_mode
        self.learner_seat = learner_seat
        self.learner = self.table.agent_grid[0][learner_seat]
        self.seats = load_opponents(opponents, learner_seat, self.table.action_table)
        self.table.deal_listeners.append(self._on_deal)
        self.observation_space = self.table.observation_space(self.learner)
        self.action_space = self.table.action_space(self.learner)
        self.opponent_faults: list[tuple[int, SeatFault]] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self.table.reset(seed=seed)
        self._play_opponents()
        # Every session has a decision of the learner's: it is first to act before the
        # flop at least once a round, and a table where no one ever acts is refused.
        assert not self.table.terminations[self.learner], "a session without a decision"
        info = dict(self.table.infos[self.learner])
        if self.table.illegal_action == "fallback":
            info["illegal_action"] = False
        return self._observe(), info

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        table = self.table
        # Deals that ended before the learner's first decision of the session (the
        # opponents folded to it) are paid with that first decision's reward.
        carried = float(table._cumulative_rewards[self.learner])
        table.step(action)
        replaced = table.last_illegal
        self._play_opponents()
        reward = carried + float(table._cumulative_rewards[self.learner])
        terminated = table.terminations[self.learner]
        if terminated:
            # The mask is always in the info; at the end, check/call alone (see
            # action_masks), so that a masked softmax over it stays finite.
            info: dict[str, Any] = {"action_mask": self.action_masks()}
            if table.illegal_action == "fallback":
                info["illegal_actions"] = table.illegal_actions[self.learner]
        else:
            table._cumulative_rewards[self.learner] = 0.0  # paid out now, not again
            info = dict(table.infos[self.learner])
        if table.illegal_action == "fallback":
            info["illegal_action"] = replaced
        return self._observe(), reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's action mask now: the method sb3-contrib's ``MaskablePPO`` calls;
        the same mask as ``info["action_mask"]``. Once the episode is over no action is
        left, and the mask allows check/call alone (the action a vector env's autoreset
        ignores): every mask has a legal action, so a masked softmax never divides by
        zero."""
        if self.table.terminations[self.learner]:
            return self.table.action_table.mask_array_for(False, False)
        return self.table.action_mask(self.learner)

    def _observe(self) -> Any:
        observation = self.table.observe(self.learner)
        if not self.table.flat and self.table.terminations[self.learner]:
            observation["action_mask"] = self.action_masks()
        return observation

    # Gymnasium annotates ``Env.render`` with a type variable bound to nothing, which no
    # concrete return type can override; ours renders text ("ansi") or prints ("human").
    def render(self) -> str | None:  # type: ignore[override]
        return self.table.render()

    def close(self) -> None:
        for seat in self.seats.values():
            seat.close()

    # -- the opponents ---------------------------------------------------------------

    def _play_opponents(self) -> None:
        table = self.table
        while not table.terminations[self.learner] and table.agent_selection != self.learner:
            agent = table.agent_selection
            table_index, seat = table.seat_of[agent]
            observation: Observation = table.infos[agent]["observation"]
            answer = self.seats[seat].decide(observation)
            legal = observation.legal()
            if isinstance(answer, SeatFault):
                self.opponent_faults.append((seat, answer))
            # As at a real table: a fault or an illegal answer costs the bot this decision,
            # and a mixed answer is drawn as a dealer draws it.
            assert table.event_seed is not None
            draws = MixDraws(table.event_seed, 0, table.session, table_index)
            decision = len(observation.history)
            table.step(played(answer, legal, draws, table.deal, decision))

    def _on_deal(
        self, event: str, table_index: int, hand: HandState, contexts: Sequence[SessionContext]
    ) -> None:
        if event == "begin":
            tell_begin(self.seats, hand, contexts, self.opponent_faults)
        else:
            tell_end(self.seats, hand, contexts, self.opponent_faults)


def check_opponents(opponents: Sequence[Opponent], learner_seat: int) -> int:
    """The table's number of players; :class:`ConfigError` for bad opponents or seat."""
    if isinstance(opponents, str) or not opponents:
        raise ConfigError(
            f"opponents must be a list of agent specs, not {opponents!r}", field="opponents"
        )
    num_players = len(opponents) + 1
    if (
        not isinstance(learner_seat, int)
        or isinstance(learner_seat, bool)
        or not 0 <= learner_seat < num_players
    ):
        raise ConfigError(
            f"learner_seat must be a seat 0..{num_players - 1}, not {learner_seat!r}",
            field="learner_seat",
        )
    return num_players


def load_opponents(
    opponents: Sequence[Opponent], learner_seat: int, action_table: ActionTable
) -> dict[int, InProcessSeat]:
    """The opponents' seats, every seat but the learner's in order, each agent loaded
    afresh from its spec (an agent object is seated as it is, a policy over the
    observation vectors as a :class:`~dp_arena.envs.policy_agent.PolicyAgent`)."""
    num_players = check_opponents(opponents, learner_seat)
    others = [seat for seat in range(num_players) if seat != learner_seat]
    seats: dict[int, InProcessSeat] = {}
    for seat, opponent in zip(others, opponents, strict=True):
        agent, name = opponent_agent(opponent, action_table)
        seats[seat] = InProcessSeat(agent, name)
    return seats


def tell_begin(
    seats: dict[int, InProcessSeat],
    hand: HandState,
    contexts: Sequence[SessionContext],
    faults: list[tuple[int, SeatFault]],
) -> None:
    """Tell each opponent that a deal (and, on deal 0, a session) begins."""
    for seat, player in seats.items():
        context = contexts[seat]
        if context.deal_number == 0:
            _tell(seat, player.begin_session(context), faults)
        if player.has_hook("begin_deal"):
            hole = hand.hole_cards[seat]
            assert hole is not None
            start = DealStart(seat, hand.seat_count, hand.button, hole, context)
            _tell(seat, player.begin_deal(start), faults)


def tell_end(
    seats: dict[int, InProcessSeat],
    hand: HandState,
    contexts: Sequence[SessionContext],
    faults: list[tuple[int, SeatFault]],
) -> None:
    """Tell each opponent how the deal ended: the nets, the board, the cards shown."""
    payoffs = hand.payoffs
    assert payoffs is not None
    for seat, player in seats.items():
        if not player.has_hook("end_deal"):
            continue
        shown = tuple(
            hand.hole_cards[other] if other in hand.showdown_values else None
            for other in range(hand.seat_count)
        )
        end = DealEnd(
            seat=seat,
            net=payoffs[seat],
            nets=payoffs,
            board=hand.board if hand.showdown_values else hand.visible_board,
            shown_cards=shown,
            history=tuple(hand.history),
            context=contexts[seat],
        )
        _tell(seat, player.end_deal(end), faults)


def _tell(seat: int, fault: SeatFault | None, faults: list[tuple[int, SeatFault]]) -> None:
    if fault is not None:
        faults.append((seat, fault))
