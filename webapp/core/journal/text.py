"""A conversation's text read once: one JSON value, or JSON Lines (one JSON text per line), with its parsed form.

:func:`read_text` is the one reading of a pasted or uploaded journal, of any provider: :func:`webapp.core.json.parse`
once, or, when the text holds more than one value, :func:`webapp.core.json.parse_lines`. What it answers
(:class:`JournalText`) goes on to the journal shapes (:func:`webapp.core.journal.from_text`) and the converters
(:func:`webapp.core.convert.convert_text`), and stays at hand for a page that shows items as they were written and
places in the text (the parsed :class:`webapp.core.json.Document`, or each record's).

Texts are read as plain JSON (RFC 8259), not I-JSON, so that a journal holding a lone surrogate or a duplicate
member name is still answered about rather than refused (the warnings say where).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.core.json import DEFAULT_MAX_DEPTH, Document, JSONLine, JSONTextError, parse, parse_lines

__all__ = ["JournalError", "JournalText", "read_text"]


class JournalError(ValueError):
    """The journal cannot be read: not JSON / JSON Lines, or not a shape we know.

    :ivar message: plain words naming the place (``line 3, column 7: …``, ``/tools: …``).
    :ivar line: 1-based line in the text, when the problem is in the text.
    :ivar column: 1-based column, when known.
    :ivar pointer: RFC 6901 pointer into the document, when the problem is a value.
    :ivar code: the :class:`webapp.core.json.JSONTextError` code for a syntax problem, else ``"shape"``.
    :ivar detail: the message without its place (shown beside a link to line:column); ``message`` when not given.
    :ivar excerpt: for a syntax problem, the offending line and a caret line under the column; else ``""``.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        pointer: str | None = None,
        code: str = "shape",
        detail: str | None = None,
        excerpt: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.pointer = pointer
        self.code = code
        self.detail = message if detail is None else detail
        self.excerpt = excerpt

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class JournalText:
    """A text read once: exactly one of ``document`` (one JSON value) and ``records`` (JSON Lines) is set.

    :ivar value: the parsed value: the document's, or the records' values as a list (one per non-blank line).
    :ivar document: the parsed text (its value, its warnings, where each value is written), or ``None``.
    :ivar records: each JSON Lines record (its line, its character offset, its own parsed document), or ``None``.
    """

    value: Any
    document: Document | None = None
    records: list[JSONLine] | None = None

    @property
    def lines(self) -> list[int]:
        """For JSON Lines, the 1-based line of each record; else ``[]``."""
        return [record.line for record in self.records] if self.records is not None else []


def read_text(text: str | bytes | bytearray, *, max_depth: int = DEFAULT_MAX_DEPTH) -> JournalText:
    """Read a journal's text: one JSON value, else JSON Lines (https://jsonlines.org; blank lines skipped).

    :param text: a ``str``, or UTF-8 bytes (a byte order mark is dropped: RFC 8259 §8.1 lets a parser ignore it).
    :param max_depth: nesting limit for the text (for JSON Lines, for each record).
    :raises JournalError: the text is neither, naming line:column (``line 3, column 7: …``; for JSON Lines, the
        bad record's: ``JSON Lines, line 4, column 2: …``), with the caret excerpt.
    """
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark may be ignored (RFC 8259 §8.1); bytes are handled by parse
    elif isinstance(text, bytearray):
        text = bytes(text)
    try:
        document = parse(text, max_depth=max_depth)
    except JSONTextError as err:
        if err.code != "extra_data":
            raise _syntax(err, "") from None
    else:
        return JournalText(document.value, document=document)
    try:
        records = parse_lines(text, max_depth=max_depth)
    except JSONTextError as err:
        raise _syntax(err, "JSON Lines, ") from None
    return JournalText([record.document.value for record in records], records=records)


def _syntax(err: JSONTextError, prefix: str) -> JournalError:
    return JournalError(
        f"{prefix}line {err.line}, column {err.column}: {err.message}",
        line=err.line,
        column=err.column,
        code=err.code,
        detail=err.message,
        excerpt=err.excerpt,
    )
