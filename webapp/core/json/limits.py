"""The parse layer's limits: how deep a text may nest and how many bytes it may hold.

Both are checked before the recursive C parser sees the text: a nesting beyond ``max_depth`` would cost a
``RecursionError`` (or the C stack), a text beyond ``max_bytes`` unbounded memory. The web side reads the values a
deployment sets (``webapp/web/limits.py``); these are the defaults and the checks.
"""

from __future__ import annotations

from webapp.core.json.bytes import nesting_depth, outside_strings, split_strings
from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.precise import warnings_of

__all__ = ["DEFAULT_MAX_DEPTH", "check_depth", "too_large"]

#: Most nested arrays/objects a text may hold unless the caller says otherwise (``[]`` is depth 1).
DEFAULT_MAX_DEPTH = 100


def check_depth(
    text: str, max_depth: int, ijson: bool, data: bytes | None = None
) -> tuple[list[bytes] | None, bytes | None]:
    """Refuse nesting deeper than ``max_depth`` before the recursive C parser sees it (C speed).

    :param data: ``text`` as UTF-8 when already encoded.
    :returns: the :func:`~webapp.core.json.bytes.split_strings` parts and the bytes outside strings (joined with
        :data:`~webapp.core.json.bytes.STRING_MARK`), when they were computed (the warnings and the formatter reuse
        them), else ``(None, None)``.
    :raises JSONTextError: ``too_deep``, or an earlier mistake of the text (the precise path names the first).
    """
    if text.count("{") + text.count("[") <= max_depth:
        return None, None
    parts = split_strings(text.encode("utf-8", "surrogatepass") if data is None else data)
    outside = outside_strings(parts)
    if nesting_depth(outside) > max_depth:
        warnings_of(text, max_depth, ijson)  # names the first problem, maybe an earlier one
    return parts, outside


def too_large(size: int, limit: int) -> JSONTextError:
    """The ``too_large`` error for a text of ``size`` UTF-8 bytes over ``limit`` bytes (no excerpt: the text is
    not read)."""
    human = f" ({_human_size(limit)})" if limit >= 1024 else ""
    return JSONTextError(
        "too_large", f"The document is {size:,} bytes; the limit is {limit:,} bytes{human}.", "", 0, excerpt=False
    )


def _human_size(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"
