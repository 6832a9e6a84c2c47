"""``POST /api/tools``: the function tools pasted texts define and the function each pasted call names, for the
pages' session tools (``static/state/tools.js`` keeps them in the browser; nothing is stored here).

Request and answer (:meth:`webapp.core.session_tools.SessionTools.as_dict`)::

    {"texts": ["<a field's text>", ...]}
    -> {"tools": [{"name": "get_weather", "definition": {...}}], "calls": ["get_weather" | null, ...]}

A body that is not an object with ``texts`` as a list of strings is a 400 naming ``texts`` (another member: a 400
naming it); a text that is not JSON
holds nothing (the page it was pasted in says why).
"""

from __future__ import annotations

from flask import Blueprint

from webapp.core.json import kind_of
from webapp.core.session_tools import find_tools
from webapp.web.api.jsonbody import expect_members, read_json_body
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits

bp = Blueprint("tools", __name__, url_prefix="/api")

#: The members a body may have (any other is a 400 naming it: :func:`webapp.web.api.jsonbody.expect_members`).
MEMBERS = ("texts",)


@bp.post("/tools")
def session_tools():
    """The tools in the posted ``texts``; see the module docstring for the shapes."""
    body = expect_members(
        read_json_body('a JSON object such as {"texts": ["..."]}', ijson=False), MEMBERS, "/api/tools"
    )
    texts = body.get("texts")
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        if "texts" not in body:
            raise ApiError(
                "texts is required: a list of strings (the fields' texts).",
                param="texts",
                code="missing_required_parameter",
            )
        shown = (
            kind_of(texts)
            if not isinstance(texts, list)
            else "a list holding " + kind_of(next(text for text in texts if not isinstance(text, str)))
        )
        raise ApiError(
            f"texts must be a list of strings (the fields' texts), not {shown}.", param="texts", code="invalid_value"
        )
    return find_tools(texts, max_depth=parse_limits().max_depth).as_dict()
