"""``dp-arena match --rollouts K``: the config's field, fresh rollout seats opened after
every table has played, the values and scores the same for the same key on any seat
(in-process or sandboxed), no gain for a bot that plays its rollouts unlike its real
play, and the command's output. (The intervals of copies of one mixing bot scored by
rollouts: ``tests/ratings/test_rollouts.py``.)"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from dp_arena.agents import Seat, SessionContext
from dp_arena.agents.observation import DealEnd
from dp_arena.agents.seat import WrappedSeat
from dp_arena.agents.table import deal_record
from dp_arena.cli import main
from dp_arena.engine import Action, HandState, Mix, TableRules, deck_for, new_hand
from dp_arena.errors import ConfigError
from dp_arena.match import MAX_ROLLOUTS, MatchConfig, MatchResult, play_match
from dp_arena.ratings.action_luck import recorded_action
from dp_arena.results import DealRecord
from dp_arena.rollouts import RolloutPlace, table_values
from dp_arena.sandbox import open_seat

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "sandbox" / "hostile_bots" / "rollout_copies" / "bot.py"


def _match(*specs: str, deals: int = 8, seed: int = 5, rollouts: int = 2, **options: object):  # type: ignore[no-untyped-def]
    config = MatchConfig(tuple(specs), deals=deals, seed=seed, rollouts=rollouts)
    return play_match(config, trusted=True, clairvoyance=False, **options)  # type: ignore[arg-type]


# -- the config ---------------------------------------------------------------------------


@pytest.mark.parametrize("rollouts", [1, -1, MAX_ROLLOUTS + 1, 2.0, True, "8"])
def test_rollouts_other_than_zero_or_two_and_more_are_refused_naming_the_field(
    rollouts: object,
) -> None:
    with pytest.raises(ConfigError) as error:
        MatchConfig(("tag", "random"), rollouts=rollouts)  # type: ignore[arg-type]
    assert error.value.field == "rollouts"
    assert "one rollout adds more noise than it takes out" in str(error.value)


def test_the_json_names_the_terms_and_the_rollouts() -> None:
    fixed = _match("random", "tag", rollouts=0).to_json()
    rolled = _match("random", "tag", rollouts=3).to_json()
    assert fixed["match"]["adjusted"] == "board+action"
    assert rolled["match"]["adjusted"] == "board+action (rollouts 3)"
    unadjusted = _match("random", "tag", rollouts=3, adjusted=False).to_json()
    assert unadjusted["match"]["adjusted"] is None


# -- fresh seats, after every table -------------------------------------------------------


class Watched(WrappedSeat):
    """A seat that writes what it is told into a shared journal."""

    def __init__(self, inner: Seat, number: int, journal: list[tuple[int, str]]) -> None:
        super().__init__(inner)
        self.number, self.journal = number, journal
        self.event = ""

    def begin_session(self, context: SessionContext):  # type: ignore[no-untyped-def]
        self.event = context.event
        self.journal.append((self.number, f"session {context.event}"))
        return super().begin_session(context)

    def end_deal(self, end: DealEnd):  # type: ignore[no-untyped-def]
        self.journal.append((self.number, f"end {self.event}"))
        return super().end_deal(end)

    def close(self) -> None:
        self.journal.append((self.number, "close"))
        super().close()


def test_rollout_seats_are_fresh_for_every_table_and_open_only_once_every_table_has_played() -> (
    None
):
    journal: list[tuple[int, str]] = []
    opened: list[Watched] = []

    def factory(spec: str, name: str) -> Seat:
        seat = Watched(open_seat(spec, name=name, trusted=True), len(opened), journal)
        journal.append((seat.number, "open"))
        opened.append(seat)
        return seat

    result = _match("random", "tag", "calling-station", deals=5, seat_factory=factory)
    assert any(record.mixes for table in result.tables for record in table.deals)
    real = {seat.number for seat in opened if seat.event == "match"}
    rolled = [seat.number for seat in opened if seat.event == "rollout"]
    assert len(real) == 9 and len(rolled) == 9  # a seat per agent per table, each once
    assert len({id(seat.inner) for seat in opened}) == 18  # no seat serves twice
    last_real = max(index for index, (number, _) in enumerate(journal) if number in real)
    first_rolled = min(index for index, (number, _) in enumerate(journal) if number in rolled)
    assert last_real < first_rolled  # every real seat closed before a rollout seat opens
    # Table by table: a table's three rollout seats are opened, told and closed together.
    for table in range(3):
        numbers = rolled[3 * table : 3 * table + 3]
        told = [what for number, what in journal if number in numbers]
        assert told[:3] == ["open"] * 3 and told[3:6] == ["session rollout"] * 3
        assert told[-3:] == ["close"] * 3
    assert all(seat.number in real or seat.number in rolled for seat in opened)


def test_without_rollouts_no_seat_is_opened_after_the_tables() -> None:
    events: list[str] = []

    def factory(spec: str, name: str) -> Seat:
        seat = Watched(open_seat(spec, name=name, trusted=True), 0, [])
        events.append("open")
        return seat

    _match("random", "tag", rollouts=0, seat_factory=factory)
    assert events == ["open"] * 4


def test_rollout_progress_counts_every_deal_of_every_table() -> None:
    seen: list[tuple[int, int]] = []
    _match("random", "tag", deals=4, on_rollouts=lambda *told: seen.append(told))
    assert seen[-1] == (8, 8)
    assert all(total == 8 and 0 < valued <= 8 for valued, total in seen)
    assert [valued for valued, _ in seen] == sorted(valued for valued, _ in seen)


# -- determinism --------------------------------------------------------------------------


def _everything(result: MatchResult) -> str:
    return json.dumps(
        {"result": result.to_json(), "tables": [table.to_json() for table in result.tables]},
        sort_keys=True,
    )


def test_the_same_key_gives_the_same_values_and_scores() -> None:
    first = _match("random", "learned", "tag", deals=4)
    again = _match("random", "learned", "tag", deals=4)
    assert _everything(first) == _everything(again)
    other = _match("random", "learned", "tag", deals=4, seed=6)
    assert _everything(first) != _everything(other)


def test_built_ins_give_the_same_values_in_process_and_sandboxed() -> None:
    specs = (f"{REPO / 'agents' / 'random_bot.py'}:RandomBot", "tag")
    config = MatchConfig(specs, deals=5, seed=3, rollouts=2)
    in_process = play_match(config, trusted=True, clairvoyance=False)
    sandboxed = play_match(config, trusted=False, clairvoyance=False)
    assert any(record.mixes for table in in_process.tables for record in table.deals)
    assert _everything(sandboxed) == _everything(in_process)


# -- nothing to gain ----------------------------------------------------------------------


def _as_if_drawn(
    rules: TableRules, record: DealRecord, decision: int, action: Action
) -> tuple[DealRecord, HandState]:
    """``record`` had the dealer drawn ``action`` at ``decision``: the same hand up to it,
    then ``action``, then every seat passive to the end, with the mixes up to it."""
    state = new_hand(rules, deck_for(SEED, 0, 0, record.deal), button=record.button)
    for text in record.actions[:decision]:
        state.apply(recorded_action(text))
    state.apply(action)
    while state.actor is not None:
        state.apply(state.legal_actions().passive())
    mixes = [(index, Mix.parse(text)) for index, text in record.mixes if index <= decision]
    return deal_record(state, record.deal, record.players, mixes), state


SEED = 8
TALK = Path("/tmp/dp-arena-rollout-talk.json")  # the TmpFile talker's channel


def _heard(state: HandState, seat: int) -> None:
    """Tell the talker's channel that its real copy in ``seat`` heard ``state``'s hand:
    what it would have heard had the dealer drawn otherwise."""
    hole = state.hole_cards[seat]
    assert hole is not None
    told = json.loads(TALK.read_text())
    told[",".join(str(card) for card in sorted(hole))] = [
        [record.seat, record.kind.value, record.raise_to] for record in state.history
    ]
    TALK.write_text(json.dumps(told))


@pytest.mark.parametrize("bot", ["Liar", "TmpFile"])
def test_a_bot_that_plays_its_rollouts_unlike_its_real_play_gains_nothing(bot: str) -> None:
    """The liar reports one mix and plays its rollouts otherwise (it bets the maximum in
    them). Its values at every one of its decisions are exactly the same whichever action
    of its mix the dealer had drawn (valued again by fresh copies from a record where
    another action was drawn), so each of its terms has a mean of exactly zero over the
    mix: it cannot move its expected score. The talker, in-process, whose rollout copies
    hear from its real copies what was drawn (its channel rewritten as if the other
    action had been), values its decisions otherwise for every other draw: the check
    sees a bot that could gain."""
    TALK.unlink(missing_ok=True)
    config = MatchConfig((f"{HOSTILE}:{bot}", "aggressive"), deals=6, seed=SEED, rollouts=2)
    try:
        result = play_match(config, trusted=True, clairvoyance=False)
        rules = config.rules()
        same = moved = 0
        for index, table in enumerate(result.tables):
            specs = [config.specs[agent] for agent in result.seatings[index]]
            for record in table.deals:
                for decision, values in record.values:
                    mix = Mix.parse(record.mix_at(decision) or "")
                    drawn = recorded_action(record.actions[decision])
                    for action in mix.actions:
                        if action == drawn:
                            continue
                        other, state = _as_if_drawn(rules, record, decision, action)
                        if bot == "TmpFile":
                            _heard(state, specs.index(config.specs[0]))
                        copies = [open_seat(spec, name=spec, trusted=True) for spec in specs]
                        again = table_values(
                            rules,
                            replace(table, deals=(other,)),
                            functools.partial(deck_for, SEED, 0, 0),
                            copies,
                            rollouts=2,
                            place=RolloutPlace(SEED, table=index),
                        )
                        if dict(again.deals[0].values)[decision] == values:
                            same += 1
                        else:
                            moved += 1
    finally:
        TALK.unlink(missing_ok=True)
    if bot == "Liar":
        assert same > 10 and moved == 0
    else:
        assert moved > 10


# -- the command --------------------------------------------------------------------------


def test_command_refuses_one_rollout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "tag", "random", "--rollouts", "1", "--quiet"]) == 2
    assert "rollouts must be 0 (the fixed blend) or 2 to" in capsys.readouterr().err


def test_command_prints_the_rollouts_in_json_and_in_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = ["match", "random", "tag", "--deals", "3", "--seed", "2", "--trusted", "--quiet"]
    assert main([*arguments, "--rollouts", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match"]["adjusted"] == "board+action (rollouts 2)"
    config = MatchConfig(("random", "tag"), deals=3, seed=2, rollouts=2)
    assert data == play_match(config, trusted=True).to_json()
    assert main([*arguments, "--rollouts", "2"]) == 0
    assert "luck-adjusted, board+action (rollouts 2):" in capsys.readouterr().out
    assert main(arguments) == 0
    assert "rollouts" not in capsys.readouterr().out
