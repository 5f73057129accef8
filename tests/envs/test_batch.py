"""The batch engine against the engine: many tables played in lockstep on a
:class:`~dp_arena.envs.batch.engine.TableBatch` and on :class:`~dp_arena.engine.HandState`
objects, every array compared after every action (chips, bets, folds, who acted, the
street, the player to act and its legal actions, the payoffs, the history counts, the
action log), for 2 to 10 seats, both betting structures and caps down to the big blind;
every seat's observation vector and mask against the single environment's encoding;
the batch decks and hand values against ``deck_for`` and ``evaluate``."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.engine import (
    Action,
    ActionKind,
    Betting,
    HandState,
    LegalActions,
    TableRules,
    deck_for,
    evaluate,
    new_hand,
)
from dp_arena.envs.batch import cards as batch_cards
from dp_arena.envs.batch.cards import decks, hand_values
from dp_arena.envs.batch.encoding import batch_masks, encode_batch, encode_rows, row_masks
from dp_arena.envs.batch.engine import CALL, CHECK, FOLD, NO_ACTOR, RAISE, TableBatch
from dp_arena.envs.discrete_actions import ActionTable
from dp_arena.envs.encoding import encode_state
from dp_arena.errors import IllegalActionError
from tests.strategies import table_rules

CODES = {
    ActionKind.FOLD: FOLD,
    ActionKind.CHECK: CHECK,
    ActionKind.CALL: CALL,
    ActionKind.RAISE: RAISE,
}
SIZES = ActionTable(("min", 0.33, 0.5, 1, 2.5, "all-in"))


def _assert_row(batch: TableBatch, row: int, hand: HandState) -> None:
    assert batch.available[row].tolist() == hand.available
    assert batch.committed[row].tolist() == hand.committed
    assert batch.street_bets[row].tolist() == hand.street_bets
    assert batch.folded[row].tolist() == hand.folded
    assert batch.acted[row].tolist() == hand.acted
    assert int(batch.street[row]) == hand.street
    assert int(batch.current_bet[row]) == hand.current_bet
    assert int(batch.largest_increment[row]) == hand.largest_increment
    actor = int(batch.actor[row])
    assert (None if actor == NO_ACTOR else actor) == hand.actor
    if hand.actor is None:
        assert hand.payoffs is not None
        assert batch.payoffs[row].tolist() == list(hand.payoffs)
    else:
        legal = hand.legal_actions()
        raising = bool(batch.can_raise[row])
        assert (
            bool(batch.owed[row] > 0),
            int(batch.owed[row]) == 0,
            int(batch.call_amount[row]),
            int(batch.min_raise_to[row]) if raising else None,
            int(batch.max_raise_to[row]) if raising else None,
        ) == (
            legal.can_fold,
            legal.can_check,
            legal.call_amount,
            legal.min_raise_to,
            legal.max_raise_to,
        )
    raises = np.zeros((4, hand.seat_count), dtype=np.int64)
    chips = np.zeros((4, hand.seat_count), dtype=np.int64)
    for record in hand.history:
        raises[record.street, record.seat] += record.kind is ActionKind.RAISE
        chips[record.street, record.seat] += record.chips
    assert np.array_equal(batch.raises[row], raises)
    assert np.array_equal(batch.action_chips[row], chips)
    preflop = [record for record in hand.history if record.street == 0]
    assert int(batch.preflop_calls[row]) == sum(r.kind is ActionKind.CALL for r in preflop)
    raisers = [record.seat for record in preflop if record.kind is ActionKind.RAISE]
    assert int(batch.preflop_raiser[row]) == (raisers[-1] if raisers else NO_ACTOR)
    length = int(batch.log_length[row])
    assert list(
        zip(
            batch.log_kinds[row, :length].tolist(),
            batch.log_amounts[row, :length].tolist(),
            strict=True,
        )
    ) == [(CODES[record.kind], record.raise_to or 0) for record in hand.history]


def _assert_observations(batch: TableBatch, hands: list[HandState], deals: int) -> None:
    """Every seat's vector and mask, for every table, as the single env encodes them."""
    numbers = np.arange(batch.tables) % (deals + 1)  # past the session's end too
    nets = (np.arange(batch.tables) * 37) % 900 - 450
    for seat in range(batch.seat_count):
        vectors = encode_batch(batch, seat, numbers, deals, nets)
        masks = batch_masks(batch, seat, SIZES.size)
        for row, hand in enumerate(hands):
            expected = np.array(
                encode_state(hand, seat, int(numbers[row]), deals, int(nets[row])),
                dtype=np.float32,
            )
            assert np.array_equal(vectors[row], expected), (row, seat)
            to_act = hand.actor == seat
            expected_mask = SIZES.mask(hand.legal_actions()) if to_act else [0] * SIZES.size
            assert masks[row].tolist() == expected_mask
    # Any seat at any table at once, as the batch encodes its policy opponents.
    rows = np.arange(batch.tables)
    seats = (rows * 7 + 3) % batch.seat_count
    vectors = encode_rows(batch, rows, seats, numbers, deals, nets)
    for row, seat in zip(rows.tolist(), seats.tolist(), strict=True):
        expected = encode_state(hands[row], seat, int(numbers[row]), deals, int(nets[row]))
        assert np.array_equal(vectors[row], np.array(expected, dtype=np.float32)), (row, seat)
    acting = np.array([row for row, hand in enumerate(hands) if hand.actor is not None])
    if acting.size:
        masks = row_masks(batch, acting, SIZES.size)
        for line, row in enumerate(acting.tolist()):
            assert masks[line].tolist() == SIZES.mask(hands[row].legal_actions())


