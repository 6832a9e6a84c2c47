"""JSON Format page (step 1): paste or upload an item, a journal or any JSON; pretty-print, minify, sort keys;
see the item's type badge, what ``arguments`` holds and the gate's verdict; browse a lazy tree.

``GET /format`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES` and formats it);
``POST /format`` answers the result (htmx: the ``format/_result.html`` partial; a plain POST: the full page).
``POST /format/download`` answers the whole formatted text as a file (the page shows at most :data:`OUTPUT_SHOWN`
characters of it). ``POST /format/tree`` answers one tree node's children (``format/_tree.html``): the tree is lazy,
the document is sent again with the pointer, nothing is stored. Form fields (docs/INTERFACES): ``document``, ``indent``
(``2``/``4``/``tab``), ``action`` (``pretty``/``minify``/``sort``), upload ``file``. Invalid JSON is content: 200
with the error panel and the text kept. A body over ``MAX_CONTENT_LENGTH`` is answered 413 with the limit named.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request
from werkzeug.exceptions import RequestEntityTooLarge

from webapp.core import format as fmt
from webapp.web.htmx import is_partial
from webapp.core.json.text import JSONTextError

bp = Blueprint("format", __name__)
# Pointers and names are shown as text; an unpaired surrogate in them (legal in JSON) cannot be sent as UTF-8.

_FC_001 = {"type": "function_call", "id": "fc_001", "name": "get_latest_sales_report", "call_id": "call_123",
           "status": "completed", "arguments": "{\"region\":\"apac\"}"}

#: name -> (title, document text): the replay-gate article's items and the usual ways ``arguments`` goes wrong.
EXAMPLES: dict[str, tuple[str, str]] = {
    "fc_001": ("fc_001 (article)", json.dumps(_FC_001, indent=2)),
    "object-arguments": ("arguments as an object", json.dumps(
        {**_FC_001, "id": "fc_002", "arguments": {"region": "apac"}}, indent=2)),
    "double-encoded": ("double-encoded", json.dumps(
        {**_FC_001, "id": "fc_003", "arguments": json.dumps(_FC_001["arguments"])}, indent=2)),
    "truncated": ("truncated (incomplete)", json.dumps(
        {**_FC_001, "id": "fc_004", "status": "incomplete", "arguments": "{\"region\":\"ap"}, indent=2)),
    "namespaced": ("openai:web_search_call (article)", json.dumps(
        {"type": "openai:web_search_call", "id": "ws_001", "status": "completed",
         "action": {"type": "search", "query": "apac sales report"}}, indent=2)),
    "journal": ("a journal (JSON Lines)", "\n".join(json.dumps(item) for item in [
        {"type": "message", "role": "user", "content": "Latest sales for APAC?"},
        _FC_001,
        {"type": "function_call_output", "call_id": "call_123", "output": "sales report for apac"},
        {"type": "openai:web_search_call", "id": "ws_001", "status": "completed",
         "action": {"type": "search", "query": "apac sales report"}},
    ]) + "\n"),
    "numbers": ("numbers as written", '{"price": 1.10, "n": 1e2, "zero": -0, "id": 9007199254740993,\n'
                ' "big": 123456789012345678901234567890, "huge": 1e400, "name": "a", "name": "b"}'),
}


def _settings() -> dict[str, Any]:
    config = current_app.config
    return {"max_depth": config.get("JSON_MAX_DEPTH", 100), "max_bytes": config.get("MAX_CONTENT_LENGTH")}


def _choice(name: str, allowed: Any, default: str) -> str:
    value = (request.form if request.method == "POST" else request.args).get(name, default)
    return value if value in allowed else default


#: Characters of the formatted text put in the page; "Download" gives all of it. Megabytes of text in one
#: element make the browser slow to lay out and to copy, and the answer big.
OUTPUT_SHOWN = 1_000_000


def _render(outcome: fmt.Outcome | None, *, upload: bool = False, status: int = 200,
            limit_error: str | None = None) -> Any:
    context = {
        "outcome": outcome,
        "text": outcome.text if outcome else "",
        "action": outcome.action if outcome else "pretty",
        "indent": outcome.indent if outcome else "2",
        "examples": EXAMPLES,
        "max_bytes": current_app.config.get("MAX_CONTENT_LENGTH"),
        "tree_limit": fmt.TREE_NODE_LIMIT,
        "upload": upload,  # the textarea is refreshed out of band with the uploaded text
        "limit_error": limit_error,
    }
    template = "format/_result.html" if is_partial() else "format/page.html"
    return render_template(template, **context), status


@bp.get("/format")
def page() -> Any:
    """The empty form, or an example (``?example=fc_001``) filled in and formatted."""
    example = EXAMPLES.get(request.args.get("example", ""))
    if example is None:
        return _render(None)
    return _render(fmt.format_document(example[1], action=_choice("action", fmt.ACTIONS, "pretty"),
                                       indent=_choice("indent", fmt.INDENTS, "2"), preview=OUTPUT_SHOWN,
                                       **_settings()))


def _submitted(preview: int | None, as_bytes: bool = False) -> tuple[fmt.Outcome, bool]:
    """Format what the form sent: the uploaded ``file`` (it wins; bytes, decoded as UTF-8, BOM dropped) or the
    pasted ``document``. Returns the outcome and whether it came from an upload."""
    upload = request.files.get("file")
    source: str | bytes
    if upload is not None and upload.filename:
        source = upload.read()
    else:
        upload = None
        source = request.form.get("document", "")
    outcome = fmt.format_document(source, action=_choice("action", fmt.ACTIONS, "pretty"),
                                  indent=_choice("indent", fmt.INDENTS, "2"), preview=preview,
                                  as_bytes=as_bytes, **_settings())
    return outcome, upload is not None


@bp.post("/format")
def format_document() -> Any:
    """Format the pasted ``document`` or the uploaded ``file``; invalid JSON is shown (200) with the text kept."""
    outcome, upload = _submitted(OUTPUT_SHOWN)
    return _render(outcome, upload=upload and is_partial())


@bp.post("/format/download")
def download() -> Any:
    """The whole formatted text as a file (``formatted.json``; minified JSON Lines: ``formatted.jsonl``).

    When the input is not valid JSON the page with the error panel is answered instead, status 400.
    """
    outcome, _ = _submitted(None, as_bytes=True)
    if not outcome.ok:
        return _render(outcome, status=400)
    lines = outcome.records is not None and outcome.action == "minify"
    name, mimetype = ("formatted.jsonl", "application/jsonl") if lines else ("formatted.json", "application/json")
    body = outcome.data if outcome.data is not None else outcome.output
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.post("/format/tree")
def tree() -> Any:
    """Children of one tree node: ``document`` (sent again), ``pointer``, ``start``, ``digest`` (of the formatted
    text, so a document edited since is noticed)."""
    text = request.form.get("document", "")
    pointer = request.form.get("pointer", "")
    digest = request.form.get("digest")
    start_text = request.form.get("start", "0")
    start = int(start_text) if start_text.isascii() and start_text.isdigit() and len(start_text) < 10 else 0
    context: dict[str, Any] = {"node": None, "problem": None, "start": start}
    if digest is not None and digest != fmt.text_digest(text):
        context["problem"] = "The document changed since it was formatted: format it again to browse it."
    else:
        try:
            node = fmt.subtree(text, pointer, start=start, max_depth=_settings()["max_depth"])
            if node.children is None:  # a scalar (null, a number, a string...): nothing to expand
                context["problem"] = f"{pointer or '(root)'} holds a single value, with no members to show."
            else:
                context["node"] = node
        except JSONTextError as err:
            context["problem"] = f"The document is no longer valid JSON ({err}): format it again."
        except (KeyError, ValueError):
            context["problem"] = f"Nothing at {pointer or '(root)'} in the document now: format it again."
    context["digest"] = fmt.text_digest(text)
    return render_template("format/_tree.html", **context)


@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> Any:
    """A body over ``MAX_CONTENT_LENGTH``: the page with the limit named (413; format.js lets htmx show it)."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    megabytes = f" ({limit / (1 << 20):.3g} MB)" if limit >= 1 << 20 else ""
    message = (f"What you sent is larger than the limit of {limit:,} bytes{megabytes}, so it was not read. Format "
               "a smaller part, or start the app with a larger MAX_CONTENT_LENGTH (FLASK_MAX_CONTENT_LENGTH).")
    return _render(None, status=413, limit_error=message)
