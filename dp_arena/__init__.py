"""dp-arena: a competition harness for poker bots playing duplicate capped hold'em."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
