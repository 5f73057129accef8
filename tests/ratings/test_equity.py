"""The all-in equity adjustment against published exact odds, against treys enumerating
every board itself, and against the engine settling every possible board."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from dp_arena.engine import (
    Action,
    Betting,
    HandState,
    TableRules,
    evaluate_reference,
    format_cards,
    parse_cards,
)
from dp_arena.errors import HandHistoryError
from dp_arena.ratings.equity import (
    adjusted_nets,
    expected_payoffs,
    outcome_counts,
    pot_payoffs,
    replay,
)

HEADS_UP = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)


def _counts(*hands: str, board: str = "", dead: str = "") -> dict[tuple[int, ...], int]:
    holes = tuple(tuple(parse_cards(hand)) for hand in hands)
    known = tuple(parse_cards(board))
    gone = {card for hole in holes for card in hole} | set(parse_cards(dead))
    return outcome_counts(holes, known, tuple(sorted(gone)))  # type: ignore[arg-type]


# Published by GNU poker-eval's hcmp2 (every one of the 1,712,304 boards), quoted at
# brainwagon.org/2005/04/09/texas-holdem-trivia: wins, losses, ties of the first hand.
# Suits are renamed here (a consistent renaming changes nothing).
@pytest.mark.parametrize(
    ("first", "second", "wins", "losses", "ties"),
    [
        ("AdAc", "KhKs", 1_388_072, 317_694, 6_538),
        ("AdAc", "Td9d", 1_338_249, 367_143, 6_912),
        ("AdAc", "QcJh", 1_450_987, 254_763, 6_554),
    ],
)
def test_preflop_counts_match_published_exact_odds(
    first: str, second: str, wins: int, losses: int, ties: int
) -> None:
    counts = _counts(first, second)
    assert counts == {(0, 1): wins, (1, 0): losses, (0, 0): ties}
    assert sum(counts.values()) == 1_712_304


def test_kings_against_king_deuce_matches_published_count() -> None:
    # "94.92% from 1,612,287 wins and 26,192 ties out of 1,712,304" (Kings vs King-Two,
    # the deuce of a suit the kings hold).
    counts = _counts("KsKh", "Kd2s")
    assert counts[(0, 1)] == 1_612_287
    assert counts[(0, 0)] == 26_192


def test_kings_against_aces_on_a_blank_flop() -> None:
    # Kings need one of the two kings left, and no ace with it: 83/990 (8.3838%, checked
    # with PokerStove by the 50thoughts1dollar blog, 2013).
    counts = _counts("AsAh", "KsKh", board="7d2c9h")  # no runner straight or flush
    assert sum(counts.values()) == 990
    assert counts.get((1, 0), 0) == 83


def _treys_counts(hands: list[str], board: str, dead: str) -> dict[tuple[int, ...], int]:
    """The same question answered by treys, every board enumerated with itertools."""
    holes = [parse_cards(hand) for hand in hands]
    known = list(parse_cards(board))
    gone = {card for hole in holes for card in hole} | set(known) | set(parse_cards(dead))
    unseen = [card for card in range(52) if card not in gone]
    counts: dict[tuple[int, ...], int] = {}
    for runout in itertools.combinations(unseen, 5 - len(known)):
        values = [evaluate_reference([*hole, *known, *runout]) for hole in holes]
        ranks = tuple(sum(other < value for other in values) for value in values)
        counts[ranks] = counts.get(ranks, 0) + 1
    return counts


@pytest.mark.parametrize("case", range(12))
def test_flop_and_turn_counts_agree_with_treys(case: int) -> None:
    rng = random.Random(case)
    deck = list(range(52))
    rng.shuffle(deck)
    players = 2 + case % 3
    known = 3 + case % 2 if case % 4 else 4
    cards = [format_cards(deck[2 * seat : 2 * seat + 2]) for seat in range(players)]
    board = format_cards(deck[20 : 20 + known])
    dead = format_cards(deck[30:34])  # folded players' cards
    assert _counts(*cards, board=board, dead=dead) == _treys_counts(cards, board, dead)


@pytest.mark.slow
def test_preflop_three_way_counts_agree_with_treys() -> None:
    hands = ["AsKs", "QdQc", "7h8h"]
    assert _counts(*hands, dead="2c2d") == _treys_counts(hands, "", "2c2d")


def _all_in_hand(rng: random.Random, seats: int) -> tuple[TableRules, dict[str, object]]:
    """A random capped hand played until betting closes, with random all-ins."""
    rules = TableRules(
        seat_count=seats, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT, cap=1000
    )
    deck = list(range(52))
    rng.shuffle(deck)
    holes = [format_cards(deck[2 * seat : 2 * seat + 2]) for seat in range(seats)]
    board = format_cards(deck[40:45])
    state = HandState(
        rules,
        button=rng.randrange(seats),
        stacks=(1000,) * seats,
        hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
        board=parse_cards(board),
    )
    actions = []
    while not state.is_complete:
        legal = state.legal_actions()
        roll = rng.random()
        if legal.can_raise and roll < 0.25:
            action = Action.raise_to(
                legal.max_raise_to if rng.random() < 0.6 else legal.min_raise_to
            )  # type: ignore[arg-type]
        elif legal.can_call and roll < 0.85:
            action = Action.call()
        elif legal.can_check:
            action = Action.check()
        elif roll < 0.9:
            action = Action.fold()
        else:
            action = Action.call()
        actions.append(f"{state.actor}:{action}")
        state.apply(action)
    return rules, {"button": state.button, "hole_cards": holes, "board": board, "actions": actions}


def _engine_expectation(rules: TableRules, hand: dict[str, object]) -> tuple[Fraction, ...]:
    """The mean of the engine's own nets over every completion of the board known when
    betting closed: each completion replayed as a hand of its own."""
    played = replay(rules, **hand)  # type: ignore[arg-type]
    closing = played.history[-1].street
    known = list(played.board[: closing.board_size])
    gone = {card for hole in played.hole_cards if hole for card in hole} | set(known)
    unseen = [card for card in range(52) if card not in gone]
    total = [Fraction(0)] * rules.seat_count
    count = 0
    for runout in itertools.combinations(unseen, 5 - len(known)):
        board = format_cards([*known, *runout])
        nets = replay(rules, **{**hand, "board": board}).payoffs  # type: ignore[arg-type]
        assert nets is not None
        total = [sum_ + net for sum_, net in zip(total, nets, strict=True)]
        count += 1
    return tuple(value / count for value in total)


def test_adjusted_nets_are_the_engines_mean_over_every_remaining_board() -> None:
    rng = random.Random(7)
    wanted = {3: 2, 4: 4}  # all-ins closing on the flop (990 boards) and on the turn (44)
    while any(wanted.values()):
        rules, hand = _all_in_hand(rng, rng.choice((2, 3, 4)))
        played = replay(rules, **hand)  # type: ignore[arg-type]
        live = [seat for seat in range(rules.seat_count) if not played.folded[seat]]
        known = played.history[-1].street.board_size
        if len(live) < 2 or not wanted.get(known):
            continue
        adjusted = adjusted_nets(rules, **hand)  # type: ignore[arg-type]
        assert adjusted == _engine_expectation(rules, hand)
        assert sum(adjusted) == 0
        wanted[known] -= 1


def test_three_way_side_pot_by_hand() -> None:
    # Seat 0 all in for 300 with aces, seats 1 and 2 all in for 1000 with kings and queens,
    # on the turn 2c 7d 9h Js. 42 rivers are unseen; none makes a straight or a flush; a
    # king (2 left) gives the kings a set, a queen (2 left) the queens; the other 38 leave
    # aces, kings, queens. The main pot is 900 (3 x 300), the side pot 1400 (2 x 700).
    holes = tuple(tuple(parse_cards(hand)) for hand in ("AsAh", "KdKc", "QsQh"))
    known = tuple(parse_cards("2c7d9hJs"))
    dead = tuple(sorted(card for hole in holes for card in hole))
    counts = outcome_counts(holes, known, dead)  # type: ignore[arg-type]
    assert counts == {(0, 1, 2): 38, (1, 0, 2): 2, (1, 2, 0): 2}
    expected = (
        Fraction(38 * 900, 42) - 300,
        Fraction(38 * 1400 + 2 * 2300, 42) - 1000,
        Fraction(2 * 2300, 42) - 1000,
    )
    nets = expected_payoffs(
        committed=(300, 1000, 1000),
        live=(0, 1, 2),
        hole_cards=holes,  # type: ignore[arg-type]
        known_board=known,
        dead=dead,
        button=2,
    )
    assert nets == expected
    assert sum(nets) == 0


def test_a_split_pot_pays_the_odd_chip_left_of_the_button() -> None:
    # Seat 0 folded after putting in 15; seats 1 and 2 tie for the pot of 215 (107 each
    # and one odd chip, to the first winner left of the button).
    assert pot_payoffs([15, 100, 100], {1: 0, 2: 0}, button=1) == (-15, 7, 8)
    assert pot_payoffs([15, 100, 100], {1: 0, 2: 0}, button=2) == (-15, 8, 7)


def test_pot_payoffs_agree_with_the_engine_on_finished_hands() -> None:
    rng = random.Random(3)
    for _ in range(300):
        seats = rng.choice((2, 3, 5, 6))
        rules, hand = _all_in_hand(rng, seats)
        state = replay(rules, **hand)  # type: ignore[arg-type]
        live = [seat for seat in range(seats) if not state.folded[seat]]
        if len(live) < 2:
            continue
        values = state.showdown_values
        ranks = {seat: sum(values[other] < values[seat] for other in live) for seat in live}
        assert pot_payoffs(state.committed, ranks, state.button) == state.payoffs


def test_hands_without_an_early_all_in_keep_their_real_nets() -> None:
    rng = random.Random(11)
    checked = 0
    for _ in range(300):
        rules, hand = _all_in_hand(rng, rng.choice((2, 4)))
        state = replay(rules, **hand)  # type: ignore[arg-type]
        live = [seat for seat in range(rules.seat_count) if not state.folded[seat]]
        if len(live) < 2 or state.history[-1].street.board_size == 5:
            adjusted = adjusted_nets(rules, **hand)  # type: ignore[arg-type]
            assert adjusted == tuple(Fraction(net) for net in state.payoffs)  # type: ignore[union-attr]
            checked += 1
    assert checked > 50


def test_bad_records_name_the_action() -> None:
    with pytest.raises(HandHistoryError, match="'1:fold' out of turn"):
        adjusted_nets(
            HEADS_UP, button=0, hole_cards=("AsAh", "KdKc"), board="", actions=("1:fold",)
        )
    with pytest.raises(HandHistoryError, match="unreadable action 'x'"):
        adjusted_nets(HEADS_UP, button=0, hole_cards=("AsAh", "KdKc"), board="", actions=("x",))
    with pytest.raises(HandHistoryError, match="not a card"):
        adjusted_nets(HEADS_UP, button=0, hole_cards=("AsZz", "KdKc"), board="", actions=())


# Pre-flop deals where flushes matter: hands suited in the same suit, a suit held by
# several hands, a suit nobody holds, and dead cards taking ranks out of a suit.
PREFLOP_DEALS = [
    (["AhKh", "QhJh"], ""),
    (["AsKs", "7s2s", "9d9c"], "3s4s"),
    (["2c3c", "4d5d", "6h7h", "8s9s"], ""),
    (["AcAd", "KcQc", "Jh9h", "Ts8s", "5d4d"], "2c"),
    (["KhQd", "Ts9s", "8h8c", "4c3c", "AdJd", "6s5s"], ""),
]


@pytest.mark.parametrize(("hands", "dead"), PREFLOP_DEALS)
def test_preflop_counting_by_ranks_agrees_with_enumerating_every_board(
    hands: list[str], dead: str
) -> None:
    # The two ways of runouts.py, on the same question: boards counted by their ranks
    # (with the flush boards apart) against every one of the 1.1 to 1.7 million boards
    # enumerated and looked up.
    from dp_arena.ratings.runouts import _counted_by_ranks, _enumerated, _tally

    holes = tuple(tuple(parse_cards(hand)) for hand in hands)
    gone = {card for hole in holes for card in hole} | set(parse_cards(dead))
    unseen = tuple(card for card in range(52) if card not in gone)
    by_ranks = _tally(*_counted_by_ranks(holes, unseen), len(holes))  # type: ignore[arg-type]
    enumerated = _tally(_enumerated(holes, (), unseen), None, len(holes))  # type: ignore[arg-type]
    assert by_ranks == enumerated
    assert sum(by_ranks.values()) == len(list(itertools.combinations(range(len(unseen)), 5)))


def test_the_mirrored_tables_of_a_deal_share_one_count() -> None:
    # Three tables of one deal: the same cards, different players folded on the flop.
    # The order of all four hands is counted once, and each table's live hands are read
    # off it; each table's nets are still the engine's mean over its 990 boards.
    from dp_arena.ratings.runouts import outcome_counts as counts

    rules = TableRules(
        seat_count=4, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT, cap=1000
    )
    hand = {"button": 0, "hole_cards": ("AsAh", "KdKc", "7h6h", "2c2d"), "board": "Ks7d2h3c4s"}
    limped = ["3:call", "0:call", "1:call", "2:check"]
    tables = [  # on the flop: seats 0 and 3 / 0 and 1 / 1, 2 and 3 all in
        ["1:check", "2:check", "3:raise 980", "0:call", "1:fold", "2:fold"],
        ["1:raise 980", "2:fold", "3:fold", "0:call"],
        ["1:check", "2:check", "3:raise 980", "0:fold", "1:call", "2:call"],
    ]
    counts.cache_clear()
    for flop in tables:
        played = {**hand, "actions": limped + flop}
        adjusted = adjusted_nets(rules, **played)  # type: ignore[arg-type]
        assert adjusted == _engine_expectation(rules, played)
    assert (counts.cache_info().misses, counts.cache_info().hits) == (1, 2)


def test_recorded_nets_spare_only_replays_that_would_change_nothing() -> None:
    # Given the deal's real nets, a hand all but one folded, or one with bets too small
    # for anyone to be all in, is not replayed: the answer must be the replay's.
    rng = random.Random(21)
    spared = 0
    for _ in range(400):
        rules, hand = _all_in_hand(rng, rng.choice((2, 3, 4)))
        if rng.random() < 0.5:  # small bets only: nobody can be all in
            hand = _small_bets_hand(rng, rules)
        state = replay(rules, **hand)  # type: ignore[arg-type]
        assert state.payoffs is not None
        from dp_arena.ratings.equity import _nets_stand

        spared += _nets_stand(rules, hand["actions"])  # type: ignore[arg-type]
        given = adjusted_nets(rules, **hand, nets=state.payoffs)  # type: ignore[arg-type]
        assert given == adjusted_nets(rules, **hand)  # type: ignore[arg-type]
    assert spared > 100


def _small_bets_hand(rng: random.Random, rules: TableRules) -> dict[str, object]:
    """A random hand whose bets and raises stay at 200 or less, played to its end."""
    deck = list(range(52))
    rng.shuffle(deck)
    seats = rules.seat_count
    holes = [format_cards(deck[2 * seat : 2 * seat + 2]) for seat in range(seats)]
    board = format_cards(deck[40:45])
    state = HandState(
        rules,
        button=0,
        stacks=(1000,) * seats,
        hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
        board=parse_cards(board),
    )
    actions = []
    while not state.is_complete:
        legal = state.legal_actions()
        if legal.can_raise and legal.min_raise_to <= 200 and rng.random() < 0.3:  # type: ignore[operator]
            action = Action.raise_to(min(200, legal.max_raise_to))  # type: ignore[type-var, arg-type]
        elif legal.can_call and rng.random() < 0.8:
            action = Action.call()
        elif legal.can_check:
            action = Action.check()
        else:
            action = Action.fold()
        actions.append(f"{state.actor}:{action}")
        state.apply(action)
    return {"button": 0, "hole_cards": holes, "board": board, "actions": actions}
