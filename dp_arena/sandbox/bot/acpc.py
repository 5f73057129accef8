"""The ACPC dealer protocol, mapped onto a dp-arena table: what an ACPC agent is told and
how its replies become actions. The shim that serves it lives in
:mod:`dp_arena.sandbox.bot.acpc_shim`; ``docs/protocol.md`` documents the mapping.

An ACPC agent (the Annual Computer Poker Competition's protocol, version 2.0.0) takes a
game definition file, a host and a port, connects, says ``VERSION:2.0.0``, and is sent a
``MATCHSTATE`` line for every state of every hand; when it is the one to act it replies
with the same line followed by ``:`` and its action.

**The game definition** of a table (:meth:`Game.definition`): ``nolimit``, the table's
players, ``numRounds = 4``, every player's ``stack`` the cap (each deal of a duplicate
format starts at the cap), and by position (ACPC numbers players from the seat after the
button, the button last): heads-up ``blind = BB SB`` and ``firstPlayer = 2 1 1 1`` (the
button posts the small blind and acts first before the flop, last after it); three or
more players ``blind = SB BB 0 ...`` and ``firstPlayer = 3 1 1 1``.

**A match state** is ``MATCHSTATE:<position>:<hand>:<betting>:<cards>``:

- ``position``: ``(seat - button - 1) mod players``; ``hand``: the deal's number;
- ``betting``: each round's actions, the rounds joined by ``/``, a round shown from the
  moment its cards are dealt: ``f`` a fold, ``c`` a check or a call, ``r<N>`` a bet or
  raise *to* ``N`` chips in the whole hand (blinds and earlier rounds included). Blinds
  are not actions. When at most one player can still bet, the hand goes straight to the
  last round (``r1000c///``);
- ``cards``: every position's hole cards joined by ``|`` (the agent's own, and at the end
  of a hand those shown at the showdown; empty otherwise), then each dealt round's board
  cards after a ``/``: ``AsKd|/2c8c3h/9c/Kh``.

**A reply** ``<the state sent>:<action>``: ``f`` folds, ``c`` (or ``k``) calls, or checks
when nothing is owed, ``r<N>`` (or ``b<N>``) raises to ``N`` chips in the hand, which is
the street total ``N`` minus what the agent put in before this street. A reply that is not
one of these, or to another state, is a ``PROTOCOL`` fault; a raise the rules refuse is
``ILLEGAL``, like any bot's.

>>> game = Game(players=2, small_blind=50, big_blind=100, stack=20000)
>>> print(game.definition(), end="")
GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
>>> hand = Hand(game, seat=0, button=1, hole="9s8h", number=30)
>>> history = [("call", 1, 50, None), ("check", 0, 0, None)]
>>> hand.state([_record(*item, "preflop") for item in history], "8c8d5c", next_round=1)
'MATCHSTATE:0:30:cc/:9s8h|/8c8d5c'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ROUNDS",
    "Game",
    "Hand",
    "Reply",
    "Unplayable",
    "game_of",
    "parse_reply",
    "position",
]

ROUNDS = ("preflop", "flop", "turn", "river")
BOARD_AT = (0, 3, 4, 5)  # board cards dealt by each round
VERSION = re.compile(r"^VERSION:2\.\d+\.\d+$")


class Unplayable(ValueError):
    """A table an ACPC agent cannot play (pot-limit, or no cap)."""


@dataclass(frozen=True, slots=True)
class Game:
    """What an ACPC game definition says of a table."""

    players: int
    small_blind: int
    big_blind: int
    stack: int

    def blinds(self) -> list[int]:
        """Each position's blind (position 0 is the seat after the button)."""
        if self.players == 2:
            return [self.big_blind, self.small_blind]
        return [self.small_blind, self.big_blind] + [0] * (self.players - 2)

    def definition(self) -> str:
        first = 2 if self.players == 2 else 3
        return "\n".join(
            [
                "GAMEDEF",
                "nolimit",
                f"numPlayers = {self.players}",
                "numRounds = 4",
                "stack = " + " ".join([str(self.stack)] * self.players),
                "blind = " + " ".join(map(str, self.blinds())),
                f"firstPlayer = {first} 1 1 1",
                "numSuits = 4",
                "numRanks = 13",
                "numHoleCards = 2",
                "numBoardCards = 0 3 1 1",
                "END GAMEDEF",
                "",
            ]
        )


