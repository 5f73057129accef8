"""Hand-computed scenarios: hands with explicit cards, played action by action, checked
against legal-action sizes and chip counts worked out by hand (docs/rules.md, the classic
house rules).

Every expected number is derived in a comment from the rules, not read off the engine.
Blinds are 10/20 unless a test says otherwise.
"""

from __future__ import annotations

import doctest
from collections.abc import Sequence
from pathlib import Path

import pytest

from dp_arena.engine import (
    Action,
    ActionKind,
    Betting,
    HandState,
    LegalActions,
    Pot,
    Street,
    TableRules,
    parse_cards,
)
from dp_arena.errors import IllegalActionError, IllegalReason

FOLD, CHECK, CALL = Action.fold(), Action.check(), Action.call()
BOARD = "2c7d9hJsQs"  # no straight or flush for the hole cards used below
# Hole cards in order of strength on BOARD: pair of aces > kings > eights > queen high.
BEST, SECOND, THIRD, WORST, OTHER = "AsAh", "KdKh", "8h8d", "3d4h", "5c6h"
ROYAL_BOARD = "AsKsQsJsTs"  # the board plays for everyone: every hand ties


def raise_to(amount: int) -> Action:
    return Action.raise_to(amount)


def rules(
    seat_count: int,
    *,
    betting: Betting = Betting.NO_LIMIT,
    blinds: tuple[int, int] = (10, 20),
    cap: int | None = 1000,
) -> TableRules:
    return TableRules(seat_count, blinds[0], blinds[1], betting, cap)


def deal(
    table: TableRules,
    *,
    button: int,
    holes: Sequence[str],
    board: str = BOARD,
    stacks: Sequence[int] | None = None,
    absent: Sequence[int] = (),
) -> HandState:
    if stacks is None:
        assert table.cap is not None
        stacks = [table.cap] * table.seat_count
    hole_cards = [parse_cards(hole) for hole in holes]
    return HandState(
        table,
        button=button,
        stacks=stacks,
        hole_cards=[(hole[0], hole[1]) for hole in hole_cards],
        board=parse_cards(board),
        absent=absent,
    )


def play(state: HandState, *actions: Action) -> None:
    for action in actions:
        state.apply(action)


def refused(state: HandState, action: object) -> IllegalReason:
    """The reason the engine gives for refusing ``action``; the state must not change."""
    before = (
        state.actor,
        state.street,
        list(state.committed),
        list(state.available),
        len(state.history),
    )
    with pytest.raises(IllegalActionError) as caught:
        state.apply(action)  # type: ignore[arg-type]
    after = (
        state.actor,
        state.street,
        list(state.committed),
        list(state.available),
        len(state.history),
    )
    assert after == before
    return caught.value.reason


def legal(state: HandState) -> tuple[int, bool, bool, int, int | None, int | None]:
    """The legal actions as (seat, can_fold, can_check, call_amount, min_raise_to, max_raise_to)."""
    actions = state.legal_actions()
    return (
        actions.seat,
        actions.can_fold,
        actions.can_check,
        actions.call_amount,
        actions.min_raise_to,
        actions.max_raise_to,
    )


# -- blinds and order of action (docs/rules.md) -------------------------------------------


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after() -> None:
    state = deal(rules(2), button=1, holes=[BEST, SECOND])
    # The button (seat 1) posts the small blind, seat 0 the big blind.
    assert (state.small_blind_seat, state.big_blind_seat) == (1, 0)
    assert state.committed == [20, 10]
    # The button acts first: it owes 10; a raise goes to at least 20 + 20 = 40, at most
    # its whole cap (10 posted + 990 left = 1000).
    assert legal(state) == (1, True, False, 10, 40, 1000)
    play(state, CALL)
    # The big blind has its option: check, or raise to 40..1000.
    assert legal(state) == (0, False, True, 0, 40, 1000)
    play(state, CHECK)
    # After the flop the big blind acts first and the button last.
    assert (state.street, state.actor) == (Street.FLOP, 0)
    play(state, CHECK)
    assert state.actor == 1
    play(state, CHECK)
    assert (state.street, state.actor) == (Street.TURN, 0)
    play(state, raise_to(20), FOLD)
    # 20 each went in preflop; the turn bet of 20 comes back uncalled: +20 / -20.
    assert state.payoffs == (20, -20)
    assert state.final_stacks == (1020, 980)


