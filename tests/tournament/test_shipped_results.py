"""Every shipped event config, played with a public seed, gives the same results documents
as when these digests were taken: a change meant to keep behaviour (a refactoring, a
faster path) shows here if a single byte of results.json, a session document or a hand
history moved. A change meant to alter results updates the digest it names, and says why.

The digest covers results.json, sessions/ and histories/ (not timings, logs or the
store, which hold wall-clock figures); a config without a seed is given ``seed = 2026``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from dp_arena.cli import main

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SEED = 2026

DIGESTS = {
    "cash": "39d3ff12cd9649420a1ac5d92e0c5b95551ef61ad5c68de3f1187ed4d87cc455",
    "classic": "74075416ea51f3b2a4dd959f9c04b6f2d8795d57c42d065dab87e41e1af8279b",
    "demo": "4da1568c277c0c93f191df05fd0c2a3194842ee40c988647e246b2b943235bc1",
    "quickplay": "d6fd92cfb32977db1b597b3c88dd23635c680b6935f2970781038e6499fd129d",
    "rankings": "801421c51a5a1ef7f85ab210d32a5f881c03e51d8479216b2a32d30c20f423f5",
    "regular": "9760985bbadf38176573a06744e912fbbcd1356a6c5043daa5cdd34b6570cb0e",
    "short": "cc712a131515fc2ad60fa1090b845958a5406ed59e4cab3148319f15344db18e",
    "sng-round-robin": "9e36f33886d39110a0cd44a1af3de7897d921eada8731f7a3ae254ee6ff55cf3",
    "sng-short": "88700fe29888869e1c2c97da6d8281cca6cf6fd5c8e317229fcd2a118b0cc2d4",
}
SLOW = {"rankings"}  # 240-deal sessions: about a minute


def _event_configs() -> list[str]:
    return sorted(
        path.stem
        for path in CONFIGS.glob("*.toml")
        if re.search(r"(?m)^\[event\]", path.read_text())
    )


def _digest(run_dir: Path) -> str:
    paths = [run_dir / "results.json"]
    for folder in ("sessions", "histories"):
        paths += sorted((run_dir / folder).glob("*"))
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path.relative_to(run_dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_every_shipped_event_config_has_a_digest() -> None:
    assert sorted(DIGESTS) == _event_configs()


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in DIGESTS],
)
def test_a_shipped_config_gives_the_same_results(name: str, tmp_path: Path) -> None:
    text = (CONFIGS / f"{name}.toml").read_text()
    if not re.search(r"(?m)^seed\s*=", text):
        text = re.sub(r"(?m)^\[event\]$", f"[event]\nseed = {SEED}", text, count=1)
    config = tmp_path / f"{name}.toml"
    config.write_text(text)
    run_dir = tmp_path / "run"
    arguments = ["run", str(config), "--executor", "serial", "--quiet", "--run-dir", str(run_dir)]
    assert main(arguments) == 0
    assert _digest(run_dir) == DIGESTS[name]
