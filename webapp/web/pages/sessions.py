"""The sessions pages: ``GET /sessions/<key>``, a session's stored items, each with buttons into the steps;
``GET /responses/<id>``, the same for one response stored without a session key; ``GET /sessions``, the index of
both, newest first.

Outside the nav (``webapp.web.OTHER_PAGES``): ``/v1/sessions/{key}/items`` links here. The page's model is
``webapp.core.responses.sessions``; its templates ``templates/sessions/``. Loopback clients only: stored
conversations are private data and these pages have no login.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import Blueprint, abort, render_template, request

from webapp.core.responses.sessions import INDEX_LINES, PAGE_ITEMS, SessionRow, entries, journal_text, tools_text, turns
from webapp.web.api.v1 import store

bp = Blueprint("sessions", __name__)

#: The addresses of this machine: stored conversations are private data and this page has no login.
LOOPBACK = ("127.0.0.1", "::1")


def _loopback_only() -> None:
    if request.remote_addr not in LOOPBACK:
        abort(403)


@bp.get("/sessions")
@bp.get("/sessions/")
def index() -> Any:
    """The stored sessions and the responses stored without a session key, newest first (at most
    :data:`INDEX_LINES`), each a link to its page: counts and times only, nothing of what was said.

    Answers loopback clients only (403 otherwise).
    """
    _loopback_only()
    groups = store().groups(limit=INDEX_LINES)
    return render_template("sessions/index.html", groups=groups, bounded=len(groups) >= INDEX_LINES, limit=INDEX_LINES)


@bp.get("/responses/<response_id>")
def response(response_id: str) -> Any:
    """One stored response's items as :func:`page` shows a session's (a response stored without a session key
    is reachable so). 404 when it is not stored.

    Answers loopback clients only (403 otherwise).
    """
    _loopback_only()
    rows = store().response_items(response_id, limit=PAGE_ITEMS)
    if not rows and store().get(response_id) is None:
        abort(404)
    return _render(rows, key=None, response_id=response_id)


@bp.get("/sessions/<path:key>")
def page(key: str) -> Any:
    """The items of a session grouped by response (each saying what it continues), each item with forms that
    carry it to the JSON Format page (field ``document``) and, for a function call, the call and the tool it names
    to the JSON Schema page (``instance``, ``schema``); the whole session and its responses' tools to the Journal
    page (``journal``, ``tools``).

    Answers loopback clients only (403 otherwise).
    """
    _loopback_only()
    return _render(store().session_items(key, limit=PAGE_ITEMS), key=key, response_id=None)


def _render(rows: Sequence[SessionRow], *, key: str | None, response_id: str | None) -> Any:
    """The page of ``rows``: a session's (``key``) or one response's (``response_id``)."""

    def tools_of(stored_id: str) -> list[Any] | None:
        stored = store().get(stored_id)
        return stored.body.get("tools") if stored else None

    truncated = len(rows) >= PAGE_ITEMS
    return render_template(
        "sessions/page.html",
        key=key,
        response_id=response_id,
        turns=turns(entries(rows, tools_of)),
        journal=journal_text(rows, truncated=truncated),
        tools=tools_text(rows, tools_of),
        truncated=truncated,
    )
