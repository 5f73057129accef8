"""Reading PHH hand histories (``.phh``, and ``.phhs`` files of many hands) and replaying
them through the engine.

A history is replayed under dp-arena's rules (``docs/rules.md``): variant ``NT`` with
two blinds and no antes or straddles, ``_betting = "pot-limit"`` and ``_cap`` honoured
when present. Player ``pK`` sits at seat ``K-1`` and the last player holds the button,
so heads-up ``p2`` is the button and posts the small blind (PHH's reversed blinds).

Histories of other tools replay too: comments (``# ...``) and no-op actions are skipped,
unknown cards (``??``) are accepted wherever the result does not depend on them, and
``pK sm`` may come before the rest of an all-in board is dealt (PokerKit does that). A
player who mucks at a showdown (``pK sm`` without cards) gives up the pot. Anything the
engine does not support, and any illegal action, raises
:class:`~dp_arena.errors.HandHistoryError` naming the file, the action's index in the
``actions`` array (from 0) and its text.

>>> text = '''
... variant = "NT"
... antes = [0, 0]
... blinds_or_straddles = [10, 20]
... min_bet = 20
... starting_stacks = [1000, 1000]
... actions = ["d dh p1 AsAh", "d dh p2 Kd7c", "p2 cbr 60", "p1 cc", "d db 2c7d9h",
...            "p1 cbr 80", "p2 f"]
... '''
>>> [result.finishing_stacks for result in replay_text(text)]
[(1060, 940)]
>>> replay_text(text.replace("p1 cc", "p1 cbr 70"), file="x.phh")
Traceback (most recent call last):
...
dp_arena.errors.HandHistoryError: x.phh: action 3 'p1 cbr 70': illegal action (raise_below_min)...
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from dp_arena.engine import showdown
from dp_arena.engine.actions import Action, Street
from dp_arena.engine.phh_parse import MAX_AMOUNT, HandCards, Step, parse_actions, whole_amount
from dp_arena.engine.rules import Betting, TableRules
from dp_arena.engine.state import HandState
from dp_arena.errors import ConfigError, HandHistoryError, IllegalActionError

__all__ = [
    "MAX_FILE_BYTES",
    "PhhHand",
    "ReplayResult",
    "load_histories",
    "read_text",
    "replay_file",
    "replay_hand",
    "replay_text",
]

# The largest history file read: a table-session of the most deals a session may have
# takes about 10 MB.
MAX_FILE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PhhHand:
    """One hand's fields as read from a PHH text; ``hand`` is its table name in a
    ``.phhs`` file (``None`` in a single-hand ``.phh``)."""

    file: str | None
    hand: str | None
    fields: Mapping[str, Any] = field(repr=False)

    @property
    def where(self) -> str:
        name = self.file or "<hand history>"
        return name if self.hand is None else f"{name}[{self.hand}]"


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """A replayed hand. Every per-player tuple is in PHH player order (``p1`` first)."""

    file: str | None
    hand: str | None
    starting_stacks: tuple[int, ...]
    finishing_stacks: tuple[int, ...]
    recorded_finishing_stacks: tuple[Decimal, ...] | None  # as the file gives them, if it does
    state: HandState = field(repr=False, compare=False)

    @property
    def nets(self) -> tuple[int, ...]:
        return tuple(
            end - start
            for start, end in zip(self.starting_stacks, self.finishing_stacks, strict=True)
        )

    def matches_recorded(self) -> bool | None:
        """Whether the file's ``finishing_stacks`` agree with ours (``None`` if it has none).
        A fractional record (another tool's half chip of a split pot) agrees when it is
        within one chip of ours; a whole number must be equal."""
        recorded = self.recorded_finishing_stacks
        if recorded is None:
            return None
        return all(
            value == ours if value == value.to_integral_value() else abs(value - ours) < 1
            for value, ours in zip(recorded, self.finishing_stacks, strict=True)
        )


def load_histories(text: str, *, file: str | None = None) -> list[PhhHand]:
    """The hands of a PHH text: one for a ``.phh``, one per TOML table for a ``.phhs``."""
    try:
        document = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as error:
        raise HandHistoryError(f"not valid TOML: {error}", file=file) from None
    except ValueError:  # tomllib converts integers with int(), which refuses huge ones
        raise HandHistoryError(
            "not valid TOML: an integer of more than 4300 digits", file=file
        ) from None
    except RecursionError:
        raise HandHistoryError(
            "not a hand history: its TOML is nested too deeply", file=file
        ) from None
    if "actions" in document or "variant" in document:
        return [PhhHand(file, None, document)]
    hands = [
        PhhHand(file, key, value) for key, value in document.items() if isinstance(value, dict)
    ]
    if not hands or len(hands) != len(document):
        raise HandHistoryError(
            "neither a PHH hand (no 'variant' or 'actions') nor a PHHS file of hands", file=file
        )
    return hands


def replay_text(text: str, *, file: str | None = None) -> list[ReplayResult]:
    """Replay every hand of a PHH or PHHS text; the first bad hand raises."""
    return [replay_hand(hand) for hand in load_histories(text, file=file)]


def replay_file(path: str | Path) -> list[ReplayResult]:
    """Replay every hand of a ``.phh`` or ``.phhs`` file; the first bad hand raises."""
    return replay_text(read_text(path), file=str(path))


def read_text(path: str | Path) -> str:
    """The text of a history file; :class:`HandHistoryError` when it cannot be read, is
    not UTF-8, or is larger than :data:`MAX_FILE_BYTES`."""
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise HandHistoryError(
            f"cannot read the file: {error.strerror or error}", file=str(path)
        ) from None
    if len(raw) > MAX_FILE_BYTES:
        raise HandHistoryError(
            f"not a hand history: larger than {MAX_FILE_BYTES // 2**20} MiB", file=str(path)
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HandHistoryError(
            f"not a hand history: not UTF-8 text (byte {error.start})", file=str(path)
        ) from None


def replay_hand(hand: PhhHand) -> ReplayResult:
    """Replay one hand through the engine and return its finishing stacks."""
    where = hand.where
    rules, stacks = _table(hand.fields, where)
    steps = parse_actions(hand.fields["actions"], where, rules.seat_count)
    cards = HandCards.scan(steps, where, rules.seat_count)
    state = HandState(
        rules,
        button=rules.seat_count - 1,  # the last PHH player holds the button
        stacks=stacks,
        hole_cards=cards.hole_cards,
        board=cards.board,
    )
    _play(state, steps, where, cards)
    return ReplayResult(
        file=hand.file,
        hand=hand.hand,
        starting_stacks=tuple(stacks),
        finishing_stacks=state.final_stacks,
        recorded_finishing_stacks=_recorded(hand.fields, where, rules.seat_count),
        state=state,
    )


# -- the table ------------------------------------------------------------------------


def _table(fields: Mapping[str, Any], where: str) -> tuple[TableRules, list[int]]:
    for name in (
        "variant",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "starting_stacks",
        "actions",
    ):
        if name not in fields:
            raise HandHistoryError(f"the required field {name!r} is missing", file=where)
    variant = fields["variant"]
    if variant != "NT":
        raise HandHistoryError(
            f"variant {_shown(variant)} is not supported: dp-arena replays no-limit and pot-limit"
            " Texas hold'em, variant 'NT'",
            file=where,
        )
    stacks = _whole_numbers(fields["starting_stacks"], "starting_stacks", where)
    player_count = len(stacks)
    if not 2 <= player_count <= 10:
        raise HandHistoryError(
            f"a table has 2 to 10 players, this hand has {player_count}", file=where
        )
    if any(stack <= 0 for stack in stacks):
        raise HandHistoryError(f"starting_stacks must be positive, not {stacks}", file=where)
    antes = _whole_numbers(fields["antes"], "antes", where, player_count)
    if any(antes):
        raise HandHistoryError(f"antes are not supported (antes = {antes})", file=where)
    blinds = _whole_numbers(
        fields["blinds_or_straddles"], "blinds_or_straddles", where, player_count
    )
    if any(blinds[2:]):
        raise HandHistoryError(
            f"straddles are not supported (blinds_or_straddles = {blinds})", file=where
        )
    small_blind, big_blind = blinds[0], blinds[1]
    if not 0 < small_blind <= big_blind:
        raise HandHistoryError(
            "blinds_or_straddles must start with a small blind and a big blind,"
            f" 0 < SB <= BB, not {blinds}",
            file=where,
        )
    min_bet = _whole_number(fields["min_bet"], "min_bet", where)
    if min_bet != big_blind:
        raise HandHistoryError(
            f"min_bet {min_bet} differs from the big blind {big_blind}:"
            " the engine's minimum bet is the big blind",
            file=where,
        )
    betting_text = fields.get("_betting", Betting.NO_LIMIT.value)
    try:
        betting = Betting(betting_text)
    except ValueError:
        raise HandHistoryError(
            f"_betting must be one of {[b.value for b in Betting]}, not {_shown(betting_text)}",
            file=where,
        ) from None
    cap = fields.get("_cap")
    if cap is not None:
        cap = _whole_number(cap, "_cap", where)
    try:
        rules = TableRules(player_count, small_blind, big_blind, betting, cap)
    except ConfigError as error:
        raise HandHistoryError(str(error), file=where) from None
    return rules, stacks


def _whole_number(value: Any, name: str, where: str) -> int:
    chips = None
    if isinstance(value, int) and not isinstance(value, bool):
        chips = value if abs(value) <= MAX_AMOUNT else None
    elif isinstance(value, Decimal):
        chips = whole_amount(value)
    if chips is None:
        raise HandHistoryError(
            f"{name} must be a whole number of chips up to 10**18, not {_shown(value)}",
            file=where,
        )
    return chips


def _shown(value: Any) -> str:
    """A refused value as an error shows it: never thousands of digits or items."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = str(value) if isinstance(value, Decimal) else repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({type(value).__name__})"


def _whole_numbers(value: Any, name: str, where: str, length: int | None = None) -> list[int]:
    if not isinstance(value, list):
        raise HandHistoryError(f"{name} must be an array, not {_shown(value)}", file=where)
    if length is not None and len(value) != length:
        raise HandHistoryError(
            f"{name} must have one entry per player ({length}), not {len(value)}", file=where
        )
    return [_whole_number(item, f"{name}[{index}]", where) for index, item in enumerate(value)]


def _recorded(
    fields: Mapping[str, Any], where: str, player_count: int
) -> tuple[Decimal, ...] | None:
    recorded = fields.get("finishing_stacks")
    if recorded is None:
        return None
    if (
        not isinstance(recorded, list)
        or len(recorded) != player_count
        or not all(_a_stack(value) for value in recorded)
    ):
        raise HandHistoryError(
            f"finishing_stacks must be {player_count} numbers up to 10**18, not {_shown(recorded)}",
            file=where,
        )
    return tuple(Decimal(value) for value in recorded)


def _a_stack(value: Any) -> bool:
    """Whether ``value`` is a recorded stack: a number (another tool's may hold half a
    chip) no larger than :data:`MAX_AMOUNT`."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return False
    number = Decimal(value)
    # adjusted() first: arithmetic on an exponent past the context's limit raises.
    return (
        number.is_finite()
        and (not number or number.adjusted() <= 18)
        and (abs(number) <= MAX_AMOUNT)
    )


# -- the play ---------------------------------------------------------------------------


def _play(state: HandState, steps: Sequence[Step], where: str, cards: HandCards) -> None:
    """Apply every action to ``state``, checking the order of dealing, betting and showing."""
    board_dealt = 0
    mucked: set[int] = set()
    for step in steps:
        verb = step.verb
        if not verb:
            continue
        player = step.player
        if verb == "dh":
            if state.history:
                raise step.error("hole cards are dealt after the betting began", where)
        elif verb == "db":
            assert step.cards is not None
            board_dealt += len(step.cards)
            if state.is_complete and not state.showdown_values:
                raise step.error("board cards are dealt after the hand was won by a fold", where)
            if board_dealt > state.street.board_size:
                raise step.error(
                    f"board cards are dealt before the {state.street.name.lower()} betting is over",
                    where,
                )
        elif verb in ("f", "cc", "cbr"):
            assert player is not None
            if state.actor is None:
                raise step.error("the betting is over: no one is to act", where)
            if player != state.actor:
                raise step.error(f"it is p{state.actor + 1}'s turn, not p{player + 1}'s", where)
            if board_dealt < state.street.board_size:
                raise step.error(
                    f"p{player + 1} acts before the {state.street.name.lower()} is dealt", where
                )
            try:
                state.apply(_engine_action(state, step))
            except IllegalActionError as error:
                raise step.error(f"illegal action ({error.reason}): {error}", where) from None
        else:  # "sm" or "muck"
            assert player is not None
            if state.actor is not None:
                raise step.error("hole cards are shown before the betting is over", where)
            if state.folded[player]:
                raise step.error(f"p{player + 1} has folded and has nothing to show", where)
            if verb == "muck":
                mucked.add(player)
    if state.actor is not None:
        raise HandHistoryError(
            f"the history ends before the hand is over: p{state.actor + 1} is to act", file=where
        )
    _settle_showdown(state, mucked, where, cards, board_dealt)


def _engine_action(state: HandState, step: Step) -> Action:
    if step.verb == "f":
        return Action.fold()
    if step.verb == "cc":
        return Action.check() if state.legal_actions().can_check else Action.call()
    assert step.amount is not None
    return Action.raise_to(step.amount)


def _settle_showdown(
    state: HandState, mucked: set[int], where: str, cards: HandCards, board_dealt: int
) -> None:
    """Take mucked hands out of the showdown, and refuse a showdown that needs unknown cards."""
    if not state.showdown_values:
        return  # the hand ended when all but one folded
    contenders = [player for player in state.showdown_values if player not in mucked]
    if not contenders:
        raise HandHistoryError(
            "every player at the showdown mucks: no one can win the pot", file=where
        )
    if mucked:
        # A mucked hand gives up its claim (PHH 'sm' without cards), like a fold.
        for player in mucked:
            state.folded[player] = True
        showdown.settle(state)
    if len(contenders) == 1:
        return
    if board_dealt < Street.RIVER.board_size or cards.board_known < Street.RIVER.board_size:
        raise HandHistoryError(
            "the showdown needs the whole board, but the history gives"
            f" {min(board_dealt, cards.board_known)} known board cards",
            file=where,
        )
    unknown = [f"p{player + 1}" for player in sorted(contenders) if not cards.hole_known[player]]
    if unknown:
        raise HandHistoryError(
            f"the showdown needs the hole cards of {', '.join(unknown)},"
            " which the history does not give",
            file=where,
        )
