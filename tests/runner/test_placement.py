"""Placing tables on a cluster's nodes: the mirrored copies of a sandboxed bot in one
section on different nodes as far as the nodes go, built-ins and trusted bots ignored,
the work shared by the nodes' CPUs, and what a run says of it (no Ray here: the Ray
test of it is ``test_ray_nodes.py``)."""

from __future__ import annotations

from collections import Counter

import pytest

from dp_arena.commands.run import executor_options
from dp_arena.engine import Betting, TableRules
from dp_arena.runner.executors import ExecutorOptions
from dp_arena.runner.placement import SERIAL, MirrorCount, Node, Placement, place
from dp_arena.units import SeatAssignment, TableUnit

RULES = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT, cap=1000)
TWO = [Node("b-node", 1), Node("a-node", 1)]


def unit(
    section: int, table: int, *specs: str, session: int = 0, trusted: bool = False
) -> TableUnit:
    return TableUnit(
        event="placement",
        event_seed=1,
        session=session,
        section=section,
        table=table,
        rules=RULES,
        deals=6,
        seats=tuple(
            SeatAssignment(f"p{section}-{table}-{seat}", spec, trusted)
            for seat, spec in enumerate(specs)
        ),
        starting_chips=(1000, 1000),
        eliminating=False,
    )


def most_together(units: list[TableUnit], nodes: list[str]) -> int:
    count = MirrorCount()
    for table, node in zip(units, nodes, strict=True):
        count.add(node, table)
    return count.most


def test_a_matchs_two_tables_play_on_two_nodes() -> None:
    units = [unit(0, table, "bot.py:Bot", "calling-station") for table in range(2)]
    nodes = place(units, TWO)
    assert sorted(nodes) == ["a-node", "b-node"]
    assert most_together(units, nodes) == 1


def test_more_tables_than_nodes_share_them_evenly() -> None:
    units = [unit(0, table, "bot.py:Bot", "other.py:Bot") for table in range(6)]
    nodes = place(units, [*TWO, Node("c-node", 1)])
    assert Counter(nodes) == {"a-node": 2, "b-node": 2, "c-node": 2}
    assert most_together(units, nodes) == 2


def test_a_teams_copies_in_one_section_are_kept_apart_and_sections_do_not_mix() -> None:
    """Four tables of a section; the team's bot at tables 0 and 2 (as several entrants),
    another bot at 1 and 3: each bot's two copies on two nodes. The next section (other
    decks) and the next session start afresh."""
    units = [
        unit(0, 0, "team.py:Bot", "random"),
        unit(0, 1, "solo.py:Bot", "random"),
        unit(0, 2, "team.py:Bot", "random"),
        unit(0, 3, "solo.py:Bot", "random"),
        unit(1, 0, "team.py:Bot", "random"),
        unit(1, 1, "team.py:Bot", "random"),
        unit(0, 0, "team.py:Bot", "random", session=1),
        unit(0, 1, "team.py:Bot", "random", session=1),
    ]
    nodes = place(units, TWO)
    assert nodes[0] != nodes[2] and nodes[1] != nodes[3]
    assert nodes[4] != nodes[5] and nodes[6] != nodes[7]
    assert most_together(units, nodes) == 1


def test_built_ins_and_trusted_bots_have_no_say_and_the_work_follows_the_cpus() -> None:
    units = [unit(0, table, "random", "tag") for table in range(8)]
    units += [unit(0, table, "mine.py:Bot", "tag", trusted=True) for table in range(8, 16)]
    nodes = place(units, [Node("big", 3), Node("small", 1)])
    assert Counter(nodes) == {"big": 12, "small": 4}
    assert most_together(units, nodes) == 0


def test_the_placement_does_not_depend_on_the_order_nodes_are_listed_in() -> None:
    tables = [(section, table) for section in range(3) for table in range(3)]
    units = [unit(section, table, f"bot{section}.py:Bot", "tag") for section, table in tables]
    nodes = [Node("c", 2), Node("a", 1), Node("b", 1)]
    assert place(units, nodes) == place(units, list(reversed(nodes)))
    with pytest.raises(ValueError, match="no node"):
        place(units, [])


def test_what_a_run_says_of_its_placement() -> None:
    assert SERIAL.describe() == "one machine (serial): mirrored copies of a bot share it"
    assert SERIAL.to_json()["most_copies_on_a_node"] is None  # not counted: all share it
    assert Placement("one node", 1).describe() == "one node: mirrors share a machine"
    apart = Placement("apart", 2, 1)
    assert apart.describe().startswith("mirrors apart on 2 nodes:")
    assert apart.to_json() == {
        "mode": "apart",
        "nodes": 2,
        "most_copies_on_a_node": 1,
        "description": apart.describe(),
    }
    assert "at most 3 copies of a sandboxed bot in one section shared a node" in (
        Placement("apart", 2, 3).describe()
    )
    assert "turned off (--no-mirrors-apart)" in Placement("off", 4, 2).describe()


def test_mirrors_apart_is_on_unless_the_organiser_turns_it_off() -> None:
    import argparse

    from dp_arena.commands.run import add_executor_arguments

    parser = argparse.ArgumentParser()
    add_executor_arguments(parser)
    assert executor_options(parser.parse_args([])).mirrors_apart
    assert not executor_options(parser.parse_args(["--no-mirrors-apart"])).mirrors_apart
    assert ExecutorOptions().mirrors_apart
