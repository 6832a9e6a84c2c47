"""The stream step (``/stream``): lint a recorded Open Responses stream, and check a server against the spec.

``GET /stream`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES` and lints it).
``POST /stream`` answers the lint (htmx: ``stream/_result.html``; a plain POST: the full page).
``POST /stream/check`` runs the endpoint check (:func:`webapp.check_endpoint.check_endpoint`) against the server the
form names and answers ``stream/_check.html`` (htmx) or the full page; only loopback and ``ALLOWED_TARGETS`` may
be reached, and the key is used for that check only: never kept, logged, or written into the answer.

Form fields: ``stream`` (text) or upload ``file`` (it wins), ``kind`` (``auto`` or a kind of recording); for the
check ``url``, ``key``, ``model``, ``timeout``. The models are :mod:`webapp.core.pages.stream`; this module is
routes and form fields only.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from flask import Blueprint, current_app, render_template

from webapp.check_endpoint import check_endpoint
from webapp.core.conformance import TargetRefused
from webapp.core.pages import stream as model
from webapp.core.responses.testmodel import MODEL_NAME
from webapp.core.stream import KINDS
from webapp.web import forms
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits

bp = Blueprint("stream", __name__)

#: name -> (title, file under webapp/examples): streams the built-in endpoint sent, as they were recorded.
EXAMPLES: dict[str, tuple[str, str]] = {
    "call": ("a streamed function call (SSE)", "streams/function-call.sse"),
    "websocket": ("two WebSocket turns", "streams/websocket-turns.jsonl"),
}
KIND_LABELS = {"auto": "detect", **KINDS}
#: Seconds each case of the endpoint check may take, as the form offers them.
TIMEOUTS = ("10", "30", "60", "120")


def _example(name: str | None) -> str | None:
    entry = EXAMPLES.get(name or "")
    if entry is None:
        return None
    return resources.files("webapp").joinpath("examples", entry[1]).read_text(encoding="utf-8")


def _render(page: model.StreamPage | None, *, check: model.CheckView | None = None, **fields: Any) -> Any:
    context = {
        "page": page,
        "check": check,
        "text": page.text if page else fields.get("text", ""),
        "kind": page.kind if page else fields.get("kind", "auto"),
        "kinds": KIND_LABELS,
        "examples": EXAMPLES,
        "timeouts": TIMEOUTS,
        "url": check.url if check else fields.get("url", ""),
        "model_name": check.model if check else fields.get("model", MODEL_NAME),
        "timeout": fields.get("timeout", "60"),
        "upload": fields.get("upload"),
        "undecodable": fields.get("undecodable"),
        "rule_of": model.rule_of,
    }
    if is_partial():
        return render_template("stream/_check.html" if check is not None else "stream/_result.html", **context)
    return render_template("stream/page.html", **context)


@bp.get("/stream")
def page() -> Any:
    """The empty form, or an example (``?example=call``) filled in and linted."""
    text = _example(forms.text("example"))
    if text is None:
        return _render(None)
    return _render(model.build(text, max_depth=parse_limits().max_depth))


@bp.post("/stream")
def lint() -> Any:
    """Lint the pasted ``stream`` or the uploaded ``file``; an unreadable recording is shown (200), text kept."""
    upload = forms.upload()
    kind = forms.choice("kind", KIND_LABELS, "auto")
    built = model.build(upload.data if upload else forms.source("stream"), kind, max_depth=parse_limits().max_depth)
    fields: dict[str, Any] = {"undecodable": forms.undecodable("stream")}
    if upload is not None:
        fields = {"upload": upload.name, "undecodable": upload.undecodable()}
        if not is_partial():
            built.text = upload.text()  # the text box holds the file, so the page can be sent again
    return _render(built, **fields)


@bp.post("/stream/check")
def check() -> Any:
    """Run the endpoint check against ``url`` with ``key``; a URL that may not be reached is said so (200)."""
    url = forms.text("url").strip()
    model_name = forms.text("model").strip() or MODEL_NAME
    timeout = forms.choice("timeout", TIMEOUTS, "60")
    key = forms.text("key")
    allowed = current_app.config.get("ALLOWED_TARGETS") or ()
    if not url or not key:
        view = model.check_view(url, model_name, error="give the server's base URL and its key")
        return _render(None, check=view, timeout=timeout)
    try:
        report = check_endpoint(url, key, model=model_name, allowed=allowed, timeout=float(timeout))
    except TargetRefused as err:
        return _render(None, check=model.check_view(url, model_name, error=err.message), timeout=timeout)
    return _render(None, check=model.check_view(url, model_name, report), timeout=timeout)
