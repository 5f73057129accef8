"""Confinement: what a sandboxed bot may see and do, and the command that puts it there.

:mod:`~dp_arena.sandbox.confinement.isolation` finds the best isolation this machine
offers, one backend class per mode (:mod:`~dp_arena.sandbox.confinement.backends`);
the runtime view, mounts, syscall filter, budgets and uids say what the bot sees and
may spend. Nothing here starts a seat or knows a seat's protocol (that is the dealer's
side). Importing this package imports nothing.
"""
