"""The bot side of the sandbox: what runs inside it, next to a bot.

:mod:`~dp_arena.sandbox.bot.runner` hosts a Python bot behind the pipe protocol,
:mod:`~dp_arena.sandbox.bot.zygote` is the warm template its seats are forked from, and
:mod:`~dp_arena.sandbox.bot.acpc_shim` serves an ACPC agent the dealer protocol it
speaks. Nothing here imports the dealer's side or its confinement (but the syscall
filter a forked seat installs on itself): a seat's process loads none of the dealer's
threads, processes or file-system code. Importing this package imports nothing.
"""
