"""The compiled build of the hot modules: used when it is built and current, never
required.

``make native`` compiles the modules of :data:`COMPILED` with mypyc (the same sources,
compiled to C; ``scripts/build_native.py``) into ``dp_arena/engine/_native/``, with a
manifest of the sources' SHA-256. On import, :mod:`dp_arena.engine` and
:mod:`dp_arena.envs` put the build first on their ``__path__`` when every compiled
source is unchanged since the build and ``DP_ARENA_PURE_PYTHON`` is not set; otherwise
the pure-Python modules load, as they always do on a machine without the build. A stale
build is ignored as a whole, never mixed with newer sources. The two ways give the same
results: the test suite runs in both (``make test`` pure, ``make test-native`` compiled).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import MutableSequence
from pathlib import Path

__all__ = ["COMPILED", "NATIVE_DIR", "active", "extend", "usable"]

# The hot path of the vector environment: betting, the hand, settling, the encoding.
COMPILED = (
    "dp_arena.engine.betting",
    "dp_arena.engine.showdown",
    "dp_arena.engine.state",
    "dp_arena.envs.encoding",
)
NATIVE_DIR = Path(__file__).resolve().parent / "_native"
PURE_VARIABLE = "DP_ARENA_PURE_PYTHON"
_ROOT = Path(__file__).resolve().parents[2]
_usable: bool | None = None


def source_digest(module: str) -> str:
    path = _ROOT / (module.replace(".", "/") + ".py")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def usable() -> bool:
    """Whether the compiled build is there, current and wanted (checked once)."""
    global _usable
    if _usable is None:
        _usable = _check()
    return _usable


def _check() -> bool:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return False
    try:
        manifest = json.loads((NATIVE_DIR / "manifest.json").read_text())
        if manifest.get("cache_tag") != sys.implementation.cache_tag:
            return False
        sources = manifest["sources"]
        return set(sources) == set(COMPILED) and all(
            source_digest(module) == digest for module, digest in sources.items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def extend(package: str, path: MutableSequence[str]) -> None:
    """Put the compiled modules of ``package`` first on its ``path`` when usable."""
    if not usable():
        return
    directory = NATIVE_DIR / package.rsplit(".", 1)[-1]
    if str(NATIVE_DIR) not in sys.path:
        sys.path.append(str(NATIVE_DIR))  # the build's shared library, imported by name
    if directory.is_dir() and str(directory) not in path:
        path.insert(0, str(directory))


def active() -> list[str]:
    """The modules of :data:`COMPILED` imported from the compiled build so far."""
    return [
        name
        for name in COMPILED
        if name in sys.modules
        and not str(getattr(sys.modules[name], "__file__", "") or "").endswith(".py")
    ]


# The engine imports this module first: the build, when usable, is then on its path
# before any compiled module is imported.
extend("dp_arena.engine", sys.modules["dp_arena.engine"].__path__)