def test_six_handed_order_preflop_and_after_the_flop() -> None:
    state = deal(rules(6), button=3, holes=[BEST, SECOND, THIRD, WORST, OTHER, "9c9s"])
    # Small blind left of the button (4), big blind next (5); the first to act preflop
    # is left of the big blind (0), then around the table.
    assert (state.small_blind_seat, state.big_blind_seat) == (4, 5)
    seen = []
    for action in (CALL, CALL, CALL, CALL, FOLD):
        seen.append(state.actor)
        state.apply(action)
    assert seen == [0, 1, 2, 3, 4]
    play(state, CHECK)  # the big blind's option
    # After the flop the first still in left of the button acts: the small blind folded,
    # so the big blind (5), then 0, 1, 2 and the button (3) last.
    seen = []
    for _ in range(5):
        seen.append(state.actor)
        state.apply(CHECK)
    assert seen == [5, 0, 1, 2, 3]
    assert (state.street, state.actor) == (Street.TURN, 5)


def test_equal_blinds_first_to_act_is_left_of_the_big_blind() -> None:
    state = deal(rules(4, blinds=(20, 20)), button=0, holes=[BEST, SECOND, THIRD, WORST])
    # Seats 1 and 2 post 20 each; seat 3 acts first, owes 20, may raise to 20 + 20 = 40.
    assert state.committed == [0, 20, 20, 0]
    assert legal(state)[:5] == (3, True, False, 20, 40)


# -- bet sizes (docs/rules.md; the classic house rules' "Re-raises") ----------------


def test_minimum_raise_preflop_is_the_big_blind_then_the_largest_raise() -> None:
    state = deal(rules(4), button=3, holes=[BEST, SECOND, THIRD, WORST])
    # Seat 2 opens: current bet 20, the minimum raise is one big blind: to 40.
    assert legal(state)[4] == 40
    assert refused(state, raise_to(39)) is IllegalReason.RAISE_BELOW_MIN
    play(state, raise_to(70))  # a raise of 50
    # The next raise must also be by at least 50: to 120.
    assert legal(state)[3:5] == (70, 120)
    play(state, raise_to(120))
    assert legal(state)[3:5] == (110, 170)  # the small blind has 10 in: owes 110; min 120 + 50


def test_seed_003_re_raise_example() -> None:
    # Seed 003: "Player A starts the betting at $100, Player B raises $400 to $500, Player C
    # calls. If Player D now wants to re-raise, he must raise by $400 or more."
    state = deal(rules(4), button=3, holes=[BEST, SECOND, THIRD, WORST])
    play(state, CALL, CALL, CALL, CHECK)  # 20 each preflop; pot 80
    assert (state.street, state.actor) == (Street.FLOP, 0)  # A = seat 0, B = 1, C = 2, D = 3
    # The first bet of a street is at least the big blind; at most the 980 A has left.
    assert legal(state)[4:] == (20, 980)
    play(state, raise_to(100))
    assert legal(state)[3:5] == (100, 200)  # B: call 100, or raise by at least 100
    play(state, raise_to(500))
    assert legal(state)[3:5] == (500, 900)  # C: call 500, or raise by at least 400
    play(state, CALL)
    assert legal(state) == (3, True, False, 500, 900, 980)  # D: raise to 500 + 400 or more
    assert refused(state, raise_to(899)) is IllegalReason.RAISE_BELOW_MIN
    play(state, raise_to(900))
    # A owes 800 and has 880 left: a full re-raise (to 1300) is out of reach, so the only
    # raise is all-in for less, to A's street total 100 + 880 = 980.
    assert legal(state) == (0, True, False, 800, 980, 980)
    play(state, FOLD, FOLD, FOLD)
    # D's last 400 is uncalled and returns. D wins A's 20 + 100, B's and C's 20 + 500:
    # 120 + 520 + 520 = 1160.
    assert state.payoffs == (-120, -520, -520, 1160)


