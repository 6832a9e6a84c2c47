"""The one place that knows about htmx requests (through htmx-flask) and the ``Vary`` header they need."""

from __future__ import annotations

from flask import Flask, Response
from htmx_flask import Htmx
from htmx_flask import request as htmx_request


def init_app(app: Flask) -> None:
    """Install htmx-flask's request class and add ``Vary: HX-Request`` to every page response."""
    Htmx(app)

    @app.after_request
    def _vary(response: Response) -> Response:
        response.vary.add("HX-Request")
        return response


def is_partial() -> bool:
    """True when htmx asked for a fragment (not a history restore, which needs the full page)."""
    return bool(htmx_request.htmx) and not htmx_request.htmx.history_restore_request
