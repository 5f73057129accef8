"""The public surface: what ``import dp_arena`` offers, pinned (httpx's test of the same name).

Adding or removing a top-level name is a decision about the public API: it changes the
list below on purpose, and the docs with it.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import warnings

import pytest

import dp_arena

PUBLIC_NAMES = [
    # the package
    "__version__",
    # the engine (dp_arena.engine)
    "Action",
    "ActionKind",
    "ActionRecord",
    "Betting",
    "Card",
    "HandState",
    "LegalActions",
    "Mix",
    "Street",
    "TableRules",
    "button_for_deal",
    "deck_for",
    "evaluate",
    "format_card",
    "format_cards",
    "hand_class_name",
    "new_hand",
    "parse_card",
    "parse_cards",
    # the agent API (dp_arena.agents)
    "BUILTINS",
    "AbsentSeat",
    "Agent",
    "AgentSpec",
    "DealEnd",
    "DealStart",
    "FaultPolicy",
    "InProcessSeat",
    "Observation",
    "Seat",
    "SeatFault",
    "SessionContext",
    "TableSession",
    "load_agent",
    "parse_action",
    "parse_spec",
    "play_deal",
    "play_table_session",
    # the exception hierarchy (dp_arena.errors)
    "AgentError",
    "ConfigError",
    "DPArenaError",
    "HandHistoryError",
    "IllegalActionError",
    "IllegalReason",
    "LedgerError",
    "RunError",
    "SubmissionError",
    # result records (dp_arena.results)
    "DealRecord",
    "Fault",
    "FaultKind",
    "TableSessionResult",
    # the duplicate match (dp_arena.match)
    "MatchConfig",
    "MatchResult",
    "play_match",
]

# The public names of dp_arena.envs, pinned: changing them is a decision about the API.
ENVS_PUBLIC_NAMES = [
    "SingleAgentEnv",
    "SingleAgentVectorEnv",
    "capped_holdem_v0",
    "discrete_actions",
    "duplicate_holdem_v0",
    "encoding",
    "native_opponents",
    "rllib",
    "single_agent",
    "single_agent_vector",
]


# Modules a top-level name may come from: each subpackage's own public surface.
HOMES = (
    "dp_arena.engine",
    "dp_arena.agents",
    "dp_arena.errors",
    "dp_arena.results",
    "dp_arena.match",
)

# Never loaded by ``import dp_arena`` or by touching any top-level name.
HEAVY = ("numpy", "ray", "pettingzoo", "gymnasium", "treys", "pokerkit", "openskill", "matplotlib")


def _modules_loaded_after(code: str) -> set[str]:
    """Module names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(output.split())


def test_all_is_exactly_the_pinned_names() -> None:
    assert sorted(dp_arena.__all__) == sorted(PUBLIC_NAMES)
    assert len(dp_arena.__all__) == len(set(dp_arena.__all__)), "a name is listed twice"


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_each_name_is_its_home_modules_object(name: str) -> None:
    value = getattr(dp_arena, name)
    if name == "__version__":
        assert isinstance(value, str) and value
        return
    homes = [home for home in HOMES if name in importlib.import_module(home).__all__]
    assert len(homes) == 1, f"{name} is exported by {homes or 'no subpackage'}"
    assert value is getattr(importlib.import_module(homes[0]), name)
    # Defined in the package, not re-exported from a dependency such as treys. (``Card`` is
    # ``int``: a card is its number 0..51.)
    if inspect.isfunction(value) or (inspect.isclass(value) and value is not int):
        assert value.__module__.startswith("dp_arena.")


def test_star_import_gives_the_public_names() -> None:
    namespace: dict[str, object] = {}
    exec("from dp_arena import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(namespace) == sorted(PUBLIC_NAMES)


def test_dir_lists_the_public_names() -> None:
    assert set(PUBLIC_NAMES) <= set(dir(dp_arena))


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="'HandStat'"):
        _ = dp_arena.HandStat  # type: ignore[attr-defined]
    assert not hasattr(dp_arena, "evaluate_reference")  # the treys oracle stays in the engine


def test_importing_the_package_loads_nothing_else() -> None:
    loaded = _modules_loaded_after("import dp_arena")
    # The package and the helper that loads its names when first used (the standard
    # library's importlib, sys and types alone).
    assert sorted(name for name in loaded if name.startswith("dp_arena")) == [
        "dp_arena",
        "dp_arena.lazy",
    ]


def test_every_public_name_stays_light() -> None:
    loaded = _modules_loaded_after(
        "import dp_arena\nfor name in dp_arena.__all__: getattr(dp_arena, name)"
    )
    assert sorted(name for name in loaded if name.split(".")[0] in HEAVY) == []
    assert not any(name.startswith(("dp_arena.envs", "dp_arena.runner")) for name in loaded)


def test_the_unit_of_works_old_home_gives_its_names_with_a_warning() -> None:
    """``dp_arena.tournament.units`` held the unit of work before ``dp_arena.units``: each
    of its names still comes from there, the same object, with a warning naming the new
    home."""
    import dp_arena.units
    from dp_arena.tournament import units as old_home

    assert set(old_home.__all__) <= set(dp_arena.units.__all__)
    for name in old_home.__all__:
        with pytest.warns(
            DeprecationWarning, match=f"{name} moved: import {name} from dp_arena.units"
        ):
            assert getattr(old_home, name) is getattr(dp_arena.units, name)
    with pytest.raises(AttributeError, match="'nothing'"):
        _ = old_home.nothing


def test_the_environments_public_names_are_pinned_and_resolve() -> None:
    """``dp_arena.envs`` keeps its names: those of modules that moved into a wing give the
    module with a warning naming its new home, the others without a word."""
    import dp_arena.envs

    assert sorted(dp_arena.envs.__all__) == sorted(ENVS_PUBLIC_NAMES)
    moved = set(dp_arena.envs.MOVED) & set(ENVS_PUBLIC_NAMES)
    assert moved == {"rllib", "single_agent", "single_agent_vector"}
    for name in ENVS_PUBLIC_NAMES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if name in moved else "error", DeprecationWarning)
            assert getattr(dp_arena.envs, name) is not None
    assert dp_arena.envs.SingleAgentEnv.__module__ == "dp_arena.envs.gym.single_agent"
