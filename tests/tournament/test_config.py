"""Configs: the shipped configs load, bad ones give one clear error per problem (each
naming its field and the allowed values), all at once."""

from __future__ import annotations

import dataclasses
import re
import tracemalloc
from pathlib import Path

import pytest

from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.tournament.bounds import (
    LIMIT_RANGES,
    MAX_BLIND_LEVELS,
    MAX_CENTS,
    MAX_CHIPS,
    MAX_DEALS,
    MAX_ENTRANTS,
    MAX_FAULTS,
    MAX_HAND_ROUNDS,
    MAX_LEVEL,
    MAX_ROUNDS,
    MAX_SETS,
)
from dp_arena.tournament.config import EventSettings, with_key
from dp_arena.tournament.formats import FORMATS, get_format
from dp_arena.tournament.loading import check_config, load_config, parse_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
MINE = ("demo", "regular", "short", "sng-short", "sng-round-robin")


@pytest.mark.parametrize("name", MINE)
def test_the_shipped_configs_load_and_plan(name: str) -> None:
    config = load_config(CONFIGS / f"{name}.toml")
    assert config.format in FORMATS
    # Only the demo names a public seed; the others get a secret key when they run.
    assert (config.seed is not None) == (name == "demo")
    if config.seed is None:
        config = with_key(config, EventKey.secret())
    plan = get_format(config.format).plan(config)
    assert (
        plan.entrants == len(config.entrants) and plan.prizes.total_cents == plan.prizes.pool_cents
    )


def _problems(data: dict) -> list[str]:
    config, problems = check_config(data)
    assert config is None
    return [str(problem) for problem in problems]


def test_every_problem_is_reported_at_once_naming_its_field() -> None:
    data = {
        "event": {"name": "x", "format": "regulr", "seed": -1, "colour": "red"},
        "money": {"buy_in_cents": 10.5, "fee_cents": -1},
        "table": {"cap": "1000", "deals": {"6": 8, "11": 11}},
        "limits": {"action_timeout": 0, "nonsense": 1},
        "field": {"count": 0, "from": ["random", "nobody"]},
        "entrants": [{"agent": "no/such/file.py:Bot"}],
    }
    problems = _problems(data)
    expected_fields = [
        "event.colour",
        "event.seed",
        "event.format",
        "money.buy_in_cents",
        "money.fee_cents",
        "table.cap",
        "table.deals.6",
        "table.deals.11",
        "limits.action_timeout",
        "limits.nonsense",
        "entrants[0].agent",
        "field.count",
        "field.from[1]",
    ]
    assert sorted(problem.split(":")[0] for problem in problems) == sorted(expected_fields)
    by_field = {problem.split(":")[0]: problem for problem in problems}
    assert "allowed: regular, short, sng-short, sng-round-robin" in by_field["event.format"]
    assert "allowed: name, format, seed" in by_field["event.colour"]
    assert "multiple of 6" in by_field["table.deals.6"]
    assert "keys are players per table, 2 to 10" in by_field["table.deals.11"]
    assert (
        "'nobody' is not a built-in bot; allowed: random, calling-station"
        in by_field["field.from[1]"]
    )
    assert "no such file" in by_field["entrants[0].agent"]


def test_parse_config_raises_one_error_listing_them_all() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            {"event": {"format": "short"}, "field": {"count": 40, "from": ["random"]}},
            source="x.toml",
        )
    message = str(caught.value)
    assert message.startswith("x.toml: 2 problems in the config:")
    assert "event.name: missing" in message
    assert "entrants: a short tournament takes 6 to 36 entrants, not 40" in message
    assert caught.value.field == "event.name"


@pytest.mark.parametrize(
    "format_name, players, message",
    [
        ("regular", 3, "at least 4 entrants"),
        ("sng-short", 7, "starts with 6, 8, 10, 15, 20, 25 players"),
        ("sng-round-robin", 5, "4 or 6 players"),
    ],
)
def test_formats_refuse_the_wrong_number_of_players(
    format_name: str, players: int, message: str
) -> None:
    problems = _problems(
        {
            "event": {"name": "x", "format": format_name},
            "field": {"count": players, "from": ["random"]},
        }
    )
    assert problems == [f"entrants: {problems[0].split(': ', 1)[1]}"] and message in problems[0]


def test_blinds_and_cap_are_checked_against_each_other_and_the_defaults() -> None:
    problems = _problems(
        {
            "event": {"name": "x", "format": "regular"},
            "table": {"small_blind": 50, "cap": 30},
            "field": {"count": 8, "from": ["random"]},
        }
    )
    assert problems == [
        "table.small_blind: must be at most the big blind (40), not 50",
        "table.cap: must be at least the big blind (40), not 30",
    ]