def test_pot_limit_maximum_on_every_street() -> None:
    table = rules(4, betting=Betting.POT_LIMIT)
    state = deal(table, button=3, holes=[WORST, SECOND, BEST, THIRD])
    # Max raise-to = current bet + (pot + what the raiser must first call).
    # Preflop, UTG (2): 20 + (10 + 20) + 20 = 70.
    assert legal(state)[3:] == (20, 40, 70)
    play(state, raise_to(70))
    # Button (3) after a raise: pot 100, owes 70: 70 + 100 + 70 = 240.
    assert legal(state)[3:] == (70, 120, 240)
    play(state, CALL)
    # Small blind (0): pot 170, owes 60 (10 posted): 70 + 170 + 60 = 300.
    assert legal(state)[3:] == (60, 120, 300)
    play(state, FOLD)
    # Big blind (1): owes 50: 70 + 170 + 50 = 290.
    assert legal(state)[3:] == (50, 120, 290)
    play(state, CALL)
    # Flop, pot 10 + 3 * 70 = 220. The first bet is at most the pot; the small blind has
    # folded, so the big blind (1) acts first.
    assert state.actor == 1 and legal(state)[3:] == (0, 20, 220)
    play(state, raise_to(40))
    # UTG facing a bet of 40: 40 + (220 + 40) + 40 = 340; a raise is at least to 80.
    assert legal(state)[3:] == (40, 80, 340)
    play(state, raise_to(120))
    # Button facing the raise: pot 220 + 40 + 120 = 380, owes 120: 120 + 380 + 120 = 620.
    assert legal(state)[3:] == (120, 200, 620)
    play(state, FOLD)
    # Big blind: owes 80: 120 + 380 + 80 = 580.
    assert legal(state)[3:] == (80, 200, 580)
    play(state, CALL)
    # Turn, pot 220 + 2 * 120 = 460: a first bet of at most 460.
    assert legal(state)[3:] == (0, 20, 460)
    play(state, CHECK)
    play(state, raise_to(100))
    # Big blind facing 100: 100 + 560 + 100 = 760, within the 810 it has left of the cap.
    assert legal(state)[3:] == (100, 200, 760)
    play(state, CALL)
    # River, pot 660. UTG has 1000 - 290 = 710 left of the cap: it may bet the pot, 660.
    play(state, CHECK)
    assert legal(state)[3:] == (0, 20, 660)
    play(state, raise_to(660))
    # The big blind has 710 left: pot-limit would allow 660 + 1320 + 660, a full raise
    # needs 1320; the cap leaves only all-in for less, to 710.
    assert legal(state)[3:] == (660, 710, 710)
    play(state, CALL)
    # UTG's aces win 10 + 950 + 950 + 70 = 1980, of which 950 were its own.
    assert state.payoffs == (-10, -950, 1030, -70)


def test_pot_limit_heads_up_small_blind_may_raise_to_three_big_blinds() -> None:
    state = deal(rules(2, betting=Betting.POT_LIMIT), button=0, holes=[BEST, SECOND])
    # The button calls 10 (pot 40) and raises 40: to 60.
    assert legal(state)[3:] == (10, 40, 60)


# -- short all-ins (docs/rules.md, TDA rule 47) -------------------------------------------


def _short_all_in_flop() -> HandState:
    """Three-handed, no cap: seat 1 has 150. Everyone limps; pot 60. On the flop seat 0
    bets 100 and seat 1 goes all-in for its last 130: a raise of 30, less than a full one."""
    state = deal(
        rules(3, cap=None), button=2, holes=[SECOND, BEST, THIRD], stacks=[1000, 150, 1000]
    )
    play(state, CALL, CALL, CHECK)
    assert (state.street, state.actor) == (Street.FLOP, 0)
    play(state, raise_to(100))
    # Seat 1 cannot make a full raise (to 200): its only raise is all-in, to 130.
    assert legal(state) == (1, True, False, 100, 130, 130)
    play(state, raise_to(130))
    return state


def test_short_all_in_does_not_reopen_the_betting() -> None:
    state = _short_all_in_flop()
    # Seat 2 has not acted: it may raise, by at least the bet of 100: to 230.
    assert legal(state) == (2, True, False, 130, 230, 980)
    play(state, CALL)
    # Seat 0 has acted and faces only 30 more: it may call or fold, not raise.
    assert legal(state) == (0, True, False, 30, None, None)
    assert refused(state, raise_to(230)) is IllegalReason.RAISE_NOT_ALLOWED
    play(state, CALL)
    play(state, CHECK, CHECK, CHECK, CHECK)  # turn and river between seats 0 and 2
    # 150 each: seat 1's aces win 450.
    assert state.payoffs == (-150, 300, -150)


def test_a_full_raise_after_the_short_all_in_reopens_the_betting() -> None:
    state = _short_all_in_flop()
    play(state, raise_to(230))  # seat 2 raises by 100 over 130: a full raise
    # Seat 0 faces a full raise: it may re-raise by at least 100, to 330.
    assert legal(state)[3:5] == (130, 330)


def _five_handed_flop(stacks: Sequence[int]) -> HandState:
    # Button 4, blinds 0 and 1; everyone limps for 20 (pot 100); seat 0 acts first on the flop.
    state = deal(
        rules(5, cap=None), button=4, holes=[WORST, BEST, SECOND, THIRD, OTHER], stacks=stacks
    )
    play(state, CALL, CALL, CALL, CALL, CHECK)
    assert (state.street, state.actor) == (Street.FLOP, 0)
    return state


