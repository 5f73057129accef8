"""The compiled build is optional and never stale: it loads only when built from the
sources as they are now, and ``DP_ARENA_PURE_PYTHON`` turns it off. (``make test-native``
runs the engine's and environments' tests on the build itself.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dp_arena.engine import native

PROBE = (
    "from dp_arena.engine import native; import dp_arena.engine.state, dp_arena.envs.encoding;"
    " print(','.join(native.active()))"
)


def _probe(**environment: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, **environment},
    )
    return completed.stdout.strip()


def test_the_pure_variable_turns_the_build_off() -> None:
    assert _probe(DP_ARENA_PURE_PYTHON="1") == ""


def test_a_build_loads_only_when_every_source_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    monkeypatch.setattr(native, "NATIVE_DIR", tmp_path)
    sources = {module: native.source_digest(module) for module in native.COMPILED}
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"cache_tag": sys.implementation.cache_tag, "sources": sources}))
    assert native._check()
    stale = {**sources, native.COMPILED[0]: "0" * 64}
    manifest.write_text(json.dumps({"cache_tag": sys.implementation.cache_tag, "sources": stale}))
    assert not native._check()
    manifest.write_text(json.dumps({"cache_tag": "cpython-00", "sources": sources}))
    assert not native._check()
    manifest.write_text("not json")
    assert not native._check()
    manifest.unlink()
    assert not native._check()


def test_a_usable_build_replaces_exactly_the_compiled_modules() -> None:
    if not native._check():
        pytest.skip("no current compiled build (make native)")
    assert _probe(DP_ARENA_PURE_PYTHON="") == ",".join(native.COMPILED)
