"""The event key: its commitment is plain SHA-256 of its bytes, a public seed deals what
the seed always dealt, and a key never shows itself or lands in a file others can read."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest

from dp_arena.engine import deck_for
from dp_arena.errors import RunError
from dp_arena.keys import EventKey


def test_the_commitment_is_the_sha256_of_the_key_bytes() -> None:
    key = EventKey.secret()
    assert key.commitment == hashlib.sha256(bytes.fromhex(key.hex)).hexdigest()
    assert EventKey.from_hex(key.hex) == key


def test_secret_keys_are_256_random_bits() -> None:
    keys = {EventKey.secret().hex for _ in range(64)}
    assert len(keys) == 64
    assert all(len(text) == 64 for text in keys)
    # Uniform bits: over 64 keys the share of one bits is close to a half.
    ones = sum(int(text, 16).bit_count() for text in keys)
    assert abs(ones / (64 * 256) - 0.5) < 0.03


def test_a_public_seed_is_its_own_key_and_deals_the_same_decks() -> None:
    key = EventKey.from_seed(2026)
    assert key.public and key.seed == 2026
    assert deck_for(key.seed, 1, 2, 3) == deck_for(2026, 1, 2, 3)
    assert key.reveal() == {
        "key": f"{2026:064x}",
        "commitment": hashlib.sha256((2026).to_bytes(32, "big")).hexdigest(),
        "predictable": True,
        "seed": 2026,
    }


def test_a_key_never_shows_itself_by_accident() -> None:
    key = EventKey.secret()
    for text in (repr(key), str(key), key.describe(), key.label()):
        assert key.hex not in text and str(key.seed) not in text
    assert key.commitment in key.describe()


@pytest.mark.parametrize("text", ["", "12", "g" * 64, "0" * 63, "0" * 65])
def test_malformed_keys_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        EventKey.from_hex(text)


@pytest.mark.parametrize("seed", [-1, 1 << 256, True, 1.0])
def test_seeds_out_of_range_are_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        EventKey.from_seed(seed)  # type: ignore[arg-type]


def test_a_key_file_is_owner_only_and_never_overwritten(tmp_path: Path) -> None:
    key = EventKey.secret()
    path = tmp_path / "key"
    key.write(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert EventKey.read(path) == key
    with pytest.raises(RunError, match="never overwritten"):
        EventKey.secret().write(path)
    assert EventKey.read(path) == key


def test_unreadable_key_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(RunError, match=r"key.*missing"):
        EventKey.read(tmp_path / "key")
    (tmp_path / "key").write_bytes(b"\xff\xfe not a key")
    with pytest.raises(RunError, match=str(tmp_path / "key")):
        EventKey.read(tmp_path / "key")
