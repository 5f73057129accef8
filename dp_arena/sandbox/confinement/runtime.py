"""What a sandboxed bot may read of the host's runtime (kept in memory by
:mod:`~dp_arena.sandbox.confinement.residency`, so that whether a page is cached tells one
sandbox nothing of another).

Which pages of a file the kernel holds in its page cache is shared by the whole machine
and outlives every process: two sandboxes that can read one file could pass bits through
it (one reads a page, or not; the other times a read of it). The sandbox closes that in
two ways. Each seat gets a private copy of its bot's own files
(:mod:`dp_arena.sandbox.bot.zygote`, :mod:`dp_arena.sandbox.confinement.isolation`). And
a bot sees of the host only a **runtime view**, the files its language needs, each of
whose pages the dealer holds in memory, locked, before any bot is seated
(:func:`~dp_arena.sandbox.confinement.residency.keep_resident`): a page that is always
there carries no bit, and a page the dealer brought in counts in the dealer's memory,
never in a bot's budget, so no bot's memory pressure can push it out. The syscall filter
refuses what would drop or probe pages (:mod:`dp_arena.sandbox.confinement.seccomp`).

A view is made of:

- the system's configuration (``/etc``), its time zones, the merged-``/usr`` links
  (``/bin -> usr/bin``, ...), the dynamic loader and the C library with the libraries a
  compiled bot commonly links (:data:`COMMON_LIBRARIES`), and the tools that start a
  bot inside the sandbox (``prlimit``, ``setpriv``, ``sh``), each with every shared
  library it loads (read from its ELF headers, never by running it);
- for a Python bot, the Python that runs dp-arena: its interpreter and standard library
  (without its test suite, IDLE, Tk and the other folders listed in :data:`HIDDEN_STDLIB`),
  the compiled modules and what they load, the virtual environment's configuration,
  and of its installed packages only NumPy (:data:`BOT_PACKAGES`) and dp-arena itself;
- for a command bot, its program and what it loads, and for a known language the folders
  of its library (:data:`LANGUAGE_FOLDERS`; the dealer's Python gets the view above).

Everything else of the host is invisible: the rest of ``/usr``, other installs, other
packages.
"""

from __future__ import annotations

import functools
import glob
import os
import struct
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BOT_PACKAGES",
    "COMMON_LIBRARIES",
    "HIDDEN_STDLIB",
    "LANGUAGE_FOLDERS",
    "SANDBOX_PATH",
    "RuntimeView",
    "program_view",
    "python_view",
    "system_view",
]

# The PATH inside the sandbox: a bare program name is looked up here, not in the dealer's.
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
# Third-party packages of the dealer's environment a Python bot may import.
BOT_PACKAGES = ("numpy",)
# Folders of the standard library a bot never needs, shown empty.
HIDDEN_STDLIB = (
    "test",
    "idlelib",
    "tkinter",
    "turtledemo",
    "ensurepip",
    "lib2to3",
    "site-packages",
    "dist-packages",
)
# Libraries a compiled bot may link without shipping them (with what they load).
COMMON_LIBRARIES = (
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "libgcc_s.so.1",
    "libstdc++.so.6",
    "libz.so.1",
)
# Programs the sandbox itself runs before the bot (limits, uid, the unshare fallback).
SANDBOX_TOOLS = ("prlimit", "setpriv", "sh", "env")
SYSTEM_FOLDERS = ("/etc", "/usr/share/zoneinfo")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Library folders of the languages whose programs a command bot may run, by program name.
LANGUAGE_FOLDERS = {
    "perl": (
        "/usr/share/perl/*",
        "/usr/share/perl5",
        "/usr/lib/*-linux-gnu/perl/*",
        "/usr/lib/*-linux-gnu/perl-base",
        "/usr/lib/*-linux-gnu/perl5/*",
    ),
    "python3": ("/usr/lib/python3.*",),
}


