"""Cards, the duplicate deck and the dealing order (docs/rules.md).

The deck is checked against an independent implementation written here from the
algorithm as ``dp_arena/engine/deck.py`` documents it, so that anyone holding only that
paragraph can reproduce every deal.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.engine import (
    TableRules,
    button_for_deal,
    deal_cards,
    deck_for,
    format_card,
    format_cards,
    new_hand,
    parse_card,
    parse_cards,
)
from dp_arena.engine import deck as deck_module

ROOT = Path(__file__).resolve().parents[2]
deck_ids = st.tuples(
    st.integers(0, 2**80), st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 10**6)
)


# -- cards ---------------------------------------------------------------------------


def test_cards_are_numbered_rank_times_four_plus_suit() -> None:
    # Deuce of clubs is 0, deuce of diamonds 1, ... ace of spades 51.
    expected = {"2c": 0, "2d": 1, "2h": 2, "2s": 3, "3c": 4, "Tc": 32, "Ah": 50, "As": 51}
    assert {text: parse_card(text) for text in expected} == expected
    texts = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    assert [format_card(card) for card in range(52)] == texts
    assert parse_cards("".join(texts)) == tuple(range(52))
    assert format_cards(parse_cards("ah KD 2c")) == "AhKd2c"
    assert format_cards(card for card in (51, 0)) == "As2c"  # any iterable of cards
    assert format_cards(()) == ""


@pytest.mark.parametrize("cards", [[0, 52], [-1], [12, 3.5]])
def test_a_number_that_is_no_card_is_refused_by_name(cards: list[float]) -> None:
    with pytest.raises(ValueError, match=f"not a card: {cards[-1]!r}"):
        format_cards(cards)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["1c", "Ax", "AsK", "10c"])
def test_bad_card_text_is_refused_with_the_text(text: str) -> None:
    with pytest.raises(ValueError, match="card"):
        parse_cards(text)


# -- the deck ------------------------------------------------------------------------


def reference_deck(event_seed: int, section: int, session: int, deal: int) -> list[int]:
    """The deck exactly as deck.py's docstring describes it, written independently."""
    text = f"dp-arena/deck/v1:{event_seed}:{section}:{session}:{deal}"
    shake = hashlib.shake_256(text.encode())

    def words() -> object:
        count = 0
        while True:
            count += 1
            stream = shake.digest(8 * count)
            yield int.from_bytes(stream[-8:], "little")

    return shuffle(words())


def shuffle(stream: object) -> list[int]:
    cards = list(range(52))
    for i in range(51, 0, -1):
        while True:
            word = next(stream)  # type: ignore[call-overload]
            if word < 2**64 - 2**64 % (i + 1):
                break
        j = word % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@given(deck_ids)
def test_deck_is_a_permutation_and_matches_the_documented_algorithm(
    ids: tuple[int, int, int, int],
) -> None:
    deck = deck_for(*ids)
    assert sorted(deck) == list(range(52))
    assert list(deck) == reference_deck(*ids)


def test_known_ids_match_the_documented_algorithm() -> None:
    for ids in [(0, 0, 0, 0), (2026, 1, 2, 3), (2**64 - 1, 29, 99, 10**5)]:
        assert list(deck_for(*ids)) == reference_deck(*ids)


def test_a_rejected_word_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    # A word at or above the largest multiple of 52 below 2**64 would bias the first
    # draw: it must be skipped and the next word used. Prefix the real stream with one.
    real_shake = hashlib.shake_256
    rejected = (2**64 - 1).to_bytes(8, "little")

    class PrefixedShake:
        def __init__(self, material: bytes) -> None:
            self.real = real_shake(material)

        def digest(self, length: int) -> bytes:
            return (rejected + self.real.digest(length))[:length]

    expected = deck_for(5, 0, 0, 7)
    monkeypatch.setattr(deck_module.hashlib, "shake_256", PrefixedShake)
    deck_module._deck.cache_clear()  # computed again, from the prefixed stream
    assert deck_for(5, 0, 0, 7) == expected
    deck_module._deck.cache_clear()


