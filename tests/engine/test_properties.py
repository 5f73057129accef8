"""Properties of every hand, checked on hands Hypothesis builds: any table of 2-10
seats, either betting structure, capped or not, equal or unequal stacks, absent seats,
and any sequence of legal decisions (docs/rules.md).
"""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from dp_arena.agents import (
    InProcessSeat,
    Observation,
    SessionContext,
    TableSession,
    play_table_session,
)
from dp_arena.engine import (
    Action,
    ActionKind,
    Betting,
    HandState,
    Street,
    TableRules,
    button_for_deal,
    deck_for,
    new_hand,
)
from dp_arena.errors import IllegalActionError, IllegalReason
from tests.strategies import (
    actions_for,
    hands,
    illegal_actions_for,
    play_hand,
    snapshot,
    table_rules,
)

deck_ids = st.tuples(
    st.integers(0, 2**64), st.integers(0, 30), st.integers(0, 50), st.integers(0, 200)
)


def _limits(state: HandState) -> list[int]:
    """What each seat may commit this deal: its stack, or the cap when that is smaller."""
    cap = state.rules.cap
    return [stack if cap is None else min(stack, cap) for stack in state.starting_stacks]


@given(hands(), st.data())
def test_chips_are_conserved_after_every_action(state: HandState, data: st.DataObject) -> None:
    limits = _limits(state)

    def conserved(state: HandState) -> None:
        for seat in range(state.seat_count):
            # Nothing is created or lost: what a seat may commit is split between what
            # it has committed and what it still has available.
            assert state.available[seat] + state.committed[seat] == limits[seat]
            assert (
                state.available[seat] >= 0 and 0 <= state.street_bets[seat] <= state.committed[seat]
            )

    conserved(state)
    play_hand(state, data, after_action=conserved)
    assert state.payoffs is not None
    assert sum(state.payoffs) == 0
    assert sum(pot.amount for pot in state.pots) == sum(state.committed)
    for seat in range(state.seat_count):
        # A seat loses at most what it committed; its stack never goes negative.
        assert state.payoffs[seat] >= -state.committed[seat]
        assert state.final_stacks[seat] >= state.starting_stacks[seat] - limits[seat]
        if state.folded[seat]:
            assert state.payoffs[seat] == -state.committed[seat]


@given(hands(), st.data())
def test_the_cap_is_never_exceeded(state: HandState, data: st.DataObject) -> None:
    def within_cap(state: HandState) -> None:
        cap = state.rules.cap
        available, cap_gap = state.cap_graphic()
        assert available == tuple(state.available)
        if cap is None:
            assert cap_gap is None
            return
        assert all(committed <= cap for committed in state.committed)
        # The cap graphic's gap: the cap minus the largest deal total, never negative.
        assert cap_gap == cap - max(state.committed) >= 0

    within_cap(state)
    play_hand(state, data, after_action=within_cap)


@given(hands(), st.data())
def test_legal_actions_describe_what_the_rules_allow(state: HandState, data: st.DataObject) -> None:
    big_blind = state.rules.big_blind

    def consistent(state: HandState) -> None:
        if state.actor is None:
            return
        legal = state.legal_actions()
        seat = legal.seat
        # What is owed: up to the current bet, but never more than any other player still
        # in the hand could put in (a short big blind all-in leaves the full big blind as
        # the current bet, yet a call need only match what the others can).
        others_most = max(
            state.street_bets[other] + state.available[other]
            for other in range(state.seat_count)
            if other != seat and not state.folded[other]
        )
        owed = max(0, min(state.current_bet, others_most) - state.street_bets[seat])
        assert legal.seat == state.actor and not state.folded[seat] and state.available[seat] > 0
        # Exactly one of check and fold: fold only when something is owed.
        assert legal.can_check == (owed == 0) and legal.can_fold == (owed > 0)
        assert legal.call_amount == min(owed, state.available[seat])
        if legal.min_raise_to is not None:
            assert legal.max_raise_to is not None
            all_in_to = state.street_bets[seat] + state.available[seat]
            assert state.current_bet < legal.min_raise_to <= legal.max_raise_to <= all_in_to
            # A raise is at least a big blind more, unless it is the all-in.
            assert (
                legal.min_raise_to >= state.current_bet + big_blind
                or legal.min_raise_to == all_in_to
            )
            if state.rules.betting is Betting.POT_LIMIT:
                pot_to = state.current_bet + state.pot_total + owed
                assert legal.max_raise_to <= max(pot_to, legal.min_raise_to)

    consistent(state)
    play_hand(state, data, after_action=consistent)