def test_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting() -> None:
    # TDA: A bets 100, B all-in to 150, C all-in to 200: A now faces a raise of 100, a
    # full raise, and may re-raise.
    state = _five_handed_flop([2000, 170, 220, 2000, 2000])
    play(state, raise_to(100), raise_to(150))
    assert legal(state) == (2, True, False, 150, 200, 200)  # C: all-in to 200 is its only raise
    play(state, raise_to(200), CALL, FOLD)
    assert legal(state) == (0, True, False, 100, 300, 1980)
    play(state, raise_to(300), CALL)
    play(state, CHECK, CHECK, CHECK, CHECK)
    # Deal totals: 320, 170, 220, 320, 20 (seat 4 folded its 20).
    # Main pot 4 * 170 + 20 = 700 to seat 1 (aces); side pot 3 * 50 = 150 to seat 2
    # (kings); side pot 2 * 100 = 200 to seat 3 (eights) over seat 0 (queen high).
    assert state.pots == (
        Pot(700, (0, 1, 2, 3), (1,)),
        Pot(150, (0, 2, 3), (2,)),
        Pot(200, (0, 3), (3,)),
    )
    assert state.payoffs == (-320, 700 - 170, 150 - 220, 200 - 320, -20)


def test_each_player_is_reopened_only_by_a_full_raise_since_it_acted() -> None:
    # A bets 100, B all-in to 150, C calls 150, D all-in to 200. A has faced 100 since it
    # acted (a full raise): it may re-raise. C has faced only 50: it may not.
    state = _five_handed_flop([2000, 170, 2000, 220, 2000])
    play(state, raise_to(100), raise_to(150), CALL, raise_to(200), FOLD)
    assert legal(state) == (0, True, False, 100, 300, 1980)
    play(state, CALL)
    assert legal(state) == (2, True, False, 50, None, None)


def test_three_short_all_ins_reopen_for_whoever_faces_a_full_raise() -> None:
    # A bets 100, B all-in to 150, C all-in to 200, D all-in to 210, E calls 210. A faces
    # 110 more than its bet, at least a full raise of 100, so (TDA rule 47) it may
    # re-raise, to at least 210 + 100 = 310.
    state = _five_handed_flop([2000, 170, 220, 230, 2000])
    play(state, raise_to(100), raise_to(150), raise_to(200), raise_to(210), CALL)
    assert legal(state) == (0, True, False, 110, 310, 1980)
    play(state, raise_to(310), CALL, CHECK, CHECK, CHECK, CHECK)
    # Deal totals 330, 170, 220, 230, 330. Pots: 5 * 170 = 850 to seat 1 (aces);
    # 4 * 50 = 200 to seat 2 (kings); 3 * 10 = 30 to seat 3 (eights); 2 * 100 = 200 to
    # seat 4 (queen-jack-nine-seven-six) over seat 0 (queen-jack-nine-seven-four).
    assert state.payoffs == (-330, 850 - 170, 200 - 220, 30 - 230, 200 - 330)


def test_short_all_in_first_raise_preflop_does_not_let_a_limper_re_raise() -> None:
    # Seat 2 limps for 20; seat 3 goes all-in for 35, a raise of 15, less than a big
    # blind. Back to seat 2, who has acted and faces 15: call or fold only.
    state = deal(
        rules(4, cap=None),
        button=3,
        holes=[WORST, SECOND, BEST, THIRD],
        stacks=[1000, 1000, 1000, 35],
    )
    play(state, CALL, raise_to(35))
    # The blinds have not acted: they may raise, by at least a big blind: to 55.
    assert legal(state) == (0, True, False, 25, 55, 1000)
    play(state, CALL)
    assert legal(state) == (1, True, False, 15, 55, 1000)
    play(state, CALL)
    assert legal(state) == (2, True, False, 15, None, None)


# -- short blinds: the full big blind is still owed (docs/rules.md) ------------------
# Only the classic freezeout (no cap, stacks carried from deal to deal) can deal a blind
# to a player with less than the blind: in the capped formats everyone has the cap.


