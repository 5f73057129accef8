"""ACPC agents enter unchanged: the mapping between a dp-arena table and the ACPC dealer
protocol (checked against the protocol's own published examples), and an ACPC agent
written in C for these tests from the protocol's description, built here with the host's
``cc``, playing sandboxed through the shim: matches heads-up and six-handed without a
fault, the conformance check, an event that ``dp-arena verify --replay`` passes, its
broken replies as faults, and pot-limit refused with the reason."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dp_arena.agents import SessionContext, observe
from dp_arena.cli import main
from dp_arena.engine import Action, Betting, TableRules, format_cards, new_hand, parse_cards
from dp_arena.sandbox.bot.acpc import Game, Hand, Reply, Unplayable, game_of, parse_reply

AGENT_SOURCE = Path(__file__).resolve().parent / "acpc_agent" / "player.c"

# -- the mapping -------------------------------------------------------------------------


def test_the_game_definition_numbers_players_from_the_seat_after_the_button() -> None:
    heads_up = Game(players=2, small_blind=10, big_blind=20, stack=1000).definition()
    assert "blind = 20 10\n" in heads_up and "firstPlayer = 2 1 1 1\n" in heads_up
    assert "stack = 1000 1000\n" in heads_up and "nolimit\n" in heads_up
    six = Game(players=6, small_blind=10, big_blind=20, stack=1000).definition()
    assert "blind = 10 20 0 0 0 0\n" in six and "firstPlayer = 3 1 1 1\n" in six
    assert "numBoardCards = 0 3 1 1\n" in six and "numRounds = 4\n" in six


def _deck(first: str, second: str, board: str) -> list[int]:
    """A heads-up deck: each seat's cards, dealt one at a time from the seat after the
    button, then the board with a card burnt before each street's."""
    a, b, cards = parse_cards(first), parse_cards(second), parse_cards(board)
    rest = [card for card in range(52) if card not in {*a, *b, *cards}]
    burn = [rest.pop() for _ in range(3)]
    dealt = [a[0], b[0], a[1], b[1], burn[0], *cards[:3], burn[1], cards[3], burn[2], cards[4]]
    return [*dealt, *rest]


