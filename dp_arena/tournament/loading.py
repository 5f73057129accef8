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
each naming its field (a dotted path) and the allowed values; nothing runs.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_type_hints

from dp_arena.agents import BUILTINS, AgentSpec, SpecKind, parse_spec
from dp_arena.agents.spec import class_problem
from dp_arena.errors import AgentError, ConfigError
from dp_arena.keys import EventKey
from dp_arena.tournament.bounds import (
    MAX_CENTS,
    MAX_CHIPS,
    MAX_CONFIG_BYTES,
    MAX_DEALS,
    MAX_ENTRANTS,
    MAX_FAULTS,
    describe_range,
    limit_range,
    shown,
)
from dp_arena.tournament.config import Entrant, EventConfig, Problem, draw_field, with_key
from dp_arena.tournament.formats import FORMATS, get_format
from dp_arena.tournament.interface import EventFormat

__all__ = ["DEFAULT_FIELD", "check_config", "default_config", "load_config", "parse_config"]

DEFAULT_FIELD = ("random", "calling-station", "aggressive", "tag", "equity")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def load_config(path: str | Path, *, registry: str | Path | None = None) -> EventConfig:
    """Read and validate a config file; :class:`ConfigError` lists every problem.
    ``registry`` (a command's ``--registry``) overrides the config's ``[registry] path``."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
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
    return parse_config(data, source=path, registry=registry)


def parse_config(
    data: Mapping[str, Any],
    *,
    source: str | Path | None = None,
    registry: str | Path | None = None,
) -> EventConfig:
    """Validate config data (as read from TOML); :class:`ConfigError` lists every problem."""
    config, problems = check_config(data, source=source, registry=registry)
    if problems or config is None:
        where = f"{source}: " if source is not None else ""
        lines = "\n".join(f"  - {problem}" for problem in problems)
        count = len(problems)
        raise ConfigError(
            f"{where}{count} problem{'s' if count > 1 else ''} in the config:\n{lines}",
            field=problems[0].field if problems else None,
        )
    return config


def check_config(
    data: Mapping[str, Any],
    *,
    source: str | Path | None = None,
    registry: str | Path | None = None,
) -> tuple[EventConfig | None, list[Problem]]:
    """The config and an empty list, or ``None`` and every problem found."""
    checker = _Checker()
    base = Path(source).resolve().parent if source is not None else Path.cwd()
    checker.keys(
        "",
        data,
        ("event", "money", "table", "limits", "entrants", "field", "options", "registry"),
    )
    checker.registry = _registry_root(checker, data, base, registry)
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
    entrants, field_from, field_count = _check_entrants(checker, data, base, seed)
    # Entrants refused already make any count wrong: say only why they were refused.
    if event_format is not None and len(checker.problems) == problems_before:
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
    )
    # What depends on several parts at once (options naming entrants) does not depend on
    # the draws: a keyless config is checked with seed 0.
    checked = config if config.seed is not None else with_key(config, EventKey.from_seed(0))
    whole_problems = event_format.check_config(checked)
    if whole_problems:
        return None, whole_problems
    return config, []


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


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.registry: Path | None = None  # where registry: entrants are looked up

    def add(self, field_name: str, message: str) -> None:
        self.problems.append(Problem(field_name, message))

    def keys(self, prefix: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                dotted = f"{prefix}.{key}" if prefix else key
                self.add(dotted, f"unknown key; allowed: {', '.join(allowed)}")

    def table(self, field_name: str, value: Any, *, required: bool = False) -> Mapping[str, Any]:
        if value is None:
            if required:
                self.add(field_name, "missing; a table is required")
            return {}
        if not isinstance(value, Mapping):
            self.add(field_name, f"must be a table, not {_type(value)}")
            return {}
        return value

    def string(self, field_name: str, value: Any, *, required: bool = False) -> str | None:
        if value is None:
            if required:
                self.add(field_name, "missing; a string is required")
            return None
        if not isinstance(value, str) or not value.strip():
            self.add(field_name, f"must be a non-empty string, not {shown(value)}")
            return None
        return value.strip()

    def integer(
        self,
        field_name: str,
        value: Any,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            self.add(field_name, f"must be an integer, not {_type(value)} {shown(value)}")
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            if maximum is None:
                self.add(field_name, f"must be at least {minimum}, not {value}")
            else:
                allowed = describe_range(0 if minimum is None else minimum, maximum)
                self.add(field_name, f"must be {allowed}, not {shown(value)}")
            return None
        return value


def _type(value: Any) -> str:
    return {
        str: "a string",
        bool: "a boolean",
        float: "a float",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _check_deals(checker: _Checker, value: Any) -> tuple[tuple[int, int], ...]:
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
    checker: _Checker, data: Mapping[str, Any]
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


def _check_money(checker: _Checker, data: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """``[money]``: the buy-in and the fee, in cents."""
    money = checker.table("money", data.get("money"))
    checker.keys("money", money, ("buy_in_cents", "fee_cents"))
    buy_in = checker.integer(
        "money.buy_in_cents", money.get("buy_in_cents"), minimum=0, maximum=MAX_CENTS
    )
    fee = checker.integer("money.fee_cents", money.get("fee_cents"), minimum=0, maximum=MAX_CENTS)
    return buy_in, fee


def _check_table(
    checker: _Checker, data: Mapping[str, Any], event_format: EventFormat | None
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


def _check_limits(checker: _Checker, table: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
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


def _check_entrants(
    checker: _Checker, data: Mapping[str, Any], base: Path, seed: int | None
) -> tuple[list[Entrant], tuple[str, ...], int]:
    """The entrants (the listed ones, then the drawn field), the field's pool and size."""
    entrants = _check_listed(checker, data, base)
    drawn, field_from, field_count = _check_field(checker, data, base, seed, len(entrants))
    entrants += drawn
    _check_names(checker, entrants)
    if not entrants and not checker.problems:
        checker.add("entrants", "no entrants: add [[entrants]] tables or a [field]")
    return entrants, field_from, field_count


