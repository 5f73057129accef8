"""Records as plain JSON and back, by one generic walk over their dataclass fields.

:func:`to_json` turns any frozen record (or nest of records, tuples, lists, dicts and
enums) into plain JSON data: a record becomes an object of its fields in declaration
order, a tuple a list, an enum its value. :func:`from_json` is its inverse for a record
class: each field is rebuilt from its declared type (``int``, ``str | None``,
``tuple[X, ...]``, ``tuple[X, Y]``, ``dict[str, X]``, an enum, another record), and a
field missing from the data takes its default. What to do for each field is worked out
once per class from its type hints, so decoding a record is a loop over a short list::

    Record.from_json(to_json(record)) == record

A record class that subclasses :class:`JsonRecord` has both as methods,
``record.to_json()`` and ``Record.from_json(data)``. A field whose JSON is not its value
(cards written as text) says so with :func:`codec` in its metadata; one left out when
empty, with ``{OMIT_EMPTY: True}``. Encoding is compiled: each record type's encoder is
one dict display of its fields, written from their declared types the first time a
record of that type is written, so it is as fast as a hand-written ``to_json`` (measured
in ``bench/bench_records.py``; docs/architecture.md). A record whose JSON is a view
rather than its fields (a report with derived figures) keeps its own ``to_json``.

A leaf below every part of the package: it imports only the standard library and
:mod:`dp_arena.frozen` (whose constructors it uses for frozen records).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Self, TypeVar

from dp_arena.frozen import maker

__all__ = ["OMIT_EMPTY", "JsonRecord", "codec", "from_json", "to_json"]

T = TypeVar("T")

# Each record type's encoder, made once from its fields (see _encoder).
_RECORD_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
# Values that are their own JSON (exactly these types: an enum of str is not one), taken
# as they are without a call: nearly every value of a result is one.
_PLAIN = frozenset((str, int, float, bool, type(None)))
_CODEC = "dp_arena.records"  # the metadata key of a field's codec
# The metadata key of a field left out of the JSON when it is empty: a field added later
# keeps the JSON of every record without it byte for byte.
OMIT_EMPTY = "omit_empty"


def codec(encode: Callable[[Any], Any], decode: Callable[[Any], Any]) -> dict[str, Any]:
    """Field metadata (``field(metadata=codec(...))``) for a field whose JSON is
    ``encode(value)``, read back by ``decode``."""
    return {_CODEC: (encode, decode)}


def to_json(record: Any) -> Any:
    """Plain JSON data (dicts, lists, str, int, None) of any record or nest of records."""
    encode = _RECORD_ENCODERS.get(type(record))
    if encode is not None:
        return encode(record)
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return _record_encoder(type(record))(record)
    if isinstance(record, enum.Enum):
        return record.value
    if isinstance(record, (list, tuple)):
        return [item if type(item) in _PLAIN else to_json(item) for item in record]
    if isinstance(record, dict):
        return {str(key): to_json(value) for key, value in record.items()}
    return record


_BUILDING: set[type] = set()  # the record types whose encoders are being made


def _is_record_type(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _record_encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    encode = _RECORD_ENCODERS.get(cls)
    if encode is None:
        encode = _RECORD_ENCODERS[cls] = _encoder(cls)
    return encode


def _encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A function that makes the JSON object of a ``cls``: one dict display of its fields,
    each written as its declared type says (compiled once, as a hand-written ``to_json``
    would be written; a field whose type says nothing certain is walked)."""
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):  # a hint that names what only a type checker imports
        hints = {}
    namespace: dict[str, Any] = {"_walk": to_json, "_PLAIN": _PLAIN, "_Enum": enum.Enum}
    items = []
    _BUILDING.add(cls)  # a record that holds its own kind is walked, not compiled forever
    for index, field in enumerate(dataclasses.fields(cls)):
        access = f"record.{field.name}"
        if _CODEC in field.metadata:
            namespace[f"_encode{index}"] = field.metadata[_CODEC][0]
            expression = f"_encode{index}({access})"
        elif _is_record_type(hint := hints.get(field.name, Any)) and hint not in _BUILDING:
            namespace[f"_encode{index}"] = _record_encoder(hint)
            expression = f"_encode{index}({access})"
        else:
            expression = _encoding(hint, access, f"_v{index}")
        items.append((field.name, expression, bool(field.metadata.get(OMIT_EMPTY))))
    _BUILDING.discard(cls)
    # One dict display of the fields up to the first that is left out when empty; that
    # one and those after it are added one by one, so the keys keep the fields' order.
    first = next((at for at, (_, _, omitted) in enumerate(items) if omitted), len(items))
    shown = ", ".join(f"{name!r}: {expression}" for name, expression, _ in items[:first])
    lines = ["def encode(record):", f"    data = {{{shown}}}"]
    for name, expression, omitted in items[first:]:
        if omitted:
            lines += [f"    if record.{name}:", f"        data[{name!r}] = {expression}"]
        else:
            lines.append(f"    data[{name!r}] = {expression}")
    source = "\n".join([*lines, "    return data", ""])
    exec(source, namespace)  # built above from the class's own fields and types
    encode: Callable[[Any], dict[str, Any]] = namespace["encode"]
    return encode


