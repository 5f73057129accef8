"""The tables of the vector environment played one at a time, each straight on the
engine: the general way, for any opponents and either reward (the batch of
:mod:`dp_arena.envs.batch.tables` covers the built-in ``random`` and
``calling-station`` opponents with the net reward).

Each :class:`_Table` plays a session as ``SingleAgentEnv`` does, without the AEC
bookkeeping and without a typed observation for the learner (built only for
``views()``); the built-in ``random`` and ``calling-station`` opponents are played
natively (:mod:`dp_arena.envs.native_opponents`), any other through its typed
observation and hooks. Under ``reward="duplicate"`` each deal is also played at a
shadow table, the reference in the learner's seat.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from dp_arena.agents.observation import Observation, SessionContext
from dp_arena.agents.seat import InProcessSeat, SeatFault
from dp_arena.agents.table import observe as observe_actor
from dp_arena.agents.table import played
from dp_arena.engine import HandState, LegalActions, button_for_deal, deck_for, new_hand
from dp_arena.engine.mixes import MixDraws
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.deals import deal_contexts, next_session
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.encoding import encode_state
from dp_arena.envs.gym.single_agent import tell_begin, tell_end
from dp_arena.envs.native_opponents import NATIVE_OPPONENTS, NativeOpponent
from dp_arena.envs.policy_agent import Opponent, opponent_agent

__all__ = ["EngineTables"]


class EngineTables:
    """``count`` tables of one learner against ``opponents``, each on its own engine hand."""

    def __init__(
        self,
        model: capped_holdem_v0.raw_env,
        learner_seat: int,
        opponents: Sequence[Opponent],
        count: int,
        *,
        native_opponents: bool,
        reward: str,
        reference: str,
    ) -> None:
        self.tables: list[_Table] = []
        for _ in range(count):
            native, seats = _players(opponents, learner_seat, native_opponents, model.action_table)
            table = _Table(model, learner_seat, seats, native)
            if reward == "duplicate":
                # The shadow table: the reference in the learner's seat, its own copies of
                # the opponents, the same deals.
                shadow_native, shadow_seats = _players(
                    [*opponents[:learner_seat], reference, *opponents[learner_seat:]],
                    None,
                    native_opponents,
                    model.action_table,
                )
                table.shadow = _Shadow(model, shadow_seats, shadow_native)
            self.tables.append(table)
        size = model.action_table.size
        self._mask_rows = {
            (can_fold, can_raise): tuple(
                int(value) for value in model.action_table.mask_array_for(can_fold, can_raise)
            )
            for can_fold in (False, True)
            for can_raise in (False, True)
        }
        self._closed_row = (0,) * size

    def reset(self, rows: Sequence[int], seeds: Sequence[int | None]) -> None:
        # Every seed is checked before any table changes.
        following = [
            next_session(seed, self.tables[row].event_seed, self.tables[row].session)
            for row, seed in zip(rows, seeds, strict=True)
        ]
        for row, (event_seed, session) in zip(rows, following, strict=True):
            self.tables[row].start(event_seed, session)

    def act(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play the learner's ``actions`` at ``rows``; their rewards and terminations."""
        rewards = np.zeros(rows.size, dtype=np.float64)
        terminated = np.zeros(rows.size, dtype=bool)
        tables = self.tables
        for index, (row, action) in enumerate(zip(rows.tolist(), actions.tolist(), strict=True)):
            table = tables[row]
            rewards[index] = table.act(action)
            terminated[index] = table.done
        return rewards, terminated

    def observations(self) -> tuple[np.ndarray, np.ndarray]:
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
        return np.array(rows, dtype=np.float32), np.array(masks, dtype=np.int8)

    def legal(self, row: int) -> tuple[LegalActions, int, int]:
        hand = self.tables[row].hand
        return hand.legal_actions(), hand.pot_total, hand.current_bet

    def views(self) -> list[Observation | None]:
        return [table.view() for table in self.tables]

    @property
    def faults(self) -> list[tuple[int, int, SeatFault]]:
        return [
            (index, seat, fault)
            for index, table in enumerate(self.tables)
            for seat, fault in table.faults
        ]

    def close(self) -> None:
        for table in self.tables:
            seats = list(table.seats.values())
            if table.shadow is not None:
                seats += table.shadow.seats.values()
            for seat in seats:
                seat.close()


def _players(
    specs: Sequence[Opponent],
    learner_seat: int | None,
    native_opponents: bool,
    action_table: ActionTable,
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
            # An agent object: each table plays its own copy (a policy keeps no state, and
            # its PolicyAgent is shared).
            agent, name = opponent_agent(spec, action_table)
            loaded[seat] = InProcessSeat(
                agent if isinstance(spec, str) else copy.deepcopy(agent), name
            )
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
        draws: MixDraws,
    ) -> tuple[int, ...]:
        """Play the deal to its end; every seat's net (``draws``: of mixed answers)."""
        hand = new_hand(self.rules, deck, button=button)
        for seat, player in self.native.items():
            player.begin_deal(event, session, deal, seat)
        if self.seats:
            tell_begin(self.seats, hand, contexts, self.faults)
        while hand.actor is not None:
            actor = hand.actor
            native = self.native.get(actor)
            legal = hand.legal_actions()
            if native is not None:
                hand.apply(played(native.act(hand), legal, draws, deal, len(hand.history)))
                continue
            answer = self.seats[actor].decide(observe_actor(hand, actor, contexts[actor]))
            if isinstance(answer, SeatFault):
                self.faults.append((actor, answer))
            hand.apply(played(answer, legal, draws, deal, len(hand.history)))
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
        "draws",
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
        self.draws = MixDraws()

    def start(self, event_seed: int, session: int) -> None:
        """Start ``session`` of ``event_seed`` (:func:`next_session`) as
        ``SingleAgentEnv.reset`` does, up to the learner's first decision (every session
        has one, as in the single env)."""
        self.event_seed, self.session = event_seed, session
        self.draws = MixDraws(event_seed, 0, session, 0)
        self.event = f"capped_holdem_v0:{self.event_seed}"
        self.deal = 0
        self.nets = [0] * self.seat_count
        self.pending = 0.0
        self.done = False
        self._start_deal()
        self._play()
        assert not self.done, "a session without a decision"
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
            legal = hand.legal_actions()
            # Mixed answers are drawn as a dealer draws them, the table numbered 0.
            if player is not None:
                native_answer = player.act(hand)
                hand.apply(played(native_answer, legal, self.draws, self.deal, len(hand.history)))
                continue
            answer = seats[actor].decide(observe_actor(hand, actor, self.contexts[actor]))
            if isinstance(answer, SeatFault):
                self.faults.append((actor, answer))
            hand.apply(played(answer, legal, self.draws, self.deal, len(hand.history)))

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
            # The shadow draws the opponents' mixed answers as this table does: while the
            # reference plays as the learner, the opponents play alike at both.
            nets = self.shadow.play(
                deck, button, self._contexts(), self.event, self.session, deal, self.draws
            )
            self.reference_net = nets[self.learner]
        if self.seats:
            tell_begin(self.seats, self.hand, self._contexts(), self.faults)

    def _contexts(self) -> list[SessionContext]:
        """Every seat's context of the deal in play: as the single env builds them."""
        if self.contexts:
            return self.contexts
        nets = tuple(self.nets)  # the session nets before this deal: updated at its end
        self.contexts = deal_contexts(
            self.event, self.session, 0, self.deal, self.deals, self.cap, nets
        )
        return self.contexts
