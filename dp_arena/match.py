"""The duplicate match: k agents at a k-seat table, one table per rotation of the agents
around the seats, every table playing the same deals, each agent scored against its
seat position over deal blocks.

Structure. Agent ``a`` sits at seat ``(a + r) % k`` of table ``r`` (``r = 0..k-1``), so
over the k tables every agent holds every seat exactly once (two agents: each deal is
played twice with the seats swapped, as in the ACPC). Deal ``d`` uses the deck
``deck_for(key, 0, 0, d)`` and the button ``d % k`` at every table, and every player
starts every deal with the cap available. Each table copy of an agent is a seat of its
own (its own process when sandboxed), so copies share nothing.

Score. In deal ``d`` the *seat position* ``s`` is played once per table, by a different
agent each time; an agent's duplicate score for the deal is the mean, over its k plays,
of its net minus the mean net of that seat position in that deal. The k plays of one
deal form a **block**; the match reports, per agent, the mean block score in
milli-big-blinds per deal with a 95% Student-t interval over blocks
(:mod:`dp_arena.ratings.blocks`). Block scores are computed exactly from the integer
nets, so two copies of the same deterministic bot score exactly zero, and the block
scores of all agents sum to zero. Heads-up, an agent's score is simply its mean net
per hand played. Beside it, the **adjusted** score is the same computed from the nets
with the luck of the board and of the dealer's draws from bots' mixed strategies taken
out (:mod:`dp_arena.ratings.board_luck`, :mod:`dp_arena.ratings.action_luck`): unbiased,
and it needs fewer deals for the same interval.

Clairvoyance. Each agent's play is tested against the cards it could not see
(:mod:`dp_arena.ratings.clairvoyance`): a z-score, a p-value valid at any number of
deals, and a flag when the p-value is below one in a million, beside its score.

Key. The decks come from the match's :class:`~dp_arena.keys.EventKey`: a secret one made
when the config is (its commitment can be shown before the first deal and the key is in
the result), or a public seed for tests and demos. The bots' context names the event
``"match"`` and nothing else: no bot is told anything about the key.

Play. A match is table units of :mod:`dp_arena.units` (:func:`match_units`, one per
table): :func:`play_match` runs them one after the other in this process, and the
server's ladder runs the same units in a process of its own or on Ray.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from dp_arena.agents import FaultPolicy, Seat, parse_spec
from dp_arena.engine import Betting, HandState, TableRules, deck_for
from dp_arena.engine.rules import as_betting
from dp_arena.errors import ConfigError
from dp_arena.keys import EventKey
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.ratings.blocks import BlockSummary, summarize_blocks
from dp_arena.ratings.clairvoyance import Clairvoyance, Ledger
from dp_arena.ratings.evidence import FLAG_BELOW
from dp_arena.results import Fault, FaultKind, TableSessionResult
from dp_arena.rollouts import unit_values
from dp_arena.units import SeatAssignment, SeatOpener, TableUnit, run_unit
from dp_arena.units.specs import betting_problem, check_spec

__all__ = [
    "MATCH_EVENT",
    "AgentScore",
    "MatchConfig",
    "MatchResult",
    "SeatFactory",
    "betting_problem",
    "block_scores",
    "check_spec",
    "match_clairvoyance",
    "match_units",
    "open_agent_seat",
    "play_match",
    "roll_out",
    "seatings",
]

DEFAULT_POLICY = FaultPolicy()
MATCH_EVENT = "match"  # what the bots' context names the event: nothing about the key
# Rollouts per action of a drawn mix: each one costs a few times the match's own play.
MAX_ROLLOUTS = 64

# (spec, seat name) -> a seat; the default is open_agent_seat.
SeatFactory = Callable[[str, str], Seat]


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What a match plays: the agents' specs, the number of deals, the table's rules and
    the key of the decks: ``key``, else the public ``seed`` (predictable decks, for tests
    and demos), else a new secret key. Invalid values raise :class:`ConfigError` naming
    the field."""

    specs: tuple[str, ...]
    deals: int = 500
    betting: Betting = Betting.NO_LIMIT
    seed: int | None = None
    small_blind: int = 10
    big_blind: int = 20
    cap: int = 1000
    key: EventKey | None = field(default=None, repr=False)  # None: made in __post_init__
    # 0: the adjusted score values the dealer's draws with the fixed blend; K: with K
    # rollouts by fresh copies of the bots (dp_arena.rollouts).
    rollouts: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.specs, tuple):
            object.__setattr__(self, "specs", tuple(self.specs))
        if not 2 <= len(self.specs) <= 10:
            raise ConfigError(f"a match needs 2 to 10 agents, not {len(self.specs)}", field="specs")
        for name in ("deals", "seed"):
            value = getattr(self, name)
            if name == "seed" and value is None:
                continue
            if type(value) is not int or value < (1 if name == "deals" else 0):
                least = "a positive" if name == "deals" else "a non-negative"
                raise ConfigError(f"{name} must be {least} integer, not {value!r}", field=name)
        _check_rollouts(self.rollouts)
        if self.key is None:
            key = EventKey.secret() if self.seed is None else EventKey.from_seed(self.seed)
            object.__setattr__(self, "key", key)
        elif not isinstance(self.key, EventKey):
            raise ConfigError(
                f"key must be an EventKey, not {type(self.key).__name__}", field="key"
            )
        elif self.seed is not None and self.key != EventKey.from_seed(self.seed):
            raise ConfigError("give a seed or a key, not both", field="key")
        if not isinstance(self.betting, Betting):
            object.__setattr__(self, "betting", as_betting(self.betting))
        self.rules()  # validates blinds and cap

    @property
    def agent_count(self) -> int:
        return len(self.specs)

    @property
    def event_key(self) -> EventKey:
        """The key of the decks (always there once the config is made)."""
        assert self.key is not None
        return self.key

    @property
    def adjusted_terms(self) -> str:
        """What the adjusted score takes out, as results name it: ``"board+action"``,
        and with rollouts how many value each action (``"board+action (rollouts 8)"``)."""
        return f"board+action (rollouts {self.rollouts})" if self.rollouts else "board+action"

    def rules(self) -> TableRules:
        return TableRules(
            seat_count=len(self.specs),
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            betting=self.betting,
            cap=self.cap,
        )