def _decision(hand: HandState, rng: random.Random) -> tuple[Action, int, int]:
    """A random legal action, raises often at the bounds and at the sizes' amounts."""
    legal = hand.legal_actions()
    kind = rng.choice(legal.kinds)
    if kind is not ActionKind.RAISE:
        return Action(kind), CODES[kind], 0
    assert legal.min_raise_to is not None and legal.max_raise_to is not None
    low, high = legal.min_raise_to, legal.max_raise_to
    sized = SIZES.raise_to(
        rng.randrange(2, SIZES.size), legal, pot=hand.pot_total, current_bet=hand.current_bet
    )
    amount = rng.choice([low, high, sized, rng.randint(low, high), min(high, low + 1)])
    return Action.raise_to(amount), RAISE, amount


def _play_lockstep(rules: TableRules, seed: int, tables: int, deals: int) -> None:
    rng = random.Random(seed)
    batch = TableBatch(rules, tables)
    rows = np.arange(tables)
    for deal in range(deals):
        table_decks = [deck_for(seed, 0, deal, table) for table in range(tables)]
        buttons = [rng.randrange(rules.seat_count) for _ in range(tables)]
        hands = [
            new_hand(rules, deck, button=button)
            for deck, button in zip(table_decks, buttons, strict=True)
        ]
        batch.start(rows, np.array(table_decks), np.array(buttons))
        observed = rng.random() < 0.3
        while True:
            for row, hand in enumerate(hands):
                _assert_row(batch, row, hand)
            if observed:
                _assert_observations(batch, hands, deals)
            playing = [row for row, hand in enumerate(hands) if hand.actor is not None]
            if not playing:
                break
            # Not every table acts at every step: the batch is driven by subsets of rows.
            acting = [row for row in playing if rng.random() < 0.75] or playing[:1]
            kinds, amounts = [], []
            for row in acting:
                action, kind, amount = _decision(hands[row], rng)
                hands[row].apply(action)
                kinds.append(kind)
                amounts.append(amount)
            batch.apply(np.array(acting), np.array(kinds), np.array(amounts))


RULES = [
    TableRules(seat_count=2, small_blind=10, big_blind=20),
    TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT),
    TableRules(seat_count=3, small_blind=1, big_blind=2, cap=2),  # the big blind is all-in
    TableRules(seat_count=2, small_blind=20, big_blind=20, cap=20),  # both blinds all-in
    TableRules(seat_count=4, small_blind=5, big_blind=10, cap=11),
    TableRules(seat_count=6, small_blind=10, big_blind=20),
    TableRules(seat_count=6, small_blind=10, big_blind=20, cap=100, betting=Betting.POT_LIMIT),
    TableRules(seat_count=9, small_blind=1, big_blind=2, cap=50),
    TableRules(seat_count=10, small_blind=25, big_blind=50, cap=1000, betting=Betting.POT_LIMIT),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda rules: f"{rules.seat_count}p-{rules.cap}")
def test_the_batch_plays_every_action_as_the_engine(rules: TableRules) -> None:
    _play_lockstep(rules, seed=rules.seat_count * 1000 + (rules.cap or 0), tables=24, deals=12)


@given(rules=table_rules(capped=st.just(True)), seed=st.integers(0, 2**32))
def test_the_batch_plays_any_capped_table_as_the_engine(rules: TableRules, seed: int) -> None:
    _play_lockstep(rules, seed, tables=6, deals=2)


