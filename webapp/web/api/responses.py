"""``/v1/responses``: the built-in Open Responses test endpoint (JSON and SSE), with the replay gate on its input.

Routes (blueprint ``responses``, prefix ``/v1``; bearer token ``API_TOKEN``)::

    POST   /v1/responses                        create (JSON, or SSE with "stream": true)
    GET    /v1/responses/<id>                   a stored response
    DELETE /v1/responses/<id>                   delete it
    GET    /v1/responses/<id>/input_items       its input items (a list object; after/limit/order)
    GET    /v1/sessions/<key>/items             every stored item of a session, with a link to inspect it

and one page (blueprint ``sessions``): ``GET /sessions/<key>``, the session's items with buttons that carry
each one to the JSON Format page (and a call, with the tool it names, to the JSON Schema page), for loopback clients only.

The view only glues: parse and validate (``webapp.core.responses.models``), resolve ``previous_response_id`` and
``item_reference`` (``webapp.web.store``), gate the replayed calls (``webapp.core.gate``), run the test model
(``webapp.core.responses.testmodel``) and answer. Everything is checked before the first SSE byte is sent, so a bad request
gets a JSON 400, never a broken stream (Flask docs, "Streaming": headers cannot change once streaming starts).
"""

from __future__ import annotations

import hmac
import json
import os
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request, url_for

from webapp.web.errors import ApiError
from webapp.core.gate import ItemRef, check_journal
from webapp.web.api.jsonbody import read_json_body
from webapp.web.limits import parse_limits
from webapp.web.params import SQLITE_MAX_INTEGER, choice_param, int_param
from webapp.core.responses.models import (
    CreateRequest,
    Limits,
    RequestError,
    Tool,
    ToolChoice,
    check_tool_choice,
    parse_create_request,
    path_index,
    path_key,
    stored_input_item,
)
from webapp.core.json.pointer import split as split_pointer
from webapp.core.schema import SchemaInvalid, compile_schema
from webapp.core.responses.sse import DONE, coalesce, encode_events
from webapp.web.store import MissingResponse, ResponseStore
from webapp.core.responses.testmodel import new_id, respond, stream_events

bp = Blueprint("responses", __name__, url_prefix="/v1")
pages = Blueprint("sessions", __name__)

STORE_KEY = "openresponses_store"
SESSION_HEADER = "X-Session-Key"
# Item id prefixes for input items stored without an id (as OpenAI's ids read).
ID_PREFIXES = {"message": "msg", "function_call": "fc", "function_call_output": "fco", "reasoning": "rs"}


def init_app(app: Flask) -> None:
    """Open the store (``RESPONSES_DATABASE``: a path, relative to the instance folder, or ``:memory:``),
    register the sessions page and the ``RESPONSES_ENABLED`` switch."""
    path = str(app.config.get("RESPONSES_DATABASE") or "responses.sqlite3")
    if path != ":memory:" and not os.path.isabs(path):
        path = os.path.join(app.instance_path, path)
    app.extensions[STORE_KEY] = ResponseStore(path)
    app.register_blueprint(pages)
    app.before_request(_enabled)


def store() -> ResponseStore:
    """The app's response store."""
    return current_app.extensions[STORE_KEY]


def _enabled() -> None:
    # An app-wide hook runs before routing errors are raised: a disabled endpoint is 404 for every method.
    path = request.path
    if not path.startswith(("/v1/responses", "/v1/sessions/", "/sessions/")) \
            or current_app.config.get("RESPONSES_ENABLED", True):
        return
    if path.startswith("/v1/"):
        raise ApiError(f"{path} is disabled on this server (RESPONSES_ENABLED is off).", 404, code="not_found")
    abort(404)


