"""What the JSON of a stored table-session result must look like, checked before it is
turned into records: every field present with its type, every deal's players, hole cards
and nets one per seat, nets summing to zero, faults of a known kind. A store damaged on
disk or edited by hand then fails with the reason, not deep inside the standings.

>>> result_problem({"table": 1, "players": ["a", "b"], "deals": [], "faults": [],
...                 "absent_seats": [2]})
'absent_seats must be seat numbers'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dp_arena.results import FaultKind

__all__ = ["result_problem"]

_FAULT_KINDS = frozenset(kind.value for kind in FaultKind)


def result_problem(data: Any) -> str | None:
    """Why ``data`` is not the JSON of a table-session result, or ``None``: every field
    present with its type, every deal's players and nets one per seat and zero-sum."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    problem = _fields(
        data, {"table": int, "players": list, "deals": list, "faults": list, "absent_seats": list}
    )
    if problem:
        return problem
    seats = len(data["players"])
    if not all(isinstance(player, str) for player in data["players"]):
        return "players must be names"
    if not all(_is_int(seat) and 0 <= seat < seats for seat in data["absent_seats"]):
        return "absent_seats must be seat numbers"
    for index, deal in enumerate(data["deals"]):
        problem = _deal_problem(deal, seats)
        if problem:
            return f"deals[{index}]: {problem}"
    for index, fault in enumerate(data["faults"]):
        problem = _fault_problem(fault)
        if problem:
            return f"faults[{index}]: {problem}"
    return None


def _deal_problem(deal: Any, seats: int) -> str | None:
    if not isinstance(deal, dict):
        return "not an object"
    problem = _fields(
        deal,
        {
            "deal": int,
            "button": int,
            "players": list,
            "hole_cards": list,
            "board": str,
            "actions": list,
            "nets": list,
        },
    )
    if problem:
        return problem
    if len(deal["players"]) != seats or not all(isinstance(p, str) for p in deal["players"]):
        return f"players must be {seats} names"
    if len(deal["hole_cards"]) != seats or not all(isinstance(c, str) for c in deal["hole_cards"]):
        return f"hole_cards must be {seats} strings"
    if not all(isinstance(action, str) for action in deal["actions"]):
        return "actions must be strings"
    nets = deal["nets"]
    if len(nets) != seats or not all(_is_int(net) for net in nets) or sum(nets) != 0:
        return f"nets must be {seats} integers that sum to zero, not {str(nets)[:80]}"
    absent = deal.get("absent", [])
    if not isinstance(absent, list) or not all(_is_int(seat) for seat in absent):
        return "absent must be seat numbers"
    mixes = deal.get("mixes", [])
    if not isinstance(mixes, list) or not all(
        isinstance(mix, list)
        and len(mix) == 2
        and _is_int(mix[0])
        and 0 <= mix[0] < len(deal["actions"])
        and isinstance(mix[1], str)
        for mix in mixes
    ):
        return "mixes must be [action index, mix] pairs"
    return None


def _fault_problem(fault: Any) -> str | None:
    if not isinstance(fault, dict):
        return "not an object"
    problem = _fields(fault, {"kind": str, "player": str, "seat": int, "detail": str})
    if problem:
        return problem
    if fault["kind"] not in _FAULT_KINDS:
        return f"kind {str(fault['kind'])[:40]!r} is not a fault kind"
    for key, kind in (("deal", int), ("street", str), ("substituted", str)):
        value = fault.get(key)
        if value is not None and not (isinstance(value, kind) and not isinstance(value, bool)):
            return f"{key} must be {kind.__name__} or null"
    if "deal" not in fault or "street" not in fault:
        return "deal and street are missing"
    return None


def _fields(data: dict[str, Any], kinds: Mapping[str, type]) -> str | None:
    for key, kind in kinds.items():
        if key not in data:
            return f"{key} is missing"
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{key} must be a {kind.__name__}, not {type(value).__name__}"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
