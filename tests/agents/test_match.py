"""The duplicate match: rotation structure, exact scoring, faults, JSON, determinism, CLI."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import pytest

from dp_arena.agents import FaultPolicy
from dp_arena.cli import main
from dp_arena.engine import Betting
from dp_arena.errors import AgentError, ConfigError
from dp_arena.match import (
    MatchConfig,
    agent_names,
    block_scores,
    check_spec,
    play_match,
    seatings,
)
from dp_arena.results import DealRecord, FaultKind, TableSessionResult

BUGGY = Path(__file__).resolve().parent / "buggy_bots.py"
GREEDY = Path(__file__).resolve().parent / "greedy_learned.py"


def _match(*specs: str, deals: int = 12, seed: int = 5, **options: object):  # type: ignore[no-untyped-def]
    betting = options.pop("betting", Betting.NO_LIMIT)
    config = MatchConfig(tuple(specs), deals=deals, seed=seed, betting=betting)  # type: ignore[arg-type]
    return play_match(config, trusted=True, **options)  # type: ignore[arg-type]


# -- structure ---------------------------------------------------------------------------


@pytest.mark.parametrize("agent_count", range(2, 11))
def test_every_agent_sits_in_every_seat_exactly_once(agent_count: int) -> None:
    tables = seatings(agent_count)
    assert len(tables) == agent_count
    for table in tables:
        assert sorted(table) == list(range(agent_count))  # everyone plays at every table
    for seat in range(agent_count):
        assert sorted(table[seat] for table in tables) == list(range(agent_count))


def test_heads_up_plays_each_deal_twice_with_the_seats_swapped() -> None:
    assert seatings(2) == ((0, 1), (1, 0))


def test_played_tables_share_the_cards_and_rotate_the_agents() -> None:
    result = _match("tag", "random", "calling-station", deals=6)
    names = result.names
    assert len(result.tables) == 3
    for deal in range(6):
        records = [table.deals[deal] for table in result.tables]
        for seat in range(3):
            # The duplicate guarantee: seat k holds the same cards at every table...
            assert len({record.hole_cards[seat] for record in records}) == 1
            # ...and is played by each agent once.
            assert sorted(record.players[seat] for record in records) == sorted(names)
        assert {record.button for record in records} == {deal % 3}
        boards = sorted((record.board for record in records), key=len)
        assert all(board.startswith(boards[0]) for board in boards)  # same board, as far as dealt
        for record in records:
            assert sum(record.nets) == 0


# -- scoring -----------------------------------------------------------------------------


def _table(table: int, players: tuple[str, ...], nets: tuple[int, ...]) -> TableSessionResult:
    record = DealRecord(0, 0, players, ("",) * len(players), "", (), nets)
    return TableSessionResult(table, players, (record,), (), ())


def test_block_scores_match_a_hand_computed_three_way_deal() -> None:
    # Agents a0, a1, a2; table r seats agent (seat - r) % 3. Nets of one deal, by seat:
    #   table 0 (a0 a1 a2): 30 -10 -20;  table 1 (a2 a0 a1): -40 50 -10;
    #   table 2 (a1 a2 a0): 5 5 -10.
    # Seat means: seat 0 -5/3, seat 1 15, seat 2 -40/3.
    # a0 plays 30 (seat 0), 50 (seat 1), -10 (seat 2): excesses 95/3, 35, 10/3 -> mean 70/3 chips.
    # a1 plays -10, -10, 5 at seats 1, 2, 0: excesses -25, 10/3, 20/3 -> mean -5 chips.
    # a2 plays -20, -40, 5 at seats 2, 0, 1: excesses -20/3, -115/3, -10 -> mean -55/3 chips.
    # In mbb at a big blind of 20: x 50.
    tables = [
        _table(0, ("a0", "a1", "a2"), (30, -10, -20)),
        _table(1, ("a2", "a0", "a1"), (-40, 50, -10)),
        _table(2, ("a1", "a2", "a0"), (5, 5, -10)),
    ]
    scores = block_scores(tables, seatings(3), big_blind=20)
    assert scores == [[Fraction(3500, 3)], [Fraction(-250)], [Fraction(-2750, 3)]]


def test_heads_up_duplicate_score_is_the_mean_net_per_hand() -> None:
    result = _match("tag", "random", deals=40)
    for score in result.scores:
        assert score.hands == 80
        expected = 1000 * score.net / (score.hands * result.config.big_blind)
        assert score.summary.mean == pytest.approx(expected, abs=1e-9)
    assert result.scores[0].net == -result.scores[1].net


def test_block_scores_of_all_agents_sum_to_zero() -> None:
    result = _match("tag", "random", "aggressive", deals=15)
    for deal in range(15):
        assert sum(Fraction(scores[deal]) for scores in result.block_scores) == pytest.approx(
            0, abs=1e-9
        )
    assert len(result.block_scores[0]) == 15  # one block per deal, never one per hand


@pytest.mark.parametrize(
    "bot", ["calling-station", "aggressive", "tag", "equity", "learned-greedy"]
)
def test_two_copies_of_a_deterministic_bot_score_exactly_zero(bot: str) -> None:
    if bot == "learned-greedy":
        result = play_match(
            MatchConfig((f"{GREEDY}:Greedy", f"{GREEDY}:Greedy"), deals=30, seed=5),
            trusted=True,
        )
        assert all(set(scores) == {0.0} for scores in result.block_scores)
        return
    result = _match(bot, bot, deals=8 if bot == "equity" else 30)
    assert result.names == (f"{bot}#1", f"{bot}#2")
    for score in result.scores:
        assert set(result.block_scores[score.index]) == {0.0}
        assert score.summary.mean == 0.0
        assert (score.summary.low, score.summary.high) == (0.0, 0.0)


def test_copies_of_the_random_bot_answer_alike_and_are_told_apart_by_the_draws_only() -> None:
    """The random bot answers with its mix and the dealer draws from it, at each table
    from its own place: copies holding the same cards answer the same mix to the same
    first decision, draw apart, and score apart, within their intervals of zero."""
    result = _match("random", "random", "random", deals=30)
    for deal in range(30):
        first = {table.deals[deal].mixes[0] for table in result.tables}
        assert len(first) == 1  # the same mix at the same place of every table
    assert any(score != 0 for scores in result.block_scores for score in scores)
    for score in result.scores:
        for summary in (score.summary, score.adjusted):
            assert summary is not None and summary.low is not None
            assert summary.low <= 0 <= summary.high  # type: ignore[operator]


def test_different_bots_do_not_score_zero() -> None:
    result = _match("tag", "aggressive", deals=30)
    assert any(score != 0 for score in result.block_scores[0])


# -- faults ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bot", "kind"),
    [
        ("RaisingBot", FaultKind.ERROR),
        ("IllegalBot", FaultKind.ILLEGAL),
        ("GarbageBot", FaultKind.PROTOCOL),
    ],
)
def test_faults_are_counted_by_kind_and_the_faulty_seat_is_benched(
    bot: str, kind: FaultKind
) -> None:
    result = _match(f"{BUGGY}:{bot}", "calling-station", deals=10)
    faulty, station = result.scores
    # The bot acts in every deal (the station never folds); the third fault at a table
    # benches it (FaultPolicy's default), so each of the two tables records exactly three.
    assert dict(faulty.fault_counts) == {other: (6 if other is kind else 0) for other in FaultKind}
    assert station.faults == 0
    assert all(table.absent_seats == (table.players.index(bot),) for table in result.tables)
    for _, fault in result.faults:
        assert fault.kind is kind and fault.player == bot and fault.substituted in ("check", "fold")
    assert faulty.summary.mean < 0  # checking and folding loses to the station


def test_fault_policy_sets_when_a_seat_is_benched() -> None:
    result = _match(
        f"{BUGGY}:IllegalBot", "calling-station", deals=10, policy=FaultPolicy(max_faults=5)
    )
    assert dict(result.scores[0].fault_counts)[FaultKind.ILLEGAL] == 10


def test_a_single_fault_costs_one_decision_and_play_goes_on() -> None:
    result = _match(f"{BUGGY}:SecondDecisionFails", "tag", deals=10)
    assert dict(result.scores[0].fault_counts)[FaultKind.ILLEGAL] == 2  # once per table
    assert all(table.absent_seats == () for table in result.tables)


def test_a_sandboxed_bot_plays_exactly_as_it_does_in_process() -> None:
    config = MatchConfig((f"{BUGGY}:SecondDecisionFails", "random"), deals=6, seed=3)
    in_process = play_match(config, trusted=True).to_json()
    sandboxed = play_match(config, trusted=False)
    assert sandboxed.to_json() == in_process
    assert dict(sandboxed.scores[0].fault_counts)[FaultKind.ILLEGAL] == 2


# -- JSON, determinism, names, errors ----------------------------------------------------


def test_json_shape() -> None:
    result = _match(f"{BUGGY}:IllegalBot", "tag", "random", deals=6, betting=Betting.POT_LIMIT)
    data = json.loads(json.dumps(result.to_json()))
    assert data["match"] == {
        "specs": [f"{BUGGY}:IllegalBot", "tag", "random"],
        "agents": ["IllegalBot", "tag", "random"],
        "deals": 6,
        "tables": 3,
        "seats": 3,
        "betting": "pot-limit",
        "small_blind": 10,
        "big_blind": 20,
        "cap": 1000,
        "seed": 5,
        # A public seed is its own key: revealed as such, and flagged predictable.
        "key": f"{5:064x}",
        "commitment": hashlib.sha256((5).to_bytes(32, "big")).hexdigest(),
        "predictable": True,
        "unit": "mbb/deal",
        "confidence": 0.95,
        "adjusted": "board+action",
        "clairvoyance_flag_below": 1e-6,
    }
    assert [agent["name"] for agent in data["agents"]] == ["IllegalBot", "tag", "random"]
    for agent in data["agents"]:
        assert set(agent) == {
            "name",
            "spec",
            "mbb_per_deal",
            "ci95",
            "std_error",
            "adjusted",
            "blocks",
            "hands",
            "net_chips",
            "faults",
            "clairvoyance",
        }
        assert agent["blocks"] == 6 and agent["hands"] == 18
        clairvoyance = agent["clairvoyance"]
        assert set(clairvoyance) == {
            "z",
            "z_hole",
            "p",
            "flagged",
            "table",
            "deals",
            "decisions",
        }
        assert set(clairvoyance["table"]) == {"z_next", "z_river", "p", "flagged"}
        assert clairvoyance["flagged"] is False and 0 < clairvoyance["p"] <= 1
        assert 0 < clairvoyance["deals"] <= 6  # the illegal bot is benched after faults
        low, high = agent["ci95"]
        assert low <= agent["mbb_per_deal"] <= high
        adjusted = agent["adjusted"]
        assert set(adjusted) == {"mbb_per_deal", "ci95", "std_error"}
        assert adjusted["ci95"][0] <= adjusted["mbb_per_deal"] <= adjusted["ci95"][1]
        assert set(agent["faults"]) == {kind.value for kind in FaultKind}
    assert sum(agent["net_chips"] for agent in data["agents"]) == 0
    assert data["seatings"] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    assert len(data["faults"]) == data["agents"][0]["faults"]["ILLEGAL"] > 0
    assert sum(sum(agent["faults"].values()) for agent in data["agents"][1:]) == 0
    assert set(data["faults"][0]) == {
        "agent",
        "kind",
        "table",
        "seat",
        "deal",
        "street",
        "detail",
        "substituted",
    }
    assert data["faults"][0]["agent"] == "IllegalBot"


def test_same_seed_same_result_and_another_seed_another() -> None:
    first = _match("equity", "random", "aggressive", deals=5, seed=11).to_json()
    again = _match("equity", "random", "aggressive", deals=5, seed=11).to_json()
    other = _match("equity", "random", "aggressive", deals=5, seed=12).to_json()
    assert json.dumps(first) == json.dumps(again)
    assert first["agents"] != other["agents"]


def test_agent_names_are_unique() -> None:
    assert agent_names(["tag", "random", "tag", f"{BUGGY}:IllegalBot"]) == (
        "tag#1",
        "random",
        "tag#2",
        "IllegalBot",
    )


@pytest.mark.parametrize(
    ("field", "options"),
    [
        ("specs", {"specs": ("tag",)}),
        ("deals", {"deals": 0}),
        ("seed", {"seed": -1}),
        ("betting", {"betting": "limit"}),
    ],
)
def test_bad_config_names_the_field(field: str, options: dict[str, object]) -> None:
    values: dict[str, object] = {"specs": ("tag", "random"), **options}
    with pytest.raises(ConfigError) as error:
        MatchConfig(**values)  # type: ignore[arg-type]
    assert error.value.field == field


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("tagg", "not a built-in"),
        ("missing_bot.py:Bot", "no such file"),
        ("no_such_package.bots:Bot", "no module named"),
        ("", "non-empty"),
    ],
)
def test_bad_specs_are_refused_with_a_clear_error(spec: str, words: str) -> None:
    with pytest.raises(AgentError, match=words):
        check_spec(spec)


def test_registry_specs_are_checked_without_creating_a_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DP_ARENA_REGISTRY", str(tmp_path / "registry"))
    with pytest.raises(AgentError, match="no bot registry"):
        check_spec("registry:my-bot@1")
    assert not (tmp_path / "registry").exists()
    from dp_arena.registry import Registry

    Registry.default()  # an empty registry
    with pytest.raises(AgentError, match="no bot named 'my-bot'; it is empty"):
        check_spec("registry:my-bot@1")


def test_good_specs_pass_the_check() -> None:
    for spec in (
        "tag",
        "equity",
        f"{BUGGY}:IllegalBot",
        "dp_arena.agents.agent:Agent",
        "python3 -c pass",
    ):
        check_spec(spec)


# -- the command -------------------------------------------------------------------------


def test_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["match", "tag", "random", "--deals", "4", "--seed", "2", "--json", "--trusted", "--quiet"]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    expected = _match("tag", "random", deals=4, seed=2).to_json()
    assert data == expected


def test_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "match",
            f"{BUGGY}:IllegalBot",
            "calling-station",
            "--deals",
            "5",
            "--trusted",
            "--betting",
            "pot-limit",
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "capped pot-limit" in out and "mbb/deal" in out
    assert "ILLEGAL 6" in out and "First faults:" in out


def test_command_refuses_a_class_the_file_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["match", f"{BUGGY}:NoSuchBot", "tag", "--deals", "3", "--trusted", "--quiet"])
    assert status == 2
    err = capsys.readouterr().err
    assert "has no class NoSuchBot; did you mean" in err and f"{BUGGY}:RaisingBot" in err


def test_command_fails_when_an_agent_cannot_be_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "failing.py"
    bot.write_text("class Failing:\n    def __init__(self):\n        raise RuntimeError('no')\n")
    status = main(["match", f"{bot}:Failing", "tag", "--deals", "3", "--trusted", "--quiet"])
    assert status == 3  # a bot that could not be loaded (docs/agents.md, exit statuses)
    captured = capsys.readouterr()
    assert "LOAD_ERROR 2" in captured.out  # the match was still played and reported
    assert "Failing was not loaded (LOAD_ERROR)" in captured.err
    assert "Failing() failed: no" in captured.err


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["tagg", "random"], "'tagg' is not a built-in"),
        (["tag"], "2 to 10 agents"),
        (["tag", "random", "--deals", "0"], "deals must be a positive integer"),
        (["tag", "random", "--deals", "100001"], "--deals must be an integer from 1 to 100_000"),
        (["tag", "random", "--deals", "10" + "0" * 12], "from 1 to 100_000, not 1" + "0" * 12),
    ],
)
def test_command_refuses_bad_input(
    arguments: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", *arguments]) == 2
    assert words in capsys.readouterr().err


def test_progress_is_redrawn_at_most_ten_times_a_second_and_at_the_end() -> None:
    import io

    from dp_arena.commands.match import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = Progress(stream)
    progress.line.clock = lambda: 0.0  # no time passes: only the first and the last drawn
    for played in range(1, 401):
        progress.update(played, 400)
    assert stream.getvalue().count("\r") == 2
    assert stream.getvalue().endswith("\rmatch: 400/400 hands (100%)\x1b[K")
    progress.clear()
    assert stream.getvalue().endswith("\r\033[K")
    progress.rollouts(2, 4)
    progress.rollouts(4, 4)  # the last always drawn
    assert stream.getvalue().endswith("\rmatch: rollouts, 4/4 hands valued (100%)\x1b[K")


def test_progress_is_reported_for_every_hand() -> None:
    seen: list[tuple[int, int]] = []
    _match("tag", "random", "calling-station", deals=4, on_progress=lambda *args: seen.append(args))
    assert seen == [(played, 12) for played in range(1, 13)]


@pytest.mark.parametrize("rounds", ["0", "1001", "100000000"])
def test_demo_refuses_rounds_out_of_range(rounds: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rounds", rounds]) == 2
    assert capsys.readouterr().out == (
        f"dp-arena demo: --rounds must be an integer from 1 to 1000, not {rounds}\n"
    )
