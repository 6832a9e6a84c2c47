"""The pages' form fields, read as the user wrote them: the one place the page views read ``request.form``,
``request.args`` and ``request.files`` (tests/unit/test_architecture.py holds every page to it).

A text field is given back with the line breaks the user typed. A browser sends every line break of a form's text
as CR LF (HTML Living Standard, form submission: "converting an entry list to a list of name-value pairs"
normalises newlines to CRLF), while a textarea's value never holds a CR (its API value normalises CR LF and CR to
LF). So a CR LF in a text field is a LF the user wrote, and is read back as one: 174 pasted bytes are counted as
174, not 181, and a column at a line's end is not one further. A lone CR (from a client other than a browser) is
kept. An uploaded file is never changed: its bytes are the user's, CRs included.

A text field's bytes are kept too. Werkzeug reads a field that is not UTF-8 with replacement characters (multipart)
or with its bad bytes percent-encoded again (urlencoded), so ``%FF`` would be checked as the text ``%FF`` and judged
valid. The app's request class (set by :func:`init_app`) reads every text field with each byte that is not UTF-8 kept
as a lone surrogate U+DC80–U+DCFF (Python's ``surrogateescape``; strict UTF-8 never decodes to one), so
:func:`source` gives a JSON field's own bytes to the parse layer, which names the first such byte at its
line:column as it names an upload's, while :func:`text` gives the text a text box shows (each such byte U+FFFD).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Container
from typing import IO, Any, NamedTuple
from urllib.parse import parse_qsl, unquote_to_bytes

from flask import Flask, request
from werkzeug.datastructures import Headers, MultiDict
from werkzeug.formparser import FormDataParser, MultiPartParser

from webapp.core.json import line_col, shown_text

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


def _undecodable(data: bytes) -> Undecodable | None:
    """Where ``shown_text(data)`` stops being ``data``: its first byte that is not UTF-8; ``None`` when none is."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        shown = shown_text(data)
        line, column = line_col(shown, len(shown_text(data[: err.start])))
        replaced = shown.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd")
        return Undecodable(data[err.start], err.start, line, column, replaced)
    return None


class Upload(NamedTuple):
    """A file chosen in a form's file input: its ``name`` as the browser gave it and its bytes, unchanged."""

    name: str
    data: bytes

    def text(self) -> str:
        """The file as a text box shows it: UTF-8, a BOM dropped, a byte that is not UTF-8 as U+FFFD (what is
        checked is :attr:`data` itself, whose such bytes are named with their place)."""
        return shown_text(self.data)

    def undecodable(self) -> Undecodable | None:
        """Where :meth:`text` is not the file (its first byte that is not UTF-8), or ``None`` when it is."""
        return _undecodable(self.data)


# -- text fields read with their bytes kept -----------------------------------------------------------------

#: The codec a form's text part is read with: UTF-8, each byte that is not UTF-8 kept as a lone surrogate.
_FORM_CODEC = "webapp_form_utf_8"
#: What such a byte becomes in a field's value (and nothing else does: strict UTF-8 never decodes to these).
_ESCAPED = re.compile("[\udc80-\udcff]")


def _form_codec(name: str) -> codecs.CodecInfo | None:
    """The codec search function: Werkzeug decodes a multipart text part with ``errors="replace"``; this codec
    keeps the bytes whatever the errors argument says."""
    if name != _FORM_CODEC:
        return None
    return codecs.CodecInfo(
        name=_FORM_CODEC,
        encode=lambda text, errors="strict": codecs.utf_8_encode(text, "surrogateescape"),
        decode=lambda data, errors="strict": codecs.utf_8_decode(data, "surrogateescape", True),
    )


codecs.register(_form_codec)


#: Bytes of a field percent-decoded at a time (see :func:`_unquote`).
_UNQUOTE_CHUNK = 1 << 16


def _unquote(raw: bytes) -> bytes:
    """A urlencoded name or value decoded (``+`` a space, ``%XX`` its byte) a chunk at a time: ``urllib``'s
    decoder splits its input at every ``%``, a small object each, so a 15 MB pasted document (a third of it
    escapes) cost 700 MB at once; a chunk's pieces are freed before the next is read."""
    raw = raw.replace(b"+", b" ")
    if b"%" not in raw:
        return raw
    pieces, start = [], 0
    while start < len(raw):
        end = min(start + _UNQUOTE_CHUNK, len(raw))
        cut = raw.rfind(b"%", max(start, end - 2), end)
        if cut > start and end < len(raw):
            end = cut  # an escape is never cut in two: its % starts the next chunk
        pieces.append(unquote_to_bytes(raw[start:end]))
        start = end
    return b"".join(pieces)


