"""The classic freezeout (docs/formats.md): ordinary no-limit hold'em with no cap, the
non-duplicate baseline.

- :mod:`~dp_arena.tournament.classic.format`: the format, its options, plan and prizes;
- :mod:`~dp_arena.tournament.classic.play`: the freezeout played hand round by hand round;
- :mod:`~dp_arena.tournament.classic.tables`: tables broken and balanced, late seats;
- :mod:`~dp_arena.tournament.classic.payout`: the pool in whole buy-in units.
"""
