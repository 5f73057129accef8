"""The environments' modules before the wings keep their names: each old module path
imports, as the module of its new home, with a warning naming that home."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import dp_arena.envs

# Every module of dp_arena/envs/ before the wings, as a user could import it.
FORMER_MODULES = [
    "batch_cards",
    "batch_encoding",
    "batch_engine",
    "batch_players",
    "batch_tables",
    "batch_tag",
    "capped_holdem_v0",
    "discrete_actions",
    "duplicate_holdem_v0",
    "encoding",
    "native_opponents",
    "policy_agent",
    "rllib",
    "session_env",
    "single_agent",
    "single_agent_vector",
    "vector_tables",
]


def _forget(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Import ``dp_arena.envs.<name>`` afresh: as if nothing had imported it by that name."""
    monkeypatch.delitem(sys.modules, f"dp_arena.envs.{name}", raising=False)
    if name in vars(dp_arena.envs):
        monkeypatch.delattr(dp_arena.envs, name)


def test_every_former_module_path_still_imports() -> None:
    """In a fresh interpreter, each former path imported by a statement: a moved module is
    its new home's, with one warning pointing at the statement; the others import as they
    always did, without a word."""
    script = f"""
import importlib, json, warnings
warnings.simplefilter("always")
found = {{}}
for name in {FORMER_MODULES!r}:
    namespace = {{}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(f"import dp_arena.envs.{{name}} as module", "user_code.py", "exec"), namespace)
    found[name] = [
        namespace["module"].__name__,
        [[str(w.message), w.category.__name__, w.filename] for w in caught],
    ]
print(json.dumps(found))
"""
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    found = json.loads(output)
    for name in FORMER_MODULES:
        old = f"dp_arena.envs.{name}"
        home = dp_arena.envs.MOVED.get(name)
        if home is None:
            assert found[name] == [old, []], name
        else:
            assert found[name] == [
                home,
                [[f"{old} moved: import {home}", "DeprecationWarning", "user_code.py"]],
            ], name


@pytest.mark.parametrize("name", sorted(dp_arena.envs.MOVED))
def test_a_moved_name_of_the_package_warns_and_gives_the_new_module(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _forget(monkeypatch, name)
    home = dp_arena.envs.MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"dp_arena.envs.{name} moved: import {home}"):
        assert getattr(dp_arena.envs, name) is importlib.import_module(home)


def test_every_moved_module_had_a_former_path() -> None:
    assert set(dp_arena.envs.MOVED) <= set(FORMER_MODULES)
    assert all(home.startswith("dp_arena.envs.") for home in dp_arena.envs.MOVED.values())