def _check_listed(checker: _Checker, data: Mapping[str, Any], base: Path) -> list[Entrant]:
    """The ``[[entrants]]`` tables, in order (those refused left out)."""
    entrants: list[Entrant] = []
    listed = data.get("entrants", [])
    if not isinstance(listed, list):
        checker.add("entrants", f"must be an array of tables ([[entrants]]), not {_type(listed)}")
        listed = []
    if len(listed) > MAX_ENTRANTS:
        checker.add(
            "entrants", f"{len(listed):_} [[entrants]]; an event has at most {MAX_ENTRANTS:_}"
        )
        listed = []
    for index, item in enumerate(listed):
        entrant = _check_entrant(checker, f"entrants[{index}]", item, base, entrants)
        if entrant is not None:
            entrants.append(entrant)
    return entrants


def _check_entrant(
    checker: _Checker, where: str, item: object, base: Path, earlier: list[Entrant]
) -> Entrant | None:
    """One ``[[entrants]]`` table; unnamed, it is named after its bot (numbered when an
    ``earlier`` entrant has the name)."""
    if not isinstance(item, Mapping):
        checker.add(where, f"must be a table with agent (and name, trusted), not {_type(item)}")
        return None
    checker.keys(where, item, ("name", "agent", "trusted"))
    agent_text = checker.string(f"{where}.agent", item.get("agent"), required=True)
    name = checker.string(f"{where}.name", item.get("name"))
    trusted = item.get("trusted")
    if trusted is not None and not isinstance(trusted, bool):
        checker.add(f"{where}.trusted", f"must be true or false, not {trusted!r}")
        trusted = None
    if agent_text is None:
        return None
    # Problems with the bot name the entrant too: "entrants[2].agent (alice): ...".
    label = f"{where}.agent" + (f" ({name})" if name else "")
    resolved = _resolve_spec(checker, label, agent_text, base)
    if resolved is None:
        return None
    spec, resolved_text = resolved
    if name is None:
        name = re.sub(r"[^A-Za-z0-9._-]", "-", spec.name).strip("-.") or "bot"
        taken = {entrant.player for entrant in earlier}
        if name in taken:
            suffix = 2
            while f"{name}-{suffix}" in taken:
                suffix += 1
            name = f"{name}-{suffix}"
    is_trusted = spec.kind is SpecKind.BUILTIN if trusted is None else trusted
    return Entrant(name, agent_text, is_trusted, resolved_text)