def test_a_big_blind_all_in_for_less_leaves_the_full_big_blind_owed() -> None:
    # Three-handed, no cap, blinds 10/20, button 0; the big blind (seat 2) has only 15
    # and posts it all-in.
    state = deal(rules(3, cap=None), button=0, holes=[SECOND, WORST, BEST], stacks=[1000, 1000, 15])
    assert state.committed == [0, 10, 15] and state.is_all_in(2)
    # The button owes the full big blind, 20 (not 15), and a raise is to at least
    # 20 + 20 = 40 (not 15 + 20 = 35).
    assert legal(state) == (0, True, False, 20, 40, 1000)
    assert refused(state, raise_to(35)) is IllegalReason.RAISE_BELOW_MIN
    play(state, CALL)
    # The small blind owes 20 - 10 = 10 and may raise to 40 too.
    assert legal(state) == (1, True, False, 10, 40, 1000)
    play(state, CALL)
    # The big blind is all-in; the two others check it down.
    assert (state.street, state.actor) == (Street.FLOP, 1)
    play(state, *[CHECK] * 6)
    # Main pot 3 x 15 = 45 (all three), side pot 2 x 5 = 10 (button and small blind):
    # the big blind's aces take 45, the button's kings 10.
    assert state.pots == (Pot(45, (0, 1, 2), (2,)), Pot(10, (0, 1), (0,)))
    assert state.payoffs == (-10, -20, 30)


def test_after_a_short_big_blind_a_raise_to_40_is_full() -> None:
    state = deal(rules(3, cap=None), button=0, holes=[SECOND, WORST, BEST], stacks=[1000, 1000, 15])
    play(state, raise_to(40))  # a raise of 20 over the 20 owed: a full raise
    # The small blind owes 30; a re-raise must add at least 20 more: to 60.
    assert legal(state) == (1, True, False, 30, 60, 1000)
    play(state, FOLD)
    # The button and the all-in big blind see the board. Pot of the big blind's level:
    # button 15 + small blind 10 (folded) + big blind 15 = 40, to the aces; the button's
    # other 25 were called by no one and come back.
    assert state.is_complete
    assert state.pots == (Pot(40, (0, 2), (2,)), Pot(25, (0,), (0,)))
    assert state.payoffs == (-15, -10, 25)


def test_facing_only_a_short_big_blind_a_call_matches_the_all_in() -> None:
    state = deal(rules(3, cap=None), button=0, holes=[SECOND, WORST, BEST], stacks=[1000, 1000, 15])
    play(state, FOLD)
    # Only the big blind's 15 can be matched: the small blind owes 5 (not 10, which would
    # put in 5 that no one could call), and there is no one to raise against.
    assert legal(state) == (1, True, False, 5, None, None)
    play(state, CALL)
    assert state.is_complete and state.pots == (Pot(30, (1, 2), (2,)),)
    assert state.payoffs == (0, -15, 15)


def test_a_big_blind_shorter_than_the_small_blind_still_leaves_20_owed() -> None:
    # The small blind posts its 10; the big blind has 8 and posts them all-in. The others
    # owe 20 (not the larger posted blind, 10) and may raise to 40 (not 30).
    state = deal(rules(3, cap=None), button=0, holes=[SECOND, WORST, BEST], stacks=[1000, 1000, 8])
    assert legal(state) == (0, True, False, 20, 40, 1000)
    play(state, CALL)
    assert legal(state) == (1, True, False, 10, 40, 1000)
    play(state, CALL, *[CHECK] * 6)
    # Main pot 3 x 8 = 24 to the aces; side pot 2 x 12 = 24 to the button's kings.
    assert state.pots == (Pot(24, (0, 1, 2), (2,)), Pot(24, (0, 1), (0,)))
    assert state.payoffs == (4, -20, 16)


def test_a_small_blind_all_in_for_less_changes_nothing_owed() -> None:
    # The small blind (seat 1) has 5 and posts them all-in; the big blind posts 20. The
    # button owes 20 and may raise to 40, as with full blinds.
    state = deal(rules(3, cap=None), button=0, holes=[SECOND, BEST, THIRD], stacks=[1000, 5, 1000])
    assert state.committed == [0, 5, 20]
    assert legal(state) == (0, True, False, 20, 40, 1000)
    play(state, CALL)
    # The big blind has its option: check, or raise to 40.
    assert legal(state) == (2, False, True, 0, 40, 1000)
    play(state, CHECK)
    # After the flop the all-in small blind is skipped: the big blind acts first.
    assert (state.street, state.actor) == (Street.FLOP, 2)
    play(state, *[CHECK] * 6)
    # Main pot 3 x 5 = 15 to the small blind's aces; side pot 2 x 15 = 30 to the button's
    # kings over the big blind's eights.
    assert state.pots == (Pot(15, (0, 1, 2), (1,)), Pot(30, (0, 2), (0,)))
    assert state.payoffs == (10, 10, -20)


