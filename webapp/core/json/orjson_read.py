"""orjson's reading of a JSON text, taken only when its value is certainly the json module's.

orjson is several times faster than the json module with the duplicate-name hook, and a journal is mostly
strings, which it builds faster still. But its value may differ: it reads an integer wider than 64 bits as a
float, and of a repeated member name it keeps the last value without a trace. :func:`orjson_value` (the gate's
``arguments``, any small text) and :func:`orjson_big_value` (a :class:`~webapp.core.json.bigtext.BigText`) answer
:data:`UNDECODED` whenever that could be so, or orjson refuses the text: the json module then decides, and the
precise path names any mistake.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from webapp.core.json.bigtext import BigText

__all__ = ["UNDECODED", "orjson_big_value", "orjson_value"]

UNDECODED = object()
"""Not decoded by orjson: the json module must read the text (its value could differ, or orjson refuses it)."""

#: Integers of this many digits or more may be wider than 64 bits, which orjson reads as floats.
_WIDE_INTEGER_DIGITS = 19
_LONG_DIGITS = re.compile(f"[0-9]{{{_WIDE_INTEGER_DIGITS}}}")  # an integer that may be wider than 64 bits
_ESCAPED_COLON_TEXT = re.compile(r"\\u003[aA]")
_ESCAPED_COLON = re.compile(rb"\\u003[aA]")  # orjson writes it back as ":"


def orjson_value(text: str) -> Any:
    """The value of a small JSON text read by orjson (several times faster than the json module with the
    duplicate-name hook), or :data:`UNDECODED` when the json module must decide: orjson refuses the text (it
    refuses ``NaN``, ``1e400`` and unpaired surrogate escapes, as I-JSON does, and all RFC 8259 errors), an integer
    may be wider than 64 bits (orjson would read it as a float), or a member name may be repeated (orjson keeps the
    last value silently).

    No name is repeated when the members kept account for every colon of the text (kept <= written <= colons), the
    usual ``arguments`` object; else when the value written again has the text's colons, one per member plus those
    in strings, which holds when no colon is written as an escape."""
    if _LONG_DIGITS.search(text):
        return UNDECODED
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return UNDECODED
    colons = text.count(":")
    if not colons or (value.__class__ is dict and len(value) == colons):
        return value
    if "\\u003" in text and _ESCAPED_COLON_TEXT.search(text):
        return UNDECODED
    try:
        again = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nesting deeper than orjson writes
        return UNDECODED
    return value if again.count(b":") == colons else UNDECODED


def _dumps_depth_limit() -> int | None:
    """The deepest nesting ``orjson.dumps`` writes (``[]`` is 1; it refuses deeper values with "Recursion limit
    reached", 254 in orjson 3), found once by trying nested arrays and objects; ``None`` when they disagree."""
    limits = []
    for wrap in (lambda v: [v], lambda v: {"": v}):
        lo, hi = 0, 4096  # the limit is in [lo, hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            value: Any = 0
            for _ in range(mid):
                value = wrap(value)
            try:
                orjson.dumps(value)
                lo = mid
            except orjson.JSONEncodeError:
                hi = mid
        limits.append(lo)
    return limits[0] if limits[0] == limits[1] and 0 < limits[0] < 4095 else None


_DUMPS_DEPTH = _dumps_depth_limit()


def orjson_big_value(big: BigText, max_depth: int) -> Any:
    """The value of a big text read by orjson, several times faster than the json module (a journal is mostly
    strings, which it builds faster), or :data:`UNDECODED` when its value could differ from the json module's or
    the text may nest deeper than ``max_depth``: orjson refuses the text (the json module then reads it, or names
    the mistake), an integer may be wider than 64 bits (orjson would read it as a float), or a member name is
    repeated in an object (orjson keeps the last value without a trace, so its value written again is missing that
    member's colon, at least).

    The value is written again anyway (for the colons), so its nesting is measured there too, instead of on the
    text's brackets outside strings (which needs its escapes made plain: the costliest scan of a big text). orjson
    refuses to write values nested deeper than :data:`_DUMPS_DEPTH`: wrapped in that many arrays less
    ``max_depth``, the value is written exactly when it nests at most ``max_depth`` deep, as the text does when
    no member name is repeated (each array or object of the text is one of the value).

    :raises JSONTextError: when the text nests deeper than orjson writes and than ``max_depth``, measured on it
        (:meth:`~webapp.core.json.bigtext.BigText.check_depth`).
    """
    if next(big.integers(_WIDE_INTEGER_DIGITS), None) is not None:
        return UNDECODED
    wraps = -1 if _DUMPS_DEPTH is None else _DUMPS_DEPTH - max_depth
    if wraps < 0:  # deeper than orjson writes: measured on the text
        big.check_depth(max_depth, False)
    try:
        value = orjson.loads(big.data)
        wrapped = value
        for _ in range(max(wraps, 0)):
            wrapped = [wrapped]
        again = orjson.dumps(wrapped)  # the wrapping adds brackets only, no colon
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return UNDECODED  # refused, or nested too deep: the text is measured, then read by the json module
    if not big.u_escapes or _ESCAPED_COLON.search(big.data) is None:
        # Written again, the value has the text's colons (one per member, the rest in strings), as none is escaped.
        unchanged = again.count(b":") == big.data.count(b":")
    else:
        unchanged = _member_count(again) == big.structure.count(b":")
    return value if unchanged else UNDECODED


def _member_count(compact: bytes) -> int:
    """How many members the objects of a compact JSON text hold, all told: one unescaped ``":`` per member (a quote
    inside a string is escaped, so an odd run of backslashes comes before it): the ``":`` preceded by an even
    number of backslashes, counted by inclusion and exclusion of ever longer runs (C-speed counts)."""
    count, run, sign = 0, b'":', 1
    while found := compact.count(run):
        count += sign * found
        run, sign = b"\\" + run, -sign
    return count
