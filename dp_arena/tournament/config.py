"""Event configs as frozen records: the validated config (:class:`EventConfig`), its
entrants, a format's defaults and the settings they resolve to, and the deck key bound
to a config.

A config read from its file (:mod:`dp_arena.tournament.loading`) has no key yet
(``seed is None``) unless it names a public seed: :func:`with_key` binds one, drawing
the built-in field with it, and only a config with a key can be planned or played.
:func:`without_key` gives back the keyless form, which is all that is ever stored
before the event ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.tournament.draws import Draw

__all__ = [
    "Entrant",
    "EventConfig",
    "EventSettings",
    "FormatDefaults",
    "Problem",
    "draw_field",
    "with_key",
    "without_key",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with a config, and where: ``field`` is a dotted path. A problem with
    an entrant's bot alone (its file, class, folder, program or registry entry is not
    there) names the entrant as ``player``: told to play anyway, an event seats it as an
    absent player, as one whose bot does not load."""

    field: str
    message: str
    player: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of the event. ``spec`` is the agent spec as written; ``resolved`` the spec
    that seats load (a relative file path made absolute against the config's folder)."""

    player: str
    spec: str
    trusted: bool
    resolved: str


@dataclass(frozen=True, slots=True)
class EventConfig:
    """A validated config. ``None`` overrides take the format's default.

    ``seed`` is the integer every deck and draw comes from: the config's public seed, or
    a secret key's (``secret``) once :func:`with_key` has bound one; ``None`` until then.
    ``field_from`` and ``field_count`` are the ``[field]`` request: the last
    ``field_count`` entrants are drawn from ``field_from`` with the key. ``absent``
    lists the entrants that could not load before the event, with the reason."""

    name: str
    format: str
    seed: int | None
    entrants: tuple[Entrant, ...]
    buy_in_cents: int | None = None
    fee_cents: int | None = None
    cap: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    deals: tuple[tuple[int, int], ...] = ()
    round_robin_deals: int | None = None
    max_faults: int = 3
    limits: tuple[tuple[str, Any], ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    source: str | None = None
    secret: bool = False
    field_from: tuple[str, ...] = ()
    field_count: int = 0
    # Entrants that did not load before the event and play it as absent players, each
    # with the reason (recorded by dp_arena.tournament.preflight when told to play anyway).
    absent: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        # Never print a secret key by accident (in a traceback, a log line, a test failure).
        seed = "<secret>" if self.secret else self.seed
        return f"EventConfig(name={self.name!r}, format={self.format!r}, seed={seed})"

    @property
    def deck_seed(self) -> int:
        """The seed of every deck and draw; :class:`ConfigError` while no key is bound."""
        if self.seed is None:
            raise ConfigError(
                f"the event {self.name!r} has no deck key yet: without a seed in its config,"
                " its secret key is made when the run starts (bind one with with_key)",
                field="event.seed",
            )
        return self.seed

    @property
    def event_key(self) -> EventKey:
        """The bound key (:class:`ConfigError` while there is none)."""
        seed = self.deck_seed
        if self.secret:
            return EventKey(seed.to_bytes(32, "big"), public=False)
        return EventKey.from_seed(seed)


def with_key(config: EventConfig, key: EventKey) -> EventConfig:
    """``config`` with ``key`` bound: its seed set and its built-in field drawn with it.

    A config that names a public seed takes only that seed's key; a secret key, or a
    public one given on a command line, binds to a config without a seed."""
    if config.seed is not None:
        if config.event_key == key:
            return config
        raise ConfigError(
            f"the event {config.name!r} already has its deck key"
            + ("" if config.secret else f" (public seed {config.seed} in its config)"),
            field="event.seed",
        )
    listed = config.entrants[: len(config.entrants) - config.field_count]
    drawn = draw_field(config.field_count, list(config.field_from), key.seed)
    return replace(config, seed=key.seed, secret=not key.public, entrants=(*listed, *drawn))


def without_key(config: EventConfig) -> EventConfig:
    """The keyless form of a config with a secret key (others are returned as they are):
    what may be stored or shown before the event ends."""
    if not config.secret:
        return config
    listed = config.entrants[: len(config.entrants) - config.field_count]
    canonical = draw_field(config.field_count, list(config.field_from), None)
    return replace(config, seed=None, secret=False, entrants=(*listed, *canonical))


@dataclass(frozen=True, slots=True)
class FormatDefaults:
    """A format's defaults. ``fee_percent`` applies when ``fee_cents`` is ``None``."""

    small_blind: int
    big_blind: int
    cap: int = 1000
    buy_in_cents: int = 1000
    fee_cents: int | None = 100
    fee_percent: int = 0
    round_robin_deals: int = 6
    deals: tuple[tuple[int, int], ...] = ((2, 8), (3, 9), (4, 8), (5, 10), (6, 6), (7, 7), (8, 8))


@dataclass(frozen=True, slots=True)
class EventSettings:
    """The table and money settings of an event: the config's overrides over the format's
    defaults."""

    small_blind: int
    big_blind: int
    cap: int
    buy_in_cents: int
    fee_cents: int
    round_robin_deals: int
    deals: tuple[tuple[int, int], ...] = field(default=())

    def deals_for(self, seats: int) -> int:
        """Deals per session at tables of ``seats`` players."""
        for table_size, deals in self.deals:
            if table_size == seats:
                return deals
        return 2 * seats  # no chart value: two rounds

    @classmethod
    def resolve(cls, config: EventConfig, defaults: FormatDefaults) -> EventSettings:
        buy_in = defaults.buy_in_cents if config.buy_in_cents is None else config.buy_in_cents
        if config.fee_cents is not None:
            fee = config.fee_cents
        elif defaults.fee_cents is not None:
            fee = defaults.fee_cents
        else:
            fee = buy_in * defaults.fee_percent // 100
        deals = dict(defaults.deals)
        deals.update(config.deals)
        return cls(
            small_blind=defaults.small_blind if config.small_blind is None else config.small_blind,
            big_blind=defaults.big_blind if config.big_blind is None else config.big_blind,
            cap=defaults.cap if config.cap is None else config.cap,
            buy_in_cents=buy_in,
            fee_cents=fee,
            round_robin_deals=(
                defaults.round_robin_deals
                if config.round_robin_deals is None
                else config.round_robin_deals
            ),
            deals=tuple(sorted(deals.items())),
        )


def draw_field(count: int, builtins: list[str], seed: int | None) -> list[Entrant]:
    """``count`` built-in bots: each built-in ⌊count/k⌋ or ⌈count/k⌉ times, which ones get the
    extra seat drawn with the seed (in the order given while there is no key); named
    ``random-1``, ``random-2``, ..."""
    order = builtins if seed is None else Draw(seed, "field").shuffle(builtins)
    drawn = [order[index % len(order)] for index in range(count)]
    numbers: dict[str, int] = {}
    entrants = []
    for builtin in drawn:
        numbers[builtin] = numbers.get(builtin, 0) + 1
        entrants.append(Entrant(f"{builtin}-{numbers[builtin]}", builtin, True, builtin))
    return entrants
