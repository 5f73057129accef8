"""The event key: the secret every card and every draw of a run comes from, committed to
before the first deal and revealed after the last.

A key is 32 bytes. A run or match normally makes a **secret** key with
:func:`secrets.token_bytes` when it starts; anyone who knew it would know every card, so
it is kept where no bot can read it (the run directory, owner-only) and never shown to
a bot in any form. A **public** seed ``N`` (for tests, benchmarks and demos) is the key
``N.to_bytes(32, "big")``; a run that uses one says that its decks are predictable.

The engine and the event's draws take the key as one integer, :attr:`EventKey.seed`
(``int.from_bytes(key, "big")``): public seed ``N`` deals exactly what ``deck_for(N, ...)``
deals. The **commitment** is the SHA-256 of the 32 key bytes, in hex: published when the
run starts, it fixes every deck in advance; the key itself is revealed in the results
when the event is over, so anyone can check ``sha256(key) == commitment`` and recompute
every deck (``dp-arena verify``).

>>> key = EventKey.from_seed(7)
>>> key.seed, key.public
(7, True)
>>> key.hex
'0000000000000000000000000000000000000000000000000000000000000007'
>>> key.commitment == hashlib.sha256(bytes(31) + bytes([7])).hexdigest()
True
>>> secret = EventKey.secret()
>>> secret.hex in repr(secret)  # a key never shows itself by accident
False
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from dp_arena.errors import RunError

__all__ = ["KEY_BYTES", "EventKey", "commitment_of"]

KEY_BYTES = 32
_MAX_SEED = 1 << (8 * KEY_BYTES)


def commitment_of(material: bytes) -> str:
    """The commitment to a key: SHA-256 of its bytes, lowercase hex."""
    return hashlib.sha256(material).hexdigest()


@dataclass(frozen=True, slots=True)
class EventKey:
    """32 key bytes and whether they are a public seed (then the decks are predictable)."""

    material: bytes = field(repr=False)
    public: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.material, bytes) or len(self.material) != KEY_BYTES:
            raise ValueError(f"an event key is {KEY_BYTES} bytes")

    @classmethod
    def secret(cls) -> EventKey:
        """A new secret key: 256 bits from the operating system's random source."""
        return cls(secrets.token_bytes(KEY_BYTES), public=False)

    @classmethod
    def from_seed(cls, seed: int) -> EventKey:
        """The public key of a human-chosen seed (its decks are predictable)."""
        if type(seed) is not int or not 0 <= seed < _MAX_SEED:
            raise ValueError(f"a seed is an integer from 0 to 2**256 - 1, not {seed!r}")
        return cls(seed.to_bytes(KEY_BYTES, "big"), public=True)

    @classmethod
    def from_hex(cls, text: str, *, public: bool = False) -> EventKey:
        """A key written as 64 hexadecimal digits (as :attr:`hex` writes it)."""
        cleaned = text.strip().lower()
        if len(cleaned) != 2 * KEY_BYTES or any(c not in "0123456789abcdef" for c in cleaned):
            raise ValueError(f"an event key is {2 * KEY_BYTES} hexadecimal digits")
        return cls(bytes.fromhex(cleaned), public=public)

    @property
    def seed(self) -> int:
        """The key as the integer the decks and draws are computed from."""
        return int.from_bytes(self.material, "big")

    @property
    def hex(self) -> str:
        return self.material.hex()

    @property
    def commitment(self) -> str:
        return commitment_of(self.material)

    def describe(self) -> str:
        """One line for people: what kind of key, and its commitment."""
        if self.public:
            return (
                f"public seed {self.seed}: the decks are predictable (for tests and demos);"
                f" commitment {self.commitment}"
            )
        return f"secret deck key, commitment {self.commitment} (revealed at the end)"

    def label(self) -> str:
        """A few words for a summary line."""
        if self.public:
            return f"public seed {self.seed} (predictable decks)"
        return f"secret deck key (commitment {self.commitment[:16]}...)"

    def reveal(self) -> dict[str, object]:
        """What the results publish about the key once the event is over."""
        return {
            "key": self.hex,
            "commitment": self.commitment,
            "predictable": self.public,
            "seed": self.seed if self.public else None,
        }

    # -- files ------------------------------------------------------------------------

    def write(self, path: Path) -> None:
        """Write the key to a new file only its owner can read (never over another)."""
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise RunError(f"{path} already exists: an event key is never overwritten") from None
        except OSError as error:
            raise RunError(f"cannot write the event key {path}: {error.strerror}") from None
        with os.fdopen(descriptor, "w", encoding="ascii") as stream:
            stream.write(self.hex + "\n")
            stream.flush()
            os.fsync(stream.fileno())

    @classmethod
    def read(cls, path: Path) -> EventKey:
        """The secret key written by :meth:`write`; :class:`RunError` names the file."""
        try:
            text = path.read_text(encoding="ascii")
        except FileNotFoundError:
            raise RunError(f"{path}: the run's event key is missing") from None
        except (OSError, UnicodeDecodeError) as error:
            raise RunError(f"{path}: cannot read the event key: {error}") from None
        try:
            return cls.from_hex(text)
        except ValueError as error:
            raise RunError(f"{path}: not an event key ({error})") from None
