"""EquityBot: decides by Monte-Carlo equity against random hands and the pot odds.

How it plays, at every decision:

1. It estimates its **equity**: the share of the pot it would win at a showdown
   against every opponent still in the hand holding two random cards, by dealing
   ``samples`` (default 300) random opponent hands and rest-of-board runs from the
   unseen cards and ranking them with the engine's evaluator (a tie earns its share).
2. It compares the equity with a **fair share**, one over the players in the hand, as
   ``edge = (equity - fair share) / (1 - fair share)``: 0 is an average hand, 1 a
   sure winner. Against five opponents AA's equity of about 0.49 is an edge of 0.39.
3. It **raises** when its edge is at least 0.25 (0.5 once the street has been raised
   twice), to a street total that adds half the pot, three quarters from an edge of
   0.5, the whole pot from 0.75 (clamped to the legal range, all in when little would
   be left); otherwise it **checks** when it may, **calls** when its equity is at least
   the pot odds (what the call costs over the pot after the call), and **folds**.

Against opponents who play their cards at random (the random bot, the calling
station), equity against random hands is the true equity, so calling by pot odds is
right. Its sampling is seeded from the deal and its seat (``begin_deal``), so it plays
the same way on every executor and after a resume, and two copies of it in a duplicate
match score exactly zero.
"""

from __future__ import annotations

import random

from dp_arena.agents import DealStart, Observation
from dp_arena.engine import Action, ActionKind, evaluate
from dp_arena.engine.cards import Card
from dp_arena.engine.evaluator import CARD_KEYS, FLUSH_SUIT, NONFLUSH_VALUES


def monte_carlo_equity(
    hole: tuple[Card, Card],
    board: tuple[Card, ...],
    opponents: int,
    samples: int,
    rng: random.Random,
) -> float:
    """The share of the pot ``hole`` wins against ``opponents`` random hands, estimated
    from ``samples`` random deals of their cards and the rest of the board."""
    known = set(hole) | set(board)
    unseen = [card for card in range(52) if card not in known]
    unseen_count = len(unseen)
    board_missing = 5 - len(board)
    opponent_cards = 2 * opponents
    needed = opponent_cards + board_missing
    random_float = rng.random
    # The evaluator ranks a hand by the sum of its cards' keys; summing here saves
    # building a tuple per hand. Only a flush (rare) needs the cards themselves.
    board_key = sum(CARD_KEYS[card] for card in board)
    hole_key = CARD_KEYS[hole[0]] + CARD_KEYS[hole[1]]
    won = 0.0
    for _ in range(samples):
        # A partial Fisher-Yates shuffle: the first ``needed`` cards become a uniform draw.
        # (One float per card is several times faster than random.sample's integer draws.)
        for position in range(needed):
            other = position + int(random_float() * (unseen_count - position))
            unseen[position], unseen[other] = unseen[other], unseen[position]
        full_board_key = board_key
        for position in range(opponent_cards, needed):
            full_board_key += CARD_KEYS[unseen[position]]
        mine = _rank(full_board_key + hole_key, hole, board, unseen, opponent_cards, needed)
        best_other = 7463
        ties = 0
        for index in range(0, opponent_cards, 2):
            first, second = unseen[index], unseen[index + 1]
            key = full_board_key + CARD_KEYS[first] + CARD_KEYS[second]
            theirs = _rank(key, (first, second), board, unseen, opponent_cards, needed)
            if theirs < best_other:
                best_other, ties = theirs, 1
            elif theirs == best_other:
                ties += 1
        if mine < best_other:  # a lower rank number is a better hand
            won += 1.0
        elif mine == best_other:
            won += 1.0 / (ties + 1)
    return won / samples


def _rank(
    key: int,
    hole: tuple[Card, Card],
    board: tuple[Card, ...],
    drawn: list[Card],
    start: int,
    stop: int,
) -> int:
    """The evaluator's rank of ``hole`` + ``board`` + ``drawn[start:stop]``, cards whose
    keys sum to ``key``."""
    if FLUSH_SUIT[key & 0xFFF] < 0:
        return NONFLUSH_VALUES[key >> 12]
    return evaluate((*hole, *board, *drawn[start:stop]))


class EquityBot:
    """Raises with an edge, calls by pot odds; see the module docstring."""

    def __init__(self, samples: int = 300, seed: int = 0) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        self.samples = samples
        self.seed = seed
        self.rng = random.Random(seed)

    def begin_deal(self, start: DealStart) -> None:
        # Seeded from where the deal sits and the seat, not the table: mirrored copies of
        # this bot facing the same cards in the same spot make the same decisions.
        context = start.context
        self.rng = random.Random(
            f"equity:{self.seed}:{context.event}:{context.section}:{context.session}:"
            f"{context.deal_number}:{start.seat}"
        )

    def act(self, observation: Observation) -> Action:
        opponents = observation.players_in_hand - 1
        equity = monte_carlo_equity(
            observation.hole_cards, observation.board, opponents, self.samples, self.rng
        )
        fair_share = 1 / (opponents + 1)
        edge = (equity - fair_share) / (1 - fair_share)
        raises = sum(
            1
            for record in observation.history
            if record.street == observation.street and record.kind is ActionKind.RAISE
        )
        if observation.can(ActionKind.RAISE) and edge >= (0.25 if raises < 2 else 0.5):
            numerator = 4 if edge >= 0.75 else 3 if edge >= 0.5 else 2
            return Action.raise_to(_raise_to(observation, numerator, 4))
        if observation.to_call == 0:
            return Action.check()
        if equity >= observation.to_call / (observation.pot + observation.to_call):
            return Action.call()
        return Action.fold()


def _raise_to(observation: Observation, numerator: int, denominator: int) -> int:
    """A raise to a street total adding ``numerator/denominator`` of the pot after a call,
    clamped to the legal range; all in when it would leave under a third of the chips."""
    assert observation.min_raise_to is not None and observation.max_raise_to is not None
    wanted = (
        observation.current_bet + (observation.pot + observation.to_call) * numerator // denominator
    )
    amount = min(max(wanted, observation.min_raise_to), observation.max_raise_to)
    chips = observation.available[observation.seat]
    if (observation.street_bets[observation.seat] + chips - amount) * 3 < chips:
        amount = observation.max_raise_to
    return amount
