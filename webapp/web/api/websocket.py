"""WebSocket mode on ``/v1/responses`` (blueprint ``websocket``, prefix ``/v1``; bearer token ``API_TOKEN``).

The socket, its time limit and its error events; what a turn does is ``webapp.core.responses.websocket``'s
(flask-sock serves it on the dev server and on gunicorn's gevent workers alike).
"""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, Flask, current_app
from flask_sock import Sock

from webapp.core.responses.fields import RequestError
from webapp.core.responses.websocket import Connection
from webapp.web.api.v1 import api_error, require_token, services, store
from webapp.web.errors import ApiError, storage_api_error
from webapp.web.limits import ParseLimits
from webapp.web.store import StorageError

bp = Blueprint("websocket", __name__, url_prefix="/v1")
bp.before_request(require_token)  # checked before the upgrade
sock = Sock()


def init_app(app: Flask) -> None:
    """Cap a message like a request body, ping an idle connection through proxies, and set the connection's time
    limit (``RESPONSES_WEBSOCKET_SECONDS``, 60 minutes) unless configured."""
    app.config.setdefault(
        "SOCK_SERVER_OPTIONS", {"max_message_size": ParseLimits.from_config(app.config).max_bytes, "ping_interval": 25}
    )
    app.config.setdefault("RESPONSES_WEBSOCKET_SECONDS", 3600)


@sock.route("/responses", bp=bp)
def websocket(ws: Any) -> None:
    """WebSocket mode on ``/v1/responses`` (Open Responses 2026-04-24 ``x-openresponses-websocket``; spec notes
    §1.11): the same bearer token (checked before the upgrade), then any number of ``response.create`` events,
    answered one after another with the events an SSE stream would carry, as JSON text messages (no ``[DONE]``:
    that line is SSE's). Failures are ``WebSocketErrorEvent`` messages (``{"type": "error", "status", "error":
    {"type", "code", "message", "param"}}``) and the connection stays open. After ``RESPONSES_WEBSOCKET_SECONDS``
    (60 minutes) the server sends ``websocket_connection_limit_reached`` and closes.
    """
    seconds = float(current_app.config.get("RESPONSES_WEBSOCKET_SECONDS", 3600))
    deadline = time.monotonic() + seconds
    connection = Connection()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            _send(
                ws,
                _error_event(
                    ApiError(
                        f"This connection has reached its limit of {seconds / 60:g} minutes; open a new one "
                        "(continue a store: true response with previous_response_id there).",
                        400,
                        code="websocket_connection_limit_reached",
                    )
                ),
            )
            ws.close(message="websocket_connection_limit_reached")
            return
        message = ws.receive(timeout=remaining)
        if message is not None:
            _turn(ws, message, connection)


def _turn(ws: Any, message: str | bytes, connection: Connection) -> None:
    """One ``response.create``: its events, or one error event."""
    try:
        turn = connection.answer(message, services(), lambda response_id: store().get(response_id) is not None)
    except RequestError as err:
        _send(ws, _error_event(api_error(err)))
        return
    except StorageError as err:
        _send(ws, _error_event(storage_api_error(err)))
        return
    except Exception:  # a bug of ours: logged; the client gets an error event, the connection lives on
        current_app.logger.exception("unhandled error in a WebSocket turn")
        _send(ws, _error_event(ApiError("The server failed on this request; it is logged.", 500, code="server_error")))
        return
    try:
        connection.settle(turn, store().save)
    except StorageError as err:  # the turn is answered with an error event; the connection lives on
        current_app.logger.error("storage fault in a WebSocket turn: %s", err.message)
        _send(ws, _error_event(storage_api_error(err)))
        return
    for event in turn.events():
        _send(ws, event)


def _error_event(err: ApiError) -> dict[str, Any]:
    """A ``WebSocketErrorEvent``: ``type``, ``status`` and the error envelope's members."""
    return {
        "type": "error",
        "status": err.status,
        "error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param},
    }


def _send(ws: Any, payload: dict[str, Any]) -> None:
    ws.send(_ENCODER.encode(payload))


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