@given(hands(), st.data())
def test_every_legal_action_applies_and_every_illegal_one_is_refused_unchanged(
    state: HandState, data: st.DataObject
) -> None:
    while state.actor is not None:
        legal = state.legal_actions()
        before = snapshot(state)
        for action, reason in illegal_actions_for(legal):
            # The one check answers as the hand refuses: the same reason, the passive action.
            refused = legal.refusal(action)
            assert refused is not None and refused.reason is reason, (action, refused)
            assert not legal.allows(action) and legal.or_passive(action) == legal.passive()
            try:
                state.apply(action)  # type: ignore[arg-type]
            except IllegalActionError as error:
                assert error.reason is reason, (action, error)
            else:
                raise AssertionError(f"{action!r} was accepted; legal: {legal}")
            assert snapshot(state) == before, f"refusing {action!r} changed the state"
        # Every legal choice applies, on a copy: each kind, and the smallest and largest raise.
        choices = [Action(kind) for kind in legal.kinds if kind is not ActionKind.RAISE]
        if legal.min_raise_to is not None and legal.max_raise_to is not None:
            choices += [Action.raise_to(legal.min_raise_to), Action.raise_to(legal.max_raise_to)]
        for action in choices:
            assert legal.allows(action) and legal.or_passive(action) is action
            record = copy.deepcopy(state).apply(action)
            assert (record.seat, record.kind) == (legal.seat, action.kind)
        state.apply(data.draw(actions_for(legal)))
    before = snapshot(state)
    try:
        state.apply(Action.check())
    except IllegalActionError as error:
        assert error.reason is IllegalReason.HAND_COMPLETE
    else:
        raise AssertionError("an action was accepted after the hand was over")
    assert snapshot(state) == before


@given(hands(), st.data())
def test_every_hand_terminates_within_a_bound(state: HandState, data: st.DataObject) -> None:
    # On one street every raise but an all-in adds at least a big blind to the current
    # bet, which never exceeds the largest amount a seat may commit; between two raises
    # each seat acts at most once. So a street takes at most P * (raises + 1) actions.
    seat_count = state.seat_count
    most_raises = max(_limits(state)) // state.rules.big_blind + seat_count
    bound = 4 * seat_count * (most_raises + 1)
    actions = 0
    while state.actor is not None:
        assert actions < bound, f"no end after {actions} actions"
        state.apply(data.draw(actions_for(state.legal_actions())))
        actions += 1
    assert state.is_complete
    in_hand = state.folded.count(False)
    # The hand ends with one player left, or at the showdown with the whole board dealt.
    assert in_hand == 1 or state.street is Street.SHOWDOWN


@given(table_rules(), deck_ids, st.data())
def test_same_seed_same_deal_and_same_play_same_result(
    rules: TableRules, ids: tuple[int, int, int, int], data: st.DataObject
) -> None:
    button = button_for_deal(ids[3], rules.seat_count)
    stacks = [1000] * rules.seat_count
    first = new_hand(rules, deck_for(*ids), button=button, stacks=stacks)
    play_hand(first, data)
    second = new_hand(rules, deck_for(*ids), button=button, stacks=stacks)
    assert (second.hole_cards, second.board) == (first.hole_cards, first.board)
    for record in first.history:
        second.apply(
            Action.raise_to(record.raise_to) if record.raise_to is not None else Action(record.kind)
        )
    assert second.history == first.history
    assert second.payoffs == first.payoffs and second.pots == first.pots


