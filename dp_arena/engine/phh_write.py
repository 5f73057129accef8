"""Writing finished hands as PHH hand histories: one hand (``.phh``) or a table-session (``.phhs``).

PHH is the TOML-based Poker Hand History format of PokerKit (https://phh.readthedocs.io).
Conventions (``docs/phh.md`` has the whole list):

- variant ``NT`` for both betting structures: a pot-limit deal is also a legal no-limit
  history; ``_betting`` and ``_cap`` tell dp-arena's reader which rules to apply.
- players in PHH order: ``p1`` is the seat left of the button, the last player is the
  button. Heads-up, ``p1`` is the big blind and ``p2`` the button: PHH reverses the
  blinds heads-up, so ``blinds_or_straddles = [SB, BB]`` makes ``p1`` post the big blind.
- ``starting_stacks`` are what each player had available for the deal (the smaller of
  its stack and the cap), so a capped deal replays exactly in any no-limit engine.
- at a showdown every player still in the hand shows (``pK sm``), right after the last
  betting action, before any board dealt without betting (PokerKit's order).
- every per-player array, the ``_``-prefixed user fields included, is in PHH order.
- an action the dealer drew from a bot's mixed strategy carries the mix as a PHH
  commentary, which readers skip: ``"p2 cc # mix: fold 0.25, call 0.75"``.

>>> from dp_arena.engine import Action, HandState, TableRules, parse_cards
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20)
>>> state = HandState(rules, button=0, stacks=(1000, 1500),
...                   hole_cards=(parse_cards("AsAh"), parse_cards("Kd7c")),
...                   board=parse_cards("2c7d9hJsQs"))
>>> _ = state.apply(Action.fold())
>>> print(write_hand(state, HandMeta(players=("alice", "bob"))))
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [10, 20]
min_bet = 20
starting_stacks = [1000, 1000]
actions = ["d dh p1 Kd7c", "d dh p2 AsAh", "p2 f"]
seat_count = 2
seats = [2, 1]
players = ["bob", "alice"]
finishing_stacks = [1010, 990]
_betting = "no-limit"
_cap = 1000
_seats = [1, 0]
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from dp_arena.engine.actions import ActionKind, ActionRecord, Street
from dp_arena.engine.cards import format_cards
from dp_arena.engine.state import HandState

__all__ = ["HandMeta", "SessionHistory", "player_seats", "write_hand", "write_session"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class HandMeta:
    """What a hand history says about a deal besides the play itself.

    Per-seat tuples are in *our* seat order (seat 0 first); the writer puts them in PHH
    player order. ``session_chips_before`` is each seat's session total (starting stack,
    carryover and session net) before the deal; the total after it is written too.
    Fields left ``None`` (or an empty ``event``) are not written.
    """

    event: str = ""
    section: int | None = None
    session: int | None = None
    table: int | None = None
    deal: int | None = None
    players: tuple[str, ...] | None = None
    session_chips_before: tuple[int, ...] | None = None


def player_seats(button: int, seat_count: int) -> tuple[int, ...]:
    """Our seat of each PHH player: ``p1`` sits left of the button, the last is the button.

    >>> player_seats(button=2, seat_count=4)
    (3, 0, 1, 2)
    >>> player_seats(button=0, seat_count=2)  # heads-up: p1 is the big blind
    (1, 0)
    """
    return tuple((button + 1 + offset) % seat_count for offset in range(seat_count))


def write_hand(
    state: HandState, meta: HandMeta = HandMeta(), mixes: Sequence[tuple[int, str]] = ()
) -> str:
    """The PHH text of a finished hand; ``mixes`` are the decisions drawn from a mix (the
    index of the action in the hand's history, the mix's text), written as commentaries."""
    if state.payoffs is None:
        raise ValueError("write_hand: the hand is not over")
    rules = state.rules
    seat_count = rules.seat_count
    seats = player_seats(state.button, seat_count)
    player_of_seat = {seat: index + 1 for index, seat in enumerate(seats)}
    cap = rules.cap
    available = [stack if cap is None else min(stack, cap) for stack in state.starting_stacks]
    starting = [available[seat] for seat in seats]
    finishing = [available[seat] + state.payoffs[seat] for seat in seats]
    blinds = [rules.small_blind, rules.big_blind] + [0] * (seat_count - 2)

    # Each field as its TOML text, rendered by its type (a hand history has thousands).
    lines = [
        'variant = "NT"\n',
        f"antes = {_ints([0] * seat_count)}\n",
        f"blinds_or_straddles = {_ints(blinds)}\n",
        f"min_bet = {rules.big_blind}\n",
        f"starting_stacks = {_ints(starting)}\n",
        f"actions = {_actions_text(_actions(state, seats, player_of_seat, dict(mixes)))}\n",
    ]
    if meta.event:
        lines.append(f"event = {_toml_string(meta.event)}\n")
    lines.append(f"seat_count = {seat_count}\n")
    lines.append(f"seats = {_ints([seat + 1 for seat in seats])}\n")
    if meta.players is not None:
        names = _checked(meta.players, seat_count, "players")
        lines.append(f"players = {_strings([names[seat] for seat in seats])}\n")
    lines.append(f"finishing_stacks = {_ints(finishing)}\n")
    lines.append(f"_betting = {_toml_string(rules.betting.value)}\n")
    if cap is not None:
        lines.append(f"_cap = {cap}\n")
    for name in ("section", "session", "table", "deal"):
        value = getattr(meta, name)
        if value is not None:
            lines.append(f"_{name} = {_toml_int(value)}\n")
    lines.append(f"_seats = {_ints(seats)}\n")
    absent = [seat for seat in range(seat_count) if state.absent[seat]]
    if absent:
        lines.append(f"_absent_seats = {_ints(absent)}\n")
    if meta.session_chips_before is not None:
        before = _checked(meta.session_chips_before, seat_count, "session_chips_before")
        lines.append(f"_session_chips_before = {_ints([before[seat] for seat in seats])}\n")
        lines.append(
            "_session_chips_after = "
            f"{_ints([before[seat] + state.payoffs[seat] for seat in seats])}\n"
        )
    return "".join(lines)


def write_session(
    hands: Iterable[tuple[HandState, HandMeta]],
    mixes: Mapping[int, Sequence[tuple[int, str]]] | None = None,
) -> str:
    """The PHHS text (several hands in one file) of a sequence of finished hands: each
    hand is a TOML table named by its position from 1, as PokerKit writes them.
    ``mixes[deal]``: the deal's decisions drawn from a mix (see :func:`write_hand`)."""
    mixes = mixes or {}
    return "\n".join(
        f"[{number}]\n{write_hand(state, meta, mixes.get(meta.deal or 0, ()))}"
        for number, (state, meta) in enumerate(hands, 1)
    )


