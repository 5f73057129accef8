"""The short formats (docs/formats.md): the short tournament and the Sit n Go events.

- :mod:`~dp_arena.tournament.short.format`: the short tournament and the Short Sit n Go,
  two or three sessions shaped by the structure table;
- :mod:`~dp_arena.tournament.short.structure`: that table, as data;
- :mod:`~dp_arena.tournament.short.round_robin_sng`: the Round Robin Sit n Go, one round
  robin of 4 or 6 players.
"""
