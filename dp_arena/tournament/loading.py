"""Reading event configs: a TOML file validated into frozen records, every problem reported
at once.

A config names the event and its format, the money, overrides of the format's table
settings, sandbox limits, and the entrants — agent specs, and/or a field of built-in
bots drawn with the event's key::

    [event]
    name = "Friday regular"
    format = "regular"          # see dp_arena.tournament.formats.FORMATS
    # seed = 2026               # only for tests and demos: makes every deck predictable

    [money]
    buy_in_cents = 1000         # to the prize pool
    fee_cents = 100             # the service fee, not in the pool

    [table]                     # overrides of the format's defaults
    cap = 1000
    small_blind = 20
    big_blind = 40
    round_robin_deals = 6
    deals = { "6" = 12 }        # players per table -> deals per session (whole rounds)

    [limits]                    # per-bot limits (see docs/sandbox.md) and faults allowed
    action_timeout = 1.0
    max_faults = 3

    [[entrants]]
    name = "alice"
    agent = "bots/alice.py:Alice"   # relative paths are relative to this file
    trusted = false

    [field]                     # built-in bots, drawn with the event's key
    count = 11
    from = ["random", "calling-station"]

Without ``seed`` the event's decks and draws come from a secret key made when the run
starts (:mod:`dp_arena.keys`). A config read from its file has no key yet
(``seed is None``): :func:`~dp_arena.tournament.config.with_key` binds one (see
:mod:`dp_arena.tournament.config`, the records a config is read into).

A bad config raises one :class:`~dp_arena.errors.ConfigError` listing every problem,
each naming its field (a dotted path) and the allowed values; nothing runs. The problems
are collected by a :class:`~dp_arena.tournament.checker.ConfigChecker`; the entrants' are
found by :mod:`dp_arena.tournament.entrant_checks`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, get_type_hints

from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.names import ACPC_PREFIX, REGISTRY_PREFIX
from dp_arena.tournament.bounds import (
    MAX_CENTS,
    MAX_CHIPS,
    MAX_CONFIG_BYTES,
    MAX_DEALS,
    MAX_FAULTS,
    describe_range,
    limit_range,
    shown,
)
from dp_arena.tournament.checker import ConfigChecker
from dp_arena.tournament.config import EventConfig, Problem, with_key
from dp_arena.tournament.entrant_checks import DEFAULT_FIELD, check_entrants, registry_root
from dp_arena.tournament.formats import FORMATS, get_format
from dp_arena.tournament.interface import EventFormat

__all__ = ["DEFAULT_FIELD", "check_config", "default_config", "load_config", "parse_config"]

READ_PIECE_BYTES = 1 << 20  # a config file is read a MiB at a time


def load_config(
    path: str | Path, *, registry: str | Path | None = None, allow_absent: bool = False
) -> EventConfig:
    """Read and validate a config file; :class:`ConfigError` lists every problem.
    ``registry`` (a command's ``--registry``) overrides the config's ``[registry] path``.
    With ``allow_absent``, an entrant whose bot is not there (its file, class, folder,
    program or registry entry) is no problem of the config: it is recorded as absent,
    with the reason, as an entrant whose bot does not load is by the preflight."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            raw = _read_at_most(file, MAX_CONFIG_BYTES)
    except OSError as error:
        raise ConfigError(
            f"{path}: cannot read the config: {error.strerror or error}", field=None
        ) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{path}: not a config: larger than {MAX_CONFIG_BYTES // 2**20} MiB", field=None
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not a config: not UTF-8 text (byte {error.start})", field=None
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}", field=None) from None
    except ValueError:  # tomllib converts integers with int(), which refuses huge ones
        raise ConfigError(
            f"{path}: not valid TOML: an integer of more than 4300 digits", field=None
        ) from None
    except RecursionError:
        raise ConfigError(
            f"{path}: not a config: its TOML is nested too deeply", field=None
        ) from None
    return parse_config(data, source=path, registry=registry, allow_absent=allow_absent)


def _read_at_most(file: BinaryIO, limit: int) -> bytes:
    """The file's bytes, or its first ``limit + 1`` if it is longer: read a piece at a
    time, since one ``read(limit + 1)`` sets aside a buffer of the limit's size."""
    pieces: list[bytes] = []
    size = 0
    while size <= limit:
        piece = file.read(min(READ_PIECE_BYTES, limit + 1 - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


def parse_config(
    data: Mapping[str, Any],
    *,
    source: str | Path | None = None,
    registry: str | Path | None = None,
    allow_absent: bool = False,
) -> EventConfig:
    """Validate config data (as read from TOML); :class:`ConfigError` lists every problem
    (``allow_absent``: see :func:`load_config`)."""
    config, problems = check_config(
        data, source=source, registry=registry, allow_absent=allow_absent
    )
    if problems or config is None:
        where = f"{source}: " if source is not None else ""
        lines = "\n".join(f"  - {problem}" for problem in problems)
        count = len(problems)
        raise ConfigError(
            f"{where}{count} problem{'s' if count > 1 else ''} in the config:\n{lines}",
            field=problems[0].field if problems else None,
            # Only when they are all that is wrong: then playing without them is possible.
            absent_players=tuple(str(problem.player) for problem in problems)
            if all(problem.player for problem in problems)
            else (),
        )
    return config


def check_config(
    data: Mapping[str, Any],
    *,
    source: str | Path | None = None,
    registry: str | Path | None = None,
    allow_absent: bool = False,
) -> tuple[EventConfig | None, list[Problem]]:
    """The config and an empty list, or ``None`` and every problem found (with
    ``allow_absent``, the entrants whose bots are not there are the config's absent ones,
    not problems)."""
    checker = ConfigChecker()
    base = Path(source).resolve().parent if source is not None else Path.cwd()
    checker.keys(
        "",
        data,
        ("event", "money", "table", "limits", "entrants", "field", "options", "registry"),
    )
    checker.registry = registry_root(checker, data, base, registry)
    name, format_name, seed, event_format = _check_event(checker, data)
    buy_in, fee = _check_money(checker, data)
    cap, small_blind, big_blind, deals, round_robin_deals = _check_table(
        checker, data, event_format
    )
    limits_table = checker.table("limits", data.get("limits"))
    max_faults = checker.integer(
        "limits.max_faults", limits_table.get("max_faults", 3), minimum=1, maximum=MAX_FAULTS
    )
    limits = _check_limits(checker, limits_table)

    problems_before = len(checker.problems)
    entrants, field_from, field_count = check_entrants(checker, data, base, seed)
    # Entrants whose bots are not there stay entrants: told to play anyway, they sit out.
    missing = [problem for problem in checker.problems if problem.player is not None]
    if allow_absent:
        checker.problems = [problem for problem in checker.problems if problem.player is None]
    refused = len(checker.problems) - problems_before - (0 if allow_absent else len(missing))
    # Entrants refused already make any count wrong: say only why they were refused.
    if event_format is not None and refused == 0:
        message = event_format.check_players(len(entrants))
        if message is not None:
            checker.add("entrants", message)

    options_table = checker.table("options", data.get("options"))
    if event_format is not None:
        for problem in event_format.check_options(options_table):
            checker.problems.append(
                Problem(f"options.{problem.field}" if problem.field else "options", problem.message)
            )

    if checker.problems:
        return None, checker.problems
    assert name is not None and format_name is not None and max_faults is not None
    assert event_format is not None  # an unknown format is a problem above
    config = EventConfig(
        name=name,
        format=format_name,
        seed=seed,
        entrants=tuple(entrants),
        buy_in_cents=buy_in,
        fee_cents=fee,
        cap=cap,
        small_blind=small_blind,
        big_blind=big_blind,
        deals=deals,
        round_robin_deals=round_robin_deals,
        max_faults=max_faults,
        limits=limits,
        options=tuple(sorted(options_table.items())),
        source=None if source is None else str(source),
        field_from=field_from,
        field_count=field_count,
        absent=_absent(missing) if allow_absent else (),
    )
    # What depends on several parts at once (options naming entrants) does not depend on
    # the draws: a keyless config is checked with seed 0.
    checked = config if config.seed is not None else with_key(config, EventKey.from_seed(0))
    whole_problems = event_format.check_config(checked) or _acpc_problems(checked, event_format)
    if whole_problems:
        return None, whole_problems
    return config, []


def _acpc_problems(config: EventConfig, event_format: EventFormat) -> list[Problem]:
    """An ACPC agent plays capped no-limit hold'em only (its game definition gives every
    player one stack, the cap, and no pot limit): a format with a pot-limit session, or
    the classic freezeout (no cap: stacks change from hand to hand), refuses it."""
    from dp_arena.sandbox import is_acpc

    # Only an acpc: spec, a bot folder or a registry bot can be one (no file is read else).
    maybe = {
        entrant.resolved
        for entrant in config.entrants
        if entrant.resolved.startswith((ACPC_PREFIX, REGISTRY_PREFIX))
        or entrant.resolved.endswith("/")
    }
    acpc = {spec for spec in maybe if is_acpc(spec)}
    agents = [
        (index, entrant)
        for index, entrant in enumerate(config.entrants)
        if entrant.resolved in acpc
    ]
    if not agents:
        return []
    if config.format == "classic":
        why = "the classic freezeout has no cap, so stacks change from hand to hand"
    else:
        pot_limit = [
            str(session["session"])
            for session in event_format.plan(config).to_json()["sessions"]
            if session["betting"] == "pot-limit"
        ]
        if not pot_limit:
            return []
        why = (
            f"this {config.format} event plays pot-limit in session"
            f"{'s' if len(pot_limit) > 1 else ''} {', '.join(pot_limit)}"
        )
    return [
        Problem(
            f"entrants[{index}].agent ({entrant.player})",
            f"an ACPC agent plays capped no-limit hold'em only (an ACPC game definition has"
            f" no pot limit and one stack for every hand), and {why}: enter it in a no-limit"
            " format (quickplay, sng-round-robin, cash)",
        )
        for index, entrant in agents
    ]


def _absent(missing: list[Problem]) -> tuple[tuple[str, str], ...]:
    """The entrants whose bots are not there, each with why, as the results record an
    entrant that did not load (without the organiser's folders)."""
    from dp_arena.tournament.preflight import without_folders

    return tuple(
        sorted(
            (str(problem.player), f"LOAD_ERROR: {without_folders(problem.message)}"[:400])
            for problem in missing
        )
    )


def default_config(
    format_name: str, players: int, *, seed: int | None = 0, name: str | None = None
) -> EventConfig:
    """A format's default event for ``players`` random bots (what ``dp-arena plan FORMAT``
    shows). :class:`ConfigError` when the format does not take that many players."""
    data = {
        "event": {
            "name": name or f"{format_name} ({players} players)",
            "format": format_name,
            **({} if seed is None else {"seed": seed}),
        },
        "field": {"count": players, "from": ["random"]},
    }
    return parse_config(data)


# -- checks --------------------------------------------------------------------------


def _check_deals(checker: ConfigChecker, value: Any) -> tuple[tuple[int, int], ...]:
    table = checker.table("table.deals", value)
    deals = []
    for key, deal_count in table.items():
        dotted = f"table.deals.{key}"
        if not (isinstance(key, str) and key.isdigit() and 2 <= int(key) <= 10):
            checker.add(dotted, "keys are players per table, 2 to 10")
            continue
        seats = int(key)
        count = checker.integer(dotted, deal_count, minimum=1, maximum=MAX_DEALS)
        if count is None:
            continue
        if count % seats:
            checker.add(dotted, f"must be whole rounds: a multiple of {seats}, not {count}")
            continue
        deals.append((seats, count))
    return tuple(sorted(deals))


def _check_event(
    checker: ConfigChecker, data: Mapping[str, Any]
) -> tuple[str | None, str | None, int | None, EventFormat | None]:
    """``[event]``: the name, the format's name, the seed and the format itself."""
    event = checker.table("event", data.get("event"), required=True)
    checker.keys("event", event, ("name", "format", "seed"))
    name = checker.string("event.name", event.get("name"), required=True)
    format_name = checker.string("event.format", event.get("format"), required=True)
    seed = checker.integer("event.seed", event.get("seed"), minimum=0)

    event_format = None
    if format_name is not None:
        if format_name in FORMATS:
            event_format = get_format(format_name)
        else:
            checker.add(
                "event.format", f"{format_name!r} is not a format; allowed: {', '.join(FORMATS)}"
            )
    return name, format_name, seed, event_format


def _check_money(checker: ConfigChecker, data: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """``[money]``: the buy-in and the fee, in cents."""
    money = checker.table("money", data.get("money"))
    checker.keys("money", money, ("buy_in_cents", "fee_cents"))
    buy_in = checker.integer(
        "money.buy_in_cents", money.get("buy_in_cents"), minimum=0, maximum=MAX_CENTS
    )
    fee = checker.integer("money.fee_cents", money.get("fee_cents"), minimum=0, maximum=MAX_CENTS)
    return buy_in, fee


def _check_table(
    checker: ConfigChecker, data: Mapping[str, Any], event_format: EventFormat | None
) -> tuple[int | None, int | None, int | None, tuple[tuple[int, int], ...], int | None]:
    """``[table]``: the cap, the blinds, the deals and the round-robin deals, the blinds
    and the cap checked against each other with the format's defaults for those unset."""
    table = checker.table("table", data.get("table"))
    checker.keys("table", table, ("cap", "small_blind", "big_blind", "deals", "round_robin_deals"))
    cap = checker.integer("table.cap", table.get("cap"), minimum=1, maximum=MAX_CHIPS)
    small_blind = checker.integer(
        "table.small_blind", table.get("small_blind"), minimum=1, maximum=MAX_CHIPS
    )
    big_blind = checker.integer(
        "table.big_blind", table.get("big_blind"), minimum=1, maximum=MAX_CHIPS
    )
    round_robin_deals = checker.integer(
        "table.round_robin_deals", table.get("round_robin_deals"), minimum=2, maximum=MAX_DEALS
    )
    if round_robin_deals is not None and round_robin_deals % 2:
        checker.add(
            "table.round_robin_deals",
            f"must be even (whole rounds of a heads-up table), not {round_robin_deals}",
        )
    deals = _check_deals(checker, table.get("deals"))
    if event_format is not None:
        defaults = event_format.defaults
        sb = defaults.small_blind if small_blind is None else small_blind
        bb = defaults.big_blind if big_blind is None else big_blind
        effective_cap = defaults.cap if cap is None else cap
        if sb > bb:
            checker.add("table.small_blind", f"must be at most the big blind ({bb}), not {sb}")
        if effective_cap < bb:
            checker.add("table.cap", f"must be at least the big blind ({bb}), not {effective_cap}")
    return cap, small_blind, big_blind, deals, round_robin_deals


def _check_limits(checker: ConfigChecker, table: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    from dp_arena.sandbox.limits import Limits

    known = get_type_hints(Limits)  # each limit's type (int or float), not its annotation's text
    limits = []
    for key, value in table.items():
        if key == "max_faults":
            continue
        dotted = f"limits.{key}"
        if key not in known:
            checker.add(dotted, f"unknown limit; allowed: max_faults, {', '.join(known)}")
            continue
        wants_int = known[key] is int
        valid_type = isinstance(value, int) if wants_int else isinstance(value, (int, float))
        low, high = limit_range(key)
        if isinstance(value, bool) or not valid_type or not low <= value <= high:
            checker.add(
                dotted,
                f"must be {describe_range(low, high, integer=wants_int)}, not {shown(value)}",
            )
            continue
        limits.append((key, value))
    return tuple(sorted(limits))
