"""The fast evaluator agrees with ``treys``, the reference (docs/rules.md): on one hand of
each of the 7,462 five-card classes, on random five-, six- and seven-card hands, and on
the ordering every poker player knows.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from dp_arena.engine import evaluate, evaluate_holdings, hand_class_name, parse_cards
from dp_arena.engine.cards import RANKS, SUITS, make_card

TREYS = TreysEvaluator()
# Our card numbers as treys cards, built from the rank and suit letters, not from our parser.
TREYS_CARDS = [TreysCard.new(RANKS[card // 4] + SUITS[card % 4]) for card in range(52)]


def treys_value(cards: Sequence[int]) -> int:
    converted = [TREYS_CARDS[card] for card in cards]
    return int(TREYS.evaluate(converted[:2], converted[2:]))


STRAIGHTS = [set(range(top - 4, top + 1)) for top in range(4, 13)] + [{12, 0, 1, 2, 3}]


def _category(ranks: Sequence[int], flush: bool) -> str:
    """The class of five cards from their ranks, by the textbook definitions."""
    counts = sorted(Counter(ranks).values(), reverse=True)
    straight = len(counts) == 5 and set(ranks) in STRAIGHTS
    if straight and flush:
        return "Straight Flush"
    if counts[0] == 4:
        return "Four of a Kind"
    if counts[:2] == [3, 2]:
        return "Full House"
    if flush:
        return "Flush"
    if straight:
        return "Straight"
    if counts[0] == 3:
        return "Three of a Kind"
    if counts[:2] == [2, 2]:
        return "Two Pair"
    if counts[0] == 2:
        return "Pair"
    return "High Card"


def one_hand_per_class() -> Iterator[tuple[tuple[int, ...], str]]:
    """Five cards of every class: each multiset of ranks (no rank five times) in mixed
    suits, and each set of five distinct ranks suited. 6,175 + 1,287 = 7,462."""
    for ranks in combinations_with_replacement(range(13), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        seen: Counter[int] = Counter()
        suits = []
        for rank in ranks:
            suits.append(seen[rank])  # copies of a rank get different suits
            seen[rank] += 1
        if len(set(suits)) == 1:  # five distinct ranks all in suit 0: break the flush
            suits[-1] = 1
        yield (
            tuple(make_card(rank, suit) for rank, suit in zip(ranks, suits, strict=True)),
            _category(ranks, False),
        )
    for ranks in combinations(range(13), 5):
        yield tuple(make_card(rank, 2) for rank in ranks), _category(ranks, True)


def test_every_class_agrees_with_treys() -> None:
    hands = list(one_hand_per_class())
    assert len(hands) == 7462
    values = []
    for cards, category in hands:
        value = evaluate(cards)
        assert value == treys_value(cards), cards
        assert hand_class_name(value) == category, cards
        values.append(value)
    # Every rank number from 1 (royal flush) to 7462 (seven high) is reached exactly once.
    assert sorted(values) == list(range(1, 7463))


def test_class_sizes_are_the_textbook_counts() -> None:
    sizes = Counter(category for _, category in one_hand_per_class())
    assert sizes == {
        "Straight Flush": 10,
        "Four of a Kind": 156,
        "Full House": 156,
        "Flush": 1277,
        "Straight": 10,
        "Three of a Kind": 858,
        "Two Pair": 858,
        "Pair": 2860,
        "High Card": 1277,
    }


@pytest.mark.parametrize(("size", "count"), [(5, 50_000), (6, 50_000), (7, 100_000)])
def test_random_hands_agree_with_treys(size: int, count: int) -> None:
    rng = random.Random(f"evaluator-{size}")
    deck = list(range(52))
    for _ in range(count):
        cards = rng.sample(deck, size)
        assert evaluate(cards) == treys_value(cards), cards


@pytest.mark.slow
def test_a_million_seven_card_hands_agree_with_treys() -> None:
    rng = random.Random("evaluator-slow")
    deck = list(range(52))
    for _ in range(1_000_000):
        cards = rng.sample(deck, 7)
        assert evaluate(cards) == treys_value(cards), cards


# Seven-card hands whose best five are easy to get wrong.
TRICKY = [
    ("Ah2c3d4s5h9cKd", "Straight"),  # the wheel
    ("As2s3s4s5sKhKd", "Straight Flush"),  # steel wheel beside a pair
    ("9s8s7s6s5s4s3s", "Straight Flush"),  # seven suited in a row: nine high
    ("AhAdAcKsKhKdQc", "Full House"),  # two trips
    ("AhAdKsKhQcQd2c", "Two Pair"),  # three pairs: the kicker is the third pair's rank
    ("AhAdAcAsKhKdKc", "Four of a Kind"),  # quads beside trips
    ("AsKsQsJs9s8s2c", "Flush"),  # six suited: the best five
    ("Tc9dJhQsKcAd2h", "Straight"),  # six in a row
]


@pytest.mark.parametrize(("text", "category"), TRICKY)
def test_tricky_seven_card_hands(text: str, category: str) -> None:
    cards = parse_cards(text)
    assert evaluate(cards) == treys_value(cards)
    assert hand_class_name(evaluate(cards)) == category


LADDER = [  # best first, by the rules of poker
    "AsKsQsJsTs",  # royal flush
    "KhQhJhTh9h",
    "5d4d3d2dAd",  # the lowest straight flush
    "AcAdAhAsKc",
    "AcAdAhAsQc",
    "KcKdKhKsAc",
    "AcAdAhKsKc",
    "AcAdAhQsQc",
    "KcKdKhAsAc",
    "AhKhQhJh9h",  # the best flush
    "7c5c4c3c2c",  # the worst flush
    "AsKdQhJcTs",  # broadway
    "5s4d3h2cAs",  # the wheel, the lowest straight
    "AcAdAhKsQc",
    "AcAdKhKsQc",
    "AcAdKhKsJc",
    "AcAdQhQsKc",
    "AcAdKhQsJc",
    "KcKdAhQsJc",
    "AcKdQhJs9c",
    "7c5d4h3s2c",  # the worst hand
]


def test_the_ladder_of_hands_is_in_order() -> None:
    values = [evaluate(parse_cards(text)) for text in LADDER]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert (values[0], values[-1]) == (1, 7462)


seven_cards = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


@given(seven_cards, st.permutations(range(4)), st.randoms(use_true_random=False))
def test_order_of_cards_and_names_of_suits_do_not_matter(
    cards: list[int], suit_names: list[int], rng: random.Random
) -> None:
    value = evaluate(cards)
    shuffled = list(cards)
    rng.shuffle(shuffled)
    assert evaluate(shuffled) == value
    renamed = [card // 4 * 4 + suit_names[card % 4] for card in cards]
    assert evaluate(renamed) == value


@given(seven_cards)
def test_seven_cards_are_worth_their_best_five(cards: list[int]) -> None:
    best_five = min(evaluate(five) for five in combinations(cards, 5))
    assert evaluate(cards) == best_five
    # A sixth and seventh card can only help.
    assert evaluate(cards) <= evaluate(cards[:6]) <= evaluate(cards[:5])


def test_the_shipped_tables_file_equals_a_fresh_build() -> None:
    from dp_arena.engine.evaluator import _build_tables
    from dp_arena.engine.evaluator_tables import TABLES_FILE, read_tables

    assert TABLES_FILE.is_file(), "regenerate it: see dp_arena/engine/evaluator_tables.py"
    assert read_tables() == _build_tables(), (
        "evaluator_tables.bin is stale: see dp_arena/engine/evaluator_tables.py to regenerate it"
    )


def test_a_tables_file_round_trips_and_a_damaged_one_is_refused(tmp_path: Path) -> None:
    from dp_arena.engine.evaluator import _build_tables
    from dp_arena.engine.evaluator_tables import read_tables, write_tables

    tables = _build_tables()
    path = tmp_path / "tables.bin"
    write_tables(tables, path)
    assert read_tables(path) == tables
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # truncated
    assert read_tables(path) is None
    path.write_bytes(b"not a tables file" + data)
    assert read_tables(path) is None
    assert read_tables(tmp_path / "missing.bin") is None


def test_without_the_file_the_tables_are_built_and_agree() -> None:
    code = (
        "from pathlib import Path\n"
        "import dp_arena.engine.evaluator_tables as files\n"
        "files.TABLES_FILE = Path('/nonexistent/tables.bin')\n"
        "from dp_arena.engine.evaluator import evaluate, evaluate_reference\n"
        "import random\n"
        "rng = random.Random(5)\n"
        "hands = [rng.sample(range(52), 7) for _ in range(2000)]\n"
        "assert all(evaluate(h) == evaluate_reference(h) for h in hands)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_every_holding_with_a_board_agrees_with_treys(board_size: int) -> None:
    # Boards of every kind: random ones, and boards of one suit (a flush for some holdings).
    rng = random.Random(board_size)
    boards = [rng.sample(range(52), board_size) for _ in range(20)]
    for suit in range(4):
        boards.append(rng.sample([card for card in range(52) if card & 3 == suit], board_size))
    for board in boards:
        holdings = list(combinations([card for card in range(52) if card not in board], 2))
        ranks = evaluate_holdings(board, holdings)
        assert len(ranks) == len(holdings)
        for (first, second), rank in zip(holdings[::37], ranks[::37], strict=True):
            assert rank == treys_value([first, second, *board])
        assert ranks == [evaluate((*holding, *board)) for holding in holdings]
