"""Hostile: reads what its copies at the mirrored tables saw, through a wire the tests
lay in its folder (``.wire/``, one JSON file a seat a copy sat at: that seat's hole cards
and the board as far as it was dealt there). At a later mirrored table the same seat
holds the same cards, so a copy that finds its opponents' seats on the wire knows their
hands: it bets the most when it beats every hand it knows and folds otherwise. With
nothing on the wire it calls everything down."""

from __future__ import annotations

import json
import os

from dp_arena.engine import Action, ActionKind
from dp_arena.engine.cards import parse_cards
from dp_arena.engine.evaluator import evaluate

WIRE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".wire")


class Wired:
    def begin_session(self, context):
        self.where = (context.session, context.section, context.table)

    def begin_deal(self, start):
        session, section, table = self.where
        self.seat = start.seat
        self.holes, self.board = {}, ()
        if not os.path.isdir(WIRE):
            return
        for name in sorted(os.listdir(WIRE)):
            with open(os.path.join(WIRE, name)) as file:
                seen = json.load(file)
            if (seen["session"], seen["section"], seen["deal"]) != (
                session,
                section,
                start.context.deal_number,
            ) or seen["table"] == table:
                continue
            self.holes[seen["seat"]] = parse_cards(seen["hole"])
            board = parse_cards(seen["board"])
            if len(board) > len(self.board):
                self.board = board

    def act(self, observation):
        legal = observation.legal_actions
        known = [
            self.holes[seat]
            for seat in range(observation.seat_count)
            if seat in self.holes and seat != self.seat and not observation.folded[seat]
        ]
        if not known:
            return Action.call() if ActionKind.CALL in legal else Action.check()
        board = max(self.board, tuple(observation.board), key=len)
        if len(board) >= 3:
            mine = evaluate(list(observation.hole_cards) + list(board))
            wins = all(mine < evaluate(list(hole) + list(board)) for hole in known)
        else:  # before the flop: the higher top card
            wins = all(max(observation.hole_cards) > max(hole) for hole in known)
        if wins and ActionKind.RAISE in legal:
            return Action.raise_to(observation.max_raise_to)
        if wins:
            return Action.call() if ActionKind.CALL in legal else Action.check()
        return Action.check() if ActionKind.CHECK in legal else Action.fold()
