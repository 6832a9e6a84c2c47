"""JSON Diff page (step 3): the item from the source provider (left) against the one about to be replayed (right).

``GET /diff`` shows the form (``?example=<name>`` fills it with one of :data:`EXAMPLES`); ``POST /diff`` answers the
result (the htmx request gets the ``diff/_result.html`` partial, a plain POST the full page); ``POST /diff/patch``
answers the RFC 6902 JSON Patch as a download. Form fields (the team's agreed names): ``left``, ``right``,
``ignore_order``, ``match_key``, ``ignore_paths``, ``hide_unchanged``. With only ``left`` posted (carried from
step 1) the page opens with it filled in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, render_template, request

from webapp.core import diff as jdiff
from webapp.core.diff import EXAMPLES
from webapp.web.htmx import is_partial
from webapp.web.limits import parse_limits
from webapp.core.json.text import Document, JSONTextError, JSONWarning, displayable, parse

bp = Blueprint("diff", __name__)

MAX_CHANGES = 200          # change rows rendered; the rest are counted (the JSON Patch has everything)
MAX_VALUE_CHARS = 20_000   # characters of one value rendered in a row
SIDE_BY_SIDE_CHARS = 300_000  # both texts at most this long: the side-by-side view and line:column per change
SIDE_BY_SIDE_LINES = 4_000
INLINE_PATCH_CHARS = 100_000  # the patch is shown inline up to this size; the download always has it all


@dataclass
class Side:
    """One input as the page shows it: the text kept as pasted, the parsed document or the error."""

    name: str
    text: str
    document: Document | None = None
    error: JSONTextError | None = None

    @property
    def warnings(self) -> list[JSONWarning]:
        return self.document.warnings if self.document else []


@dataclass
class Row:
    """One change as rendered: texts are plain strings, escaped by the template."""

    kind: str
    left: str | None
    right: str | None
    left_at: tuple[int, int] | None
    right_at: tuple[int, int] | None
    old: str | None
    new: str | None
    hunks: tuple[str, str, str, str] | None = None
    inner: list[Row] = field(default_factory=list)
    raw: tuple[str, str] | None = None
    note: str = ""
    types: tuple[str | None, str | None] = (None, None)


def _form_options() -> dict[str, Any]:
    """The diff options as the form sent them (query string on GET), kept to refill the form."""
    form = request.form if request.method == "POST" else request.args
    return {
        "ignore_order": form.get("ignore_order") in ("on", "1", "true"),
        "match_key": form.get("match_key", "").strip(),
        "ignore_paths": form.get("ignore_paths", ""),
        "hide_unchanged": form.get("hide_unchanged") in ("on", "1", "true"),
    }


def _parse_side(name: str, text: str) -> Side:
    """Parse one side with the shared strict layer (depth and size caps from the app config)."""
    side = Side(name, text)
    try:
        side.document = parse(text, **parse_limits().parse_options)
    except JSONTextError as err:
        side.error = err
    return side


def _value_text(value: Any) -> str:
    if value is jdiff.ABSENT:
        return ""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if len(text) > MAX_VALUE_CHARS:
        text = (text[:MAX_VALUE_CHARS] + f"\n… ({len(text) - MAX_VALUE_CHARS:,} more characters: "
                "download the JSON Patch for the whole value)")
    return text


def _rows(changes: list[jdiff.Change], left: Side | None, right: Side | None) -> list[Row]:
    rows = []
    for change in changes:
        old, new = _value_text(change.old), _value_text(change.new)
        row = Row(change.kind, change.left, change.right,
                  left.document.position(change.left) if left and change.left is not None else None,
                  right.document.position(change.right) if right and change.right is not None else None,
                  old if change.old is not jdiff.ABSENT else None, new if change.new is not jdiff.ABSENT else None,
                  note=change.note, types=(change.old_type, change.new_type))
        if change.inner:
            row.inner = _rows(list(change.inner), None, None)
            row.raw = (change.old, change.new)
            row.old = row.new = None
        elif change.kind == "changed" and isinstance(change.old, str) and isinstance(change.new, str) \
                and len(old) <= MAX_VALUE_CHARS and len(new) <= MAX_VALUE_CHARS:
            row.hunks = jdiff.string_hunks(old, new)
        rows.append(row)
    return rows


def _render(left_text: str, right_text: str | None, options: dict[str, Any], *, status: int = 200) -> Any:
    """Compare (when both sides are there) and render the partial or the full page."""
    context: dict[str, Any] = {"left": left_text, "right": right_text or "", "options": options,
                               "examples": EXAMPLES, "sides": [], "result": None, "option_error": None,
                               "need_right": right_text is None and bool(left_text)}
    if right_text is not None:
        sides = [_parse_side("left", left_text), _parse_side("right", right_text)]
        context["sides"] = sides
        if all(side.document for side in sides):
            context.update(_compare(sides[0], sides[1], options))
    template = "diff/_result.html" if is_partial() else "diff/page.html"
    return render_template(template, **context), status


def _diff(left: Side, right: Side, options: dict[str, Any]) -> jdiff.DiffResult:
    """:raises jdiff.DiffError: for an unusable option."""
    assert left.document is not None and right.document is not None
    diff_options = jdiff.DiffOptions(ignore_order=options["ignore_order"], match_key=options["match_key"] or None,
                                     ignore_paths=jdiff.parse_ignore_paths(options["ignore_paths"]))
    return jdiff.diff(left.document.value, right.document.value, diff_options)


def _compare(left: Side, right: Side, options: dict[str, Any]) -> dict[str, Any]:
    assert left.document is not None and right.document is not None
    try:
        result = _diff(left, right, options)
    except jdiff.DiffError as err:
        return {"option_error": err}
    small = len(left.text) <= SIDE_BY_SIDE_CHARS and len(right.text) <= SIDE_BY_SIDE_CHARS
    shown = result.changes[:MAX_CHANGES]
    patch_text = json.dumps(result.patch, indent=2, ensure_ascii=False)
    context: dict[str, Any] = {
        "result": result,
        "rows": _rows(shown, left if small else None, right if small else None),
        "more_changes": len(result.changes) - len(shown),
        "patch_text": patch_text if len(patch_text) <= INLINE_PATCH_CHARS else None,
        "sides_view": None,
        "side_limit": SIDE_BY_SIDE_CHARS,
    }
    if small:
        context["sides_view"] = jdiff.side_by_side(left.document.value, right.document.value, result,
                                                   hide_unchanged=options["hide_unchanged"],
                                                   limit=SIDE_BY_SIDE_LINES)
    return context


@bp.get("/diff")
def page() -> Any:
    """The empty form, or an example (``?example=namespaced``) filled in."""
    example = EXAMPLES.get(request.args.get("example", ""))
    if example is None:
        return _render("", None, _form_options())
    _, left, right = example
    return _render(json.dumps(left, indent=2, ensure_ascii=False), json.dumps(right, indent=2, ensure_ascii=False),
                   _form_options())


@bp.post("/diff")
def compare() -> Any:
    """Compare ``left`` and ``right``; invalid JSON on a side is shown (200) with both texts kept."""
    return _render(request.form.get("left", ""), request.form.get("right"), _form_options())


@bp.post("/diff/patch")
def patch() -> Any:
    """The RFC 6902 JSON Patch from ``left`` to ``right`` as a download (``application/json-patch+json``).

    When a side is not valid JSON (or ``right`` is missing) the page with the error panel is answered, status 400.
    """
    left, right = request.form.get("left", ""), request.form.get("right")
    options = _form_options()
    if right is not None:
        sides = [_parse_side("left", left), _parse_side("right", right)]
        if all(side.document for side in sides):
            try:
                result = _diff(sides[0], sides[1], options)
            except jdiff.DiffError:
                pass  # the page below names the option
            else:
                # A lone surrogate cannot be sent as UTF-8; as its \\uXXXX escape it is the same JSON string.
                body = displayable(json.dumps(result.patch, indent=2, ensure_ascii=False)) + "\n"
                return Response(body, mimetype="application/json-patch+json",
                                headers={"Content-Disposition": 'attachment; filename="diff.patch.json"'})
    return _render(left, right if right is not None else "", options, status=400)
