"""The journal step (``/journal``): a whole conversation from any provider — gated, paired, and what may be replayed.

``GET /journal`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES` and checks it).
``POST /journal`` answers the result (htmx: ``journal/_result.html``; a plain POST: the full page).
``POST /journal/export`` downloads what goes to the target, from the gate's one plan: its kept items as Open Responses
JSON Lines, or with ``format=body`` the request body the target accepts (``<target>-body.json``, as ``POST
/api/export`` answers it); a journal the gate offers no body for gets the page with the reason (400).

Form fields: ``journal`` (text) or upload ``file`` (it wins), ``from`` (``auto`` or a source), ``target`` (one of the
gate's ``TARGETS``; default ``portable``), ``tools`` (any provider's tool definitions; blank: the journal's own),
``only_blocking``, ``page``, ``complete_statusless``.
The model and every rule live in :mod:`webapp.core.pages.journal`; this module is routes and form fields only.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from flask import Blueprint, Response, render_template

from webapp.core.export import Export
from webapp.core.gate import DEFAULT_TARGET, TARGET_TITLES
from webapp.core.pages.journal import JournalPage, build
from webapp.web import forms
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits

bp = Blueprint("journal", __name__)

#: name -> (title, file under webapp/examples): the same conversation from three providers, and a cut-off one.
EXAMPLES: dict[str, tuple[str, str]] = {
    "chat-completions": ("Chat Completions request", "conversations/chat-completions.json"),
    "anthropic": ("Anthropic Messages request", "conversations/anthropic-messages.json"),
    "gemini": ("Gemini contents", "conversations/gemini-contents.json"),
    "cut-off": ("a cut-off Chat Completions response", "conversations/chat-completions-truncated.json"),
}
SOURCE_LABELS = {
    "auto": "detect",
    "open_responses": "Open Responses",
    "openai": "OpenAI Responses (native)",
    "chat_completions": "Chat Completions",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini",
}


def _example(name: str) -> str | None:
    entry = EXAMPLES.get(name)
    if entry is None:
        return None
    return resources.files("webapp").joinpath("examples", entry[1]).read_text(encoding="utf-8")


def _fields() -> dict[str, Any]:
    """The form as the page keeps it: every field is sent back so nothing pasted is lost."""
    try:
        page = int(forms.text("page", "1"))
    except ValueError:
        page = 1
    return {
        "text": forms.text("journal"),
        "source": forms.choice("from", SOURCE_LABELS, "auto"),
        "target": forms.choice("target", TARGET_TITLES, DEFAULT_TARGET),
        "tools": forms.text("tools"),
        "only_blocking": forms.flag("only_blocking"),
        "complete_statusless": forms.flag("complete_statusless"),
        "page": page,
    }


def _check(fields: dict[str, Any]) -> tuple[JournalPage, forms.Upload | None]:
    """Check the uploaded ``file`` (it wins) or the pasted text; returns the check and the upload."""
    upload = forms.upload()
    check = build(
        upload.data if upload else forms.source("journal"),
        source=fields["source"],
        tools=forms.source("tools"),
        only_blocking=fields["only_blocking"],
        page=fields["page"],
        complete_statusless=fields["complete_statusless"],
        max_depth=parse_limits().max_depth,
        target=fields["target"],
    )
    return check, upload


def _render(
    check: JournalPage | None,
    fields: dict[str, Any],
    upload: forms.Upload | None = None,
    answer: Export | None = None,
) -> str:
    """The partial (htmx) or the full page. An upload in a full page (a form without JavaScript: the new page's
    file input is empty) comes back as the journal field's text, so paging and the export send it again; with
    JavaScript the file is read into the field before sending (static/app.js) or, not UTF-8, stays chosen.
    ``answer``: an export that offers no body, whose reason the page shows."""
    partial = is_partial()
    undecodable = forms.undecodable("journal") if upload is None else None  # the text box shows U+FFFD there
    if upload is not None and not partial:
        fields = {**fields, "text": upload.text()}
        undecodable = upload.undecodable()  # the text box's text is not the file: the note beside it says so
    return render_template(
        "journal/_result.html" if partial else "journal/page.html",
        check=check,
        upload=upload.name if upload else None,
        upload_echoed=not partial,
        examples=EXAMPLES,
        sources=SOURCE_LABELS,
        targets=TARGET_TITLES,
        undecodable=undecodable,
        no_body=_no_body(answer if answer is not None or check is None else check.answer),
        **fields,
    )


def _no_body(answer: Export | None) -> str | None:
    """Why the gate offers no body for the target (the export's reason), or ``None`` when it offers one."""
    return answer.reason if answer is not None and answer.body is None else None


@bp.get("/journal")
def page() -> str:
    """The empty form, or an example (``?example=anthropic``) filled in and checked."""
    fields = {
        "text": "",
        "source": "auto",
        "target": DEFAULT_TARGET,
        "tools": "",
        "only_blocking": False,
        "complete_statusless": False,
        "page": 1,
    }
    text = _example(forms.text("example"))
    if text is None:
        return _render(None, fields)
    fields["text"] = text
    return _render(build(text, max_depth=parse_limits().max_depth), fields)


@bp.post("/journal")
def check() -> str:
    """Check the posted journal; unreadable input is shown as content (200), the form keeps everything."""
    fields = _fields()
    result, upload = _check(fields)
    return _render(result, fields, upload)


@bp.post("/journal/export")
def export() -> Response | tuple[str, int]:
    """What goes to the target, from the gate's one plan: its kept items as ``replayable.jsonl`` (Open Responses JSON
    Lines), (``format=body``) the body the target accepts as ``<target>-body.json``, or (``format=patch``) what the
    plan changed as an RFC 6902 JSON Patch from the journal's items to the items sent, ``<target>-repair.json`` (as
    ``POST /api/export`` gives it in ``patch``). An unreadable journal or unreadable tools, or a journal the gate
    offers no body for (its reason shown), get the page (400), never a file."""
    fields = _fields()
    result, upload = _check(fields)
    answer = result.body()
    if answer is None or answer.body is None:
        return _render(result, fields, upload, answer), 400
    chosen = forms.choice("format", ("jsonl", "body", "patch"), "jsonl")
    if chosen == "patch":
        return Response(
            json.dumps(answer.patch, ensure_ascii=False, indent=2) + "\n",
            mimetype="application/json-patch+json",
            headers={"Content-Disposition": f'attachment; filename="{result.target}-repair.json"'},
        )
    if chosen == "body":
        return Response(
            answer.text(),
            mimetype="application/json",
            headers={"Content-Disposition": f'attachment; filename="{result.target}-body.json"'},
        )
    return Response(
        result.jsonl(answer),
        mimetype="application/jsonl",
        headers={"Content-Disposition": 'attachment; filename="replayable.jsonl"'},
    )
