"""Legacy ``POST /v1/chat/completions`` (deprecated; off unless ``CHAT_COMPLETIONS_ENABLED``).

A thin compatibility layer over the embedded test model (``webapp.core.responses.legacy_chat``), with the same
gateway behaviour as ``/v1/responses``: ``Authorization: Bearer <API_TOKEN>``, the one error envelope, 405 with
``Allow``, 413 above ``MAX_CONTENT_LENGTH``; disabled → 404 for every method. ``"stream": true`` answers
``chat.completion.chunk`` frames (``data:`` lines only, as OpenAI's API sends them) and ``data: [DONE]``.
Nothing is stored. A warning is logged at start while the endpoint is on (gateway plan: deprecation path).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from webapp.core.responses.legacy_chat import (
    ChatModelError,
    ChatRequest,
    ChatRequestError,
    chunk_json,
    complete,
    parse_chat_request,
    stream_chunks,
)
from webapp.core.responses.sse import DONE, ServerSentEvent, encode
from webapp.web.api.jsonbody import read_json_body
from webapp.web.api.v1 import require_token
from webapp.web.errors import ApiError

bp = Blueprint("chat_completions", __name__, url_prefix="/v1")
bp.before_request(require_token)

PATH = "/v1/chat/completions"
_OFF = ("", "0", "false", "off", "no")


def enabled(app: Flask) -> bool:
    """``CHAT_COMPLETIONS_ENABLED``, read leniently: ``FLASK_CHAT_COMPLETIONS_ENABLED=off`` (a string that
    ``from_prefixed_env`` leaves as text) is off, not a truthy string."""
    value = app.config.get("CHAT_COMPLETIONS_ENABLED", False)
    if isinstance(value, str):
        return value.strip().lower() not in _OFF
    return bool(value)


def init_app(app: Flask) -> None:
    """Register the on/off switch; log the deprecation warning when the endpoint is on."""
    app.before_request(_enabled)
    if enabled(app):
        app.logger.warning(
            "%s is enabled: it is deprecated, a compatibility layer only; use /v1/responses "
            "(set CHAT_COMPLETIONS_ENABLED off to remove it).",
            PATH,
        )


def _enabled() -> None:
    # App-wide, so it runs before routing errors: a disabled endpoint is 404 for every method, 405 included.
    if request.path.rstrip("/") == PATH and not enabled(current_app):
        raise ApiError(
            f"{PATH} is disabled on this server (CHAT_COMPLETIONS_ENABLED is off; it is deprecated, "
            "use /v1/responses).",
            404,
            code="not_found",
        )


@bp.post("/chat/completions")
def create() -> Response:
    """Create a chat completion (OpenAI Chat Completions API) with the embedded test model."""
    body = read_json_body("a JSON object with model and messages")
    try:
        chat = parse_chat_request(body)
        completion = complete(chat, created=int(time.time()))
    except ChatRequestError as err:
        raise ApiError(err.message, 400, param=err.param, code=err.code) from None
    except ChatModelError as err:
        raise ApiError(err.message, 500, code=err.code, type="model_error") from None
    if chat.stream:
        return Response(
            _frames(chat, completion),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    return jsonify(completion)


def _frames(chat: ChatRequest, completion: dict[str, Any]) -> Iterator[str]:
    for chunk in stream_chunks(chat, completion):
        yield encode(ServerSentEvent(chunk_json(chunk)))
    yield DONE
