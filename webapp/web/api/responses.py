"""``/v1/responses``: the built-in Open Responses test endpoint (JSON and SSE), with the replay gate on its input.

Routes (blueprint ``responses``, prefix ``/v1``; bearer token ``API_TOKEN``)::

    POST   /v1/responses                        create (JSON, or SSE with "stream": true)
    GET    /v1/responses  (WebSocket upgrade)   WebSocket mode: response.create events, streamed events back
    POST   /v1/responses/compact                compact a conversation into one sealed compaction item
    GET    /v1/responses/<id>                   a stored response
    DELETE /v1/responses/<id>                   delete it
    GET    /v1/responses/<id>/input_items       its input items (a list object; after/limit/order)
    GET    /v1/sessions/<key>/items             every stored item of a session, with a link to inspect it

and one page (blueprint ``sessions``): ``GET /sessions/<key>``, the session's items with buttons that carry
each one to the JSON Format page (and a call, with the tool it names, to the JSON Schema page), for loopback
clients only.

The view only glues: parse and validate (``webapp.core.responses.request``), resolve ``previous_response_id`` and
``item_reference`` (``webapp.web.store``), gate the replayed calls (``webapp.core.gate``: status-less calls vouched
for by ``vouch``, the input refused by ``refuse_input``), run the test model
(``webapp.core.responses.testmodel``) and answer. Everything is checked before the first SSE byte is sent, so a bad
request gets a JSON 400, never a broken stream (Flask docs, "Streaming": headers cannot change once streaming
starts).
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, render_template, request, url_for
from flask_sock import Sock

from webapp.core.gate import refuse_input, vouch
from webapp.core.json import JSONTextError, loads_ijson
from webapp.core.json import pointer as jp
from webapp.core.responses.attachments import Limits
from webapp.core.responses.compaction import SealError, compaction_item, derive_key, seal, unseal
from webapp.core.responses.events import stream_events
from webapp.core.responses.fields import RequestError, path_index, path_key
from webapp.core.responses.request import CreateRequest, parse_compact_request, parse_create_request
from webapp.core.responses.resources import compact_resource, stored_input_item, usage
from webapp.core.responses.sse import DONE, encode_events
from webapp.core.responses.testmodel import MODEL_NAME, input_tokens, new_id, respond
from webapp.core.responses.tools import Tool, ToolChoice, check_tool_choice
from webapp.core.schema import SchemaInvalid, compile_schema
from webapp.web.api.jsonbody import read_json_body
from webapp.web.errors import ApiError, storage_api_error
from webapp.web.limits import ParseLimits, parse_limits
from webapp.web.params import SQLITE_MAX_INTEGER, choice_param, int_param
from webapp.web.store import MissingResponse, ResponseStore, StorageError

bp = Blueprint("responses", __name__, url_prefix="/v1")
pages = Blueprint("sessions", __name__)
sock = Sock()  # WebSocket routes on bp (flask-sock: the dev server and gunicorn's gevent workers alike)

STORE_KEY = "openresponses_store"
COMPACTION_KEY = "openresponses_compaction_key"
# The server secret for sealing compaction items when SECRET_KEY is not set: made once in the instance folder, so
# every worker of a production server (and the next start) seals and unseals alike.
SECRET_FILE = "secret.key"
SESSION_HEADER = "X-Session-Key"
# Item id prefixes for input items stored without an id (as OpenAI's ids read).
ID_PREFIXES = {"message": "msg", "function_call": "fc", "function_call_output": "fco", "reasoning": "rs"}


def init_app(app: Flask) -> None:
    """Open the store (``RESPONSES_DATABASE``: a path, relative to the instance folder, or ``:memory:``),
    register the sessions page and the ``RESPONSES_ENABLED`` switch."""
    path = str(app.config.get("RESPONSES_DATABASE") or "responses.sqlite3")
    if path != ":memory:" and not os.path.isabs(path):
        path = os.path.join(app.instance_path, path)
    max_bytes = app.config.get("RESPONSES_DATABASE_MAX_BYTES")
    app.extensions[STORE_KEY] = ResponseStore(path, int(max_bytes) if max_bytes else None)
    app.extensions[COMPACTION_KEY] = derive_key(_server_secret(app))
    # A WebSocket message is capped like a request body; pings keep an idle connection alive through proxies.
    app.config.setdefault(
        "SOCK_SERVER_OPTIONS", {"max_message_size": ParseLimits.from_config(app.config).max_bytes, "ping_interval": 25}
    )
    app.config.setdefault("RESPONSES_WEBSOCKET_SECONDS", 3600)
    app.register_blueprint(pages)
    app.before_request(_enabled)


def store() -> ResponseStore:
    """The app's response store."""
    return current_app.extensions[STORE_KEY]


