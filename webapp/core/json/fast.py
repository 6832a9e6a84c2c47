"""The fast path: CPython's C parser (``json.JSONDecoder``) made as strict as RFC 8259 and I-JSON ask.

An ``object_pairs_hook`` notices duplicate member names (:class:`DuplicateName`), ``parse_constant`` refuses
``NaN``/``Infinity`` (:class:`NonFinite`, RFC 8259 §6), and the I-JSON decoder refuses numbers beyond a 64-bit
double (RFC 7493 §2.2). What they raise only says "look closer": the precise path
(:mod:`~webapp.core.json.precise`) names the mistake.
"""

from __future__ import annotations

import json
import math
from typing import Any

from webapp.core.json.precise import refusal, warnings_of

__all__ = [
    "IJSON_DECODER",
    "PLAIN_DECODER",
    "STRICT_DECODER",
    "DuplicateName",
    "MemberCount",
    "NonFinite",
    "dup_tolerant_decode",
    "refuse_constant",
]


class DuplicateName(Exception):
    """Raised by the pairs hook at the first duplicate member name (the fast path then looks closer)."""


class NonFinite(Exception):
    """Raised by ``parse_constant``: NaN, Infinity and -Infinity are not JSON (RFC 8259 §6)."""


def _pairs_strict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateName
    return result


class MemberCount:
    """An ``object_hook`` that counts the members of the objects the parser built (of duplicate names, one)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept = 0

    def __call__(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.kept += len(obj)
        return obj


def refuse_constant(name: str) -> Any:
    """``parse_constant`` of every decoder here: ``NaN``, ``Infinity``, ``-Infinity`` raise :class:`NonFinite`."""
    raise NonFinite(name)


def _finite(token: str) -> float:
    number = float(token)
    if math.isinf(number):  # 1e400: beyond a 64-bit double (I-JSON, RFC 7493 §2.2)
        raise NonFinite(token)
    return number


STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=refuse_constant)
# The gate's: arguments hold few floats, so a check per float costs little.
IJSON_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=refuse_constant, parse_float=_finite)
PLAIN_DECODER = json.JSONDecoder(parse_constant=refuse_constant)


def dup_tolerant_decode(text: str, max_depth: int, ijson: bool, names: list[str]) -> Any:
    """Decode a text with duplicate member names, last value winning (like every mainstream parser); the
    duplicate names are appended to ``names``.

    :raises JSONTextError: with ``ijson`` at the first duplicate name (RFC 7493 §2.3); otherwise at the text's
        first mistake, named by the precise path.
    """
    if ijson:  # duplicates are errors: let the precise path name the first one
        warnings_of(text, max_depth, True)

    def pairs(members: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(members)
        if len(result) != len(members):
            seen: set[str] = set()
            names.extend(name for name, _ in members if name in seen or seen.add(name))  # type: ignore[func-returns-value]  # add is None: `or` keeps the seen
        return result

    try:
        return json.JSONDecoder(object_pairs_hook=pairs, parse_constant=refuse_constant).decode(text)
    except (ValueError, RecursionError, NonFinite) as exc:
        raise refusal(text, max_depth, ijson, exc) from None
