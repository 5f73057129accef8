"""TightAggressiveBot: a rule-based tight-aggressive player (a preflop chart by position,
postflop hand strength from the evaluator).

How it plays:

- **Preflop** it scores its two cards with Bill Chen's formula (AA 20, KK 16, AKs 12,
  TT 10, 22 5, 72o -1) and plays by position. Unopened, it raises to three big blinds
  (one more per limper) when the score reaches its opening bar: 4 plus the number of
  players still to act behind it, between 5 and 10 (the heads-up button opens from 5,
  the button of a bigger table from 6, the first seat of six-handed from 9). The big
  blind checks what it may; the small blind completes with hands just under the bar.
  Facing a raise it looks at the price, the share of the pot after a call that the
  call costs: facing one raise it re-raises to three times the bet with 12 or more
  (JJ+, AKs) and calls from ``1 + 16 x price`` (5 for a big blind facing a min-raise,
  9 facing an all-in); facing a re-raise it goes all in with 14 or more (QQ+) and
  calls from ``4 + 16 x price`` (12 at most).
- **Postflop** it computes its hand strength: the share of every possible opponent
  holding that its hand beats now (ties count half), found by enumerating them all
  with the evaluator, raised to the number of opponents still in the hand. Unbet to,
  it bets three quarters of the pot from 0.85, half the pot from 0.65 against at
  most two opponents, and as the last raiser before the flop it bets half the pot on
  the flop against a single opponent whatever it holds (a continuation bet); it
  checks otherwise. Facing a bet it raises the size of the pot from 0.92, calls when
  its strength is at least ``0.2 + pot odds`` (0.85 at most), calls with a flush or an
  open-ended straight draw when the draw's odds beat the pot odds, and folds
  otherwise.
- **Sizing** is always a raise *to* a street total between the minimum and the
  maximum raise-to it is offered, so it plays pot-limit and no-limit alike; when a
  raise would leave less than a third of its chips behind, it moves all in instead.

It uses no randomness: it plays the same cards in the same situation the same way,
so two copies of it in a duplicate match score exactly zero.
"""

from __future__ import annotations

import functools

from dp_arena.agents import Observation
from dp_arena.engine import Action, ActionKind, Street, evaluate, evaluate_holdings
from dp_arena.engine.cards import Card, card_rank, card_suit
from dp_arena.engine.chen import chen_score


