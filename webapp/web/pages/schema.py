"""JSON Schema page (step 2): validate a tool call's parsed ``arguments`` against the tool's JSON Schema (or each
record of a journal in JSON Lines, one result per line).

``GET /schema`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES` and checks it);
``POST /schema`` (fields ``instance``, ``schema``, ``format_assertion``, ``documents``: the referenced schemas,
``target``: where the item is to be replayed)
shows the result: the htmx
request gets the ``schema/_result.html`` partial, a plain POST the full page with both texts kept.

Routes and form fields only: the page's model and logic are :mod:`webapp.core.pages.schema`.
"""

from __future__ import annotations

import json

from flask import Blueprint, render_template

from webapp.core import examples
from webapp.core.gate import DEFAULT_TARGET, TARGET_TITLES
from webapp.core.pages.schema import SchemaPage, build
from webapp.web import forms
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits

bp = Blueprint("schema", __name__)

#: name -> (button label, instance, schema): plain links fill the form, no JavaScript needed.
EXAMPLES = examples.SCHEMA


@bp.get("/schema")
def page() -> str:
    """The empty form, or ``?example=fc_001|fc_009|tool`` filled in and checked (unknown names: empty form)."""
    example = EXAMPLES.get(forms.text("example"))
    if example is None:
        return _render(SchemaPage(), full=True)
    _, instance, schema = example
    return _render(_check(json.dumps(instance, indent=2), json.dumps(schema, indent=2), target=_target()), full=True)


@bp.post("/schema")
def check() -> str:
    """Validate ``instance`` against ``schema``; the htmx request gets the result partial.

    A POST without a ``schema`` field is a carry from step 1 (Format): the full page opens with the
    instance filled in and asks for the schema, whatever the request's headers.
    """
    schema = forms.text("schema", None)
    result = _check(
        forms.source("instance"),
        forms.source("schema"),
        format_assertion=forms.flag("format_assertion"),
        documents_text=forms.source("documents"),
        target=_target(),
    )
    return _render(result, full=schema is None or not is_partial())


def _check(
    instance_text: str | bytes,
    schema_text: str | bytes,
    *,
    format_assertion: bool = False,
    documents_text: str | bytes = "",
    target: str = DEFAULT_TARGET,
) -> SchemaPage:
    """:func:`webapp.core.pages.schema.build` with the app's parse limits (``JSON_MAX_DEPTH``,
    ``MAX_CONTENT_LENGTH``)."""
    return build(
        instance_text,
        schema_text,
        format_assertion=format_assertion,
        documents_text=documents_text,
        target=target,
        **parse_limits().parse_options,
    )


def _target() -> str:
    """The target the form (or the carry from another page) chose; the default when none or an unknown one."""
    return forms.choice("target", TARGET_TITLES, DEFAULT_TARGET)


def _render(check: SchemaPage, *, full: bool) -> str:
    return render_template(
        "schema/page.html" if full else "schema/_result.html", check=check, examples=EXAMPLES, targets=TARGET_TITLES
    )
