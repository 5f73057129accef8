"""Playing a classic no-limit freezeout (the classic house rules, docs/formats.md) hand by
hand: no cap, stacks carried from hand to hand, blind levels counted in hands, tables broken and
balanced after every hand, late entrants, and the finishing order.

The tables of a freezeout are coupled after every hand (a bust at one table can move a
player from another), so the event is played here, in the coordinating process, one
**hand round** at a time: every running table plays one hand, then busts are placed,
tables are broken and balanced (:mod:`~dp_arena.tournament.classic.tables`), late
entrants sit down, and the blind clock advances. Each player's bot is opened once and
kept for the whole event, wherever it sits.

- The deck of hand round ``h`` (0-based) at table ``t`` is
  ``deck_for(event_seed, section=t, session=1, deal=h)``; the occupied seats are
  compacted into an engine table of as many seats, in seat order, for that hand.
- Blind level ``L`` (1-based) lasts ``level_hands`` hand rounds, two-thirds of that
  (rounded down) once 4 or fewer players remain.
- Players busting in the same hand round (at any table) are placed by the chips they
  started that hand with, more chips placing higher; equal chips share their places.
- A late entrant sits down before its hand round and gives up, as dead chips taken out
  of play, the small and big blind of every big blind it missed: one each
  ``players at its table`` hand rounds since the start, at the level of that hand
  round, never more than half its starting stack. The engine cannot take an
  out-of-turn post, so the live big blind the house rules ask of its first hand is not
  played; the dead chips are what the seed calls "effectively the same as someone who
  has folded their blinds from the beginning".
- A bot that keeps failing is benched and plays on as an absent player (checks or
  folds, posts its blinds) until it busts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp_arena.agents import (
    FaultPolicy,
    Seat,
    SessionContext,
    TableSession,
    play_deal,
)
from dp_arena.engine import Betting, TableRules, deck_for
from dp_arena.engine.mixes import MixDraws
from dp_arena.files import write_atomic
from dp_arena.results import Fault, FaultKind
from dp_arena.tournament.classic.tables import (
    Move,
    Tables,
    blind_seats,
    initial_tables,
    rebalance,
    seat_late_entrant,
)
from dp_arena.tournament.config import Entrant
from dp_arena.tournament.draws import Draw
from dp_arena.units import open_player_seat

__all__ = [
    "DEFAULT_LEVELS",
    "Bust",
    "ClassicHand",
    "ClassicOutcome",
    "ClassicSettings",
    "LateEntry",
    "blinds_for_level",
    "finishing_order",
    "play_classic",
]

DEFAULT_LEVELS = ((10, 20), (20, 40), (40, 80), (60, 120), (100, 200), (140, 280), (200, 400))
CLASSIC_SESSION = 1  # the deck id's session number for every hand of a freezeout
SHORT_LEVELS_FROM = 4  # players remaining from which levels are two-thirds as long


@dataclass(frozen=True, slots=True)
class ClassicSettings:
    starting_stack: int = 700
    levels: tuple[tuple[int, int], ...] = DEFAULT_LEVELS
    level_step: tuple[int, int] = (100, 200)  # added per level after the listed ones
    level_hands: int = 20
    max_seats: int = 10
    late_entrants: tuple[tuple[str, int], ...] = ()  # player, hand round it arrives (1-based)
    late_registration_level: int = 3
    max_hand_rounds: int = 5000

    @property
    def short_level_hands(self) -> int:
        return max(1, self.level_hands * 2 // 3)

    @property
    def late_registration_closes(self) -> int:
        """The last hand round a late entrant may arrive in (the end of the configured
        level on the normal clock)."""
        return self.late_registration_level * self.level_hands


def blinds_for_level(settings: ClassicSettings, level: int) -> tuple[int, int]:
    """Small and big blind of ``level`` (1-based)."""
    listed = settings.levels
    if level <= len(listed):
        return listed[level - 1]
    extra = level - len(listed)
    small, big = listed[-1]
    return small + extra * settings.level_step[0], big + extra * settings.level_step[1]


@dataclass(frozen=True, slots=True)
class ClassicHand:
    """One hand at one table: the players in engine seat order, the button's engine seat,
    the stacks they started with and their nets."""

    hand: int  # hand round, 1-based
    table: int
    level: int
    small_blind: int
    big_blind: int
    players: tuple[str, ...]
    seats: tuple[int, ...]  # the physical seats of ``players``
    button: int
    starting_stacks: tuple[int, ...]
    nets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Bust:
    player: str
    hand: int
    table: int
    starting_chips: int  # at the start of the hand it busted in


@dataclass(frozen=True, slots=True)
class LateEntry:
    player: str
    hand: int
    table: int
    dead_chips: int
    stack: int


@dataclass(frozen=True, slots=True)
class ClassicOutcome:
    """A finished freezeout: the finishing order in groups (a group shares its places),
    every hand, bust, table move and late entry, and the faults."""

    finishing_order: tuple[tuple[str, ...], ...]
    hands: tuple[ClassicHand, ...]
    busts: tuple[Bust, ...]
    moves: tuple[Move, ...]
    late_entries: tuple[LateEntry, ...]
    faults: tuple[Fault, ...]
    hand_rounds: int
    final_level: int
    stopped_early: bool = False  # max_hand_rounds reached: the rest placed by chips
    histories: tuple[str, ...] = ()  # PHH files written, relative to the run directory

    @property
    def hands_played(self) -> int:
        """Table-hands dealt (the figure to match a duplicate event's deal count)."""
        return len(self.hands)


def _open_seat(entrant: Entrant, limits: tuple[tuple[str, Any], ...], log_dir: str | None) -> Seat:
    return open_player_seat(
        entrant.resolved, entrant.player, trusted=entrant.trusted, limits=limits, log_dir=log_dir
    )


@dataclass
class _Freezeout:
    """The state of a freezeout between hand rounds."""

    event: str
    seed: int
    settings: ClassicSettings
    entrants: Mapping[str, Entrant]
    max_faults: int
    limits: tuple[tuple[str, Any], ...]
    log_dir: str | None
    tables: Tables = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)
    seats: dict[str, Seat] = field(default_factory=dict)
    last_big_blind: dict[int, int] = field(default_factory=dict)
    benched: set[str] = field(default_factory=set)
    fault_counts: dict[str, int] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    hands: list[ClassicHand] = field(default_factory=list)
    busts: list[Bust] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    late: list[LateEntry] = field(default_factory=list)
    level: int = 1
    hands_in_level: int = 0
    histories: dict[int, list[str]] | None = None  # table -> PHH text of each hand

    def context(self, player: str, table: int, hand: int) -> SessionContext:
        stack = self.stacks[player]
        return SessionContext(
            event=self.event,
            section=table,
            session=CLASSIC_SESSION,
            table=table,
            deal_number=hand,
            deals_in_session=self.level_length(),
            session_net=stack - self.settings.starting_stack,
            session_chips=stack,
            eliminating=True,  # others' stacks are for the table to see, not standings
        )

    def level_length(self) -> int:
        remaining = len(self.stacks)
        short = remaining <= SHORT_LEVELS_FROM
        return self.settings.short_level_hands if short else self.settings.level_hands

    def sit_down(self, player: str, stack: int, table: int, hand: int) -> None:
        self.stacks[player] = stack
        seat = _open_seat(self.entrants[player], self.limits, self.log_dir)
        self.seats[player] = seat
        self.fault_counts[player] = 0
        fault = seat.begin_session(self.context(player, table, hand))
        if not seat.active:
            self.benched.add(player)
        if fault is not None:
            self.record(player, 0, None, None, fault.kind, fault.detail, None)

    def record(
        self,
        player: str,
        seat: int,
        hand: int | None,
        street: str | None,
        kind: FaultKind,
        detail: str,
        substituted: str | None,
    ) -> None:
        self.faults.append(Fault(kind, player, seat, hand, street, detail, substituted))
        self.fault_counts[player] += 1
        if (
            kind in (FaultKind.CRASH, FaultKind.LOAD_TIMEOUT, FaultKind.LOAD_ERROR)
            or self.fault_counts[player] >= self.max_faults
            or not self.seats[player].active
        ):
            self.benched.add(player)

    def play_hand(self, table: int, hand: int) -> None:
        """One hand at ``table`` in hand round ``hand`` (1-based)."""
        occupied = sorted(self.tables[table])
        if table not in self.last_big_blind:  # a new table: the draw picks the first button
            draw = Draw(self.seed, "classic-button", table)
            self.last_big_blind[table] = occupied[draw.below(len(occupied))]
        button_seat, _, big_blind_seat = blind_seats(occupied, self.last_big_blind[table])
        self.last_big_blind[table] = big_blind_seat
        players = [self.tables[table][seat] for seat in occupied]
        small, big = blinds_for_level(self.settings, self.level)
        rules = TableRules(
            seat_count=len(players),
            small_blind=small,
            big_blind=big,
            betting=Betting.NO_LIMIT,
            cap=None,
        )
        session = TableSession(
            [self.seats[player] for player in players],
            players,
            absent={index for index, player in enumerate(players) if player in self.benched},
            policy=FaultPolicy(max_faults=self.max_faults),
        )
        stacks = [self.stacks[player] for player in players]
        state = play_deal(
            session,
            rules,
            deck_for(self.seed, table, CLASSIC_SESSION, hand - 1),
            deal=hand,
            button=occupied.index(button_seat),
            contexts=[self.context(player, table, hand) for player in players],
            stacks=stacks,
            draws=MixDraws(self.seed, table, CLASSIC_SESSION, table),
        )
        assert state.payoffs is not None
        if self.histories is not None:
            from dp_arena.engine.phh import HandMeta, write_hand

            meta = HandMeta(
                self.event, table, CLASSIC_SESSION, table, hand, tuple(players), tuple(stacks)
            )
            mixes = [(decision, str(mix)) for decision, mix in session.mixes]
            self.histories.setdefault(table, []).append(write_hand(state, meta, mixes))
        for fault in session.faults:
            self.record(
                fault.player,
                fault.seat,
                fault.deal,
                fault.street,
                fault.kind,
                fault.detail,
                fault.substituted,
            )
        for player, net in zip(players, state.payoffs, strict=True):
            self.stacks[player] += net
        self.hands.append(
            ClassicHand(
                hand,
                table,
                self.level,
                small,
                big,
                tuple(players),
                tuple(occupied),
                occupied.index(button_seat),
                tuple(stacks),
                state.payoffs,
            )
        )
        for seat, player, stack in zip(occupied, players, stacks, strict=True):
            if self.stacks[player] == 0:
                self.busts.append(Bust(player, hand, table, stack))
                del self.tables[table][seat]
                del self.stacks[player]
                self.seats.pop(player).close()