@bp.before_request
def require_token() -> None:
    """``Authorization: Bearer <API_TOKEN>``, compared in constant time; 401 with the error envelope otherwise.

    Reusable by other ``/v1`` blueprints (``bp.before_request(require_token)``). ``OPTIONS`` needs no token:
    a CORS preflight never carries one (Fetch standard, "CORS-preflight request"), and Flask's automatic
    answer (200 with ``Allow``) reveals nothing but the methods.
    """
    if request.method == "OPTIONS":
        return
    expected = str(current_app.config.get("API_TOKEN") or "")
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    challenge = {"WWW-Authenticate": 'Bearer realm="openresponses"'}
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError("Missing API token: send the header 'Authorization: Bearer <API_TOKEN>' (the token is "
                       "printed when the server starts, or set with FLASK_API_TOKEN).", 401,
                       code="missing_api_key", headers=challenge)
    if not expected or not hmac.compare_digest(token.strip().encode(), expected.encode()):
        raise ApiError("Invalid API token.", 401, code="invalid_api_key", headers=challenge)


# ------------------------------------------------------------------------------------------------ create

@bp.post("/responses")
def create() -> Response:
    """Create a response with the embedded test model (Open Responses ``POST /responses``)."""
    body = read_json_body("a JSON object (CreateResponseBody)")
    try:
        req = parse_create_request(body, Limits())
    except RequestError as err:
        raise _bad(err) from None
    session_key = _session_key(req)
    chain: list[dict[str, Any]] = []
    inherited: list[Tool] = []
    if req.previous_response_id is not None:
        try:
            stored = store().chain(req.previous_response_id)
        except MissingResponse as err:
            raise ApiError(f"Previous response not found: {str(err).rstrip('.')}.", 400, param="previous_response_id",
                           code="previous_response_not_found") from None
        for response in stored:
            chain += response.input + response.body.get("output", [])
        inherited = [_tool_from_echo(t) for t in stored[-1].body.get("tools") or []]
        if session_key is None:  # a continuation stays in its conversation's session
            session_key = stored[-1].session_key
    tools = req.tools if req.tools is not None else inherited
    resolved = _resolve_references(req.input, chain)
    try:
        _check_schemas(req, tools)
        check_tool_choice(req.tool_choice or ToolChoice(), tools)
    except RequestError as err:
        raise _bad(err) from None
    _gate(chain, resolved, tools, req.tools is None and req.previous_response_id is None)

    now = int(time.time())
    try:
        snapshot, final = respond(req, chain + resolved, tools, response_id=new_id("resp"), created_at=now,
                                  completed_at=now)
    except RequestError as err:
        raise _bad(err) from None
    if req.store and final["status"] != "failed":
        # Stored before answering, so a client that saw the response can continue from it at once.
        inputs = [stored_input_item(item, new_id(ID_PREFIXES.get(item.get("type", ""), "item")))
                  for item in resolved]
        store().save(final, inputs, session_key)

    if req.stream:
        return Response(_frames(snapshot, final), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    if final["status"] == "failed":
        error = final["error"] or {}
        raise ApiError(error.get("message", "The model failed."), 500, code=error.get("code"), type="model_error")
    return jsonify(final)


def _frames(snapshot: dict[str, Any], final: dict[str, Any]) -> Iterator[str]:
    # Plain data in, text out: nothing here touches the request, so no stream_with_context is needed. The
    # model has finished already, so its frames are all ready and go out in few writes.
    def every() -> Iterator[str]:
        yield from encode_events(stream_events(snapshot, final))
        yield DONE

    return coalesce(every())


def _bad(err: RequestError) -> ApiError:
    return ApiError(err.message, 400, param=err.param, code=err.code)


def _session_key(req: CreateRequest) -> str | None:
    """Session routing (gateway plan): the ``X-Session-Key`` header, else ``user`` (else, for a continuation,
    the session of the previous response)."""
    key = request.headers.get(SESSION_HEADER)
    if key is None:
        return req.user
    if not key.strip() or len(key) > 256 or not key.isprintable():
        raise ApiError(f"{SESSION_HEADER} must be 1-256 printable characters.", 400, param=SESSION_HEADER,
                       code="invalid_value")
    return key.strip()


def _tool_from_echo(echo: dict[str, Any]) -> Tool:
    return Tool(echo["name"], echo.get("description"), echo.get("parameters"), echo.get("strict"))


def _resolve_references(items: list[dict[str, Any]], chain: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replace each ``item_reference`` by the item it names: earlier in this context first, then any stored
    item. 400 ``item_not_found`` naming the reference otherwise."""
    known = {item["id"]: item for item in chain if isinstance(item.get("id"), str)}
    resolved: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if item.get("type") == "item_reference":
            target = known.get(item["id"]) or store().find_item(item["id"])
            if target is None:
                raise ApiError(f"input[{index}].id: no stored item with id {item['id']!r} (items of responses "
                               "created with store: false are not kept).", 400, param=f"input[{index}].id",
                               code="item_not_found")
            item = target
        elif isinstance(item.get("id"), str):
            known[item["id"]] = item
        resolved.append(item)
    return resolved


def _check_schemas(req: CreateRequest, tools: list[Tool]) -> None:
    """Tool ``parameters`` and ``text.format.schema`` must be usable JSON Schemas (``webapp.core.schema``)."""
    for index, tool in enumerate(req.tools or []):
        if tool.parameters is not None:
            _compile(tool.parameters, f"tools[{index}].parameters")
    fmt = (req.text or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        _compile(fmt["schema"], "text.format.schema")


def _compile(schema: Any, param: str) -> None:
    try:
        compile_schema(schema)
    except SchemaInvalid as err:
        where = _param_path(param, err.pointer, schema) if err.pointer else param
        raise RequestError(f"not a usable JSON Schema: {err.message}", where, "invalid_schema") from None


def _param_path(param: str, pointer: str, document: Any) -> str:
    """A JSON Pointer into ``document`` (found at ``param``) in the one ``param`` notation of the API:
    ``tools[0].parameters`` + ``/properties/a/type`` → ``tools[0].parameters.properties.a.type``."""
    where, node = param, document
    try:
        tokens = split_pointer(pointer)
    except ValueError:
        return param
    for token in tokens:
        if isinstance(node, list) and token.isascii() and token.isdigit():
            where, node = path_index(where, int(token)), node[int(token)] if int(token) < len(node) else None
        else:
            where, node = path_key(where, token), node.get(token) if isinstance(node, dict) else None
    return where


def _gate(chain: list[dict[str, Any]], items: list[dict[str, Any]], tools: list[Tool], no_tools: bool) -> None:
    """Refuse the request when the replay gate refuses one of its items (Open Responses spec, function_call;
    the replay-gate article): the first problem in input order, as 400 ``invalid_request_error`` with
    ``code`` = the gate's reason or finding and ``param`` = ``input[k]``.

    Items of the previous responses take part (a ``function_call_output`` may answer a call made there) but
    are not judged again.
    """
    context = chain + items
    report = check_journal(context, [tool.echo() for tool in tools], max_depth=parse_limits().max_depth)
    offset = len(chain)

    def place(ref: ItemRef) -> str:
        # The gate counts items over the whole context; the client knows its input and its earlier responses.
        return f"input[{ref.index - offset}]" if ref.index >= offset else "an item of an earlier response"

    problems: list[tuple[int, int, str, str]] = []  # (index, rank, code, message)
    unknown = {f.index for f in report.findings if f.code == "unknown_tool"}
    for verdict in report.items[offset:]:
        if verdict.blocks_replay:
            code = verdict.reason
            message = verdict.message
            if code == "arguments_schema" and verdict.index in unknown:
                code = "unknown_tool"
                message = (f"calls {verdict.name!r}, which is not among the tools "
                           + ("(send the tools the call was made with)" if no_tools else
                              f"({', '.join(t.name for t in tools)})"))
            problems.append((verdict.index, 0, code, message))
        elif verdict.type == "function_call" and verdict.verdict is not None \
                and not isinstance(verdict.verdict.arguments, dict):
            # Function arguments are a JSON object (a tool's parameters describe an object).
            problems.append((verdict.index, 0, "arguments_schema", "arguments must encode a JSON object"))
    for finding in report.findings:
        if finding.severity == "error" and finding.index is not None and finding.index >= offset \
                and finding.code != "unknown_tool":
            problems.append((finding.index, 1, finding.code, finding.describe(place)))
    if problems:
        index, _, code, message = min(problems, key=lambda p: (p[0], p[1]))
        where = f"input[{index - offset}]"
        raise ApiError(f"{where}: the replay gate refuses this item ({code}): {message}", 400, param=where,
                       code=code)


# ------------------------------------------------------------------------------------------------ stored

def _stored_or_404(response_id: str) -> Any:
    stored = store().get(response_id)
    if stored is None:
        raise ApiError(f"No stored response with id {response_id!r}.", 404, param="response_id",
                       code="response_not_found")
    return stored


@bp.get("/responses/<response_id>")
def retrieve(response_id: str) -> Response:
    """A stored ``ResponseResource``."""
    return jsonify(_stored_or_404(response_id).body)


@bp.delete("/responses/<response_id>")
def delete(response_id: str) -> Response:
    """Delete a stored response and its items (responses continuing it can no longer be replayed)."""
    if not store().delete(response_id):
        raise ApiError(f"No stored response with id {response_id!r}.", 404, param="response_id",
                       code="response_not_found")
    return jsonify({"id": response_id, "object": "response", "deleted": True})


@bp.get("/responses/<response_id>/input_items")
def input_items(response_id: str) -> Response:
    """The input items of a stored response as a list object (``after``, ``limit`` 1-100, ``order``)."""
    items = _stored_or_404(response_id).input
    order = choice_param("order", ("asc", "desc"), default="desc")
    limit = int_param("limit", default=20, minimum=1, maximum=100)
    if order == "desc":
        items = items[::-1]
    after = request.args.get("after")
    if after is not None:
        ids = [item.get("id") for item in items]
        if after not in ids:
            raise ApiError(f"after: no input item with id {after!r} in this response.", 400, param="after",
                           code="invalid_value")
        items = items[ids.index(after) + 1:]
    page = items[:limit]
    return jsonify({"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                    "last_id": page[-1]["id"] if page else None, "has_more": len(items) > limit})


@bp.get("/sessions/<path:key>/items")
def session_items(key: str) -> Response:
    """Every stored item of a session, in conversation order, each with ``inspect_url`` (the sessions page).

    ``limit`` (1-1000, default 100) and ``offset`` page through long sessions.
    """
    limit = int_param("limit", default=100, minimum=1, maximum=1000)
    offset = int_param("offset", default=0, minimum=0, maximum=SQLITE_MAX_INTEGER)
    rows = store().session_items(key, limit=limit + 1, offset=offset)
    page_url = url_for("sessions.page", key=key, _external=True)
    data = [{"response_id": row.response_id, "source": row.source, "index": row.index, "item": row.item,
             "inspect_url": f"{page_url}#{_anchor(row.response_id, row.source, row.index)}"}
            for row in rows[:limit]]
    return jsonify({"object": "list", "session_key": key, "data": data, "has_more": len(rows) > limit})


def _anchor(response_id: str, source: str, index: int) -> str:
    return f"{response_id}-{source}-{index}"


# ------------------------------------------------------------------------------------------------ page

@pages.get("/sessions/<path:key>")
def page(key: str) -> Any:
    """The items of a session, each with forms that carry it to the JSON Format page (field ``document``)
    and, for a function call, the call and the tool it names to the JSON Schema page (``instance``, ``schema``).

    Stored conversations are private data and this page has no login, so it answers loopback clients only.
    """
    if request.remote_addr not in ("127.0.0.1", "::1"):
        abort(403)
    rows = store().session_items(key, limit=1000)
    tools_of: dict[str, dict[str, Any]] = {}  # response id -> its tools by name (read once per response)
    entries = []
    for row in rows:
        document = json.dumps(row.item, indent=2, ensure_ascii=False)
        tool = None
        if row.item.get("type") == "function_call":
            if row.response_id not in tools_of:
                stored = store().get(row.response_id)
                tools_of[row.response_id] = {t.get("name"): t for t in (stored.body.get("tools") or [])
                                             if isinstance(t, dict)} if stored else {}
            tool = tools_of[row.response_id].get(row.item.get("name"))
        entries.append({"anchor": _anchor(row.response_id, row.source, row.index), "row": row,
                        "document": document,
                        # Step 2 gets the whole call and the tool it names, so it shows the gate's verdict too.
                        "tool": json.dumps(tool, indent=2, ensure_ascii=False) if tool is not None else None,
                        "is_call": row.item.get("type") == "function_call"})
    return render_template("sessions/page.html", key=key, entries=entries, truncated=len(rows) >= 1000)
