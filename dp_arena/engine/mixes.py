"""Mixed answers: a bot may answer a decision with several actions and their
probabilities (a :class:`Mix`), and the dealer draws the action it plays from a stream
derived from the event key (:func:`draw`).

A mix's probabilities are kept to nine decimal places: each becomes a whole number of
billionths (its **weight**, rounded to the nearest, a half to the even one), entries of
weight 0 are dropped, and the action is drawn with probability weight / total weight,
exactly. The probabilities a bot gives must be numbers from 0 to 1 that add up to 1
within :data:`TOLERANCE`; actions are listed once each. Entries are kept in a canonical
order, the most passive first (fold, check, call, then raises by amount), so the same
distribution is the same mix however it was listed, and its text is always the same:

>>> mix = Mix([(Action.raise_to(120), 0.25), (Action.call(), 0.5), (Action.fold(), 0.25)])
>>> str(mix)
'fold 0.25, call 0.5, raise 120 0.25'
>>> Mix.parse(str(mix)) == mix
True
>>> Mix([(Action.call(), 1 / 3), (Action.fold(), 2 / 3)]).weights
(666666667, 333333333)

**The draw.** The random number of a decision is read from SHAKE-256 of the text
``"dp-arena/mix/v1:{event_seed}:{section}:{session}:{table}:{deal}:{decision}"`` (the
event key as the integer the decks use; ``decision`` counts the deal's actions at that
table from 0, every seat's, so it is the index of the action drawn in the deal's
record). The stream is read as little-endian 64-bit words; the first word ``w`` below
``2**64 - 2**64 % total`` gives ``u = w % total`` (a larger word is skipped: rejection
keeps ``u`` uniform on ``0 .. total - 1``), and the action drawn is the first entry
whose running total of weights exceeds ``u``. The label differs from the deck's, so the
draws tell nothing about the cards and the cards nothing about the draws; no bot sees
the key, so no bot can know a draw before it is made. Anyone with the revealed key can
draw every recorded decision again (``dp-arena verify``).

>>> draw(mix, event_seed=7, section=0, session=0, table=0, deal=0, decision=0)
Action(kind=<ActionKind.RAISE: 'raise'>, amount=120)
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Real

from dp_arena.engine.actions import Action, ActionKind, LegalActions
from dp_arena.engine.state import HandState

__all__ = [
    "MIX_VERSION",
    "TOLERANCE",
    "UNIT",
    "Mix",
    "MixDraws",
    "draw",
    "draw_index",
    "draw_number",
    "draw_numbers",
    "mix_material",
    "mix_prefix",
]

MIX_VERSION = 1
UNIT = 10**9  # a weight is a whole number of billionths
DIGITS = 9
TOLERANCE = 1e-6  # how far from 1 the probabilities a bot gives may add up to
MAX_ENTRIES = 64  # more entries than any decision has sensible actions

_KIND_ORDER = {ActionKind.FOLD: 0, ActionKind.CHECK: 1, ActionKind.CALL: 2, ActionKind.RAISE: 3}


def _order(action: Action) -> tuple[int, int]:
    return _KIND_ORDER[action.kind], action.amount or 0


class Mix:
    """A mixed strategy for one decision: each action with its probability.

    ``Mix(entries)`` takes ``(action, probability)`` pairs (or a mapping of actions to
    probabilities); :class:`ValueError` says what is wrong (a probability that is not a
    number from 0 to 1, probabilities that do not add up to 1 within
    :data:`TOLERANCE`, an action listed twice, something that is not an action, an empty
    mix). Whether each action is legal is the table's to check, at the decision.

    ``actions`` and ``weights`` are the canonical entries (weights in billionths, every
    one positive); a mix is immutable, hashable, and equal to another with the same
    entries."""

    __slots__ = ("actions", "weights")

    actions: tuple[Action, ...]
    weights: tuple[int, ...]

    def __init__(
        self, entries: Iterable[tuple[Action, float | int | Fraction]] | Mapping[Action, float]
    ) -> None:
        pairs = list(entries.items() if isinstance(entries, Mapping) else entries)
        if not pairs:
            raise ValueError("a mix needs at least one action")
        if len(pairs) > MAX_ENTRIES:
            raise ValueError(f"a mix lists at most {MAX_ENTRIES} actions, not {len(pairs)}")
        exact: dict[Action, Fraction] = {}
        for index, pair in enumerate(pairs):
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError(f"entry {index} of a mix is not an (action, probability) pair")
            action, probability = pair
            if type(action) is not Action or not isinstance(action.kind, ActionKind):
                raise ValueError(f"entry {index} of a mix is not an action: {action!r:.60}")
            if action.kind is ActionKind.RAISE:
                if type(action.amount) is not int:
                    raise ValueError(f"a raise in a mix needs an integer amount: {action}")
            elif action.amount is not None:
                raise ValueError(f"{action.kind.value} takes no amount")
            if action in exact:
                raise ValueError(f"{action} is listed twice in the mix")
            exact[action] = _probability(probability, action)
        total = sum(exact.values(), Fraction(0))
        if abs(total - 1) > TOLERANCE:
            raise ValueError(
                f"the probabilities of a mix add up to {float(total):.9g}, not 1"
                f" (within {TOLERANCE:g})"
            )
        kept = sorted(
            ((action, round(value * UNIT)) for action, value in exact.items()),
            key=lambda entry: _order(entry[0]),
        )
        kept = [(action, weight) for action, weight in kept if weight > 0]
        object.__setattr__(self, "actions", tuple(action for action, _ in kept))
        object.__setattr__(self, "weights", tuple(weight for _, weight in kept))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Mix is immutable")

    @classmethod
    def parse(cls, text: str) -> Mix:
        """The mix of its text (``str(mix)``): ``"fold 0.25, call 0.5, raise 120 0.25"``;
        :class:`ValueError` when it is not one."""
        found = _parsed.get(text)
        if found is not None:
            return found
        entries = []
        for part in text.split(","):
            words = part.split()
            try:
                if len(words) == 2 and words[0] in ("fold", "check", "call"):
                    action = Action(ActionKind(words[0]))
                elif len(words) == 3 and words[0] == "raise" and words[1].isdigit():
                    action = Action.raise_to(int(words[1]))
                else:
                    raise ValueError
                probability = Fraction(words[-1])
            except ValueError:
                raise ValueError(f"not a mix: {text[:120]!r}") from None
            entries.append((action, probability))
        mix = cls(entries)
        if len(_parsed) >= _PARSED_KEPT:
            _parsed.clear()
        _parsed[text] = mix
        return mix

    @property
    def total(self) -> int:
        """The sum of the weights (within a millionth of :data:`UNIT`)."""
        return sum(self.weights)

    @property
    def probabilities(self) -> tuple[Fraction, ...]:
        """Each action's exact probability of being drawn: its weight over the total."""
        total = self.total
        return tuple(Fraction(weight, total) for weight in self.weights)

    def probability(self, action: Action) -> Fraction:
        """The exact probability that ``action`` is drawn (0 when it is not listed)."""
        try:
            return Fraction(self.weights[self.actions.index(action)], self.total)
        except ValueError:
            return Fraction(0)

    @property
    def pure(self) -> Action | None:
        """The action when the mix has only one (it is then that action), else ``None``."""
        return self.actions[0] if len(self.actions) == 1 else None

    def refusal(self, legal: LegalActions) -> str | None:
        """Why the rules refuse the mix now (an action in it they refuse), or ``None``."""
        for action in self.actions:
            refused = legal.refusal(action)
            if refused is not None:
                return f"{action} in the mix is not legal: {refused}"
        return None

    def items(self) -> Iterator[tuple[Action, Fraction]]:
        """Each action with its exact probability, in the canonical order."""
        return zip(self.actions, self.probabilities, strict=True)

    def to_json(self) -> list[dict[str, object]]:
        """The entries as the pipe protocol writes them."""
        entries: list[dict[str, object]] = []
        for action, weight in zip(self.actions, self.weights, strict=True):
            entry: dict[str, object] = {"action": action.kind.value}
            if action.amount is not None:
                entry["amount"] = action.amount
            entry["probability"] = float(Fraction(weight, UNIT))
            entries.append(entry)
        return entries

    def __str__(self) -> str:
        return ", ".join(
            f"{action} {_decimal(weight)}"
            for action, weight in zip(self.actions, self.weights, strict=True)
        )

    def __repr__(self) -> str:
        return f"Mix.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mix):
            return NotImplemented
        return self.actions == other.actions and self.weights == other.weights

    def __hash__(self) -> int:
        return hash((self.actions, self.weights))

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Mix.parse, (str(self),))


