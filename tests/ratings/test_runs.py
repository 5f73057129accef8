"""Reading run directories: a real event's blocks and comparisons against its
results.json, hand-made results for sections, absent players and draws, and clear
errors for broken files."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from dp_arena.engine import Betting, TableRules
from dp_arena.errors import RunError
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.equity import all_in_nets
from dp_arena.ratings.runs import bot_identity, load_run
from tests import run_files


def test_blocks_hold_every_entrants_nets(small_run: Path) -> None:
    data = run_files.results(small_run)
    event = load_run(small_run)
    assert event.has_adjusted and event.format == "sng-round-robin"
    (session,) = data["sessions"]
    expected_blocks = sum(
        len(match["table_results"][0]["deal_nets"]) for match in session["matches"]
    )
    assert len(event.blocks) == expected_blocks == 5 * 6
    for block in event.blocks:
        match = session["matches"][block.section - 1]
        assert match["match"] == block.section
        for play in block.plays:
            table = match["table_results"][play.table - 1]
            assert table["players"][play.seat] == play.player
            assert table["deal_nets"][block.deal][play.seat] == play.net
        assert len(block.plays) == 6  # 3 heads-up tables, nobody absent
        # The adjusted nets of each table sum to zero, like the real ones.
        for table in {play.table for play in block.plays}:
            assert sum(play.adjusted_net for play in block.plays if play.table == table) == 0  # type: ignore[misc]


def test_all_in_nets_differ_only_for_early_all_ins(small_run: Path) -> None:
    from dp_arena.rundir.store import RunStore

    event = load_run(small_run, adjust=all_in_nets)
    with RunStore.open(small_run) as store:
        records = {(s, x, t): result for s, x, t, result in store.results()}
    changed = 0
    for block in event.blocks:
        for play in block.plays:
            record = records[(block.session, block.section, play.table)].deals[block.deal]
            if play.adjusted_net != Fraction(play.net):
                changed += 1
                # Only a deal that went to a showdown with an incomplete board before the
                # last action can change: the record shows both hands reached the end.
                assert len(record.board) == 10  # five cards
                assert not any(action.endswith("fold") for action in record.actions)
    assert changed > 0  # the fixture's aggressive bot does go all in


def test_corrected_nets_differ_only_where_board_cards_came_or_the_dealer_drew(
    small_run: Path,
) -> None:
    from dp_arena.rundir.store import RunStore

    event = load_run(small_run)
    plan = json.loads((small_run / "results.json").read_text())["plan"]["sessions"][0]
    rules = TableRules(
        seat_count=2,
        small_blind=plan["small_blind"],
        big_blind=plan["big_blind"],
        betting=Betting(plan["betting"]),
        cap=plan["cap"],
    )
    with RunStore.open(small_run) as store:
        records = {(s, x, t): result for s, x, t, result in store.results()}
    changed = kept = 0
    for block in event.blocks:
        for play in block.plays:
            record = records[(block.session, block.section, play.table)].deals[block.deal]
            assert play.adjusted_net == board_action_nets(rules, record)[play.seat]
            if not record.mixes:  # no draw: the board's luck alone
                assert play.adjusted_net == corrected_nets(rules, record)[play.seat]
            if not record.board and not record.mixes:  # nothing to correct
                assert play.adjusted_net == play.net
                kept += 1
            changed += play.adjusted_net != play.net
    assert changed > 0 and kept > 0  # the fixture has deals of both kinds


def test_comparisons_follow_total_chips(small_run: Path) -> None:
    data = run_files.results(small_run)
    event = load_run(small_run)
    chips = {
        (match["match"], comparison["seat"], player): total
        for match in data["sessions"][0]["matches"]
        for comparison in match["comparisons"]
        for player, total in zip(comparison["players"], comparison["total_chips"], strict=True)
    }
    assert len(event.comparisons) == 5 * 2
    for comparison in event.comparisons:
        totals = [chips[(comparison.section, comparison.seat, p)] for p in comparison.players]
        assert totals == sorted(totals, reverse=True)
        for (a, place_a), (b, place_b) in zip(
            zip(totals, comparison.places, strict=True),
            list(zip(totals, comparison.places, strict=True))[1:],
            strict=False,
        ):
            assert (place_a == place_b) == (a == b)


def test_a_run_without_a_store_has_no_equity(small_run: Path, tmp_path: Path) -> None:
    copy = run_files.copy_results(small_run, tmp_path / "plain")
    event = load_run(copy)
    assert not event.has_adjusted
    assert all(play.adjusted_net is None for block in event.blocks for play in block.plays)
    assert event.label == "plain"


def _sections_results() -> dict[str, object]:
    """A hand-made results.json: one session, one section of 3 tables x 2 seats, two
    deals, an absent player at table 3 seat 1; seat 0's last two tied except for a draw."""
    return {
        "results_version": 1,
        "event": {"name": "hand made", "format": "regular", "seed": 3, "title": "x"},
        "entrants": [
            {"player": name, "spec": spec, "trusted": True}
            for name, spec in [
                ("a", "tag"),
                ("b", "registry:alice@2"),
                ("c", "random"),
                ("d", "random"),
                ("e", "tag"),
            ]
        ],
        "plan": {
            "sessions": [
                {
                    "session": 1,
                    "big_blind": 40,
                    "small_blind": 20,
                    "cap": 1000,
                    "betting": "pot-limit",
                }
            ]
        },
        "sessions": [
            {
                "session": 1,
                "kind": "sections",
                "sections": [
                    {
                        "section": 1,
                        "table_results": [
                            {
                                "table": 1,
                                "players": ["a", "b"],
                                "deal_nets": [[40, -40], [-20, 20]],
                                "faults": [],
                            },
                            {
                                "table": 2,
                                "players": ["c", "d"],
                                "deal_nets": [[0, 0], [20, -20]],
                                "faults": [],
                            },
                            {
                                "table": 3,
                                "players": ["e", None],
                                "deal_nets": [[0, 0], [20, -20]],
                                "faults": [],
                            },
                        ],
                        "players": [
                            {"player": "a", "seat": 0, "rank": 1, "decided_by": None},
                            {"player": "c", "seat": 0, "rank": 2, "decided_by": "total chips"},
                            {"player": "e", "seat": 0, "rank": 3, "decided_by": "draw"},
                            {"player": "b", "seat": 1, "rank": 1, "decided_by": None},
                            {"player": "d", "seat": 1, "rank": 2, "decided_by": "total chips"},
                            {"player": None, "seat": 1, "rank": 3, "decided_by": "absent"},
                        ],
                    }
                ],
            }
        ],
        "prizes": {"by_player": {"a": 500, "b": 0, "c": 0, "d": 0, "e": 0}},
        "faults": [],
    }


