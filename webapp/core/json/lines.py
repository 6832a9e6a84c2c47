"""JSON Lines (jsonlines.org): one JSON text per line, blank lines skipped; records read and told apart.

:func:`line_records` is the one reading of the format, shared by :func:`parse_lines` and the pages that check
record by record; :func:`looks_like_lines` tells a text meant as JSON Lines from one JSON value with extra data.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.document import Document
from webapp.core.json.limits import DEFAULT_MAX_DEPTH, too_large
from webapp.core.json.parser import parse
from webapp.core.json.utf8 import decode_utf8

__all__ = ["JSONLine", "line_records", "looks_like_lines", "parse_lines"]


@dataclass(frozen=True)
class JSONLine:
    """One record of a JSON Lines text: its 1-based line number, its character offset and its document."""

    line: int
    offset: int
    document: Document


def parse_lines(
    text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int | None = None, ijson: bool = False
) -> list[JSONLine]:
    """Parse JSON Lines (one JSON text per line; blank lines are skipped).

    :returns: one :class:`JSONLine` per non-blank line, in order. Warnings keep their pointers relative to the
        record; their line numbers are the record's line in the whole text.
    :raises JSONTextError: for the first bad record, with the line and offset in the whole text.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if max_bytes is not None and len(data) > max_bytes:
            raise too_large(len(data), max_bytes)
        text, _ = decode_utf8(data)
    elif max_bytes is not None and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise too_large(len(text.encode("utf-8", "surrogatepass")), max_bytes)
    records: list[JSONLine] = []
    for number, offset, raw in line_records(text):
        try:
            doc = parse(raw, max_depth=max_depth, ijson=ijson, first_line=number)
        except JSONTextError as err:
            raise err.shifted(number - 1, offset) from None
        records.append(JSONLine(number, offset, doc))
    if not records:
        raise JSONTextError("empty", "The text is empty: paste a JSON value (or JSON Lines, one per line).", text, 0)
    return records


def line_records(text: str) -> Iterator[tuple[int, int, str]]:
    """The records of a JSON Lines text, unparsed: ``(line, offset, record text)`` for each non-blank line (the
    1-based line number, the 0-based character offset of its start in ``text``). A record is one line without its
    ``\\n``; a line of only spaces, tabs and ``\\r`` is blank. The one reading of the format that
    :func:`parse_lines` and the pages that check record by record share (JSON Lines, jsonlines.org)."""
    offset = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip(" \t\r"):
            yield number, offset, raw
        offset += len(raw) + 1


def looks_like_lines(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> bool:
    """Whether a text that failed to parse as one JSON value (``extra_data``) is meant as JSON Lines: at least two
    non-blank lines, the first of them a JSON value on its own. The pages read such a text as records (Format,
    Schema) instead of showing the one-value error."""
    records = (raw for _, _, raw in line_records(text))
    first = next(records, None)
    if first is None or next(records, None) is None:
        return False
    try:
        parse(first, max_depth=max_depth)
    except JSONTextError:
        return False
    return True
