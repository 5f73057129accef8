"""Old places of moved names and modules still answer, each with a DeprecationWarning
naming the new place (dp_arena.lazy's ``moved``)."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import types
from collections.abc import Iterator

import pytest

# The sandbox's flat modules before its wings, and the wing each moved to (read from the
# tree before the move, not from the package's own table).
FLAT_SANDBOX = {
    "acpc": "bot",
    "acpc_shim": "bot",
    "runner": "bot",
    "zygote": "bot",
    "budget": "confinement",
    "isolation": "confinement",
    "mounts": "confinement",
    "runtime": "confinement",
    "seccomp": "confinement",
    "uids": "confinement",
    "conformance": "dealer",
    "pipes": "dealer",
    "process": "dealer",
    "reaper": "dealer",
    "seats": "dealer",
    "spawn": "dealer",
    "template": "dealer",
}


@pytest.fixture
def forget_old_names() -> Iterator[None]:
    """The old module names unimported, so each test sees its first import."""
    import dp_arena.sandbox

    old = [f"dp_arena.sandbox.{name}" for name in FLAT_SANDBOX]
    kept = {name: sys.modules.pop(name) for name in old if name in sys.modules}
    bound = {name: vars(dp_arena.sandbox).pop(name) for name in FLAT_SANDBOX if _bound(name)}
    yield
    for name in old:
        sys.modules.pop(name, None)
    sys.modules.update(kept)
    for name in FLAT_SANDBOX:
        if _bound(name):
            delattr(dp_arena.sandbox, name)
    for name, value in bound.items():
        setattr(dp_arena.sandbox, name, value)


def _bound(name: str) -> bool:
    """Whether the sandbox's face holds the old module ``name`` (kept after a first use)."""
    import dp_arena.sandbox

    return isinstance(vars(dp_arena.sandbox).get(name), types.ModuleType)


@pytest.mark.parametrize("name", sorted(FLAT_SANDBOX))
def test_an_old_sandbox_module_is_its_new_module_with_a_warning(
    name: str, forget_old_names: None
) -> None:
    new = f"dp_arena.sandbox.{FLAT_SANDBOX[name]}.{name}"
    with pytest.warns(DeprecationWarning, match=rf"dp_arena\.sandbox\.{name} moved: import {new}$"):
        module = importlib.import_module(f"dp_arena.sandbox.{name}")
    assert module is importlib.import_module(new)


def test_an_old_module_by_attribute_warns_and_a_public_name_stays_itself(
    forget_old_names: None,
) -> None:
    import dp_arena.sandbox

    with pytest.warns(DeprecationWarning, match=r"dp_arena\.sandbox\.seats moved"):
        from dp_arena.sandbox import seats  # type: ignore[attr-defined]
    assert seats.open_seat is dp_arena.sandbox.open_seat
    with pytest.warns(DeprecationWarning, match=r"sandbox\.isolation moved"):
        old = importlib.import_module("dp_arena.sandbox.isolation")
    # The package's isolation() stays the function, not the old module bound over it.
    assert callable(dp_arena.sandbox.isolation) and old.detect() == dp_arena.sandbox.isolation()


def test_the_warning_points_at_the_line_that_used_the_old_place(forget_old_names: None) -> None:
    with pytest.warns(DeprecationWarning) as caught:
        import dp_arena.sandbox.spawn  # type: ignore[import-not-found]  # noqa: F401
    assert caught[0].filename == __file__


def test_an_old_module_name_seen_by_a_fresh_interpreter_warns_once() -> None:
    code = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from dp_arena.sandbox.limits import Limits\n"
        "    from dp_arena.sandbox.template import Template\n"
        "    import dp_arena.sandbox.template\n"
        "print([str(w.message) for w in caught])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == (
        "['dp_arena.sandbox.template moved: import dp_arena.sandbox.dealer.template']"
    )


def test_the_executor_arguments_moved_to_the_run_command() -> None:
    import dp_arena.runner
    from dp_arena.commands import run

    with pytest.warns(
        DeprecationWarning, match="import add_executor_arguments from dp_arena.commands.arguments"
    ):
        add_executor_arguments = dp_arena.runner.add_executor_arguments  # type: ignore[attr-defined]
    with pytest.warns(
        DeprecationWarning, match="import executor_options from dp_arena.commands.arguments"
    ):
        from dp_arena.runner import executor_options  # type: ignore[attr-defined]
    assert add_executor_arguments is run.add_executor_arguments
    parser = argparse.ArgumentParser()
    add_executor_arguments(parser)
    options = executor_options(parser.parse_args(["--executor", "serial"]))
    assert options == run.executor_options(parser.parse_args(["--executor", "serial"]))
    assert options.executor == "serial"


def test_sandbox_available_answers_as_before_with_a_warning() -> None:
    import dp_arena.match

    with pytest.warns(DeprecationWarning, match="sandbox is always available"):
        assert dp_arena.match.sandbox_available() is True
    assert "sandbox_available" not in dp_arena.match.__all__