def _write(folder: Path, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_hand_made_sections(tmp_path: Path) -> None:
    event = load_run(_write(tmp_path / "made", _sections_results()))
    assert [block.big_blind for block in event.blocks] == [40, 40]
    first = event.blocks[0]
    assert [(p.player, p.table, p.seat, p.net) for p in first.plays] == [
        ("a", 1, 0, 40),
        ("b", 1, 1, -40),
        ("c", 2, 0, 0),
        ("d", 2, 1, 0),
        ("e", 3, 0, 0),
    ]
    seat0, seat1 = event.comparisons
    assert (seat0.players, seat0.places) == (("a", "c", "e"), (1, 2, 2))  # the draw is a tie
    assert (seat1.players, seat1.places) == (("b", "d"), (1, 2))  # the absent player is left out
    assert event.bots() == {"a": "tag", "b": "alice@2", "c": "random", "d": "random", "e": "tag"}
    assert dict(event.prizes)["a"] == 500


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("sessions"), r"results\.json: sessions: missing"),
        (
            lambda d: d["sessions"][0]["sections"][0]["table_results"][1].update(
                deal_nets=[[1, 0], [0, 0]]
            ),
            (
                r"sessions\[0\]\.sections\[0\]\.table_results\[1\]\.deal_nets\[0\]:"
                r" expected 2 nets that sum to zero"
            ),
        ),
        (
            lambda d: d["sessions"][0]["sections"][0]["players"][0].update(rank="first"),
            r"sessions\[0\]\.sections\[0\]\.players\[0\]\.rank: expected int, found str",
        ),
        (
            lambda d: d["sessions"][0].update(kind="cash"),
            r"sessions\[0\]\.kind: unknown session kind 'cash'",
        ),
        (
            lambda d: d["sessions"][0].update(session=9),
            r"sessions\[0\]: session 9 is not in the plan",
        ),
    ],
)
def test_broken_results_name_the_field(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = _sections_results()
    change(data)
    with pytest.raises(RunError, match=message):
        load_run(_write(tmp_path / "broken", data))


def test_missing_or_unreadable_results(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="is not a finished run directory"):
        load_run(tmp_path)
    (tmp_path / "results.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(RunError, match="not valid JSON"):
        load_run(tmp_path)


def test_a_store_that_disagrees_with_the_results_is_refused(
    small_run: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(small_run, copy)

    def tamper(data: dict) -> None:  # type: ignore[type-arg]
        nets = data["sessions"][0]["matches"][0]["table_results"][0]["deal_nets"][0]
        nets[0], nets[1] = nets[0] + 1, nets[1] - 1

    run_files.edit_results(copy, tamper)
    with pytest.raises(RunError, match=r"store's nets .* differ from results\.json's"):
        load_run(copy)
    assert not load_run(copy, adjust=None).has_adjusted


def test_bot_identity() -> None:
    assert bot_identity("registry:alice@3") == "alice@3"
    assert bot_identity("registry:alice") == "alice"
    assert bot_identity("calling-station") == "calling-station"
    assert bot_identity("bots/x.py:X") == "bots/x.py:X"
