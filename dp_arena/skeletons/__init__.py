"""Bot skeletons: ``dp-arena new-bot NAME --lang LANG`` writes a bot folder to start from.

Each skeleton is a folder of templates here (``python/``, ``c/``, ``node/``, ``perl/``),
one per language whose runtime the sandbox shows a bot (``docs/sandbox.md``): the
dealer's Python, a program compiled into the bot's folder that links only the common C
libraries, and the system's Node.js and Perl. A skeleton is a whole bot folder: a
``bot.toml``, a bot that plays by a simple hand-strength rule (it raises strong hands and
folds weak ones to bets; the same rule in every language), a README of three steps and
a test in the language's own way. Each passes ``dp-arena check-agent`` and beats the
random bot as it is written (``tests/test_skeletons.py``).

Templates are plain files ending in ``.tmpl``; ``{{name}}`` becomes the bot's name (its
folder's and its registry name) and ``{{class_name}}`` the name of a Python bot's class.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from dp_arena.errors import AgentError

__all__ = ["LANGUAGES", "TEMPLATES", "Skeleton", "class_name", "missing_tools", "new_bot"]

TEMPLATES = Path(__file__).resolve().parent
# A bot's name is its folder's and its name in a registry (dp_arena.registry's rule).
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A language's skeleton: what it is, the program its bot runs (``None``: the
    dealer's Python), the program an author builds it with, and the first step."""

    language: str
    describe: str
    runtime: str | None
    build: str | None
    test: str


LANGUAGES: dict[str, Skeleton] = {
    "python": Skeleton(
        "python",
        "a Python class (bot.py) hosted by dp-arena's runner",
        None,
        None,
        "python {name}/test_bot.py",
    ),
    "c": Skeleton(
        "c",
        "a C program (bot.c) compiled into the folder, speaking the pipe protocol",
        None,
        "cc",
        "make -C {name} test",
    ),
    "node": Skeleton(
        "node",
        "a Node.js script (bot.js) speaking the pipe protocol",
        "node",
        None,
        "node {name}/bot.test.js",
    ),
    "perl": Skeleton(
        "perl",
        "a Perl script (bot.pl) speaking the pipe protocol",
        "perl",
        None,
        "perl {name}/test_bot.pl",
    ),
}


def class_name(name: str) -> str:
    """The Python class of a bot called ``name``.

    >>> class_name("my-first_bot.2")
    'MyFirstBot2'
    >>> class_name("42")
    'Bot42'
    """
    words = [word for word in re.split(r"[^A-Za-z0-9]+", name) if word]
    joined = "".join(word[:1].upper() + word[1:] for word in words) or "Bot"
    return joined if joined[0].isalpha() else f"Bot{joined}"


def new_bot(name: str, language: str, parent: Path) -> Path:
    """Write the ``language`` skeleton of a bot called ``name`` into ``parent/name``; the
    folder. :class:`~dp_arena.errors.AgentError` for a name a registry would refuse, a
    built-in's name, an unknown language or a folder that is already there."""
    from dp_arena.agents.spec import BUILTINS

    if not _NAME.match(name):
        raise AgentError(
            f"a bot's name is 1 to 64 of a-z 0-9 - _ . starting with a letter or digit (it is"
            f" its folder's name and its name in a registry), not {name!r}"
        )
    if name in BUILTINS:
        raise AgentError(
            f"{name!r} is the name of a built-in bot: `dp-arena match {name}` would seat the"
            " built-in; choose another name"
        )
    if language not in LANGUAGES:
        raise AgentError(f"no skeleton for {language!r}; there are {', '.join(LANGUAGES)}")
    folder = parent / name
    if folder.exists():
        raise AgentError(f"{folder} is already there: choose another name, or move it away")
    folder.mkdir(parents=True)
    try:
        for template in sorted((TEMPLATES / language).glob("*.tmpl")):
            text = template.read_text(encoding="utf-8")
            text = text.replace("{{name}}", name).replace("{{class_name}}", class_name(name))
            (folder / template.name.removesuffix(".tmpl")).write_text(text, encoding="utf-8")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def missing_tools(language: str) -> list[str]:
    """The programs a skeleton needs that this machine lacks (the runtime a bot runs, as
    the sandbox looks it up, and a compiler to build it)."""
    from dp_arena.sandbox.confinement.runtime import SANDBOX_PATH

    skeleton = LANGUAGES[language]
    missing = []
    if skeleton.runtime is not None and shutil.which(skeleton.runtime, path=SANDBOX_PATH) is None:
        missing.append(skeleton.runtime)
    if skeleton.build is not None and shutil.which(skeleton.build) is None:
        missing.append(skeleton.build)
    return missing
