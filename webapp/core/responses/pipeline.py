"""The ``/v1/responses`` request pipeline: a parsed request prepared against its history, answered, compacted.

Pure (no Flask, no SQLite): the store comes in as callables (:class:`Services`: ``history_of(response_id)`` for a
``previous_response_id``, ``find_item(item_id)`` for an ``item_reference``), and what is to be saved the route
saves. :func:`prepare` runs every check before the model does, so a bad request is refused before the first SSE byte
is sent (Flask docs, "Streaming": headers cannot change once streaming starts), in this order:

1. the session (``X-Session-Key``, else ``user``, else the session of the response continued);
2. the history: every response of the ``previous_response_id`` chain, input then output (spec 1.8);
3. each ``item_reference`` replaced by the item it names (earlier in this context, else any stored item);
4. the leading ``compaction`` items unsealed (spec notes §1.8: a compaction item is the base of a new chain);
5. the tools' ``parameters`` and ``text.format.schema`` compiled (``webapp.core.schema``), ``tool_choice`` checked
   against the tools in effect;
6. status-less calls vouched for, then the replay gate on the input (``webapp.core.gate``: ``vouch``,
   ``refuse_input``);
7. the input items given ids, as they are stored.

Every refusal is a :class:`~webapp.core.responses.fields.RequestError` (400) naming the place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from webapp.core.gate import refuse_input, vouch
from webapp.core.json import pointer as jp
from webapp.core.responses.compaction import SealError, compaction_item, seal, unseal
from webapp.core.responses.events import stream_events
from webapp.core.responses.fields import INVALID_VALUE, RequestError, path_index, path_key
from webapp.core.responses.request import CreateRequest
from webapp.core.responses.resources import compact_resource, stored_input_item, usage
from webapp.core.responses.sse import DONE, encode_events
from webapp.core.responses.testmodel import MODEL_NAME, input_tokens, new_id, respond
from webapp.core.responses.tools import Tool, ToolChoice, check_tool_choice
from webapp.core.schema import SchemaError, compile_schema

#: The header that routes a request to a session (gateway plan: session routing), before ``user``.
SESSION_HEADER = "X-Session-Key"
#: Item id prefixes for input items stored without an id (as OpenAI's ids read).
ID_PREFIXES = {"message": "msg", "function_call": "fc", "function_call_output": "fco", "reasoning": "rs"}


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


@dataclass(frozen=True)
class Services:
    """What a request is prepared with besides itself.

    :param history_of: the :class:`History` of a ``previous_response_id``; raises :class:`RequestError`
        ``previous_response_not_found`` (see :func:`previous_not_found`) when it, or one it continues, is unknown.
    :param find_item: the most recently stored item with an id, or ``None`` (for ``item_reference``).
    :param key: the key compaction items are sealed with (``webapp.core.responses.compaction.derive_key``).
    :param max_depth: the nesting limit of a call's parsed ``arguments`` (the app's ``JSON_MAX_DEPTH``).
    :param session_header: the request's ``X-Session-Key`` header, or ``None`` when it has none.
    """

    history_of: Callable[[str], History]
    find_item: Callable[[str], dict[str, Any] | None]
    key: bytes
    max_depth: int
    session_header: str | None = None


class StoredLink(Protocol):
    """One stored response of a chain, as the store reads it back (``webapp.web.store.StoredResponse``)."""

    @property
    def body(self) -> dict[str, Any]: ...  # the ResponseResource

    @property
    def input(self) -> list[dict[str, Any]]: ...  # its input items, ids filled in

    @property
    def session_key(self) -> str | None: ...

    @property
    def base(self) -> list[dict[str, Any]] | None: ...  # what it continues when that is not stored


def prepare(req: CreateRequest, services: Services) -> Prepared:
    """Everything before the model runs: session, history, references, compaction items, schemas, tool_choice and
    the replay gate, in that order (see the module's docstring).

    :raises RequestError: 400 with the first problem (what ``services.history_of`` raises included).
    """
    session_key = session_of(services.session_header, req.user)
    history = services.history_of(req.previous_response_id) if req.previous_response_id is not None else None
    chain = history.items if history else []
    if session_key is None and history is not None:  # a continuation stays in its conversation's session
        session_key = history.session_key
    tools = req.tools if req.tools is not None else (history.tools if history else [])
    resolved = _resolve_references(req.input, chain, services.find_item)
    base, lead = _unseal_leading(resolved, "input", services.key)
    _check_schemas(req)
    check_tool_choice(req.tool_choice or ToolChoice(), tools)
    resolved = vouch(resolved)  # a status-less call followed by its output: its client vouched that it ran it
    # The compaction items stay in place for the gate (it passes them as nothing to execute), so its input[k]
    # still counts the items the client sent; what they unsealed joins the history before them.
    refusal = refuse_input(
        chain + base,
        resolved,
        [tool.echo() for tool in tools],
        tools_sent=req.tools is not None or req.previous_response_id is not None,
        max_depth=services.max_depth,
    )
    if refusal is not None:
        raise RequestError(refusal.message, refusal.param, refusal.code, whole=True)
    inputs = [stored_input_item(item, new_id(ID_PREFIXES.get(item.get("type", ""), "item"))) for item in resolved]
    return Prepared(req, chain + base, chain + base + resolved[lead:], inputs, lead, tools, session_key)


def run_model(prepared: Prepared) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the test model on a prepared request: ``(snapshot, final)`` ``ResponseResource`` objects, with a new
    ``resp_`` id and the current time (Unix seconds).

    :raises RequestError: 400 when there is nothing to answer (no user message, no tool result).
    """
    now = int(time.time())
    return respond(
        prepared.req, prepared.context, prepared.tools, response_id=new_id("resp"), created_at=now, completed_at=now
    )


def stream_body(snapshot: dict[str, Any], final: dict[str, Any]) -> bytes:
    """The SSE body of a finished response: every event's frame, then ``data: [DONE]``, as UTF-8.

    The model has finished already, so every frame is ready: the stream goes out as one body with a Content-Length,
    in one write, rather than as chunks (SSE does not depend on how the body is cut into writes; WHATWG,
    "Server-sent events"). The text is bounded by the final response it repeats.
    """
    return "".join([*encode_events(stream_events(snapshot, final)), DONE]).encode("utf-8")


def compact(prepared: Prepared, key: bytes) -> dict[str, Any]:
    """The ``CompactResource`` of a prepared ``/responses/compact`` request (Open Responses 2026-04-24; spec notes
    §1.8): its ``output`` is one ``compaction`` item sealing the whole conversation (history, input), in order.

    ``instructions`` count in ``usage`` only (as on a create, they are not carried over).

    :raises RequestError: 400 ``context_length_exceeded`` when the sealed conversation would be too long.
    """
    items = prepared.conversation([])
    try:
        sealed = seal(items, key, model=prepared.req.model or MODEL_NAME)
    except SealError as err:
        raise RequestError(f"{err}.", "input", "context_length_exceeded") from None
    return compact_resource(
        resource_id=new_id("resp"),
        created_at=int(time.time()),
        output=[compaction_item(new_id("cmp"), sealed)],
        usage_=usage(input_tokens(prepared.context, prepared.req.instructions, []), input_tokens(items, None, [])),
    )


def history_from_chain(chain: Sequence[StoredLink], key: bytes) -> History:
    """The :class:`History` a stored chain stands for: what its oldest response continues (its ``base``), then
    each response's input (leading compaction items unsealed) and output, oldest first; the tools and session of
    the newest.

    :param chain: the responses, oldest first, at least one (``webapp.web.store.ResponseStore.chain``).
    :raises RequestError: 400 ``invalid_encrypted_content`` for a stored compaction item this key did not seal.
    """
    items: list[dict[str, Any]] = list(chain[0].base or [])
    for response in chain:
        base, lead = _unseal_leading(response.input, None, key)
        items += base + response.input[lead:] + response.body.get("output", [])
    newest = chain[-1]
    return History(items, [_tool_from_echo(t) for t in newest.body.get("tools") or []], newest.session_key)


def previous_not_found(reason: str) -> RequestError:
    """The 400 ``previous_response_not_found`` error (HTTP and WebSocket alike; spec notes §1.9).

    :param reason: why, in words (``no stored response with id 'resp_1'``).
    """
    return RequestError(
        f"Previous response not found: {reason.rstrip('.')}.",
        "previous_response_id",
        "previous_response_not_found",
        whole=True,
    )


def session_of(header: str | None, user: str | None) -> str | None:
    """Session routing (gateway plan): the ``X-Session-Key`` header, stripped, else ``user`` (else, for a
    continuation, the session of the previous response: :func:`prepare`).

    :raises RequestError: 400 ``invalid_value`` naming the header when it is blank, over 256 characters or holds
        a character that is not printable.
    """
    if header is None:
        return user
    if not header.strip() or len(header) > 256 or not header.isprintable():
        raise RequestError(
            f"{SESSION_HEADER} must be 1-256 printable characters.", SESSION_HEADER, INVALID_VALUE, whole=True
        )
    return header.strip()


def _tool_from_echo(echo: dict[str, Any]) -> Tool:
    return Tool(echo["name"], echo.get("description"), echo.get("parameters"), echo.get("strict"))


def _unseal_leading(items: list[dict[str, Any]], where: str | None, key: bytes) -> tuple[list[dict[str, Any]], int]:
    """The items sealed in the leading ``compaction`` items of ``items``, and how many lead.

    A compaction item is the base of a new chain (spec notes §1.8), so it must come before every other item.

    :param where: ``"input"`` for this request's input (errors name ``input[k]``), ``None`` for a stored one.
    :raises RequestError: 400 ``invalid_encrypted_content`` for a seal this server did not make (or that was
        changed), ``invalid_value`` for a compaction item after another kind of item.
    """
    base: list[dict[str, Any]] = []
    lead = 0
    while lead < len(items) and items[lead].get("type") == "compaction":
        try:
            base += unseal(items[lead]["encrypted_content"], key)
        except SealError as err:
            param = f"{where}[{lead}].encrypted_content" if where else "previous_response_id"
            whose = "" if where else "a compaction item of an earlier response of this conversation: "
            raise RequestError(f"{whose}{err}.", param, "invalid_encrypted_content") from None
        lead += 1
    for index in range(lead, len(items)):
        if items[index].get("type") == "compaction" and where is not None:
            raise RequestError(
                "a compaction item is the base of a new conversation, so it must come before every other input item.",
                f"{where}[{index}]",
                INVALID_VALUE,
            )
    return base, lead


def _resolve_references(
    items: list[dict[str, Any]],
    chain: list[dict[str, Any]],
    find_item: Callable[[str], dict[str, Any] | None],
) -> list[dict[str, Any]]:
    """Replace each ``item_reference`` by the item it names: earlier in this context first, then any stored
    item. 400 ``item_not_found`` naming the reference otherwise."""
    known = {item["id"]: item for item in chain if isinstance(item.get("id"), str)}
    resolved: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if item.get("type") == "item_reference":
            target = known.get(item["id"]) or find_item(item["id"])
            if target is None:
                raise RequestError(
                    f"no stored item with id {item['id']!r} (items of responses created with store: false are not "
                    "kept).",
                    f"input[{index}].id",
                    "item_not_found",
                )
            item = target
        elif isinstance(item.get("id"), str):
            known[item["id"]] = item
        resolved.append(item)
    return resolved


def _check_schemas(req: CreateRequest) -> None:
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
    except SchemaError as err:
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
