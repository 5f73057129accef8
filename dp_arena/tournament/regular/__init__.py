"""The regular tournament (docs/formats.md): sections of at most 30, elimination by seat
position from session 2, carryover, and a round-robin final of 4 or 6 players.

- :mod:`~dp_arena.tournament.regular.format`: the format, its plan and its play;
- :mod:`~dp_arena.tournament.regular.chart`: the section chart and the prizes by place.
"""
