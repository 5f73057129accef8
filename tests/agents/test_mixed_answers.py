"""Bots that answer with a mixed strategy: the table draws the action from the event key
and the table-session's place, records the mix beside it, refuses an illegal or
malformed mix as a fault like any bad answer, and draws the same action again whenever
the same table-session is played again."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.agents import (
    InProcessSeat,
    Observation,
    SessionContext,
    TableSession,
    parse_answer,
    play_table_session,
)
from dp_arena.engine import Action, ActionKind, Betting, Mix, TableRules
from dp_arena.engine.mixes import MixDraws
from dp_arena.engine.phh import SessionHistory, player_seats
from dp_arena.engine.phh_read import replay_text
from dp_arena.results import FaultKind, TableSessionResult

RULES = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)


class Mixer:
    """Calls (or checks) and raises half the pot, half the time each; folds a tenth of
    the time facing a bet."""

    def act(self, observation: Observation) -> Mix | Action:
        passive = Action.call() if observation.to_call else Action.check()
        entries = [(passive, 0.5)]
        if observation.can(ActionKind.RAISE):
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            wanted = observation.current_bet + observation.pot // 2
            amount = min(max(wanted, observation.min_raise_to), observation.max_raise_to)
            entries.append((Action.raise_to(amount), 0.4 if observation.to_call else 0.5))
        else:
            entries[0] = (passive, 0.9 if observation.to_call else 1.0)
        if observation.to_call:
            entries.append((Action.fold(), 0.1))
        return Mix(entries)


class Station:
    def act(self, observation: Observation) -> Action:
        return Action.call() if observation.to_call else Action.check()


def _play(
    first: object, second: object = None, *, seed: int = 5, table: int = 0, deals: int = 20
) -> TableSessionResult:
    seats = [InProcessSeat(first, "first"), InProcessSeat(second or Station(), "second")]
    session = TableSession(seats, ["first", "second"])
    return play_table_session(
        session,
        RULES,
        event_seed=seed,
        section=1,
        session=2,
        deals=deals,
        context=SessionContext(event="test"),
        table_index=table,
    )


def test_every_mixed_decision_is_drawn_from_the_key_and_recorded_beside_its_action() -> None:
    result = _play(Mixer())
    draws = MixDraws(5, 1, 2, 0)
    drawn = 0
    kinds = set()
    for record in result.deals:
        for decision, text in record.mixes:
            mix = Mix.parse(text)
            seat, _, action = record.actions[decision].partition(":")
            assert seat == "0"  # the mixer's
            assert action == str(draws.action(mix, record.deal, decision))
            kinds.add(action.split()[0])
            drawn += 1
    assert drawn > 30 and kinds >= {"call", "raise", "check"}
    assert not result.faults
    # The same table-session, played again, draws the same; another table draws its own.
    assert _play(Mixer()) == result
    assert _play(Mixer(), table=1).deals != result.deals


def test_a_mix_of_one_action_is_that_action_and_no_mix_is_recorded() -> None:
    class Sure:
        def act(self, observation: Observation) -> Mix:
            passive = Action.call() if observation.to_call else Action.check()
            return Mix(
                [(passive, 1.0), (Action.fold(), 0.0)] if observation.to_call else [(passive, 1.0)]
            )

    result = _play(Sure())
    assert not result.faults and all(not record.mixes for record in result.deals)
    assert result.deals == _play(Station()).deals


@pytest.mark.parametrize(
    ("answer", "kind", "says"),
    [
        (
            Mix([(Action.check(), 0.5), (Action.raise_to(20), 0.5)]),
            FaultKind.ILLEGAL,
            "check in the mix is not legal",
        ),
        (
            Mix([(Action.call(), 0.5), (Action.raise_to(5000), 0.5)]),
            FaultKind.ILLEGAL,
            "raise 5000 in the mix is not legal",
        ),
        ([("call", 0.5), ("fold", 0.2)], FaultKind.PROTOCOL, "add up to 0.7"),
        ([("call", 0.5), ("dance", 0.5)], FaultKind.PROTOCOL, "not an action"),
        ([("call", 0.5, 1)], FaultKind.PROTOCOL, "not an (action, probability) pair"),
    ],
)
def test_an_illegal_or_malformed_mix_is_a_fault_and_the_table_checks_or_folds(
    answer: object, kind: FaultKind, says: str
) -> None:
    class Faulty:
        def act(self, observation: Observation) -> object:
            return answer

    result = _play(Faulty(), deals=2)
    first = result.faults[0]
    assert first.kind is kind and says in first.detail
    assert first.substituted == "fold"  # the small blind owes 10: it folds
    assert result.deals[0].actions[0] == "0:fold" and not result.deals[0].mixes


def test_a_bot_building_a_bad_mix_raises_in_act_which_is_an_error_fault() -> None:
    class Careless:
        def act(self, observation: Observation) -> Mix:
            return Mix([(Action.call(), 0.9)])

    result = _play(Careless(), deals=1)
    assert result.faults[0].kind is FaultKind.ERROR
    assert "ValueError: the probabilities of a mix add up to 0.9" in result.faults[0].detail


def test_answers_in_every_form_are_read() -> None:
    assert parse_answer("raise 120") == Action.raise_to(120)
    assert parse_answer([("call", 0.25), ("raise 60", 0.75)]) == Mix(
        [(Action.call(), 0.25), (Action.raise_to(60), 0.75)]
    )
    assert parse_answer(Mix([(Action.fold(), 1.0)])) == Action.fold()
    with pytest.raises(ValueError, match="an action must be"):
        parse_answer([(object(), 1.0)])


def test_the_hand_history_carries_each_mix_as_a_commentary_readers_skip(tmp_path: Path) -> None:
    seats = [InProcessSeat(Mixer(), "first"), InProcessSeat(Mixer(), "second")]
    history = SessionHistory(
        event="test", section=1, session=2, table=0, players=["first", "second"]
    )
    result = play_table_session(
        TableSession(seats, ["first", "second"]),
        RULES,
        event_seed=9,
        section=1,
        session=2,
        deals=12,
        context=SessionContext(event="test"),
        on_deal=history.record,
    )
    for record in result.deals:
        history.note_mixes(record.deal, record.mixes)
    text = history.text()
    assert text.count("# mix: ") == sum(len(record.mixes) for record in result.deals) > 0
    replayed = replay_text(text)
    in_phh_order = [
        tuple(record.nets[seat] for seat in player_seats(record.button, 2))
        for record in result.deals
    ]
    assert [tuple(hand.nets) for hand in replayed] == in_phh_order
    pokerkit = pytest.importorskip("pokerkit")
    path = tmp_path / "t.phhs"
    path.write_text(text)
    with path.open("rb") as file:
        hands = list(pokerkit.HandHistory.load_all(file))
    assert len(hands) == len(result.deals)
    for hand, nets in zip(hands, in_phh_order, strict=True):
        assert tuple(stack - 1000 for stack in list(hand)[-1].stacks) == nets


class OtherMixer(Mixer):
    """Mixer's actions with other probabilities when it may raise: the same play, drawn
    from another mix, is what a replay must notice."""

    def act(self, observation: Observation) -> Mix | Action:
        answer = super().act(observation)
        if isinstance(answer, Mix) and len(answer.actions) == 2:
            first, second = answer.actions
            return Mix([(first, 0.3), (second, 0.7)])
        return answer


def test_a_replay_compares_the_mix_a_bot_answers_with_the_recorded_one() -> None:
    """Played again through recorded seats, the same bot answers the recorded mixes and the
    table draws the recorded actions again, result for result; a bot answering another mix
    at a recorded mixed decision is told apart, even where the same action is drawn."""
    from dp_arena.agents.recorded_seat import Difference, RecordedSeat

    recorded = _play(Mixer())

    def replay(bot: object) -> tuple[TableSessionResult, list[Difference]]:
        differences: list[Difference] = []
        seats = [
            RecordedSeat(
                InProcessSeat(bot, name),
                seat,
                recorded,
                (2, 1, 0),
                differences.append,
                lambda where: None,
            )
            for seat, (bot, name) in enumerate(((bot, "first"), (Station(), "second")))
        ]
        session = TableSession(seats, ["first", "second"])
        result = play_table_session(
            session,
            RULES,
            event_seed=5,
            section=1,
            session=2,
            deals=20,
            context=SessionContext(event="test"),
            table_index=0,
        )
        return result, differences

    again, differences = replay(Mixer())
    assert again == recorded and differences == []
    again, differences = replay(OtherMixer())
    assert again == recorded  # the recorded mixes are drawn again, whatever was answered
    assert differences and all(d.player == "first" for d in differences)
    first = differences[0]
    assert first.recorded.startswith("mix ") and first.replayed.startswith("mix ")
    assert first.recorded != first.replayed