def game_of(observation: Mapping[str, Any]) -> Game:
    """The game of the table an observation (the pipe protocol's JSON) is made at;
    :class:`Unplayable` for one an ACPC agent cannot play."""
    if observation.get("betting") != "no-limit":
        raise Unplayable(
            f"an ACPC agent plays no-limit hold'em only, not {observation.get('betting')}"
        )
    if observation.get("cap") is None:
        raise Unplayable(
            "an ACPC agent plays capped hold'em only: its game definition gives every player"
            " the same stack at every hand"
        )
    return Game(
        int(observation["seat_count"]),
        int(observation["small_blind"]),
        int(observation["big_blind"]),
        int(observation["cap"]),
    )


def position(seat: int, button: int, players: int) -> int:
    """The ACPC position of a seat: 0 after the button, the button last.

    >>> [position(seat, 1, 3) for seat in range(3)]
    [1, 2, 0]
    """
    return (seat - button - 1) % players


@dataclass
class Hand:
    """One deal as an ACPC agent in ``seat`` sees it."""

    game: Game
    seat: int
    button: int
    hole: str  # "AsKd"
    number: int

    def state(
        self,
        history: Sequence[Mapping[str, Any]],
        board: str,
        *,
        next_round: int,
        shown: Sequence[str | None] | None = None,
    ) -> str:
        """The match state after ``history`` (records as the pipe protocol writes them),
        in round ``next_round`` (the round of the next action; the last round when the
        hand went to a showdown), with the board dealt up to it and, at the end of a
        hand, the cards shown (``shown[seat]``)."""
        players = self.game.players
        committed = [0] * players
        small, big = (
            (self.button, (self.button + 1) % players)
            if players == 2
            else ((self.button + 1) % players, (self.button + 2) % players)
        )
        committed[small] += self.game.small_blind
        committed[big] += self.game.big_blind
        rounds: list[list[str]] = [[] for _ in range(next_round + 1)]
        for record in history:
            seat = int(record["seat"])
            committed[seat] += int(record["chips"])
            action = record["action"]
            letter = (
                "f" if action == "fold" else f"r{committed[seat]}" if action == "raise" else "c"
            )
            rounds[ROUNDS.index(record["street"])].append(letter)
        betting = "/".join("".join(actions) for actions in rounds)
        holes = [""] * players
        for seat in range(players):
            cards = self.hole if seat == self.seat else (shown[seat] if shown else None)
            holes[position(seat, self.button, players)] = cards or ""
        sections = [board[2 * BOARD_AT[r - 1] : 2 * BOARD_AT[r]] for r in range(1, next_round + 1)]
        cards = "|".join(holes) + "".join(f"/{section}" for section in sections)
        mine = position(self.seat, self.button, players)
        return f"MATCHSTATE:{mine}:{self.number}:{betting}:{cards}"

    def states(
        self,
        history: Sequence[Mapping[str, Any]],
        board: str,
        *,
        since: int,
        current_round: int,
        shown: Sequence[str | None] | None = None,
    ) -> list[str]:
        """The match states after ``since`` .. ``len(history)`` actions (the first one
        with none: the hand's start), the last in ``current_round``."""
        found = []
        for count in range(since, len(history) + 1):
            if count < len(history):
                next_round = ROUNDS.index(history[count]["street"])
                found.append(self.state(history[:count], board, next_round=next_round))
            else:
                found.append(self.state(history, board, next_round=current_round, shown=shown))
        return found


@dataclass(frozen=True, slots=True)
class Reply:
    """An agent's action: ``fold``, ``call`` (a check when nothing is owed) or ``raise``
    to ``total`` chips in the hand."""

    action: str
    total: int | None = None


_ACTION = re.compile(r"^(?P<kind>[fFcCkKrRbB])(?P<size>\d{1,12})?$")


def parse_reply(line: str, state: str) -> Reply:
    """The action of an agent's reply ``line`` to ``state``; :class:`ValueError` says
    what is wrong with it, in words for the fault."""
    if not line.startswith(state + ":"):
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise ValueError(
            f"the ACPC reply {shown!r} does not answer the state it was sent ({state!r})"
        )
    text = line[len(state) + 1 :]
    found = _ACTION.match(text)
    if found is None:
        raise ValueError(f"the ACPC reply's action {text[:40]!r} is not f, c, k or r<chips>")
    kind = found["kind"].lower()
    if kind == "f":
        return Reply("fold")
    if kind in ("c", "k"):
        return Reply("call")
    if found["size"] is None:
        raise ValueError(
            f"the ACPC reply's raise {text!r} has no size: a no-limit raise is r<chips>,"
            " the chips the agent will have in the hand"
        )
    return Reply("raise", int(found["size"]))


def _record(
    action: str, seat: int, chips: int, raise_to: int | None, street: str
) -> dict[str, Any]:
    """A history record as the pipe protocol writes it (for the examples)."""
    return {"seat": seat, "street": street, "action": action, "chips": chips, "raise_to": raise_to}
