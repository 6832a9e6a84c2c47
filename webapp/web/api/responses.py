"""``/v1/responses``: the built-in Open Responses test endpoint (JSON and SSE), with the replay gate on its input.

Routes (blueprint ``responses``, prefix ``/v1``; bearer token ``API_TOKEN``)::

    POST   /v1/responses                        create (JSON, or SSE with "stream": true)
    POST   /v1/responses/compact                compact a conversation into one sealed compaction item
    GET    /v1/responses/<id>                   a stored response
    DELETE /v1/responses/<id>                   delete it
    GET    /v1/responses/<id>/input_items       its input items (a list object; after/limit/order)
    GET    /v1/sessions/<key>/items             every stored item of a session, with a link to inspect it

WebSocket mode on the same path is ``webapp.web.api.websocket``; the sessions page ``webapp.web.pages.sessions``.
The routes only glue: parse (``webapp.core.responses.request``), prepare, run and compact
(``webapp.core.responses.pipeline``, handed the store by ``webapp.web.api.v1``), save and answer. A refused
request (:class:`~webapp.core.responses.fields.RequestError`) is a JSON 400, never a broken stream: everything is
checked before the first SSE byte.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from webapp.core.responses.fields import RequestError
from webapp.core.responses.pipeline import compact as compact_conversation
from webapp.core.responses.pipeline import prepare, run_model, stream_body
from webapp.core.responses.request import parse_compact_request, parse_create_request
from webapp.core.responses.sessions import anchor
from webapp.web.api.jsonbody import read_json_body
from webapp.web.api.v1 import api_error, compaction_key, require_token, services, store
from webapp.web.errors import ApiError
from webapp.web.params import SQLITE_MAX_INTEGER, choice_param, int_param

bp = Blueprint("responses", __name__, url_prefix="/v1")
bp.before_request(require_token)


@bp.errorhandler(RequestError)
def _refused(err: RequestError) -> Response:
    return api_error(err).to_response()


@bp.post("/responses")
def create() -> Response:
    """Create a response with the embedded test model (Open Responses ``POST /responses``)."""
    req = parse_create_request(read_json_body("a JSON object (CreateResponseBody)"))
    prepared = prepare(req, services())
    snapshot, final = run_model(prepared)
    if req.store and final["status"] != "failed":
        # Stored before answering, so a client that saw the response can continue from it at once.
        store().save(final, prepared.inputs, prepared.session_key)
    if req.stream:
        return Response(
            stream_body(snapshot, final),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    if final["status"] == "failed":
        error = final["error"] or {}
        raise ApiError(error.get("message", "The model failed."), 500, code=error.get("code"), type="model_error")
    return jsonify(final)


@bp.post("/responses/compact")
def compact() -> Response:
    """Compact a conversation (Open Responses 2026-04-24 ``POST /responses/compact``; spec notes §1.8).

    The input is checked and gated as for a create; the answer is a ``CompactResource`` whose ``output`` is one
    ``compaction`` item sealing the whole conversation (history, input), in order. Sent back as the first input
    item of a new chain (no ``previous_response_id``), it stands for that conversation. ``instructions`` count in
    ``usage`` only (as on a create, they are not carried over); ``prompt_cache_key`` is accepted (there is no cache).
    """
    req = parse_compact_request(read_json_body("a JSON object (CompactResponseMethodPublicBody)"))
    return jsonify(compact_conversation(prepare(req, services()), compaction_key()))


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
    """The input items of a stored response as a list object (``after``, ``limit`` 1-100, ``order``); the answer
    says its ``order``, so that a page pasted into the journal step is read oldest first."""
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
            "order": order,  # not in OpenAI's list object: it lets a pasted page be read in conversation order
            "data": page,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
            "has_more": len(items) > limit,
        }
    )


@bp.get("/sessions/<path:key>/items")
def session_items(key: str) -> Response:
    """Every stored item of a session, in conversation order, each with the ``previous_response_id`` of its response
    (``null``: its client sends the whole conversation, or it starts one) and ``inspect_url`` (the sessions page).

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
            "previous_response_id": row.previous_response_id,
            "inspect_url": f"{page_url}#{anchor(row.response_id, row.source, row.index)}",
        }
        for row in rows[:limit]
    ]
    return jsonify({"object": "list", "session_key": key, "data": data, "has_more": len(rows) > limit})