@given(
    st.integers(2, 10),
    deck_ids,
    st.sampled_from(Betting),
    st.integers(2, 4),
    st.data(),
)
def test_duplicate_guarantee_every_table_gives_seat_k_the_same_cards(
    seat_count: int,
    ids: tuple[int, int, int, int],
    betting: Betting,
    table_count: int,
    data: st.DataObject,
) -> None:
    # Every table of a section plays deal d from the same deck with the same button; the
    # players (and which seats are absent) differ from table to table.
    rules = TableRules(seat_count, 10, 20, betting, cap=1000)
    deck = deck_for(*ids)
    button = button_for_deal(ids[3], seat_count)
    seen_boards = []
    reference = None
    for _ in range(table_count):
        absent = data.draw(st.sets(st.integers(0, seat_count - 1), max_size=seat_count - 1))
        state = new_hand(rules, deck, button=button, absent=absent)
        boards = [state.visible_board]

        def record_board(state: HandState, boards: list[tuple[int, ...]] = boards) -> None:
            boards.append(state.visible_board)

        play_hand(state, data, after_action=record_board)
        dealt = (state.hole_cards, state.board)
        reference = reference or dealt
        assert dealt == reference
        seen_boards += boards
    # Whatever was played, every board shown at every table is a prefix of the one board.
    full_board = reference[1]
    assert all(board == full_board[: len(board)] for board in seen_boards)


class _SeededRandomAgent:
    """Uniform over legal kinds and raise amounts, from its own generator."""

    def __init__(self, seed: int) -> None:
        import random

        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        kind = self.rng.choice(observation.legal_actions)
        if kind is ActionKind.RAISE:
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            return Action.raise_to(
                self.rng.randint(observation.min_raise_to, observation.max_raise_to)
            )
        return Action(kind)


@given(st.integers(2, 10), st.integers(1, 2), st.integers(0, 1000))
def test_button_rotates_over_a_session_and_tables_see_the_same_cards(
    seat_count: int, rounds: int, seed: int
) -> None:
    rules = TableRules(seat_count, 10, 20, Betting.POT_LIMIT, cap=1000)
    deals = rounds * seat_count
    seen: list[list[tuple[int, int, int, object, object]]] = []
    for table_index in range(2):
        table = TableSession(
            [
                InProcessSeat(_SeededRandomAgent(seed * 31 + table_index * 7 + seat), f"bot{seat}")
                for seat in range(seat_count)
            ],
            [f"bot{seat}" for seat in range(seat_count)],
        )
        hands_seen: list[tuple[int, int, int, object, object]] = []

        def on_deal(deal: int, state: HandState, hands_seen: list = hands_seen) -> None:
            hands_seen.append(
                (
                    state.button,
                    state.small_blind_seat,
                    state.big_blind_seat,
                    state.hole_cards,
                    state.board,
                )
            )

        play_table_session(
            table,
            rules,
            event_seed=seed,
            section=0,
            session=0,
            deals=deals,
            context=SessionContext(event="rotation"),
            table_index=table_index,
            on_deal=on_deal,
        )
        seen.append(hands_seen)
    for deal, (button, small_blind, big_blind, _, _) in enumerate(seen[0]):
        # The button starts at seat 0 and moves one seat left each deal.
        assert button == deal % seat_count
        if seat_count == 2:
            assert (small_blind, big_blind) == (button, 1 - button)
        else:
            assert (small_blind, big_blind) == (
                (button + 1) % seat_count,
                (button + 2) % seat_count,
            )
    for start in range(0, deals, seat_count):
        # A round is P deals: one full revolution, every seat on the button once.
        assert sorted(hand[0] for hand in seen[0][start : start + seat_count]) == list(
            range(seat_count)
        )
    # The two tables played differently but were dealt the same cards, deal by deal.
    assert [hand[3:] for hand in seen[0]] == [hand[3:] for hand in seen[1]]