def test_entrants_names_must_be_unique_and_options_known() -> None:
    problems = _problems(
        {
            "event": {"name": "x", "format": "regular"},
            "entrants": [
                {"name": "a", "agent": "random"},
                {"name": "a", "agent": "calling-station"},
                {"name": "bad name", "agent": "random"},
                {"name": "b", "agent": "random"},
            ],
            "options": {"rake": 5},
        }
    )
    assert "entrants[1].name: 'a' is used by another entrant" in problems
    assert any(
        problem.startswith("entrants[2].name: 'bad name' is not a valid player name")
        for problem in problems
    )
    assert "options.rake: unknown option; this format takes none" in problems


def test_relative_agent_files_resolve_against_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(
        "class Mine:\n    def act(self, observation):\n        return 'check'\n"
    )
    (tmp_path / "event.toml").write_text(
        '[event]\nname = "t"\nformat = "regular"\n'
        '[[entrants]]\nagent = "bots/mine.py:Mine"\n'
        '[field]\ncount = 3\nfrom = ["random"]\n'
    )
    config = load_config(tmp_path / "event.toml")
    mine = config.entrants[0]
    assert (mine.player, mine.spec, mine.trusted) == ("Mine", "bots/mine.py:Mine", False)
    assert mine.resolved == f"{(tmp_path / 'bots' / 'mine.py').resolve()}:Mine"


def test_a_built_in_field_is_balanced_and_drawn_with_the_seed() -> None:
    def field(seed: int) -> list[str]:
        data = {
            "event": {"name": "x", "format": "regular", "seed": seed},
            "field": {"count": 7, "from": ["random", "calling-station"]},
        }
        return [entrant.spec for entrant in parse_config(data).entrants]

    drawn = field(1)
    assert sorted([drawn.count("random"), drawn.count("calling-station")]) == [3, 4]
    assert field(1) == drawn
    assert {tuple(field(seed)) for seed in range(10)} == {
        ("random", "calling-station") * 3 + ("random",),
        ("calling-station", "random") * 3 + ("calling-station",),
    }


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config"):
        load_config(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("[event\nname = 1\n")
    with pytest.raises(ConfigError, match=r"bad\.toml: not valid TOML"):
        load_config(tmp_path / "bad.toml")


def test_settings_take_overrides_over_format_defaults() -> None:
    config = parse_config(
        {
            "event": {"name": "x", "format": "sng-short", "seed": 1},
            "money": {"buy_in_cents": 2000},
            "table": {"deals": {"4": 12}},
            "field": {"count": 8, "from": ["random"]},
        }
    )
    settings = EventSettings.resolve(config, get_format("sng-short").defaults)
    assert (settings.small_blind, settings.big_blind, settings.cap) == (10, 20, 1000)
    assert (settings.buy_in_cents, settings.fee_cents) == (2000, 200)  # Sit n Go fee: 10 %
    assert settings.deals_for(4) == 12 and settings.deals_for(2) == 8
    plan = get_format("sng-short").plan(config)
    assert plan.sessions[0].sections[0].deals == 12  # 2 tables x 4, twelve deals


# -- bounds: every number an organiser writes has a largest value -----------------------


def _with(path: str, value: object, format_name: str = "regular", players: int = 8) -> dict:
    """A valid config of ``format_name`` with ``value`` at the dotted ``path``."""
    data: dict = {
        "event": {"name": "x", "format": format_name},
        "field": {"count": players, "from": ["random"]},
    }
    *tables, key = path.split(".")
    target = data
    for table in tables:
        target = target.setdefault(table, {})
    target[key] = value
    return data


# (dotted field, format, players, the largest value allowed)
BOUNDED = [
    ("money.buy_in_cents", "regular", 8, MAX_CENTS),
    ("money.fee_cents", "regular", 8, MAX_CENTS),
    ("table.cap", "regular", 8, MAX_CHIPS),
    ("table.big_blind", "regular", 8, MAX_CHIPS),
    ("table.round_robin_deals", "regular", 8, MAX_DEALS),
    ("limits.max_faults", "regular", 8, MAX_FAULTS),
    ("options.deals", "cash", 12, MAX_DEALS),
    ("options.deals_per_player", "cash", 12, MAX_DEALS),
    ("options.chip_value_cents", "cash", 12, MAX_CENTS),
    ("options.matchpoint_cents", "cash", 12, MAX_CENTS),
    ("options.sets", "quickplay", 8, MAX_SETS),
    ("options.max_rounds", "quickplay", 8, MAX_ROUNDS),
    ("options.balance_cents", "quickplay", 8, MAX_CENTS),
    ("options.credit_cents", "quickplay", 8, MAX_CENTS),
    ("options.starting_stack", "classic", 8, MAX_CHIPS),
    ("options.level_hands", "classic", 8, MAX_DEALS),
    ("options.late_registration_level", "classic", 8, MAX_LEVEL),
    ("options.max_hand_rounds", "classic", 8, MAX_HAND_ROUNDS),
]


@pytest.mark.parametrize(("path", "format_name", "players", "largest"), BOUNDED)
@pytest.mark.parametrize(
    "excess", [1, 10**6, 10**5000], ids=["one-more", "a-million-more", "5000-digits"]
)
def test_every_config_number_has_a_largest_value_named_in_its_error(
    path: str, format_name: str, players: int, largest: int, excess: int
) -> None:
    problems = _problems(_with(path, largest + excess, format_name, players))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}: must be an integer from ")
    assert f" to {largest:_}, not " in problems[0]
    assert len(problems[0]) < 200  # a huge number is described, not printed


