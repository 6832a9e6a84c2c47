"""How JSON values and characters are named and shown in messages, once for the whole app.

A message may hold anything the user pasted, so everything here returns text that encodes as UTF-8: an unpaired
surrogate (legal in a JSON string, ``"\\ud800"``, but not encodable) is shown as its ``\\uXXXX`` escape.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = ["describe", "displayable", "json_type", "kind_of", "quote", "shorten"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def displayable(text: str) -> str:
    """``text`` safe to encode as UTF-8: each unpaired surrogate (legal in a JSON string, ``"\\ud800"``, but not
    encodable) is shown as its ``\\uXXXX`` escape, so the page names it instead of failing with a 500."""
    if text.isascii() or not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def quote(value: Any, limit: int | None = None) -> str:
    """``value`` written as JSON for a message: ``"name"`` with its quotes, ``[1, 2]``, ``null``.

    Non-ASCII characters are kept as they are, unpaired surrogates become ``\\uXXXX`` escapes (see
    :func:`displayable`), and a value JSON cannot write (a set, an object of the app) is shown with ``repr``.

    :param limit: most characters shown; a longer text is cut to ``limit - 1`` characters and ``…``.
        ``None``: no limit.
    :returns: a ``str`` that encodes as UTF-8.
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = displayable(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def shorten(token: str, width: int = 40) -> str:
    """``token`` as it is when at most ``width`` characters, else its first 20 and last 12 characters around ``…``
    and its length: ``"12345678901234567890…123456789012 (250 characters)"``."""
    return token if len(token) <= width else f"{token[:20]}…{token[-12:]} ({len(token):,} characters)"


def describe(ch: str) -> str:
    """A character named for a message: ``'x'``, or ``U+00A0 (NO-BREAK SPACE)`` for the invisible ones."""
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def json_type(value: Any) -> str:
    """The JSON Schema type name of a parsed value: ``null``, ``boolean``, ``integer``, ``number``, ``string``,
    ``array``, ``object`` (any other Python type: its class name). ``1`` is an integer, ``1.0`` a number."""
    if value is None:
        return "null"
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


_JSON_TYPES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)  # bool before int: True is an int in Python


def kind_of(value: Any) -> str:
    """A JSON value's kind for messages: ``null``, ``a string``, ``a number``, ``an object``…"""
    name = json_type(value)
    return _KINDS.get(name, name)


_KINDS = {
    "boolean": "a boolean",
    "integer": "a number",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "object": "an object",
}