class SessionHistory:
    """Collects the hands of one table-session and writes them as one ``.phhs`` text.

    Pass :meth:`record` as ``on_deal`` to :func:`~dp_arena.agents.play_table_session`.
    ``starting_chips`` (per seat) turns on the session totals before and after each deal.
    """

    def __init__(
        self,
        *,
        event: str = "",
        section: int | None = None,
        session: int | None = None,
        table: int | None = None,
        players: Sequence[str] | None = None,
        starting_chips: Sequence[int] | None = None,
    ) -> None:
        self.base = HandMeta(
            event=event,
            section=section,
            session=session,
            table=table,
            players=None if players is None else tuple(players),
        )
        self.session_chips = None if starting_chips is None else list(starting_chips)
        self.hands: list[tuple[HandState, HandMeta]] = []
        self.mixes: dict[int, tuple[tuple[int, str], ...]] = {}

    def record(self, deal: int, state: HandState) -> None:
        """Keep a finished hand (the ``on_deal`` callback of a table-session)."""
        if state.payoffs is None:
            raise ValueError("SessionHistory.record: the hand is not over")
        before = None if self.session_chips is None else tuple(self.session_chips)
        self.hands.append((state, _replace_meta(self.base, deal, before)))
        if self.session_chips is not None:
            for seat, payoff in enumerate(state.payoffs):
                self.session_chips[seat] += payoff

    def note_mixes(self, deal: int, mixes: Sequence[tuple[int, str]]) -> None:
        """The decisions of ``deal`` that were drawn from a mix (a deal record's
        ``mixes``), written as commentaries beside the actions drawn."""
        if mixes:
            self.mixes[deal] = tuple(mixes)

    def text(self) -> str:
        return write_session(self.hands, self.mixes)


