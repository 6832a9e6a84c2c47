"""The pages' form fields, read as the user wrote them: the one place the page views read ``request.form``,
``request.args`` and ``request.files`` (tests/unit/test_architecture.py holds every page to it).

A text field is given back with the line breaks the user typed. A browser sends every line break of a form's text
as CR LF (HTML Living Standard, form submission: "converting an entry list to a list of name-value pairs"
normalises newlines to CRLF), while a textarea's value never holds a CR (its API value normalises CR LF and CR to
LF). So a CR LF in a text field is a LF the user wrote, and is read back as one: 174 pasted bytes are counted as
174, not 181, and a column at a line's end is not one further. A lone CR (from a client other than a browser) is
kept. An uploaded file is never changed: its bytes are the user's, CRs included.
"""

from __future__ import annotations

from collections.abc import Container
from typing import NamedTuple, overload

from flask import request
from werkzeug.datastructures import MultiDict

from webapp.core.json import line_col

#: what a checkbox sends when ticked (``on``), and what a link's query string may say instead
TRUE_VALUES = ("on", "1", "true")


class Undecodable(NamedTuple):
    """Where an upload's text stops being its file: ``byte`` (0-255), the first byte that is not UTF-8, at
    ``offset`` (0-based, in the file's bytes) and at ``line``:``column`` (1-based, characters) of the text shown;
    ``replaced``: how many U+FFFD characters of that text stand for such bytes."""

    byte: int
    offset: int
    line: int
    column: int
    replaced: int


class Upload(NamedTuple):
    """A file chosen in a form's file input: its ``name`` as the browser gave it and its bytes, unchanged."""

    name: str
    data: bytes

    def text(self) -> str:
        """The file as a text box shows it: UTF-8, a BOM dropped, a byte that is not UTF-8 as U+FFFD (what is
        checked is :attr:`data` itself, whose such bytes are named with their place)."""
        return self.data.decode("utf-8", "replace").removeprefix("\ufeff")

    def undecodable(self) -> Undecodable | None:
        """Where :meth:`text` is not the file (its first byte that is not UTF-8), or ``None`` when it is."""
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError as err:
            shown = self.text()
            before = self.data[: err.start].decode("utf-8", "replace").removeprefix("\ufeff")
            line, column = line_col(shown, len(before))
            replaced = shown.count("\ufffd") - self.data.decode("utf-8", "ignore").count("\ufffd")
            return Undecodable(self.data[err.start], err.start, line, column, replaced)
        return None


def _fields() -> MultiDict[str, str]:
    """The form on a POST, the query string otherwise (a GET link fills a form the same way)."""
    return request.form if request.method == "POST" else request.args


@overload
def text(name: str, default: str = "") -> str: ...
@overload
def text(name: str, default: None) -> str | None: ...
def text(name: str, default: str | None = "") -> str | None:
    """The text field ``name`` as typed: every CR LF read as the LF it was (see the module's docstring).

    :returns: the text, or ``default`` when the field was not sent at all (``None`` tells "not sent" apart
        from an empty field).
    """
    value = _fields().get(name)
    if value is None:
        return default
    # A text from a client other than a browser (or with no line break) holds no CR: the membership test is a
    # fast C scan, several times cheaper on megabytes than a replace that finds nothing to replace.
    return value.replace("\r\n", "\n") if "\r" in value else value


def flag(name: str) -> bool:
    """Whether the checkbox ``name`` is ticked (``on``; a link may say ``1`` or ``true``)."""
    return _fields().get(name) in TRUE_VALUES


def choice(name: str, allowed: Container[str], default: str) -> str:
    """The field ``name`` when it is one of ``allowed``, else ``default`` (a select's value from a stale page or a
    hand-made request is not an error)."""
    value = _fields().get(name, default)
    return value if value in allowed else default


def upload(name: str = "file") -> Upload | None:
    """The file chosen in the file input ``name``, read whole (the request is already bounded by
    ``MAX_CONTENT_LENGTH``), or ``None`` when none was chosen (a form without JavaScript always sends the part,
    with an empty file name, when nothing is chosen)."""
    file = request.files.get(name)
    if file is None or not file.filename:
        return None
    return Upload(file.filename, file.read())
