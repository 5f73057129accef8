"""The one thing pyproject.toml cannot say: the built-in bots live in the repository's
``agents/`` folder and ship in the wheel as ``dp_arena/builtin_bots/``, so an installed
dp-arena has them without a clone (``dp_arena.agents.spec.AGENTS_DIR`` finds either).
Everything else about the build is in pyproject.toml."""

from __future__ import annotations

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["dp_arena*"], exclude=["*.__pycache__"]),
        "dp_arena.builtin_bots",
    ],
    package_dir={"dp_arena.builtin_bots": "agents"},
)
