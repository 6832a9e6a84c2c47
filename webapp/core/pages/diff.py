"""The JSON Diff page's model (step 3), pure: the two pasted texts read, compared and laid out for the page.

:func:`build` answers a :class:`DiffPage`: each side kept as pasted with its parse error or warnings, the
:class:`webapp.core.diff.DiffResult` (changes, replay blockers, JSON Patch), the change rows as rendered (values as
JSON text, capped; changed strings split into hunks; line:column of each change for small texts) and both documents
side by side with the changed lines marked (:func:`webapp.core.diff.side_by_side`). :func:`patch_download` answers
the JSON Patch as a file's text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core import gate
from webapp.core.convert import Conversion, ConvertError, as_journal, convert_text
from webapp.core.diff import (
    ABSENT,
    Change,
    DiffError,
    DiffOptions,
    DiffResult,
    SideLine,
    diff,
    parse_ignore_paths,
    side_by_side,
    string_hunks,
)
from webapp.core.gate import (
    DEFAULT_TARGET,
    REPLAYABLE,
    TARGET_TITLES,
    is_refusal,
    item_label,
    read_schema_field,
)
from webapp.core.gate import label_without_schema as gate_label
from webapp.core.inspection import locate_items
from webapp.core.items import looks_like_item, tool_shape
from webapp.core.journal import Journal, JournalError, from_value, one_item
from webapp.core.json import (
    BIG_TEXT,
    DEFAULT_MAX_DEPTH,
    Document,
    JSONTextError,
    JSONWarning,
    Position,
    decode_utf8,
    displayable,
    in_string,
    parse,
    parse_lines,
    paused_gc,
    quote,
    shown_text,
)
from webapp.core.json import pointer as jp

__all__ = [
    "INLINE_PATCH_CHARS",
    "MAX_CHANGES",
    "MAX_VALUE_CHARS",
    "SIDE_BY_SIDE_CHARS",
    "SIDE_BY_SIDE_LINES",
    "DiffPage",
    "PageOptions",
    "Refusal",
    "Row",
    "Side",
    "SideVerdict",
    "build",
    "patch_download",
]

MAX_CHANGES = 200  # change rows rendered; the rest are counted (the JSON Patch has everything)
MAX_VALUE_CHARS = 20_000  # characters of one value rendered in a row
SIDE_BY_SIDE_CHARS = 300_000  # both texts at most this long: the side-by-side view and line:column per change
SIDE_BY_SIDE_LINES = 4_000
INLINE_PATCH_CHARS = 100_000  # the patch is shown inline up to this size; the download always has it all


@dataclass(frozen=True)
class PageOptions:
    """The diff options as the form sent them, kept to refill the form.

    :ivar ignore_order, match_key: see :class:`webapp.core.diff.DiffOptions` (``""``: no match key).
    :ivar ignore_paths: the patterns as typed (one per line or comma-separated).
    :ivar hide_unchanged: the side-by-side view collapses unchanged lines.
    :ivar schema: the optional tool schema (a JSON Schema, a tool definition or a list of tools) for the gate's
        verdict on each side.
    :ivar as_items: compare as Open Responses: each side is first converted from its provider's shape
        (:mod:`webapp.core.convert`: Chat Completions, Anthropic, Gemini), so the same call from two providers
        differs only where it really differs.
    :ivar target: where the right side is replayed (one of the gate's ``TARGETS``): each side's gate verdict is
        about it.
    """

    ignore_order: bool = False
    match_key: str = ""
    ignore_paths: str = ""
    hide_unchanged: bool = False
    schema: str = ""
    as_items: bool = False
    target: str = DEFAULT_TARGET

    @property
    def target_title(self) -> str:
        """The target's title for the page (the gate's ``TARGET_TITLES``)."""
        return TARGET_TITLES.get(self.target, TARGET_TITLES[DEFAULT_TARGET])

    def diff_options(self) -> DiffOptions:
        """The options of :func:`webapp.core.diff.diff`. :raises DiffError: for a malformed ignore pattern."""
        return DiffOptions(
            ignore_order=self.ignore_order,
            match_key=self.match_key or None,
            ignore_paths=parse_ignore_paths(self.ignore_paths),
        )


@dataclass
class Side:
    """One input as the page shows it: ``name`` (``"left"``/``"right"``), the ``text`` kept as pasted, the parsed
    ``document`` or the parse ``error``."""

    name: str
    text: str
    document: Document | None = None
    error: JSONTextError | ConvertError | None = None
    jsonl: bool = False  # the text was JSON Lines: compared as the array of its records
    conversion: Conversion | None = None  # compared as Open Responses: what the side was converted from
    first_line: int | None = None  # JSON Lines: the first record's line, which has the array's ``[`` put before it

    def pasted(self, place: Position | None) -> Position | None:
        """A (line, column) of :attr:`document` as the place in the pasted text: on a JSON Lines side the first
        record's columns are one off, for the ``[`` put before it (:func:`_as_array`)."""
        if place is None or self.first_line is None or place[0] != self.first_line:
            return place
        return place[0], max(1, place[1] - 1)

    def position(self, pointer: str | None) -> Position | None:
        """Where the value at JSON Pointer ``pointer`` starts in the pasted text, (line, column); ``None`` without a
        document or pointer."""
        if self.document is None or pointer is None:
            return None
        return self.pasted(self.document.position(pointer))

    @property
    def warnings(self) -> list[JSONWarning]:
        """The parse warnings (duplicate names, big numbers, ...), with line:column."""
        return self.document.warnings if self.document else []


