"""Every shipped event config, played with a public seed, gives the same results documents
as when these digests were taken: a change meant to keep behaviour (a refactoring, a
faster path) shows here if a single byte of results.json, a session document or a hand
history moved. A change meant to alter results updates the digest it names, and says why.

The digest covers results.json, sessions/ and histories/ (not timings, logs or the
store, which hold wall-clock figures); a config without a seed is given ``seed = 2026``.
The built-in bots' code hash in results.json (of every file of dp-arena's own agents) is
left out: a faster built-in that plays the same moves does not move it, and a bot that plays
differently moves the sessions and histories anyway. So is the results digest revealed in
results.json, which covers that hash (and everything else this digest covers too).
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
    "cash": "f9b300ed70d6675f177cd751007b56fc7ae1e29560954f22c7efd58ed3c266cd",
    "classic": "b2dbd60da3a49f6c97a92600ca8de43811e305cfbd66d35adb94ccb7d4d5604b",
    "demo": "cc6149a9a6c457ccfbc1b08fad18a35e0638be2a03f827ff296b515a0a43cd5b",
    "quickplay": "cd4e2d508b8f2e504e52c5ceef4a6774a3c0a5cf28087d09ede84b13eb08a636",
    "rankings": "f82193c15df515c1dc611c367e6a809eb5314f6851371d11a4007e938641d8c0",
    "regular": "cea4a6104a1232e0c16dc78343192be0c0f0485c38fd088e5bb6f85c72994f8e",
    "short": "612dd49958f55b4b4d4294574029c8f68443ef094f33bbf0a30a0918f26f805d",
    "sng-round-robin": "056055064e6cc98d32bdfd45173152d360624ae8e9fe2674bdde0cb4da82a790",
    "sng-short": "b1182582433358b7051e0030bc01a20d3c1117fadec766903c51334fc72ceeea",
}
SLOW = {"rankings"}  # 240-deal sessions: about a minute


def _event_configs() -> list[str]:
    return sorted(
        path.stem
        for path in CONFIGS.glob("*.toml")
        if re.search(r"(?m)^\[event\]", path.read_text())
    )


# A built-in entrant's code as results.json records it, its hash the part left out.
BUILTIN_CODE = re.compile(rb'("kind": "builtin", "name": "[^"]*", "sha256": )"[0-9a-f]{64}"')
# The results digest's line in the event's object (its keys one a line, sorted).
RESULTS_DIGEST = re.compile(rb'\n *"results_digest": "[0-9a-f]{64}",')


def _digest(run_dir: Path) -> str:
    paths = [run_dir / "results.json"]
    for folder in ("sessions", "histories"):
        paths += sorted((run_dir / folder).glob("*"))
    digest = hashlib.sha256()
    for path in sorted(paths):
        data = path.read_bytes()
        if path.name == "results.json":
            data, found = BUILTIN_CODE.subn(rb'\1"(the built-ins)"', data)
            assert found or b'"kind": "builtin"' not in data, "the built-ins' code is not found"
            data, found = RESULTS_DIGEST.subn(b"", data)
            assert found == 1, "the results digest is not found"
        digest.update(str(path.relative_to(run_dir)).encode() + b"\0" + data + b"\0")
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
