"""I-JSON (RFC 7493) loaded at about ``json.loads`` speed: the gate's hot path for ``arguments``.

I-JSON is JSON without what RFC 8259 leaves to the parser's mercy: duplicate member names, unpaired surrogates,
Unicode noncharacters, numbers beyond a 64-bit double. :func:`loads_ijson` names the first violation at its
line:column; :func:`try_loads_ijson` answers only the verdict (:data:`NOT_IJSON`), so a bad item of a journal of
100,000 costs no more than a good one.
"""

from __future__ import annotations

from typing import Any

from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.fast import IJSON_DECODER, DuplicateName, NonFinite
from webapp.core.json.interop import ESCAPE_SUSPECT, RAW_SUSPECT
from webapp.core.json.limits import DEFAULT_MAX_DEPTH, check_depth
from webapp.core.json.orjson_read import UNDECODED, orjson_value
from webapp.core.json.parser import parse
from webapp.core.json.precise import refusal, warnings_of

__all__ = ["NOT_IJSON", "loads_ijson", "try_loads_ijson"]

NOT_IJSON = object()
"""What :func:`try_loads_ijson` returns for text that is not I-JSON."""


def loads_ijson(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse I-JSON (RFC 7493) at about ``json.loads`` speed; the gate's hot path for ``arguments``.

    Valid input costs one C-speed parse plus a few C-speed scans of the text. Any violation — RFC 8259 syntax,
    ``NaN``/``Infinity``, duplicate member names, unpaired surrogates, Unicode noncharacters, a number beyond a
    64-bit double (``1e400``), nesting beyond ``max_depth`` — re-reads the text slowly to name the mistake and its
    line:column.

    :returns: plain Python values (ints exact).
    :raises JSONTextError: see :func:`~webapp.core.json.parser.parse` with ``ijson=True``.
    """
    if not isinstance(text, str):
        return parse(text, max_depth=max_depth, ijson=True).value
    if text.count("{") + text.count("[") > max_depth:
        check_depth(text, max_depth, True)
    try:
        value = IJSON_DECODER.decode(text)
    except (DuplicateName, NonFinite, ValueError, RecursionError) as exc:
        raise refusal(text, max_depth, True, exc) from None
    if (not text.isascii() and RAW_SUSPECT.search(text)) or ("\\u" in text and ESCAPE_SUSPECT.search(text)):
        warnings_of(text, max_depth, True)  # raises on what I-JSON forbids
    return value


def try_loads_ijson(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """:func:`loads_ijson` without the diagnosis: the parsed value, or :data:`NOT_IJSON` exactly when
    :func:`loads_ijson` would raise. For callers that need only the verdict (the replay gate over a journal of
    100,000 items), so a bad item costs no more than a good one."""
    if text.count("{") + text.count("[") > max_depth:
        try:
            check_depth(text, max_depth, True)
        except JSONTextError:
            return NOT_IJSON
    value = orjson_value(text)
    if value is UNDECODED:
        try:
            value = IJSON_DECODER.decode(text)
        except (DuplicateName, NonFinite, ValueError, RecursionError):
            return NOT_IJSON
    if (not text.isascii() and RAW_SUSPECT.search(text)) or ("\\u" in text and ESCAPE_SUSPECT.search(text)):
        try:
            warnings_of(text, max_depth, True)
        except JSONTextError:
            return NOT_IJSON
    return value
