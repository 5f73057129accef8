"""The evaluator's lookup tables on disk: generated once, read in milliseconds.

Building the tables (:func:`dp_arena.engine.evaluator._build_tables`) takes about half a
second; every process that evaluates hands would pay it, and every sandboxed bot that
evaluates is a fresh process. ``evaluator_tables.bin`` next to this module holds the
same tables, compressed (~60 KB): the non-flush rank-count keys (sorted, delta-coded,
``uint32``) with their values (``uint16``), the 8,192 flush values (``uint16``) and the
4,096 flush-suit entries (``int8``), little-endian, after a header naming the format.
The test suite checks the file equals a fresh build; after changing the generator,
write it again with ``python -c "from dp_arena.engine.evaluator_tables import regenerate;
regenerate()"``.
"""

from __future__ import annotations

import itertools
import struct
import sys
import zlib
from array import array
from pathlib import Path

__all__ = ["TABLES_FILE", "Tables", "read_tables", "regenerate", "write_tables"]

TABLES_FILE = Path(__file__).with_name("evaluator_tables.bin")
_MAGIC = b"dp-arena evaluator tables v1\n"
_HEADER = struct.Struct("<III")  # non-flush entries, flush values, flush-suit entries

Tables = tuple[list[int], dict[int, int], list[int]]  # flush values, non-flush, flush suit


def _little_endian(values: array) -> bytes:  # type: ignore[type-arg]
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _from_little_endian(typecode: str, data: bytes) -> array:  # type: ignore[type-arg]
    values = array(typecode)
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def write_tables(tables: Tables, path: Path = TABLES_FILE) -> None:
    flush_values, nonflush_values, flush_suit = tables
    keys = sorted(nonflush_values)
    deltas = array("I", [keys[0], *(b - a for a, b in itertools.pairwise(keys))])
    body = b"".join(
        (
            _HEADER.pack(len(keys), len(flush_values), len(flush_suit)),
            _little_endian(deltas),
            _little_endian(array("H", [nonflush_values[key] for key in keys])),
            _little_endian(array("H", flush_values)),
            _little_endian(array("b", flush_suit)),
        )
    )
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(_MAGIC + zlib.compress(body, 9))
    temporary.replace(path)


def read_tables(path: Path | None = None) -> Tables | None:
    """The tables in ``path`` (default :data:`TABLES_FILE`), or ``None`` when it is
    missing or not a valid tables file (the caller then builds them)."""
    try:
        data = (path or TABLES_FILE).read_bytes()
        if not data.startswith(_MAGIC):
            return None
        body = zlib.decompress(data[len(_MAGIC) :])
        nonflush_count, flush_count, suit_count = _HEADER.unpack_from(body)
        offset = _HEADER.size
        sizes = (4 * nonflush_count, 2 * nonflush_count, 2 * flush_count, suit_count)
        if offset + sum(sizes) != len(body):
            return None
        parts = []
        for typecode, size in zip("IHHb", sizes, strict=True):
            parts.append(_from_little_endian(typecode, body[offset : offset + size]))
            offset += size
    except (OSError, zlib.error, struct.error):
        return None
    deltas, values, flush_values, flush_suit = parts
    # One int object per rank number (7,462 of them), shared by the 73,775 entries that
    # have it: 2 MB less in every process that evaluates, and in each seat's template.
    numbers = list(range(max(*values, *flush_values, 0) + 1))
    nonflush_values = dict(
        zip(itertools.accumulate(deltas), map(numbers.__getitem__, values), strict=True)
    )
    return list(map(numbers.__getitem__, flush_values)), nonflush_values, list(flush_suit)


def regenerate(path: Path | None = None) -> None:
    """Build the tables with the generator and write them to ``path`` (default
    :data:`TABLES_FILE`)."""
    from dp_arena.engine.evaluator import _build_tables

    write_tables(_build_tables(), path or TABLES_FILE)
