"""A seat that plays a recorded table-session again: :class:`RecordedSeat` wraps the seat
of the bot that sat there and holds the session's record.

At each decision it asks the bot, as the table always does, with the observation the
table makes, and compares the answer with the action the record holds for that
decision, or with the mixed strategy when the recorded action was drawn from one;
whatever the bot answers, the table gets the recorded action (or the recorded mix, which
the table draws from again with the same key and place, and so draws the recorded
action; or the recorded fault, when the bot faulted there in the record), so the hand
goes on exactly as it was played and every later decision of every bot is asked with
the view it had then. A bot
whose answer is not the recorded one is told to ``on_difference`` with a
:class:`Difference`. Hooks (``begin_session``, ``begin_deal``, ``end_deal``) go to the
bot unchanged; a fault they give is the table's, as in a run.

Once the table has left the record (a seat the record played that could not be seated
now, a hook's fault that benched a seat the record did not bench), there is nothing
left to compare with: the seat then passes the bot's answers through and tells
``on_leave`` once.

>>> from dp_arena.engine import Action
>>> parse_recorded("raise 120"), parse_recorded("fold") == Action.fold()
(Action(kind=<ActionKind.RAISE: 'raise'>, amount=120), True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dp_arena.agents.observation import Observation
from dp_arena.agents.seat import Seat, SeatFault, WrappedSeat
from dp_arena.agents.table import action_text
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.results import Fault, TableSessionResult, place_text

__all__ = ["Difference", "RecordedSeat", "parse_recorded"]


@dataclass(frozen=True, slots=True)
class Difference:
    """A decision at which a bot, asked again with the view it had, answers otherwise than
    the record. ``decision`` counts the deal's actions from 0 (every seat's, in order);
    ``recorded`` and ``replayed`` are actions (``raise 120``), mixed strategies (``mix
    fold 0.25, call 0.75``) or faults (``TIMEOUT fault``)."""

    player: str
    seat: int
    session: int
    section: int
    table: int
    deal: int
    decision: int
    recorded: str
    replayed: str

    @property
    def order(self) -> tuple[int, int, int, int, int]:
        """Where it happened, in the order the event played."""
        return (self.session, self.section, self.table, self.deal, self.decision)

    def where(self) -> str:
        place = place_text(self.session, self.section, self.table, self.deal)
        return f"{place}, decision {self.decision + 1} (seat {self.seat + 1})"

    def describe(self) -> str:
        return f"{self.where()}: recorded {self.recorded}, replayed {self.replayed}"


def parse_recorded(text: str) -> Action:
    """The action of a record's ``"raise 120"``, ``"call"``..."""
    kind, _, amount = text.partition(" ")
    if kind == "raise":
        return Action.raise_to(int(amount))
    return {"fold": Action.fold(), "check": Action.check(), "call": Action.call()}[kind]


class RecordedSeat(WrappedSeat):
    """The seat of ``player`` at seat ``seat`` of a recorded table-session (see the module)."""

    def __init__(
        self,
        inner: Seat,
        seat: int,
        record: TableSessionResult,
        where: tuple[int, int, int],
        on_difference: Callable[[Difference], None],
        on_leave: Callable[[str], None],
    ) -> None:
        super().__init__(inner)
        self.seat = seat
        self.record = record
        self.session, self.section, self.table = where
        self.on_difference = on_difference
        self.on_leave = on_leave
        self.left = False
        # The record's faults at this seat's decisions, by (deal, street, substitute): a
        # seat checks at most once a street and folds once a deal, so each is one decision.
        self.faults: dict[tuple[int | None, str | None, str | None], Fault] = {
            (fault.deal, fault.street, fault.substituted): fault
            for fault in record.faults
            if fault.seat == seat and fault.substituted is not None
        }

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        answer = self.inner.decide(observation)
        if self.left:
            return answer
        deal = observation.context.deal_number
        played = observation.history
        records = self.record.deals
        actions = records[deal].actions if deal < len(records) else ()
        recorded_seat, _, recorded = (
            actions[len(played)].partition(":") if len(played) < len(actions) else ("", "", "")
        )
        if recorded_seat != str(self.seat) or any(
            action_text(action) != text for action, text in zip(played, actions, strict=False)
        ):
            self.left = True
            self.on_leave(f"deal {deal + 1}, decision {len(played) + 1}")
            return answer
        fault = self.faults.get((deal, observation.street.name.lower(), recorded))
        mix = records[deal].mix_at(len(played))
        if fault is not None:
            expected = f"{fault.kind} fault"
        else:
            expected = recorded if mix is None else f"mix {mix}"
        legal = observation.legal()
        if isinstance(answer, SeatFault):
            replayed = shown = f"{answer.kind} fault"
        elif isinstance(answer, Mix):
            if answer.refusal(legal) is None:
                replayed = shown = f"mix {answer}"
            else:
                replayed, shown = "ILLEGAL fault", f"ILLEGAL fault (mix {answer})"
        elif legal.allows(answer):
            replayed = shown = str(answer)
        else:
            replayed, shown = "ILLEGAL fault", f"ILLEGAL fault ({answer})"
        if replayed != expected:
            self.on_difference(
                Difference(
                    self.name,
                    self.seat,
                    self.session,
                    self.section,
                    self.table,
                    deal,
                    len(played),
                    expected,
                    shown,
                )
            )
        if fault is not None:  # the table records the same fault, and plays the same substitute
            return SeatFault(fault.kind, fault.detail)
        if mix is not None:  # drawn again from the same key and place: the same action
            return Mix.parse(mix)
        return parse_recorded(recorded)