def _replace_meta(base: HandMeta, deal: int, before: tuple[int, ...] | None) -> HandMeta:
    return HandMeta(base.event, base.section, base.session, base.table, deal, base.players, before)


def _checked(values: Sequence[_T], seat_count: int, name: str) -> Sequence[_T]:
    if len(values) != seat_count:
        raise ValueError(
            f"HandMeta.{name} needs one entry per seat ({seat_count}), not {len(values)}"
        )
    return values


def _actions(
    state: HandState,
    seats: Sequence[int],
    player_of_seat: dict[int, int],
    mixes: Mapping[int, str],
) -> list[str]:
    actions = [
        f"d dh p{number} {_hole_text(state.hole_cards[seat])}"
        for number, seat in enumerate(seats, 1)
    ]
    board = state.board
    dealt = 0

    def deal_to(board_size: int) -> None:
        nonlocal dealt
        while dealt < board_size:
            street_size = 3 if dealt == 0 else 1
            actions.append(f"d db {format_cards(board[dealt : dealt + street_size])}")
            dealt += street_size

    for decision, record in enumerate(state.history):
        deal_to(record.street.board_size)
        action = f"p{player_of_seat[record.seat]} {_action_text(record)}"
        mix = mixes.get(decision)
        actions.append(action if mix is None else f"{action} # mix: {mix}")
    if state.showdown_values:
        # PokerKit's order: the players show as soon as the betting is over, then any
        # board that is dealt without betting (all-in) follows.
        for number, seat in enumerate(seats, 1):
            if not state.folded[seat]:
                actions.append(f"p{number} sm {_hole_text(state.hole_cards[seat])}")
        deal_to(Street.RIVER.board_size)
    return actions


def _action_text(record: ActionRecord) -> str:
    kind = record.kind
    if kind is ActionKind.FOLD:
        return "f"
    if kind is ActionKind.RAISE:
        return f"cbr {record.raise_to}"
    return "cc"  # PHH writes checks and calls alike


def _hole_text(hole: tuple[int, int] | None) -> str:
    return "????" if hole is None else format_cards(hole)


def _toml_int(value: int) -> str:
    return str(value) if type(value) is int else _toml_value(value)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _ints(values: Iterable[int]) -> str:
    return "[" + ", ".join(map(_toml_int, values)) + "]"


def _strings(values: Iterable[str]) -> str:
    return "[" + ", ".join(map(_toml_string, values)) + "]"


def _actions_text(actions: Sequence[str]) -> str:
    """The actions array: plain strings, but for a mix's commentary, which is escaped
    like any text (a mix's text is made by the dealer, but a string is a string)."""
    if any("#" in action for action in actions):
        return _strings(actions)
    return _plain_strings(actions)


def _plain_strings(values: Sequence[str]) -> str:
    """``_strings`` of strings that need no escaping: the actions, which the writer
    makes of cards, numbers and PHH's own letters."""
    return '["' + '", "'.join(values) + '"]' if values else "[]"


_TOML_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


# What a TOML basic string must escape: a quote, a backslash, control characters and DEL.
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')


def _toml_string(text: str) -> str:
    """A TOML basic string; control characters (DEL included) are escaped as TOML requires."""
    if _NEEDS_ESCAPE.search(text) is None:  # nearly every string: actions, names
        return f'"{text}"'
    parts = []
    for character in text:
        escaped = _TOML_ESCAPES.get(character)
        if escaped is None and (ord(character) < 0x20 or ord(character) == 0x7F):
            escaped = f"\\u{ord(character):04x}"
        parts.append(escaped or character)
    return '"' + "".join(parts) + '"'