@dataclass
class Row:
    """One change as rendered: texts are plain strings, escaped by the template.

    :ivar kind: the change's kind; ``left``/``right``: its pointers; ``left_at``/``right_at``: their (line, column)
        in the pasted texts (``None`` for big texts, or inside a JSON string).
    :ivar old, new: the values as JSON text (cut at :data:`MAX_VALUE_CHARS`), ``None`` when absent or shown as
        ``inner`` rows; ``hunks``: for two changed strings, see :func:`webapp.core.diff.string_hunks`.
    :ivar inner: the changes inside a JSON string (``arguments``); ``raw``: then the two raw strings.
    :ivar note: the change's remark; ``types``: the JSON types of the old and new values.
    """

    kind: str
    left: str | None
    right: str | None
    left_at: Position | None
    right_at: Position | None
    old: str | None
    new: str | None
    hunks: tuple[str, str, str, str] | None = None
    inner: list[Row] = field(default_factory=list)
    raw: tuple[str, str] | None = None
    note: str = ""
    types: tuple[str | None, str | None] = (None, None)


@dataclass
class DiffPage:
    """Everything the Diff page shows for one submission (the template's context).

    :ivar left, right: the texts as pasted; ``need_right``: only ``left`` came (carried from step 1).
    :ivar sides: both :class:`Side` once ``right`` came; ``option_error``: an unusable option.
    :ivar result: the diff, once both sides parsed and the options are usable.
    :ivar rows: the first :data:`MAX_CHANGES` changes as :class:`Row`; ``more_changes``: how many more.
    :ivar patch_text: the JSON Patch as text, ``None`` when longer than :data:`INLINE_PATCH_CHARS`.
    :ivar sides_view: :func:`webapp.core.diff.side_by_side` of both documents, ``None`` when a text is longer than
        ``side_limit``.
    :ivar verdicts: the gate's verdict on each side that holds items, one item or a journal (with
        ``options.schema`` when given); ``verdicts_note``: why the schema was not used, if so.
    :ivar respelled: patch operations that only write a number as the right side spells it (``1e2`` → ``100``,
        :attr:`webapp.core.diff.DiffResult.same_numbers`): the same number, no change, kept so the patch is exact.
    :ivar replay_claim: what the page says when no difference blocks the replay (:func:`_replay_claim`).
    :ivar same_numbers: ``(left as written, right as written, pointer)`` of the result's same numbers written
        differently (small texts only).
    """

    left: str
    right: str
    options: PageOptions
    need_right: bool = False
    sides: list[Side] = field(default_factory=list)
    option_error: DiffError | None = None
    result: DiffResult | None = None
    rows: list[Row] = field(default_factory=list)
    more_changes: int = 0
    patch_text: str | None = None
    sides_view: tuple[list[SideLine], list[SideLine], bool] | None = None
    side_limit: int = SIDE_BY_SIDE_CHARS
    same_numbers: list[tuple[str, str, str]] = field(default_factory=list)
    verdicts: list[SideVerdict] = field(default_factory=list)
    verdicts_note: str = ""
    replay_claim: str | None = None
    respelled: int = 0


