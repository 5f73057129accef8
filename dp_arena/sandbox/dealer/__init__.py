"""The dealer's side of the sandbox: seats for untrusted bots, as the table sees them.

:mod:`~dp_arena.sandbox.dealer.seats` seats an agent spec (what :mod:`dp_arena.sandbox`
makes public), :mod:`~dp_arena.sandbox.dealer.process` is the seat of a sandboxed
process, talking to its bot through a :mod:`~dp_arena.sandbox.dealer.channel`;
:mod:`~dp_arena.sandbox.dealer.spawn` starts the process (exec'd, or forked from a warm
:mod:`~dp_arena.sandbox.dealer.template`), the reaper ends it. Importing this package
imports nothing.
"""
