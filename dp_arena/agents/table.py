"""Playing seats at a table: one deal (:func:`play_deal`) and a table-session of deals
(:func:`play_table_session`), the unit of work every event format is made of.

The table asks the seat to act, validates the answer with the engine, and turns every
failure into a recorded :class:`~dp_arena.results.Fault` and a check-or-fold. A seat
that answers with a mixed strategy (a :class:`~dp_arena.engine.mixes.Mix`) has every
action of it validated, and the table draws the action played from the event key
(:class:`~dp_arena.engine.mixes.MixDraws`); the deal's record keeps the mix beside the
action drawn. A seat
whose bot crashed, could not load, or reached the fault limit of the session plays the
rest of the session as an absent player. Nothing a bot does can stop the table.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import Seat, SeatFault
from dp_arena.engine import HandState, TableRules, button_for_deal, deck_for, new_hand
from dp_arena.engine.actions import Action, ActionRecord, LegalActions
from dp_arena.engine.cards import format_cards
from dp_arena.engine.mixes import Mix, MixDraws
from dp_arena.frozen import maker
from dp_arena.results import DealRecord, Fault, FaultKind, TableSessionResult

__all__ = [
    "FaultPolicy",
    "TableSession",
    "action_text",
    "deal_record",
    "observe",
    "play_deal",
    "play_table_session",
    "played",
]

# Made at every decision and for every seat at every deal: see dp_arena.frozen.
_observation = maker(Observation)
_session_context = maker(SessionContext)
_deal_start = maker(DealStart)
_deal_end = maker(DealEnd)
# The draws of a deal played outside any table-session (the event seed 0).
_NO_PLACE = MixDraws()


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """When a faulty seat is benched: after ``max_faults`` faults in one session, or at
    once on a crash or a failed load. A benched seat plays on as an absent player."""

    max_faults: int = 3


def observe(state: HandState, seat: int, context: SessionContext) -> Observation:
    """The observation of ``seat`` in ``state``. The player to act sees its legal actions;
    anyone else sees the same table with none (``to_call`` 0, no raise bounds)."""
    if state.actor == seat:
        legal = state.legal_actions()
        to_call, min_raise_to, max_raise_to = (
            legal.call_amount,
            legal.min_raise_to,
            legal.max_raise_to,
        )
        kinds = legal.kinds
    else:
        to_call, min_raise_to, max_raise_to, kinds = 0, None, None, ()
    rules = state.rules
    available, cap_gap = state.cap_graphic()
    hole = state.hole_cards[seat]
    assert hole is not None
    return _observation(
        seat=seat,
        seat_count=rules.seat_count,
        button=state.button,
        small_blind_seat=state.small_blind_seat,
        big_blind_seat=state.big_blind_seat,
        small_blind=rules.small_blind,
        big_blind=rules.big_blind,
        betting=rules.betting,
        cap=rules.cap,
        hole_cards=hole,
        board=state.visible_board,
        street=state.street,
        pot=state.pot_total,
        current_bet=state.current_bet,
        to_call=to_call,
        min_raise_to=min_raise_to,
        max_raise_to=max_raise_to,
        legal_actions=kinds,
        street_bets=tuple(state.street_bets),
        committed=tuple(state.committed),
        available=available,
        cap_gap=cap_gap,
        folded=tuple(state.folded),
        absent=state.absent,
        history=tuple(state.history),
        context=context,
    )


class TableSession:
    """The seats of one table for one session, with their faults and who is benched."""

    def __init__(
        self,
        seats: Sequence[Seat],
        players: Sequence[str],
        *,
        absent: Collection[int] = (),
        policy: FaultPolicy = FaultPolicy(),
    ) -> None:
        if len(seats) != len(players):
            raise ValueError("one player name per seat")
        self.seats = list(seats)
        self.players = tuple(players)
        self.absent = {
            seat for seat in range(len(seats)) if seat in absent or not seats[seat].active
        }
        self.policy = policy
        self.faults: list[Fault] = []
        self.fault_counts = [0] * len(seats)
        # The decisions of the deal last played that were drawn from a mix: (index of
        # the action in the deal's history, the mix).
        self.mixes: list[tuple[int, Mix]] = []

    def record(
        self,
        seat: int,
        fault: SeatFault,
        deal: int | None,
        street: str | None,
        substituted: str | None,
    ) -> None:
        self.faults.append(
            Fault(fault.kind, self.players[seat], seat, deal, street, fault.detail, substituted)
        )
        self.fault_counts[seat] += 1
        benching = fault.kind in (FaultKind.CRASH, FaultKind.LOAD_TIMEOUT, FaultKind.LOAD_ERROR)
        if (
            benching
            or self.fault_counts[seat] >= self.policy.max_faults
            or not self.seats[seat].active
        ):
            self.absent.add(seat)

    def tell(self, seat: int, fault: SeatFault | None, deal: int | None) -> None:
        if fault is not None:
            self.record(seat, fault, deal, None, None)


def play_deal(
    table: TableSession,
    rules: TableRules,
    deck: Sequence[int],
    *,
    deal: int,
    button: int,
    contexts: Sequence[SessionContext],
    stacks: Sequence[int] | None = None,
    draws: MixDraws = _NO_PLACE,
) -> HandState:
    """Play one deal to the end and return the finished hand. A decision answered with a
    mix is drawn by ``draws`` (the event key and the table-session's place); the
    decisions drawn are in ``table.mixes`` until the next deal."""
    state = new_hand(rules, deck, button=button, stacks=stacks, absent=table.absent)
    table.mixes = []
    seat_count = rules.seat_count
    for seat in range(seat_count):
        if seat not in table.absent:
            hole = state.hole_cards[seat]
            assert hole is not None
            start = _deal_start(seat, seat_count, button, hole, contexts[seat])
            table.tell(seat, table.seats[seat].begin_deal(start), deal)
    while state.actor is not None:
        seat = state.actor
        legal = state.legal_actions()
        if seat in table.absent:
            state.apply(legal.passive())
            continue
        answer = table.seats[seat].decide(observe(state, seat, contexts[seat]))
        if isinstance(answer, SeatFault):
            fault = answer
        elif isinstance(answer, Mix):
            refused = answer.refusal(legal)
            if refused is None:
                if answer.pure is None:
                    table.mixes.append((len(state.history), answer))
                state.apply(draws.at(answer, deal, state))
                continue
            fault = SeatFault(FaultKind.ILLEGAL, f"{refused}; legal: {_describe_legal(legal)}")
        elif legal.allows(answer):
            state.apply(answer)
            continue
        else:
            fault = SeatFault(FaultKind.ILLEGAL, f"{answer} is not legal: {_describe_legal(legal)}")
        substitute = legal.passive()
        table.record(seat, fault, deal, state.street.name.lower(), substitute.kind.value)
        state.apply(substitute)
    assert state.payoffs is not None
    shown = tuple(
        state.hole_cards[seat] if seat in state.showdown_values else None
        for seat in range(seat_count)
    )
    board = state.board if state.showdown_values else state.visible_board
    history = tuple(state.history)
    for seat in range(seat_count):
        if seat not in table.absent:
            end = _deal_end(
                seat=seat,
                net=state.payoffs[seat],
                nets=state.payoffs,
                board=board,
                shown_cards=shown,
                history=history,
                context=contexts[seat],
            )
            table.tell(seat, table.seats[seat].end_deal(end), deal)
    return state


def played(
    answer: Action | Mix | SeatFault, legal: LegalActions, draws: MixDraws, deal: int, decision: int
) -> Action:
    """The action played for a seat's answer when nobody records faults (the
    environments): a legal action as it is, an action drawn from a legal mix as a table
    draws it (``decision``: the index of the action in the deal), else the passive action."""
    if isinstance(answer, Mix):
        if answer.refusal(legal) is None:
            return draws.action(answer, deal, decision)
        return legal.passive()
    return legal.or_passive(answer)


def _describe_legal(legal: object) -> str:
    from dp_arena.engine.actions import LegalActions

    assert isinstance(legal, LegalActions)
    options = [kind.value for kind in legal.kinds if kind.value != "raise"]
    if legal.can_call:
        options[options.index("call")] = f"call {legal.call_amount}"
    if legal.can_raise:
        options.append(f"raise {legal.min_raise_to}..{legal.max_raise_to}")
    return ", ".join(options)


def deal_record(
    state: HandState,
    deal: int,
    players: Sequence[str],
    mixes: Sequence[tuple[int, Mix]] = (),
) -> DealRecord:
    """The result record of a finished hand (``mixes``: its decisions drawn from a mix)."""
    assert state.payoffs is not None
    board = state.board if state.showdown_values else state.visible_board
    return DealRecord(
        deal=deal,
        button=state.button,
        players=tuple(players),
        hole_cards=tuple("" if hole is None else format_cards(hole) for hole in state.hole_cards),
        board=format_cards(board),
        actions=tuple(action_text(record) for record in state.history),
        nets=state.payoffs,
        absent=tuple(seat for seat, absent in enumerate(state.absent) if absent),
        mixes=tuple((decision, str(mix)) for decision, mix in mixes),
    )


def action_text(record: ActionRecord) -> str:
    """An action as a deal's record keeps it: ``"3:raise 120"``, ``"0:fold"``."""
    if record.raise_to is not None:
        return f"{record.seat}:raise {record.raise_to}"
    return f"{record.seat}:{record.kind.value}"