@dataclass(frozen=True, slots=True)
class RuntimeView:
    """Host paths a bot sees read-only at the same paths: ``trees`` whole (but for the
    ``hidden`` folders inside them, shown empty), single ``files``, and the symbolic
    ``links`` on the way to them, made again as ``(path, target)``. Paths are absolute
    and every one but a link's is the real path of what it shows."""

    trees: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()

    def __or__(self, other: RuntimeView) -> RuntimeView:
        return _view(
            (*self.trees, *other.trees),
            (*self.hidden, *other.hidden),
            (*self.files, *other.files),
            (*self.links, *other.links),
        )

    def shows(self, path: str) -> bool:
        """Whether ``path`` (a real path) is a file or folder of the view, or inside one."""
        if path in self.files:
            return True
        inside = [tree for tree in self.trees if _within(path, tree)]
        return bool(inside) and not any(_within(path, hidden) for hidden in self.hidden)

    def regular_files(self) -> Iterator[str]:
        """Every regular file the view shows (a tree's, walked without its hidden folders)."""
        yield from (path for path in self.files if os.path.isfile(path))
        for tree in self.trees:
            for folder, folders, names in os.walk(tree):
                folders[:] = [
                    name for name in folders if os.path.join(folder, name) not in self.hidden
                ]
                for name in names:
                    path = os.path.join(folder, name)
                    if os.path.isfile(path) and not os.path.islink(path):
                        yield path


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _view(
    trees: Iterable[str],
    hidden: Iterable[str],
    files: Iterable[str],
    links: Iterable[tuple[str, str]],
) -> RuntimeView:
    """A view with nothing twice: no tree inside another, no file or link inside a tree
    (the tree shows it), a hidden folder only inside a tree."""
    kept: list[str] = []
    for tree in sorted(set(trees), key=lambda path: (path.count("/"), path)):
        if not any(_within(tree, outer) for outer in kept):
            kept.append(tree)
    in_trees = functools.partial(_in_any, kept)
    return RuntimeView(
        trees=tuple(sorted(kept)),
        hidden=tuple(sorted({path for path in hidden if in_trees(path) and path not in kept})),
        files=tuple(sorted({path for path in files if not in_trees(path)})),
        links=tuple(sorted({link for link in links if not in_trees(link[0])})),
    )


def _in_any(trees: list[str], path: str) -> bool:
    return any(_within(path, tree) for tree in trees)


class _Builder:
    """Collects a view: each path added is resolved link by link, each link on the way
    kept, and what it finally names kept as a file or a tree."""

    def __init__(self) -> None:
        self.trees: set[str] = set()
        self.hidden: set[str] = set()
        self.files: set[str] = set()
        self.links: set[tuple[str, str]] = set()

    def add(self, path: str | os.PathLike[str], *, tree: bool = False) -> str | None:
        """Add ``path`` and the links on the way to it; its real path, or ``None`` when
        it does not exist."""
        real = self._resolve(os.path.abspath(path))
        if real is None:
            return None
        if os.path.isdir(real):
            if tree:
                self.trees.add(real)
        elif os.path.isfile(real):
            self.files.add(real)
        return real

    def _resolve(self, path: str, depth: int = 0) -> str | None:
        if depth > 40:  # a loop of links
            return None
        done = "/"
        parts = [part for part in path.split("/") if part]
        for index, part in enumerate(parts):
            current = os.path.join(done, part)
            if os.path.islink(current):
                target = os.readlink(current)
                self.links.add((current, target))
                rest = "/".join(parts[index + 1 :])
                joined = os.path.normpath(os.path.join(os.path.dirname(current), target))
                return self._resolve(os.path.join(joined, rest) if rest else joined, depth + 1)
            if not os.path.lexists(current):
                return None
            done = current
        return done

    def add_program(self, path: str) -> None:
        """A program or library and every shared library it loads, transitively."""
        pending = [self.add(path)]
        seen: set[str] = set()
        while pending:
            real = pending.pop()
            if real is None or real in seen or not os.path.isfile(real):
                continue
            seen.add(real)
            interpreter, needed, search = _elf_needs(real)
            if interpreter:
                pending.append(self.add(interpreter))
            for name in needed:
                found = _find_library(name, search)
                if found is not None:
                    pending.append(self.add(found))

    def view(self) -> RuntimeView:
        return _view(self.trees, self.hidden, self.files, self.links)


