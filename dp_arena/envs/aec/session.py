"""The AEC machinery both environments share: ``T`` mirrored tables playing one session
of the same deals, an agent per seat, and a reward for every agent after every deal.

An episode is one session: ``deals`` deals (whole rounds of the button), the button at
seat 0 on deal 0 and one seat further left each deal, every table dealt the deck
``deck_for(event_seed, 0, session, deal)`` (:func:`dp_arena.engine.deck_for`).
``reset(seed=s)`` starts session 0 of event seed ``s``; each later ``reset()`` without a
seed plays the next session of the same event seed (new cards, reproducibly); an
environment never seeded draws its event seed from the operating system's entropy.

Within a deal the tables play one after the other (table 0's hand to the end, then
table 1's...). When every table has finished the deal, each agent gets the reward the
subclass computes from the nets, and the next deal starts. The environment is a thin
adapter: the rules live in :mod:`dp_arena.engine`, which knows nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv

from dp_arena.agents.observation import Observation, SessionContext
from dp_arena.agents.table import observe as observe_actor
from dp_arena.engine import (
    Action,
    Betting,
    HandState,
    TableRules,
    button_for_deal,
    deck_for,
    new_hand,
)
from dp_arena.engine.cards import format_cards
from dp_arena.envs.deals import TableOptions, deal_contexts, next_session
from dp_arena.envs.discrete_actions import CALL, DEFAULT_RAISE_SIZES, ActionTable, RaiseSize
from dp_arena.envs.encoding import encode_hand, observation_bounds, observation_length
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason

__all__ = [
    "ILLEGAL_ACTIONS",
    "OBSERVATION_FORMATS",
    "DealListener",
    "SessionEnv",
    "TableOptions",  # from dp_arena.envs.deals, still named here
    "check_illegal_action",
    "fallback_action",
    "next_session",
]

# The dict format is PettingZoo's classic games' observation and mask; the flat one is
# the vector alone, a Box that SuperSuit's wrappers and CleanRL-style code take, with the
# mask in the player's info.
OBSERVATION_FORMATS = ("dict", "flat")
# What a masked discrete action does: raise IllegalActionError (the default: a learner's
# bug shows at once), or fall back to the nearest legal action, check/call, which is never
# masked for the player to act (plain PPO samples masked actions; the fallbacks are
# counted in the infos).
ILLEGAL_ACTIONS = ("raise", "fallback")

# Called with ("begin" | "end", table, hand, the seats' contexts) around every hand;
# the Gymnasium wrapper uses it to call its opponents' begin_deal/end_deal hooks.
DealListener = Callable[[str, int, HandState, Sequence[SessionContext]], None]


class SessionEnv(AECEnv[str, Any, int]):
    """Base of :mod:`~dp_arena.envs.capped_holdem_v0` and :mod:`~dp_arena.envs.duplicate_holdem_v0`.

    Subclasses name the agents (:meth:`agent_name`) and turn the nets of a deal into
    rewards (:meth:`deal_rewards`).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "session_env",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        *,
        num_players: int = 2,
        betting: str | Betting = "no-limit",
        cap: int = 1000,
        blinds: Sequence[int] = (10, 20),
        deals: int | None = None,
        raise_sizes: Sequence[RaiseSize] = DEFAULT_RAISE_SIZES,
        tables: int = 1,
        observation_format: str = "dict",
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_illegal_action(illegal_action)
        self.rules, deals = _checked_rules(
            num_players, betting, cap, blinds, deals, observation_format
        )
        if not isinstance(tables, int) or isinstance(tables, bool) or not 1 <= tables <= 30:
            raise ConfigError(f"tables must be an integer 1..30, not {tables!r}", field="tables")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ConfigError(
                f"render_mode must be None or one of {self.metadata['render_modes']},"
                f" not {render_mode!r}",
                field="render_mode",
            )
        self.render_mode = render_mode
        self.cap = cap
        self.deals = deals
        self.table_count = tables
        self.action_table = ActionTable(raise_sizes)
        self.seat_count = num_players
        self.agent_grid = tuple(
            tuple(self.agent_name(table, seat) for seat in range(num_players))
            for table in range(tables)
        )
        self.possible_agents = [agent for row in self.agent_grid for agent in row]
        self.seat_of = {
            agent: (table, seat)
            for table, row in enumerate(self.agent_grid)
            for seat, agent in enumerate(row)
        }
        self.observation_format = observation_format
        self.flat = observation_format == "flat"
        self.illegal_action = illegal_action
        # Per agent, the masked actions replaced by check/call this episode (fallback).
        self.illegal_actions: dict[str, int] = {}
        self.last_illegal = False  # whether the last step's action was replaced
        self._make_spaces()
        self.deal_listeners: list[DealListener] = []
        self.event_seed: int | None = None
        self.session = 0
        self.deal = 0
        self.hands: list[HandState] = []
        self.contexts: list[list[SessionContext]] = []
        self.session_nets: list[list[int]] = []
        self.last_nets: tuple[tuple[int, ...], ...] = ()
        self._table_in_play = 0
        self._rewards_set = False
        self._vector_length = observation_length(num_players)

    def _make_spaces(self) -> None:
        """Every agent's observation space (the vector, or the vector and the mask) and
        action space (the action table's indices)."""
        low, high = observation_bounds(self.seat_count)
        vector_space = spaces.Box(low=low, high=high, dtype=np.float32)
        mask_space = spaces.Box(low=0, high=1, shape=(self.action_table.size,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            agent: vector_space
            if self.flat
            else spaces.Dict({"observation": vector_space, "action_mask": mask_space})
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete[np.int64]] = {
            agent: spaces.Discrete(self.action_table.size) for agent in self.possible_agents
        }

    # -- what subclasses define ------------------------------------------------------

    def agent_name(self, table: int, seat: int) -> str:
        raise NotImplementedError

    def deal_rewards(self, nets: Sequence[Sequence[int]]) -> list[list[float]]:
        """Each agent's reward (indexed ``[table][seat]``) from every table's nets of a deal."""
        raise NotImplementedError

    # -- the AEC interface -----------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.event_seed, self.session = next_session(seed, self.event_seed, self.session)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.illegal_actions = dict.fromkeys(self.agents, 0)
        self.last_illegal = False
        self._skip_agent_selection = None
        self._rewards_set = False
        self.deal = 0
        self.session_nets = [[0] * self.seat_count for _ in range(self.table_count)]
        self.last_nets = ()
        self._start_deal()

    def step(self, action: int | Action | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table_in_play
        hand = self.hands[table]
        legal = hand.legal_actions()
        self.last_illegal = False
        try:
            if isinstance(action, Action):  # a rule-based bot acting on infos[agent]["observation"]
                engine_action = action
            else:
                try:
                    engine_action = self.action_table.to_action(
                        action, legal, pot=hand.pot_total, current_bet=hand.current_bet
                    )
                except IllegalActionError as error:
                    if self.illegal_action == "raise" or not fallback_action(error):
                        raise
                    engine_action = self.action_table.to_action(
                        CALL, legal, pot=hand.pot_total, current_bet=hand.current_bet
                    )
                    self.illegal_actions[agent] += 1
                    self.last_illegal = True
            hand.apply(engine_action)
        except IllegalActionError as error:
            raise IllegalActionError(error.reason, f"{agent}: {error}", action=action) from None
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_set:
            self._clear_rewards()
            self._rewards_set = False
        self.infos[agent] = {}
        if hand.actor is None:
            self._finish_hand(table)
        else:
            self._select(table)
        if self._rewards_set:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Any:
        """``{"observation": vector, "action_mask": mask}``; the vector alone when the
        observation format is ``"flat"`` (the mask is then in ``infos[agent]`` and
        :meth:`action_mask`)."""
        table, seat = self.seat_of[agent]
        vector = encode_hand(self.hands[table], seat, self.contexts[table][seat])
        if self.flat:
            return vector
        return {"observation": vector, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """``agent``'s action mask now: all zeros unless it is the player to act."""
        table, seat = self.seat_of[agent]
        hand = self.hands[table]
        if agent == self.agent_selection and hand.actor == seat:
            return self.action_table.mask_array(hand.legal_actions())
        return np.zeros(self.action_table.size, dtype=np.int8)

    def view(self, agent: str) -> Observation:
        """The typed observation of ``agent``: what ``infos`` carries for the player to act;
        for anyone else the same view with no legal actions (``to_call`` 0, no raise)."""
        table, seat = self.seat_of[agent]
        hand = self.hands[table]
        return observe_actor(hand, seat, self.contexts[table][seat])

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self.describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def describe(self) -> str:
        """The tables in text: the deal, each seat's cards and chips, the last action."""
        if not self.hands:
            return "(not reset yet)"
        deal_number = self.deal + 1 if self.agents else self.deal
        title = (
            f"{self.metadata['name']} deal {deal_number}/{self.deals}"
            f" (event seed {self.event_seed}, session {self.session})"
        )
        lines = [title]
        for table, hand in enumerate(self.hands):
            board = format_cards(hand.visible_board) or "-"
            lines.append(
                f"table {table}: button seat {hand.button}, board {board}, pot {hand.pot_total}"
            )
            for seat in range(hand.seat_count):
                hole = hand.hole_cards[seat]
                marks = "folded" if hand.folded[seat] else ("to act" if hand.actor == seat else "")
                line = (
                    f"  {self.agent_grid[table][seat]:<8} {format_cards(hole or ()):<5} committed"
                    f" {hand.committed[seat]:>5} available {hand.available[seat]:>5} {marks}"
                )
                lines.append(line.rstrip())
            if hand.history:
                last = hand.history[-1]
                lines.append(
                    f"  last: {self.agent_grid[table][last.seat]} {last.kind.value}"
                    + (f" to {last.raise_to}" if last.raise_to is not None else "")
                )
        return "\n".join(lines)

    def close(self) -> None:
        return None

    # -- the session -----------------------------------------------------------------

    def _start_deal(self) -> None:
        assert self.event_seed is not None
        rules = self.rules
        deck = deck_for(self.event_seed, 0, self.session, self.deal)
        button = button_for_deal(self.deal, self.seat_count)
        event = f"{self.metadata['name']}:{self.event_seed}"
        self.hands = [new_hand(rules, deck, button=button) for _ in range(self.table_count)]
        self.contexts = [
            deal_contexts(
                event,
                self.session,
                table,
                self.deal,
                self.deals,
                self.cap,
                tuple(self.session_nets[table]),
            )
            for table in range(self.table_count)
        ]
        for listener in self.deal_listeners:
            for table, hand in enumerate(self.hands):
                listener("begin", table, hand, self.contexts[table])
        self._table_in_play = -1
        self._finish_hand(-1)

    def _select(self, table: int) -> None:
        hand = self.hands[table]
        seat = hand.actor
        assert seat is not None
        agent = self.agent_grid[table][seat]
        self.agent_selection = agent
        # A plain dict of a frozen snapshot and a fresh array: it pickles (AsyncVectorEnv,
        # SubprocVecEnv), stays true after later steps (replay buffers) and copies with the
        # environment.
        self.infos[agent] = {
            "observation": observe_actor(hand, seat, self.contexts[table][seat]),
            "action_mask": self.action_table.mask_array(hand.legal_actions()),
        }
        if self.illegal_action == "fallback":
            self.infos[agent]["illegal_actions"] = self.illegal_actions[agent]

    def _finish_hand(self, table: int) -> None:
        """``table``'s hand is over (``-1``: the deal is starting): go to the next table
        with a hand to play, or end the deal."""
        if table >= 0:
            for listener in self.deal_listeners:
                listener("end", table, self.hands[table], self.contexts[table])
        for next_table in range(table + 1, self.table_count):
            if self.hands[next_table].actor is not None:
                self._table_in_play = next_table
                self._select(next_table)
                return
            for listener in self.deal_listeners:  # a hand over before anyone acted
                listener("end", next_table, self.hands[next_table], self.contexts[next_table])
        self._end_deal()

    def _end_deal(self) -> None:
        nets = tuple(hand.payoffs or (0,) * self.seat_count for hand in self.hands)
        self.last_nets = nets
        for table, table_nets in enumerate(nets):
            totals = self.session_nets[table]
            for seat, net in enumerate(table_nets):
                totals[seat] += net
        rewards = self.deal_rewards(nets)
        for table, row in enumerate(self.agent_grid):
            for seat, agent in enumerate(row):
                self.rewards[agent] = rewards[table][seat]
        self._rewards_set = True
        self.deal += 1
        if self.deal < self.deals:
            self._start_deal()
            return
        for name in self.agents:
            self.terminations[name] = True
        self.agent_selection = self.agents[0]


def check_illegal_action(illegal_action: object) -> None:
    """:class:`ConfigError` unless ``illegal_action`` is one of :data:`ILLEGAL_ACTIONS`."""
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ConfigError(
            f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, not {illegal_action!r}",
            field="illegal_action",
        )


def fallback_action(error: IllegalActionError) -> bool:
    """Whether ``illegal_action="fallback"`` replaces the action ``error`` refused: a
    masked action (a fold with nothing owed, a raise when raising is not allowed) is
    replaced by check/call; an index outside the action space is a bug and still raises."""
    return error.reason in (IllegalReason.NOTHING_TO_FOLD, IllegalReason.RAISE_NOT_ALLOWED)


def _checked_rules(
    num_players: object,
    betting: str | Betting,
    cap: object,
    blinds: object,
    deals: object,
    observation_format: object,
) -> tuple[TableRules, int]:
    """The table's rules and the session's deals from an environment's arguments, or a
    :class:`ConfigError` naming the first argument that is wrong (as the environment
    calls it: ``num_players``, ``blinds``)."""
    if observation_format not in OBSERVATION_FORMATS:
        raise ConfigError(
            f"observation_format must be one of {list(OBSERVATION_FORMATS)},"
            f" not {observation_format!r}",
            field="observation_format",
        )
    if isinstance(blinds, (str, bytes)) or not isinstance(blinds, Sequence) or len(blinds) != 2:
        raise ConfigError(
            f"blinds must be (small_blind, big_blind), not {blinds!r}", field="blinds"
        )
    if not isinstance(cap, int) or isinstance(cap, bool):
        raise ConfigError(
            f"cap must be an integer (the environments are capped), not {cap!r}", field="cap"
        )
    if not isinstance(num_players, int) or isinstance(num_players, bool):
        raise ConfigError(
            f"num_players must be an integer 2..10, not {num_players!r}", field="num_players"
        )
    try:
        checked_betting = Betting(betting)
    except ValueError:
        raise ConfigError(
            f"betting must be one of {[b.value for b in Betting]}, not {betting!r}",
            field="betting",
        ) from None
    try:
        rules = TableRules(
            seat_count=num_players,
            small_blind=blinds[0],
            big_blind=blinds[1],
            betting=checked_betting,
            cap=cap,
        )
    except ConfigError as error:
        field = {"seat_count": "num_players", "small_blind": "blinds"}.get(
            error.field or "", error.field
        )
        raise ConfigError(str(error).replace("seat_count", "num_players"), field=field) from None
    if num_players == 2 and rules.small_blind == cap:
        # Both players are all-in from the blinds: every deal is dealt to the showdown
        # and no one ever acts, so there is no episode to learn from (docs/envs.md).
        raise ConfigError(
            f"cap must be more than the small blind heads-up: at cap {cap} with blinds"
            f" {blinds[0]}/{blinds[1]} both players are all-in from the blinds, and no"
            " deal ever gives a player a decision",
            field="cap",
        )
    if deals is None:
        deals = num_players
    if not isinstance(deals, int) or isinstance(deals, bool) or deals <= 0 or deals % num_players:
        raise ConfigError(
            f"deals must be a positive multiple of num_players ({num_players}):"
            f" a session is whole rounds of the button; got {deals!r}",
            field="deals",
        )
    return rules, deals