def _encoding(hint: Any, access: str, name: str) -> str:
    """The expression that writes the value ``access`` of type ``hint`` as JSON (``name``
    and names made from it are free for the expression's own variables)."""
    if hint in (str, int, float, bool):
        return access
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union) and type(None) in arguments:
        others = [argument for argument in arguments if argument is not type(None)]
        if len(others) == 1:
            inner = _encoding(others[0], name, f"{name}_")
            if inner == name:
                return access
            return f"(None if ({name} := {access}) is None else {inner})"
    homogeneous = origin is list or (origin is tuple and arguments[-1:] == (Ellipsis,))
    if homogeneous and arguments:
        item = _encoding(arguments[0], f"{name}_i", f"{name}_i_")
        if item == f"{name}_i":
            return f"list({access})"
        return f"[{item} for {name}_i in {access}]"
    if origin is tuple and arguments and all(item in (str, int, float, bool) for item in arguments):
        return f"list({access})"  # a pair of plain values
    if isinstance(hint, type) and issubclass(hint, enum.Enum):  # (its value, if given one)
        return f"({name}.value if isinstance({name} := {access}, _Enum) else {name})"
    return f"({name} if type({name} := {access}) in _PLAIN else _walk({name}))"


class JsonRecord:
    """A base of records whose JSON is their fields: ``record.to_json()`` and
    ``Record.from_json(data)`` by the walk above and below. It adds no slot, so a frozen,
    slotted record stays one."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = to_json(self)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        return from_json(cls, data)


# -- reading -----------------------------------------------------------------------------

_Convert = Callable[[Any], Any] | None  # None: the JSON value is the field's value
_MISSING = object()
_DECODERS: dict[type, Callable[[Mapping[str, Any]], Any]] = {}


def from_json(cls: type[T], data: Mapping[str, Any]) -> T:
    """The record of class ``cls`` whose JSON is ``data`` (the inverse of
    :func:`to_json`); ``KeyError`` names a field that is missing and has no default,
    ``TypeError`` or ``ValueError`` a value that is not of its field's type."""
    decode = _DECODERS.get(cls)
    if decode is None:
        decode = _DECODERS[cls] = _decoder(cls)
    return decode(data)  # type: ignore[no-any-return]


def _decoder(cls: type) -> Callable[[Mapping[str, Any]], Any]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"from_json: {cls.__name__} is not a record (a dataclass)")
    hints = typing.get_type_hints(cls)
    # For each field: its name, how its value is read, and its default (a factory's
    # result made anew each time), if it has one.
    plan: list[tuple[str, _Convert, Any, bool]] = []
    for field in dataclasses.fields(cls):
        if _CODEC in field.metadata:
            convert: _Convert = field.metadata[_CODEC][1]
        else:
            convert = _converter(hints[field.name], f"{cls.__name__}.{field.name}")
        if field.default is not dataclasses.MISSING:
            plan.append((field.name, convert, field.default, False))
        elif field.default_factory is not dataclasses.MISSING:
            plan.append((field.name, convert, field.default_factory, True))
        else:
            plan.append((field.name, convert, _MISSING, False))
    make = _constructor(cls)

    def decode(data: Mapping[str, Any]) -> Any:
        values = []
        for name, convert, default, factory in plan:
            value = data.get(name, _MISSING)
            if value is _MISSING:
                if default is _MISSING:
                    raise KeyError(f"{cls.__name__}: no {name!r}")
                values.append(default() if factory else default)
            else:
                values.append(value if convert is None else convert(value))
        return make(*values)

    return decode


def _constructor(cls: type) -> Callable[..., Any]:
    """The fastest way to make a ``cls`` from its fields in order: :func:`maker`'s for a
    frozen, slotted record that only stores its fields, else the class itself."""
    try:
        return maker(cls)
    except TypeError:
        return cls


def _converter(hint: Any, where: str) -> _Convert:
    """How a JSON value becomes a value of type ``hint`` (``None``: it already is)."""
    if hint is Any or hint in _PLAIN:
        return None
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        others = [argument for argument in arguments if argument is not type(None)]
        if len(others) != 1 or len(arguments) != 2:
            raise TypeError(f"from_json: {where} is a union other than X | None: {hint}")
        inner = _converter(others[0], where)
        if inner is None:
            return None
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            item = _converter(arguments[0], where)
            if item is None:
                return tuple
            return lambda value: tuple([item(element) for element in value])
        items = [_converter(argument, where) for argument in arguments]
        if all(item is None for item in items):  # plain values: checked for their number

            def plain(value: Any) -> tuple[Any, ...]:
                if len(value) != len(items):
                    raise ValueError(f"{where} takes {len(items)} items, not {len(value)}")
                return tuple(value)

            return plain

        def fixed(value: Any) -> tuple[Any, ...]:
            if len(value) != len(items):
                raise ValueError(f"{where} takes {len(items)} items, not {len(value)}")
            return tuple(
                element if item is None else item(element)
                for item, element in zip(items, value, strict=True)
            )

        return fixed
    if origin is list:
        item = _converter(arguments[0], where) if arguments else None
        if item is None:
            return list
        return lambda value: [item(element) for element in value]
    if origin is dict or hint is dict:
        item = _converter(arguments[1], where) if arguments else None
        if item is None:
            return dict
        return lambda value: {key: item(element) for key, element in value.items()}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        record: type = hint
        return lambda value: from_json(record, value)
    raise TypeError(f"from_json: {where} has a type it cannot read: {hint}")