def test_both_blinds_all_in_for_less_leave_the_full_big_blind_owed() -> None:
    # Four-handed, button 0: the small blind (1) has 5, the big blind (2) has 15.
    state = deal(
        rules(4, cap=None),
        button=0,
        holes=[WORST, BEST, SECOND, THIRD],
        stacks=[1000, 5, 15, 1000],
    )
    assert state.committed == [0, 5, 15, 0]
    assert legal(state) == (3, True, False, 20, 40, 1000)
    play(state, CALL)
    assert legal(state) == (0, True, False, 20, 40, 1000)
    play(state, CALL, *[CHECK] * 6)
    # Pots by level: 4 x 5 = 20 (all), 3 x 10 = 30 (button, big blind, seat 3), 2 x 5 = 10
    # (button, seat 3). Aces (1), kings (2) and eights (3) take one each.
    assert state.pots == (
        Pot(20, (0, 1, 2, 3), (1,)),
        Pot(30, (0, 2, 3), (2,)),
        Pot(10, (0, 3), (3,)),
    )
    assert state.payoffs == (-20, 15, 15, -10)


def test_heads_up_short_blinds() -> None:
    table = rules(2, cap=None)
    # The big blind (seat 1) is all-in for 15: the button, who posted 10, owes only the 5
    # that match it (the only opponent cannot call more), and may not raise.
    state = deal(table, button=0, holes=[BEST, SECOND], stacks=[1000, 15])
    assert legal(state) == (0, True, False, 5, None, None)
    play(state, CALL)
    assert state.is_complete and state.pots == (Pot(30, (0, 1), (0,)),)
    assert state.payoffs == (15, -15)
    # Folding instead gives the big blind the button's 10; its own 5 beyond come back.
    state = deal(table, button=0, holes=[BEST, SECOND], stacks=[1000, 15])
    play(state, FOLD)
    assert state.payoffs == (-10, 10)
    # A big blind all-in for 8, less than the small blind: no one can act. 2 x 8 = 16 is
    # contested; the button's other 2 come back.
    state = deal(table, button=0, holes=[WORST, BEST], stacks=[1000, 8])
    assert state.is_complete and state.history == []
    assert state.pots == (Pot(16, (0, 1), (1,)), Pot(2, (0,), (0,)))
    assert state.payoffs == (-8, 8)
    # The button all-in for 5 in the small blind: the big blind cannot lose more than 5.
    state = deal(table, button=0, holes=[BEST, SECOND], stacks=[5, 1000])
    assert state.is_complete and state.pots == (Pot(10, (0, 1), (0,)), Pot(15, (1,), (1,)))
    assert state.payoffs == (5, -5)


# -- all-ins, side pots and uncalled bets (docs/rules.md) -----------------------------


def test_three_all_ins_at_different_levels_make_side_pots() -> None:
    # No cap; stacks 100, 250, 400, 1000. Button 3: blinds 0 and 1, UTG 2 moves all in.
    state = deal(
        rules(4, cap=None),
        button=3,
        holes=[BEST, SECOND, THIRD, WORST],
        stacks=[100, 250, 400, 1000],
    )
    play(state, raise_to(400), CALL)
    assert legal(state)[3] == 90  # the small blind can only call its last 90
    play(state, CALL)
    assert legal(state)[3] == 230  # the big blind can only call its last 230
    play(state, CALL)
    # Everyone but seat 3 is all-in: the board is dealt without betting.
    assert state.is_complete and state.street is Street.SHOWDOWN
    # Main pot 4 * 100 = 400 to seat 0; side 3 * 150 = 450 to seat 1; side 2 * 150 = 300
    # to seat 2 (eights beat seat 3's queen high).
    assert state.pots == (
        Pot(400, (0, 1, 2, 3), (0,)),
        Pot(450, (1, 2, 3), (1,)),
        Pot(300, (2, 3), (2,)),
    )
    assert state.payoffs == (300, 200, -100, -400)
    assert state.final_stacks == (400, 450, 300, 600)


def test_uncalled_part_of_an_all_in_returns_to_its_bettor() -> None:
    # Heads-up, cap 1000: the button shoves 1000; seat 1 has only 400 and calls all-in.
    state = deal(rules(2), button=0, holes=[SECOND, BEST], stacks=[1000, 400])
    play(state, raise_to(1000))
    assert legal(state) == (1, True, False, 380, None, None)
    play(state, CALL)
    # 800 is contested and won by seat 1's aces; the other 600 returns to seat 0.
    assert state.pots == (Pot(800, (0, 1), (1,)), Pot(600, (0,), (0,)))
    assert state.payoffs == (-400, 400)


def test_the_last_bet_folded_to_is_returned() -> None:
    state = deal(rules(3), button=0, holes=[BEST, SECOND, THIRD])
    play(state, raise_to(60), FOLD, FOLD)
    # Seat 0 wins the blinds: 10 + 20; its raise beyond them is uncalled.
    assert state.payoffs == (30, -10, -20)


