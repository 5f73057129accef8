"""Capped hold'em at one table, as a PettingZoo AEC environment.

| Creation | `from dp_arena.envs import capped_holdem_v0; env = capped_holdem_v0.env()` |
|---|---|
| Actions | Discrete |
| Parallel API | No (turn-based) |
| Agents | `player_0` … `player_{P-1}` (seat k is `player_k`) |
| Number of agents | P = `num_players`, 2 to 10 |
| Action shape | Discrete(2 + number of raise sizes); Discrete(6) by default |
| Observation shape | dict: `observation` float32 (117 + 14P,), `action_mask` int8 (actions,) |

One table of capped hold'em (docs/rules.md) plays one **session**: `deals` deals, whole rounds
of the button (the button is at seat 0 on deal 0 and moves one seat left a deal). Every
player starts every deal with the cap C available; the rules (blinds, minimum raises,
pot limit, short all-ins, side pots, odd chips) are the engine's, :mod:`dp_arena.engine`.

### Arguments

```python
capped_holdem_v0.env(num_players=2, betting="no-limit", cap=1000, blinds=(10, 20),
                     deals=None, raise_sizes=("min", 0.5, 1, "all-in"),
                     observation_format="dict", render_mode=None)
```

- `betting`: `"no-limit"` or `"pot-limit"`; `cap`: the most a player may commit in a deal;
- `deals`: deals per episode, a multiple of `num_players` (default: one round);
- `raise_sizes`: the raise actions, each `"min"`, `"all-in"` (the maximum: all-in in
  no-limit, the pot in pot-limit) or a fraction of the pot;
- `observation_format`: `"dict"` (below) or `"flat"`: the vector alone, a `Box`, with the
  mask in `infos[agent]["action_mask"]` (what SuperSuit's wrappers and CleanRL-style
  code take);
- `render_mode`: `None`, `"ansi"` (`render()` returns the table as text) or `"human"`
  (printed after every step).

### Observation

`observe(agent)` returns `{"observation": vector, "action_mask": mask}`. The vector is
the one observation encoding of every environment, :mod:`dp_arena.envs.encoding`, whose
docstring tables its `117 + 14P` entries: the own hole cards and the board, the street
and position, the pot, the amounts to call and raise to, the cap graphic, the deal and
session, then each seat relative to the observer (relative seat r is r places to its
left) and the betting history of each street; chips are divided by the cap C.

`infos[agent]` of the player to act holds `"observation"`, its typed
:class:`dp_arena.agents.Observation` (the one every bot's `act()` receives), so rule-based
bots and learners see the same game, and `"action_mask"`; the other agents' infos are
empty. Infos are plain data: they pickle, and stay true however long they are kept.

### Actions and the action mask

| action | meaning |
|---|---|
| 0 | fold (masked when nothing is owed: check instead) |
| 1 | check, or call when something is owed (never masked for the player to act) |
| 2 … | raise to each configured size, clipped to [min raise-to, max raise-to]; masked when raising is not allowed |

With the default sizes: 2 = minimum raise, 3 = half-pot, 4 = pot, 5 = all-in. A pot
fraction f raises to current bet + ⌊f x (pot + owed)⌋. `step()` also accepts a
:class:`dp_arena.engine.Action` (a rule-based bot's answer, validated by the engine). An
action the mask forbids raises :class:`dp_arena.errors.IllegalActionError` naming the
agent, the action and the mask: there is no silent default.

### Rewards

After every deal each agent gets its net for the deal in big blinds (chips won minus
chips committed, divided by the big blind); the rewards of a deal sum to zero.

### Seeding

`reset(seed=s)` plays session 0 of event seed `s`: deal d's deck is
`dp_arena.engine.deck_for(s, 0, 0, d)`, identical to the deck `dp-arena` deals in an
event of seed `s`. Each later `reset()` plays the next session (`deck_for(s, 0, n, d)`).

>>> table = env(num_players=2, deals=2)
>>> table.reset(seed=7)
>>> table.agent_selection, table.infos["player_0"]["observation"].to_call
('player_0', 10)
>>> table.step(1)  # the button calls the big blind
>>> table.step(0)  # the big blind may not fold when nothing is owed
Traceback (most recent call last):
...
dp_arena.errors.IllegalActionError: player_1: action 0 (fold) is masked: nothing is owed; action_mask is [0, 1, 1, 1, 1, 1] for ['fold', 'check/call', 'raise min', 'raise 0.5 pot', 'raise 1 pot', 'raise all-in']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Unpack

from pettingzoo.utils import wrappers

from dp_arena.envs.aec.session import SessionEnv
from dp_arena.envs.deals import TableOptions

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (the usual entry point).

    Out-of-bounds and masked actions are refused by the environment itself, with an
    error that names the mask, so PettingZoo's assert-out-of-bounds wrapper is not
    needed (and would refuse the engine actions ``step`` accepts)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(SessionEnv):
    """One capped table; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {**SessionEnv.metadata, "name": "capped_holdem_v0"}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: str | None = None,
        **options: Unpack[TableOptions],
    ) -> None:
        super().__init__(num_players=num_players, tables=1, render_mode=render_mode, **options)

    def agent_name(self, table: int, seat: int) -> str:
        return f"player_{seat}"

    def deal_rewards(self, nets: Sequence[Sequence[int]]) -> list[list[float]]:
        big_blind = self.rules.big_blind
        return [[net / big_blind for net in table_nets] for table_nets in nets]
