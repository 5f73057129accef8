"""A ladder match as the core plays and checks it: its table units (one table per rotation
of its k players, every table dealt the same deals), its config and tables read back
from the database, its hand histories, and the checks anyone can run on a published
match (:func:`verify_match`) or an organiser holding its bots (:func:`replay_match`).

A match of k players is the duplicate match of :mod:`dp_arena.match`: agent ``a`` sits
at seat ``(a + t) % k`` of table ``t`` (:func:`~dp_arena.match.seatings`), deal ``d``
is dealt ``deck_for(key, 0, 0, d)`` at every table, and each agent is scored against
the players who held the same cards in the same seat. House bots (built-ins) play in
the match's process; every other bot is seated from the registry, sandboxed.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dp_arena.engine import Betting
from dp_arena.errors import DPArenaError, RunError
from dp_arena.keys import EventKey
from dp_arena.match import MATCH_EVENT, MatchConfig, match_clairvoyance, match_units, seatings
from dp_arena.registry import Registry, pinned_spec
from dp_arena.results import TableSessionResult
from dp_arena.runner.verify import check_draws, check_unit
from dp_arena.server.models import Match
from dp_arena.server.standings import LadderMatch, match_rules

if TYPE_CHECKING:
    from dp_arena.runner.replay import Replay

__all__ = [
    "MATCH_EVENT",
    "ladder_match",
    "match_config",
    "match_histories",
    "match_units",
    "replay_match",
    "tables_of",
    "verify_match",
]


def match_config(match: Match, specs: Sequence[str], key: EventKey) -> MatchConfig:
    return MatchConfig(
        specs=tuple(specs),
        deals=match.deals,
        betting=Betting(match.betting),
        small_blind=match.small_blind,
        big_blind=match.big_blind,
        cap=match.cap,
        key=key,
    )


def tables_of(match: Match) -> tuple[TableSessionResult, ...]:
    if match.tables is None:
        return ()
    return tuple(TableSessionResult.from_json(table) for table in json.loads(match.tables))


def ladder_match(match: Match, players: int) -> LadderMatch:
    """A finished match of ``players`` players as the standings take it."""
    rules = match_rules(players, match.small_blind, match.big_blind, match.betting, match.cap)
    seed = None if match.key_hex is None else EventKey.from_hex(match.key_hex).seed
    return LadderMatch(match.id, rules, tables_of(match), seed)


def _published_config(data: Mapping[str, Any], key: EventKey) -> MatchConfig:
    return MatchConfig(
        specs=("-",) * len(data["bots"]),
        deals=int(data["deals"]),
        betting=Betting(data["betting"]),
        small_blind=int(data["small_blind"]),
        big_blind=int(data["big_blind"]),
        cap=int(data["cap"]),
        key=key,
    )


def match_histories(data: Mapping[str, Any], table: int | None = None) -> str:
    """The PHHS text of a finished match's hands (``GET /api/matches/{id}``'s data):
    every deal at every table, deal by deal (each hand says its ``_table`` and
    ``_deal``, from 0), or one table's (``table``, from 0)."""
    from dp_arena.engine.phh import write_session
    from dp_arena.units.histories import empty_history, rebuild_hands

    key = EventKey.from_hex(str(data["key"]))
    players = [str(bot["ref"]) for bot in data["bots"]]
    units = match_units(_published_config(data, key), players)
    hands = []
    for unit, table_data in zip(units, data["tables"], strict=True):
        if table is not None and unit.table != table:
            continue
        history = empty_history(unit)
        for deal, state in rebuild_hands(unit, TableSessionResult.from_json(table_data)):
            history.record(deal, state)
        hands += [(meta.deal or 0, unit.table, state, meta) for state, meta in history.hands]
    hands.sort(key=lambda hand: (hand[0], hand[1]))
    return write_session((state, meta) for _, _, state, meta in hands)


