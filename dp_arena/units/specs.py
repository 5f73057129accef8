"""Whether a spec names a bot that can be seated: checked before a match or an event deals
a card, by path (nothing of a bot is imported here), with a "did you mean" where one can
be given.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from dp_arena.agents import BUILTINS, SpecKind, parse_spec
from dp_arena.agents.spec import class_problem, missing_file, module_problem
from dp_arena.engine import Betting
from dp_arena.errors import AgentError
from dp_arena.names import MANIFEST

__all__ = ["betting_problem", "check_spec"]


def check_spec(spec: str, *, registry: Path | None = None) -> str:
    """The spec to seat (a registry bot pinned to the registry and version found now), or
    an :class:`AgentError` saying why the spec names nothing that exists: an unknown
    built-in file, a missing file (with the closest files beside it) or class, a module
    or class that cannot be found (by path: nothing of a bot is imported here), a bot
    folder without a usable ``bot.toml``, a program that is not on ``PATH`` (so a typo is
    not mistaken for a command line), or a ``registry:NAME[@VERSION]`` the bot registry
    (``registry``, else the default one) does not hold."""
    parsed = parse_spec(spec)
    if parsed.kind is SpecKind.REGISTRY:
        from dp_arena.errors import SubmissionError
        from dp_arena.registry import Registry, pinned_spec, split_spec

        pinned_root, reference = split_spec(spec)
        try:
            held = Registry.existing(pinned_root or registry)
            return pinned_spec(held.root, held.resolve(reference))
        except SubmissionError as error:
            raise AgentError(f"agent {spec!r}: {error}") from None
    if parsed.kind is SpecKind.FOLDER:
        from dp_arena.sandbox.dealer.seats import folder_problem

        problem = folder_problem(spec)
        if problem is not None:
            raise AgentError(f"agent {spec!r}: {problem}")
    elif parsed.kind is SpecKind.BUILTIN or parsed.kind is SpecKind.FILE:
        path = Path(str(parsed.target)).expanduser()
        if not path.is_file():
            if parsed.kind is SpecKind.BUILTIN:
                raise AgentError(f"agent {spec!r}: the built-in bot is not available (no {path})")
            raise AgentError(f"agent {spec!r}: {missing_file(path, parsed.class_name)}")
        problem = class_problem(path, parsed) if parsed.kind is SpecKind.FILE else None
        if problem is not None:
            raise AgentError(f"agent {spec!r}: {problem}")
    elif parsed.kind is SpecKind.MODULE:
        problem = module_problem(parsed)
        if problem is not None:
            raise AgentError(f"agent {spec!r}: {problem}")
    else:
        program = parsed.target[0] if isinstance(parsed.target, tuple) else str(parsed.target)
        if shutil.which(program) is None and not Path(program).is_file():
            raise AgentError(
                f"agent {spec!r} is not a built-in ({', '.join(BUILTINS)}), a file.py:Class, a"
                " package.module:Class, a bot folder (with a bot.toml), or a command line"
                f" whose program {program!r} exists" + _folder_hint(program)
            )
    return spec


def _folder_hint(word: str) -> str:
    """A hint when a word that was meant as a bot folder names none here."""
    import difflib

    folders = [f"{path.name}/" for path in Path.cwd().iterdir() if (path / MANIFEST).is_file()]
    close = difflib.get_close_matches(word.rstrip("/") + "/", folders, n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def betting_problem(specs: Sequence[str], betting: Betting) -> str | None:
    """Why ``specs`` cannot play ``betting``: an ACPC agent plays no-limit hold'em only
    (its game definition has no pot limit); ``None`` when they can."""
    if betting is Betting.NO_LIMIT:
        return None
    from dp_arena.sandbox import is_acpc

    agents = [spec for spec in specs if is_acpc(spec)]
    if not agents:
        return None
    return (
        f"{', '.join(agents)} {'is an ACPC agent' if len(agents) == 1 else 'are ACPC agents'},"
        f" which play no-limit hold'em only (an ACPC game definition has no pot limit), not"
        f" {betting.value}"
    )
