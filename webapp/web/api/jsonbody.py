"""Reading a JSON request body for the machine routes (``/api/*``, ``/v1/*``): one reader, one set of errors.

An ``/api/*`` body is an object whose members each route names beside its reading (``MEMBERS`` in each module of
``webapp/web/api/``): :func:`expect_members` refuses any other member with a 400 naming it, as query parameters are
refused (:mod:`webapp.web.params`), so that a misspelt member (``"tool"`` for ``"tools"``) is never silently ignored.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from typing import Any

from flask import request

from webapp.core.json import Document, JSONTextError, kind_of, loads_ijson, parse, quote
from webapp.core.json import pointer as jp
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


def expect_members(body: Any, members: Collection[str], route: str) -> dict[str, Any]:
    """``body`` when it is a JSON object whose every member is one of ``members``.

    :param members: the members the route reads (its ``MEMBERS``).
    :param route: the route, for the message (``/api/gate``).
    :raises ApiError: 400 ``invalid_body`` for a body that is not an object; 400 ``unknown_parameter`` for the first
        member that is not one of ``members``: ``param`` is its name, the message its JSON Pointer, the member meant
        when one is close (``tool`` -> ``tools``) and the members the route takes.
    """
    if not isinstance(body, dict):
        raise ApiError(f"The request body must be a JSON object, not {kind_of(body)}.", code="invalid_body")
    for name in body:
        if name not in members:
            close = difflib.get_close_matches(name, list(members), n=1, cutoff=0.6)
            meant = f" (did you mean {quote(close[0])}?)" if close else ""
            shown = name if len(name) <= 60 else name[:60] + "…"
            raise ApiError(
                f"/{jp.escape(shown)}: {route} takes no member {quote(shown)}{meant}; its members are "
                f"{', '.join(map(quote, members))}.",
                param=shown,
                code="unknown_parameter",
            )
    return body
