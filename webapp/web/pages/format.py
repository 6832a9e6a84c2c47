"""JSON Format page (step 1): paste or upload an item, a journal or any JSON; pretty-print, minify, sort keys;
see the item's type badge, what ``arguments`` holds and the gate's verdict; browse a lazy tree.

``GET /format`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES` and formats it);
``POST /format`` answers the result (htmx: the ``format/_result.html`` partial; a plain POST: the full page).
``POST /format/download`` answers the whole formatted text as a file (the page shows at most
:data:`webapp.core.pages.format.OUTPUT_SHOWN` characters of it). ``POST /format/tree`` answers one tree node's
children (``format/_tree.html``): the tree is lazy, the document is sent again with the pointer, nothing is stored.
Form fields: ``document`` (a byte that is not UTF-8 is named as an upload's is), ``indent`` (``2``/``4``/``tab``),
``action`` (``pretty``/``minify``/``sort``), upload ``file`` (it wins). With JavaScript a chosen file is read into
the textarea in the browser (``static/app.js``) and sent as ``document``, so the answer is no bigger than a paste's;
a file that is sent (a form without JavaScript, or a file that is not UTF-8) comes back as the textarea's text, so
nothing is lost and the page can be sent again (the full page holds it; the htmx answer swaps it in out of band).
Invalid JSON is content: 200 with the error panel and the text kept. A body over ``MAX_CONTENT_LENGTH`` is answered
413 with the limit named.

Routes and form fields only: the page's model and logic are :mod:`webapp.core.pages.format`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template
from werkzeug.exceptions import RequestEntityTooLarge

from webapp.core import examples
from webapp.core.format import ACTIONS, INDENTS
from webapp.core.pages import format as model
from webapp.core.tree import TREE_NODE_LIMIT
from webapp.web import forms
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits

bp = Blueprint("format", __name__)

#: name -> (title, document text): the replay-gate article's items and the usual ways ``arguments`` goes wrong.
EXAMPLES = examples.FORMAT


def _settings() -> dict[str, Any]:
    return parse_limits().parse_options


def _render(
    outcome: model.FormatPage | None,
    *,
    upload: bool = False,
    status: int = 200,
    limit_error: str | None = None,
    uploaded: forms.Upload | None = None,
) -> Any:
    """The page or its partial; ``uploaded``: the file the text box now holds, named by the note beside it when
    that text is not the file (not UTF-8); without one, the note says so of a pasted ``document`` that was not."""
    context = {
        "outcome": outcome,
        "text": outcome.text if outcome else "",
        "action": outcome.action if outcome else "pretty",
        "indent": outcome.indent if outcome else "2",
        "examples": EXAMPLES,
        "tree_limit": TREE_NODE_LIMIT,
        "upload": upload,  # an htmx answer to a file sent: the textarea is refreshed out of band with its text
        "limit_error": limit_error,
        "upload_name": uploaded.name if uploaded else None,
        "undecodable": (uploaded.undecodable() if uploaded else forms.undecodable("document")) if outcome else None,
    }
    template = "format/_result.html" if is_partial() else "format/page.html"
    return render_template(template, **context), status


@bp.get("/format")
def page() -> Any:
    """The empty form, or an example (``?example=fc_001``) filled in and formatted."""
    example = EXAMPLES.get(forms.text("example"))
    if example is None:
        return _render(None)
    return _render(
        model.build(
            example[1],
            action=forms.choice("action", ACTIONS, "pretty"),
            indent=forms.choice("indent", INDENTS, "2"),
            preview=model.OUTPUT_SHOWN,
            **_settings(),
        )
    )


def _submitted(preview: int | None, as_bytes: bool = False) -> tuple[model.FormatPage, forms.Upload | None]:
    """Format what the form sent: the uploaded ``file`` (it wins; bytes, decoded as UTF-8, BOM dropped) or the
    pasted ``document``. Returns the outcome and the upload it came from (``None``: the pasted text)."""
    upload = forms.upload()
    source = upload.data if upload else forms.source("document")
    outcome = model.build(
        source,
        action=forms.choice("action", ACTIONS, "pretty"),
        indent=forms.choice("indent", INDENTS, "2"),
        preview=preview,
        as_bytes=as_bytes,
        **_settings(),
    )
    return outcome, upload


@bp.post("/format")
def format_document() -> Any:
    """Format the pasted ``document`` or the uploaded ``file``; invalid JSON is shown (200) with the text kept."""
    outcome, upload = _submitted(model.OUTPUT_SHOWN)
    return _render(outcome, upload=upload is not None and is_partial(), uploaded=upload)


@bp.post("/format/download")
def download() -> Any:
    """The whole formatted text as a file (``formatted.json``; JSON Lines: ``formatted.jsonl`` minified,
    ``formatted.txt`` pretty-printed).

    When the input is not valid JSON the page with the error panel is answered instead, status 400.
    """
    outcome, upload = _submitted(None, as_bytes=True)
    if not outcome.ok:
        return _render(outcome, status=400, uploaded=upload)
    file = model.download_file(outcome)
    return Response(
        file.body, mimetype=file.mimetype, headers={"Content-Disposition": f'attachment; filename="{file.name}"'}
    )


@bp.post("/format/tree")
def tree() -> Any:
    """Children of one tree node: ``document`` (sent again), ``pointer``, ``start``, ``digest`` (of the formatted
    text, so a document edited since is noticed)."""
    start_text = forms.text("start")
    start = int(start_text) if start_text.isascii() and start_text.isdigit() and len(start_text) < 10 else 0
    answer = model.expand(
        forms.text("document"),
        forms.text("pointer"),
        start=start,
        digest=forms.text("digest", None),
        max_depth=_settings()["max_depth"],
    )
    return render_template(
        "format/_tree.html", node=answer.node, problem=answer.problem, start=answer.start, digest=answer.digest
    )


@bp.errorhandler(RequestEntityTooLarge)
def too_large(error: RequestEntityTooLarge) -> Any:
    """A body over ``MAX_CONTENT_LENGTH``: the page with the limit named (413; format.js lets htmx show it)."""
    limit = parse_limits().max_bytes or 0
    return _render(None, status=413, limit_error=model.too_large_message(limit))
