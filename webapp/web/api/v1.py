"""What the ``/v1`` routes share: the bearer token, the app's response store and sealing key, the on/off switch.

The routes (``webapp.web.api.responses``, ``websocket``, ``legacy_chat``) and the sessions page
(``webapp.web.pages.sessions``) read the store through here; the request pipeline
(``webapp.core.responses.pipeline``) gets it as callables (:func:`services`), so the core never sees SQLite or
Flask.
"""

from __future__ import annotations

import hmac
import os
import secrets

from flask import Flask, abort, current_app, request

from webapp.core.responses.compaction import derive_key
from webapp.core.responses.fields import RequestError
from webapp.core.responses.pipeline import (
    SESSION_HEADER,
    History,
    Services,
    history_from_chain,
    previous_not_found,
)
from webapp.web.errors import ApiError
from webapp.web.limits import parse_limits
from webapp.web.store import MissingResponse, ResponseStore

STORE_KEY = "openresponses_store"
COMPACTION_KEY = "openresponses_compaction_key"
# The server secret for sealing compaction items when SECRET_KEY is not set: made once in the instance folder, so
# every worker of a production server (and the next start) seals and unseals alike.
SECRET_FILE = "secret.key"
#: The paths RESPONSES_ENABLED switches on and off.
SWITCHED_PATHS = ("/v1/responses", "/v1/sessions/", "/sessions/")


def init_app(app: Flask) -> None:
    """Open the store (``RESPONSES_DATABASE``: a path, relative to the instance folder, or ``:memory:``), derive
    the sealing key and register the ``RESPONSES_ENABLED`` switch.

    :raises webapp.web.store.StorageError: the database file cannot be used (the message says what to do).
    """
    path = str(app.config.get("RESPONSES_DATABASE") or "responses.sqlite3")
    if path != ":memory:" and not os.path.isabs(path):
        path = os.path.join(app.instance_path, path)
    max_bytes = app.config.get("RESPONSES_DATABASE_MAX_BYTES")
    app.extensions[STORE_KEY] = ResponseStore(path, int(max_bytes) if max_bytes else None)
    app.extensions[COMPACTION_KEY] = derive_key(_server_secret(app))
    app.before_request(_enabled)


def store() -> ResponseStore:
    """The app's response store."""
    return current_app.extensions[STORE_KEY]


def compaction_key() -> bytes:
    """The key this app seals compaction items with (``webapp.core.responses.compaction.derive_key``)."""
    return current_app.extensions[COMPACTION_KEY]


def stored_history(response_id: str) -> History:
    """The history of a stored response: every response of its chain, input then output, oldest first.

    :raises RequestError: 400 ``previous_response_not_found`` when it, or one it continues, is not stored.
    """
    try:
        chain = store().chain(response_id)
    except MissingResponse as err:
        raise previous_not_found(str(err)) from None
    return history_from_chain(chain, compaction_key())


def services() -> Services:
    """What the pipeline prepares this request with: the store's history and items, the app's sealing key and
    nesting limit, the request's ``X-Session-Key`` header."""
    return Services(
        history_of=stored_history,
        find_item=store().find_item,
        key=compaction_key(),
        max_depth=parse_limits().max_depth,
        session_header=request.headers.get(SESSION_HEADER),
    )


def api_error(err: RequestError) -> ApiError:
    """A refused request as the 400 the routes answer (the one error envelope)."""
    return ApiError(err.message, 400, param=err.param, code=err.code)


def require_token() -> None:
    """``Authorization: Bearer <API_TOKEN>``, compared in constant time; 401 with the error envelope otherwise.

    A ``before_request`` hook of every ``/v1`` blueprint (``bp.before_request(require_token)``). ``OPTIONS`` needs
    no token: a CORS preflight never carries one (Fetch standard, "CORS-preflight request"), and Flask's automatic
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
    if not path.startswith(SWITCHED_PATHS) or current_app.config.get("RESPONSES_ENABLED", True):
        return
    if path.startswith("/v1/"):
        raise ApiError(f"{path} is disabled on this server (RESPONSES_ENABLED is off).", 404, code="not_found")
    abort(404)
