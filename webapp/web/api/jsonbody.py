"""Reading a JSON request body for the machine routes (``/api/*``, ``/v1/*``): one reader, one set of errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request

from webapp.core.json import Document, JSONTextError, loads_ijson, parse
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits


def read_json_body(expected: str, *, require_json_type: bool = True, ijson: bool = True) -> Any:
    """The request body parsed as I-JSON (RFC 7493: duplicate names, NaN and lone surrogates refused).

    :param expected: what the route wants, for the empty-body message (e.g. ``"a CreateResponseBody object"``).
    :param require_json_type: answer 415 unless the Content-Type is ``application/json`` (or ``+json``);
        the Open Responses spec says clients MUST send ``application/json`` (HTTP transport).
    :raises ApiError: 415 for another media type, 400 ``invalid_json`` for an empty or malformed body (the message
        names line and column, or the nesting limit ``JSON_MAX_DEPTH``, :mod:`webapp.web.limits`); Werkzeug
        raises 413 above ``MAX_CONTENT_LENGTH``.
    :param ijson: ``False`` for the inspection API, which must answer about items holding duplicate names or
        lone surrogates (plain RFC 8259; NaN is still refused) rather than refuse the request.
    """
    if not ijson:
        return read_json_document(expected, require_json_type=require_json_type).value
    return _parsed(expected, require_json_type, loads_ijson)


def read_json_document(expected: str, *, require_json_type: bool = True) -> Document:
    """The body as plain JSON (RFC 8259) with its warnings (duplicate names, lone surrogates: each with pointer and
    line:column), for routes that answer about such bodies and must still see what is ambiguous in them.

    :raises ApiError: as :func:`read_json_body`.
    """
    return _parsed(expected, require_json_type, parse)


def _parsed(expected: str, require_json_type: bool, parser: Callable[..., Any]) -> Any:
    mimetype = request.mimetype
    if require_json_type and mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ApiError(f"Content-Type must be application/json, got {mimetype!r}.", 415, code="unsupported_media_type")
    data = request.get_data(cache=False)
    if not data.strip():
        raise ApiError(f"The request body is empty; send {expected}.", 400, code="invalid_json")
    try:
        text: str | bytes = data.decode("utf-8")  # text takes the parser's fast path
    except UnicodeDecodeError:
        text = data  # the bytes path names the bad byte's place
    try:
        return parser(text, max_depth=parse_limits().max_depth)
    except JSONTextError as err:
        raise ApiError(
            f"The request body is not valid JSON: {str(err).rstrip('.')}.", 400, code="invalid_json"
        ) from None