# -- split pots and odd chips (docs/rules.md; the house rules' "Odd chips") ---------


def test_split_pot_odd_chip_goes_left_of_the_button() -> None:
    # Blinds 5/10, button 0. Seat 0 limps, the small blind folds, all check down. The
    # board is a royal flush: seats 0 and 2 tie for the pot of 10 + 5 + 10 = 25.
    state = deal(rules(3, blinds=(5, 10)), button=0, holes=[BEST, SECOND, THIRD], board=ROYAL_BOARD)
    play(state, CALL, FOLD, CHECK)
    play(state, *[CHECK] * 6)
    # 12 each and the odd chip to the first winner left of the button: seat 2.
    assert state.pots == (Pot(25, (0, 2), (0, 2)),)
    assert state.payoffs == (12 - 10, -5, 13 - 10)


def test_odd_chips_go_one_at_a_time_among_three_winners() -> None:
    # Blinds 5/10, button 3. Seats 2 and 3 limp, the small blind (0) folds, the big blind
    # checks; all tie on a royal flush board for 10 + 10 + 10 + 5 = 35 = 3 * 11 + 2.
    state = deal(
        rules(4, blinds=(5, 10)), button=3, holes=[BEST, SECOND, THIRD, WORST], board=ROYAL_BOARD
    )
    play(state, CALL, CALL, FOLD, CHECK)
    play(state, *[CHECK] * 9)
    # The two odd chips go to seats 1 and 2, the first winners left of the button; one
    # each, not both to seat 1.
    assert state.payoffs == (-5, 12 - 10, 12 - 10, 11 - 10)


def test_odd_chip_order_wraps_around_the_table() -> None:
    # Blinds 5/10, button 2: seat 0 is the small blind, seat 1 the big blind. Seat 2
    # limps, seat 0 folds, seat 1 checks: 25 split between seats 1 and 2. Left of the
    # button comes seat 0 (folded), then seat 1: the odd chip is seat 1's.
    state = deal(rules(3, blinds=(5, 10)), button=2, holes=[BEST, SECOND, THIRD], board=ROYAL_BOARD)
    play(state, CALL, FOLD, CHECK, *[CHECK] * 6)
    assert state.payoffs == (-5, 13 - 10, 12 - 10)


# -- absent players (docs/rules.md) -------------------------------------------------------


def test_passive_policy_checks_when_it_can_and_folds_otherwise() -> None:
    facing_bet = LegalActions(
        seat=0, can_fold=True, can_check=False, call_amount=10, min_raise_to=40, max_raise_to=100
    )
    nothing_owed = LegalActions(
        seat=0, can_fold=False, can_check=True, call_amount=0, min_raise_to=20, max_raise_to=100
    )
    assert facing_bet.passive() == FOLD
    assert nothing_owed.passive() == CHECK


def test_absent_big_blind_posts_checks_and_then_folds() -> None:
    # Button 2; seat 1, the big blind, is absent. It posts 20, checks its option, checks
    # the flop and folds to a bet.
    state = deal(rules(3), button=2, holes=[BEST, SECOND, THIRD], absent=[1])
    assert state.absent == (False, True, False)
    assert state.committed == [10, 20, 0]
    play(state, CALL, CALL)
    assert state.actor == 1
    play(state, state.legal_actions().passive())
    assert state.history[-1].kind is ActionKind.CHECK
    play(state, CHECK)
    play(state, state.legal_actions().passive())
    assert state.history[-1].kind is ActionKind.CHECK
    play(state, raise_to(20), FOLD)
    play(state, state.legal_actions().passive())
    assert state.history[-1].kind is ActionKind.FOLD
    # Seat 2 takes the 20 + 20 of the others; its bet of 20 returns.
    assert state.payoffs == (-20, -20, 40)


def test_absent_small_blind_folds_to_a_raise() -> None:
    state = deal(rules(3), button=0, holes=[BEST, SECOND, THIRD], absent=[1])
    play(state, raise_to(60))
    play(state, state.legal_actions().passive())
    play(state, FOLD)
    assert state.payoffs == (30, -10, -20)


# -- the cap (docs/rules.md) --------------------------------------------------------------