def verify_match(
    data: dict[str, Any],
    *,
    replay_from: Path | None = None,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> list[str]:
    """The problems of a finished match's published data (``GET /api/matches/{id}``):
    its key against its commitment, every deal's cards against the key's decks, every
    deal's actions against its nets, and each bot's clairvoyance test against the one its
    tables and the key give. With ``replay_from`` (a bot registry), also every decision,
    played again by the match's bots from that registry (see :func:`replay_match`). An
    empty list when all is well."""
    problems: list[str] = []
    key_hex = data.get("key")
    if not isinstance(key_hex, str):
        return ["the match's key is not revealed (is the match finished?)"]
    key = EventKey.from_hex(key_hex)
    if hashlib.sha256(key.material).hexdigest() != data.get("commitment"):
        problems.append("the revealed key does not hash to the commitment")
    tables = tuple(TableSessionResult.from_json(table) for table in data["tables"])
    players = [str(bot["ref"]) for bot in data["bots"]]
    config = _published_config(data, key)
    if len(tables) != len(players):
        return [*problems, f"{len(players)} players need {len(players)} tables, not {len(tables)}"]
    for unit, result in zip(match_units(config, players), tables, strict=True):
        decks, hands = check_unit(unit, result)
        problems += decks + hands + check_draws(unit, result)[1]
    recorded_nets = [bot.get("net_chips") for bot in data["bots"]]
    if all(net is not None for net in recorded_nets):
        nets = match_nets(len(players), tables)
        problems += [
            f"{player}: the tables give {net:+,} net chips, the match says {recorded:+,}"
            for player, net, recorded in zip(players, nets, recorded_nets, strict=True)
            if net != recorded
        ]
    if not problems:
        tested = match_clairvoyance(config, tables)
        for bot in data["bots"]:
            published = bot.get("clairvoyance")
            if published is None:  # a match played before the test: nothing to check
                continue
            recomputed = tested[str(bot["ref"])].to_json()
            if published != recomputed:
                problems.append(
                    f"{bot['ref']}: the clairvoyance test published is {published},"
                    f" its tables and the key give {recomputed}"
                )
    if replay_from is not None:
        problems += replay_match(data, config, tables, replay_from, on_progress=on_progress)
    return problems


def match_nets(agents: int, tables: Sequence[TableSessionResult]) -> list[int]:
    """Each agent's net chips over a match's tables (seated as :func:`seatings` says)."""
    nets = [0] * agents
    for seating, table in zip(seatings(agents), tables, strict=True):
        for seat, agent in enumerate(seating):
            nets[agent] += table.session_nets[seat]
    return nets


def _replay_spec(bot: Mapping[str, Any], registry: Registry) -> tuple[str | None, list[str]]:
    """The spec that seats a published match's bot again (a house bot: its built-in, whose
    code must hash as it did), and why it cannot be."""
    from dp_arena.registry import content_hash
    from dp_arena.server.house import builtin_hash

    ref = str(bot["ref"])
    named = bot.get("sha256")
    if bot.get("house"):
        name = ref.partition("@")[0]
        try:
            found = builtin_hash(name)
        except (DPArenaError, OSError) as error:
            return None, [f"{ref}: the built-in cannot be found: {error}"]
        if named is not None and named != found:
            return None, [
                f"{ref}: the match played built-in code {named}, this dp-arena's is {found}"
            ]
        return name, []
    try:
        stored = registry.resolve(ref)
    except DPArenaError as error:
        return None, [f"{ref}: {error}"]
    refused = []
    if named is not None and named != stored.sha256:
        refused.append(f"{ref}: the match names content {named}, the registry {stored.sha256}")
    found = content_hash(stored.folder)
    if found != stored.sha256:
        refused.append(
            f"{ref}: its folder in the registry ({stored.folder}) hashes to {found}, not"
            f" to the {stored.sha256} its registry names: it was changed"
        )
    return pinned_spec(registry.root, stored), refused


def replay_match(
    data: dict[str, Any],
    config: MatchConfig,
    tables: Sequence[TableSessionResult],
    registry_root: Path,
    *,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> list[str]:
    """The problems found playing a finished match's tables again with its bots, seated
    from the registry at ``registry_root`` by their refs (each bot's folder must still
    hold the content the registry and the match name: :class:`RunError` otherwise; a
    house bot is its built-in, whose code must be the one played), one table at a time
    in reverse order, each bot asked every decision with the view it had (see
    :mod:`dp_arena.runner.replay`). Where a bot answers otherwise, the match played
    freely by the bots says which net chips their own play gives."""
    from dp_arena.runner.replay import FreePlay, replay_units

    players = [str(bot["ref"]) for bot in data["bots"]]
    house = {str(bot["ref"]) for bot in data["bots"] if bot.get("house")}
    registry = Registry.existing(registry_root)
    specs, refused = [], []
    for bot in data["bots"]:
        spec, problems = _replay_spec(bot, registry)
        refused += problems
        specs.append(spec or "-")
    if refused:
        raise RunError("the match cannot be replayed:\n  - " + "\n  - ".join(refused))
    config = dataclasses.replace(config, specs=tuple(specs))
    units = match_units(config, players, house=house)
    replay = replay_units(units[::-1], lambda unit: tables[unit.table], on_progress=on_progress)
    problems = replay.problems()
    if not replay.passed:
        free = FreePlay(lambda _: True, lambda _: {}).run(units)
        nets = match_nets(len(players), free)
        recorded = match_nets(len(players), tables)
        problems += [
            f"{player}: the bots' own play gives {net:+,} net chips, the match records {before:+,}"
            for player, net, before in zip(players, nets, recorded, strict=True)
            if net != before
        ]
    return problems


def log_files(folder: Path, ref: str) -> list[tuple[int, Path | None]]:
    """The log files of player ``ref``'s seats in a match's log folder (see
    :meth:`~dp_arena.server.settings.DataDir.match_logs`), with the table (from 1) each
    was written at: the sandbox names a player's copies ``NAME.log``, ``NAME.2.log``,
    ... in the order the tables are played."""
    from dp_arena.sandbox.dealer.process import log_path_stem

    seats = folder / ref
    if not seats.is_dir():
        return []
    stem = log_path_stem(ref)
    found: list[tuple[int, Path | None]] = []
    for path in seats.glob(f"{glob.escape(stem)}*.log"):
        middle = path.name[len(stem) : -len(".log")]
        if middle == "":
            found.append((1, path))
        elif middle.startswith(".") and middle[1:].isdigit():
            found.append((int(middle[1:]), path))
    return sorted(found, key=lambda item: item[0])