def test_reading_more_of_the_stream_gives_the_same_deck(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a short first read the shuffle must extend the same stream, not start anew.
    expected = [deck_for(seed, 0, 0, 0) for seed in range(20)]
    monkeypatch.setattr(deck_module, "_WORDS", 3)
    monkeypatch.setattr(deck_module, "_NEVER_REJECTED", 0)  # take the stream's path always
    deck_module._deck.cache_clear()
    assert [deck_for(seed, 0, 0, 0) for seed in range(20)] == expected
    deck_module._deck.cache_clear()


def test_a_deck_is_computed_once_and_its_ids_are_still_checked() -> None:
    deck_module._deck.cache_clear()
    first = deck_for(77, 1, 2, 3)
    assert deck_for(77, 1, 2, 3) is first  # every table of a section: the same deck, once
    assert deck_module._deck.cache_info().hits == 1
    with pytest.raises(ValueError, match="event_seed"):
        deck_for(True, 1, 2, 3)  # equal to 1 as a key, refused before any lookup


@given(deck_ids)
def test_the_stream_path_and_the_fast_path_give_the_same_deck(
    ids: tuple[int, int, int, int],
) -> None:
    material = "dp-arena/deck/v1:{}:{}:{}:{}".format(*ids).encode()
    assert deck_module._shuffle(deck_module._words(material)) == deck_for(*ids)


def test_the_deck_does_not_depend_on_the_process() -> None:
    ids = [(0, 0, 0, 0), (7, 1, 2, 3), (123456789, 4, 5, 6)]
    program = (
        "import json, sys; from dp_arena.engine import deck_for;"
        f" print(json.dumps([deck_for(*ids) for ids in {ids!r}]))"
    )
    here = [list(deck_for(*each)) for each in ids]
    for hash_seed in ("0", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": hash_seed}
        output = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env=environment,
        ).stdout
        assert json.loads(output) == here


def test_distinct_ids_give_distinct_decks() -> None:
    grid = list(product(range(4), range(3), range(3), range(20)))
    # Ids whose digits could run together without the separators.
    grid += [(1, 23, 0, 0), (12, 3, 0, 0), (1, 2, 30, 0), (1, 23, 0, 1)]
    grid += [(11, 1, 1, 1), (1, 11, 1, 1), (1, 1, 11, 1), (1, 1, 1, 11)]
    decks = {deck_for(*ids) for ids in set(grid)}
    assert len(decks) == len(set(grid))


@pytest.mark.parametrize(
    ("name", "ids"),
    [
        ("event_seed", (-1, 0, 0, 0)),
        ("section", (0, 1.0, 0, 0)),
        ("session", (0, 0, True, 0)),
        ("deal", (0, 0, 0, "3")),
    ],
)
def test_bad_deck_ids_are_refused_by_name(name: str, ids: tuple[object, ...]) -> None:
    with pytest.raises(ValueError, match=name):
        deck_for(*ids)  # type: ignore[arg-type]


# -- dealing -------------------------------------------------------------------------


def test_dealing_order_card_by_card() -> None:
    # Three seats, button 1, and a deck whose cards are numbered in dealing order. One
    # card at a time from the seat left of the button (2, then 0, then the button, 1):
    # seat 2 gets cards 0 and 3, seat 0 gets 1 and 4, seat 1 gets 2 and 5. Then burn 6,
    # flop 7 8 9, burn 10, turn 11, burn 12, river 13.
    hole_cards, board = deal_cards(tuple(range(52)), seat_count=3, button=1)
    assert hole_cards == ((1, 4), (2, 5), (0, 3))
    assert board == (7, 8, 9, 11, 13)


def test_heads_up_dealing_starts_with_the_big_blind() -> None:
    # Heads-up the button is the small blind; the other seat is left of it, dealt first.
    hole_cards, board = deal_cards(tuple(range(52)), seat_count=2, button=0)
    assert hole_cards == ((1, 3), (0, 2))
    assert board == (5, 6, 7, 9, 11)


@given(st.integers(2, 10), st.data(), st.permutations(range(52)))
def test_new_hand_deals_as_a_dealer_would(
    seat_count: int, data: st.DataObject, deck: list[int]
) -> None:
    button = data.draw(st.integers(0, seat_count - 1))
    # A dealer: one card at a time around the table from left of the button, twice;
    # then burn, three cards, burn, one, burn, one.
    top = iter(deck)
    hands: dict[int, list[int]] = {seat: [] for seat in range(seat_count)}
    for _ in range(2):
        for offset in range(1, seat_count + 1):
            hands[(button + offset) % seat_count].append(next(top))
    next(top)
    flop = [next(top), next(top), next(top)]
    next(top)
    turn = next(top)
    next(top)
    river = next(top)
    state = new_hand(TableRules(seat_count, 10, 20), deck, button=button)
    assert state.hole_cards == tuple(tuple(hands[seat]) for seat in range(seat_count))
    assert state.board == (*flop, turn, river)


def test_button_moves_one_seat_a_deal_from_seat_zero() -> None:
    assert [button_for_deal(deal, 4) for deal in range(9)] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [button_for_deal(deal, 2) for deal in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("seat_count", [1, 11])
def test_dealing_refuses_impossible_tables(seat_count: int) -> None:
    with pytest.raises(ValueError, match="2 to 10 seats"):
        deal_cards(tuple(range(52)), seat_count=seat_count, button=0)
