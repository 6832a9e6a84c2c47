"""Query-string parameters of the machine routes, read strictly: a bad value is a 400 naming the parameter.

``str.isdigit`` is not a test for an integer (``"²".isdigit()`` is true, and ``int("²")`` fails), and an integer
beyond SQLite's (``2**63 - 1``) cannot be bound to a query, so integers here are ASCII digits within stated
bounds.
"""

from __future__ import annotations

import re

from flask import request

from webapp.web.errors import ApiError

#: The largest integer SQLite stores (a signed 64-bit INTEGER): the ceiling of every offset.
SQLITE_MAX_INTEGER = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")


def int_param(name: str, *, default: int, minimum: int, maximum: int) -> int:
    """The query parameter ``name`` as an integer in ``minimum..maximum`` (``default`` when absent).

    :raises ApiError: 400 ``invalid_value`` with ``param`` = ``name`` for anything but ASCII digits in range.
    """
    raw = request.args.get(name)
    if raw is None:
        return default
    value = int(raw) if _DIGITS.fullmatch(raw) else None
    if value is None or not minimum <= value <= maximum:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise ApiError(
            f"{name}: expected an integer from {minimum} to {maximum}, got {shown!r}.",
            400,
            param=name,
            code="invalid_value",
        )
    return value


def choice_param(name: str, choices: tuple[str, ...], *, default: str) -> str:
    """The query parameter ``name``, one of ``choices`` (``default`` when absent).

    :raises ApiError: 400 ``invalid_value`` with ``param`` = ``name`` otherwise.
    """
    raw = request.args.get(name, default)
    if raw not in choices:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise ApiError(
            f"{name}: expected {' or '.join(repr(c) for c in choices)}, got {shown!r}.",
            400,
            param=name,
            code="invalid_value",
        )
    return raw