def build(
    left_text: str | bytes,
    right_text: str | bytes | None,
    options: PageOptions | None = None,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_bytes: int | None = None,
) -> DiffPage:
    """Read both texts and compare them (when both are there and parse) into a :class:`DiffPage`.

    :param right_text: ``None`` when only the left side was sent (the page then asks for the right one).
        Either text may be bytes (a form field that is not UTF-8): that side's error names its first such byte at
        its line:column, and the page keeps the text with U+FFFD there (:func:`webapp.core.json.shown_text`).
    :param max_depth, max_bytes: the limits of :func:`webapp.core.json.parse` for each text.
    :return: the page; never raises for bad input (parse errors, a bad option are in it).
    """
    options = options or PageOptions()
    page = DiffPage(
        shown_text(left_text),
        shown_text(right_text or ""),
        options,
        need_right=right_text is None and bool(left_text),
        side_limit=SIDE_BY_SIDE_CHARS,
    )
    if right_text is None:
        return page
    # Both documents' values stay alive while they are compared: the collector would rescan them again and again.
    with paused_gc(len(left_text) + len(right_text) > BIG_TEXT):
        _compare(page, left_text, right_text, max_depth, max_bytes)
    return page


def _compare(
    page: DiffPage, left_text: str | bytes, right_text: str | bytes, max_depth: int, max_bytes: int | None
) -> None:
    """Fill ``page`` (both texts there): the sides read, then, when both parse and the options are usable, the
    result, the rows, the patch text and the side-by-side view."""
    options = page.options
    page.sides = [
        _read_side("left", left_text, max_depth, max_bytes, options.as_items),
        _read_side("right", right_text, max_depth, max_bytes, options.as_items),
    ]
    left, right = page.sides
    if left.document is None or right.document is None:
        return
    try:
        result = diff(left.document.value, right.document.value, options.diff_options())
    except DiffError as err:
        page.option_error = err
        return
    small = len(left.text) <= SIDE_BY_SIDE_CHARS and len(right.text) <= SIDE_BY_SIDE_CHARS
    # positions name places in the pasted texts: a converted side's places are in its conversion
    placed = small and left.conversion is None and right.conversion is None
    page.verdicts, page.verdicts_note = _verdicts(left, right, options.schema, max_depth, placed, options.target)
    page.replay_claim = _replay_claim(result, page.verdicts)
    same = {right for _, right in result.same_numbers}
    page.respelled = sum(1 for op in result.patch if op["op"] == "replace" and op["path"] in same)
    shown = result.changes[:MAX_CHANGES]
    patch_text = json.dumps(result.patch, indent=2, ensure_ascii=False)
    page.result = result
    page.rows = _rows(shown, left if placed else None, right if placed else None)
    page.more_changes = len(result.changes) - len(shown)
    page.patch_text = patch_text if len(patch_text) <= INLINE_PATCH_CHARS else None
    if small:
        page.sides_view = side_by_side(
            left.document.value,
            right.document.value,
            result,
            hide_unchanged=options.hide_unchanged,
            limit=SIDE_BY_SIDE_LINES,
            left_written=left.document.raw,
            right_written=right.document.raw,
        )
        page.same_numbers = [
            (_written(left.document, lp, 0, "?"), _written(right.document, rp, 0, "?"), rp)
            for lp, rp in result.same_numbers[:MAX_CHANGES]
        ]


