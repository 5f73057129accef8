"""Betting: blinds, legal actions, applying an action, and moving from street to street.

The rules (docs/rules.md) in the terms this module uses:

- ``current_bet`` is the street total everyone must match: the largest street total, or
  before the flop at least the big blind, even when the big blind is all-in for less
  (the full big blind is still owed, as in the general rules of poker). A player *owes*
  the difference to it, but never more than any other player still in the hand could
  put in: facing only a short big blind all-in, a call matches the all-in.
- ``largest_increment`` is the largest bet-or-raise increment so far on the street
  (blinds are not increments). A *full raise* is at least ``max(largest_increment,
  big blind)``; the minimum raise-to is ``current_bet`` plus that.
- A player may not raise when: what they can call is less than ``largest_increment``;
  they have acted since the last full raise and owe less than a full raise (short
  all-ins do not reopen the betting unless, since the player acted, they add up to a
  full raise: TDA rule 47); they cannot cover more than the call; or no opponent could
  put in more than the current bet.
- Pot-limit maximum raise-to: ``current_bet + pot + owed`` where the pot holds every
  chip committed this deal, current bets included.
- At the start of a betting round, players who cannot lose more chips are skipped; if
  at most one player can act and owes nothing, the round is not played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp_arena.engine import showdown
from dp_arena.engine.actions import (
    CALL_KIND,
    CHECK_KIND,
    FOLD_KIND,
    RAISE_KIND,
    Action,
    ActionRecord,
    LegalActions,
    Street,
    make_action_record,
    make_legal_actions,
)
from dp_arena.engine.rules import Betting
from dp_arena.errors import IllegalActionError, IllegalReason

if TYPE_CHECKING:
    from dp_arena.engine.state import HandState

__all__ = ["apply_action", "legal_actions", "post_blinds"]


def post_blinds(state: HandState) -> None:
    """Post both blinds (a short stack posts what it has) and open the preflop betting."""
    rules = state.rules
    for seat, blind in (
        (state.small_blind_seat, rules.small_blind),
        (state.big_blind_seat, rules.big_blind),
    ):
        amount = min(blind, state.available[seat])
        state.available[seat] -= amount
        state.committed[seat] += amount
        state.street_bets[seat] += amount
    # A blind all-in for less leaves the full big blind owed: the bet to call is the big
    # blind and the minimum raise is to twice it, whatever the blinds posted.
    state.current_bet = rules.big_blind
    state.big_blind_unmatched = max(state.street_bets) < rules.big_blind
    _open_betting(state, first_seat=(state.big_blind_seat + 1) % rules.seat_count)


def _to_match(state: HandState, seat: int) -> int:
    """The street total ``seat`` must reach to call: the current bet, but while a short
    big blind leaves the full big blind owed with no one in for it yet, no more than the
    most any other player still in the hand could put in (the rest would be uncalled)."""
    current_bet = state.current_bet
    if not state.big_blind_unmatched:
        return current_bet
    folded = state.folded
    street_bets = state.street_bets
    available = state.available
    most = 0
    for other in range(len(folded)):
        if other != seat and not folded[other]:
            total = street_bets[other] + available[other]
            if total > most:
                most = total
    return min(current_bet, most)


def legal_actions(state: HandState) -> LegalActions:
    seat = state.actor
    if seat is None:
        raise IllegalActionError(IllegalReason.HAND_COMPLETE, "the hand is over; no one is to act")
    available = state.available[seat]
    bet = state.street_bets[seat]
    current_bet = state.current_bet
    owed = max(0, _to_match(state, seat) - bet)
    call_amount = min(available, owed)
    min_raise_to = max_raise_to = None
    if _may_raise(state, seat, call_amount, available, owed):
        big_blind = state.rules.big_blind
        full_raise = max(big_blind, state.largest_increment)
        all_in_to = bet + available
        min_raise_to = min(all_in_to, current_bet + full_raise)
        max_raise_to = all_in_to
        if state.rules.betting is Betting.POT_LIMIT:
            pot_to = 2 * current_bet - bet + sum(state.committed)
            max_raise_to = min(all_in_to, max(min_raise_to, pot_to))
    return make_legal_actions(seat, owed > 0, owed == 0, call_amount, min_raise_to, max_raise_to)


def _may_raise(state: HandState, seat: int, call_amount: int, available: int, owed: int) -> bool:
    if call_amount < state.largest_increment or available <= owed:
        return False
    if state.acted[seat] and owed < max(state.largest_increment, state.rules.big_blind):
        # Only short all-ins came since this player acted (a full raise clears ``acted``),
        # and what it owes is their sum: they do not reopen the betting to it.
        return False
    current_bet = state.current_bet
    folded = state.folded
    street_bets = state.street_bets
    available_list = state.available
    for other in range(state.rules.seat_count):
        if (
            other != seat
            and not folded[other]
            and street_bets[other] + available_list[other] > current_bet
        ):
            return True
    return False  # no one could call a raise


def apply_action(state: HandState, action: Action) -> ActionRecord:
    legal = state.legal_actions()
    refused = legal.refusal(action)  # the one legality check: nothing changes before it
    if refused is not None:
        raise refused
    seat = legal.seat
    kind = action.kind
    if kind is FOLD_KIND:
        state.folded[seat] = True
        record = make_action_record(seat, state.street, kind, 0, None, False)
    elif kind is CHECK_KIND:
        record = make_action_record(seat, state.street, kind, 0, None, state.available[seat] == 0)
    elif kind is CALL_KIND:
        chips = legal.call_amount
        _commit(state, seat, chips)
        record = make_action_record(
            seat, state.street, kind, chips, None, state.available[seat] == 0
        )
    else:  # a raise, to an integer amount the check found in bounds
        amount = action.amount
        assert amount is not None
        record = _raise(state, seat, amount)
    state.acted[seat] = True
    if state.big_blind_unmatched and state.street_bets[seat] >= state.current_bet:
        state.big_blind_unmatched = False
    state.history.append(record)
    state._legal = None
    _advance(state, seat)
    return record


def _commit(state: HandState, seat: int, chips: int) -> None:
    state.available[seat] -= chips
    state.committed[seat] += chips
    state.street_bets[seat] += chips


def _raise(state: HandState, seat: int, amount: int) -> ActionRecord:
    big_blind = state.rules.big_blind
    increment = amount - state.current_bet
    chips = amount - state.street_bets[seat]
    _commit(state, seat, chips)
    if increment >= max(state.largest_increment, big_blind):  # a full raise reopens the betting
        acted = state.acted
        for other in range(len(acted)):
            acted[other] = False
    if increment > state.largest_increment:
        state.largest_increment = increment
    all_in = state.available[seat] == 0
    state.current_bet = amount
    return make_action_record(seat, state.street, RAISE_KIND, chips, amount, all_in)


def _advance(state: HandState, last_seat: int) -> None:
    """Find the next player to act, or end the street (and perhaps the hand)."""
    folded = state.folded
    seat_count = len(folded)
    if folded.count(False) == 1:
        state.actor = None
        showdown.settle(state)
        return
    available = state.available
    acted = state.acted
    street_bets = state.street_bets
    current_bet = state.current_bet
    unmatched = state.big_blind_unmatched
    for offset in range(1, seat_count + 1):
        seat = (last_seat + offset) % seat_count
        if (
            not folded[seat]
            and available[seat]
            and (
                not acted[seat]
                or street_bets[seat] < (_to_match(state, seat) if unmatched else current_bet)
            )
        ):
            state.actor = seat
            return
    _end_street(state)


def _open_betting(state: HandState, first_seat: int) -> None:
    """Start a betting round with ``first_seat`` first in turn, or skip it when it cannot
    be played, dealing on to the showdown."""
    while True:
        seat_count = state.rules.seat_count
        folded = state.folded
        available = state.available
        street_bets = state.street_bets
        totals = sorted(street_bets[s] + available[s] for s in range(seat_count) if not folded[s])
        second_largest = totals[-2]
        queue = []
        for offset in range(seat_count):
            seat = (first_seat + offset) % seat_count
            # A player who cannot lose more chips (everyone else is all-in for less) sits out.
            can_act = (
                not folded[seat] and available[seat] > 0 and second_largest > street_bets[seat]
            )
            state.acted[seat] = not can_act
            if can_act:
                queue.append(seat)
        if len(queue) > 1 or (queue and street_bets[queue[0]] < state.current_bet):
            state.actor = queue[0]
            return
        if not _next_street(state):
            return
        first_seat = (state.button + 1) % seat_count


def _end_street(state: HandState) -> None:
    if _next_street(state):
        _open_betting(state, first_seat=(state.button + 1) % state.rules.seat_count)


def _next_street(state: HandState) -> bool:
    """Close the street's bets; deal the next street (True) or settle the hand (False)."""
    street_bets = state.street_bets
    for seat in range(len(street_bets)):
        street_bets[seat] = 0
    state.current_bet = 0
    state.largest_increment = 0
    state.big_blind_unmatched = False
    state.actor = None
    if state.street is Street.RIVER:
        state.street = Street.SHOWDOWN
        showdown.settle(state)
        return False
    state.street = Street(state.street + 1)
    return True
