"""The conformance check of a bot: what ``dp-arena check-agent`` runs, and what
``dp-arena submit`` runs before accepting a bot.

The bot is seated exactly as in an event (sandboxed unless trusted) and must:

1. load within the load timeout and say hello;
2. answer a legal action within the time limit in many random states: heads-up and
   multi-way tables, no-limit and pot-limit (no-limit alone for an ACPC agent, which
   plays nothing else), every street. Each state is reached by
   random play from a seeded deck; the bot is told of the deal (``begin_deal``) as the
   seat to act, asked once, and told the deal's end, so states reach every street
   whatever the bot's own style;
3. play whole table-sessions against the random bot with every hook called, without a
   fault;
4. answer the same random states the same way in a fresh process: an event gives the
   same results for the same key on every executor and after a resume only if its bots
   do, so a bot must draw any randomness from what it is told (a ``random.Random``
   seeded from the context and the seat), never from the global ``random`` module, the
   clock or the process.

Any fault fails the check; the report lists the first problems found. ``dp-arena
check-agent`` and ``dp-arena submit`` run the same check, with :data:`DEFAULT_STATES`
random states.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp_arena.agents import (
    DealEnd,
    DealStart,
    InProcessSeat,
    Seat,
    SeatFault,
    SessionContext,
    TableSession,
    load_agent,
    observe,
    play_table_session,
)
from dp_arena.agents.seat import WrappedSeat
from dp_arena.agents.spec import AGENTS_DIR
from dp_arena.agents.table import FaultPolicy
from dp_arena.engine import Action, Betting, HandState, Street, TableRules, deck_for, new_hand
from dp_arena.engine.mixes import Mix, MixDraws
from dp_arena.sandbox.confinement.isolation import detect
from dp_arena.sandbox.dealer.seats import load_hint, open_seat, resolve, runs_in_process
from dp_arena.sandbox.limits import Limits
from dp_arena.text import printable

__all__ = ["DEFAULT_STATES", "CheckReport", "check_agent"]

STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
DEFAULT_STATES = 200  # random states of the check, for check-agent and submit alike


@dataclass
class CheckReport:
    """The outcome of a conformance check."""

    spec: str
    isolation: dict[str, Any]
    loaded: bool = False
    load_seconds: float | None = None
    bot_name: str = ""
    decisions: int = 0
    coverage: Counter[str] = field(default_factory=Counter)
    decision_seconds: list[float] = field(default_factory=list)
    sessions: int = 0
    session_deals: int = 0
    problems: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)  # each random state's answer, in order
    repeatable: bool | None = None  # the same answers again in a fresh process

    @property
    def passed(self) -> bool:
        return self.loaded and not self.problems and self.decisions > 0

    def to_json(self) -> dict[str, Any]:
        times = sorted(self.decision_seconds)
        return {
            "spec": self.spec,
            "passed": self.passed,
            "isolation": self.isolation,
            "loaded": self.loaded,
            "load_seconds": self.load_seconds,
            "bot_name": self.bot_name,
            "random_state_decisions": self.decisions,
            "coverage": dict(sorted(self.coverage.items())),
            "decision_ms_median": round(statistics.median(times) * 1000, 3) if times else None,
            "decision_ms_max": round(times[-1] * 1000, 3) if times else None,
            "sessions": self.sessions,
            "session_deals": self.session_deals,
            "repeatable": self.repeatable,
            "problems": self.problems,
        }

    def lines(self) -> list[str]:
        data = self.to_json()
        out = [
            f"dp-arena check-agent {self.spec}",
            *(f"  {line}" for line in _isolation_lines(self.isolation)),
        ]
        if self.loaded:
            out.append(
                f"loaded in {self.load_seconds:.2f} s; the bot calls itself '{self.bot_name}'"
            )
        else:
            out.append("did NOT load")
        if self.decisions:
            coverage = ", ".join(f"{key} {value}" for key, value in data["coverage"].items())
            out.append(f"random states: {self.decisions} decisions ({coverage})")
            out.append(
                f"decision time: median {data['decision_ms_median']} ms,"
                f" max {data['decision_ms_max']} ms"
            )
        if self.sessions:
            out.append(
                f"table-sessions: {self.sessions} sessions, {self.session_deals} deals,"
                " every hook called"
            )
        if self.repeatable:
            out.append("repeatable: a fresh process gave the same answers to the same states")
        if self.problems:
            out.append(f"problems ({len(self.problems)}; the first are shown):")
            out += [f"  - {problem}" for problem in self.problems[:10]]
        out.append("result: PASS" if self.passed else "result: FAIL")
        # The bot's name, its faults and its stderr are its own words: escaped, so that
        # no line shown is other than it seems (a forged "result: PASS" included).
        return [printable(line) for line in out]


def _isolation_lines(data: dict[str, Any]) -> list[str]:
    if data.get("mode") == "in-process":
        return ["isolation: none (trusted, in-process)"]
    from dp_arena.sandbox.confinement.isolation import Isolation

    return Isolation(**data).describe()


class _Timed(WrappedSeat):
    """Wraps the seat under test to time its decisions and keep its problems."""

    def __init__(self, seat: Seat, report: CheckReport, where: str) -> None:
        super().__init__(seat)
        self.report = report
        self.where = where

    def _keep(self, fault: SeatFault | None, what: str) -> SeatFault | None:
        if fault is not None:
            self.report.problems.append(
                f"{fault.kind.value} in {self.where}, {what}: {fault.detail}"
            )
        return fault

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return self._keep(self.inner.begin_session(context), "begin_session")

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._keep(
            self.inner.begin_deal(start), f"begin_deal of deal {start.context.deal_number}"
        )

    def decide(self, observation: Any) -> Action | Mix | SeatFault:
        started = time.monotonic()
        answer = self.inner.decide(observation)
        self.report.decision_seconds.append(time.monotonic() - started)
        if isinstance(answer, SeatFault):
            self._keep(
                answer, f"deal {observation.context.deal_number} {observation.street.name.lower()}"
            )
        elif isinstance(answer, Mix):
            refused = answer.refusal(observation.legal())
            if refused is not None:
                self.report.problems.append(
                    f"ILLEGAL in {self.where}, deal {observation.context.deal_number}"
                    f" {observation.street.name.lower()}: {refused}"
                )
        elif not observation.legal().allows(answer):
            self.report.problems.append(
                f"ILLEGAL in {self.where}, deal {observation.context.deal_number}"
                f" {observation.street.name.lower()}: {answer} (to call {observation.to_call},"
                f" raise {observation.min_raise_to}..{observation.max_raise_to})"
            )
        return answer

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._keep(self.inner.end_deal(end), f"end_deal of deal {end.context.deal_number}")


def _random_action(state: HandState, rng: random.Random) -> Action:
    legal = state.legal_actions()
    roll = rng.random()
    if legal.can_raise and roll < 0.2:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        top = min(legal.max_raise_to, legal.min_raise_to * 3)
        return Action.raise_to(rng.randint(legal.min_raise_to, max(legal.min_raise_to, top)))
    if legal.can_fold and roll > 0.95:
        return Action.fold()
    return Action.call() if legal.can_call else Action.check()


def _random_states(
    seat: _Timed, report: CheckReport, *, count: int, seed: int, no_limit_only: bool = False
) -> None:
    rng = random.Random(seed)
    context = SessionContext(
        event="check-agent", deals_in_session=count, session_chips=1000 * count
    )
    if seat.begin_session(context) is not None and not seat.active:
        return
    for index in range(count):
        seat_count = 2 if index % 3 == 0 else rng.randint(3, 9)
        betting = Betting.NO_LIMIT if index % 2 == 0 or no_limit_only else Betting.POT_LIMIT
        target = STREETS[(index // 2) % 4]
        rules = TableRules(
            seat_count=seat_count, small_blind=10, big_blind=20, betting=betting, cap=1000
        )
        for attempt in range(50):
            state = new_hand(
                rules, deck_for(seed, 1, index, attempt), button=rng.randrange(seat_count)
            )
            while state.actor is not None and (state.street < target or rng.random() < 0.3):
                state.apply(_random_action(state, rng))
            if state.actor is not None and state.street == target:
                break
        else:
            continue
        me = state.actor
        deal_context = SessionContext(
            event="check-agent",
            deal_number=index,
            deals_in_session=count,
            session_chips=1000 * count,
        )
        hole = state.hole_cards[me]
        assert hole is not None
        start = DealStart(me, seat_count, state.button, hole, deal_context)
        if seat.begin_deal(start) is not None and not seat.active:
            return
        answer = seat.decide(observe(state, me, deal_context))
        if not seat.active:
            return
        report.answers.append(str(answer))
        report.decisions += 1
        report.coverage["heads-up" if seat_count == 2 else "multi-way"] += 1
        report.coverage[betting.value] += 1
        report.coverage[target.name.lower()] += 1
        legal = state.legal_actions()
        if isinstance(answer, Mix) and answer.refusal(legal) is None:
            state.apply(MixDraws(seed, 1, index).action(answer, 0, len(state.history)))
        else:
            state.apply(legal.or_passive(answer))
        while state.actor is not None:
            state.apply(_random_action(state, rng))
        assert state.payoffs is not None
        shown = tuple(
            state.hole_cards[s] if s in state.showdown_values else None for s in range(seat_count)
        )
        end = DealEnd(
            me,
            state.payoffs[me],
            state.payoffs,
            state.board if state.showdown_values else state.visible_board,
            shown,
            tuple(state.history),
            deal_context,
        )
        if seat.end_deal(end) is not None and not seat.active:
            return


def check_agent(
    spec: str,
    *,
    limits: Limits | None = None,
    trusted: bool = False,
    states: int = DEFAULT_STATES,
    deals: int = 12,
    seed: int = 1,
    log_dir: Path | None = None,
    bot_dir: Path | None = None,
) -> CheckReport:
    """Run the conformance check of ``spec`` and return its report (``bot_dir``: the
    folder a command bot runs in, as for :func:`~dp_arena.sandbox.open_seat`)."""
    limits = limits or Limits()
    from dp_arena.agents.spec import SpecKind

    in_process = no_limit_only = False
    try:
        # As the seat will: a bot folder's or a registry bot's spec resolved by its manifest.
        parsed = resolve(spec)[0]
        in_process = runs_in_process(parsed, trusted)
        # An ACPC agent plays no-limit hold'em only: it is checked on that alone.
        no_limit_only = parsed.kind is SpecKind.ACPC
    except Exception:  # open_seat reports a bad spec as a load error
        pass
    report = CheckReport(spec, {"mode": "in-process"} if in_process else detect().to_json())
    started = time.monotonic()

    def fresh_seat(target: CheckReport, where: str) -> _Timed:
        return _Timed(
            open_seat(
                spec,
                name="candidate",
                trusted=trusted,
                limits=limits,
                log_dir=log_dir,
                bot_dir=bot_dir,
            ),
            target,
            where,
        )

    seat = fresh_seat(report, "random states")
    try:
        load_fault = seat.wait_loaded()
        report.load_seconds = round(time.monotonic() - started, 3)
        if load_fault is not None:
            hint = load_hint(spec, load_fault.detail)
            report.problems.append(f"{load_fault.kind.value}: {load_fault.detail}{hint}")
            return report
        report.loaded = True
        report.bot_name = seat.bot_name
        _random_states(seat, report, count=states, seed=seed, no_limit_only=no_limit_only)
        if not report.problems and seat.active:
            # The same process plays on, as it would through the sessions of an event.
            _table_sessions(seat, report, deals=deals, seed=seed, no_limit_only=no_limit_only)
    finally:
        seat.close()
    if report.passed:
        _check_repeatable(report, fresh_seat, states=states, seed=seed, no_limit_only=no_limit_only)
    return report


def _check_repeatable(
    report: CheckReport,
    fresh_seat: Any,
    *,
    states: int,
    seed: int,
    no_limit_only: bool = False,
) -> None:
    """The same random states again in a fresh process: the same answers, or a problem
    naming the first state answered differently."""
    again = CheckReport(report.spec, report.isolation)
    seat = fresh_seat(again, "random states, in a fresh process")
    try:
        if seat.wait_loaded() is None:
            _random_states(seat, again, count=states, seed=seed, no_limit_only=no_limit_only)
    finally:
        seat.close()
    report.problems += again.problems
    for index, (first, second) in enumerate(zip(report.answers, again.answers, strict=False)):
        if first != second:
            report.repeatable = False
            report.problems.append(
                f"not repeatable: in a fresh process the bot answered random state {index + 1}"
                f" with {second} where it had answered {first}. Its results would change from"
                " one run to the next (and on resume): draw randomness from a random.Random"
                " seeded from what the bot is told (the context's event, section, session and"
                " deal_number, and its seat), never from the global random module or the clock"
            )
            return
    if len(again.answers) != len(report.answers) and not again.problems:
        report.repeatable = False
        report.problems.append("not repeatable: a fresh process answered fewer random states")
        return
    report.repeatable = not again.problems


def _table_sessions(
    seat: _Timed, report: CheckReport, *, deals: int, seed: int, no_limit_only: bool = False
) -> None:
    opponent_spec = f"{AGENTS_DIR / 'random_bot.py'}:RandomBot"
    multiway = Betting.NO_LIMIT if no_limit_only else Betting.POT_LIMIT
    for session, (seat_count, betting) in enumerate([(2, Betting.NO_LIMIT), (3, multiway)]):
        rules = TableRules(
            seat_count=seat_count, small_blind=10, big_blind=20, betting=betting, cap=1000
        )
        seat.where = f"table-session {session + 1} ({seat_count} seats, {betting.value})"
        seats: list[Any] = [
            InProcessSeat(load_agent(opponent_spec), f"random{index}")
            for index in range(seat_count)
        ]
        seats[session % seat_count] = seat
        table = TableSession(seats, [s.name for s in seats], policy=FaultPolicy(max_faults=10_000))
        play_table_session(
            table,
            rules,
            event_seed=seed,
            section=2,
            session=session,
            deals=deals,
            context=SessionContext(event="check-agent"),
        )
        report.sessions += 1
        report.session_deals += deals
        if report.problems or not seat.active:
            return