@pytest.mark.parametrize(("path", "format_name", "players", "largest"), BOUNDED)
def test_the_largest_value_itself_is_accepted(
    path: str, format_name: str, players: int, largest: int
) -> None:
    data = _with(path, largest, format_name, players)
    if path == "table.big_blind":
        data["table"] |= {"small_blind": largest, "cap": largest}
    config, problems = check_config(data)
    assert problems == [] and config is not None


def test_deals_per_table_size_are_bounded() -> None:
    assert _problems(_with("table.deals", {"6": 6 * 10**6})) == [
        "table.deals.6: must be an integer from 1 to 10_000, not 6000000"
    ]
    config, problems = check_config(_with("table.deals", {"2": MAX_DEALS}))
    assert problems == [] and config is not None and config.deals == ((2, MAX_DEALS),)


def test_a_huge_field_is_refused_before_anything_is_drawn() -> None:
    tracemalloc.start()
    try:
        problems = _problems(_with("field.count", 100_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert problems == ["field.count: must be an integer from 1 to 1_000_000, not 100000000"]
    assert peak < 20 * 2**20  # no hundred million entrants were made


def test_listed_entrants_and_the_field_together_are_bounded() -> None:
    data = _with("field.count", MAX_ENTRANTS)
    data["entrants"] = [{"name": "mine", "agent": "random"}]
    assert _problems(data) == [
        (
            "field.count: 1 [[entrants]] and a field of 1_000_000 make 1_000_001 entrants;"
            " an event has at most 1_000_000"
        )
    ]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (1e300, "1e+300"),
        (0.0001, "0.0001"),
        (-1.0, "-1.0"),
    ],
)
def test_a_time_limit_is_a_finite_number_in_its_range(value: float, shown: str) -> None:
    assert _problems(_with("limits.action_timeout", value)) == [
        f"limits.action_timeout: must be a number from 0.001 to 3600, not {shown}"
    ]


def test_every_sandbox_limit_has_a_range_and_is_refused_past_it() -> None:
    from dp_arena.sandbox.limits import Limits

    assert set(LIMIT_RANGES) == {field.name for field in dataclasses.fields(Limits)}
    for name, (low, high) in LIMIT_RANGES.items():
        integer = isinstance(high, int)
        too_big = high + 1 if integer else high * 2
        assert _problems(_with(f"limits.{name}", too_big))[0].startswith(
            f"limits.{name}: must be {'an integer' if integer else 'a number'} from"
        )
        config, problems = check_config(_with(f"limits.{name}", high))
        assert problems == [] and config is not None and dict(config.limits) == {name: high}
        Limits().with_changes(**{name: low})  # the sandbox takes the smallest value too


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        (
            {"blind_levels": [[10, 20]] * (MAX_BLIND_LEVELS + 1)},
            "options.blind_levels",
            (
                "must be a list of 1 to 1_000 [small blind, big blind] pairs with 0 < small <= big"
                " <= 1_000_000_000, not a list of 1_001 items"
            ),
        ),
        (
            {"blind_levels": [[10, 10**12]]},
            "options.blind_levels",
            (
                "must be a list of 1 to 1_000 [small blind, big blind] pairs with 0 < small <= big"
                " <= 1_000_000_000, not [[10, 1000000000000]]"
            ),
        ),
        (
            {"blind_step": [0, 10**12]},
            "options.blind_step",
            "must be [small, big], integers from 0 to 1_000_000_000, not [0, 1000000000000]",
        ),
        (
            {"late_entrants": {"random-1": 10**9}},
            "options.late_entrants.random-1",
            "must be an integer from 1 to 100_000, not 1000000000",
        ),
    ],
)
def test_classic_lists_and_tables_of_numbers_are_bounded(
    options: dict, field: str, message: str
) -> None:
    data = _with("options.starting_stack", 700, "classic")
    data["options"] |= options
    assert _problems(data) == [f"{field}: {message}"]


