"""PHH hand histories: what the writer writes, round trips through the reader, the
reader's handling of other tools' histories, its errors, and ``dp-arena replay``.

Expected chips here are worked out by hand in the comments, not taken from the code.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

import pytest

from dp_arena.agents import InProcessSeat, SessionContext, TableSession, play_table_session
from dp_arena.cli import main
from dp_arena.engine import (
    Action,
    Betting,
    HandState,
    TableRules,
    deck_for,
    new_hand,
    parse_cards,
)
from dp_arena.engine.phh import (
    HandMeta,
    SessionHistory,
    replay_file,
    replay_text,
    write_hand,
    write_session,
)
from dp_arena.errors import HandHistoryError

# -- random hands from our engine (shared with the PokerKit oracle tests) -----------------


def random_action(state: HandState, rng: random.Random) -> Action:
    """A random legal action, with raises spread over the minimum, the maximum and between."""
    legal = state.legal_actions()
    if state.absent[legal.seat]:
        return legal.passive()
    roll = rng.random()
    if legal.can_raise and roll < 0.35:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        low, high = legal.min_raise_to, legal.max_raise_to
        amount = rng.choice(
            (low, high, rng.randint(low, high), rng.randint(low, min(high, 3 * low)))
        )
        return Action.raise_to(amount)
    if legal.can_fold and roll < 0.5:
        return Action.fold()
    return Action.call() if legal.can_call else Action.check()


def random_stacks(rng: random.Random, seat_count: int, big_blind: int) -> list[int]:
    """Equal stacks half the time; otherwise a mix of short (all-in soon, even within the
    blinds), middling and deep stacks, so side pots of every shape come up."""
    if rng.random() < 0.5:
        return [rng.choice((big_blind * 10, big_blind * 50, 1000))] * seat_count
    return [
        rng.choice(
            (
                rng.randint(1, 3 * big_blind),
                rng.randint(big_blind, 30 * big_blind),
                rng.randint(500, 4000),
            )
        )
        for _ in range(seat_count)
    ]


def random_hand(
    rng: random.Random,
    *,
    seat_count: int | None = None,
    betting: Betting | None = None,
    cap: int | str | None = "random",
    absent: Sequence[int] = (),
    equal_blinds_heads_up: bool = True,
) -> HandState:
    """A hand played to the end with random legal actions. ``equal_blinds_heads_up=False``
    avoids a heads-up table with equal blinds, where PokerKit lets the big blind act first."""
    seat_count = seat_count or rng.randint(2, 9)
    small_blind = rng.choice((1, 5, 10, 25))
    big_blind = small_blind * rng.choice(
        (1, 2, 2, 2, 3) if seat_count > 2 or equal_blinds_heads_up else (2, 3)
    )
    if cap == "random":
        cap = rng.choice((None, 1000, big_blind * rng.randint(1, 40)))
    rules = TableRules(
        seat_count=seat_count,
        small_blind=small_blind,
        big_blind=big_blind,
        betting=betting or rng.choice((Betting.NO_LIMIT, Betting.POT_LIMIT)),
        cap=cap if cap is None or isinstance(cap, int) else None,
    )
    deck = deck_for(rng.randrange(1 << 30), 0, 0, 0)
    state = new_hand(
        rules,
        deck,
        button=rng.randrange(seat_count),
        stacks=random_stacks(rng, seat_count, big_blind),
        absent=absent,
    )
    while state.actor is not None:
        state.apply(random_action(state, rng))
    return state


def phh_order(state: HandState, values: Sequence[int]) -> list[int]:
    """Per-seat values in PHH player order: from the seat left of the button round to it."""
    seat_count = state.seat_count
    return [values[(state.button + 1 + offset) % seat_count] for offset in range(seat_count)]


def expected_finishing_stacks(state: HandState) -> list[int]:
    """What each player had available for the deal, plus its net."""
    assert state.payoffs is not None
    cap = state.rules.cap
    available = [stack if cap is None else min(stack, cap) for stack in state.starting_stacks]
    return phh_order(
        state, [chips + payoff for chips, payoff in zip(available, state.payoffs, strict=True)]
    )


def hand_text(
    *,
    stacks: Sequence[int],
    actions: Sequence[str],
    blinds: Sequence[int] = (10, 20),
    extra: str = "",
) -> str:
    """A PHH text written by hand (as another tool would)."""
    count = len(stacks)
    blinds_field = list(blinds) + [0] * (count - len(blinds))
    return (
        f"variant = 'NT'\nantes = {[0] * count}\nblinds_or_straddles = {blinds_field}\n"
        f"min_bet = {max(blinds)}\nstarting_stacks = {list(stacks)}\n"
        f"actions = {list(actions)}\n{extra}"
    )


def replay_one(text: str, file: str = "hand.phh") -> tuple[int, ...]:
    (result,) = replay_text(text, file=file)
    return result.finishing_stacks


# -- the writer ---------------------------------------------------------------------------


def test_writer_follows_phh_seat_order_and_writes_the_user_fields() -> None:
    # 4 seats, button at seat 2: p1 = seat 3 (small blind), p2 = seat 0 (big blind),
    # p3 = seat 1, p4 = seat 2 (button). Seat 1 raises to 60, everyone folds to it:
    # it wins the blinds (10 + 20), seat 3 loses 10, seat 0 loses 20.
    rules = TableRules(
        seat_count=4, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT, cap=500
    )
    holes = [parse_cards(text) for text in ("AsKs", "QhQd", "7c2d", "9s9h")]
    state = HandState(
        rules,
        button=2,
        stacks=(800, 300, 500, 400),
        hole_cards=holes,
        board=parse_cards("2c3c4c5c6c"),
        absent=(2,),
    )
    state.apply(Action.raise_to(60))  # seat 1
    state.apply(Action.fold())  # seat 2 (absent: folds)
    state.apply(Action.fold())  # seat 3
    state.apply(Action.fold())  # seat 0
    meta = HandMeta(
        event="cup",
        section=1,
        session=2,
        table=3,
        deal=4,
        players=("a", "b", "c", "d"),
        session_chips_before=(5000, 5100, 4900, 5000),
    )
    fields = tomllib.loads(write_hand(state, meta))
    assert fields["variant"] == "NT"
    assert fields["blinds_or_straddles"] == [10, 20, 0, 0]
    assert fields["antes"] == [0, 0, 0, 0]
    assert fields["min_bet"] == 20
    # available for the deal: min(stack, cap 500) in PHH order (seats 3, 0, 1, 2)
    assert fields["starting_stacks"] == [400, 500, 300, 500]
    assert fields["actions"] == [
        "d dh p1 9s9h",
        "d dh p2 AsKs",
        "d dh p3 QhQd",
        "d dh p4 7c2d",
        "p3 cbr 60",
        "p4 f",
        "p1 f",
        "p2 f",
    ]
    assert fields["finishing_stacks"] == [390, 480, 330, 500]
    assert fields["players"] == ["d", "a", "b", "c"]
    assert fields["seats"] == [4, 1, 2, 3] and fields["seat_count"] == 4
    assert fields["event"] == "cup"
    assert (fields["_section"], fields["_session"], fields["_table"], fields["_deal"]) == (
        1,
        2,
        3,
        4,
    )
    assert fields["_betting"] == "pot-limit" and fields["_cap"] == 500
    assert fields["_seats"] == [3, 0, 1, 2]
    assert fields["_absent_seats"] == [2]
    assert fields["_session_chips_before"] == [5000, 5000, 5100, 4900]
    assert fields["_session_chips_after"] == [4990, 4980, 5130, 4900]


def test_heads_up_writes_the_big_blind_as_p1() -> None:
    # Heads-up, button at seat 1: seat 1 posts the small blind and is p2; seat 0 posts the
    # big blind and is p1. PHH reverses the blinds heads-up, so [10, 20] is still right.
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20, cap=None)
    state = HandState(
        rules,
        button=1,
        stacks=(700, 900),
        hole_cards=(parse_cards("AsKs"), parse_cards("2c2d")),
        board=parse_cards("3h4h5h9dJc"),
    )
    state.apply(Action.call())  # seat 1 (button) completes to 20
    state.apply(Action.check())  # seat 0
    state.apply(Action.raise_to(40))  # seat 0 (big blind) acts first after the flop
    state.apply(Action.fold())  # seat 1: seat 0 wins the 20 seat 1 put in
    fields = tomllib.loads(write_hand(state))
    assert fields["blinds_or_straddles"] == [10, 20]
    assert fields["starting_stacks"] == [700, 900]
    assert fields["_seats"] == [0, 1]
    assert fields["actions"] == [
        "d dh p1 AsKs",
        "d dh p2 2c2d",
        "p2 cc",
        "p1 cc",
        "d db 3h4h5h",
        "p1 cbr 40",
        "p2 f",
    ]
    assert fields["finishing_stacks"] == [720, 880]
    assert "_cap" not in fields


def test_all_in_showdown_shows_before_the_board_is_run_out() -> None:
    # 3 seats, button 0, cap 100; p1 = seat 1 (SB), p2 = seat 2 (BB), p3 = seat 0 (button).
    # Seat 0 folds, seat 1 shoves to 100, seat 2 calls.
    # Both show before the flop is dealt; seat 1's aces beat seat 2's kings on a dry board:
    # seat 1 wins 200, a net of +100.
    rules = TableRules(seat_count=3, small_blind=5, big_blind=10, cap=100)
    holes = [parse_cards("7c2d"), parse_cards("AsAh"), parse_cards("KsKh")]
    state = HandState(
        rules, button=0, stacks=(100, 100, 100), hole_cards=holes, board=parse_cards("2s5d9cTdJh")
    )
    state.apply(Action.fold())
    state.apply(Action.raise_to(100))
    state.apply(Action.call())
    fields = tomllib.loads(write_hand(state))
    assert fields["actions"][3:] == [
        "p3 f",
        "p1 cbr 100",
        "p2 cc",
        "p1 sm AsAh",
        "p2 sm KsKh",
        "d db 2s5d9c",
        "d db Td",
        "d db Jh",
    ]
    assert fields["finishing_stacks"] == [200, 0, 100]


def test_session_history_writes_every_deal_with_running_totals() -> None:
    class Caller:
        def act(self, observation):  # type: ignore[no-untyped-def]
            return Action.call() if observation.to_call else Action.check()

    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, cap=1000)
    table = TableSession(
        [InProcessSeat(Caller(), f"bot{seat}") for seat in range(3)], ["x", "y", "z"]
    )
    history = SessionHistory(
        event="demo",
        section=0,
        session=1,
        table=2,
        players=table.players,
        starting_chips=[3000, 3000, 3000],
    )
    result = play_table_session(
        table,
        rules,
        event_seed=9,
        section=0,
        session=1,
        deals=3,
        context=SessionContext(event="demo"),
        on_deal=history.record,
    )
    text = history.text()
    replays = replay_text(text, file="session.phhs")
    assert [replay.hand for replay in replays] == ["1", "2", "3"]
    document = tomllib.loads(text)
    for deal, (record, replay) in enumerate(zip(result.deals, replays, strict=True)):
        fields = document[str(deal + 1)]
        assert fields["_deal"] == deal
        assert sorted(zip(fields["_seats"], replay.nets, strict=True)) == list(
            enumerate(record.nets)
        )
    last = document["3"]
    # the totals after the last deal: 3000 plus each seat's session net
    totals = dict(zip(last["_seats"], last["_session_chips_after"], strict=True))
    assert [totals[seat] for seat in range(3)] == [3000 + net for net in result.session_nets]


def test_writer_refuses_an_unfinished_hand() -> None:
    state = new_hand(
        TableRules(seat_count=2, small_blind=1, big_blind=2), deck_for(1, 0, 0, 0), button=0
    )
    with pytest.raises(ValueError, match="not over"):
        write_hand(state)


def test_user_field_strings_are_valid_toml() -> None:
    state = random_hand(random.Random(3), seat_count=3)
    names = ('quote " back \\ tab \t', "del \x7f bell \x07", "é ☃ 🂡")
    fields = tomllib.loads(write_hand(state, HandMeta(event='a "b"\nc', players=names)))
    assert fields["event"] == 'a "b"\nc'
    assert sorted(fields["players"]) == sorted(names)


# -- round trips ------------------------------------------------------------------------


@pytest.mark.parametrize("seat_count", range(2, 11))
def test_round_trip_gives_the_same_stacks_and_the_same_actions(seat_count: int) -> None:
    rng = random.Random(seat_count)
    for _ in range(60):
        state = random_hand(
            rng, seat_count=seat_count, absent=rng.choice(((), (rng.randrange(seat_count),)))
        )
        text = write_hand(state)
        (result,) = replay_text(text, file="round-trip.phh")
        assert list(result.finishing_stacks) == expected_finishing_stacks(state)
        assert result.matches_recorded() is True
        # writing the replayed hand again gives the same play, action for action
        assert tomllib.loads(write_hand(result.state))["actions"] == tomllib.loads(text)["actions"]


def test_round_trip_of_a_whole_session_file() -> None:
    rng = random.Random(77)
    states = [random_hand(rng) for _ in range(25)]
    text = write_session((state, HandMeta(deal=deal)) for deal, state in enumerate(states))
    results = replay_text(text, file="many.phhs")
    assert [list(result.finishing_stacks) for result in results] == [
        expected_finishing_stacks(s) for s in states
    ]


def test_capped_history_replays_with_the_cap_against_deeper_stacks() -> None:
    # The file says _cap = 100 but gives stacks of 5000: each player may still commit only
    # 100. p1 (SB) is all-in at the cap with a raise to 100; p2 calls; aces win 200.
    text = hand_text(
        stacks=[5000, 5000],
        blinds=(5, 10),
        actions=[
            "d dh p1 KsKh",
            "d dh p2 AsAh",
            "p2 cbr 100",
            "p1 cc",
            "d db 2s5d9c",
            "d db Td",
            "d db Jh",
        ],
        extra="_cap = 100\n",
    )
    assert replay_one(text) == (4900, 5100)
    with pytest.raises(HandHistoryError, match="raise_above_max"):
        replay_one(text.replace("p2 cbr 100", "p2 cbr 101"))


# -- histories written by hand, as other tools write them --------------------------------


def test_heads_up_blind_reversal_when_reading() -> None:
    # Heads-up [10, 20]: p2 is the button, posts 10 and acts first preflop; p1 posts 20.
    folded = hand_text(stacks=[1000, 1000], actions=["d dh p1 ????", "d dh p2 ????", "p2 f"])
    assert replay_one(folded) == (1010, 990)
    with pytest.raises(HandHistoryError, match="it is p2's turn, not p1's"):
        replay_one(folded.replace("p2 f", "p1 f"))
    # after the flop the big blind (p1) acts first
    checked = hand_text(
        stacks=[1000, 1000],
        actions=["d dh p1 ????", "d dh p2 ????", "p2 cc", "p1 cc", "d db 2c3d4h", "p2 cc"],
    )
    with pytest.raises(HandHistoryError, match="action 5 'p2 cc': it is p1's turn"):
        replay_one(checked)


def test_pokerkit_style_history_with_comments_unknown_cards_and_early_show() -> None:
    # 3 players, blinds 50/100. p3 (button) folds, p1 (SB) shoves 1000, p2 calls all-in 600
    # (short). Both show before the board (PokerKit's order). p2's queens beat p1's jacks:
    # p2 wins the main pot 1200; p1 gets back the uncalled 400 -> p1 400, p2 1200.
    text = hand_text(
        stacks=[1000, 600, 2000],
        blinds=(50, 100),
        actions=[
            "d dh p1 JsJh",
            "d dh p2 QsQh",
            "d dh p3 ???? # folded, never shown",
            "",
            "p3 f",
            "# a no-op commentary",
            "p1 cbr 1000",
            "p2 cc",
            "p1 sm JsJh",
            "p2 sm -",
            "d db 2c7d9h",
            "d db 3s",
            "d db 4d # river",
        ],
        extra="# a TOML comment\nhand = 7\nfinishing_stacks = [400, 1200, 2000]\n",
    )
    (result,) = replay_text(text)
    assert result.finishing_stacks == (400, 1200, 2000)
    assert result.nets == (-600, 600, 0)
    assert result.matches_recorded() is True


def test_a_muck_at_the_showdown_gives_up_the_pot() -> None:
    # p1 holds the nuts on the river but mucks: p2 takes the pot of 200 (PHH 'pK sm').
    actions = [
        "d dh p1 AsAh",
        "d dh p2 7c2d",
        "p2 cc",
        "p1 cbr 100",
        "p2 cc",
        "d db AdAc5h",
        "p1 cc",
        "p2 cc",
        "d db 9s",
        "p1 cc",
        "p2 cc",
        "d db Kd",
        "p1 cc",
        "p2 cc",
    ]
    shown = hand_text(stacks=[1000, 1000], actions=[*actions, "p1 sm AsAh", "p2 sm 7c2d"])
    assert replay_one(shown) == (1100, 900)
    mucked = hand_text(stacks=[1000, 1000], actions=[*actions, "p1 sm", "p2 sm 7c2d"])
    assert replay_one(mucked) == (900, 1100)


def test_unknown_cards_are_refused_only_when_the_showdown_needs_them() -> None:
    actions = [
        "d dh p1 ????",
        "d dh p2 7c2d",
        "p2 cc",
        "p1 cc",
        "d db AdAc5h",
        "p1 cc",
        "p2 cc",
        "d db 9s",
        "p1 cc",
        "p2 cc",
        "d db Kd",
        "p1 cc",
        "p2 cc",
    ]
    with pytest.raises(HandHistoryError, match="needs the hole cards of p1"):
        replay_one(hand_text(stacks=[500, 500], actions=actions))
    # ... unless p1 shows them, or mucks
    assert replay_one(hand_text(stacks=[500, 500], actions=[*actions, "p1 sm 3s3h"])) == (520, 480)
    assert replay_one(hand_text(stacks=[500, 500], actions=[*actions, "p1 sm"])) == (480, 520)
    unknown_river = [*actions[:10], "d db ??", *actions[11:]]
    with pytest.raises(HandHistoryError, match="needs the whole board"):
        replay_one(hand_text(stacks=[500, 500], actions=[*unknown_river, "p1 sm 3s3h"]))


def test_pot_limit_is_honoured_when_the_file_says_so() -> None:
    # Pot-limit preflop, blinds 10/20: the button (p3) may raise to at most 70
    # (call 20, then the pot 10 + 20 + 20 = 50 more).
    base = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 70", "p1 f", "p2 f"]
    pot_limit = hand_text(stacks=[1000] * 3, actions=base, extra="_betting = 'pot-limit'\n")
    assert replay_one(pot_limit) == (990, 980, 1030)
    too_much = pot_limit.replace("p3 cbr 70", "p3 cbr 71")
    with pytest.raises(
        HandHistoryError, match=r"action 3 'p3 cbr 71': illegal action \(raise_above_max\)"
    ):
        replay_one(too_much)
    assert replay_one(
        hand_text(stacks=[1000] * 3, actions=[*base[:3], "p3 cbr 71", *base[4:]])
    ) == (990, 980, 1030)


# -- errors -------------------------------------------------------------------------------

GOOD = hand_text(
    stacks=[1000, 1000, 1000],
    actions=["d dh p1 AsAh", "d dh p2 KsKh", "d dh p3 QsQh", "p3 f", "p1 f"],
)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("variant = 'NT'", "variant = 'PO'", "variant 'PO' is not supported"),
        ("antes = [0, 0, 0]", "antes = [0, 0, 5]", "antes are not supported"),
        ("[10, 20, 0]", "[10, 20, 40]", "straddles are not supported"),
        ("[10, 20, 0]", "[20, 10, 0]", "0 < SB <= BB"),
        ("min_bet = 20", "min_bet = 40", "min_bet 40 differs from the big blind 20"),
        ("min_bet = 20\n", "", "required field 'min_bet' is missing"),
        (
            "[1000, 1000, 1000]",
            "[1000, 1000.5, 1000]",
            r"starting_stacks\[1\] must be a whole number",
        ),
        ("[1000, 1000, 1000]", "[1000, inf, 1000]", r"starting_stacks\[1\] must be a whole number"),
        ("[1000, 1000, 1000]", "[1000, 1000]", "antes must have one entry per player"),
        ("actions = [", "actions = ", "not valid TOML"),
        ("'p3 f'", "'p3 x'", "action 3 'p3 x': not an action"),
        ("'p3 f'", "'p9 f'", "action 3 'p9 f': 'p9' is not a player"),
        ("'p3 f'", "'p1 f'", "action 3 'p1 f': it is p3's turn, not p1's"),
        ("'p3 f'", "'p3 cbr 30'", r"action 3 'p3 cbr 30': illegal action \(raise_below_min\)"),
        ("'p3 f'", "'p3 cbr 20.5'", "action 3 'p3 cbr 20.5': '20.5' is not a whole number"),
        ("'p3 f'", "'p3 sd'", "is not an action of Texas hold'em"),
        ("'d dh p3 QsQh'", "'d dh p3 QsAs'", "action 2 'd dh p3 QsAs': As is dealt twice"),
        ("'d dh p3 QsQh'", "'d dh p3 QsQx'", "not a card"),
        ("'d dh p3 QsQh'", "'d dh p3 QsQhQd'", "more than two hole cards"),
        ("'p3 f', 'p1 f'", "'p3 f'", "ends before the hand is over: p1 is to act"),
        (
            "'p3 f', 'p1 f'",
            "'p3 f', 'p1 cc', 'p2 cc', 'p1 cc'",
            "action 6 'p1 cc': p1 acts before the flop is dealt",
        ),
        (
            "'p3 f', 'p1 f'",
            "'d db 2c3c4c', 'p3 f'",
            "board cards are dealt before the preflop betting is over",
        ),
        ("'p3 f', 'p1 f'", "'p3 f', 'p1 sm AsAh'", "shown before the betting is over"),
        ("'p3 f', 'p1 f'", "'p3 f', 'p1 f', 'p3 sm QsQh'", "p3 has folded"),
        ("'p3 f', 'p1 f'", "'p3 f', 'p1 f', 'p2 cc'", "the betting is over"),
        (
            "'p3 f', 'p1 f'",
            "'p3 f', 'p1 f', 'd db 2c3c4c'",
            "dealt after the hand was won by a fold",
        ),
        ("'p3 f', 'p1 f'", "'p3 f', 'p1 f', 'd dh p1 2c2d'", "more than two hole cards"),
        ("min_bet = 20\n", "min_bet = 20\n_betting = 'fixed-limit'\n", "_betting must be one of"),
        (
            "min_bet = 20\n",
            "min_bet = 20\n_cap = 10\n",
            "cap must be None or an integer of at least the big blind",
        ),
    ],
)
def test_malformed_and_illegal_histories_are_refused_with_the_file_and_action(
    old: str, new: str, message: str
) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new)
    with pytest.raises(HandHistoryError, match=message) as caught:
        replay_one(text, file="bad.phh")
    assert str(caught.value).startswith("bad.phh")


def test_eleven_players_are_refused() -> None:
    with pytest.raises(HandHistoryError, match="2 to 10 players, this hand has 11"):
        replay_one(hand_text(stacks=[100] * 11, actions=[]))


def test_a_session_file_names_the_bad_hand() -> None:
    good = write_hand(random_hand(random.Random(1)))
    text = f"[1]\n{good}\n[2]\n{GOOD.replace('p3 f', 'p3 x')}"
    with pytest.raises(HandHistoryError, match=r"^s.phhs\[2\]: action 3 'p3 x'"):
        replay_text(text, file="s.phhs")


def test_a_text_that_is_neither_a_hand_nor_a_session_is_refused() -> None:
    with pytest.raises(HandHistoryError, match="neither a PHH hand"):
        replay_text("title = 'x'\n", file="x.phh")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "[1000, 1000, 1000]",
            "[1000, 1" + "0" * 100 + ", 1000]",
            (
                r"starting_stacks\[1\] must be a whole number of chips up to 10\*\*18,"
                " not a number of about 101 digits"
            ),
        ),
        (
            "[1000, 1000, 1000]",
            "[1000, 1e100, 1000]",
            r"starting_stacks\[1\] must be a whole number of chips up to 10\*\*18, not 1E\+100",
        ),
        ("[1000, 1000, 1000]", "[1000, nan, 1000]", r"starting_stacks\[1\] .* not NaN"),
        ("[1000, 1000, 1000]", "[1000, {a = 1}, 1000]", r"starting_stacks\[1\] .* not \{'a': 1\}"),
        ("[1000, 1000, 1000]", "'lots'", "starting_stacks must be an array, not 'lots'"),
        ("[10, 20, 0]", "[10, 1e30, 0]", r"blinds_or_straddles\[1\] must be a whole number"),
        (
            "min_bet = 20",
            "min_bet = [20]",
            r"min_bet must be a whole number of chips .* not \[20\]",
        ),
        ("min_bet = 20\n", "min_bet = 20\n_cap = 1e100\n", "_cap must be a whole number"),
        ("variant = 'NT'", "variant = ['NT']", r"variant \['NT'\] is not supported"),
        (
            "variant = 'NT'",
            "variant = '" + "N" * 10_000 + "'",
            r"variant 'NNNN.*\.\.\. \(str\) is not supported",
        ),
        (
            "'p3 f'",
            "'p3 cbr 1e30'",
            r"action 3 'p3 cbr 1e30': '1e30' is not a whole number of chips up to 10\*\*18",
        ),
        (
            "'p3 f'",
            "'p3 cbr " + "9" * 100_000 + "'",
            r"action 3 'p3 cbr 9999.*\.\.\. \(100007 characters\): '9999",
        ),
        ("'p3 f'", "'p3 cbr -60'", r"action 3 'p3 cbr -60': illegal action"),
        (
            "finishing_stacks",
            "finishing_stacks = [1e999999999, 0, 0]\n#",
            "finishing_stacks must be 3 numbers up to 10\\*\\*18, not",
        ),
        (
            "actions = [",
            "x = " + "[" * 10_000 + "]" * 10_000 + "\nactions = [",
            "nested too deeply",
        ),
        ("[1000, 1000, 1000]", "[1" + "0" * 5000 + "]", "an integer of more than 4300 digits"),
    ],
)
def test_absurd_values_are_refused_naming_the_file_and_the_field_or_action(
    old: str, new: str, message: str
) -> None:
    text = GOOD + "finishing_stacks = [990, 1010, 1000]\n"
    assert old in text
    with pytest.raises(HandHistoryError, match=message) as caught:
        replay_one(text.replace(old, new, 1), file="bad.phh")
    assert str(caught.value).startswith("bad.phh: ")
    assert len(str(caught.value)) < 400  # a huge value is described, not printed


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)), "not a hand history: not UTF-8 text (byte 128)"),
        (b"x = " + b"[" * 100_000 + b"]" * 100_000, "not a hand history: its TOML is nested"),
        (GOOD.replace("'p3 f'", "'p3 cbr 1e999999999'").encode(), "is not a whole number"),
        (
            GOOD.replace("[1000, 1000, 1000]", "[1e999999999, 1000, 1000]").encode(),
            "starting_stacks[0] must be a whole number of chips up to 10**18",
        ),
    ],
)
def test_the_replay_command_refuses_hostile_files_quickly_and_without_a_traceback(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "hostile.phh"
    path.write_bytes(content)
    # In a process of its own: an amount of a billion digits would hang this one for good.
    replayed = subprocess.run(
        [sys.executable, "-m", "dp_arena.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert replayed.returncode == 1, replayed.stderr
    assert replayed.stderr == ""
    assert replayed.stdout.startswith(f"error: {path}")
    assert message in replayed.stdout


def test_a_history_file_larger_than_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("dp_arena.engine.phh_read.MAX_FILE_BYTES", 100)
    path = tmp_path / "long.phh"
    path.write_text(GOOD)
    with pytest.raises(HandHistoryError, match=r"long\.phh: not a hand history: larger than"):
        replay_file(path)


# -- dp-arena replay ----------------------------------------------------------------------


def test_cli_json_lines_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.phh"
    good.write_text(GOOD)  # p3 and p1 fold: p2 (big blind) wins the small blind
    bad = tmp_path / "bad.phh"
    bad.write_text(GOOD.replace("'p1 f'", "'p1 cbr 30'"))
    session = tmp_path / "two.phhs"
    session.write_text(f"[1]\n{GOOD}\n[2]\n{GOOD}")
    assert main(["replay", "--json", str(good), str(session)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {
            "file": str(good),
            "finishing_stacks": [990, 1010, 1000],
            "nets": [-10, 10, 0],
            "error": None,
        },
        {
            "file": str(session),
            "hand": "1",
            "finishing_stacks": [990, 1010, 1000],
            "nets": [-10, 10, 0],
            "error": None,
        },
        {
            "file": str(session),
            "hand": "2",
            "finishing_stacks": [990, 1010, 1000],
            "nets": [-10, 10, 0],
            "error": None,
        },
    ]
    assert main(["replay", "--json", str(good), str(bad)]) == 1
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["error"] is None
    assert second["finishing_stacks"] is None
    assert second["error"].startswith(f"{bad}: action 4 'p1 cbr 30': illegal action")


def test_cli_readable_output_directories_and_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.phh").write_text(GOOD + "finishing_stacks = [990, 1010, 1000]\n")
    assert main(["replay", "--check", str(tmp_path)]) == 0
    assert (
        capsys.readouterr().out
        == f"{tmp_path / 'a.phh'}: finishing stacks 990 1010 1000 (nets -10 +10 +0)\n"
    )
    (tmp_path / "b.phh").write_text(GOOD + "finishing_stacks = [1000, 1000, 1000]\n")
    assert main(["replay", str(tmp_path)]) == 0  # without --check the record is not compared
    capsys.readouterr()
    assert main(["replay", "--check", str(tmp_path)]) == 1
    assert "the file records [1000, 1000, 1000]" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", str(empty), str(tmp_path / "missing.phh")]) == 1
    out = capsys.readouterr().out
    assert "no .phh or .phhs files" in out and "cannot read the file" in out


def test_engine_records_every_action_kind_as_phh() -> None:
    # Sanity of the writer's vocabulary over many random hands: only the PHH verbs appear.
    rng = random.Random(5)
    verbs: set[str] = set()
    for _ in range(100):
        state = random_hand(rng)
        for action in tomllib.loads(write_hand(state))["actions"]:
            verbs.add(
                " ".join(action.split()[:2]) if action.startswith("d ") else action.split()[1]
            )
    assert verbs == {"d dh", "d db", "f", "cc", "cbr", "sm"}
