"""The built-in bots: their building blocks against hand computations and treys, their
legality everywhere, and their strength order in duplicate matches."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from itertools import combinations
from types import ModuleType

import pytest

from dp_arena.agents import load_agent
from dp_arena.engine import Betting, evaluate, evaluate_reference, parse_cards
from dp_arena.match import MatchConfig, play_match

BUILT_IN_BOTS = ("random", "calling-station", "aggressive", "tag", "equity")


def _module(name: str) -> ModuleType:
    """The module of a built-in bot, as the match loads it."""
    return sys.modules[type(load_agent(name)).__module__]


tag = _module("tag")
equity = _module("equity")


def test_every_built_in_bot_has_a_docstring_saying_how_it_plays() -> None:
    for name in BUILT_IN_BOTS:
        module = _module(name)
        assert module.__doc__ and len(module.__doc__.split()) >= 12, name


# -- TAG's building blocks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "score"),
    [
        ("AsAh", 20),  # ace 10 points, doubled
        ("KdKc", 16),  # king 8, doubled
        ("5s5h", 5),  # five 2.5, doubled
        ("2c2d", 5),  # deuce 1 doubled is 2, but a pair scores at least 5
        ("AsKs", 12),  # ace 10 + suited 2
        ("AsKd", 10),
        ("AhJh", 10),  # 10 + 2 suited - 2 for a two-card gap
        ("Th9h", 8),  # ten 5 + 2 suited + 1 connected below a queen
        ("5s4s", 6),  # five 2.5 + 2 + 1 = 5.5, rounded up
        ("7h2c", -1),  # seven 3.5 - 5 for a gap of four or more = -1.5, rounded up
        ("Qs9d", 5),  # queen 7 - 2 for a gap of two
    ],
)
def test_chen_scores_worked_by_hand(hand: str, score: int) -> None:
    assert tag.chen_score(*parse_cards(hand)) == score


def _strength_by_enumeration(
    hole: tuple[int, ...],
    board: tuple[int, ...],
    rank: Callable[[tuple[int, ...]], int] = evaluate,
) -> float:
    """Every holding left, one by one, ranked by ``rank`` (the bot counts classes of
    alike holdings instead)."""
    mine = rank(hole + board)
    rest = [card for card in range(52) if card not in hole + board]
    outcomes = []
    for pair in combinations(rest, 2):
        theirs = rank(pair + board)
        outcomes.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    return sum(outcomes) / len(outcomes)


def _strength_by_treys(hole: str, board: str) -> float:
    return _strength_by_enumeration(parse_cards(hole), parse_cards(board), evaluate_reference)


@pytest.mark.parametrize(
    ("hole", "board"),
    [("AsKs", "QsJs2d"), ("7c7d", "7h2s9dKc"), ("3c2d", "AhKhQh8s9s"), ("AhAd", "KsKdKc7h7s")],
)
def test_hand_strength_agrees_with_enumeration_by_treys(hole: str, board: str) -> None:
    assert tag.hand_strength(parse_cards(hole), parse_cards(board)) == pytest.approx(
        _strength_by_treys(hole, board)
    )


def test_hand_strength_equals_enumerating_every_holding() -> None:
    rng = random.Random("hand strength")
    cases = []
    for size in (3, 4, 5):
        for _ in range(40):  # any board
            cards = rng.sample(range(52), 2 + size)
            cases.append((tuple(cards[:2]), tuple(cards[2:])))
        for suit in range(4):  # a flush suit on the board, with and without hole cards of it
            board = rng.sample([card for card in range(52) if card & 3 == suit], size)
            for _ in range(5):
                hole = rng.sample([card for card in range(52) if card not in board], 2)
                cases.append((tuple(hole), tuple(board)))
    for hole, board in cases:
        # (exactly: the bot's counts are integers, as the enumeration's are)
        assert tag.hand_strength(hole, board) == _strength_by_enumeration(hole, board)


def test_hand_strength_extremes() -> None:
    assert tag.hand_strength(parse_cards("AsKs"), parse_cards("QsJsTs")) == 1.0  # a royal flush
    # The board plays for everyone: the royal flush on the board ties every holding.
    assert tag.hand_strength(parse_cards("2c3d"), parse_cards("AsKsQsJsTs")) == 0.5


@pytest.mark.parametrize(
    ("hole", "board", "expected"),
    [
        ("AhKh", "2h7h9c", 1 - (38 / 47) * (37 / 46)),  # flush draw, two cards to come: 9 outs
        ("AhKh", "2h7h9c4s", 9 / 46),  # flush draw, one card to come
        ("8c9d", "6h7sKc", 1 - (39 / 47) * (38 / 46)),  # open-ended straight draw: 8 outs
        ("8h9h", "6h7hKc", 1 - (32 / 47) * (31 / 46)),  # both: 15 outs
        ("JcQd", "9hTsKc", 0.0),  # a straight already, no draw
        ("AhKh", "2h7h9c4s5d", 0.0),  # the river: nothing to come
        ("2c7d", "9hJsKd", 0.0),
    ],
)
def test_draw_odds_worked_by_hand(hole: str, board: str, expected: float) -> None:
    assert tag.draw_odds(parse_cards(hole), parse_cards(board)) == pytest.approx(expected)


def test_opening_bar_by_position() -> None:
    observation = _observation_at(seat_count=6, seat=3, button=0)  # first to act: 5 players behind
    assert tag.opening_bar(observation) == 9
    assert tag.opening_bar(_observation_at(seat_count=6, seat=0, button=0)) == 6  # the button
    assert tag.opening_bar(_observation_at(seat_count=10, seat=3, button=0)) == 10  # capped
    assert tag.opening_bar(_observation_at(seat_count=2, seat=0, button=0)) == 5


def _observation_at(*, seat_count: int, seat: int, button: int):  # type: ignore[no-untyped-def]
    from dp_arena.agents import SessionContext, observe
    from dp_arena.engine import TableRules, deck_for, new_hand

    rules = TableRules(seat_count=seat_count, small_blind=10, big_blind=20)
    state = new_hand(rules, deck_for(1, 0, 0, 0), button=button)
    return observe(state, seat, SessionContext())


# -- the equity bot's estimate -----------------------------------------------------------


def test_monte_carlo_equity_on_the_river_matches_exact_enumeration() -> None:
    # With the whole board out, equity against one random hand is the hand strength.
    hole, board = parse_cards("Td9d"), parse_cards("8d7s2cKhJc")
    estimate = equity.monte_carlo_equity(hole, board, 1, 20_000, random.Random(3))
    exact = _strength_by_treys("Td9d", "8d7s2cKhJc")
    assert estimate == pytest.approx(exact, abs=4 * 0.5 / 20_000**0.5)


@pytest.mark.parametrize(
    ("hole", "opponents", "published"),
    # Preflop all-in equities against random hands, as published in equity tables.
    [("AsAh", 1, 0.852), ("7c2d", 1, 0.346), ("AsAh", 5, 0.49)],
)
def test_monte_carlo_equity_preflop_matches_published_equities(
    hole: str, opponents: int, published: float
) -> None:
    estimate = equity.monte_carlo_equity(parse_cards(hole), (), opponents, 20_000, random.Random(1))
    assert estimate == pytest.approx(published, abs=0.015)


# -- every bot plays legally everywhere --------------------------------------------------


@pytest.mark.parametrize("betting", list(Betting))
@pytest.mark.parametrize(
    "agents", [BUILT_IN_BOTS, ("tag", "equity", "aggressive"), ("tag", "aggressive")]
)
def test_built_in_bots_never_fault(agents: tuple[str, ...], betting: Betting) -> None:
    result = play_match(MatchConfig(agents, deals=12, betting=betting, seed=8), trusted=True)
    assert [score.faults for score in result.scores] == [0] * len(agents)
    assert sum(score.net for score in result.scores) == 0


# -- strength order ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strong", "weak", "deals"),
    [
        # Deal counts chosen so the interval's half-width is at most ~40% of the edge (checked
        # over several seeds), yet all four matches take a few seconds.
        ("tag", "random", 2000),
        ("tag", "calling-station", 300),
        ("equity", "random", 300),
        ("equity", "calling-station", 150),
    ],
)
def test_tag_and_equity_beat_random_and_the_calling_station(
    strong: str, weak: str, deals: int
) -> None:
    result = play_match(MatchConfig((strong, weak), deals=deals, seed=2026), trusted=True)
    winner, loser = result.scores
    assert winner.summary.low is not None and winner.summary.low > 0, winner.summary
    assert loser.summary.high is not None and loser.summary.high < 0, loser.summary
