"""Open Responses inspector: a Flask app that decides whether a stored tool-call item may be replayed.

``webapp.core`` is the pure core: it imports no Flask (``tests/unit/test_architecture.py`` walks it to check).
``webapp.web`` is the Flask side: one blueprint per page (``web/pages``) and per machine API (``web/api``).
"""

from __future__ import annotations

import mimetypes
import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp.core.json import displayable

ROOT = Path(__file__).resolve().parent.parent

DEFAULTS: dict[str, Any] = {
    # Request body cap in bytes (Werkzeug answers 413 above it). The parse layer shares it.
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,
    # Form fields are capped by Werkzeug separately; pasted documents may be as large as the body.
    "MAX_FORM_MEMORY_SIZE": 20 * 1024 * 1024,
    # Nesting cap for pasted JSON: below deepdiff's (~247) and jsonschema's (~165) recursion ceilings.
    "JSON_MAX_DEPTH": 100,
    # /v1/responses and the legacy /v1/chat/completions, each on or off independently.
    "RESPONSES_ENABLED": True,
    "CHAT_COMPLETIONS_ENABLED": False,
    # Bearer token for /v1/*; generated and printed at start when unset.
    "API_TOKEN": None,
    # Stored responses (SQLite); relative paths live in the instance folder.
    "RESPONSES_DATABASE": "responses.sqlite3",
    # The most that file may grow to (bytes; SQLite's max_page_count), None for the disk's: 507 storage_full above.
    "RESPONSES_DATABASE_MAX_BYTES": None,
    # Host names answered besides 127.0.0.1, localhost and [::1] (webapp.web.security): a list, or names
    # separated by commas. Any other Host header is refused, so a DNS-rebinding page cannot read stored data.
    "ALLOWED_HOSTS": [],
    # Servers the /stream page's endpoint check may reach besides this machine (loopback): host names, a list or
    # separated by commas (webapp.core.conformance.targets). Nothing else is reached: no server-side request forgery.
    "ALLOWED_TARGETS": [],
    # Reverse proxies in front of the app that set X-Forwarded-For/-Proto/-Host (werkzeug's ProxyFix); 0 = none.
    "PROXY_HOPS": 0,
}


def _displayable(value: Any) -> Any:
    """Every ``{{ value }}`` in a template: a parsed lone surrogate cannot be sent as UTF-8, so it is shown as
    its ``\\uXXXX`` escape (one place for all pages, instead of a 500 on the page that forgot it)."""
    if isinstance(value, str):
        shown = displayable(value)
        if shown is not value:
            return Markup(shown) if isinstance(value, Markup) else shown
    return value


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then ``FLASK_*`` environment variables, then ``test_config``.

    :param test_config: settings that override everything else (tests pass ``TESTING`` etc.).
    :return: the configured :class:`flask.Flask` application with every blueprint registered.
    """
    # The scripts in static/ go out as JavaScript whatever the host's tables say (mimetypes reads /etc/mime.types
    # or, on Windows, the registry, where .js may be text/plain): under nosniff a browser runs no script of another
    # type, and a module script (static/state/) is refused by its type alone.
    mimetypes.add_type("text/javascript", ".js")
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(DEFAULTS)
    app.config.from_prefixed_env()  # FLASK_API_TOKEN, FLASK_RESPONSES_ENABLED, ...
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False  # keep field order as the spec's examples show it
    app.jinja_env.finalize = _displayable
    os.makedirs(app.instance_path, exist_ok=True)

    made_token = not app.config.get("API_TOKEN")
    if made_token:
        app.config["API_TOKEN"] = "sk-local-" + secrets.token_urlsafe(18)

    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops:
        # The client's address, scheme and host as the proxy saw them: the Host check and the loopback-only
        # sessions page then judge the client, not the proxy.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]

    from webapp import web
    from webapp.web import security

    web.init_app(app)
    security.init_app(app)  # its checks go before every other hook
    # Printed only once the app is built: a store that cannot be opened raises above, and a token printed before
    # its error would read as a server that is up.
    if made_token and not app.config.get("TESTING"):
        print(f" * /v1 API token (Authorization: Bearer ...): {app.config['API_TOKEN']}", flush=True)
    return app