def patch_download(
    left_text: str | bytes,
    right_text: str | bytes,
    options: PageOptions | None = None,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_bytes: int | None = None,
) -> str | None:
    """The RFC 6902 JSON Patch from ``left_text`` to ``right_text`` as a file's text (2-space JSON, a final
    newline; a lone surrogate written as its ``\\uXXXX`` escape, the same JSON string, since it cannot be sent as
    UTF-8), or ``None`` when a side is not JSON or an option is unusable (:func:`build` says which).
    """
    as_items = options is not None and options.as_items
    with paused_gc(len(left_text) + len(right_text) > BIG_TEXT):
        left = _read_side("left", left_text, max_depth, max_bytes, as_items)
        right = _read_side("right", right_text, max_depth, max_bytes, as_items)
        if left.document is None or right.document is None:
            return None
        try:
            result = diff(left.document.value, right.document.value, (options or PageOptions()).diff_options())
        except DiffError:
            return None
    return displayable(json.dumps(result.patch, indent=2, ensure_ascii=False)) + "\n"


@dataclass(frozen=True)
class Refusal:
    """An item of a journal side the gate refuses, or a journal finding, as a line of that side's verdict.

    :ivar code: the gate's reason (``arguments_parse``, ``refused``…) or the finding's code (``duplicate_call_id``).
    :ivar message: one sentence; ``pointer``: the item's RFC 6901 pointer in the side's document (``None`` for a
        finding about no item); ``at``: its (line, column) in the pasted text, when placed (small, not converted).
    :ivar severity: ``"error"`` or ``"warning"`` (findings only; refused items are errors).
    """

    code: str
    message: str
    pointer: str | None = None
    at: Position | None = None
    severity: str = "error"


@dataclass(frozen=True)
class SideVerdict:
    """The gate's verdict on what one side holds, as the page shows it.

    :ivar side: ``"left"``/``"right"``; ``shape``: ``item`` (one item) or the journal's shape (``array``,
        ``response``, ``request``; JSON Lines are ``array``), see :func:`webapp.core.inspection.locate_items`.
    :ivar label: the badge: for one item the gate's reason (:data:`webapp.core.gate.NOT_CHECKED` without a
        schema); for a journal its answer: ``replayable``, ``cannot tell`` (calls not checked: no tools given) or
        ``not replayable``. ``ok``: the gate lets it be replayed; ``message``: one sentence (for a journal, the
        counts of the items' reasons).
    :ivar refusals: for a journal, the items the gate refuses and the journal's findings (pairing:
        ``duplicate_call_id``, ``orphan_output``…), each linked to its item (an ``arguments_parse`` to the place
        in the ``arguments`` string).
    :ivar at: one item's ``arguments_parse`` error in the pasted text (placed sides only).
    """

    side: str
    label: str
    ok: bool
    message: str
    shape: str = "item"
    refusals: tuple[Refusal, ...] = ()
    items: int = 1
    at: Position | None = None

    @property
    def is_journal(self) -> bool:
        """The side holds a journal (any number of items), not one item."""
        return self.shape != "item"

    @property
    def refused(self) -> bool:
        """The gate refuses it for more than a schema not yet given (the replay must not go on)."""
        return is_refusal(self.label)  # not_function_call is none: nothing to run


def _schema_text(schema_text: str, max_depth: int) -> tuple[Any, str]:
    """The optional schema field parsed: (a JSON Schema, a tool definition or a list of tools, or ``None``; a note
    saying why it is not used, if so)."""
    if not schema_text.strip():
        return None, "no tool schema given: the gate stops before the schema check"
    try:
        value = parse(schema_text, max_depth=max_depth).value
    except JSONTextError as err:
        return None, f"the tool schema is not JSON (line {err.line}, column {err.column}): not used"
    if not isinstance(value, (dict, bool, list)):
        return None, "the tool schema is not an object: not used"
    return value, ""


