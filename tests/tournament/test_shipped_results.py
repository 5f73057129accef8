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

# Last moved by the clairvoyance test: beside every entrant in results.json (null for the
# classic freezeout) and a line of the summary.
DIGESTS = {
    "cash": "0ea5bcfac54cfd80c1bc78ecb26dd43505492812ca7a424d11703c051ac3d1b4",
    "classic": "ee4b24718bdf45454b7d68bf9a40d53b568b677895f580b904534bf1acae14b8",
    "demo": "29c374662c91e414284c671820e79bf8eb82c5595cb0a1ee734f9ee32c39b567",
    "quickplay": "400e316f4e3a7ed7517b7e7d4cf446a2bbf67441dc3ef940b309eead7a017824",
    "rankings": "6d1cc27beca860f9b970ff22afecc1bc7c5bc22739fa41c7afb5606e4ec2aae8",
    "regular": "bae9572abe2bcf0f0da07ea0ddc3aa4d44faeeb906fc4d9438ac68653694daca",
    "short": "7ba1e5747d01d2520a31dcfcf9e14664ff58342b652c52427bb2cfe7e78c60f2",
    "sng-round-robin": "cf053412abdc50300af556064716d834c85f7ccb06a60e40aa22fba3699b6a01",
    "sng-short": "475fd64f69c8b66e8183429da55f83f0fb8652ea829ed722a4d293d169fb264c",
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
