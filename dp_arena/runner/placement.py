"""Where a Ray cluster plays each table: the mirrored copies of a bot on different nodes.

The tables of one section of one session are dealt the same decks
(``deck_for(seed, section, session, deal)``), so a bot seated at two of them (one
entrant's mirrored copies in a match, or several entrants running the same code) holds
at one table the cards its opponents hold at another. Copies that play on one machine
share what its kernel keeps machine-wide (its page cache, file locks, its load), which
the sandbox narrows but cannot take away entirely (timing, docs/sandbox.md); copies on
different machines share none of it. So on a cluster of more than one node the driver
places each table itself (:func:`place`): on a node where no copy of its sandboxed bots
plays in that section yet, else where the fewest do, and among those on the node with
the least work for its CPUs. A section with more tables holding a bot than the cluster
has nodes puts some of its copies together, as few as it can. Built-ins and
trusted bots run in the worker's own process, vouched for by the organiser: they have
no say.

:class:`Placement` is what a run reports of it (``runner.json``, ``run.log`` and the
closing lines): the nodes, whether mirrors were kept apart, and the most copies of one
sandboxed bot in one section that played on one node, counted from where each table
did play.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dp_arena.agents.spec import BUILTINS
from dp_arena.units import TableUnit

__all__ = ["SERIAL", "MirrorCount", "Node", "Placement", "mirror_keys", "place"]


@dataclass(frozen=True, slots=True)
class Node:
    """A node of the cluster that can play tables: its Ray id and its CPUs."""

    node_id: str
    cpus: int


def mirror_keys(unit: TableUnit) -> frozenset[str]:
    """The sandboxed bots of ``unit``, by spec: a spec seated at two tables of a section
    is one bot with two copies there, whoever the entrants are."""
    return frozenset(
        seat.spec
        for seat in unit.seats
        if seat.spec is not None and not seat.trusted and seat.spec not in BUILTINS
    )


class MirrorCount:
    """The copies of each sandboxed bot of each section on each node, and the most of
    them seen on one node."""

    def __init__(self) -> None:
        self._copies: Counter[tuple[int, int, str, str]] = Counter()  # section, bot, node
        self.most = 0

    def on(self, node_id: str, unit: TableUnit) -> int:
        """How many copies of ``unit``'s sandboxed bots in its section ``node_id`` holds."""
        return sum(
            self._copies[unit.session, unit.section, key, node_id] for key in mirror_keys(unit)
        )

    def add(self, node_id: str, unit: TableUnit) -> None:
        """``unit`` plays on ``node_id``."""
        for key in mirror_keys(unit):
            place = (unit.session, unit.section, key, node_id)
            self._copies[place] += 1
            self.most = max(self.most, self._copies[place])


def place(units: Sequence[TableUnit], nodes: Sequence[Node]) -> list[str]:
    """The id of the node each of ``units`` plays on (see the module docstring): the
    same for the same units and nodes, whatever the order Ray lists its nodes in."""
    if not nodes:
        raise ValueError("no node to place tables on")
    ordered = sorted(nodes, key=lambda node: node.node_id)
    work = dict.fromkeys((node.node_id for node in ordered), 0)
    count = MirrorCount()
    chosen = []
    for unit in units:
        # Fewest copies of its bots first, then the least work for the node's CPUs.
        costs = [(count.on(node.node_id, unit), work[node.node_id] / node.cpus) for node in ordered]
        node = ordered[costs.index(min(costs))]
        count.add(node.node_id, unit)
        work[node.node_id] += unit.deals
        chosen.append(node.node_id)
    return chosen


@dataclass(frozen=True, slots=True)
class Placement:
    """How a run placed its tables. ``mode``: ``apart`` (mirrors on different nodes as
    far as the nodes go), ``off`` (the organiser turned it off: Ray placed them),
    ``one node`` (a cluster, or an embedded Ray, of one node) or ``serial`` (in the
    driver's process). ``most_together``: the most copies of one sandboxed bot in one
    section that played on one node, counted on a cluster of several nodes (0 when no
    table held a sandboxed bot; ``None`` on one machine, where they all did)."""

    mode: str
    nodes: int
    most_together: int | None = None

    def describe(self) -> str:
        """One line for people."""
        if self.mode == "serial":
            return "one machine (serial): mirrored copies of a bot share it"
        if self.mode == "one node":
            return "one node: mirrors share a machine"
        most = self.most_together or 0
        together = f"at most {most} copies of a sandboxed bot in one section shared a node"
        if self.mode == "off":
            return (
                f"mirrors apart turned off (--no-mirrors-apart): Ray placed the tables on"
                f" {self.nodes} nodes" + (f"; {together}" if most > 1 else "")
            )
        if most > 1:
            return (
                f"mirrors apart as far as {self.nodes} nodes go: {together} (more of the"
                " section's tables held it than the nodes could keep apart)"
            )
        return (
            f"mirrors apart on {self.nodes} nodes: the copies of a sandboxed bot in one"
            " section each played on a node of their own"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "nodes": self.nodes,
            "most_copies_on_a_node": self.most_together,
            "description": self.describe(),
        }


SERIAL = Placement("serial", 1)  # every table in the driver's own process