def _check_field(
    checker: _Checker, data: Mapping[str, Any], base: Path, seed: int | None, listed: int
) -> tuple[list[Entrant], tuple[str, ...], int]:
    """The ``[field]`` of built-in bots drawn after the ``listed`` entrants: the drawn
    entrants, their pool and their number (none when there is no field or it is refused)."""
    field_table = checker.table("field", data.get("field"))
    checker.keys("field", field_table, ("count", "from"))
    if not field_table:
        return [], (), 0
    count = checker.integer(
        "field.count", field_table.get("count"), minimum=1, maximum=MAX_ENTRANTS
    )
    if "count" not in field_table:
        checker.add("field.count", "missing; how many built-in bots to draw")
    pool = field_table.get("from", list(DEFAULT_FIELD))
    names: list[str] = []
    if not isinstance(pool, list) or not pool:
        checker.add(
            "field.from",
            f"must be a non-empty list of built-in names; allowed: {', '.join(BUILTINS)}",
        )
    else:
        for index, builtin in enumerate(pool):
            where = f"field.from[{index}]"
            if builtin not in BUILTINS:
                checker.add(
                    where, f"{builtin!r} is not a built-in bot; allowed: {', '.join(BUILTINS)}"
                )
            elif _resolve_spec(checker, where, builtin, base) is not None:
                names.append(builtin)
        if len(set(pool)) != len(pool):
            checker.add("field.from", "lists a built-in more than once")
    if count is not None and listed + count > MAX_ENTRANTS:
        checker.add(
            "field.count",
            f"{listed:_} [[entrants]] and a field of {count:_} make"
            f" {listed + count:_} entrants; an event has at most {MAX_ENTRANTS:_}",
        )
    elif count is not None and names and len(names) == len(pool):
        return draw_field(count, names, seed), tuple(names), count
    return [], (), 0


def _check_names(checker: _Checker, entrants: list[Entrant]) -> None:
    """Every player name valid and used once."""
    seen: set[str] = set()
    for index, entrant in enumerate(entrants):
        if not _NAME.match(entrant.player):
            checker.add(
                f"entrants[{index}].name",
                f"{entrant.player!r} is not a valid player name"
                " (letters, digits, '.', '_', '-'; at most 64)",
            )
        if entrant.player in seen:
            checker.add(f"entrants[{index}].name", f"{entrant.player!r} is used by another entrant")
        seen.add(entrant.player)


def _registry_root(
    checker: _Checker, data: Mapping[str, Any], base: Path, override: str | Path | None
) -> Path | None:
    """``--registry``, else ``[registry] path`` (relative to the config's folder), else
    ``None``: the default registry (:func:`dp_arena.registry.registry_location`)."""
    table = checker.table("registry", data.get("registry"))
    checker.keys("registry", table, ("path",))
    if override is not None:
        return Path(override).expanduser().absolute()
    path = checker.string("registry.path", table.get("path"))
    return None if path is None else (base / Path(path).expanduser()).absolute()


def _resolve_spec(
    checker: _Checker, where: str, text: str, base: Path
) -> tuple[AgentSpec, str] | None:
    try:
        spec = parse_spec(text)
    except AgentError as error:
        checker.add(where, str(error))
        return None
    if spec.kind is SpecKind.REGISTRY:
        return _resolve_registry(checker, where, spec)
    if spec.kind is SpecKind.BUILTIN:
        if not Path(str(spec.target)).is_file():
            checker.add(where, f"built-in bot {text!r} is not available (no {spec.target})")
            return None
        return spec, text
    if spec.kind is SpecKind.FILE:
        path = Path(str(spec.target)).expanduser()
        if not path.is_absolute():
            path = (base / path).resolve()
        if not path.is_file():
            checker.add(where, f"no such file {path}")
            return None
        problem = class_problem(path, spec)
        if problem is not None:
            checker.add(where, problem)
            return None
        return spec, f"{path}:{spec.class_name}"
    if spec.kind is SpecKind.COMMAND:
        program = str(spec.target[0])
        if shutil.which(program) is None and not (base / program).exists():
            checker.add(where, f"program {program!r} not found on PATH or next to the config")
            return None
        from dp_arena.sandbox.mounts import program_runtime

        try:  # a program the sandbox may not show the bot is refused now, not at the seat
            program_runtime(program, base)
        except AgentError as error:
            checker.add(where, str(error))
            return None
    return spec, text


def _resolve_registry(
    checker: _Checker, where: str, spec: AgentSpec
) -> tuple[AgentSpec, str] | None:
    """A registry bot pinned to the version found now, in the registry found now."""
    from dp_arena.errors import SubmissionError
    from dp_arena.registry import Registry, pinned_spec, split_spec

    pinned_root, reference = split_spec(spec.text)
    try:
        registry = Registry.existing(pinned_root or checker.registry)
        stored = registry.resolve(reference)
    except SubmissionError as error:
        checker.add(where, str(error))
        return None
    return spec, pinned_spec(registry.root, stored)