def _tool_schema(value: Any, name: Any) -> tuple[dict | bool | None, str]:
    """The schema the gate uses for a call to ``name`` from the schema field's ``value`` (:func:`_schema_text`):
    a JSON Schema, a tool definition (its ``parameters``, for a call of its name, as the Schema page reads it) or
    a list of tools (the one named). Returns (schema or None, a note)."""
    schema, tools = read_schema_field(value)
    if tools is None:
        return schema, ""
    if isinstance(value, list):
        found = gate.tool_schema(tools, name)
        return found, "" if found is not None else f"none of the {len(tools)} tools given is named {quote(name)}"
    shape = tool_shape(value)
    if shape is not None and shape.name is not None and shape.name != name:
        return None, f"the tool given is named {quote(shape.name)}, not {quote(name)}: no schema for this call"
    return gate.parameters_of(value), ""  # a tool definition of its name (or of none): its parameters


def _holds_items(value: Any) -> tuple[str, str, list[Any]] | None:
    """Where a side's document holds items (:func:`webapp.core.inspection.locate_items`), else ``None``. One
    object counts as an item when its ``type`` is one the spec defines or a namespaced one, or it is a message
    without a type (``role``): ``{"a": 1}`` or a JSON Schema (``"type": "object"``) is no item to gate."""
    located = locate_items(value)
    if located is None or located[0] != "item":
        return located
    return located if looks_like_item(value) or (value.get("type") is None and "role" in value) else None


def _verdicts(
    left: Side, right: Side, schema_text: str, max_depth: int, placed: bool, target: str = DEFAULT_TARGET
) -> tuple[list[SideVerdict], str]:
    """The gate's verdict on each side that holds items (one item, or a journal: its items and pairing findings),
    with the schema field's schema or tools when given; sides that hold none get no verdict. The two journals are
    mostly the same calls: the right side reuses the left side's call verdicts (one :class:`gate.VerdictMemo`)."""
    schema_value, note = _schema_text(schema_text, max_depth)
    out, notes = [], {note} if note else set()
    memo = gate.VerdictMemo()
    for side in (left, right):
        located = _holds_items(side.document.value) if side.document else None
        if located is None:
            continue
        shape, base, items = located
        if shape == "item":
            item = items[0]
            name = item.get("name") if isinstance(item.get("name"), str) else None
            schema, missing = _tool_schema(schema_value, name)
            if missing:
                notes.add(missing)
            line, findings = gate.check_one(
                _item_read(side) or item, schema, tool_name=name, max_depth=max_depth, target=target
            )
            stops = [f for f in findings if f.severity == "error"]
            if stops:  # a member name given twice, no call_id or name: refused whatever its value's verdict
                first = stops[0]
                at = side.pasted((first.line, first.column)) if placed and first.line and first.column else None
                out.append(
                    SideVerdict(
                        side.name, first.code, False, "; ".join(f.describe(gate.the_item) for f in stops), at=at
                    )
                )
                continue
            verdict = line.verdict
            assert verdict is not None  # gate.item_line, the one maker of these lines, sets it
            label = gate_label(verdict) if schema_value is None else verdict.reason  # a schema field has its say
            at = _arguments_at(side.document if placed else None, "", item, verdict)
            out.append(SideVerdict(side.name, label, verdict.ok, verdict.message, at=at))
        else:
            out.append(
                _journal_verdict(
                    side.name,
                    shape,
                    base,
                    _side_journal(side, items),
                    schema_value,
                    side if placed else None,
                    max_depth,
                    memo,
                    target,
                )
            )
    return out, "; ".join(sorted(notes))


def _arguments_at(document: Document | None, where: str, item: Any, verdict: gate.Verdict | None) -> Position | None:
    """Where the gate's ``arguments_parse`` error (placed in the ``arguments`` string's own text) is in the pasted
    text, for the item at pointer ``where`` of ``document``; ``None`` without a document or such an error."""
    error = verdict.parse_error if verdict is not None else None
    if document is None or error is None or not error.line or not isinstance(item.get("arguments"), str):
        return None
    return in_string(document, jp.child(where, "arguments"), item["arguments"], error.line, error.column)


