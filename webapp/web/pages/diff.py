"""JSON Diff page (step 3): the item from the source provider (left) against the one about to be replayed (right).

``GET /diff`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES`); ``POST /diff`` answers the
result (the htmx request gets the ``diff/_result.html`` partial, a plain POST the full page); ``POST /diff/patch``
answers the RFC 6902 JSON Patch as a download. Form fields (the team's agreed names): ``left``, ``right``,
``ignore_order``, ``match_key``, ``ignore_paths``, ``hide_unchanged``. With only ``left`` posted (carried from
step 1) the page opens with it filled in.

Routes and form fields only: the page's model and logic are :mod:`webapp.core.pages.diff`.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, render_template

from webapp.core import examples
from webapp.core.json import BIG_TEXT, paused_gc
from webapp.core.pages.diff import PageOptions, build, patch_download
from webapp.web import forms
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits

bp = Blueprint("diff", __name__)

#: name -> (title, left, right), offered on the page and used by the tests.
EXAMPLES = examples.DIFF


def _form_options() -> PageOptions:
    """The diff options as the form sent them (query string on GET), kept to refill the form."""
    return PageOptions(
        ignore_order=forms.flag("ignore_order"),
        match_key=forms.text("match_key").strip(),
        ignore_paths=forms.text("ignore_paths"),
        hide_unchanged=forms.flag("hide_unchanged"),
        schema=forms.text("schema"),
        as_items=forms.flag("as_items"),
    )


def _render(left_text: str | bytes, right_text: str | bytes | None, options: PageOptions, *, status: int = 200) -> Any:
    """Compare (when both sides are there) and render the partial or the full page."""
    # Big documents: the garbage collector stays paused until their values are freed (they hold no cycles), so it
    # never walks them; resumed earlier, it would walk them all once the page is computed.
    with paused_gc(len(left_text) + len(right_text or "") > BIG_TEXT):
        return _page_html(left_text, right_text, options), status


def _page_html(left_text: str | bytes, right_text: str | bytes | None, options: PageOptions) -> str:
    page = build(left_text, right_text, options, **parse_limits().parse_options)
    template = "diff/_result.html" if is_partial() else "diff/page.html"
    return render_template(template, examples=EXAMPLES, **vars(page))


@bp.get("/diff")
def page() -> Any:
    """The empty form, or an example (``?example=namespaced``) filled in."""
    example = EXAMPLES.get(forms.text("example"))
    if example is None:
        return _render("", None, _form_options())
    _, left, right = example
    return _render(
        json.dumps(left, indent=2, ensure_ascii=False), json.dumps(right, indent=2, ensure_ascii=False), _form_options()
    )


@bp.post("/diff")
def compare() -> Any:
    """Compare ``left`` and ``right``; invalid JSON on a side is shown (200) with both texts kept."""
    return _render(forms.source("left"), forms.source("right", None), _form_options())


@bp.post("/diff/patch")
def patch() -> Any:
    """The RFC 6902 JSON Patch from ``left`` to ``right`` as a download (``application/json-patch+json``).

    When a side is not valid JSON (or ``right`` is missing) the page with the error panel is answered, status 400.
    """
    left, right = forms.source("left"), forms.source("right", None)
    options = _form_options()
    body = None if right is None else patch_download(left, right, options, **parse_limits().parse_options)
    if body is None:
        return _render(left, right if right is not None else "", options, status=400)
    return Response(
        body,
        mimetype="application/json-patch+json",
        headers={"Content-Disposition": 'attachment; filename="diff.patch.json"'},
    )
