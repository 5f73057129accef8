"""The built-in bots (``random``, ``calling-station``, ``aggressive``, ``tag``, ``equity``,
``learned``): each module's docstring says how it plays. Seated by name, each file is
loaded by its path (:data:`dp_arena.agents.spec.BUILTINS`), never imported as a package;
an installed dp-arena carries this folder as ``dp_arena/builtin_bots``."""
