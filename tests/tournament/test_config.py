"""Configs: the shipped configs load, bad ones give one clear error per problem (each
naming its field and the allowed values), all at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.tournament.config import (
    EventSettings,
    check_config,
    load_config,
    parse_config,
    with_key,
)
from dp_arena.tournament.formats import FORMATS, get_format

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
