"""``POST /api/convert``: a conversation from any provider as Open Responses items.

Request::

    {"journal": <JSON value> | "<JSON or JSON Lines text>",
     "from": "auto" | "open_responses" | "chat_completions" | "anthropic" | "gemini"}   (default "auto")

Answer (:meth:`webapp.core.convert.Conversion.as_dict`)::

    {"source", "shape", "items": [...], "origins": ["messages[2].tool_calls[0]", ...], "tools": [...] | null,
     "notes": [{"index", "path", "pointer", "code", "message"}]}

A member other than these is a 400 ``unknown_parameter`` naming it. A journal no source reads, or that the source
named does not fit, is a 400 ``unusable_journal`` whose message names the place (line:column for text, the JSON
Pointer for a value; ``param`` is ``journal``).
"""

from __future__ import annotations

from flask import Blueprint

from webapp.core.convert import SOURCES, ConvertError, convert, convert_text
from webapp.web.api.jsonbody import expect_members, read_json_body
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits

bp = Blueprint("convert", __name__, url_prefix="/api")

#: The members a body may have (any other is a 400 naming it: :func:`webapp.web.api.jsonbody.expect_members`).
MEMBERS = ("journal", "from")


@bp.post("/convert")
def convert_journal():
    """Convert the posted ``journal``; see the module docstring for the shapes."""
    body = read_json_body(
        'a JSON object such as {"journal": ..., "from": "auto"}', require_json_type=False, ijson=False
    )
    body = expect_members(body, MEMBERS, "/api/convert")
    if "journal" not in body:
        raise ApiError(
            "journal is required: the conversation, as JSON or as JSON / JSON Lines text.",
            param="journal",
            code="missing_required_parameter",
        )
    source = body.get("from", "auto")
    if source != "auto" and source not in SOURCES:
        raise ApiError(
            f"from must be auto or one of {', '.join(SOURCES)}, not {source!r}.", param="from", code="invalid_value"
        )
    journal = body["journal"]
    try:
        if isinstance(journal, str):
            conversion = convert_text(journal, source, max_depth=parse_limits().max_depth)
        else:
            conversion = convert(journal, source)
    except ConvertError as error:
        place = f"journal{error.pointer}: " if error.pointer else ""
        raise ApiError(f"{place}{error.message}", param="journal", code="unusable_journal") from None
    return conversion.as_dict()
