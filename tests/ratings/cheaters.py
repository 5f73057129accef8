"""Bots that see what they should not: each recomputes the decks from the match's public
seed (``deck_for(seed, section, session, deal)``), as a bot with a channel between its
mirrored copies would learn the cards, and plays on what it knows. They exist to measure
the power of the clairvoyance test (``tests/ratings/test_clairvoyance.py``,
``scripts/clairvoyance.py``).

- ``board``: knows every board card to come;
- ``next``: knows only the next street's cards;
- ``opponent``: knows one opponent's hole cards (the next seat's);
- ``all``: knows every card.

Each plays by one rule on its estimated chance to win: raise (to about the pot) from 0.7,
call or check from 0.4 (a check when it is free), fold below it facing a bet. The chance
is its share against random hands on the board it knows, raised to the number of
opponents still in (``board``, ``next``), its exact showdown share against the hand it
knows and random hands for the others (``opponent``), or its exact share against every
opponent still in on the whole board (``all``). ``Honest`` is the same player on the
cards it may see, the baseline.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from fractions import Fraction

from dp_arena.agents import DealStart, Observation
from dp_arena.engine import Action, Card, Street, deck_for, evaluate, evaluate_holdings
from dp_arena.engine.deck import deal_cards
from dp_arena.ratings.board_luck import showdown_share

KNOWS = ("none", "board", "next", "opponent", "all")


@functools.lru_cache(maxsize=1 << 14)
def strength(hole: tuple[Card, Card], board: tuple[Card, ...]) -> float:
    """The share of every opponent holding that ``hole`` beats on ``board`` (ties half);
    before the flop, a rough pre-flop value from the ranks (pairs and high cards)."""
    if len(board) < 3:
        high, low = sorted((hole[0] >> 2, hole[1] >> 2), reverse=True)
        suited = (hole[0] & 3) == (hole[1] & 3)
        if high == low:
            return 0.55 + 0.035 * high
        return 0.3 + 0.022 * high + 0.01 * low + (0.03 if suited else 0.0)
    mine = evaluate((*hole, *board))
    known = set(hole) | set(board)
    rest = [card for card in range(52) if card not in known]
    holdings = [(a, b) for index, a in enumerate(rest) for b in rest[index + 1 :]]
    ranks = evaluate_holdings(board, holdings)
    beaten = sum(1 for rank in ranks if mine < rank) + sum(0.5 for rank in ranks if mine == rank)
    return beaten / len(holdings)


class Clairvoyant:
    """A player that knows ``knows`` of the cards it should not see (``"none"``: honest),
    from the public ``seed`` of the decks. ``noise``: the chance to play a random legal
    action instead (randomised honest bots for the calibration)."""

    def __init__(self, seed: int, knows: str = "all", noise: float = 0.0, rng_seed: int = 0):
        if knows not in KNOWS:
            raise ValueError(f"knows one of {KNOWS}, not {knows!r}")
        self.seed = seed
        self.knows = knows
        self.noise = noise
        self.rng = random.Random(rng_seed)
        self.holes: tuple[tuple[Card, Card], ...] = ()
        self.board: tuple[Card, ...] = ()

    def begin_deal(self, start: DealStart) -> None:
        context = start.context
        deck = deck_for(self.seed, context.section, context.session, context.deal_number)
        self.holes, self.board = deal_cards(deck, start.seat_count, start.button)

    def chance(self, observation: Observation) -> float:
        seat = observation.seat
        hole = observation.hole_cards
        shown = tuple(observation.board)
        opponents = tuple(
            other
            for other in range(observation.seat_count)
            if other != seat and not observation.folded[other]
        )
        if not opponents:
            return 1.0
        if self.knows == "all":
            return float(showdown_share(self.holes, tuple(self.board), seat, opponents))
        if self.knows == "opponent":
            known = (seat + 1) % observation.seat_count
            if known in opponents:
                pair = (hole, self.holes[known])
                share: Fraction = showdown_share(pair, shown, 0, (1,))
                return float(share) * strength(hole, shown) ** (len(opponents) - 1)
            return strength(hole, shown) ** len(opponents)
        board = shown
        if self.knows == "board":
            board = tuple(self.board)
        elif self.knows == "next" and observation.street < Street.RIVER:
            board = tuple(self.board[: Street(observation.street + 1).board_size])
        return strength(hole, board) ** len(opponents)

    def act(self, observation: Observation) -> Action:
        legal = observation.legal()
        if self.noise and self.rng.random() < self.noise:
            return _random_action(observation, self.rng)
        chance = self.chance(observation)
        if chance >= 0.7 and legal.can_raise:
            assert legal.min_raise_to is not None and legal.max_raise_to is not None
            target = observation.current_bet + observation.pot + observation.to_call
            return Action.raise_to(max(legal.min_raise_to, min(legal.max_raise_to, target)))
        if legal.can_check:
            return Action.check()
        if chance >= 0.4 or observation.to_call == 0:
            return Action.call()
        return Action.fold()


def _random_action(observation: Observation, rng: random.Random) -> Action:
    kinds = list(observation.legal_actions)
    kind = rng.choice(kinds)
    if kind.value == "raise":
        assert observation.min_raise_to is not None
        return Action.raise_to(observation.min_raise_to)
    return Action(kind)


def honest(seed: int, noise: float = 0.0, rng_seed: int = 0) -> Clairvoyant:
    return Clairvoyant(seed, "none", noise, rng_seed)


def deals_until_flagged(flags: Sequence[bool]) -> int | None:
    """The first deal count at which a running test flagged (``None``: never)."""
    return next((index + 1 for index, flagged in enumerate(flags) if flagged), None)