def _late_dead_chips(state: _Freezeout, hand: int, table_players: int) -> int:
    """The blinds a late entrant missed: one big blind each ``table_players`` hand rounds."""
    settings = state.settings
    levels_by_hand = {record.hand: record.level for record in state.hands}
    dead = 0
    for missed in range(1, (hand - 1) // table_players + 1):
        level = levels_by_hand.get(missed * table_players, state.level)
        small, big = blinds_for_level(settings, level)
        dead += small + big
    return min(dead, settings.starting_stack // 2)


def finishing_order(alive: Mapping[str, int], busts: Sequence[Bust]) -> list[list[str]]:
    """Places, best first, in groups that share their places: the players still in (by
    chips, equal stacks sharing), then the busts, latest hand round first, the busts of
    one hand round by the chips they started that hand with (equal chips sharing).

    >>> busts = [Bust("a", 10, 1, 300), Bust("b", 10, 2, 500), Bust("c", 10, 1, 300),
    ...          Bust("d", 12, 1, 100)]
    >>> finishing_order({"e": 2000}, busts)
    [['e'], ['d'], ['b'], ['a', 'c']]
    """
    order: list[list[str]] = []
    for player, chips in sorted(alive.items(), key=lambda item: (-item[1], item[0])):
        if order and alive[order[-1][0]] == chips:
            order[-1].append(player)
        else:
            order.append([player])
    for hand in sorted({bust.hand for bust in busts}, reverse=True):
        busted = sorted(
            (bust for bust in busts if bust.hand == hand),
            key=lambda bust: (-bust.starting_chips, bust.player),
        )
        groups: list[list[Bust]] = []
        for bust in busted:
            if groups and groups[-1][0].starting_chips == bust.starting_chips:
                groups[-1].append(bust)
            else:
                groups.append([bust])
        order += [[bust.player for bust in group] for group in groups]
    return order


def play_classic(
    entrants: Sequence[Entrant],
    *,
    event: str,
    seed: int,
    settings: ClassicSettings = ClassicSettings(),
    max_faults: int = 3,
    limits: tuple[tuple[str, Any], ...] = (),
    log_dir: str | None = None,
    history_dir: str | None = None,
) -> ClassicOutcome:
    """Play a classic freezeout with ``entrants`` and return its finishing order (the
    entry point of the luck comparison: the same bots in a classic event and a
    duplicate one). With ``history_dir``, each table's hands are written there as PHH
    (``classic-tTT.phhs``); the files written are in the outcome's ``histories``."""
    late = dict(settings.late_entrants)
    state = _Freezeout(
        event, seed, settings, {e.player: e for e in entrants}, max_faults, limits, log_dir
    )
    if history_dir is not None:
        state.histories = {}
    starters = [entrant.player for entrant in entrants if entrant.player not in late]
    state.tables = initial_tables(starters, settings.max_seats, Draw(seed, "classic-seating"))
    for table, seats in sorted(state.tables.items()):
        for player in sorted(seats.values()):
            state.sit_down(player, settings.starting_stack, table, 1)
    arrivals = sorted((hand, player) for player, hand in late.items())
    hand = 0
    stopped_early = False
    while True:
        hand += 1
        draw = Draw(seed, "classic-tables", hand)
        arriving = []
        while arrivals and arrivals[0][0] <= hand:
            _, player = arrivals.pop(0)
            state.moves.append(
                seat_late_entrant(state.tables, player, settings.max_seats, draw, hand)
            )
            arriving.append(player)
        state.moves += rebalance(state.tables, settings.max_seats, draw, hand)
        # A broken table's blind position goes with it (a new table draws its button).
        state.last_big_blind = {
            table: seat for table, seat in state.last_big_blind.items() if table in state.tables
        }
        for player in arriving:
            # Counted at the table it plays at, once the tables are balanced.
            table = next(
                number for number, seats in state.tables.items() if player in seats.values()
            )
            dead = _late_dead_chips(state, hand, len(state.tables[table]))
            stack = settings.starting_stack - dead
            state.late.append(LateEntry(player, hand, table, dead, stack))
            state.sit_down(player, stack, table, hand)
        if len(state.stacks) < 2:
            if not arrivals:
                break
            hand = arrivals[0][0] - 1  # the lone survivor waits for the next entrant
            continue
        if hand > settings.max_hand_rounds:
            stopped_early = True
            break
        for table in sorted(state.tables):
            if len(state.tables[table]) >= 2:
                state.play_hand(table, hand)
        state.tables = {number: seats for number, seats in state.tables.items() if seats}
        state.hands_in_level += 1
        if state.hands_in_level >= state.level_length():
            state.level += 1
            state.hands_in_level = 0
    for seat in state.seats.values():
        seat.close()
    written = []
    if history_dir is not None and state.histories is not None:
        for table, texts in sorted(state.histories.items()):
            name = f"classic-t{table:02d}.phhs"
            body = "\n".join(f"[{number}]\n{text}" for number, text in enumerate(texts, 1))
            write_atomic(Path(history_dir) / name, body)
            written.append(f"histories/{name}")
    return ClassicOutcome(
        finishing_order=tuple(tuple(group) for group in finishing_order(state.stacks, state.busts)),
        hands=tuple(state.hands),
        busts=tuple(state.busts),
        moves=tuple(state.moves),
        late_entries=tuple(state.late),
        faults=tuple(state.faults),
        hand_rounds=max((record.hand for record in state.hands), default=0),
        final_level=state.level,
        stopped_early=stopped_early,
        histories=tuple(written),
    )
