"""``POST /api/gate``: the replay gate over HTTP, for one item or a whole journal.

One item::

    {"item": {...}, "schema": {...}, "format_assertion": false}
    {"item": {...}, "tools": [...]}          (the schema of the tool the item names)
    -> {"reason", "ok", "message", "errors": [{"pointer", "keyword", "schema_path", "message"}],
        "parse_error": null | {"message", "code", "line", "column"},
        "schema_error": null | {"message", "pointer", "keyword"}, "dialect": "2020-12" | null}

A journal (``items`` as a JSON array, or ``journal`` as any shape :func:`webapp.journal.load_journal` accepts —
parsed JSON, or text of JSON / JSON Lines)::

    {"items": [...], "tools": [...], "tool_choice": ..., "schema": ...}
    {"journal": [...] | {...} | "<JSON or JSON Lines text>", "tools": [...]}
    -> {"replayable", "shape", "counts", "items": [{"index", "id", "type", "reason", "ok", "message", "errors"}],
        "findings": [{"code", "index", "call_id", "message", "severity"}]}

Malformed requests get 400 in the one error shape (:mod:`webapp.errors`) naming the parameter; bodies over
``MAX_CONTENT_LENGTH`` get 413.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app

from ..errors import ApiError
from ..gate import check_item, check_journal, tool_schema
from ..journal import Journal, JournalError, load_journal
from ..jsontext import kind_of
from ..schema import SchemaInvalid, compile_schema
from .jsonbody import read_json_body

bp = Blueprint("api", __name__, url_prefix="/api")


def _body() -> dict[str, Any]:
    """The request body as a JSON object (strict I-JSON, line:column on error, depth-limited)."""
    # Lenient on Content-Type: a bare ``curl -d`` sends form-urlencoded, and the body is JSON all the same.
    body = read_json_body('a JSON object such as {"item": ..., "schema": ...}', require_json_type=False,
                          ijson=False)
    if not isinstance(body, dict):
        raise ApiError(f"The request body must be a JSON object, not {kind_of(body)}.", code="invalid_body")
    return body


def _optional_bool(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise ApiError(f"{name} must be true or false, not {kind_of(value)}.", param=name, code="invalid_type")
    return value


def _optional_schema(body: dict[str, Any]) -> dict | bool | None:
    schema = body.get("schema")
    if schema is not None and not isinstance(schema, (dict, bool)):
        raise ApiError(f"schema must be a JSON Schema (an object or a boolean), not {kind_of(schema)}.",
                       param="schema", code="invalid_type")
    return schema


@bp.post("/gate")
def gate() -> Any:
    """Gate one item against a schema, or a whole journal against its tools (see the module docstring)."""
    body = _body()
    format_assertion = _optional_bool(body, "format_assertion")
    schema = _optional_schema(body)
    modes = [name for name in ("item", "items", "journal") if name in body]
    if len(modes) > 1:
        raise ApiError(f"Send one of item, items or journal, not {' and '.join(modes)}.", param=modes[1],
                       code="ambiguous_request")
    if not modes:
        raise ApiError("Send {\"item\": ..., \"schema\": ...} for one item, or {\"items\": [...], \"tools\": [...]}"
                       " / {\"journal\": ...} for a journal.", param="item", code="missing_parameter")
    if modes[0] == "item":
        return _one_item(body["item"], schema, format_assertion, _optional_tools(body))
    return _journal(body, modes[0], schema, format_assertion)


def _optional_tools(body: dict[str, Any]) -> list[Any] | None:
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise ApiError(f"tools must be a JSON array of tool definitions, not {kind_of(tools)}.", param="tools",
                       code="invalid_type")
    return tools


def _one_item(item: Any, schema: dict | bool | None, format_assertion: bool,
              tools: list[Any] | None) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise ApiError(f"item must be an Open Responses item (a JSON object), not {kind_of(item)}.", param="item",
                       code="invalid_type")
    name = item.get("name")
    if schema is None and tools is not None:
        schema = tool_schema(tools, name)
    verdict = check_item(item, schema, format_assertion=format_assertion,
                         tool_name=name if isinstance(name, str) else None)
    result = verdict.as_dict()
    dialect = None
    if schema is not None and verdict.schema_problem is None:
        try:
            dialect = compile_schema(schema, format_assertion=format_assertion).dialect_name
        except SchemaInvalid:  # already reported as schema_error
            dialect = None
    result["dialect"] = dialect
    return result


def _journal(body: dict[str, Any], mode: str, schema: dict | bool | None, format_assertion: bool) -> dict[str, Any]:
    if mode == "items":
        items = body["items"]
        if not isinstance(items, list):
            raise ApiError(f"items must be a JSON array of items, not {kind_of(items)}.", param="items",
                           code="invalid_type")
        journal = Journal(items, None, None, "array")
    else:
        source = body["journal"]
        if not isinstance(source, (str, list, dict)):
            raise ApiError(f"journal must be a JSON array, a response or request object, or their text, not "
                           f"{kind_of(source)}.", param="journal", code="invalid_type")
        try:
            journal = load_journal(source, max_depth=current_app.config.get("JSON_MAX_DEPTH", 100))
        except JournalError as err:
            where = f" (at {err.pointer})" if err.pointer else ""
            raise ApiError(f"journal: {err.message}{where}", param="journal", code="invalid_journal") from None
    report = check_journal(journal, _optional_tools(body), tool_choice=body.get("tool_choice"), schema=schema,
                           format_assertion=format_assertion)
    return report.as_dict()