def _check_rollouts(rollouts: object) -> None:
    if type(rollouts) is not int or not (rollouts == 0 or 2 <= rollouts <= MAX_ROLLOUTS):
        # One rollout per action adds more noise to a value than the value takes out of
        # the scores: it does worse than the fixed blend.
        raise ConfigError(
            f"rollouts must be 0 (the fixed blend) or 2 to {MAX_ROLLOUTS}, not {rollouts!r}:"
            " one rollout adds more noise than it takes out",
            field="rollouts",
        )


@dataclass(frozen=True, slots=True)
class AgentScore:
    """One agent's result: its duplicate score in mbb per deal over ``summary.count``
    deal blocks, the same with the luck of the board and of the dealer's draws taken out
    (``adjusted``; ``None`` when it was not computed), its total net in chips over all
    its hands, and its faults by kind."""

    index: int
    name: str
    spec: str
    summary: BlockSummary
    net: int
    hands: int
    fault_counts: tuple[tuple[FaultKind, int], ...]
    adjusted: BlockSummary | None = None
    clairvoyance: Clairvoyance | None = None

    @property
    def faults(self) -> int:
        return sum(count for _, count in self.fault_counts)

    def to_json(self) -> dict[str, Any]:
        summary = self.summary
        return {
            "name": self.name,
            "spec": self.spec,
            **_summary_json(summary),
            "adjusted": None if self.adjusted is None else _summary_json(self.adjusted),
            "blocks": summary.count,
            "hands": self.hands,
            "net_chips": self.net,
            "faults": {kind.value: count for kind, count in self.fault_counts},
            "clairvoyance": None if self.clairvoyance is None else self.clairvoyance.to_json(),
        }


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A finished match: its config, the agents' display names, who sat where
    (``seatings[table][seat]`` is an agent index), every table's result, the per-agent
    block scores in mbb (``block_scores[agent][deal]``; ``adjusted_block_scores`` the
    same with the luck of the board taken out, empty when not computed) and each
    agent's score."""

    config: MatchConfig
    names: tuple[str, ...]
    seatings: tuple[tuple[int, ...], ...]
    tables: tuple[TableSessionResult, ...]
    block_scores: tuple[tuple[float, ...], ...]
    scores: tuple[AgentScore, ...]
    faults: tuple[tuple[int, Fault], ...] = field(default=())  # (table, fault), in play order
    adjusted_block_scores: tuple[tuple[float, ...], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        config = self.config
        return {
            "match": {
                "specs": list(config.specs),
                "agents": list(self.names),
                "deals": config.deals,
                "tables": len(self.tables),
                "seats": config.agent_count,
                "betting": config.betting.value,
                "small_blind": config.small_blind,
                "big_blind": config.big_blind,
                "cap": config.cap,
                **config.event_key.reveal(),
                "unit": "mbb/deal",
                "confidence": 0.95,
                # The terms taken out: the board's luck and the dealer's draws', these
                # valued by the fixed blend or by rollouts.
                "adjusted": config.adjusted_terms if self.adjusted_block_scores else None,
                "clairvoyance_flag_below": FLAG_BELOW,
            },
            "agents": [score.to_json() for score in self.scores],
            "seatings": [list(seating) for seating in self.seatings],
            "faults": [
                {
                    "agent": self.names[self.seatings[table][fault.seat]],
                    "kind": fault.kind.value,
                    "table": table,
                    "seat": fault.seat,
                    "deal": fault.deal,
                    "street": fault.street,
                    "detail": fault.detail,
                    "substituted": fault.substituted,
                }
                for table, fault in self.faults
            ],
        }


def _summary_json(summary: BlockSummary) -> dict[str, Any]:
    return {
        "mbb_per_deal": _rounded(summary.mean),
        "ci95": None if summary.low is None else [_rounded(summary.low), _rounded(summary.high)],
        "std_error": _rounded(summary.standard_error),
    }


def _rounded(value: float | None) -> float | None:
    # A thousandth of a milli-big-blind is far below anything a match can resolve.
    return None if value is None else round(value, 3)


# -- structure and scoring ---------------------------------------------------------------


def seatings(agent_count: int) -> tuple[tuple[int, ...], ...]:
    """``seatings(k)[table][seat]``: the agent at ``seat`` of ``table``, one table per
    rotation (agent ``a`` sits at seat ``(a + table) % k``).

    >>> seatings(3)
    ((0, 1, 2), (2, 0, 1), (1, 2, 0))
    """
    return tuple(
        tuple((seat - table) % agent_count for seat in range(agent_count))
        for table in range(agent_count)
    )


def block_scores(
    tables: Sequence[TableSessionResult],
    seating: Sequence[Sequence[int]],
    big_blind: int,
    nets_of: Sequence[Sequence[Sequence[Fraction]]] | None = None,
) -> list[list[Fraction]]:
    """Exact per-agent, per-deal duplicate scores in milli-big-blinds:
    ``scores[agent][deal]`` is the mean over the agent's plays of the deal of its net
    minus the mean net of its seat position in that deal. The nets are the recorded
    ones, or ``nets_of[table][deal]`` (adjusted nets, one per seat)."""
    agent_count = len(seating)
    deal_count = len(tables[0].deals)
    scores = [[Fraction(0)] * deal_count for _ in range(agent_count)]
    for deal in range(deal_count):
        nets: list[Sequence[Fraction | int]] = [
            table.deals[deal].nets if nets_of is None else nets_of[index][deal]
            for index, table in enumerate(tables)
        ]
        position_totals = [
            sum(nets[table][seat] for table in range(agent_count)) for seat in range(agent_count)
        ]
        for table in range(agent_count):
            for seat in range(agent_count):
                agent = seating[table][seat]
                # (net - total / k) / k plays, in chips; x 1000 / big blind for mbb.
                excess = agent_count * nets[table][seat] - position_totals[seat]
                scores[agent][deal] += Fraction(
                    1000 * excess, agent_count * agent_count * big_blind
                )
    return scores


# -- seating agents ----------------------------------------------------------------------


def open_agent_seat(
    spec: str, *, name: str, trusted: bool = False, log_dir: Path | None = None
) -> Seat:
    """A seat for ``spec`` from :func:`dp_arena.sandbox.open_seat`: built-ins, and Python
    specs when ``trusted``, in-process; everything else in its own sandboxed process."""
    from dp_arena.sandbox import open_seat

    return open_seat(spec, name=name, trusted=trusted, log_dir=log_dir)


def agent_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: the spec's short name, numbered when several agents share it.

    >>> agent_names(["tag", "random", "tag"])
    ('tag#1', 'random', 'tag#2')
    """
    short = [parse_spec(spec).name for spec in specs]
    numbers: dict[str, int] = {}
    names = []
    for name in short:
        if short.count(name) > 1:
            numbers[name] = numbers.get(name, 0) + 1
            name = f"{name}#{numbers[name]}"
        names.append(name)
    return tuple(names)


# -- playing -----------------------------------------------------------------------------


def play_match(
    config: MatchConfig,
    *,
    trusted: bool = False,
    seat_factory: SeatFactory | None = None,
    policy: FaultPolicy = DEFAULT_POLICY,
    log_dir: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    adjusted: bool = True,
    clairvoyance: bool = True,
    on_rollouts: Callable[[int, int], None] | None = None,
) -> MatchResult:
    """Play the match and score it (with ``adjusted``, the luck-adjusted score too; with
    ``clairvoyance``, the clairvoyance test).
    Seats come from ``seat_factory(spec, name)`` (default :func:`open_agent_seat` with
    ``trusted`` and ``log_dir``), a fresh one for every table copy of every agent.
    ``on_progress(deals_played, deals_total)`` is told after every deal at every
    table.

    With ``config.rollouts``, once every table has played, each table's draws are valued
    by rollouts (:func:`roll_out`): fresh seats from the same factory, sandboxed bots'
    logs under ``log_dir/rollouts``; ``on_rollouts(deals_valued, deals_total)`` is told
    as each deal of each table is valued."""
    names = agent_names(config.specs)
    factory = seat_factory or (
        lambda spec, name: open_agent_seat(spec, name=name, trusted=trusted, log_dir=log_dir)
    )
    units = match_units(config, names, max_faults=policy.max_faults)
    total = config.deals * len(units)
    played = 0

    def progress(deal: int, state: HandState) -> None:
        nonlocal played
        played += 1
        if on_progress is not None:
            on_progress(played, total)

    def open_seat(seat: SeatAssignment) -> Seat:
        assert seat.spec is not None  # a match has no absent players
        return factory(seat.spec, seat.player)

    tables = tuple(run_unit(unit, on_deal=progress, open_seat=open_seat) for unit in units)
    if config.rollouts:
        # The same factory; by default the copies' logs apart from the real copies'.
        rollout_logs = None if log_dir is None else log_dir / "rollouts"
        copy_factory = seat_factory or (
            lambda spec, name: open_agent_seat(
                spec, name=name, trusted=trusted, log_dir=rollout_logs
            )
        )

        def open_copy(seat: SeatAssignment) -> Seat:
            assert seat.spec is not None
            return copy_factory(seat.spec, seat.player)

        tables = roll_out(config, units, tables, open_copy, on_progress=on_rollouts)
    return score_match(
        config,
        names,
        seatings(config.agent_count),
        tables,
        adjusted=adjusted,
        clairvoyance=clairvoyance,
    )


def roll_out(
    config: MatchConfig,
    units: Sequence[TableUnit],
    tables: Sequence[TableSessionResult],
    open_seat: SeatOpener,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[TableSessionResult, ...]:
    """The played ``tables`` (one per unit, every one played to its end) with every
    decision the dealer drew valued by ``config.rollouts`` rollouts
    (:func:`dp_arena.rollouts.unit_values`), played table by table by seats
    ``open_seat`` opens afresh for each table and closes after it: never the seats that
    played, nor those of another table. A rollout copy is dealt cards the real hands
    never showed, so no rollout may start before every mirrored table has played the
    deal; what a copy does is a fault of no match. ``on_progress(deals_valued,
    deals_total)`` is told as each deal of each table is valued."""
    total = sum(len(table.deals) for table in tables)
    valued = 0

    def deal_valued(deal: int) -> None:
        nonlocal valued
        valued += 1
        if on_progress is not None:
            on_progress(valued, total)

    rolled = [
        unit_values(unit, table, config.rollouts, opener=open_seat, on_deal=deal_valued)
        for unit, table in zip(units, tables, strict=True)
    ]
    return tuple(rolled)


def match_units(
    config: MatchConfig,
    names: Sequence[str],
    log_dir: str | None = None,
    *,
    house: Collection[str] = (),
    max_faults: int = DEFAULT_POLICY.max_faults,
) -> list[TableUnit]:
    """The table units of the match, one table per seating of :func:`seatings`, every
    table dealt ``deck_for(key, 0, 0, deal)`` with every seat starting each deal with the
    cap available: what :func:`play_match` plays, and the server's ladder. ``names``: the
    agents' players; ``house`` names those that are trusted (in-process); the bots' logs
    go under ``log_dir``, one folder per player."""
    rules = config.rules()
    seat_count = config.agent_count
    return [
        TableUnit(
            # Nothing about the key: a bot told the seed could compute every deck.
            event=MATCH_EVENT,
            event_seed=config.event_key.seed,
            session=0,
            section=0,
            table=table,
            rules=rules,
            deals=config.deals,
            seats=tuple(
                SeatAssignment(names[agent], config.specs[agent], trusted=names[agent] in house)
                for agent in seating
            ),
            starting_chips=((rules.cap or 0) * config.deals,) * seat_count,
            eliminating=False,
            max_faults=max_faults,
            log_dir=log_dir,
        )
        for table, seating in enumerate(seatings(seat_count))
    ]


def score_match(
    config: MatchConfig,
    names: tuple[str, ...],
    seating: tuple[tuple[int, ...], ...],
    tables: tuple[TableSessionResult, ...],
    *,
    adjusted: bool = True,
    clairvoyance: bool = True,
) -> MatchResult:
    """Score played tables: block scores (with ``adjusted``, luck-adjusted ones too),
    their summaries, nets and fault counts, and (with ``clairvoyance``) each agent's
    clairvoyance test."""
    exact = block_scores(tables, seating, config.big_blind)
    per_agent = tuple(tuple(float(score) for score in scores) for scores in exact)
    per_agent_adjusted: tuple[tuple[float, ...], ...] = ()
    if adjusted:
        rules = config.rules()
        corrected = [[board_action_nets(rules, deal) for deal in table.deals] for table in tables]
        per_agent_adjusted = tuple(
            tuple(float(score) for score in scores)
            for scores in block_scores(tables, seating, config.big_blind, corrected)
        )
    tested = match_clairvoyance(config, tables) if clairvoyance else {}
    faults = tuple(
        (table_index, fault) for table_index, table in enumerate(tables) for fault in table.faults
    )
    scores = []
    for agent, name in enumerate(names):
        counts = dict.fromkeys(FaultKind, 0)
        for table_index, fault in faults:
            if seating[table_index][fault.seat] == agent:
                counts[fault.kind] += 1
        net = sum(
            deal.nets[seat]
            for table_index, table in enumerate(tables)
            for seat in range(config.agent_count)
            if seating[table_index][seat] == agent
            for deal in table.deals
        )
        scores.append(
            AgentScore(
                index=agent,
                name=name,
                spec=config.specs[agent],
                summary=summarize_blocks(per_agent[agent]),
                net=net,
                hands=config.deals * len(tables),
                fault_counts=tuple(counts.items()),
                adjusted=summarize_blocks(per_agent_adjusted[agent]) if adjusted else None,
                clairvoyance=tested.get(name),
            )
        )
    return MatchResult(
        config, names, seating, tables, per_agent, tuple(scores), faults, per_agent_adjusted
    )


def match_clairvoyance(
    config: MatchConfig, tables: Sequence[TableSessionResult]
) -> dict[str, Clairvoyance]:
    """Each agent's clairvoyance test (by name), a block per deal over every table."""
    rules = config.rules()
    seed = config.event_key.seed
    ledger = Ledger()
    for table in tables:
        ledger.add_table(
            rules, table, lambda deal: deck_for(seed, 0, 0, deal), lambda deal: (deal,)
        )
    names = {player for table in tables for player in table.players}
    return {name: ledger.result(name) for name in sorted(names)}


def sandbox_available() -> bool:
    """Deprecated: always true. The sandbox ships with the package, so every untrusted
    agent runs sandboxed (:func:`dp_arena.sandbox.open_seat`)."""
    warnings.warn(
        "dp_arena.match.sandbox_available is deprecated: the sandbox is always available"
        " (dp_arena.sandbox.open_seat seats every agent)",
        DeprecationWarning,
        stacklevel=2,
    )
    return True