def _urlencoded(body: bytes) -> list[tuple[str, str]]:
    """``application/x-www-form-urlencoded`` pairs as ``urllib.parse.parse_qsl`` reads them (``&`` between pairs,
    empty pairs skipped, a name without ``=`` an empty value), each byte that is not UTF-8 kept as a lone
    surrogate (see the module's docstring), in memory a few times the body (:func:`_unquote`)."""
    fields = []
    for pair in body.split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        fields.append(
            (_unquote(name).decode("utf-8", "surrogateescape"), _unquote(value).decode("utf-8", "surrogateescape"))
        )
    return fields


class _MultiPartParser(MultiPartParser):
    def get_part_charset(self, headers: Headers) -> str:
        # A part that names a charset other than UTF-8 (ASCII, Latin-1) is read as it says.
        charset = super().get_part_charset(headers)
        return _FORM_CODEC if charset == "utf-8" else charset


class _FormDataParser(FormDataParser):
    """Werkzeug's form parser with text fields' bytes kept (see the module's docstring)."""

    def _parse_urlencoded(
        self, stream: IO[bytes], mimetype: str, content_length: int | None, options: dict[str, str]
    ) -> tuple[IO[bytes], MultiDict[str, Any], MultiDict[str, Any]]:
        # The stream is already bounded by MAX_CONTENT_LENGTH (as in Werkzeug's own reading of it).
        return stream, self.cls(_urlencoded(stream.read())), self.cls()

    def _parse_multipart(
        self, stream: IO[bytes], mimetype: str, content_length: int | None, options: dict[str, str]
    ) -> tuple[IO[bytes], MultiDict[str, Any], MultiDict[str, Any]]:
        boundary = options.get("boundary", "").encode("ascii")
        if not boundary:
            raise ValueError("Missing boundary")
        parser = _MultiPartParser(
            stream_factory=self.stream_factory,
            max_form_memory_size=self.max_form_memory_size,
            max_form_parts=self.max_form_parts,
            cls=self.cls,
        )
        form, files = parser.parse(stream, boundary, content_length)
        return stream, form, files


def init_app(app: Flask) -> None:
    """Read every form's text fields with their bytes kept: the app's request class (htmx-flask's, set before
    this) with :class:`_FormDataParser` as its form parser."""

    class FormRequest(app.request_class):  # type: ignore[name-defined,misc]
        form_data_parser_class = _FormDataParser

    app.request_class = FormRequest


def _fields() -> MultiDict[str, str]:
    """The form on a POST, the query string otherwise (a GET link fills a form the same way), each byte that is
    not UTF-8 kept as a lone surrogate (Werkzeug's own ``request.args`` percent-encodes it again)."""
    if request.method == "POST":
        return request.form
    query = request.query_string.decode("utf-8", "surrogateescape")
    return MultiDict(parse_qsl(query, keep_blank_values=True, errors="surrogateescape"))


def _raw(name: str) -> str | None:
    """The field ``name`` as sent (bytes that are not UTF-8 as lone surrogates), CR LF read as LF."""
    value = _fields().get(name)
    if value is None:
        return None
    # A text from a client other than a browser (or with no line break) holds no CR: the membership test is a
    # fast C scan, several times cheaper on megabytes than a replace that finds nothing to replace.
    return value.replace("\r\n", "\n") if "\r" in value else value


def _read(value: str) -> tuple[str, bytes | None]:
    """A field's value as ``(the text a text box shows, its bytes when they are not UTF-8 else None)``; the usual
    value holds no kept byte: one C scan, nothing copied."""
    if value.isascii() or _ESCAPED.search(value) is None:
        return value, None
    data = value.encode("utf-8", "surrogateescape")
    try:
        # kept bytes that make UTF-8 together (a percent-encoded lead byte and a raw continuation byte)
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), data


def text(name: str, default: str | None = "") -> str | None:
    """The text field ``name`` as typed: every CR LF read as the LF it was (see the module's docstring), each
    byte that is not UTF-8 as U+FFFD (a JSON field is read with :func:`source`, which names such a byte).

    :returns: the text, or ``default`` when the field was not sent at all (``None`` tells "not sent" apart
        from an empty field).
    """
    value = _raw(name)
    return default if value is None else _read(value)[0]


def source(name: str, default: str | None = "") -> str | bytes | None:
    """The JSON text field ``name`` as the page models read it: its text (as :func:`text`), or, when it holds
    bytes that are not UTF-8, its bytes (CR LF read as LF), which the parse layer refuses naming the first such
    byte and its line:column (``invalid_utf8``, :func:`webapp.core.json.utf8.decode_utf8`) as for an upload.

    :returns: ``str`` or ``bytes``; ``default`` when the field was not sent at all.
    """
    value = _raw(name)
    if value is None:
        return default
    shown, data = _read(value)
    return shown if data is None else data


def undecodable(name: str) -> Undecodable | None:
    """Where the text :func:`text` gives for field ``name`` is not what was sent (its first byte that is not
    UTF-8, as :meth:`Upload.undecodable`), or ``None`` when it is (or the field was not sent)."""
    value = _raw(name)
    data = None if value is None else _read(value)[1]
    return None if data is None else _undecodable(data)


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
