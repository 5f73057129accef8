"""Whole classic freezeouts with built-in bots: occupancy within the classic house rules' limits at
every hand, every player in every hand round, chips conserved, busts placed by the
chips they started the hand with, late entrants' dead blinds, the payout, and the same
results.json for the same seed."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from dp_arena.errors import ConfigError
from dp_arena.tournament.classic.play import ClassicOutcome, finishing_order, play_classic
from dp_arena.tournament.classic.tables import allowed_spread
from dp_arena.tournament.event import run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import check_config, parse_config
from dp_arena.units import SerialExecutor

FIELD = ["tag", "random", "calling-station"]


def _config(players: int, seed: int = 1, **options: Any) -> Any:
    return parse_config(
        {
            "event": {"name": "classic test", "format": "classic", "seed": seed},
            "field": {"count": players, "from": FIELD},
            "options": options,
        }
    )


def _play(config: Any) -> tuple[Any, Any]:
    event_format = get_format("classic")
    plan = event_format.plan(config)
    return plan, event_format.play(config, plan, Runtime(SerialExecutor()))


LATE = {"tag-2": 7, "random-3": 26, "calling-station-4": 45}


@pytest.fixture(scope="module")
def big_event() -> tuple[Any, Any, Any]:
    """47 entrants (5 tables), three of them late: tables break and balance all along."""
    config = _config(47, seed=5, late_entrants=LATE)
    plan, result = _play(config)
    return config, plan, result


def test_occupancy_stays_within_the_seeds_limits_at_every_hand(big_event: Any) -> None:
    config, _, result = big_event
    outcome: ClassicOutcome = result.details
    by_round: dict[int, dict[int, int]] = defaultdict(dict)
    for hand in outcome.hands:
        by_round[hand.hand][hand.table] = len(hand.players)
    assert len(by_round) == outcome.hand_rounds and max(len(t) for t in by_round.values()) == 5
    for hand_round, sizes in sorted(by_round.items()):
        assert max(sizes.values()) <= 10
        spread = max(sizes.values()) - min(sizes.values())
        assert spread <= allowed_spread(len(sizes)), (hand_round, sizes)
    # Every player still in plays every hand round: nobody is left sitting out.
    alive = {entrant.player for entrant in config.entrants if entrant.player not in LATE}
    busted_by_round: dict[int, set[str]] = defaultdict(set)
    for bust in outcome.busts:
        busted_by_round[bust.hand].add(bust.player)
    arriving = {entry.hand: entry.player for entry in outcome.late_entries}
    for hand_round in sorted(by_round):
        if hand_round in arriving:
            alive.add(arriving[hand_round])
        seated = [p for hand in outcome.hands if hand.hand == hand_round for p in hand.players]
        assert sorted(seated) == sorted(alive), hand_round
        alive -= busted_by_round[hand_round]
    assert len(alive) == 1


def test_chips_are_conserved_and_stacks_carry_over(big_event: Any) -> None:
    _, _, result = big_event
    outcome: ClassicOutcome = result.details
    stacks: dict[str, int] = {}
    for entry in outcome.late_entries:
        assert entry.stack == 700 - entry.dead_chips
    late_stack = {entry.player: entry.stack for entry in outcome.late_entries}
    for hand in outcome.hands:
        assert sum(hand.nets) == 0
        for player, start, net in zip(hand.players, hand.starting_stacks, hand.nets, strict=True):
            assert start == stacks.get(player, late_stack.get(player, 700))
            stacks[player] = start + net
    winner = outcome.finishing_order[0][0]
    dead = sum(entry.dead_chips for entry in outcome.late_entries)
    assert stacks[winner] == 47 * 700 - dead  # the winner holds every chip still in play
    assert all(chips == 0 for player, chips in stacks.items() if player != winner)


def test_busts_are_placed_by_the_chips_they_started_the_hand_with(big_event: Any) -> None:
    _, plan, result = big_event
    outcome: ClassicOutcome = result.details
    place = {s.player: (s.place, s.place_to) for s in result.standings}
    assert sorted(place) == sorted(e.player for e in big_event[0].entrants)
    by_round: dict[int, list[Any]] = defaultdict(list)
    for bust in outcome.busts:
        by_round[bust.hand].append(bust)
        start = next(
            h.starting_stacks[h.players.index(bust.player)]
            for h in outcome.hands
            if h.hand == bust.hand and bust.player in h.players
        )
        assert bust.starting_chips == start > 0
    several = [busts for busts in by_round.values() if len(busts) > 1]
    assert several  # busts in the same hand round happened
    for busts in several:
        for first in busts:
            for second in busts:
                if first.starting_chips > second.starting_chips:
                    assert place[first.player][1] < place[second.player][0]
                elif first.starting_chips == second.starting_chips:
                    assert place[first.player] == place[second.player]  # they share
    # A later bust always places above an earlier one.
    for first in outcome.busts:
        for second in outcome.busts:
            if first.hand > second.hand:
                assert place[first.player][1] < place[second.player][0]
    # The payout: whole buy-ins, every cent of the pool paid, shared places share.
    assert sum(s.prize_cents for s in result.standings) == plan.prizes.pool_cents == 47 * 200
    assert all(s.prize_cents % 100 == 0 or s.place != s.place_to for s in result.standings)


def test_finishing_order_by_hand() -> None:
    from dp_arena.tournament.classic.play import Bust

    busts = [
        Bust("early", 3, 1, 700),
        Bust("big", 9, 1, 900),
        Bust("small", 9, 2, 150),
        Bust("small-too", 9, 1, 150),
    ]
    assert finishing_order({"left": 4000, "right": 2000}, busts) == [
        ["left"],
        ["right"],
        ["big"],
        ["small", "small-too"],
        ["early"],
    ]


def test_late_entrants_post_the_blinds_they_missed(big_event: Any) -> None:
    """Level 1 (10/20) lasts 20 hand rounds, level 2 (20/40) the next 20, level 3 (40/80)
    the next; a late entrant at a table of k players has missed one big blind each k
    hand rounds before it arrived, and gives up that level's small and big blind for
    each (at most half its stack)."""
    _, _, result = big_event
    outcome: ClassicOutcome = result.details
    assert [(entry.player, entry.hand) for entry in outcome.late_entries] == sorted(
        LATE.items(), key=lambda item: item[1]
    )
    for entry in outcome.late_entries:
        first = next(h for h in outcome.hands if entry.player in h.players)
        assert first.hand == entry.hand and first.table == entry.table
        table_players = len(first.players)
        blinds = {1: 30, 2: 60, 3: 120}
        missed = range(1, (entry.hand - 1) // table_players + 1)
        expected = sum(blinds[(k * table_players - 1) // 20 + 1] for k in missed)
        assert entry.dead_chips == min(expected, 350)
    assert any(entry.dead_chips > 0 for entry in outcome.late_entries)


def test_late_registration_closes_at_the_configured_level() -> None:
    _, problems = check_config(
        {
            "event": {"name": "x", "format": "classic"},
            "field": {"count": 6, "from": ["random"]},
            "options": {"late_entrants": {"random-1": 61}, "level_hands": 20},
        }
    )
    assert [str(p) for p in problems] == [
        (
            "options.late_entrants.random-1: arrives at hand 61, after late registration"
            " closes at hand 60 (the end of level 3 of 20 hands)"
        )
    ]
    with pytest.raises(ConfigError, match="not among the entrants"):
        get_format("classic").plan(_config(6, late_entrants={"nobody": 3}))
    with pytest.raises(ConfigError, match=r"table\.cap: a classic freezeout has no cap"):
        get_format("classic").plan(
            parse_config(
                {
                    "event": {"name": "x", "format": "classic"},
                    "field": {"count": 6, "from": ["random"]},
                    "table": {"cap": 1000},
                }
            )
        )


def test_a_late_entrant_arriving_after_the_others_finished_still_plays() -> None:
    """Two aggressive bots and a calling station: the field may be down to one player
    before the late entrant arrives; the survivor waits for it and they play on."""
    config = parse_config(
        {
            "event": {"name": "wait", "format": "classic", "seed": 2},
            "field": {"count": 3, "from": ["aggressive", "calling-station"]},
            "options": {"late_entrants": {"calling-station-1": 50}},
        }
    )
    _, result = _play(config)
    outcome: ClassicOutcome = result.details
    rounds = sorted({hand.hand for hand in outcome.hands})
    first = next(hand for hand in outcome.hands if "calling-station-1" in hand.players)
    assert first.hand == 50 and rounds[rounds.index(50) - 1] < 49  # the survivor waited
    assert sum(len(group) for group in outcome.finishing_order) == 3


def test_play_classic_returns_the_finishing_order() -> None:
    config = _config(12, seed=8)
    outcome = play_classic(config.entrants, event="luck", seed=8)
    assert sorted(p for group in outcome.finishing_order for p in group) == sorted(
        e.player for e in config.entrants
    )
    assert outcome.hands_played == len(outcome.hands) > 0
    again = play_classic(config.entrants, event="luck", seed=8)
    assert again.finishing_order == outcome.finishing_order and again.hands == outcome.hands


def test_same_seed_same_results(tmp_path: Path) -> None:
    config = _config(14, seed=4, late_entrants={"tag-1": 9})
    run_event(config, tmp_path / "a", executor=SerialExecutor())
    run_event(config, tmp_path / "b", executor=SerialExecutor())
    first = (tmp_path / "a" / "results.json").read_text()
    assert first == (tmp_path / "b" / "results.json").read_text()
    assert '"finishing_order"' in first


def test_the_shipped_config_plans_and_plays() -> None:
    from dp_arena.keys import EventKey
    from dp_arena.tournament.config import with_key
    from dp_arena.tournament.loading import load_config

    # The shipped config names no seed: a real run deals from a secret key, as here.
    shipped = load_config(Path(__file__).resolve().parents[3] / "configs" / "classic.toml")
    config = with_key(shipped, EventKey.secret())
    plan, result = _play(config)
    assert plan.prizes.total_cents == plan.prizes.pool_cents == 24 * 200
    assert sum(standing.prize_cents for standing in result.standings) == plan.prizes.pool_cents
    assert len(result.details.late_entries) == 2


def test_the_config_check_reports_what_only_the_whole_config_shows() -> None:
    config, problems = check_config(
        {
            "event": {"name": "x", "format": "classic"},
            "field": {"count": 6, "from": ["random"]},
            "table": {"big_blind": 40},
        }
    )
    assert config is None
    assert [str(problem) for problem in problems] == [
        (
            "table.big_blind: a classic freezeout has no cap and its blinds are"
            " options.blind_levels; remove it"
        )
    ]


def test_hand_histories_replay_to_the_recorded_stacks(tmp_path: Path) -> None:
    from dp_arena.engine.phh import replay_file

    config = _config(14, seed=6, late_entrants={"random-2": 4})
    event_format = get_format("classic")
    plan = event_format.plan(config)
    runtime = Runtime(SerialExecutor(), log_dir=str(tmp_path / "logs"))
    outcome: ClassicOutcome = event_format.play(config, plan, runtime).details
    tables = sorted({hand.table for hand in outcome.hands})
    assert outcome.histories == tuple(f"histories/classic-t{table:02d}.phhs" for table in tables)
    replayed = 0
    for table in tables:
        hands = [hand for hand in outcome.hands if hand.table == table]
        results = replay_file(tmp_path / f"histories/classic-t{table:02d}.phhs")
        assert len(results) == len(hands)
        for hand, result in zip(hands, results, strict=True):
            assert sorted(result.starting_stacks) == sorted(hand.starting_stacks)
            assert sorted(result.nets) == sorted(hand.nets)
            replayed += 1
    assert replayed == outcome.hands_played
