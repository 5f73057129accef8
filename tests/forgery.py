"""Forging a table-session the careful way, as a dishonest organiser who knows the key
would: every deal's actions rewritten to suit one seat, legal, and the nets recomputed by
the engine, so that every check of the record against the key still holds."""

from __future__ import annotations

from dp_arena.engine import Action, deck_for, new_hand
from dp_arena.engine.cards import format_cards
from dp_arena.engine.deck import deal_cards
from dp_arena.engine.evaluator import evaluate
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.units import TableUnit


def forged_deal(unit: TableUnit, record: DealRecord, favoured: int) -> DealRecord:
    """``record`` played again the way that suits the ``favoured`` seat, knowing every
    card: it bets the most with the winning hand (everyone calls), folds the losing one."""
    deck = deck_for(unit.event_seed, unit.section, unit.session, record.deal)
    state = new_hand(unit.rules, deck, button=record.button, absent=record.absent)
    holes, board = deal_cards(deck, unit.rules.seat_count, record.button)
    ranks = [evaluate(list(hole) + list(board)) for hole in holes]
    wins = ranks[favoured] == min(ranks)
    while state.actor is not None:
        legal = state.legal_actions()
        if state.actor in record.absent:
            action = legal.passive()
        elif state.actor == favoured:
            if not wins:
                action = legal.passive()
            elif legal.can_raise:
                assert legal.max_raise_to is not None
                action = Action.raise_to(legal.max_raise_to)
            else:
                action = Action.call() if legal.can_call else Action.check()
        else:
            action = Action.call() if legal.can_call else Action.check()
        state.apply(action)
    assert state.payoffs is not None
    shown = state.board if state.showdown_values else state.visible_board
    return DealRecord(
        deal=record.deal,
        button=record.button,
        players=record.players,
        hole_cards=record.hole_cards,
        board=format_cards(shown),
        actions=tuple(
            f"{step.seat}:raise {step.raise_to}"
            if step.raise_to is not None
            else f"{step.seat}:{step.kind.value}"
            for step in state.history
        ),
        nets=state.payoffs,
        absent=record.absent,
    )


def forged_session(
    unit: TableUnit, result: TableSessionResult, favoured: int
) -> TableSessionResult:
    """``result`` with every deal played again the way that suits seat ``favoured``."""
    return TableSessionResult(
        table=result.table,
        players=result.players,
        deals=tuple(forged_deal(unit, record, favoured) for record in result.deals),
        faults=result.faults,
        absent_seats=result.absent_seats,
    )