# The mixes of recent texts: the mirrored tables of a deal, and the records of an event
# read again, ask for the same few texts over and over (a mix is immutable).
_parsed: dict[str, Mix] = {}
_PARSED_KEPT = 1 << 14


def _probability(value: object, action: Action) -> Fraction:
    """A probability as an exact fraction; :class:`ValueError` unless it is a finite
    number from 0 to 1 (``bool`` is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (Real, Decimal)):
        raise ValueError(f"the probability of {action} is not a number: {value!r:.40}")
    try:
        exact = Fraction(value)  # type: ignore[arg-type]  # a Real or a Decimal
    except (ValueError, OverflowError, TypeError):
        raise ValueError(
            f"the probability of {action} is not a finite number: {value!r:.40}"
        ) from None
    if not 0 <= exact <= 1:
        raise ValueError(f"the probability of {action} is {float(exact):g}, not from 0 to 1")
    return exact


def _decimal(weight: int) -> str:
    """A weight in billionths as the shortest decimal: 250000000 is ``0.25``."""
    whole, part = divmod(weight, UNIT)
    if not part:
        return str(whole)
    return f"{whole}.{part:0{DIGITS}d}".rstrip("0")


def mix_prefix(event_seed: int, section: int, session: int, table: int) -> str:
    """The start of the text of every decision of a table-session (:func:`mix_material`
    appends ``"{deal}:{decision}"``)."""
    return f"dp-arena/mix/v{MIX_VERSION}:{event_seed}:{section}:{session}:{table}:"


def mix_material(
    event_seed: int, section: int, session: int, table: int, deal: int, decision: int
) -> bytes:
    """The text whose SHAKE-256 stream draws one decision (see the module)."""
    return f"{mix_prefix(event_seed, section, session, table)}{deal}:{decision}".encode()


def draw_number(total: int, material: bytes) -> int:
    """The number ``u`` (uniform on ``0 .. total - 1``) the stream of ``material`` draws."""
    accept_below = (1 << 64) - (1 << 64) % total
    shake = hashlib.shake_256(material)
    count = 4
    offset = 0
    while True:
        words = struct.unpack(f"<{count}Q", shake.digest(8 * count))[offset:]
        for word in words:
            if word < accept_below:
                return int(word % total)
        offset = count  # astronomically rare: every word so far was rejected
        count *= 2


_WORDS = 1 << 64  # how many 64-bit words there are


def draw_numbers(totals: Iterable[int], materials: Iterable[bytes]) -> list[int]:
    """:func:`draw_number` of each ``(total, material)``, for many decisions at once: only
    the stream's first word is read (the next ones only when it is rejected)."""
    shake = hashlib.shake_256
    numbers = []
    for total, material in zip(totals, materials, strict=True):
        word = int.from_bytes(shake(material).digest(8), "little")
        if word < _WORDS - _WORDS % total:
            numbers.append(word % total)
        else:  # astronomically rare
            numbers.append(draw_number(total, material))
    return numbers


