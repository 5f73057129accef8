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

# Last moved when the random and learned bots began answering with mixed strategies that
# the dealer draws from the key (the random bot's raises spread over eight amounts, the
# learned bot's softmax at a temperature of 0.1), and the hand histories began to carry
# each mix as a commentary: every config with either bot plays other hands.
# demo and rankings, which seat the learned bot, moved again when its weights became
# those of its self-play recipe (configs/learned.toml).
DIGESTS = {
    "cash": "2d1366fb1a1326a1595eb65d05eaeb333b5d48447ae6f490e0310a83360f2521",
    "classic": "1df800c79b9712053f62909b0ea4a66e19bd23953b6bb7060934ab0cbbc481fe",
    "demo": "915277b8bc267476592147764d44e9df904bf40e30b3ee4a22ad0d29494b404a",
    "quickplay": "ff79c22e5e601a4afc9374e81c57a88f669bc7737124e5a02631e84be98c5342",
    "rankings": "0431d10298b286593e7201730cc3d1228a5befe43e15e956bee84f012c6d7828",
    "regular": "af2de2cc17ad6fb7b61adc684332d12d66a363481cd0bcc67cd28f8d13f1f538",
    "short": "826405749321fc0de2e45288d94201a94f9058fc857d20ea16249bc01671cc05",
    "sng-round-robin": "a3f84afdb39107e52f7e3b5b68119a66f2765dad83d47c19789f9885fcddfa88",
    "sng-short": "bde19bf52cae42ef43b44b84f38ce87139318753984620f125d62e8fd8bc1b47",
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
