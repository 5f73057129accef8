"""The action-luck correction: every term averages exactly zero over the mix it was drawn
from (every action of the mix played in turn, the hand played on after it, exact
fractions, every seat's entry), for each way a raise may be valued; and a bot that
misreports its mix, or answers with one only when it suits it, gets exactly the expected
adjusted score it gets raw, every draw of every deal enumerated."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from fractions import Fraction

import pytest

from dp_arena.agents import Observation, SessionContext
from dp_arena.agents.table import observe
from dp_arena.engine import (
    Action,
    ActionKind,
    Betting,
    HandState,
    Mix,
    Street,
    TableRules,
    deck_for,
    format_cards,
    new_hand,
    parse_cards,
)
from dp_arena.ratings.action_luck import (
    ActionValue,
    action_luck,
    action_luck_nets,
    board_action_nets,
    decision_values,
)
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.results import DealRecord

VALUES = {
    "showdown": ActionValue(),
    "called": ActionValue(called=Fraction(1)),
    "folded": ActionValue(folded=Fraction(1)),
    "defended": ActionValue(defended=Fraction(1)),
    "blend": ActionValue(called=Fraction(1, 4), defended=Fraction(1, 2)),
}


def _rules(seats: int, betting: Betting = Betting.NO_LIMIT) -> TableRules:
    return TableRules(seat_count=seats, small_blind=10, big_blind=20, betting=betting, cap=1000)


def _loose(state: HandState, rng: random.Random) -> Action:
    legal = state.legal_actions()
    roll = rng.random()
    if legal.can_raise and roll < 0.25:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        if roll < 0.05:
            return Action.raise_to(legal.max_raise_to)
        return Action.raise_to(min(legal.max_raise_to, legal.min_raise_to + rng.randrange(80)))
    if legal.can_check:
        return Action.check()
    return Action.call() if roll < 0.8 else Action.fold()


def _random_mix(state: HandState, rng: random.Random) -> Mix:
    """A mix of every legal kind, a few raise sizes (the minimum and the maximum among
    them) and random probabilities."""
    legal = state.legal_actions()
    actions = [Action(kind) for kind in legal.kinds if kind is not ActionKind.RAISE]
    if legal.can_raise:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        sizes = {legal.min_raise_to, legal.max_raise_to}
        sizes |= {rng.randint(legal.min_raise_to, legal.max_raise_to) for _ in range(2)}
        actions += [Action.raise_to(size) for size in sorted(sizes)]
    weights = [rng.randint(1, 9) for _ in actions]
    return Mix([(a, Fraction(w, sum(weights))) for a, w in zip(actions, weights, strict=True)])


def _mixed_decision(
    seats: int, seed: int, street: Street
) -> tuple[TableRules, int, list[str], str, tuple[str, ...], Mix, HandState]:
    """A random deal played by a loose policy up to a decision on ``street`` with two or
    more players in, and a random mix for it."""
    rng = random.Random(seed)
    rules = _rules(seats, Betting.POT_LIMIT if seed % 3 == 0 else Betting.NO_LIMIT)
    while True:
        button = rng.randrange(seats)
        state = new_hand(rules, deck_for(seed, 0, 0, rng.randrange(10**6)), button=button)
        actions: list[str] = []
        while state.actor is not None and (state.street < street or rng.random() < 0.4):
            action = _loose(state, rng)
            actions.append(f"{state.actor}:{action}")
            state.apply(action)
        if state.actor is not None and state.street == street:
            holes = [format_cards(hole) for hole in state.hole_cards if hole is not None]
            return (
                rules,
                button,
                holes,
                format_cards(state.board),
                tuple(actions),
                _random_mix(state, rng),
                state,
            )


def _replayed(
    rules: TableRules, button: int, holes: list[str], board: str, actions: tuple[str, ...]
) -> HandState:
    state = HandState(
        rules,
        button=button,
        stacks=(1000,) * rules.seat_count,
        hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
        board=parse_cards(board),
    )
    for text in actions:
        _, _, words = text.partition(":")
        kind, _, amount = words.partition(" ")
        named = {"fold": Action.fold(), "check": Action.check(), "call": Action.call()}
        state.apply(Action.raise_to(int(amount)) if kind == "raise" else named[kind])
    return state


@pytest.mark.parametrize(
    ("seats", "seed", "street"),
    [
        (2, 1, Street.PREFLOP),
        (2, 2, Street.FLOP),
        (3, 3, Street.TURN),
        (6, 4, Street.PREFLOP),
        (6, 5, Street.FLOP),
        (6, 6, Street.RIVER),
        (9, 7, Street.TURN),
    ],
)
@pytest.mark.parametrize("value", sorted(VALUES))
def test_each_term_averages_exactly_zero_over_its_mix(
    seats: int, seed: int, street: Street, value: str
) -> None:
    """Every action of the mix drawn in turn, the hand played on after it (by a policy
    that sees what was drawn), the decision's luck read from the record: the luck of
    every seat, weighted by the mix's probabilities, sums to exactly zero; so does each
    value over the seats, and the value of an action does not depend on what came after."""
    rules, button, holes, board, prefix, mix, _ = _mixed_decision(seats, seed, street)
    total = [Fraction(0)] * seats
    seen: dict[Action, tuple[Fraction, ...]] = {}
    for action, probability in mix.items():
        rng = random.Random(f"{seed}:{action}")
        state = _replayed(rules, button, holes, board, prefix)
        played = [*prefix, f"{state.actor}:{action}"]
        state.apply(action)
        while state.actor is not None:
            follow = _loose(state, rng)
            played.append(f"{state.actor}:{follow}")
            state.apply(follow)
        (luck,) = action_luck(
            rules,
            button=button,
            hole_cards=holes,
            board=board,
            actions=played,
            mixes=((len(prefix), str(mix)),),
            value=VALUES[value],
        )
        assert luck.drawn == action and luck.mix == mix
        for values in luck.values:
            assert sum(values) == 0
        for other, values in zip(mix.actions, luck.values, strict=True):
            assert seen.setdefault(other, values) == values
        total = [t + probability * term for t, term in zip(total, luck.luck, strict=True)]
    assert total == [0] * seats
    assert sum(mix.probabilities) == 1


def test_the_values_match_a_showdown_worked_by_hand() -> None:
    """Heads-up, aces against kings, the aces to act first before the flop (the button):
    folding loses the small blind; calling is 81% of a 40-chip pot less 20; a raise valued
    at the showdown at once is a call (its uncalled part comes back); valued as called it
    is the all-in equity; as folded to, the blinds."""
    rules = _rules(2)
    state = HandState(
        rules,
        button=0,
        stacks=(1000, 1000),
        hole_cards=[parse_cards("AsAh"), parse_cards("KdKc")],  # type: ignore[list-item]
        board=parse_cards("Ks7h2c3d4s"),
    )
    actions = (Action.fold(), Action.call(), Action.raise_to(1000))
    showdown = decision_values(state, actions, ActionValue())
    assert showdown[0] == (-10, 10)
    assert showdown[1] == showdown[2] and round(float(showdown[1][0]), 2) == 12.50
    called = decision_values(state, actions, ActionValue(called=Fraction(1)))
    assert round(float(called[2][0]), 2) == 625.11
    folded = decision_values(state, actions, ActionValue(folded=Fraction(1)))
    assert folded[2] == (20, -20)
    # The default: half the showdown at once, a quarter called, a quarter folded to.
    default = decision_values(state, actions)
    assert default[:2] == showdown[:2]
    assert default[2][0] == showdown[2][0] / 2 + called[2][0] / 4 + folded[2][0] / 4
    # Defended as a pot-odds bluff needs: the shove adds 980 beyond a call to a pot of
    # 40, so the kings fold 980/1020 of the time and call the rest.
    defended = decision_values(state, actions, ActionValue(defended=Fraction(1)))
    assert defended[2][0] == Fraction(980, 1020) * 20 + Fraction(40, 1020) * called[2][0]


def test_a_record_whose_action_is_not_in_its_mix_or_not_legal_is_refused() -> None:
    from dp_arena.errors import HandHistoryError

    rules = _rules(2)
    hand = {"button": 0, "hole_cards": ("AsAh", "KdKc"), "board": "Ks7h2c3d4s"}
    actions = ("0:call", "1:check", *["1:check", "0:check"] * 3)
    with pytest.raises(HandHistoryError, match="not in its mix"):
        action_luck(rules, **hand, actions=actions, mixes=((0, "fold 0.5, raise 60 0.5"),))
    with pytest.raises(HandHistoryError, match="check in the mix is not legal"):
        action_luck(rules, **hand, actions=actions, mixes=((0, "check 0.5, call 0.5"),))
    with pytest.raises(HandHistoryError, match="not a mix"):
        action_luck(rules, **hand, actions=actions, mixes=((0, "call"),))
    with pytest.raises(HandHistoryError, match="does not have"):
        action_luck(rules, **hand, actions=actions, mixes=((40, "call 0.5, fold 0.5"),))


# -- bots that game the mix: every draw enumerated ------------------------------------

Bot = Callable[[Observation], "Action | Mix"]


def _strength(observation: Observation) -> int:
    ranks = sorted((card >> 2 for card in observation.hole_cards), reverse=True)
    return ranks[0] + (13 if ranks[0] == ranks[1] else 0)


def misreporter(observation: Observation) -> Action | Mix:
    """Prefers to call (or check), but reports an even mix of that and the biggest raise."""
    passive = Action.call() if observation.to_call else Action.check()
    if observation.max_raise_to is None:
        return passive
    return Mix([(passive, 0.5), (Action.raise_to(observation.max_raise_to), 0.5)])


def opportunist(observation: Observation) -> Action | Mix:
    """Plays single actions, except where a mix flatters its adjusted score: with a weak
    hand facing a bet it folds nearly always, putting a sliver on the shove, the action
    worth the most when it is called; with a strong hand it just raises."""
    legal = observation.legal()
    strong = _strength(observation) >= 20
    if strong and legal.can_raise:
        assert observation.min_raise_to is not None
        return Action.raise_to(observation.min_raise_to)
    if observation.to_call and legal.can_raise:
        assert observation.max_raise_to is not None
        return Mix([(Action.fold(), 0.99), (Action.raise_to(observation.max_raise_to), 0.01)])
    return Action.call() if observation.to_call else Action.check()


def station(observation: Observation) -> Action | Mix:
    return Action.call() if observation.to_call else Action.check()


def _outcomes(
    rules: TableRules, deck: tuple[int, ...], bots: tuple[Bot, ...]
) -> Iterator[tuple[Fraction, DealRecord]]:
    """Every way the deal can go, each draw of each mix branched on, with its chance."""
    context = SessionContext(event="enumerated")

    def walk(
        state: HandState,
        actions: tuple[str, ...],
        mixes: tuple[tuple[int, str], ...],
        chance: Fraction,
    ) -> Iterator[tuple[Fraction, DealRecord]]:
        if state.actor is None:
            assert state.payoffs is not None
            yield (
                chance,
                DealRecord(
                    deal=0,
                    button=state.button,
                    players=("a", "b"),
                    hole_cards=tuple(format_cards(hole) for hole in state.hole_cards if hole),
                    board=format_cards(
                        state.board if state.showdown_values else state.visible_board
                    ),
                    actions=actions,
                    nets=state.payoffs,
                    mixes=mixes,
                ),
            )
            return
        seat = state.actor
        answer = bots[seat](observe(state, seat, context))
        if isinstance(answer, Action):
            branches = [(answer, Fraction(1))]
            noted = mixes
        else:
            branches = list(answer.items())
            noted = (*mixes, (len(actions), str(answer)))
        for action, probability in branches:
            after = _replayed(
                rules,
                state.button,
                [format_cards(h) for h in state.hole_cards if h],
                format_cards(state.board),
                actions,
            )
            after.apply(action)
            yield from walk(after, (*actions, f"{seat}:{action}"), noted, chance * probability)

    start = new_hand(rules, deck, button=0)
    yield from walk(start, (), (), Fraction(1))


@pytest.mark.parametrize("value", ["showdown", "called", "defended"])
@pytest.mark.parametrize("gamer", [misreporter, opportunist])
def test_a_bot_gaming_its_mix_gets_exactly_its_raw_expectation(gamer: Bot, value: str) -> None:
    """For each of a few decks, every draw enumerated: the expected action-luck-adjusted
    net equals the expected raw net, and the board-and-action adjusted net the board-luck
    adjusted one, exactly, for every seat (the cards' own luck averages zero over the
    cards: ``test_board_luck.py``). Reporting a mix that is not the bot's preference, or
    a mix only where it flatters the bot, moves nothing in expectation."""
    rules = _rules(2)
    moved = 0
    for deal in range(6):
        deck = deck_for(2026, 0, 0, deal)
        for bots in ((gamer, station), (station, gamer)):
            raw = [Fraction(0)] * 2
            by_action = [Fraction(0)] * 2
            board = [Fraction(0)] * 2
            both = [Fraction(0)] * 2
            total = Fraction(0)
            for chance, record in _outcomes(rules, deck, bots):
                total += chance
                adjusted = action_luck_nets(rules, record, VALUES[value])
                moved += adjusted != tuple(record.nets)
                for seat in range(2):
                    raw[seat] += chance * record.nets[seat]
                    by_action[seat] += chance * adjusted[seat]
                    board[seat] += chance * corrected_nets(rules, record)[seat]
                    both[seat] += chance * board_action_nets(rules, record, VALUES[value])[seat]
            assert total == 1
            assert by_action == raw
            assert both == board
    # The terms do move single outcomes (only their mean is zero), but for a shove that
    # nobody has called yet, which the showdown at once values as a call.
    assert moved or (gamer is misreporter and value == "showdown")