def compaction_key() -> bytes:
    """The key this app seals compaction items with (``webapp.core.responses.compaction.derive_key``)."""
    return current_app.extensions[COMPACTION_KEY]


def _server_secret(app: Flask) -> bytes:
    """``SECRET_KEY`` when configured (``FLASK_SECRET_KEY``), else the instance folder's ``secret.key``: 32 random
    bytes written once (created under a temporary name, then linked into place, so two workers starting at once
    agree on one secret; mode 0600)."""
    configured = app.config.get("SECRET_KEY")
    if configured:
        return configured.encode() if isinstance(configured, str) else bytes(configured)
    path = os.path.join(app.instance_path, SECRET_FILE)
    if not os.path.exists(path):
        temporary = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(32))
        try:
            os.link(temporary, path)  # fails if another process linked its secret first: that one wins
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
    with open(path, "rb") as handle:
        return handle.read()


def _enabled() -> None:
    # An app-wide hook runs before routing errors are raised: a disabled endpoint is 404 for every method.
    path = request.path
    if not path.startswith(("/v1/responses", "/v1/sessions/", "/sessions/")) or current_app.config.get(
        "RESPONSES_ENABLED", True
    ):
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
        raise ApiError(
            "Missing API token: send the header 'Authorization: Bearer <API_TOKEN>' (the token is "
            "printed when the server starts, or set with FLASK_API_TOKEN).",
            401,
            code="missing_api_key",
            headers=challenge,
        )
    if not expected or not hmac.compare_digest(token.strip().encode(), expected.encode()):
        raise ApiError("Invalid API token.", 401, code="invalid_api_key", headers=challenge)


# ------------------------------------------------------------------------------------------------ create


@dataclass(frozen=True)
class History:
    """What a continuation builds on (spec 1.8: previous input + previous output, in order).

    :param items: the earlier context, oldest first, compaction items already unsealed.
    :param tools: the tools of the response continued (used when the request sends none).
    :param session_key: that response's session.
    """

    items: list[dict[str, Any]]
    tools: list[Tool]
    session_key: str | None


