"""The duplicate cash game (docs/formats.md): mirrored tables settled in money after every
deal, players leaving and waiting players taking their seats.

- :mod:`~dp_arena.tournament.cash.format`: the format, its options, plan and play;
- :mod:`~dp_arena.tournament.cash.schedule`: who sits where at every deal (pure);
- :mod:`~dp_arena.tournament.cash.settlement`: a seat position's nets into money.
"""
