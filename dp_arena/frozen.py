"""Fast construction of the frozen records made at every decision: :func:`maker`.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, a
call looked up anew for every field (it must step around the class's own
``__setattr__``, which refuses). For the records a table makes at every decision (the
observation, its legal actions, each action's record) that is most of their cost: an
observation of 26 fields takes about 6 µs to make that way. :func:`maker` gives a
constructor that builds the very same instance several times faster (an observation in
about 1 µs): a twin class with the same slots and no ``__setattr__`` of its own stores
the fields by plain assignment, and the instance then takes the class's own type (a
``__class__`` assignment, which Python allows between classes of the same layout). The
instance is indistinguishable from one its class made: the same type, fields,
equality, hash and ``repr``, and as frozen from then on.

A leaf below every part of the package (the engine uses it too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["maker"]

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A constructor taking every field of ``cls`` (by name or in declaration order;
    none has a default) and returning the instance ``cls(...)`` would. ``cls`` must be a
    frozen, slotted dataclass that does nothing at initialisation but store its fields
    (no ``__post_init__``, no ``InitVar``, every field its own and set by ``__init__``)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in vars(cls):
        raise TypeError(f"maker: {cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"maker: {cls.__name__} has a __post_init__, which this would skip")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # a dataclass, checked above
    if len(fields) != len(vars(cls)["__slots__"]) or not all(field.init for field in fields):
        raise TypeError(f"maker: {cls.__name__} has fields that its __init__ does not set")
    names = [field.name for field in fields]
    if {"self", "_cls"} & set(names):
        raise TypeError(f"maker: {cls.__name__} has a field named like a name of maker's")
    # The twin: the same slots (and bases, which add none), stored by plain assignment,
    # then the instance becomes the class's own. The parameters are the fields' names, so
    # that a call may name them as a call of the class does.
    lines = [
        f"def __init__(self, {', '.join(names)}):",
        *(f"    self.{name} = {name}" for name in names),
        "    self.__class__ = _cls",
    ]
    namespace: dict[str, Any] = {"_cls": cls}
    exec("\n".join(lines), namespace)  # built above from the class's own fields
    twin: type[Any] = type(f"_Making{cls.__name__}", cls.__bases__, {
        "__slots__": tuple(vars(cls)["__slots__"]),
        "__init__": namespace["__init__"],
        "__doc__": f"{cls.__name__}(...), made without its __init__ (see dp_arena.frozen).",
    })  # fmt: skip
    try:  # the twin's instances must be able to become the class's: the same layout
        probe: Any = object.__new__(twin)
        probe.__class__ = cls
    except TypeError as error:
        raise TypeError(f"maker: {cls.__name__} cannot be made from a twin: {error}") from error
    return twin  # its instances are cls's once made