def _states(
    seat: int, actions: list[tuple[int, Action]], deck: list[int], number: int
) -> list[str]:
    """Every match state the agent in ``seat`` is sent over a hand of the protocol's
    examples: no-limit, blinds 50/100, stacks 20,000, seat 1 the button."""
    rules = TableRules(
        seat_count=2, small_blind=50, big_blind=100, betting=Betting.NO_LIMIT, cap=20000
    )
    state = new_hand(rules, deck, button=1)
    for actor, action in actions:
        assert state.actor == actor
        state.apply(action)
    assert state.is_complete
    ended: dict[str, Any] = observe(state, seat, SessionContext()).to_json()
    hole = ended["hole_cards"]
    hand = Hand(Game(2, 50, 100, 20000), seat=seat, button=1, hole=hole, number=number)
    board = format_cards(state.board if state.showdown_values else state.visible_board)
    shown = [
        format_cards(state.hole_cards[s]) if s in state.showdown_values else None for s in (0, 1)
    ]
    final_round = {0: 0, 3: 1, 4: 2, 5: 3}[len(board) // 2]
    return hand.states(ended["history"], board, since=0, current_round=final_round, shown=shown)


def test_a_hand_of_the_protocols_examples_is_told_state_by_state() -> None:
    # The ACPC protocol's two-player no-limit example, hand 30, seen from position 0.
    deck = _deck("9s8h", "9c6h", "8c8d5c6s2d")
    call, check = Action.call(), Action.check()
    actions = [(1, call), (0, check), (0, Action.raise_to(150)), (1, call)]
    actions += [(0, Action.raise_to(250)), (1, call), (0, Action.raise_to(750)), (1, call)]
    assert _states(0, actions, deck, 30) == [
        "MATCHSTATE:0:30::9s8h|",
        "MATCHSTATE:0:30:c:9s8h|",
        "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c",
        "MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c",
        "MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s",
        "MATCHSTATE:0:30:cc/r250c/r500:9s8h|/8c8d5c/6s",
        "MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d",
        "MATCHSTATE:0:30:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d",
        "MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d",
    ]


def test_an_all_in_goes_to_the_last_round_with_the_cards_shown() -> None:
    # Hand 31 of the same example, seen from position 1 (the button): raises to totals in
    # the hand, an all-in on the turn called, the river dealt without betting.
    deck = _deck("KsJs", "JdTc", "6dJc9cKhQc")
    call = Action.call()
    actions = [(1, Action.raise_to(300)), (0, Action.raise_to(900)), (1, call)]
    actions += [(0, Action.raise_to(900)), (1, Action.raise_to(2700))]
    actions += [(0, Action.raise_to(8100)), (1, call), (0, Action.raise_to(11000)), (1, call)]
    assert _states(1, actions, deck, 31) == [
        "MATCHSTATE:1:31::|JdTc",
        "MATCHSTATE:1:31:r300:|JdTc",
        "MATCHSTATE:1:31:r300r900:|JdTc",
        "MATCHSTATE:1:31:r300r900c/:|JdTc/6dJc9c",
        "MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c",
        "MATCHSTATE:1:31:r300r900c/r1800r3600:|JdTc/6dJc9c",
        "MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c",
        "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/:|JdTc/6dJc9c/Kh",
        "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh",
        "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc",
    ]


@pytest.mark.parametrize(
    ("action", "reply"),
    [
        ("f", Reply("fold")),
        ("c", Reply("call")),
        ("K", Reply("call")),
        ("r250", Reply("raise", 250)),
    ],
)
def test_replies_are_the_acpc_actions(action: str, reply: Reply) -> None:
    state = "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c"
    assert parse_reply(f"{state}:{action}", state) == reply


@pytest.mark.parametrize(
    ("line", "refusal"),
    [
        ("MATCHSTATE:0:29:cc/:9s8h|/8c8d5c:c", "does not answer the state it was sent"),
        ("MATCHSTATE:0:30:cc/:9s8h|/8c8d5c:x", "is not f, c, k or r<chips>"),
        ("MATCHSTATE:0:30:cc/:9s8h|/8c8d5c:r", "has no size"),
    ],
)
def test_a_broken_reply_says_what_is_wrong(line: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=refusal.replace("<", ".").replace(">", ".")):
        parse_reply(line, "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c")


def test_pot_limit_and_uncapped_tables_cannot_be_played() -> None:
    table = {"seat_count": 2, "small_blind": 10, "big_blind": 20, "cap": 1000}
    assert game_of({**table, "betting": "no-limit"}) == Game(2, 10, 20, 1000)
    with pytest.raises(Unplayable, match="no-limit hold'em only"):
        game_of({**table, "betting": "pot-limit"})
    with pytest.raises(Unplayable, match="capped"):
        game_of({**table, "betting": "no-limit", "cap": None})


# -- the agent, sandboxed -----------------------------------------------------------------


@pytest.fixture(scope="module")
def player(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ACPC test agent, built with the host's C compiler."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) here to build the ACPC test agent")
    binary = tmp_path_factory.mktemp("acpc") / "player"
    subprocess.run(
        [
            "cc",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-std=c99",
            "-o",
            str(binary),
            str(AGENT_SOURCE),
        ],
        check=True,
        capture_output=True,
    )
    return binary


def _agent_folder(root: Path, player: Path, name: str = "acpc", mode: str = "") -> Path:
    folder = root / name
    folder.mkdir()
    shutil.copy2(player, folder / "player")
    command = "./player {game} {host} {port}" + (f" {mode}" if mode else "")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nprotocol = "acpc"\ncommand = "{command}"\n'
    )
    return folder


@pytest.fixture()
def agent(tmp_path: Path, player: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return _agent_folder(tmp_path, player)


def _match(capsys: pytest.CaptureFixture[str], *arguments: str) -> dict[str, Any]:
    assert main(["match", *arguments, "--seed", "5", "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_an_acpc_agent_plays_a_sandboxed_heads_up_match_to_the_end_without_a_fault(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    result = _match(capsys, "acpc/", "random", "--deals", "150", "--log-dir", str(logs))
    assert result["faults"] == []
    assert result["agents"][0]["name"] == "acpc" and result["agents"][0]["hands"] == 300
    # The agent saw every hand end: each copy of it played one table of 150 deals.
    ends = [
        sum(line.startswith("hand ") for line in log.read_text().splitlines())
        for log in logs.glob("acpc*.log")
    ]
    assert sorted(ends) == [150, 150]


def test_an_acpc_agent_plays_six_handed(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    others = ["random", "tag", "calling-station", "aggressive", "random"]
    result = _match(capsys, "acpc/", *others, "--deals", "12")
    assert result["faults"] == [] and result["match"]["seats"] == 6


def test_an_acpc_agent_passes_the_conformance_check_on_no_limit_alone(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-agent", "acpc/", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["repeatable"] and report["bot_name"] == "acpc:player"
    assert report["coverage"]["no-limit"] == report["random_state_decisions"] == 200
    assert "pot-limit" not in report["coverage"]


def test_an_event_with_an_acpc_agent_passes_verify_and_its_replay(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "event.toml"
    config.write_text(
        '[event]\nname = "ACPC"\nformat = "quickplay"\nseed = 11\n\n'
        '[[entrants]]\nname = "acpc"\nagent = "acpc/"\n\n'
        '[field]\ncount = 5\nfrom = ["random", "tag", "calling-station"]\n'
    )
    run = ["run", str(config), "--run-dir", "run", "--executor", "serial", "--quiet"]
    assert main(run) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    [entrant] = [item for item in results["entrants"] if item["player"] == "acpc"]
    assert entrant["code"]["kind"] == "folder" and entrant["code"]["sha256"]
    assert results["faults"] == []
    capsys.readouterr()
    assert main(["verify", "run", "--replay", "--quiet"]) == 0
    assert "every check passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("mode", "kind", "detail"),
    [
        ("garbage", "PROTOCOL", "is not f, c, k or r<chips>"),
        ("stale", "PROTOCOL", "does not answer the state it was sent"),
        ("tiny", "ILLEGAL", ""),
    ],
)
def test_a_broken_or_illegal_reply_is_a_fault_and_the_match_goes_on(
    mode: str,
    kind: str,
    detail: str,
    tmp_path: Path,
    player: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    _agent_folder(tmp_path, player, mode=mode)
    result = _match(capsys, "acpc/", "calling-station", "--deals", "6")
    kinds = {fault["kind"] for fault in result["faults"]}
    assert kinds == {kind}, result["faults"]
    assert all(detail in fault["detail"] for fault in result["faults"])
    assert result["agents"][0]["hands"] == 12  # every deal played, the agent benched or not


def test_pot_limit_refuses_an_acpc_agent_with_the_reason(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", "acpc/", "random", "--betting", "pot-limit"]) == 2
    assert "ACPC agent, which play no-limit hold'em only" in capsys.readouterr().err
    for event_format in ("short", "classic"):
        config = tmp_path / f"{event_format}.toml"
        config.write_text(
            f'[event]\nname = "x"\nformat = "{event_format}"\nseed = 1\n\n'
            '[[entrants]]\nname = "acpc"\nagent = "acpc/"\n\n'
            '[field]\ncount = 7\nfrom = ["random"]\n'
        )
        assert main(["plan", str(config), "--no-load"]) == 2
        err = capsys.readouterr().err
        assert "entrants[0].agent (acpc): an ACPC agent plays capped no-limit" in err
        assert ("pot-limit in session" if event_format == "short" else "no cap") in err


def test_a_submitted_acpc_agent_is_seated_from_the_registry(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = ["--registry", str(tmp_path / "registry")]
    assert main(["submit", "acpc/", *registry, "--states", "40"]) == 0
    assert "accepted acpc@1" in capsys.readouterr().out
    result = _match(capsys, "registry:acpc", "random", "--deals", "20", *registry)
    assert result["faults"] == [] and result["agents"][0]["name"] == "acpc"
