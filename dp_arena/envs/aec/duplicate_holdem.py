"""Duplicate capped hold'em: the same deals at T mirrored tables, as one PettingZoo AEC
environment whose rewards compare each agent with its seat position.

| Creation | `from dp_arena.envs import duplicate_holdem_v0; env = duplicate_holdem_v0.env(tables=2)` |
|---|---|
| Actions | Discrete, as in `capped_holdem_v0` |
| Parallel API | No (turn-based) |
| Agents | `t{table}_p{seat}`: `t0_p0`, `t0_p1`, …, `t1_p0`, … (T x P agents) |
| Action shape | Discrete(2 + number of raise sizes) |
| Observation shape | as in `capped_holdem_v0` (each agent sees only its own table) |

Every table plays the same session of the same deals: at deal d every table is dealt
`deck_for(seed, 0, session, d)` with the same button, so seat k holds the same cards at
every table (the duplicate guarantee, docs/rules.md). Within a deal the tables play one after
the other: table 0's hand to its end, then table 1's, and so on.

### Rewards

After every deal, agent `t{t}_p{k}` gets

    (net of seat k at table t - mean net of seat k over the T tables) / big blind

its score against its seat position (the cash game's difference from the seat-position
average). The rewards of a seat position sum to zero. When the same policy holds a seat
position at every table, the mean is a baseline that has seen the same cards: the
reward keeps the effect of the policy's choices and removes most of the luck.

Observation, action mask, `infos[agent]["observation"]`, engine actions in `step()`,
illegal actions, seeding and rendering are exactly as in
:mod:`dp_arena.envs.capped_holdem_v0`; `tables` (1 to 30) is the one extra argument.

>>> tables = env(num_players=2, tables=2, deals=2)
>>> tables.reset(seed=3)
>>> tables.agents
['t0_p0', 't0_p1', 't1_p0', 't1_p1']
>>> tables.agent_selection
't0_p0'
>>> tables.step(0)  # the button folds at table 0; table 1 plays the same deal next
>>> hands = tables.unwrapped.hands
>>> tables.agent_selection, hands[1].hole_cards == hands[0].hole_cards
('t1_p0', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Unpack

from pettingzoo.utils import wrappers

from dp_arena.envs.aec.session import SessionEnv
from dp_arena.envs.deals import TableOptions

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(SessionEnv):
    """T mirrored tables; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**SessionEnv.metadata, "name": "duplicate_holdem_v0"}

    def __init__(
        self,
        num_players: int = 2,
        tables: int = 2,
        render_mode: str | None = None,
        **options: Unpack[TableOptions],
    ) -> None:
        super().__init__(num_players=num_players, tables=tables, render_mode=render_mode, **options)

    def agent_name(self, table: int, seat: int) -> str:
        return f"t{table}_p{seat}"

    def deal_rewards(self, nets: Sequence[Sequence[int]]) -> list[list[float]]:
        big_blind = self.rules.big_blind
        table_count = len(nets)
        means = [
            sum(table_nets[seat] for table_nets in nets) / table_count
            for seat in range(self.seat_count)
        ]
        return [
            [(table_nets[seat] - means[seat]) / big_blind for seat in range(self.seat_count)]
            for table_nets in nets
        ]