# -- what ELF files load ------------------------------------------------------------------

_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 1, 5, 15, 29


def _elf_needs(path: str) -> tuple[str | None, list[str], list[str]]:
    """A 64-bit little-endian ELF file's program interpreter, the libraries it names
    (``DT_NEEDED``) and the folders it says to look in first (``DT_RUNPATH``, else
    ``DT_RPATH``, ``$ORIGIN`` expanded). Anything else, or a file it cannot read as
    one, loads nothing. Runtime files only: a bot's own files are never parsed here."""
    try:
        with open(path, "rb") as file:
            header = file.read(64)
            if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
                return None, [], []
            (phoff,) = struct.unpack_from("<Q", header, 0x20)
            entry_size, count = struct.unpack_from("<HH", header, 0x36)
            file.seek(phoff)
            table = file.read(entry_size * min(count, 512))
            loads, dynamic, interpreter = [], None, None
            for index in range(len(table) // entry_size):
                kind, _, offset, vaddr, _, size = struct.unpack_from(
                    "<IIQQQQ", table, index * entry_size
                )
                if kind == _PT_LOAD:
                    loads.append((vaddr, offset, size))
                elif kind == _PT_DYNAMIC:
                    dynamic = (offset, size)
                elif kind == _PT_INTERP:
                    file.seek(offset)
                    interpreter = file.read(min(size, 4096)).split(b"\0")[0].decode()
            if dynamic is None:
                return interpreter, [], []
            file.seek(dynamic[0])
            entries = file.read(min(dynamic[1], 1 << 16))
            tags = [
                struct.unpack_from("<qQ", entries, at) for at in range(0, len(entries) - 15, 16)
            ]
            strtab = next((value for tag, value in tags if tag == _DT_STRTAB), None)
            if strtab is None:
                return interpreter, [], []
            base = next(
                (
                    offset + strtab - vaddr
                    for vaddr, offset, size in loads
                    if vaddr <= strtab < vaddr + size
                ),
                strtab,
            )

            def string(at: int) -> str:
                file.seek(base + at)
                return file.read(4096).split(b"\0")[0].decode("utf-8", "replace")

            needed = [string(value) for tag, value in tags if tag == _DT_NEEDED]
            runpath = [string(value) for tag, value in tags if tag == _DT_RUNPATH]
            rpath = [string(value) for tag, value in tags if tag == _DT_RPATH]
    except (OSError, struct.error, UnicodeDecodeError):
        return None, [], []
    origin = os.path.dirname(path)
    search = [
        folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
        for entry in (runpath or rpath)
        for folder in entry.split(":")
        if folder
    ]
    return interpreter, needed, search


@functools.cache
def _library_folders() -> tuple[str, ...]:
    """Where the dynamic loader looks for a library (what ``ldconfig`` indexes from
    ``/etc/ld.so.conf``, then the default folders)."""
    folders: list[str] = []

    def read(conf: str, depth: int = 0) -> None:
        try:
            with open(conf, encoding="utf-8", errors="replace") as file:
                lines = file.read().splitlines()
        except OSError:
            return
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line.startswith("include ") and depth < 8:
                for included in sorted(glob.glob(line.split(None, 1)[1])):
                    read(included, depth + 1)
            elif line.startswith("/"):
                folders.append(line)

    read("/etc/ld.so.conf")
    folders += ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"]
    folders += ["/lib", "/usr/lib"]
    return tuple(dict.fromkeys(folders))


def _find_library(name: str, search: list[str]) -> str | None:
    if "/" in name:
        return name if os.path.exists(name) else None
    for folder in [*search, *_library_folders()]:
        candidate = os.path.join(folder, name)
        if os.path.exists(candidate):
            return candidate
    return None


# -- the views ----------------------------------------------------------------------------


@functools.cache
def system_view() -> RuntimeView:
    """What every bot sees: the system's configuration and time zones, the merged-/usr
    links, and the sandbox's own tools and the common libraries with what they load."""
    import shutil

    builder = _Builder()
    for folder in SYSTEM_FOLDERS:
        builder.add(folder, tree=True)
    for link in TOP_LINKS:
        if os.path.islink(link):
            builder.links.add((link, os.readlink(link)))
    for tool in SANDBOX_TOOLS:
        found = shutil.which(tool, path=SANDBOX_PATH)
        if found is not None:
            builder.add_program(found)
    for library in COMMON_LIBRARIES:
        found = _find_library(library, [])
        if found is not None:
            builder.add_program(found)
    return builder.view()


@functools.cache
def python_view() -> RuntimeView:
    """What a Python bot sees of the Python that runs dp-arena (with :func:`system_view`)."""
    import dp_arena

    builder = _Builder()
    paths = sysconfig.get_paths()
    builder.add_program(sys.executable)
    builder.add_program(os.path.realpath(sys.executable))
    # A virtual environment's own "platstdlib" holds only its site-packages.
    for stdlib in {paths["stdlib"], paths["platstdlib"]} - {
        os.path.join(sys.prefix, os.path.relpath(paths["platstdlib"], sys.prefix))
        if sys.prefix != sys.base_prefix
        else ""
    }:
        _add_stdlib(builder, stdlib)
    builder.add(os.path.join(sys.prefix, "pyvenv.cfg"))
    for folder in {paths["purelib"], paths["platlib"]}:
        _add_site_packages(builder, folder, Path(dp_arena.__file__).resolve().parent)
    return builder.view()


def _add_stdlib(builder: _Builder, folder: str) -> None:
    """A standard library folder without :data:`HIDDEN_STDLIB`, and what its compiled
    modules load (but Tk's, hidden with ``tkinter``)."""
    stdlib = builder.add(folder, tree=True)
    if stdlib is None:
        return
    for hidden in HIDDEN_STDLIB:
        if os.path.isdir(os.path.join(stdlib, hidden)):
            builder.hidden.add(os.path.join(stdlib, hidden))
    for config in glob.glob(os.path.join(stdlib, "config-*")):
        builder.hidden.add(config)
    for module in glob.glob(os.path.join(stdlib, "lib-dynload", "*.so")):
        if not os.path.basename(module).startswith("_tkinter"):
            builder.add_program(module)


def _add_site_packages(builder: _Builder, folder: str, package: Path) -> None:
    """The allowed packages of a site-packages folder, and dp-arena itself: their own
    folders and files, and every compiled module's libraries."""
    import importlib.metadata

    if not os.path.isdir(folder):
        return
    entries: set[str] = set()
    for distribution in importlib.metadata.distributions(path=[folder]):
        name = (distribution.metadata["Name"] or "").lower().replace("_", "-")
        if name not in {*BOT_PACKAGES, "dp-arena"}:
            continue
        for file in distribution.files or ():
            top = file.parts[0] if file.parts else ""
            if top and top not in ("..", "__pycache__"):
                entries.add(top)
    for entry in sorted(entries):
        path = os.path.join(folder, entry)
        if os.path.isdir(path):
            builder.add(path, tree=True)
            for module in glob.glob(os.path.join(path, "**", "*.so*"), recursive=True):
                builder.add_program(module)
        elif os.path.exists(path):
            builder.add(path)
    builder.add(package, tree=True)  # an editable install's package lies elsewhere


@functools.cache
def program_view(program: str) -> RuntimeView:
    """What a command bot running ``program`` (a real path) sees besides
    :func:`system_view`: the program and what it loads, its language's library folders,
    and for the dealer's own Python, :func:`python_view`."""
    builder = _Builder()
    builder.add_program(program)
    name = os.path.basename(program)
    for language, patterns in LANGUAGE_FOLDERS.items():
        version = name[len(language) :]
        if name.startswith(language) and (not version or version[0] in ".0123456789"):
            for pattern in patterns:
                for folder in glob.glob(pattern):
                    real = builder.add(folder, tree=True)
                    if real is not None and language == "python3":
                        _add_stdlib(builder, real)
    view = builder.view()
    python = os.path.realpath(sys.executable)
    if os.path.realpath(program) == python or program == sys.executable:
        view = view | python_view()
    return view
