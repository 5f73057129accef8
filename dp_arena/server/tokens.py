"""Bearer tokens and other secrets of the server: made with :mod:`secrets`, shown once,
stored only as their SHA-256.

A token carries 256 random bits, so a plain SHA-256 is as good as a slow hash here:
nobody can guess a token from its hash, and looking one up by its hash takes one index
read. Tokens never go into a log or a name.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["TOKEN_PREFIX", "hash_secret", "new_secret", "new_token", "same_secret"]

TOKEN_PREFIX = "dpa_"


def new_token() -> str:
    """A new bearer token: ``dpa_`` and 43 URL-safe characters (256 bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_secret() -> str:
    """A new random value for a cookie or a form token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_secret(text: str) -> str:
    """What is stored of a token or a cookie: SHA-256 of its text, in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def same_secret(first: str, second: str) -> bool:
    """Compare two secrets in constant time."""
    return hmac.compare_digest(first.encode("utf-8", "replace"), second.encode("utf-8", "replace"))
