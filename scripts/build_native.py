"""Compile the hot modules with mypyc into ``dp_arena/engine/_native/`` (``make native``).

The modules are those of :data:`dp_arena.engine.native.COMPILED`, compiled as one group
(the same sources, type-checked strictly, turned into C); the build writes a manifest of
the sources' SHA-256 so that an edited source makes the whole build unused until it is
rebuilt. Needs mypy (the ``dev`` extra) and a C compiler; without them the project runs
as pure Python, as it always can.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    os.environ["DP_ARENA_PURE_PYTHON"] = "1"  # never import the build being replaced
    from dp_arena.engine.native import COMPILED, NATIVE_DIR

    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as error:
        print(f"build_native: needs mypy and setuptools ({error})", file=sys.stderr)
        return 2
    sources = [module.replace(".", "/") + ".py" for module in COMPILED]
    # The digests of the sources as compiled: read before the build, so that an edit
    # made while it runs leaves the build stale rather than wrongly current.
    digests = {
        module: hashlib.sha256((ROOT / source).read_bytes()).hexdigest()
        for module, source in zip(COMPILED, sources, strict=True)
    }
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        extensions = mypycify(
            sources, opt_level="3", group_name="dp_arena_native", target_dir=f"{scratch}/c"
        )
        setup(
            name="dp_arena_native",
            ext_modules=extensions,
            packages=[],  # the extensions alone: no package discovery in the repository
            py_modules=[],
            script_args=[
                "--quiet",
                "build_ext",
                "--build-lib",
                f"{scratch}/lib",
                "--build-temp",
                f"{scratch}/temp",
            ],
        )
        shutil.rmtree(NATIVE_DIR, ignore_errors=True)
        NATIVE_DIR.mkdir(parents=True)
        built = Path(scratch) / "lib"
        for library in built.glob("dp_arena_native__mypyc*"):
            shutil.copy2(library, NATIVE_DIR / library.name)
        for module in COMPILED:
            package, name = module.rsplit(".", 1)
            target = NATIVE_DIR / package.rsplit(".", 1)[-1]
            target.mkdir(exist_ok=True)
            for compiled in (built / package.replace(".", "/")).glob(f"{name}.*"):
                shutil.copy2(compiled, target / compiled.name)
    manifest = {
        "cache_tag": sys.implementation.cache_tag,
        "sources": digests,
    }
    (NATIVE_DIR / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"built {', '.join(COMPILED)} into {NATIVE_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