def draw_index(weights: tuple[int, ...], material: bytes) -> int:
    """The index of the entry drawn from ``weights`` by the stream of ``material``."""
    u = draw_number(sum(weights), material)
    running = 0
    for index, weight in enumerate(weights):
        running += weight
        if u < running:
            return index
    raise AssertionError("a number drawn below the total is below some running total")


def draw(
    mix: Mix, *, event_seed: int, section: int, session: int, table: int, deal: int, decision: int
) -> Action:
    """The action the dealer draws from ``mix`` at that decision (see the module)."""
    return MixDraws(event_seed, section, session, table).action(mix, deal, decision)


@dataclass(frozen=True, slots=True)
class MixDraws:
    """Where a table's draws come from: the event key (as the decks' integer) and the
    table-session's place. :meth:`action` draws one decision of one deal."""

    event_seed: int = 0
    section: int = 0
    session: int = 0
    table: int = 0

    def action(self, mix: Mix, deal: int, decision: int) -> Action:
        """The action drawn from ``mix`` at ``decision`` (the index of its action in the
        deal) of ``deal``."""
        if len(mix.actions) == 1:
            return mix.actions[0]
        material = mix_material(
            self.event_seed, self.section, self.session, self.table, deal, decision
        )
        return mix.actions[draw_index(mix.weights, material)]

    def at(self, mix: Mix, deal: int, state: HandState) -> Action:
        """The action drawn from ``mix`` for the player to act in ``state``, a hand of
        ``deal`` (the table's call; a measurement may draw otherwise by overriding it)."""
        return self.action(mix, deal, len(state.history))
