"""The one lazy face (dp_arena.lazy): names and submodules load when first used, and a
public name that shares a submodule's name stays the name."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    root = tmp_path / "lazy_sample"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from dp_arena.lazy import lazy_names\n"
        "lazy_names(__name__, {'Thing': 'things', 'train': 'train'}, modules=('tools',))\n"
    )
    (root / "things.py").write_text("class Thing:\n    pass\n")
    (root / "train.py").write_text("def train():\n    return 'trained'\n")
    (root / "tools.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("lazy_sample")
    for name in [name for name in sys.modules if name.split(".")[0] == "lazy_sample"]:
        del sys.modules[name]


def test_nothing_loads_until_a_name_is_used(package) -> None:  # type: ignore[no-untyped-def]
    assert not any(name.startswith("lazy_sample.") for name in sys.modules)
    assert package.Thing.__name__ == "Thing"
    assert "lazy_sample.things" in sys.modules
    assert "lazy_sample.tools" not in sys.modules
    assert package.tools.VALUE == 7
    assert {"Thing", "train", "tools"} <= set(dir(package))


def test_a_name_shared_with_its_submodule_stays_the_name(package) -> None:  # type: ignore[no-untyped-def]
    assert package.train() == "trained"
    importlib.import_module("lazy_sample.train")  # binds the submodule: refused
    assert callable(package.train) and package.train() == "trained"


def test_an_unknown_name_is_an_attribute_error_naming_it(package) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AttributeError, match="'Thingy'"):
        _ = package.Thingy


def test_a_gathered_name_is_found_in_the_first_surface_that_lists_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "gathering"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from dp_arena.lazy import lazy_names\n"
        "__all__ = ['shared', 'deep']\n"
        "lazy_names(__name__, {}, search=('light', 'heavy'))\n"
    )
    (root / "light.py").write_text("__all__ = ['shared']\nshared = 'light'\n")
    (root / "heavy.py").write_text("__all__ = ['shared', 'deep']\nshared = deep = 'heavy'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        package = importlib.import_module("gathering")
        assert package.shared == "light" and "gathering.heavy" not in sys.modules
        assert package.deep == "heavy"
        assert {"shared", "deep"} <= set(dir(package))
        with pytest.raises(AttributeError, match="'light_ish'"):
            _ = package.light_ish
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == "gathering"]:
            del sys.modules[name]


def test_the_package_and_the_environments_load_through_it() -> None:
    import dp_arena
    import dp_arena.envs
    from dp_arena.lazy import _LazyPackage

    assert isinstance(dp_arena, _LazyPackage) and isinstance(dp_arena.envs, _LazyPackage)
    assert dp_arena.envs.discrete_actions is importlib.import_module(
        "dp_arena.envs.discrete_actions"
    )


@pytest.fixture
def moved_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    root = tmp_path / "moving"
    (root / "wing").mkdir(parents=True)
    (root / "__init__.py").write_text(
        "from dp_arena.lazy import lazy_names\n"
        "lazy_names(__name__, {}, moved={'old_tools': 'moving.wing.tools'})\n"
    )
    (root / "wing" / "__init__.py").write_text("")
    (root / "wing" / "tools.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("moving")
    for name in [name for name in sys.modules if name.split(".")[0] == "moving"]:
        del sys.modules[name]


def test_a_moved_module_imports_by_its_old_name_with_a_warning(moved_package) -> None:  # type: ignore[no-untyped-def]
    namespace: dict[str, object] = {}
    with pytest.warns(
        DeprecationWarning, match=r"^moving\.old_tools moved: import moving\.wing\.tools$"
    ) as caught:
        exec(compile("import moving.old_tools as old", "user_code.py", "exec"), namespace)
    old = namespace["old"]
    assert old is importlib.import_module("moving.wing.tools") and old.VALUE == 7  # type: ignore[attr-defined]
    assert sys.modules["moving.old_tools"] is old and moved_package.old_tools is old
    assert [warning.filename for warning in caught] == [
        "user_code.py"
    ]  # the import, not the import system


def test_a_moved_module_as_the_packages_attribute_warns_too(moved_package) -> None:  # type: ignore[no-untyped-def]
    with pytest.warns(DeprecationWarning, match="moving.old_tools moved") as caught:
        assert moved_package.old_tools.VALUE == 7
    assert [Path(warning.filename).name for warning in caught] == [Path(__file__).name]
    assert "moving.wing.tools" in sys.modules


def test_a_name_from_a_moved_module_is_its_new_homes(moved_package) -> None:  # type: ignore[no-untyped-def]
    namespace: dict[str, object] = {}
    with pytest.warns(DeprecationWarning, match="moving.old_tools moved") as caught:
        exec(compile("from moving.old_tools import VALUE", "user_code.py", "exec"), namespace)
    assert namespace["VALUE"] == 7 and {warning.filename for warning in caught} == {"user_code.py"}
    with pytest.raises(ModuleNotFoundError, match=r"'moving\.older_tools'"):
        importlib.import_module("moving.older_tools")
