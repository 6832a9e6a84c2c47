"""How the differ reads values: alignment keys, JSON types kept apart, JSON strings compared by their content.

JSON has one number type (``1``, ``1.0`` and ``1e0`` are one number, RFC 8259 §6) but Python's ``==`` says
``2 == True``; the keys here keep the JSON types apart and the numbers together. A string under a JSON-string key
(``arguments``) is compared by the value it holds (:func:`parse_json_string`).
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.diff.result import ABSENT
from webapp.core.json import DEFAULT_MAX_DEPTH, json_type  # JSON Schema's type names: integer, number apart

__all__ = ["MAX_DEPTH", "canonical", "json_kind", "parse_json_string", "same_number", "scalar_key"]

#: Nesting compared, JSON strings' contents included: the parse layer's cap, which keeps deepdiff and our
#: recursion well below Python's limit of 1000 frames.
MAX_DEPTH = DEFAULT_MAX_DEPTH


def scalar_key(value: Any) -> Any:
    """The alignment key of a scalar array item: type-tagged, so that ``2`` and ``true`` never compare equal
    (Python's ``==`` says they do), while ``2`` and ``2.0`` are one number."""
    return ("number", value) if value.__class__ in (int, float) else (type(value).__name__, value)


def same_number(a: Any, b: Any) -> bool:
    """Both JSON numbers (booleans aside) of equal value, however written: ``1``, ``1.0``, ``1e0``. JSON has one
    number type (RFC 8259 §6), and JSON Schema 2020-12 counts ``1.0`` as the integer 1 (Validation §6.1.1)."""
    return a.__class__ in (int, float) and b.__class__ in (int, float) and a == b


def json_kind(value: Any) -> str:
    """The JSON type of a value for "type changed": ``number`` for every number (``1`` and ``1.5`` alike)."""
    return "number" if value.__class__ in (int, float) else json_type(value)


def canonical(value: Any, string_keys: tuple[str, ...]) -> str:
    """Text equal for semantically equal values: keys sorted, int/float/bool apart, JSON strings under
    ``string_keys`` replaced by their parsed content."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    if string_keys and any(f'"{key}":"' in text for key in string_keys):
        text = json.dumps(
            _normalize_json_strings(value, string_keys), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
    return text


def _normalize_json_strings(value: Any, string_keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in string_keys and isinstance(item, str):
                parsed = parse_json_string(item)
                out[key] = item if parsed is ABSENT else {"\u0000parsed": parsed}
            else:
                out[key] = _normalize_json_strings(item, string_keys)
        return out
    if isinstance(value, list):
        return [_normalize_json_strings(item, string_keys) for item in value]
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 §6)")


def parse_json_string(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value inside a string such as ``arguments``, or :data:`ABSENT` when it is not valid JSON
    (NaN/Infinity refused as RFC 8259 says) or nests deeper than ``max_depth``."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return ABSENT
    if _deeper_than(value, max_depth):
        return ABSENT
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
