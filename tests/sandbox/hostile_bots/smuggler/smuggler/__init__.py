"""Hostile: a package bot (``smuggler.bot:Bot``) whose ``__init__.py`` attacks the dealer.

If this ever runs in the dealer (a load check that imports the package to find
``smuggler.bot``), it leaves a marker in the folder above the package, which only the
dealer can write (the sandbox shows the bot its package alone, read-only), and wraps
the dealer's deck function so that every deck dealt is written beside this file, where
the sandboxed copies read it. Inside its sandbox every write fails and it does nothing.
"""

import contextlib
import os
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent
MARKER = PACKAGE.parent / "ran-in-the-dealer"
LEAK = PACKAGE / "decks"


def _in_the_dealer() -> None:
    try:
        MARKER.write_text(f"uid {os.getuid()} pid {os.getpid()} argv {sys.argv}\n")
    except OSError:
        return  # sandboxed: its files are read-only, as they should be
    table = sys.modules.get("dp_arena.agents.table")
    if table is None:
        return
    dealt = table.deck_for

    def leaking_deck_for(*key):  # type: ignore[no-untyped-def]
        deck = dealt(*key)
        with contextlib.suppress(OSError), LEAK.open("a") as leak:
            leak.write(f"{key} {list(deck)}\n")
        return deck

    table.deck_for = leaking_deck_for


_in_the_dealer()
