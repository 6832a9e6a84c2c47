"""The precise path as the parse API runs it: the scanner with the interop checks, token by token in Python.

It runs only when the fast path failed or a cheap check fired (:mod:`~webapp.core.json.parser`,
:mod:`~webapp.core.json.ijson`): :func:`warnings_of` finds a text's warnings with their places (and, for I-JSON,
raises at the first thing it forbids), :func:`refusal` names the real mistake of a text the C parser refused.
"""

from __future__ import annotations

from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.interop import JSONWarning, Warnings
from webapp.core.json.scan import Scanner, first_error

__all__ = ["refusal", "warnings_of"]


def warnings_of(text: str, max_depth: int, ijson: bool, first_line: int = 1) -> list[JSONWarning]:
    """The warnings of ``text`` (its first line numbered ``first_line``), in text order.

    :raises JSONTextError: at its first mistake (with ``ijson``, also at the first thing I-JSON forbids, RFC 7493
        §2).
    """
    checks = Warnings(text, ijson=ijson, first_line=first_line)
    Scanner(text, max_depth=max_depth, checks=checks).run()
    return checks.result()


def refusal(text: str, max_depth: int, ijson: bool, exc: BaseException) -> JSONTextError:
    """The precise error for a text the fast path refused with ``exc`` (a ``ValueError``, ``RecursionError`` or
    the refusal of a constant): the scanner's, else what the C parser said, at its place."""
    err = first_error(text, max_depth=max_depth, checks=Warnings(text, ijson=True) if ijson else None)
    if err is not None:
        return err
    # The precise path found nothing: say what the C parser said, at its place (never expected).
    position = getattr(exc, "pos", 0) or 0
    if isinstance(exc, RecursionError):
        return JSONTextError("too_deep", "The nesting is too deep for this parser.", text, 0)
    return JSONTextError("unexpected_token", f"This text could not be read: {exc}.", text, position)