@pytest.mark.slow
def test_the_batch_plays_many_tables_as_the_engine() -> None:
    rng = random.Random(2026)
    for seed in range(60):
        seats = rng.randint(2, 10)
        big_blind = rng.choice([2, 20, 40])
        cap = max(big_blind, rng.choice([big_blind, big_blind + 1, 3 * big_blind, 1000]))
        rules = TableRules(
            seat_count=seats,
            small_blind=rng.choice([1, big_blind // 2, big_blind]),
            big_blind=big_blind,
            betting=rng.choice(list(Betting)),
            cap=cap,
        )
        _play_lockstep(rules, seed, tables=48, deals=20)


def test_an_illegal_action_changes_no_table() -> None:
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20)
    batch = TableBatch(rules, 2)
    rows = np.arange(2)
    batch.start(rows, np.array([deck_for(3, 0, 0, 0), deck_for(3, 0, 0, 1)]), np.array([0, 1]))
    before = [array.copy() for array in (batch.committed, batch.actor, batch.log_length)]
    for kinds, amounts in (
        ([CALL, CHECK], [0, 0]),
        ([CALL, RAISE], [0, 30]),
        ([RAISE, FOLD], [2000, 0]),
    ):
        with pytest.raises(IllegalActionError, match="table"):
            batch.apply(rows, np.array(kinds), np.array(amounts))
        after = (batch.committed, batch.actor, batch.log_length)
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_the_decks_are_deck_for() -> None:
    rng = random.Random(5)
    seeds = [rng.randrange(2**63) for _ in range(300)] + [0, 1, 2**70]
    sessions = [rng.randrange(50) for _ in seeds]
    deals = [rng.randrange(1000) for _ in seeds]
    cards = decks(seeds, sessions, deals)
    assert cards.shape == (len(seeds), 52)
    for row, (seed, session, deal) in enumerate(zip(seeds, sessions, deals, strict=True)):
        assert tuple(cards[row].tolist()) == deck_for(seed, 0, session, deal)
    # The top of each deck alone (what a table of six deals) is the same top.
    assert np.array_equal(decks(seeds, sessions, deals, 20), cards[:, :20])


def test_a_deck_whose_stream_rejects_a_word_comes_from_deck_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rejection is astronomically rare; lowering the threshold makes every deck take the
    other way, which must still be ``deck_for``'s deck."""
    monkeypatch.setattr(batch_cards, "_NEVER_REJECTED", np.uint64(1))
    cards = decks([11, 12], [0, 3], [4, 5])
    assert [tuple(row) for row in cards.tolist()] == [deck_for(11, 0, 0, 4), deck_for(12, 0, 3, 5)]
    top = decks([11, 12], [0, 3], [4, 5], 12)
    assert [tuple(row) for row in top.tolist()] == [
        deck_for(11, 0, 0, 4)[:12],
        deck_for(12, 0, 3, 5)[:12],
    ]


def test_the_hand_values_are_evaluate() -> None:
    rng = np.random.default_rng(9)
    hands = np.array([rng.permutation(52)[:7] for _ in range(20_000)])
    # Flushes and straight flushes often: six cards of one suit and any seventh.
    suited = [
        [int(suit) + 4 * int(rank) for rank in rng.permutation(13)[:6]]
        for suit in rng.integers(0, 4, 3000)
    ]
    flushes = np.array(
        [
            [*row, next(card for card in rng.permutation(52).tolist() if card not in row)]
            for row in suited
        ]
    )
    for cards in (hands, flushes, hands.reshape(-1, 4, 7)[:, 1:3]):
        values = hand_values(cards)
        assert values.shape == cards.shape[:-1]
        flat_cards = cards.reshape(-1, 7).tolist()
        assert values.reshape(-1).tolist() == [evaluate(hand) for hand in flat_cards]


@pytest.mark.parametrize("size", [5, 6, 7])
def test_every_hand_without_a_flush_has_the_evaluators_value(size: int) -> None:
    # Every multiset of ranks (each at most four times), dealt in suits that repeat every
    # four cards: never a flush, never a card twice.
    hands = np.array(
        [
            [4 * rank + place % 4 for place, rank in enumerate(ranks)]
            for ranks in combinations_with_replacement(range(13), size)
            if max(ranks.count(rank) for rank in ranks) <= 4
        ]
    )
    assert len(hands) == {5: 6175, 6: 18395, 7: 49205}[size]
    assert hand_values(hands).tolist() == [evaluate(hand) for hand in hands.tolist()]


def test_raise_to_array_is_raise_to() -> None:
    rng = random.Random(4)
    cases = []
    for _ in range(500):
        low = rng.randint(20, 900)
        high = rng.randint(low, 1000)
        call = rng.randint(0, 500)
        legal = LegalActions(0, call > 0, call == 0, call, low, high)
        cases.append(
            (rng.randrange(2, SIZES.size), legal, rng.randint(30, 3000), rng.randint(0, 900))
        )
    amounts = SIZES.raise_to_array(
        np.array([index for index, *_ in cases]),
        np.array([legal.min_raise_to for _, legal, *_ in cases]),
        np.array([legal.max_raise_to for _, legal, *_ in cases]),
        pot=np.array([pot for *_, pot, _ in cases]),
        call_amount=np.array([legal.call_amount for _, legal, *_ in cases]),
        current_bet=np.array([bet for *_, bet in cases]),
    )
    assert amounts.tolist() == [
        SIZES.raise_to(index, legal, pot=pot, current_bet=bet) for index, legal, pot, bet in cases
    ]