def _replay_claim(result: DiffResult, verdicts: list[SideVerdict]) -> str | None:
    """``"clear"``: no difference blocks the replay and the gate does not refuse the right side; ``"refused"``: no
    difference blocks it (or there is none) but the gate refuses the right side; ``None`` (no claim): blockers, no
    changes and nothing refused, or not two sides of the same kind (one item each, or a journal each), so type,
    call_id, name and status were not compared item to item."""
    if result.blockers or len(verdicts) != 2 or verdicts[0].is_journal != verdicts[1].is_journal:
        return None
    if verdicts[1].refused:  # the same documents, too: no difference stops it, the gate does
        return "refused"
    return None if result.identical else "clear"


def _item_read(side: Side) -> Journal | None:
    """A side's one item as its text gives it (:func:`webapp.core.journal.one_item`); a converted side's own text
    is not the item's."""
    if side.conversion is not None or side.document is None:
        return None
    return one_item(side.document.value, side.document.warnings)


def _side_journal(side: Side, items: list[Any]) -> Journal:
    """The journal a side holds (``items``, where :func:`_holds_items` found them), as the gate reads it: with the
    tools and ``tool_choice`` it carries and the member names its text gives twice (``duplicate_member``: another
    parser may keep the other value), as on the Journal page. A converted side: its conversion's."""
    if side.conversion is not None:
        return as_journal(side.conversion)
    assert side.document is not None  # _verdicts asks only of a side whose document holds the items
    try:
        journal = from_value(side.document.value, side.document.warnings)
    except JournalError:
        return Journal(items)
    return journal if journal.items is items else Journal(items)


def _journal_verdict(
    side: str,
    shape: str,
    base: str,
    journal: Journal,
    schema_value: Any,
    placed: Side | None,
    max_depth: int,
    memo: gate.VerdictMemo | None = None,
    target: str = DEFAULT_TARGET,
) -> SideVerdict:
    """One journal side through :func:`webapp.core.gate.check_journal`, with the tools of the schema field, else
    the tools the journal carries. Without either (or a schema) the calls are ``not checked`` and the side's answer
    is ``cannot tell`` (no ``unknown_tool`` for every call, as on the Format page). ``placed``: the
    side, when its places in the pasted text are shown; ``memo``: call verdicts shared with the other side."""
    items = journal.items
    schema, tools = read_schema_field(schema_value)
    report = gate.check_journal(journal, tools, schema=schema, max_depth=max_depth, memo=memo, target=target)
    schemaless = tools is None and schema is None and journal.tools is None

    def pointer(index: int) -> str:
        return jp.child(base, index)

    document = placed.document if placed is not None else None

    def pasted(place: Position | None) -> Position | None:
        return placed.pasted(place) if placed is not None else None

    def at(ptr: str | None) -> Position | None:
        return placed.position(ptr) if placed is not None else None

    refusals: list[Refusal] = []
    labels: dict[str, int] = {}
    # Alike items share a verdict (report.verdicts): its label, and whether it is refused, are found once.
    seen: dict[int, tuple[str, bool]] = {}
    refused = report.refused
    for index, verdict in enumerate(report.verdicts):
        known = seen.get(id(verdict))
        if known is None:
            label = gate_label(verdict) if schemaless else verdict.reason
            # a namespaced item, or a call the gate stops
            known = seen[id(verdict)] = label, is_refusal(label)
        label, stopped = known
        if index in refused:
            label = item_label(label, True)
        labels[label] = labels.get(label, 0) + 1
        if stopped:
            where = pointer(index)
            place = pasted(_arguments_at(document, where, items[index], verdict)) or at(where)
            refusals.append(Refusal(label, f"item {index}: {verdict.message}", where, place))
    for finding in report.findings:
        if finding.severity == "notice":
            continue  # what was not checked: the side's answer (cannot tell) and its counts say it
        found_at = pointer(finding.index) if finding.index is not None else None
        place = (
            pasted((finding.line, finding.column))
            if document is not None and finding.line and finding.column
            else at(found_at)
        )
        refusals.append(Refusal(finding.code, finding.describe(), found_at, place, finding.severity))
    label = report.answer  # the journal's answer, in the words every page gives it
    counts = ", ".join(f"{n} {reason}" for reason, n in labels.items())
    message = f"{len(items)} item{'s' if len(items) != 1 else ''}: {counts}" if items else "no items"
    return SideVerdict(side, label, label == REPLAYABLE, message, shape, tuple(refusals), len(items))


