"""gunicorn settings for serving many clients (``bash scripts/serve-gunicorn``; docs/responses-api.md, "Serving many
clients"). Command-line flags override these, e.g. ``bash scripts/serve-gunicorn --workers 4``.

Evented workers (``gevent``): each worker process serves up to ``worker_connections`` connections at once, each
in a greenlet that waits for its socket without holding anything else, so clients that send their headers a
byte a second, keep-alive connections and idle WebSocket connections (flask-sock / simple-websocket, whose
threads gevent makes greenlets) cost a few KiB each, not a thread of a small pool. A request's head must arrive
within ``keepalive`` seconds (gunicorn's header timeout for evented workers), or the connection is closed. What an
evented worker does not do is run two requests' Python at once: a request that computes for seconds (a 20 MB
page) holds its worker for that long, so give each core a worker (``WEB_CONCURRENCY``).

The workers share:

* one API token: the master reads ``FLASK_API_TOKEN`` or, when it is unset, the instance folder's ``api-token``
  (or the file ``API_TOKEN_FILE`` names; made once, mode 0600; delete it to get a new one), and puts it into the
  environment before it forks, so every worker's ``create_app()`` reads the same one
  (``app.config.from_prefixed_env``);
* one secret for sealing compaction items (the instance folder's ``secret.key``, or ``FLASK_SECRET_KEY``);
* one SQLite store in WAL mode (``RESPONSES_DATABASE``, in the instance folder by default).

The app is built in each worker after the fork (no ``preload_app``): an SQLite connection must not cross a fork.
"""

from __future__ import annotations

import os
import secrets

wsgi_app = "webapp:create_app()"
bind = [os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '5000')}"]
worker_class = "gevent"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# Connections one worker holds at once (slow clients, keep-alive and WebSocket connections included); beyond them
# it stops accepting until one closes, and the others wait in the listen queue.
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "1000"))
# Seconds a connection may take to send a request's head (the first one and each kept-alive one); then it is closed.
keepalive = 5
# The worker heartbeat (its main loop, not a request): a long WebSocket connection does not trip it.
timeout = 60
graceful_timeout = 10
# gunicorn 27's control socket is one per user ($HOME/.gunicorn/gunicorn.ctl): two servers would fight over it.
control_socket_disable = True
TOKEN_FILE = "api-token"


def _instance_path() -> str:
    # The same folder create_app() uses (Flask works it out from the package's location).
    from flask import Flask

    return Flask("webapp", instance_relative_config=True).instance_path


def shared_token() -> str:
    """``FLASK_API_TOKEN``, else the token file (``API_TOKEN_FILE``, by default the instance folder's
    ``api-token``), made once with a fresh random token."""
    configured = os.environ.get("FLASK_API_TOKEN")
    if configured:
        return configured
    path = os.environ.get("API_TOKEN_FILE") or os.path.join(_instance_path(), TOKEN_FILE)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
        if token:
            return token
        descriptor = os.open(path, os.O_WRONLY | os.O_TRUNC)
    token = "sk-local-" + secrets.token_urlsafe(18)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


def check_store() -> None:
    """Open the response store once in the master, as each worker will, and close it before any fork: a file that is
    no SQLite database, or a read-only one, stops the server with what to do instead of every worker failing to
    boot with a traceback.

    :raises SystemExit: with the store's message.
    """
    from webapp import create_app
    from webapp.web.api.v1 import STORE_KEY
    from webapp.web.store import StorageError

    try:
        app = create_app()
    except StorageError as err:
        raise SystemExit(f"gunicorn: {err.message}") from None
    app.extensions[STORE_KEY].close()  # no SQLite connection may cross the fork


def on_starting(server) -> None:  # the master, before any worker is forked
    token = shared_token()
    os.environ["FLASK_API_TOKEN"] = token
    print(f" * /v1 API token (Authorization: Bearer ...): {token} (shared by every worker)", flush=True)
    check_store()
