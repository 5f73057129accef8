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

# Last moved when events stopped testing the built-in bots for clairvoyance (their
# entrants' test is null; the classic freezeout was never tested, so its digest stays).
DIGESTS = {
    "cash": "fd9721a677f4c496e7cfe441017dcc71cbb0132030ad07e51818536058adbd5e",
    "classic": "ee4b24718bdf45454b7d68bf9a40d53b568b677895f580b904534bf1acae14b8",
    "demo": "10e5e48440f41a8b895c06a6dac89939e1ae386883df0857e4942f9f250b9efc",
    "quickplay": "785bce0b7c10ceb9ab6b3a576678475ba6d278813c593c3fcaac756b3afa925a",
    "rankings": "7052e7e803ac33b194fc472927c87877c881c5e53024d48a41ad898788eb9d88",
    "regular": "0912c56ef47ac9f4f6532f5927846ed89a2dba3b2aad132646eaeca6a4c1285f",
    "short": "220bf6ae3dafa0afb0f1e7d5b324d7c7f145248a7c0d5930abcbb727cdea8aeb",
    "sng-round-robin": "fe205db5a98d9a2eb02bfe0c4e17a22520bf98a65a4ed6516b5841076c8f290c",
    "sng-short": "e6eeda23c6650c2834c023728bf42550598a6f3f2dc384aefa2aee9d798b3faa",
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