@dataclass(frozen=True)
class Prepared:
    """A request checked and gated, ready for the model.

    :param history: the earlier context, then what this input's leading compaction items unsealed.
    :param context: what the model reads: ``history``, then the rest of this input.
    :param inputs: this request's input items as stored (ids filled in; compaction items as sent).
    :param lead: how many compaction items lead ``inputs``.
    """

    req: CreateRequest
    history: list[dict[str, Any]]
    context: list[dict[str, Any]]
    inputs: list[dict[str, Any]]
    lead: int
    tools: list[Tool]
    session_key: str | None

    def conversation(self, output: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The conversation after this turn as a continuation (or a compaction) reads it back: the history, this
        input as stored (without its compaction items, already unsealed) and ``output``."""
        return self.history + self.inputs[self.lead :] + output


@bp.post("/responses")
def create() -> Response:
    """Create a response with the embedded test model (Open Responses ``POST /responses``)."""
    body = read_json_body("a JSON object (CreateResponseBody)")
    try:
        req = parse_create_request(body, Limits())
    except RequestError as err:
        raise _bad(err) from None
    prepared = prepare(req, stored_history)
    snapshot, final = run_model(prepared)
    if req.store and final["status"] != "failed":
        # Stored before answering, so a client that saw the response can continue from it at once.
        store().save(final, prepared.inputs, prepared.session_key)

    if req.stream:
        return Response(
            _frames(snapshot, final),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    if final["status"] == "failed":
        error = final["error"] or {}
        raise ApiError(error.get("message", "The model failed."), 500, code=error.get("code"), type="model_error")
    return jsonify(final)


def prepare(req: CreateRequest, history_of: Callable[[str], History]) -> Prepared:
    """Everything before the model runs: session, history, references, compaction items, schemas, tool_choice and
    the replay gate, in that order (so a bad request is refused before any SSE byte is sent).

    :param history_of: resolves ``previous_response_id`` (the store over HTTP; the connection's cache first on a
        WebSocket); raises :class:`ApiError` ``previous_response_not_found``.
    :raises ApiError: 400 with the first problem.
    """
    session_key = _session_key(req)
    history = history_of(req.previous_response_id) if req.previous_response_id is not None else None
    chain = history.items if history else []
    if session_key is None and history is not None:  # a continuation stays in its conversation's session
        session_key = history.session_key
    tools = req.tools if req.tools is not None else (history.tools if history else [])
    resolved = _resolve_references(req.input, chain)
    base, lead = _unseal_leading(resolved, "input")
    try:
        _check_schemas(req, tools)
        check_tool_choice(req.tool_choice or ToolChoice(), tools)
    except RequestError as err:
        raise _bad(err) from None
    resolved = vouch(resolved)  # a status-less call followed by its output: its client vouched that it ran it
    # The compaction items stay in place for the gate (it passes them as nothing to execute), so its input[k]
    # still counts the items the client sent; what they unsealed joins the history before them.
    refusal = refuse_input(
        chain + base,
        resolved,
        [tool.echo() for tool in tools],
        tools_sent=req.tools is not None or req.previous_response_id is not None,
        max_depth=parse_limits().max_depth,
    )
    if refusal is not None:
        raise ApiError(refusal.message, 400, param=refusal.param, code=refusal.code)
    inputs = [stored_input_item(item, new_id(ID_PREFIXES.get(item.get("type", ""), "item"))) for item in resolved]
    return Prepared(req, chain + base, chain + base + resolved[lead:], inputs, lead, tools, session_key)


def run_model(prepared: Prepared) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the test model on a prepared request: ``(snapshot, final)`` ``ResponseResource`` objects.

    :raises ApiError: 400 when there is nothing to answer (no user message, no tool result).
    """
    now = int(time.time())
    try:
        return respond(
            prepared.req, prepared.context, prepared.tools, response_id=new_id("resp"), created_at=now, completed_at=now
        )
    except RequestError as err:
        raise _bad(err) from None


@bp.post("/responses/compact")
def compact() -> Response:
    """Compact a conversation (Open Responses 2026-04-24 ``POST /responses/compact``; spec notes §1.8).

    The input is checked and gated as for a create; the answer is a ``CompactResource`` whose ``output`` is one
    ``compaction`` item sealing the whole conversation (history, input), in order. Sent back as the first input
    item of a new chain (no ``previous_response_id``), it stands for that conversation. ``instructions`` count in
    ``usage`` only (as on a create, they are not carried over); ``prompt_cache_key`` is accepted (there is no cache).
    """
    body = read_json_body("a JSON object (CompactResponseMethodPublicBody)")
    try:
        req = parse_compact_request(body, Limits())
    except RequestError as err:
        raise _bad(err) from None
    prepared = prepare(req, stored_history)
    items = prepared.conversation([])
    try:
        sealed = seal(items, compaction_key(), model=req.model or MODEL_NAME)
    except SealError as err:
        raise ApiError(f"input: {err}.", 400, param="input", code="context_length_exceeded") from None
    tokens_in = input_tokens(prepared.context, req.instructions, [])
    tokens_out = input_tokens(items, None, [])
    return jsonify(
        compact_resource(
            resource_id=new_id("resp"),
            created_at=int(time.time()),
            output=[compaction_item(new_id("cmp"), sealed)],
            usage_=usage(tokens_in, tokens_out),
        )
    )


def stored_history(response_id: str) -> History:
    """The history of a stored response: every response of its chain, input then output, oldest first.

    :raises ApiError: 400 ``previous_response_not_found`` when it, or one it continues, is not stored.
    """
    try:
        stored = store().chain(response_id)
    except MissingResponse as err:
        raise not_found_error(str(err)) from None
    items: list[dict[str, Any]] = list(stored[0].base or [])  # what the oldest continues, when it is not stored
    for response in stored:
        base, lead = _unseal_leading(response.input, None)
        items += base + response.input[lead:] + response.body.get("output", [])
    return History(items, [_tool_from_echo(t) for t in stored[-1].body.get("tools") or []], stored[-1].session_key)


def not_found_error(reason: str) -> ApiError:
    """The 400 ``previous_response_not_found`` error (HTTP and WebSocket alike; spec notes §1.9)."""
    return ApiError(
        f"Previous response not found: {reason.rstrip('.')}.",
        400,
        param="previous_response_id",
        code="previous_response_not_found",
    )


def _unseal_leading(items: list[dict[str, Any]], where: str | None) -> tuple[list[dict[str, Any]], int]:
    """The items sealed in the leading ``compaction`` items of ``items``, and how many lead.

    A compaction item is the base of a new chain (spec notes §1.8), so it must come before every other item.

    :param where: ``"input"`` for this request's input (errors name ``input[k]``), ``None`` for a stored one.
    :raises ApiError: 400 ``invalid_encrypted_content`` for a seal this server did not make (or that was changed),
        ``invalid_value`` for a compaction item after another kind of item.
    """
    base: list[dict[str, Any]] = []
    lead = 0
    while lead < len(items) and items[lead].get("type") == "compaction":
        try:
            base += unseal(items[lead]["encrypted_content"], compaction_key())
        except SealError as err:
            param = f"{where}[{lead}].encrypted_content" if where else "previous_response_id"
            whose = "" if where else "a compaction item of an earlier response of this conversation: "
            raise ApiError(f"{param}: {whose}{err}.", 400, param=param, code="invalid_encrypted_content") from None
        lead += 1
    for index in range(lead, len(items)):
        if items[index].get("type") == "compaction" and where is not None:
            raise ApiError(
                f"{where}[{index}]: a compaction item is the base of a new conversation, so it must come "
                "before every other input item.",
                400,
                param=f"{where}[{index}]",
                code="invalid_value",
            )
    return base, lead


def _frames(snapshot: dict[str, Any], final: dict[str, Any]) -> bytes:
    # The model has finished already, so every frame is ready: the stream goes out as one body with a
    # Content-Length, in one write, rather than as chunks (SSE does not depend on how the body is cut into
    # writes; WHATWG, "Server-sent events"). The text is bounded by the final response it repeats.
    return "".join([*encode_events(stream_events(snapshot, final)), DONE]).encode("utf-8")


def _bad(err: RequestError) -> ApiError:
    return ApiError(err.message, 400, param=err.param, code=err.code)


def _session_key(req: CreateRequest) -> str | None:
    """Session routing (gateway plan): the ``X-Session-Key`` header, else ``user`` (else, for a continuation,
    the session of the previous response)."""
    key = request.headers.get(SESSION_HEADER)
    if key is None:
        return req.user
    if not key.strip() or len(key) > 256 or not key.isprintable():
        raise ApiError(
            f"{SESSION_HEADER} must be 1-256 printable characters.", 400, param=SESSION_HEADER, code="invalid_value"
        )
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
                raise ApiError(
                    f"input[{index}].id: no stored item with id {item['id']!r} (items of responses "
                    "created with store: false are not kept).",
                    400,
                    param=f"input[{index}].id",
                    code="item_not_found",
                )
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
        tokens = jp.split(pointer)
    except ValueError:
        return param
    for token in tokens:
        if isinstance(node, list) and token.isascii() and token.isdigit():
            where, node = path_index(where, int(token)), node[int(token)] if int(token) < len(node) else None
        else:
            where, node = path_key(where, token), node.get(token) if isinstance(node, dict) else None
    return where


# ------------------------------------------------------------------------------------------------ WebSocket

#: Client fields that WebSocket mode refuses (``WebSocketResponseCreateEvent``: the socket is the stream).
WS_DISALLOWED = ("stream", "stream_options", "background")
#: How many ``store: false`` responses a connection keeps for continuations (the oldest is dropped first).
WS_CACHE_SIZE = 16


@sock.route("/responses", bp=bp)
def websocket(ws: Any) -> None:
    """WebSocket mode on ``/v1/responses`` (Open Responses 2026-04-24 ``x-openresponses-websocket``; spec notes
    §1.11): the same bearer token (checked before the upgrade), then any number of ``response.create`` events
    (``WebSocketResponseCreateEvent``: a ``CreateResponseBody`` with ``type``, without ``stream``,
    ``stream_options``, ``background``), answered one after another with the events an SSE stream would carry, as
    JSON text messages (no ``[DONE]``: that line is SSE's). Failures are ``WebSocketErrorEvent`` messages
    (``{"type": "error", "status", "error": {"type", "code", "message", "param"}}``) and the connection stays open.

    ``store: false`` responses are kept for ``previous_response_id`` by this connection only (at most
    :data:`WS_CACHE_SIZE`); ``store: true`` ones are read from the store. A ``store: true`` response continuing a
    ``store: false`` one is stored with the context that one stands for (``ResponseStore.save``'s ``base``), so it
    can be continued anywhere, as its ``GET`` promises. A continuation that fails (4xx, or a
    failed response) evicts its ``previous_response_id`` from the connection's cache. After
    ``RESPONSES_WEBSOCKET_SECONDS`` (60 minutes) the server sends ``websocket_connection_limit_reached`` and closes.
    """
    deadline = time.monotonic() + float(current_app.config.get("RESPONSES_WEBSOCKET_SECONDS", 3600))
    cache: OrderedDict[str, History] = OrderedDict()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            minutes = float(current_app.config.get("RESPONSES_WEBSOCKET_SECONDS", 3600)) / 60
            _ws_send(
                ws,
                _ws_error(
                    ApiError(
                        f"This connection has reached its limit of {minutes:g} minutes; open a new one (continue a "
                        "store: true response with previous_response_id there).",
                        400,
                        code="websocket_connection_limit_reached",
                    )
                ),
            )
            ws.close(message="websocket_connection_limit_reached")
            return
        message = ws.receive(timeout=remaining)
        if message is not None:
            _ws_turn(ws, message, cache)


def _ws_turn(ws: Any, message: str | bytes, cache: OrderedDict[str, History]) -> None:
    """One ``response.create``: its events, or one error event (evicting a failed continuation's id)."""
    previous: str | None = None
    try:
        req = _ws_create_event(message)
        previous = req.previous_response_id
        prepared = prepare(req, lambda response_id: _connection_history(response_id, cache))
        snapshot, final = run_model(prepared)
    except (ApiError, StorageError) as err:
        if previous is not None:
            cache.pop(previous, None)
        _ws_send(ws, _ws_error(storage_api_error(err) if isinstance(err, StorageError) else err))
        return
    except Exception:  # a bug of ours: logged; the client gets an error event, the connection lives on
        current_app.logger.exception("unhandled error in a WebSocket turn")
        if previous is not None:
            cache.pop(previous, None)
        _ws_send(ws, _ws_error(ApiError("The server failed on this request; it is logged.", 500, code="server_error")))
        return
    if final["status"] == "failed":
        if previous is not None:
            cache.pop(previous, None)
    elif req.store:
        # What a store: false response of this connection stands for is kept with it: the store has no record of it.
        base = cache[previous].items if previous is not None and previous in cache else None
        try:
            store().save(final, prepared.inputs, prepared.session_key, base)
        except StorageError as err:  # the turn is answered with an error event; the connection lives on
            current_app.logger.error("storage fault in a WebSocket turn: %s", err.message)
            _ws_send(ws, _ws_error(storage_api_error(err)))
            return
    else:
        cache[final["id"]] = History(prepared.conversation(final["output"]), prepared.tools, prepared.session_key)
        while len(cache) > WS_CACHE_SIZE:
            cache.popitem(last=False)
    for event in stream_events(snapshot, final):
        _ws_send(ws, event)


def _ws_create_event(message: str | bytes) -> CreateRequest:
    """Parse a client message as a ``WebSocketResponseCreateEvent``.

    :raises ApiError: 400 for a message that is not I-JSON, not an object, of another ``type``, carrying a field
        WebSocket mode refuses, or whose body is not a valid ``CreateResponseBody``.
    """
    try:
        event = loads_ijson(message, max_depth=parse_limits().max_depth)
    except JSONTextError as err:
        raise ApiError(f"The message is not valid JSON: {str(err).rstrip('.')}.", 400, code="invalid_json") from None
    if not isinstance(event, dict):
        raise ApiError("The message must be a JSON object (a response.create event).", 400, code="invalid_type")
    if event.get("type") != "response.create":
        raise ApiError(
            f"type: expected 'response.create', got {json.dumps(event.get('type'))} (the only client "
            "event of Open Responses WebSocket mode).",
            400,
            param="type",
            code="invalid_value",
        )
    for name in WS_DISALLOWED:
        if name in event:
            raise ApiError(
                f"{name}: not allowed in WebSocket mode (the connection itself is the stream).",
                400,
                param=name,
                code="unsupported_parameter",
            )
    body = {key: value for key, value in event.items() if key != "type"}
    try:
        return parse_create_request(body, Limits())
    except RequestError as err:
        raise _bad(err) from None


def _connection_history(response_id: str, cache: OrderedDict[str, History]) -> History:
    history = cache.get(response_id)
    if history is not None:
        cache.move_to_end(response_id)
        return history
    try:
        return stored_history(response_id)
    except ApiError as err:
        if store().get(response_id) is not None:
            raise  # it is stored: what is missing is a response it continues, and the message says which
        raise not_found_error(
            f"{response_id!r} is neither stored nor a store: false response of this connection "
            "(those live only as long as the connection that made them)"
        ) from err


def _ws_error(err: ApiError) -> dict[str, Any]:
    """A ``WebSocketErrorEvent``: ``type``, ``status`` and the error envelope's members."""
    return {
        "type": "error",
        "status": err.status,
        "error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param},
    }


def _ws_send(ws: Any, payload: dict[str, Any]) -> None:
    ws.send(_WS_ENCODER.encode(payload))


_WS_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------------------------------------ stored


def _stored_or_404(response_id: str) -> Any:
    stored = store().get(response_id)
    if stored is None:
        raise ApiError(
            f"No stored response with id {response_id!r}.", 404, param="response_id", code="response_not_found"
        )
    return stored


@bp.get("/responses/<response_id>")
def retrieve(response_id: str) -> Response:
    """A stored ``ResponseResource``."""
    return jsonify(_stored_or_404(response_id).body)


@bp.delete("/responses/<response_id>")
def delete(response_id: str) -> Response:
    """Delete a stored response and its items (responses continuing it can no longer be replayed)."""
    if not store().delete(response_id):
        raise ApiError(
            f"No stored response with id {response_id!r}.", 404, param="response_id", code="response_not_found"
        )
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
            raise ApiError(
                f"after: no input item with id {after!r} in this response.", 400, param="after", code="invalid_value"
            )
        items = items[ids.index(after) + 1 :]
    page = items[:limit]
    return jsonify(
        {
            "object": "list",
            "data": page,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
            "has_more": len(items) > limit,
        }
    )


@bp.get("/sessions/<path:key>/items")
def session_items(key: str) -> Response:
    """Every stored item of a session, in conversation order, each with ``inspect_url`` (the sessions page).

    ``limit`` (1-1000, default 100) and ``offset`` page through long sessions.
    """
    limit = int_param("limit", default=100, minimum=1, maximum=1000)
    offset = int_param("offset", default=0, minimum=0, maximum=SQLITE_MAX_INTEGER)
    rows = store().session_items(key, limit=limit + 1, offset=offset)
    page_url = url_for("sessions.page", key=key, _external=True)
    data = [
        {
            "response_id": row.response_id,
            "source": row.source,
            "index": row.index,
            "item": row.item,
            "inspect_url": f"{page_url}#{_anchor(row.response_id, row.source, row.index)}",
        }
        for row in rows[:limit]
    ]
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
                tools_of[row.response_id] = (
                    {t.get("name"): t for t in (stored.body.get("tools") or []) if isinstance(t, dict)}
                    if stored
                    else {}
                )
            tool = tools_of[row.response_id].get(row.item.get("name"))
        entries.append(
            {
                "anchor": _anchor(row.response_id, row.source, row.index),
                "row": row,
                "document": document,
                # Step 2 gets the whole call and the tool it names, so it shows the gate's verdict too.
                "tool": json.dumps(tool, indent=2, ensure_ascii=False) if tool is not None else None,
                "is_call": row.item.get("type") == "function_call",
            }
        )
    return render_template("sessions/page.html", key=key, entries=entries, truncated=len(rows) >= 1000)
