"""The action-luck correction: the luck of every action the dealer drew from a bot's mixed
strategy taken out of each seat's net, whatever the bots did.

A bot may answer a decision with a mix, actions with their probabilities; the dealer
draws the action from the event key (:mod:`dp_arena.engine.mixes`). For a **value
function** ``v`` that gives every seat's worth of the hand after each action the mix
offers, a sampled decision's luck is

    luck = v(state, action drawn) - sum over the mix of p(a) x v(state, a)

a vector over every seat. The dealer drew with exactly the probabilities ``p`` the bot
gave, so whatever the bot's strategy (honest, misreported, reported only when it suits
it) and whatever ``v`` is, the luck averages exactly zero over the draw: subtracting it
cannot move anybody's expected score, only take out noise. How much noise it takes out
depends on ``v``; nothing in it is fitted to the results.

The value function (:class:`ActionValue`) is computed here, exactly, from the record:
every seat's expected net at a showdown at once with the chips in after the action,
over every rest of the board from the real hole cards (the **showdown** value, what the
board-luck correction's expected nets are, :mod:`dp_arena.ratings.board_luck`); a fold
leaves the hand to the others, and a hand all but one player left is theirs. A raise
valued at the showdown now gets its uncalled part back, so every raise size would be
worth a call; a raise is therefore valued as a blend of three values with fixed weights:
half the showdown now, a quarter the showdown after **every live opponent calls** it, a
quarter **every opponent folding** to it (the raiser takes the pot as it stood)
(:data:`DEFAULT_VALUE`). The blend was chosen once, by measurement, among others
(``docs/rankings.md``); any blend keeps the luck's mean exactly zero.

With the showdown value the corrections telescope: a hand's adjusted net is what the
board-luck correction leaves, less, at each sampled decision, what the action drawn did
to the value beyond what the mix was expected to do. A bot is scored on what its mix was
worth, not on which of its actions the dealer happened to draw.

>>> from dp_arena.engine import Betting, TableRules
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> def luck(holes, mix):
...     (found,) = action_luck(rules, button=0, hole_cards=holes, board="Ks7h2c3d4s",
...         actions=("0:call", "1:check", *["1:check", "0:check"] * 3), mixes=((0, mix),))
...     return [[round(float(v), 2) for v in values] for values in found.values], [
...         round(float(term), 2) for term in found.luck]

Seven-deuce on the button (seat 0) against kings answers "fold 0.5, call 0.5" before the
flop; the dealer draws the call and the hand is checked down. Folding is worth -10 to it
(its small blind), calling -15.47 (it wins 11.3% of a 40-chip pot): the mix is worth
-12.73, and the draw of the call cost it 2.73, which the correction gives back. (The
board-luck correction had already scored the call at its -15.47.)

>>> luck(("7c2d", "KdKc"), "fold 0.5, call 0.5")
([[-10.0, 10.0], [-15.47, 15.47]], [-2.73, 2.73])

Aces against kings answering "call 0.5, raise 1000 0.5": the call is worth +12.50, the
shove half of that, a quarter of its all-in equity (+625.11) and a quarter of the blinds
(+20): +167.53. The dealer drew the call, and the aces get back half the difference.

>>> luck(("AsAh", "KdKc"), "call 0.5, raise 1000 0.5")
([[12.5, -12.5], [167.53, -167.53]], [-77.51, 77.51])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from dp_arena.engine import Action, ActionKind, HandState, TableRules
from dp_arena.engine.mixes import Mix
from dp_arena.errors import HandHistoryError
from dp_arena.ratings.board_luck import _corrected, _streets, corrected_nets, expected_sums
from dp_arena.ratings.equity import recorded_hand, replay
from dp_arena.results import DealRecord

__all__ = [
    "DEFAULT_VALUE",
    "ActionLuck",
    "ActionValue",
    "action_luck",
    "action_luck_nets",
    "board_action_nets",
    "decision_values",
    "recorded_action",
    "stored_values",
    "without_luck",
]


@dataclass(frozen=True, slots=True)
class ActionValue:
    """How a raise is valued: the weight of the showdown after every live opponent calls
    it (``called``), of every opponent folding to it (``folded``) and of the opponents
    defending it as often as a pot-odds bluff needs (``defended``); the showdown at once
    with the chips in has the rest. Every other action is valued by the showdown at once.
    ``ActionValue()`` is the showdown at once alone."""

    called: Fraction = Fraction(0)
    folded: Fraction = Fraction(0)
    # The weight of the raise valued as if the opponents defended it as often as a
    # pot-odds bluff needs (minimum defence): they fold b / (pot + b) of the time, b the
    # chips the raise adds beyond a call, and call otherwise.
    defended: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        weights = (self.called, self.folded, self.defended)
        if not (all(weight >= 0 for weight in weights) and sum(weights) <= 1):
            raise ValueError("the weights of a raise's values must be from 0 to 1 in total")


DEFAULT_VALUE = ActionValue(called=Fraction(1, 4), folded=Fraction(1, 4))


@dataclass(frozen=True, slots=True)
class ActionLuck:
    """One decision drawn from a mix: where it is in the deal (``decision``, the index of
    its action), whose it was (``seat``), the ``mix``, the action ``drawn``, and every
    seat's ``values`` after each action of the mix (in the mix's order)."""

    decision: int
    seat: int
    mix: Mix
    drawn: Action
    values: tuple[tuple[Fraction, ...], ...]

    @property
    def expected(self) -> tuple[Fraction, ...]:
        """Every seat's value averaged over the mix."""
        sums, scale = self._sums()
        return tuple(Fraction(total, scale) for total in sums)

    @property
    def luck(self) -> tuple[Fraction, ...]:
        """Every seat's luck of the draw: the value of the action drawn minus the mean."""
        sums, scale = self._sums()
        weight_total = self.mix.total
        drawn = self.values[self.mix.actions.index(self.drawn)]
        unit = scale // weight_total
        return tuple(
            Fraction(value.numerator * (unit // value.denominator) * weight_total - total, scale)
            for value, total in zip(drawn, sums, strict=True)
        )

    def _sums(self) -> tuple[list[int], int]:
        """Every seat's weighted sum of values over the mix as integers over one scale:
        ``sum(weight x value) x unit / total weight``, the expected value times ``scale``."""
        unit = math.lcm(*(value.denominator for values in self.values for value in values))
        seats = len(self.values[0])
        sums = [0] * seats
        for weight, values in zip(self.mix.weights, self.values, strict=True):
            for seat, value in enumerate(values):
                sums[seat] += weight * value.numerator * (unit // value.denominator)
        return sums, unit * self.mix.total


def action_luck(
    rules: TableRules,
    *,
    button: int,
    hole_cards: Sequence[str],
    board: str,
    actions: Sequence[str],
    mixes: Sequence[tuple[int, str]],
    absent: Sequence[int] = (),
    value: ActionValue = DEFAULT_VALUE,
) -> tuple[ActionLuck, ...]:
    """The luck of every decision of a deal drawn from a mix (``mixes``: the index of its
    action and the mix's text, as a deal record keeps them). :class:`HandHistoryError`
    when the record is not a hand, a mix is not one, or an action drawn is not in its mix
    or not legal."""
    if not mixes:
        return ()
    collect = _Collector(actions, mixes, value)
    replay(
        rules,
        button=button,
        hole_cards=hole_cards,
        board=board,
        actions=actions,
        absent=absent,
        before_action=collect,
    )
    return collect.found()


class _Collector:
    """Told of every action of a replayed deal (:func:`replay`'s ``before_action``), it
    values each decision drawn from a mix while the hand stands just before it."""

    def __init__(
        self,
        actions: Sequence[str],
        mixes: Sequence[tuple[int, str]],
        value: ActionValue,
        stored: dict[int, tuple[tuple[Fraction, ...], ...]] | None = None,
    ) -> None:
        self.actions = actions
        self.value = value
        self.stored = stored or {}
        self.wanted: dict[int, Mix] = {}
        for decision, text in mixes:
            try:
                self.wanted[decision] = Mix.parse(text)
            except ValueError as error:
                raise HandHistoryError(f"action {decision}: {error}") from None
        self.lucks: list[ActionLuck] = []

    def __call__(self, index: int, state: HandState) -> None:
        mix = self.wanted.get(index)
        if mix is None:
            return
        seat = state.actor
        assert seat is not None
        refused = mix.refusal(state.legal_actions())
        if refused is not None:
            raise HandHistoryError(f"action {index}: {refused}")
        drawn = recorded_action(self.actions[index])
        if drawn not in mix.actions:
            raise HandHistoryError(f"action {index}: {drawn} is not in its mix {mix}")
        values = self.stored.get(index)
        if values is None:
            values = decision_values(state, mix.actions, self.value)
        elif len(values) != len(mix.actions) or any(len(row) != state.seat_count for row in values):
            raise HandHistoryError(
                f"action {index}: its values are not one per seat for each action of {mix}"
            )
        self.lucks.append(ActionLuck(index, seat, mix, drawn, values))

    def found(self) -> tuple[ActionLuck, ...]:
        if len(self.lucks) != len(self.wanted):
            missing = sorted(set(self.wanted) - {luck.decision for luck in self.lucks})
            raise HandHistoryError(f"mixes of actions the deal does not have: {missing}")
        if not set(self.stored) <= set(self.wanted):
            extra = sorted(set(self.stored) - set(self.wanted))
            raise HandHistoryError(f"values stored for actions drawn from no mix: {extra}")
        return tuple(self.lucks)


def recorded_action(text: str) -> Action:
    """The action of a deal record's text (``"3:raise 120"``, ``"0:fold"``)."""
    words = text.partition(":")[2].split()
    if words[0] == "raise":
        return Action.raise_to(int(words[1]))
    return Action(ActionKind(words[0]))


def action_luck_nets(
    rules: TableRules, record: DealRecord, value: ActionValue = DEFAULT_VALUE
) -> tuple[Fraction, ...]:
    """Every seat's net with the luck of its deal's sampled actions taken out."""
    nets = [Fraction(net) for net in record.nets]
    if not record.mixes:
        return tuple(nets)
    collect = _Collector(record.actions, record.mixes, value, stored_values(record))
    replay(rules, **recorded_hand(record), before_action=collect)
    return without_luck(nets, collect.found())


def stored_values(record: DealRecord) -> dict[int, tuple[tuple[Fraction, ...], ...]]:
    """The values of its decisions a record keeps (by the index of the action), as
    fractions: where the run valued them by rollouts (:mod:`dp_arena.rollouts`)."""
    try:
        return {
            decision: tuple(tuple(Fraction(text) for text in row) for row in rows)
            for decision, rows in record.values
        }
    except (ValueError, ZeroDivisionError) as error:
        raise HandHistoryError(
            f"deal {record.deal}: a stored value is no fraction: {error}"
        ) from None


def board_action_nets(
    rules: TableRules, record: DealRecord, value: ActionValue = DEFAULT_VALUE
) -> tuple[Fraction, ...]:
    """Every seat's net with the luck of the board and of its sampled actions taken out:
    the board-luck correction's nets less every sampled decision's luck (one replay of
    the hand for both)."""
    if not record.mixes:
        return corrected_nets(rules, record)
    collect = _Collector(record.actions, record.mixes, value, stored_values(record))
    hand = recorded_hand(record)
    state, streets = _streets(
        rules,
        hand["button"],
        hand["hole_cards"],
        hand["board"],
        hand["actions"],
        hand["absent"],
        before_action=collect,
    )
    return without_luck(list(_corrected(state, streets)), collect.found())


def without_luck(nets: list[Fraction], lucks: Sequence[ActionLuck]) -> tuple[Fraction, ...]:
    """``nets`` less every seat's luck of each of ``lucks`` (``nets`` is changed)."""
    for luck in lucks:
        for seat, term in enumerate(luck.luck):
            nets[seat] -= term
    return tuple(nets)


def decision_values(
    state: HandState, actions: Sequence[Action], value: ActionValue = DEFAULT_VALUE
) -> tuple[tuple[Fraction, ...], ...]:
    """Every seat's value after each of ``actions`` of the player to act in ``state``
    (legal actions; see the module for the value)."""
    seat = state.actor
    assert seat is not None
    legal = state.legal_actions()
    seat_count = state.seat_count
    dealt = tuple(s for s, hole in enumerate(state.hole_cards) if hole is not None)
    holes = tuple(hole for hole in state.hole_cards if hole is not None)
    known = tuple(state.board[: state.street.board_size])
    live_before = tuple(s for s in range(seat_count) if not state.folded[s])

    def showdown(committed: Sequence[int], live: Sequence[int]) -> tuple[Fraction, ...]:
        if len(live) == 1:
            winner = live[0]
            pot = sum(committed)
            return tuple(
                Fraction((pot if s == winner else 0) - chips) for s, chips in enumerate(committed)
            )
        try:
            positions = tuple(dealt.index(s) for s in live)
        except ValueError:
            raise HandHistoryError("a seat is in the hand but its hole cards are unknown") from None
        sums, total = expected_sums(
            tuple(committed), tuple(live), positions, holes, known, state.button
        )
        return tuple(Fraction(chips, total) for chips in sums)

    values = []
    for action in actions:
        committed = list(state.committed)
        live = list(live_before)
        kind = action.kind
        if kind is ActionKind.FOLD:
            live.remove(seat)
        elif kind is ActionKind.CALL:
            committed[seat] += legal.call_amount
        elif kind is ActionKind.RAISE:
            assert action.amount is not None
            committed[seat] += action.amount - state.street_bets[seat]
        now = showdown(committed, live)
        if kind is not ActionKind.RAISE or not (value.called or value.folded or value.defended):
            values.append(now)
            continue
        assert action.amount is not None
        called_weight, folded_weight = value.called, value.folded
        if value.defended:
            # The raise adds b chips beyond a call to a pot of p after the call: a bluff
            # breaks even when the opponents fold b / (p + b) of the time.
            matched = sum(state.committed) + max(0, state.current_bet - state.street_bets[seat])
            added = action.amount - max(state.current_bet, state.street_bets[seat])
            share = Fraction(added, matched + added)
            called_weight += value.defended * (1 - share)
            folded_weight += value.defended * share
        blended = [(1 - called_weight - folded_weight) * v for v in now]
        if called_weight:
            calls = list(committed)
            for other in live:
                if other != seat:
                    owed = action.amount - state.street_bets[other]
                    calls[other] += max(0, min(owed, state.available[other]))
            for s, v in enumerate(showdown(calls, live)):
                blended[s] += called_weight * v
        if folded_weight:
            pot = sum(state.committed)
            for s in range(seat_count):
                taken = pot if s == seat else 0
                blended[s] += folded_weight * (taken - state.committed[s])
        values.append(tuple(blended))
    return tuple(values)
