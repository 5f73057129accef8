"""Quick Play (docs/formats.md): continuous sets at mirrored tables, each set's pool paid as
set money and hand money, the players' money kept in the credit game balance ledger.

- :mod:`~dp_arena.tournament.quickplay.format`: the format, its plan and its play;
- :mod:`~dp_arena.tournament.quickplay.options`: its ``[options]``, read and checked;
- :mod:`~dp_arena.tournament.quickplay.schedule`: who plays which set, where (pure);
- :mod:`~dp_arena.tournament.quickplay.money`: a set's money and the awards its nets earn;
- :mod:`~dp_arena.tournament.quickplay.ledger`: the balance ledger (SQLite);
- :mod:`~dp_arena.tournament.quickplay.purses`: the players' money of one event, in it;
- :mod:`~dp_arena.tournament.quickplay.records`: the sets and money as played;
- :mod:`~dp_arena.tournament.quickplay.summary`: its words in the event's summary.
"""
