"""The clairvoyance test: every term averages exactly zero over the cards (or hands) that
could have come, for fixed actions (enumerated, exact fractions), and never falls below
its floor; its p-value holds at any sample size; a bot's result does not depend on the
order its tables come in; honest bots are not flagged and clairvoyant ones are."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dp_arena.agents import InProcessSeat, load_agent, parse_spec
from dp_arena.commands.match import format_result
from dp_arena.engine import Action, Betting, HandState, TableRules, deck_for
from dp_arena.engine.cards import format_cards, parse_cards
from dp_arena.engine.deck import deal_cards
from dp_arena.match import MatchConfig, MatchResult, play_match
from dp_arena.ratings.board_luck import showdown_share
from dp_arena.ratings.clairvoyance import (
    DESIGN,
    STATISTICS,
    Design,
    Ledger,
    Term,
    deal_terms,
    hole_advantage,
)
from dp_arena.ratings.evidence import FLAG_BELOW, Evidence
from dp_arena.ratings.hole_equity import DENOMINATOR, HALF_POINTS
from dp_arena.results import DealRecord
from tests.ratings.cheaters import Clairvoyant

# Where the next cards of each round lie in a deck of ``seats`` hands (docs/rules.md:
# burn, three flop cards, burn, the turn, burn, the river).


def _positions(seats: int, step: int) -> tuple[int, ...]:
    top = 2 * seats
    return {1: (top + 1, top + 2, top + 3), 2: (top + 5,), 3: (top + 7,)}[step]


def _rules(seats: int) -> TableRules:
    return TableRules(seat_count=seats, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)


def _record(
    deck: tuple[int, ...], seats: int, button: int, seed: int, raising: float = 0.25
) -> DealRecord:
    """A deal played on ``deck`` by a loose random policy that sees nothing (the cards
    do not matter to it): mostly checks and calls, some bets (``raising``), some folds."""
    rules = _rules(seats)
    holes, board = deal_cards(deck, seats, button)
    state = HandState(rules, button=button, stacks=(1000,) * seats, hole_cards=holes, board=board)
    rng = random.Random(seed)
    actions = []
    while state.actor is not None:
        legal = state.legal_actions()
        roll = rng.random()
        if legal.can_raise and roll < raising:
            assert legal.min_raise_to is not None and legal.max_raise_to is not None
            action = Action.raise_to(min(legal.max_raise_to, legal.min_raise_to + 20))
        elif legal.can_check:
            action = Action.check()
        elif roll < 0.5 + raising:
            action = Action.call()
        else:
            action = Action.fold()
        actions.append(f"{state.actor}:{action}")
        state.apply(action)
    return DealRecord(
        deal=0,
        button=button,
        players=tuple(f"p{seat}" for seat in range(seats)),
        hole_cards=tuple(format_cards(hole) for hole in holes),
        board=format_cards(board),
        actions=tuple(actions),
        nets=tuple(state.payoffs or ()),
    )


def _next_cards(deck: tuple[int, ...], seats: int, step: int) -> Iterator[tuple[int, ...]]:
    """Every deck that keeps the hole cards and the board before ``step``'s cards and
    puts each possible set of its next cards in their places (the other unseen cards in
    the other places, in their order)."""
    places = _positions(seats, step)
    before = [position for s in range(1, step) for position in _positions(seats, s)]
    fixed = set(range(2 * seats)) | set(before)
    free = [position for position in range(52) if position not in fixed]
    unseen = [deck[position] for position in free]
    for coming in itertools.combinations(unseen, len(places)):
        rest = iter(card for card in unseen if card not in coming)
        cards = list(deck)
        for position in free:
            cards[position] = coming[places.index(position)] if position in places else next(rest)
        yield tuple(cards)


def _step_values(
    rules: TableRules, record: DealRecord, deck: tuple[int, ...], step: int, design: Design
) -> dict[tuple[int, int], Term]:
    """Each (seat, statistic)'s term of ``step`` in the deal."""
    return {
        (seat, term.statistic): term
        for seat, terms in enumerate(deal_terms(rules, record, deck, design))
        for term in terms
        if term.step == step
    }


