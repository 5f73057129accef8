"""One module per ``dp-arena`` subcommand, each with ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status)."""