def test_quick_play_lists_and_its_plan_size_are_bounded() -> None:
    data = _with("options.arrivals", [8] + [0] * MAX_ROUNDS, "quickplay")
    assert check_config(data)[1] == []
    data["options"]["arrivals"] = [8] + [0] * (MAX_ROUNDS + 1)
    assert _problems(data) == [
        (
            "options.arrivals: must be a list of 1 to 10_001 integers, each from 0 to 1_000_000,"
            " not a list of 10_002 items"
        )
    ]
    data = _with("options.sets_by_player", {"random-1": MAX_SETS + 1}, "quickplay")
    assert _problems(data) == [
        "options.sets_by_player.random-1: must be an integer from 1 to 1_000, not 1001"
    ]
    # Each bound alone is fine; together they would plan more sets than the plan holds.
    data = _with("options.sets", MAX_SETS, "quickplay", players=2_001)
    data["options"]["max_rounds"] = MAX_ROUNDS
    (problem,) = _problems(data)
    assert problem.startswith("options.sets: the 2_001 entrants' sets add up to 2_001_000")
    assert "a Quick Play plans at most 2_000_000" in problem


def test_a_percentage_too_large_to_convert_is_refused() -> None:
    assert _problems(_with("options.rake_percent", 10**5000, "cash", 12)) == [
        (
            "options.rake_percent: must be a percentage from 0 to 100 with at most two decimals,"
            " not a number of about 5_001 digits"
        )
    ]


def test_the_bounds_are_documented() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text()
    for largest in (MAX_ENTRANTS, MAX_CHIPS, MAX_CENTS, MAX_DEALS, MAX_FAULTS, MAX_SETS):
        assert f"{largest:,}" in text


# -- files that are not configs ----------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)) * 8, r"not a config: not UTF-8 text \(byte 128\)"),
        (
            '[event]\nname = "caf\xe9"\n'.encode("latin-1"),
            r"not a config: not UTF-8 text \(byte 19\)",
        ),
        (b"x = " + b"[" * 100_000 + b"]" * 100_000, "not a config: its TOML is nested too deeply"),
        (
            b"x = " + b"{a = " * 50_000 + b"}" * 50_000,
            "not a config: its TOML is nested too deeply",
        ),
        (b"[table]\ncap = 1" + b"0" * 5000, "not valid TOML: an integer of more than 4300"),
        (b"\x00\x01\x02 garbage", "not valid TOML"),
    ],
)
def test_a_file_that_is_not_a_config_is_refused_naming_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "event.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=f"^{re.escape(str(path))}: {message}"):
        load_config(path)


def test_a_directory_or_an_endless_file_is_not_a_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(tmp_path))}: cannot read the config"):
        load_config(tmp_path)
    monkeypatch.setattr("dp_arena.tournament.loading.MAX_CONFIG_BYTES", 1000)
    (tmp_path / "long.toml").write_text("# comment\n" * 101)
    with pytest.raises(ConfigError, match=r"long\.toml: not a config: larger than"):
        load_config(tmp_path / "long.toml")


def test_commands_report_a_bad_config_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dp_arena.cli import main

    path = tmp_path / "random.toml"
    path.write_bytes(bytes(range(255, -1, -1)) * 4)
    for command in (["plan", str(path)], ["run", str(path), "--executor", "serial"]):
        assert main(command) == 2
        error = capsys.readouterr().err
        assert error.startswith(f"dp-arena {command[0]}: {path}: not a config: not UTF-8 text")
        assert "Traceback" not in error


@pytest.mark.parametrize("players", ["0", "100000000", "-3"])
def test_plan_refuses_a_player_count_out_of_range(
    players: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from dp_arena.cli import main

    assert main(["plan", "regular", "--players", players]) == 2
    assert capsys.readouterr().err == (
        f"dp-arena plan: --players must be an integer from 1 to 1_000_000, not {players}\n"
    )