def _sums_over_next_cards(
    seats: int, seed: int, step: int, design: Design = DESIGN, raising: float = 0.25
) -> int:
    """For a random deal and fixed actions: every term of ``step`` summed over every card
    (or flop) that could come is exactly zero, and no term falls below its floor, which
    is the same for every card. Returns how many terms were checked."""
    rng = random.Random(seed)
    rules = _rules(seats)
    for _ in range(50):  # a deal in which somebody has a term of this step
        deck = tuple(rng.sample(range(52), 52))
        button = rng.randrange(seats)
        record = _record(deck, seats, button, rng.randrange(1 << 30), raising)
        if _step_values(rules, record, deck, step, design):
            break
    totals: dict[tuple[int, int], Fraction] = {}
    floors: dict[tuple[int, int], Fraction] = {}
    count = 0
    for variant in _next_cards(deck, seats, step):
        count += 1
        for key, term in _step_values(rules, record, variant, step, design).items():
            assert term.value >= -term.floor
            assert floors.setdefault(key, term.floor) == term.floor
            totals[key] = totals.get(key, Fraction(0)) + term.value
    assert count > 1 and totals
    assert all(total == 0 for total in totals.values()), totals
    return len(totals)


@pytest.mark.parametrize(("seats", "seed"), [(2, 1), (3, 2), (6, 3), (2, 4)])
@pytest.mark.parametrize("step", [2, 3])
def test_the_terms_of_the_flop_and_the_turn_average_zero_over_every_card(
    seats: int, seed: int, step: int
) -> None:
    assert _sums_over_next_cards(seats, seed, step) >= 1


def test_the_terms_before_the_flop_average_zero_over_every_flop_ten_handed() -> None:
    # Ten hands leave 32 cards: 4,960 flops. The first decision's terms only (the slow
    # tests below take every term, with every flop of two and six hands), and few
    # raises, so that each flop costs three shares and a short replay.
    design = Design(statistics=("first",))
    assert _sums_over_next_cards(10, 5, 1, design, raising=0.05) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "seed"), [(2, 6), (6, 7)])
def test_the_terms_before_the_flop_average_zero_over_every_flop(seats: int, seed: int) -> None:
    assert _sums_over_next_cards(seats, seed, 1) >= 1


def test_the_hole_card_term_averages_zero_over_every_opponent_hand() -> None:
    """Heads-up, the button's first decision: over every hand the big blind could hold
    (the 1,225 pairs of the 50 other cards) the term sums to exactly zero, for the exact
    head-to-head share and the Chen score alike; so the shipped expectation is exact."""
    mine = tuple(parse_cards("Td9d"))
    rest = [card for card in range(52) if card not in mine]
    rules = _rules(2)
    record = DealRecord(0, 0, ("a", "b"), ("", ""), "", ("0:raise 60", "1:fold"), (20, -20))
    for kind in ("equity", "chen"):
        design = Design(advantage=kind, statistics=("hole",))
        total = Fraction(0)
        for theirs in itertools.combinations(rest, 2):
            # Dealt from the button's left: the big blind's card first.
            deck = (theirs[0], mine[0], theirs[1], mine[1], *[c for c in rest if c not in theirs])
            (term,) = deal_terms(rules, record, deck, design)[0]
            assert term.step == 0 and term.value >= -term.floor
            total += term.value
            advantage = hole_advantage(((mine[0], mine[1]), theirs), 0, (1,), kind)
            assert 0 <= advantage <= 1
        assert total == 0, kind


def test_the_shipped_expectation_matches_the_table_of_the_class() -> None:
    total = sum(HALF_POINTS.values())
    # Every class against one random hand: the shares of the 1,326 hands average a half.
    classes = {key: (6 if key[0] == key[1] else 4 if key[2] else 12) for key in HALF_POINTS}
    weighted = sum(HALF_POINTS[key] * count for key, count in classes.items())
    assert sum(classes.values()) == 1326 and total > 0
    assert Fraction(weighted, 1326 * DENOMINATOR) == Fraction(1, 2)


@pytest.mark.slow
def test_other_hands_dealt_do_not_move_the_expectation_of_a_head_to_head_share() -> None:
    """Three-handed: the head-to-head share of the first hand against the second, over
    every board of the cards nobody holds, averaged over every hand the third could hold,
    is the share with only the two hands dealt (so the hole-card term's expectation holds
    at any table size)."""
    first, second = tuple(parse_cards("QsJs")), tuple(parse_cards("9h9c"))
    rest = [card for card in range(52) if card not in (*first, *second)]
    total = sum(
        (
            showdown_share((first, second, third), (), 0, (1,))
            for third in itertools.combinations(rest, 2)
        ),
        Fraction(0),
    )
    assert total / 1128 == showdown_share((first, second), (), 0, (1,))


