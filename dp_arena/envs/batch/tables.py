"""The tables of the vector environment played as one batch: sessions of deals on a
:class:`~dp_arena.envs.batch.engine.TableBatch`, the learner at one seat, opponents that
decide for many tables at once at the others (:mod:`dp_arena.envs.batch.players`: the
built-in ``calling-station``, ``random``, ``aggressive`` and ``tag`` bots, and policies
over the observation vectors, such as a learner's frozen snapshots).

:class:`BatchTables` plays what :mod:`dp_arena.envs.gym.vector_tables` plays one table at a
time (and the single environment one step at a time), with the same decks, the same
opponents' decisions, the same rewards and observations, in arrays: the learners'
discrete actions are translated for every table at once, each opponent decides for
every table where one of its seats is to act (one call per step of the batch: a policy
gets the observation vectors and masks of all of them; a mixed answer, the random bot's
or a mixed policy's, is drawn as a dealer draws it, from the table's event seed,
session, deal and the decision's place in the deal), and the deals that end are paid
and the next ones dealt together, until each table's learner is to act again. The decks
of up to :data:`DECK_CHUNK` deals of a session are shuffled together
(:func:`~dp_arena.envs.batch.cards.decks`).

A deal the learner folded out of is not played on, unless it is the session's last or an
opponent's decisions depend on the session's nets (a policy's observation holds its
net): the learner's net is what it put in, the next deal's cards and the opponents'
next decisions do not depend on the rest, and nothing else the environment returns
does. Only the other seats' session nets, which the typed observations show, do: those
deals are played to their end on the engine when :meth:`BatchTables.views` asks (or when
a table has left :data:`_LEFT_LIMIT` of them). The typed observations are built on
request too, by replaying each table's deal on the engine, which also proves, in the
tests, every action the batch took.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dp_arena.agents.observation import Observation
from dp_arena.agents.seat import SeatFault
from dp_arena.agents.table import observe as observe_actor
from dp_arena.agents.table import played
from dp_arena.engine import Action, ActionKind, HandState, LegalActions, deck_for, new_hand
from dp_arena.engine.mixes import MixDraws, mix_prefix
from dp_arena.engine.rules import TableRules
from dp_arena.envs.batch.cards import decks
from dp_arena.envs.batch.encoding import batch_masks, encode_batch
from dp_arena.envs.batch.engine import CALL, CHECK, FOLD, NO_ACTOR, RAISE, TableBatch, row_sums
from dp_arena.envs.batch.players import (
    AggressivePlayer,
    BatchPlayer,
    CallingStationPlayer,
    PolicyPlayer,
    RandomPlayer,
    is_policy,
)
from dp_arena.envs.batch.tag import TagPlayer
from dp_arena.envs.deals import next_session, seat_context
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.native_opponents import native_opponent

__all__ = ["BATCH_OPPONENTS", "DECK_CHUNK", "BatchTables", "batchable"]

# The built-in bots a batch plays, and what plays them.
BATCH_OPPONENTS: dict[
    str, type[CallingStationPlayer | RandomPlayer | AggressivePlayer | TagPlayer]
] = {
    "calling-station": CallingStationPlayer,
    "random": RandomPlayer,
    "aggressive": AggressivePlayer,
    "tag": TagPlayer,
}
_LEFT_LIMIT = 256  # deals left unsettled at a table before they are played on
DECK_CHUNK = 64  # decks of a session shuffled at once (a whole session, when it fits)
_STALE = -(1 << 62)  # a first deal that puts every deal past the slots: to be shuffled
# Chips in int64: the largest pot times the largest pot-fraction numerator stays below.
_CHIP_LIMIT = 1 << 62
_KINDS = {
    FOLD: ActionKind.FOLD,
    CHECK: ActionKind.CHECK,
    CALL: ActionKind.CALL,
    RAISE: ActionKind.RAISE,
}


def batchable(opponents: Sequence[object], rules: TableRules, action_table: ActionTable) -> bool:
    """Whether these opponents and rules can be played as a batch: only batch opponents
    (built-in bots of :data:`BATCH_OPPONENTS`, policies), and chips small enough for
    ``int64`` arithmetic (any real table's)."""
    if rules.cap is None:
        return False
    pot = rules.cap * rules.seat_count
    if 4 * pot * action_table.largest_fraction_part() >= _CHIP_LIMIT:
        return False
    return all(
        is_policy(spec) or (isinstance(spec, str) and spec in BATCH_OPPONENTS) for spec in opponents
    )


class BatchTables:
    """``count`` tables, each a session against ``opponents`` (batch opponents: specs of
    built-in bots or policies, in seat order around the learner); see the module
    docstring."""

    def __init__(
        self,
        rules: TableRules,
        deals: int,
        action_table: ActionTable,
        learner_seat: int,
        opponents: Sequence[object],
        count: int,
    ) -> None:
        assert rules.cap is not None
        seats = rules.seat_count
        self.rules = rules
        self.count = count
        self.seat_count = seats
        self.deals = deals
        self.cap = rules.cap
        self.big_blind = rules.big_blind
        self.small_blind = rules.small_blind
        self.action_table = action_table
        self.learner = learner_seat
        others = [seat for seat in range(seats) if seat != learner_seat]
        # One player per distinct opponent (a spec, or a policy object), whatever seats it
        # holds: it decides for all of them at once.
        self.players: list[BatchPlayer] = []
        keys: list[object] = []
        self.seat_players = np.full(seats, -1, dtype=np.int64)  # the learner's: -1
        for seat, opponent in zip(others, opponents, strict=True):
            key = opponent if isinstance(opponent, str) else id(opponent)
            if key not in keys:
                keys.append(key)
                if isinstance(opponent, str):
                    self.players.append(BATCH_OPPONENTS[opponent](count, seats))
                else:
                    name = getattr(opponent, "__name__", type(opponent).__name__)
                    self.players.append(PolicyPlayer(opponent, name))  # type: ignore[arg-type]
            self.seat_players[seat] = keys.index(key)
        # The tag bot reads the betting before the flop; no other player does.
        self.batch = TableBatch(
            rules, count, preflop=any(isinstance(player, TagPlayer) for player in self.players)
        )
        self.leaves = all(player.leaves for player in self.players)
        self.checked = all(player.checked for player in self.players)
        self.event_seeds: list[int | None] = [None] * count
        self.draws = [MixDraws()] * count  # each table's draws of mixed answers
        # The same as text: each decision's adds "{deal}:{decision}" (what random draws by).
        self.mix_prefixes = [""] * count
        self.session = np.zeros(count, dtype=np.int64)
        self.deal = np.zeros(count, dtype=np.int64)
        self.nets = np.zeros((count, seats), dtype=np.int64)
        self.context_deal = np.zeros(count, dtype=np.int64)
        self.context_net = np.zeros(count, dtype=np.int64)
        self.pending = np.zeros(count, dtype=np.float64)
        self.carried = np.zeros(count, dtype=np.float64)
        self.done = np.ones(count, dtype=bool)
        self.chunk = min(DECK_CHUNK, deals)
        self.deck_cards = np.zeros((count, self.chunk, 2 * seats + 8), dtype=np.int8)
        # The deal of each table's slot 0 (_STALE: its decks are to be shuffled).
        self.deck_first = np.full(count, _STALE, dtype=np.int64)
        self.serial = np.zeros(count, dtype=np.int64)  # counts deals, for the replays
        self._replays: dict[int, tuple[int, HandState, int]] = {}
        self.opponents = {
            seat: opponent
            for seat, opponent in zip(others, opponents, strict=True)
            if isinstance(opponent, str)
        }
        self._faults: list[tuple[int, int, SeatFault]] = []
        # Per table, the deals of this session the learner folded out of and the batch did
        # not play on: (session, deal, the kinds and amounts played up to the fold).
        self.left: list[list[tuple[int, int, list[int], list[int]]]] = [[] for _ in range(count)]

    # -- sessions --------------------------------------------------------------------

    def reset(self, rows: Sequence[int], seeds: Sequence[int | None]) -> None:
        """Start a session at each of ``rows`` as ``SingleAgentEnv.reset`` does (event seed
        ``seeds[i]``, or the table's next session), up to the learner's first decision."""
        # Every seed is checked before any table changes.
        following = [
            next_session(seed, self.event_seeds[row], int(self.session[row]))
            for row, seed in zip(rows, seeds, strict=True)
        ]
        for row, (event_seed, session) in zip(rows, following, strict=True):
            self.event_seeds[row], self.session[row] = event_seed, session
        chosen = np.array(rows, dtype=np.intp)
        for row in chosen.tolist():
            event_seed, session = self.event_seeds[row] or 0, int(self.session[row])
            self.draws[row] = MixDraws(event_seed, 0, session, 0)
            self.mix_prefixes[row] = mix_prefix(event_seed, 0, session, 0)
        for player in self.players:
            player.start_sessions(self, chosen)
        self.deal[chosen] = 0
        self.nets[chosen] = 0
        self.pending[chosen] = 0.0
        self.done[chosen] = False
        self.deck_first[chosen] = _STALE
        for row in chosen.tolist():
            self.left[row] = []
        self._start(chosen)
        self._play(chosen)
        # Every session has a decision of the learner's (as in the single env).
        assert not self.done[chosen].any(), "a session without a decision"
        # Deals that ended before the learner's first decision are paid with it.
        self.carried[chosen] = self.pending[chosen]
        self.pending[chosen] = 0.0

    def act(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play the learner's discrete ``actions`` at ``rows`` (legal: the caller checked
        them against the masks) and the opponents after them; the rewards and whether
        each session ended."""
        batch = self.batch
        kinds, amounts = self.discrete(rows, actions)
        batch.apply(rows, kinds, amounts, update=False, checked=True)
        if self.seat_count > 2 and self.leaves:
            folded = rows[kinds == FOLD]
            # Out of a deal that goes on without it, and not the session's last.
            out = folded[(batch.actor[folded] != NO_ACTOR) & (self.deal[folded] + 1 < self.deals)]
            if out.size:
                self._leave(out)
        self._play(rows)
        rewards = self.carried[rows] + self.pending[rows]
        self.carried[rows] = 0.0
        self.pending[rows] = 0.0
        return rewards, self.done[rows]

    def discrete(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The engine kinds and raise-to amounts of the discrete ``actions`` (legal) of the
        players to act at ``rows``."""
        batch = self.batch
        call_amount = batch.call_amount[rows]
        # Check or call (CHECK + 1 is CALL), fold for action 0 (FOLD is 0).
        kinds = np.add(call_amount > 0, CHECK, dtype=np.int64)
        kinds *= actions != 0
        amounts = np.zeros(rows.size, dtype=np.int64)
        raising = (actions >= 2).nonzero()[0]
        if raising.size:
            raised = rows[raising]
            kinds[raising] = RAISE
            amounts[raising] = self.action_table.raise_to_array(
                actions[raising],
                batch.min_raise_to[raised],
                batch.max_raise_to[raised],
                pot=row_sums(batch.committed.take(raised, axis=0)),
                call_amount=call_amount[raising],
                current_bet=batch.current_bet[raised],
            )
        return kinds, amounts

    def fault(self, row: int, seat: int, fault: SeatFault) -> None:
        """Record an opponent's fault (a policy's illegal answer) at table ``row``."""
        self._faults.append((row, seat, fault))

    def _play(self, rows: np.ndarray) -> None:
        """Play the opponents (and deal on) at ``rows`` until each table's learner is to
        act or its session ends."""
        batch = self.batch
        learner = self.learner
        while rows.size:
            actor = batch.actor[rows]
            over = actor == NO_ACTOR
            if np.count_nonzero(over):
                self._end_deals(rows[over])
                rows = rows[~self.done[rows]]
                continue  # a new deal may be over at once (everyone all-in from the blinds)
            # The legal actions of the players who came to act after the last actions and
            # in the new deals, found at once.
            batch.update_legal()
            opponent = actor != learner
            rows = rows[opponent]
            if rows.size:
                self._opponents_act(rows, actor[opponent])
        batch.update_legal()

    def _leave(self, rows: np.ndarray) -> None:
        """End the deals the learner folded out of at ``rows`` without playing them on:
        its net is what it put in, and nothing else the environment returns depends on
        the rest of the deal. The other seats' nets wait for :meth:`_settle_left`."""
        batch = self.batch
        learner = self.learner
        lost = batch.committed[rows, learner]
        self.nets[rows, learner] -= lost
        self.pending[rows] += -lost / self.big_blind
        for row, session, deal, length in zip(
            rows.tolist(),
            self.session[rows].tolist(),
            self.deal[rows].tolist(),
            batch.log_length[rows].tolist(),
            strict=True,
        ):
            left = self.left[row]
            left.append(
                (
                    session,
                    deal,
                    batch.log_kinds[row, :length].tolist(),
                    batch.log_amounts[row, :length].tolist(),
                )
            )
            if len(left) >= _LEFT_LIMIT:
                self._settle_left(row)
        self.deal[rows] += 1
        self._start(rows)

    def _settle_left(self, row: int) -> None:
        """Play on, on the engine, the deals the learner left at table ``row``, as the
        batch would have played them, and add the other seats' nets."""
        seed = self.event_seeds[row]
        assert seed is not None
        event = f"capped_holdem_v0:{seed}"
        learner = self.learner
        players = {seat: native_opponent(spec) for seat, spec in self.opponents.items()}
        for session, deal, kinds, amounts in self.left[row]:
            hand = new_hand(
                self.rules, deck_for(seed, 0, session, deal), button=deal % self.seat_count
            )
            for seat, player in players.items():
                player.begin_deal(event, session, deal, seat)
            draws = MixDraws(seed, 0, session, 0)

            def answer(
                actor: int, hand: HandState = hand, deal: int = deal, draws: MixDraws = draws
            ) -> Action:
                return played(
                    players[actor].act(hand), hand.legal_actions(), draws, deal, len(hand.history)
                )

            for kind, amount in zip(kinds, amounts, strict=True):
                action = Action(_KINDS[kind], amount if kind == RAISE else None)
                actor = hand.actor
                assert actor is not None
                # The opponents decide again, so that the random bot draws as it drew.
                if actor != learner and answer(actor) != action:
                    raise AssertionError(f"table {row}: deal {deal} does not replay")
                hand.apply(action)
            while (actor := hand.actor) is not None:
                hand.apply(answer(actor))
            assert hand.payoffs is not None
            for seat in players:
                self.nets[row, seat] += hand.payoffs[seat]
        self.left[row] = []

    def _end_deals(self, rows: np.ndarray) -> None:
        payoffs = self.batch.payoffs.take(rows, axis=0)
        self.nets[rows] = self.nets.take(rows, axis=0) + payoffs
        self.pending[rows] += payoffs[:, self.learner] / self.big_blind
        deal = self.deal[rows] + 1
        self.deal[rows] = deal
        finished = deal == self.deals
        self.done[rows[finished]] = True
        self._start(rows[~finished])

    def _start(self, rows: np.ndarray) -> None:
        """Deal each table's next deal (``self.deal``) of its session."""
        if not rows.size:
            return
        deal = self.deal[rows]
        slot = deal - self.deck_first[rows]
        stale = slot >= self.chunk
        if np.count_nonzero(stale):
            self._shuffle(rows[stale], deal[stale])
            slot = deal - self.deck_first[rows]
        cards = self.deck_cards.reshape(-1, self.deck_cards.shape[2])
        self.batch.start(
            rows, cards.take(rows * self.chunk + slot, axis=0), deal % self.seat_count, update=False
        )
        self.context_deal[rows] = deal
        self.context_net[rows] = self.nets[:, self.learner][rows]
        self.serial[rows] += 1
        for player in self.players:
            player.start_deals(self, rows)

    def _shuffle(self, rows: np.ndarray, first: np.ndarray) -> None:
        """The decks of deals ``first`` .. ``first + DECK_CHUNK - 1`` (those in the session)."""
        seeds: list[int] = []
        sessions: list[int] = []
        deals: list[int] = []
        counts = np.minimum(self.chunk, self.deals - first)
        for row, session, start, count in zip(
            rows.tolist(), self.session[rows].tolist(), first.tolist(), counts.tolist(), strict=True
        ):
            seed = self.event_seeds[row]
            assert seed is not None
            seeds += [seed] * count
            sessions += [session] * count
            deals += range(start, start + count)
        # Deck i of the list goes to table lines[i], at slots[i] (0, 1, ... for each table).
        lines = np.repeat(rows, counts)
        slots = np.arange(lines.size) - np.repeat(np.cumsum(counts) - counts, counts)
        self.deck_cards[lines, slots] = decks(seeds, sessions, deals, self.deck_cards.shape[2])
        self.deck_first[rows] = first

    # -- the opponents ---------------------------------------------------------------

    def _opponents_act(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """Each opponent decides at the tables where one of its seats is to act, then
        every action is applied at once."""
        if len(self.players) == 1:
            kinds, amounts = self.players[0].decide(self, rows, seats)
        else:
            players = self.seat_players[seats]
            kinds = np.zeros(rows.size, dtype=np.int64)
            amounts = np.zeros(rows.size, dtype=np.int64)
            for index in np.unique(players).tolist():
                lines = (players == index).nonzero()[0]
                kinds[lines], amounts[lines] = self.players[index].decide(
                    self, rows[lines], seats[lines]
                )
        self.batch.apply(rows, kinds, amounts, update=False, checked=self.checked)

    # -- what the learner sees -------------------------------------------------------

    def observations(self) -> tuple[np.ndarray, np.ndarray]:
        """Every table's observation vector and action mask (all zeros once its session
        is over; the vector is then the last deal's end)."""
        vectors = encode_batch(
            self.batch, self.learner, self.context_deal, self.deals, self.context_net
        )
        return vectors, batch_masks(self.batch, self.learner, self.action_table.size)

    def legal(self, row: int) -> tuple[LegalActions, int, int]:
        """Table ``row``'s legal actions for the learner, its pot and current bet."""
        batch = self.batch
        raising = bool(batch.can_raise[row])
        owed = int(batch.owed[row])
        legal = LegalActions(
            int(batch.actor[row]),
            owed > 0,
            owed == 0,
            int(batch.call_amount[row]),
            int(batch.min_raise_to[row]) if raising else None,
            int(batch.max_raise_to[row]) if raising else None,
        )
        return legal, int(batch.committed[row].sum()), int(batch.current_bet[row])

    @property
    def faults(self) -> list[tuple[int, int, SeatFault]]:
        """``(table, seat, fault)`` of the opponents' faults (a policy's illegal answers)."""
        return list(self._faults)

    def close(self) -> None:
        return None

    def views(self) -> list[Observation | None]:
        return [None if self.done[row] else self.view(row) for row in range(self.count)]

    def view(self, row: int) -> Observation:
        """The learner's typed observation at table ``row``: its deal replayed on the
        engine (kept between calls, so only the new actions are applied)."""
        seed = self.event_seeds[row]
        assert seed is not None
        if self.left[row]:
            self._settle_left(row)
        session, deal, serial = int(self.session[row]), int(self.deal[row]), int(self.serial[row])
        kept = self._replays.get(row)
        if kept is not None and kept[0] == serial:
            _, hand, applied = kept
        else:
            deck = deck_for(seed, 0, session, deal)
            hand, applied = new_hand(self.rules, deck, button=deal % self.seat_count), 0
        batch = self.batch
        length = int(batch.log_length[row])
        for kind, amount in zip(
            batch.log_kinds[row, applied:length].tolist(),
            batch.log_amounts[row, applied:length].tolist(),
            strict=True,
        ):
            hand.apply(Action(_KINDS[kind], amount if kind == RAISE else None))
        self._replays[row] = (serial, hand, length)
        nets = tuple(self.nets[row].tolist())
        context = seat_context(
            f"capped_holdem_v0:{seed}", session, 0, deal, self.deals, self.cap, nets, self.learner
        )
        return observe_actor(hand, self.learner, context)