@functools.lru_cache(maxsize=4096)
def hand_strength(hole: tuple[Card, Card], board: tuple[Card, ...]) -> float:
    """The share of opponent holdings that ``hole`` beats on ``board`` now (ties count half),
    counted over every two cards left in the deck. (Remembered: the mirrored tables of a
    duplicate event deal the same cards to the same seat, so a bot seated at several of
    them asks the same question many times.)

    Holdings that must rank alike are ranked once and counted as many times as there are:
    a holding's rank depends only on its cards' ranks and on which of them are of the
    board's flush suit (the one suit with three or more board cards, if any; no other
    suit can make a flush). So the cards left are sorted into classes by rank and by
    being of that suit, and one holding of each pair of classes stands for all of them.
    """
    mine = evaluate(hole + board)
    known = set(hole) | set(board)
    suits = [card_suit(card) for card in board]
    flush_suit = next((suit for suit in range(4) if suits.count(suit) >= 3), None)
    classes: dict[tuple[int, bool], list[Card]] = {}
    for card in range(52):
        if card not in known:
            key = (card_rank(card), card_suit(card) == flush_suit)
            classes.setdefault(key, []).append(card)
    members = list(classes.values())
    holdings: list[tuple[Card, Card]] = []
    counts: list[int] = []
    for index, cards in enumerate(members):
        if len(cards) >= 2:  # two cards of one class: a pair, neither of the flush suit
            holdings.append((cards[0], cards[1]))
            counts.append(len(cards) * (len(cards) - 1) // 2)
        for other in members[index + 1 :]:
            holdings.append((cards[0], other[0]))
            counts.append(len(cards) * len(other))
    beaten = tied = 0
    for rank, count in zip(evaluate_holdings(board, holdings), counts, strict=True):
        if mine < rank:  # a lower rank number is a better hand
            beaten += count
        elif mine == rank:
            tied += count
    return (beaten + tied / 2) / sum(counts)


def draw_odds(hole: tuple[Card, Card], board: tuple[Card, ...]) -> float:
    """The chance that a flush draw or an open-ended straight draw using a hole card
    completes by the river (0 without such a draw, and on the river). Nine flush outs
    among 47 unseen cards with two to come miss with 38/47 x 37/46; with one to come
    they hit 9 times in 46:

    >>> from dp_arena.engine import parse_cards
    >>> round(draw_odds(parse_cards("AhKh"), parse_cards("2h7h9c")), 4)
    0.3497
    >>> round(draw_odds(parse_cards("AhKh"), parse_cards("2h7h9c4d")), 4)
    0.1957
    >>> draw_odds(parse_cards("AhKd"), parse_cards("2h7h9c"))
    0.0
    """
    cards_to_come = 5 - len(board)
    if cards_to_come not in (1, 2):
        return 0.0
    cards = hole + board
    flush_draw = any(
        sum(1 for card in cards if card_suit(card) == suit) == 4
        and any(card_suit(card) == suit for card in hole)
        for suit in range(4)
    )
    ranks = {card_rank(card) for card in cards}
    hole_ranks = {card_rank(card) for card in hole}
    straight_draw = any(  # four ranks in a row, open at both ends (so not ending at the ace)
        set(range(low, low + 4)) <= ranks
        and set(range(low, low + 4)) & hole_ranks
        and low - 1 not in ranks
        and low + 4 not in ranks
        for low in range(1, 9)
    )
    # 9 flush outs, 8 straight outs; with both, 15 (two of the straight cards are also flush cards).
    outs = 15 if flush_draw and straight_draw else 9 if flush_draw else 8 if straight_draw else 0
    unseen = 52 - len(cards)
    miss = 1.0
    for drawn in range(cards_to_come):
        miss *= (unseen - drawn - outs) / (unseen - drawn)
    return 1.0 - miss


def raise_to_pot_fraction(observation: Observation, numerator: int, denominator: int) -> int:
    """A raise *to* a street total that adds ``numerator/denominator`` of the pot after a
    call, clamped between the offered minimum and maximum; all in when the raise would
    leave less than a third of the chips behind. (A fraction of 1 is a pot-sized raise.)"""
    assert observation.min_raise_to is not None and observation.max_raise_to is not None
    wanted = (
        observation.current_bet + (observation.pot + observation.to_call) * numerator // denominator
    )
    amount = min(max(wanted, observation.min_raise_to), observation.max_raise_to)
    seat = observation.seat
    all_in_to = observation.street_bets[seat] + observation.available[seat]
    left_behind = all_in_to - amount
    if left_behind * 3 < observation.available[seat]:
        amount = min(all_in_to, observation.max_raise_to)
    return amount


def raises_on_street(observation: Observation) -> int:
    return sum(
        1
        for record in observation.history
        if record.street == observation.street and record.kind is ActionKind.RAISE
    )


def passive(observation: Observation) -> Action:
    return Action.check() if observation.can(ActionKind.CHECK) else Action.fold()


class TightAggressiveBot:
    """Plays few hands, and those it plays it bets and raises; see the module docstring."""

    def act(self, observation: Observation) -> Action:
        if observation.street is Street.PREFLOP:
            return self._preflop(observation)
        return self._postflop(observation)

    # -- preflop -------------------------------------------------------------------------

    def _preflop(self, observation: Observation) -> Action:
        score = chen_score(*observation.hole_cards)
        raises = raises_on_street(observation)
        can_raise = observation.can(ActionKind.RAISE)
        if raises == 0:
            bar = opening_bar(observation)
            if score >= bar and can_raise:
                limpers = sum(1 for record in observation.history if record.kind is ActionKind.CALL)
                return Action.raise_to(_clamp(observation, (3 + limpers) * observation.big_blind))
            if observation.can(ActionKind.CHECK):
                return Action.check()
            small_blind_completion = (
                observation.to_call <= observation.big_blind - observation.small_blind
            )
            if (
                small_blind_completion
                and observation.seat == observation.small_blind_seat
                and score >= bar - 2
            ):
                return Action.call()
            return Action.fold()
        # The call bar rises with the price: the share of the pot after the call it costs.
        price = observation.to_call / (observation.pot + observation.to_call)
        if raises == 1:
            if score >= 12 and can_raise:
                return Action.raise_to(_clamp(observation, 3 * observation.current_bet))
            if score >= 1 + 16 * price and observation.can(ActionKind.CALL):
                return Action.call()
            return passive(observation)
        if score >= 14 and can_raise:
            assert observation.max_raise_to is not None
            return Action.raise_to(observation.max_raise_to)
        if score >= min(12, 4 + 16 * price) and observation.can(ActionKind.CALL):
            return Action.call()
        return passive(observation)

    # -- postflop ------------------------------------------------------------------------

    def _postflop(self, observation: Observation) -> Action:
        opponents = observation.players_in_hand - 1
        strength = hand_strength(observation.hole_cards, observation.board) ** opponents
        can_raise = observation.can(ActionKind.RAISE)
        if observation.to_call == 0:
            if can_raise and strength >= 0.85:
                return Action.raise_to(raise_to_pot_fraction(observation, 3, 4))
            if can_raise and strength >= 0.65 and opponents <= 2:
                return Action.raise_to(raise_to_pot_fraction(observation, 1, 2))
            if (
                can_raise
                and opponents == 1
                and observation.street is Street.FLOP
                and _raised_last(observation)
            ):
                return Action.raise_to(
                    raise_to_pot_fraction(observation, 1, 2)
                )  # a continuation bet
            return Action.check()
        pot_odds = observation.to_call / (observation.pot + observation.to_call)
        if can_raise and strength >= 0.92:
            return Action.raise_to(raise_to_pot_fraction(observation, 1, 1))
        if strength >= min(0.85, 0.2 + pot_odds):
            return Action.call()
        if draw_odds(observation.hole_cards, observation.board) >= pot_odds:
            return Action.call()
        return Action.fold()


def _raised_last(observation: Observation) -> bool:
    """Whether this seat made the last raise before the flop."""
    raisers = [
        record.seat
        for record in observation.history
        if record.street is Street.PREFLOP and record.kind is ActionKind.RAISE
    ]
    return bool(raisers) and raisers[-1] == observation.seat


def opening_bar(observation: Observation) -> int:
    """The Chen score needed to open: 4 plus the players left to act behind it (the
    blinds included), between 5 and 10."""
    seat_count = observation.seat_count
    position = observation.position  # 0 is the button, 1 the seat left of it
    if seat_count == 2:
        return 5
    behind = (
        (seat_count - position) % seat_count + 2 if position >= 3 or position == 0 else 2 - position
    )
    return max(5, min(10, 4 + behind))


def _clamp(observation: Observation, amount: int) -> int:
    assert observation.min_raise_to is not None and observation.max_raise_to is not None
    return min(max(amount, observation.min_raise_to), observation.max_raise_to)