@settings(max_examples=25, deadline=None)
@given(seats=st.integers(2, 6), seed=st.integers(0, 1 << 30))
def test_every_term_lies_above_its_floor_and_the_turn_terms_average_zero(
    seats: int, seed: int
) -> None:
    rng = random.Random(seed)
    deck = tuple(rng.sample(range(52), 52))
    button = rng.randrange(seats)
    record = _record(deck, seats, button, seed)
    for terms in deal_terms(_rules(seats), record, deck):
        for term in terms:
            assert term.value >= -term.floor >= -3
            assert STATISTICS[term.statistic] != "hole" or term.step == 0
    values: dict[tuple[int, int], Fraction] = {}
    for variant in _next_cards(deck, seats, 3):
        for key, term in _step_values(_rules(seats), record, variant, 3, DESIGN).items():
            values[key] = values.get(key, Fraction(0)) + term.value
    assert all(total == 0 for total in values.values())


# -- the p-value -------------------------------------------------------------------------


def test_the_p_value_holds_for_zero_mean_steps() -> None:
    """Steps of mean zero with floors, skewed (a small loss often, a big gain rarely):
    p falls below alpha in at most about alpha of the runs, at every alpha."""
    rng = random.Random(11)
    runs = 400
    below = {0.2: 0, 0.05: 0, 0.01: 0}
    for _ in range(runs):
        evidence = Evidence(2)
        for _ in range(200):
            for statistic in range(2):
                gain = rng.choice((1, 4))  # -1 w.p. gain/(gain+1), +gain otherwise
                value = gain if rng.random() < 1 / (gain + 1) else -1
                evidence.add(statistic, value, 1)
        p = evidence.result().p
        for alpha in below:
            below[alpha] += p < alpha
    for alpha, count in below.items():
        assert count <= alpha * runs + 3 * math.sqrt(alpha * runs) + 1, (alpha, count)


def test_a_step_below_its_floor_is_refused() -> None:
    evidence = Evidence(1)
    with pytest.raises(ValueError, match="below its floor"):
        evidence.add(0, Fraction(-3, 2), 1)
    evidence.add(0, 0, 0)  # nothing to lose and nothing won: allowed, and changes nothing
    assert evidence.result().p == 1.0


# -- blocks and determinism ------------------------------------------------------------


def _match(
    specs: tuple[str, ...], deals: int, seed: int, cheats: dict[str, str] | None = None
) -> tuple[MatchResult, MatchConfig]:
    cheats = cheats or {}

    def factory(spec: str, name: str) -> InProcessSeat:
        if spec in cheats:
            return InProcessSeat(Clairvoyant(seed, cheats[spec]), name)
        return InProcessSeat(load_agent(parse_spec(spec)), name)

    config = MatchConfig(specs, deals=deals, seed=seed)
    return play_match(config, seat_factory=factory, adjusted=False), config


def test_the_result_does_not_depend_on_the_order_the_tables_come_in() -> None:
    result, config = _match(("tag", "random", "calling-station"), 30, 5)
    answers = []
    for order in (result.tables, result.tables[::-1], result.tables[1:] + result.tables[:1]):
        ledger = Ledger()
        for table in order:
            ledger.add_table(
                config.rules(), table, lambda deal: deck_for(5, 0, 0, deal), lambda deal: (deal,)
            )
        answers.append({name: ledger.result(name) for name in result.names})
    assert answers[0] == answers[1] == answers[2]
    scored = {score.name: score.clairvoyance for score in result.scores}
    assert scored == answers[0]


# -- honest and clairvoyant bots ---------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "deals"),
    [
        (("tag", "calling-station"), 150),
        (("random", "aggressive"), 150),
        (("tag", "equity", "random", "calling-station", "aggressive", "learned"), 25),
    ],
)
def test_honest_bots_are_not_flagged(specs: tuple[str, ...], deals: int) -> None:
    result, _ = _match(specs, deals, 21)
    for score in result.scores:
        test = score.clairvoyance
        assert test is not None and test.deals == deals
        assert not test.flagged and not test.table.flagged
        assert test.p > 1e-3 and test.table.p > 1e-3, (score.name, test)


def test_a_bot_that_knows_every_card_is_flagged_and_its_honest_opponent_is_not() -> None:
    result, _ = _match(("cheat", "tag"), 120, 3, cheats={"cheat": "all"})
    cheater, honest = (score.clairvoyance for score in result.scores)
    assert cheater is not None and honest is not None
    assert cheater.flagged and cheater.p < FLAG_BELOW
    assert not honest.flagged  # its own first decisions: nothing the cheater did enters them
    assert result.to_json()["agents"][0]["clairvoyance"]["flagged"] is True
    text = format_result(result, sandboxed=False)
    assert text.count("FLAGGED") == 2  # the cheater's line, and the note that explains it
