"""The sessions page, ``GET /sessions/<key>``: a session's stored items, each with buttons into the steps.

Outside the nav (``webapp.web.OTHER_PAGES``): ``/v1/sessions/{key}/items`` links here. The page's model is
``webapp.core.responses.sessions``; its template ``templates/sessions/page.html``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, request

from webapp.core.responses.sessions import PAGE_ITEMS, entries, journal_text, tools_text, turns
from webapp.web.api.v1 import store

bp = Blueprint("sessions", __name__)

#: The addresses of this machine: stored conversations are private data and this page has no login.
LOOPBACK = ("127.0.0.1", "::1")


@bp.get("/sessions/<path:key>")
def page(key: str) -> Any:
    """The items of a session grouped by response (each saying what it continues), each item with forms that
    carry it to the JSON Format page (field ``document``) and, for a function call, the call and the tool it names
    to the JSON Schema page (``instance``, ``schema``); the whole session and its responses' tools to the Journal
    page (``journal``, ``tools``).

    Answers loopback clients only (403 otherwise).
    """
    if request.remote_addr not in LOOPBACK:
        abort(403)
    rows = store().session_items(key, limit=PAGE_ITEMS)

    def tools_of(response_id: str) -> list[Any] | None:
        stored = store().get(response_id)
        return stored.body.get("tools") if stored else None

    truncated = len(rows) >= PAGE_ITEMS
    return render_template(
        "sessions/page.html",
        key=key,
        turns=turns(entries(rows, tools_of)),
        journal=journal_text(rows, truncated=truncated),
        tools=tools_text(rows, tools_of),
        truncated=truncated,
    )