def _deal_context(
    base: SessionContext,
    deal: int,
    session_net: int,
    session_chips: int,
    table_session_nets: tuple[int, ...] | None,
) -> SessionContext:
    """``base`` for one seat at one deal (``dataclasses.replace`` costs several times
    more, and a table-session makes one for every seat at every deal)."""
    return _session_context(
        event=base.event,
        section=base.section,
        session=base.session,
        table=base.table,
        deal_number=deal,
        deals_in_session=base.deals_in_session,
        session_net=session_net,
        session_chips=session_chips,
        eliminating=base.eliminating,
        table_session_nets=table_session_nets,
        seat_position_rank=base.seat_position_rank,
    )


def play_table_session(
    table: TableSession,
    rules: TableRules,
    *,
    event_seed: int,
    section: int,
    session: int,
    deals: int,
    context: SessionContext,
    starting_chips: Sequence[int] | None = None,
    table_index: int = 0,
    on_deal: Callable[[int, HandState], None] | None = None,
    draws: MixDraws | None = None,
) -> TableSessionResult:
    """Play ``deals`` deals of a session at one table (the button starts at seat 0 and
    moves one seat a deal) and return the result. ``context`` is the shared part of every
    seat's :class:`SessionContext`; ``starting_chips`` each seat's starting stack plus
    carryover (default: cap × deals). ``on_deal`` sees every finished hand, e.g. to
    write its hand history. Mixed answers are drawn from the event key at the
    table-session's place (``draws``: another way, for a measurement)."""
    seat_count = rules.seat_count
    if starting_chips is None:
        starting_chips = [(rules.cap or 0) * deals] * seat_count
    base = replace(context, table=table_index, deals_in_session=deals)
    for seat in range(seat_count):
        if seat not in table.absent:
            seat_context = replace(base, session_chips=starting_chips[seat])
            table.tell(seat, table.seats[seat].begin_session(seat_context), None)
    session_nets = [0] * seat_count
    records = []
    draws = draws or MixDraws(event_seed, section, session, table_index)
    for deal in range(deals):
        deck = deck_for(event_seed, section, session, deal)
        visible_nets = None if base.eliminating else tuple(session_nets)
        contexts = [
            _deal_context(
                base,
                deal,
                session_nets[seat],
                starting_chips[seat] + session_nets[seat],
                visible_nets,
            )
            for seat in range(seat_count)
        ]
        state = play_deal(
            table,
            rules,
            deck,
            deal=deal,
            button=button_for_deal(deal, seat_count),
            contexts=contexts,
            draws=draws,
        )
        assert state.payoffs is not None
        for seat in range(seat_count):
            session_nets[seat] += state.payoffs[seat]
        records.append(deal_record(state, deal, table.players, table.mixes))
        if on_deal is not None:
            on_deal(deal, state)
    return TableSessionResult(
        table=table_index,
        players=table.players,
        deals=tuple(records),
        faults=tuple(table.faults),
        absent_seats=tuple(sorted(table.absent)),
    )