def test_cap_reached_mid_hand_with_chips_behind() -> None:
    # Heads-up, cap 1000, session stacks 5000 and 3000: each may commit 1000 this deal.
    state = deal(rules(2), button=0, holes=[SECOND, BEST], stacks=[5000, 3000])
    assert state.cap_graphic() == ((990, 980), 980)
    play(state, raise_to(300))
    # Cap graphic: available 700 and 980; cap - 300 (the raiser's total) = 700.
    assert state.cap_graphic() == ((700, 980), 700)
    play(state, CALL)
    assert state.cap_graphic() == ((700, 700), 700)
    play(state, raise_to(200))  # seat 1 bets the flop
    assert state.cap_graphic() == ((700, 500), 500)
    # Seat 0 may put in at most its 700 left of the cap, though 4700 remain in its stack.
    assert legal(state) == (0, True, False, 200, 400, 700)
    record = state.apply(raise_to(700))
    assert record.all_in and state.is_all_in(0)
    assert state.cap_graphic() == ((0, 500), 0)
    # Seat 1 can only call: it has exactly what it owes.
    assert legal(state) == (1, True, False, 500, None, None)
    play(state, CALL)
    assert state.is_complete and state.committed == [1000, 1000]
    assert state.payoffs == (-1000, 1000)
    assert state.final_stacks == (4000, 4000)


def test_a_stack_below_the_cap_limits_the_player() -> None:
    state = deal(rules(2), button=0, holes=[SECOND, BEST], stacks=[500, 5000])
    # The button has 500 - 10 = 490 behind its small blind: max raise-to 500.
    assert legal(state)[4:] == (40, 500)
    assert state.cap_graphic() == ((490, 980), 980)


# -- refusals (every IllegalReason) --------------------------------------------------


def test_fold_is_refused_when_nothing_is_owed() -> None:
    state = deal(rules(2), button=0, holes=[BEST, SECOND])
    play(state, CALL)
    assert refused(state, FOLD) is IllegalReason.NOTHING_TO_FOLD


def _refusal_cases() -> list[tuple[str, HandState, object, IllegalReason]]:
    fresh = deal(rules(3), button=0, holes=[BEST, SECOND, THIRD])  # seat 0 owes 20
    limped = deal(rules(2), button=0, holes=[BEST, SECOND])
    play(limped, CALL)  # the big blind owes nothing
    finished = deal(rules(2), button=0, holes=[BEST, SECOND])
    play(finished, FOLD)
    short = _short_all_in_flop()
    play(short, CALL)  # seat 0 faces the short all-in and may not raise
    return [
        ("hand over", finished, CALL, IllegalReason.HAND_COMPLETE),
        ("a string", fresh, "call", IllegalReason.UNKNOWN_ACTION),
        ("a kind that is not an ActionKind", fresh, Action("call"), IllegalReason.UNKNOWN_ACTION),  # type: ignore[arg-type]
        ("raise without amount", fresh, Action(ActionKind.RAISE), IllegalReason.BAD_AMOUNT),
        ("raise by a float", fresh, Action(ActionKind.RAISE, 60.0), IllegalReason.BAD_AMOUNT),  # type: ignore[arg-type]
        ("raise by a bool", fresh, Action(ActionKind.RAISE, True), IllegalReason.BAD_AMOUNT),
        ("fold owing nothing", limped, FOLD, IllegalReason.NOTHING_TO_FOLD),
        ("check facing a bet", fresh, CHECK, IllegalReason.CHECK_FACING_BET),
        ("call owing nothing", limped, CALL, IllegalReason.NOTHING_TO_CALL),
        ("raise after a short all-in", short, raise_to(330), IllegalReason.RAISE_NOT_ALLOWED),
        ("raise below the minimum", fresh, raise_to(39), IllegalReason.RAISE_BELOW_MIN),
        ("raise above the maximum", fresh, raise_to(1001), IllegalReason.RAISE_ABOVE_MAX),
    ]


@pytest.mark.parametrize(
    ("name", "state", "action", "reason"),
    _refusal_cases(),
    ids=[case[0] for case in _refusal_cases()],
)
def test_refusal_reasons(
    name: str, state: HandState, action: object, reason: IllegalReason
) -> None:
    assert refused(state, action) is reason


def test_every_refusal_reason_is_covered() -> None:
    assert {case[3] for case in _refusal_cases()} == set(IllegalReason)


def test_refusal_messages_name_the_action_and_the_limits() -> None:
    state = deal(rules(3), button=0, holes=[BEST, SECOND, THIRD])
    with pytest.raises(IllegalActionError, match=r"39 .* minimum 40") as caught:
        state.apply(raise_to(39))
    assert caught.value.action == raise_to(39)
    with pytest.raises(IllegalActionError, match=r"1001 .* maximum 1000"):
        state.apply(raise_to(1001))
    with pytest.raises(IllegalActionError, match="20 to call"):
        state.apply(CHECK)


def test_the_engine_guide_examples_run() -> None:
    guide = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
    result = doctest.testfile(
        str(guide),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 10 and result.failed == 0