def _read_side(name: str, source: str | bytes, max_depth: int, max_bytes: int | None, as_items: bool = False) -> Side:
    """Parse one side with the shared strict layer: JSON, or JSON Lines (compared as the array of its records,
    each record keeping its line; only the first line's columns are one off, for the ``[`` put before it:
    :meth:`Side.pasted` takes it back).
    ``as_items``: converted to Open Responses first; the side is then the converted items (one item alone).
    ``source`` as bytes: read as UTF-8 first, a byte that is not UTF-8 the side's error."""
    text = shown_text(source)
    side = Side(name, text)
    if isinstance(source, bytes):
        try:
            text = decode_utf8(source)[0]
        except JSONTextError as err:
            side.error = err
            return side
    if as_items:
        try:
            side.conversion = convert_text(text, max_depth=max_depth)
        except ConvertError as err:
            side.error = err
            return side
        items = side.conversion.items
        shown = items[0] if len(items) == 1 else items
        side.document = parse(json.dumps(shown, indent=2, ensure_ascii=False), max_depth=max_depth + 2)
        return side
    try:
        side.document = parse(text, max_depth=max_depth, max_bytes=max_bytes)
    except JSONTextError as err:
        if err.code != "extra_data":
            side.error = err
            return side
        try:
            records = parse_lines(text, max_depth=max_depth, max_bytes=max_bytes)
            side.document = parse(_as_array(text, [r.line for r in records]), max_depth=max_depth + 1)
            side.jsonl, side.first_line = True, records[0].line
        except JSONTextError as lines_err:
            side.error = lines_err
    return side


def _as_array(text: str, lines: list[int]) -> str:
    """JSON Lines text as one JSON array with every record on its own line: ``[`` before the first record, a
    comma after each but the last, ``]`` after it."""
    rows = text.split("\n")
    last = lines[-1] - 1
    for number in lines[:-1]:
        rows[number - 1] = rows[number - 1].rstrip("\r") + ","
    rows[lines[0] - 1] = "[" + rows[lines[0] - 1]
    rows[last] = rows[last].rstrip("\r") + "]"
    return "\n".join(rows)


def _value_text(value: Any) -> str:
    if value is ABSENT:
        return ""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if len(text) > MAX_VALUE_CHARS:
        text = (
            text[:MAX_VALUE_CHARS] + f"\n… ({len(text) - MAX_VALUE_CHARS:,} more characters: "
            "download the JSON Patch for the whole value)"
        )
    return text


def _written(document: Document | None, pointer: str | None, value: Any, text: str) -> str:
    """A number as written in the pasted text (``1e2``, not Python's ``100.0``) when its document is at hand."""
    if document is None or pointer is None or value.__class__ not in (int, float):
        return text
    raw = document.raw(pointer)
    return raw if raw is not None else text


def _rows(changes: list[Change], left: Side | None, right: Side | None) -> list[Row]:
    """The rows of ``changes``; with the sides, each change's line:column in their pasted texts and numbers as
    written."""
    rows = []
    for change in changes:
        old = _written(left.document if left else None, change.left, change.old, _value_text(change.old))
        new = _written(right.document if right else None, change.right, change.new, _value_text(change.new))
        row = Row(
            change.kind,
            change.left,
            change.right,
            left.position(change.left) if left else None,
            right.position(change.right) if right else None,
            old if change.old is not ABSENT else None,
            new if change.new is not ABSENT else None,
            note=change.note,
            types=(change.old_type, change.new_type),
        )
        if change.inner:
            row.inner = _rows(list(change.inner), None, None)
            row.raw = (change.old, change.new)
            row.old = row.new = None
        elif (
            change.kind == "changed"
            and isinstance(change.old, str)
            and isinstance(change.new, str)
            and len(old) <= MAX_VALUE_CHARS
            and len(new) <= MAX_VALUE_CHARS
        ):
            row.hunks = string_hunks(old, new)
        rows.append(row)
    return rows
