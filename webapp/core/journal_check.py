"""The journal step's model: a whole conversation from any provider, gated, paired, and its replayable subset.

:func:`check_conversation` converts the text (:mod:`webapp.core.convert`), gates every item and the pairing rules
(:func:`webapp.core.gate.check_journal`), and builds what the ``/journal`` page shows: a summary, one row per item
(paged, optionally only what blocks), the findings linked to their items, and the **replayable subset** —
what may go to the next provider (:func:`replayable_subset`), with what was left out and why.

Clients that omit ``status`` on calls they replay (the Vercel AI SDK, LangChain after ``stream``) write journals
whose calls the gate refuses (``status``: the replay-gate article's rule, kept). The page says so, and
``complete_statusless=True`` is the user's explicit choice to export such a call as ``completed`` when its
``function_call_output`` follows it in the journal (the client vouched that it ran it: the gate's one rule,
:func:`webapp.core.gate.vouched_calls`, the one ``/v1/responses`` applies on input).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.convert import (
    Conversion,
    ConvertError,
    as_journal,
    convert_text,
    is_tool_definition,
    placed,
    tools_from,
)
from webapp.core.gate import Finding, JournalReport, check_journal, vouch, vouched_calls
from webapp.core.items import is_namespaced
from webapp.core.json import DEFAULT_MAX_DEPTH, Document, JSONTextError, Position, displayable, in_string, parse
from webapp.core.json import pointer as jp

#: Rows per page of the item table: a 100,000-item journal is shown a page at a time.
PAGE_SIZE = 100
#: Findings listed on the page (each names its item); the count says how many there are in all.
FINDINGS_SHOWN = 500
#: JSON (not JSON Lines) texts up to this many characters are read again for the rows shown, so "open in 1/2/3"
#: carries each item as written (``1.10`` stays ``1.10``); a bigger document's rows carry the parsed item.
AS_WRITTEN_LIMIT = 4_000_000


@dataclass(frozen=True)
class Row:
    """One item's line in the table.

    :ivar index: position in the converted conversation; :ivar where: its place in the source (``line 4``,
        ``messages[2].tool_calls[0]``); :ivar reason: the gate's reason; :ivar label: the reason, or ``refused``
        when a finding stops an item the gate passes; :ivar blocks: this item stops the replay.
    :ivar message_at: where the ``arguments`` string's parse error (``arguments_parse``) is in the pasted text,
        when the journal is Open Responses items as written (other sources' arguments were converted).
    """

    index: int
    where: str
    type: str | None
    call_id: str | None
    name: str | None
    status: Any
    reason: str
    label: str
    message: str
    errors: tuple[tuple[str, str], ...]  # (instance pointer, message)
    findings: tuple[str, ...]
    ok: bool
    blocks: bool
    message_at: Position | None = None  # an arguments_parse error's place in the pasted text (Open Responses)


@dataclass(frozen=True)
class LeftOut:
    """An item the replayable subset leaves out. :ivar why: one sentence; :ivar code: a stable word for it."""

    index: int
    where: str
    code: str
    why: str


@dataclass
class Subset:
    """The replayable subset: the items to export, in order, and what was left out."""

    items: list[dict] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    completed: list[int] = field(default_factory=list)  # status-less calls exported as completed (by choice)

    def jsonl(self) -> str:
        """The items as Open Responses JSON Lines (one item per line; ``arguments`` strings as they were). A lone
        surrogate (legal in a JSON string, not encodable as UTF-8) is written as its ``\\uXXXX`` escape: the same
        string, in a text that can be sent."""
        return "".join(displayable(json.dumps(item, ensure_ascii=False)) + "\n" for item in self.items)


@dataclass
class JournalCheck:
    """What the page shows. ``error`` is set (and the rest empty) when the input cannot be read."""

    error: ConvertError | None = None
    tools_problem: ConvertError | None = None  # the pasted tools cannot be read (place named)
    conversion: Conversion | None = None
    report: JournalReport | None = None
    rows: list[Row] = field(default_factory=list)  # this page's rows
    matching: int = 0  # rows after the filter
    page: int = 1
    pages: int = 1
    types: Counter = field(default_factory=Counter)
    labels: Counter = field(default_factory=Counter)
    findings: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, its message with places)
    finding_count: int = 0
    statusless: list[int] = field(default_factory=list)
    subset: Subset | None = None
    tools_origin: str = "none"  # "pasted", "journal" or "none"
    tools: list[dict] | None = None
    texts: dict[int, str] = field(default_factory=dict)  # this page's items as written in the source text

    def item_text(self, index: int) -> str:
        """Item ``index`` as written in the pasted text (numbers, escapes and member order kept) when it came
        from it unchanged, else the converted item as indented JSON: what "open in 1/2/3" carries."""
        text = self.texts.get(index)
        return text if text is not None else json.dumps(self.conversion.items[index], indent=2, ensure_ascii=False)

    def tool(self, name: Any) -> dict | None:
        """The function tool definition called ``name`` (flat Open Responses shape), or ``None``."""
        return next((t for t in self.tools or () if t.get("name") == name), None) if isinstance(name, str) else None

    @property
    def tools_error(self) -> str | None:
        """The tools problem as one sentence (``tools, line 2, column 20: …``), or ``None``."""
        return self.tools_problem.message if self.tools_problem is not None else None

    @property
    def replayable(self) -> bool:
        return self.report is not None and self.report.replayable


def read_tools(text: str) -> tuple[list[dict] | None, ConvertError | None]:
    """Tool definitions pasted in any provider's shape (a list, one definition, or a request holding ``tools``).

    :return: ``(tools, None)`` as flat Open Responses function tools, ``(None, None)`` for blank text, or
        ``(None, error)``: a :class:`ConvertError` whose message names line:column (with ``line``, ``column``,
        ``detail`` and the caret ``excerpt`` set) or the pointer of the problem.
    """
    if not text.strip():
        return None, None
    try:
        value = parse(text).value
    except JSONTextError as error:
        return None, ConvertError(
            f"tools, line {error.line}, column {error.column}: {error.message}",
            line=error.line,
            column=error.column,
            detail=error.message,
            excerpt=error.excerpt,
        )
    if is_tool_definition(value):
        value = [value]  # one definition, as the Schema page takes it (a field for tools holds no call)
    try:
        return tools_from(value), None
    except ConvertError as error:
        return None, ConvertError(f"tools{error.pointer}: {error.message}", error.pointer)


def tools_text(text: str) -> tuple[list[dict] | None, str | None]:
    """:func:`read_tools` with the problem as one sentence: ``(tools, None)``, ``(None, None)`` or
    ``(None, message)``."""
    tools, error = read_tools(text)
    return tools, error.message if error is not None else None


def check_conversation(
    text: str | bytes,
    *,
    source: str = "auto",
    tools: str = "",
    only_blocking: bool = False,
    page: int = 1,
    page_size: int = PAGE_SIZE,
    complete_statusless: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> JournalCheck:
    """Convert, gate and summarise a conversation for the page.

    :param text: the journal as JSON or JSON Lines text, of any source.
    :param source: ``"auto"`` or one of :data:`webapp.core.convert.SOURCES`.
    :param tools: pasted tool definitions (any provider's shape); blank: the journal's own tools, if any.
    :param only_blocking: the table lists only rows that stop the replay.
    :param page: 1-based page of the table (clamped to the pages there are).
    :param complete_statusless: export status-less calls whose output follows them as ``completed``.
    :return: a :class:`JournalCheck`; unreadable input sets ``error`` (line:column or pointer named), never raises.
    """
    check = JournalCheck()
    pasted, check.tools_problem = read_tools(tools)
    try:
        conversion = convert_text(text, source, max_depth=max_depth)
    except ConvertError as error:
        check.error = error
        return check
    check.conversion = conversion
    tool_list = pasted if pasted is not None else conversion.tools
    check.tools_origin = "pasted" if pasted is not None else "journal" if conversion.tools is not None else "none"
    check.tools = tool_list
    check.report = gate(conversion, tool_list)
    check.types = Counter(item.get("type") if isinstance(item, dict) else None for item in conversion.items)
    check.labels = Counter(verdict.label for verdict in check.report.items)
    check.findings = [(f, placed(f, conversion)) for f in check.report.findings[:FINDINGS_SHOWN]]
    check.finding_count = len(check.report.findings)
    check.statusless = statusless_calls(conversion.items)
    verdicts = check.report.items
    shown = [v for v in verdicts if _blocks(v)] if only_blocking else verdicts
    check.matching = len(shown)
    check.pages = max(1, -(-len(shown) // page_size))
    check.page = min(max(page, 1), check.pages)
    start = (check.page - 1) * page_size
    pasted = _Pasted(text, conversion, max_depth)
    check.rows = _rows(conversion, check.report, shown[start : start + page_size], pasted.place)  # this page only
    check.texts = pasted.as_written([row.index for row in check.rows])
    check.subset = replayable_subset(conversion, check.report, tool_list, complete_statusless=complete_statusless)
    return check


def _same(raw: str, item: Any) -> bool:
    try:
        return json.loads(raw) == item
    except ValueError:
        return False


def gate(conversion: Conversion, tools: list[dict] | None) -> JournalReport:
    """The gate over a conversion (with the duplicate member names its Open Responses text had)."""
    return check_journal(as_journal(conversion), tools)


def statusless_calls(items: list[Any]) -> list[int]:
    """Indexes of ``function_call`` items with no (or a null) ``status`` whose ``function_call_output`` comes after
    them: the calls their client vouched for (:func:`webapp.core.gate.vouched_calls`, the gate's one rule)."""
    return vouched_calls(items)


def _blocks(verdict: Any) -> bool:
    """Does this item stop the replay: the gate's own answer does, or an error finding names it."""
    return verdict.blocks_replay or bool(verdict.refused_by)


class _Pasted:
    """The pasted text of an Open Responses journal (its items as written), read again only as far as the page's
    rows need it: a JSON Lines record alone, else the whole document once. Other sources (converted items) have
    no text to point into."""

    def __init__(self, text: str | bytes, conversion: Conversion, max_depth: int) -> None:
        self.conversion = conversion
        self.max_depth = max_depth
        self.placeable = isinstance(text, str)  # an upload's bytes: its places are not the field's
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = None
        self.text = text.removeprefix("\ufeff") if text is not None and conversion.source == "open_responses" else None
        self._rows: list[str] | None = None
        self._document: Document | None = None

    def _row(self, line: int) -> str:
        self._rows = self._rows if self._rows is not None else self.text.split("\n")
        return self._rows[line - 1]

    def _whole(self) -> Document:
        if self._document is None:
            self._document = parse(self.text, max_depth=self.max_depth, warn=False)  # places, no warnings
        return self._document

    def as_written(self, indices: list[int]) -> dict[int, str]:
        """The source text of each item in ``indices`` that the text holds unchanged: its JSON Lines line, or the
        slice of the JSON document at its origin (up to :data:`AS_WRITTEN_LIMIT` characters)."""
        conversion = self.conversion
        if self.text is None or not indices:
            return {}
        found: dict[int, str] = {}
        if conversion.lines:
            for index in indices:
                record = conversion.origins[index][1:]
                if record.isdigit() and int(record) < len(conversion.lines):
                    found[index] = self._row(conversion.lines[int(record)]).strip()
        elif len(self.text) <= AS_WRITTEN_LIMIT:
            try:
                document = self._whole()
            except JSONTextError:
                return {}
            for index in indices:
                raw = document.raw(conversion.origins[index])
                if raw is not None:
                    found[index] = raw
        # Only what the conversion left as it was: an item it changed is carried as converted.
        return {index: raw for index, raw in found.items() if _same(raw, conversion.items[index])}

    def place(self, index: int, item: Any, verdict: Any) -> Position | None:
        """Where item ``index``'s ``arguments_parse`` error (placed in the ``arguments`` string's own text) is in
        the pasted text, (line, column); ``None`` without such an error or a text to point into."""
        error = verdict.verdict.parse_error if verdict.verdict is not None else None
        conversion = self.conversion
        if (
            error is None
            or not error.line
            or self.text is None
            or not self.placeable
            or not isinstance(item.get("arguments"), str)
            or index >= len(conversion.origins)
        ):
            return None
        origin = conversion.origins[index]
        try:
            if conversion.lines:  # JSON Lines: the record's own line, its pointer without the record's index
                line = conversion.lines[int(jp.split(origin)[0])]
                document = parse(self._row(line), max_depth=self.max_depth)
                return in_string(
                    document,
                    jp.child(jp.join(jp.split(origin)[1:]), "arguments"),
                    item["arguments"],
                    error.line,
                    error.column,
                    first_line=line,
                )
            return in_string(self._whole(), jp.child(origin, "arguments"), item["arguments"], error.line, error.column)
        except (JSONTextError, ValueError, IndexError):  # the text is not as converted: no place
            return None


def _rows(
    conversion: Conversion,
    report: JournalReport,
    verdicts: list[Any],
    places: Callable[[int, Any, Any], Position | None] | None = None,
) -> list[Row]:
    wanted = {v.index for v in verdicts}
    named: dict[int, list[str]] = {}
    for finding in report.findings:
        if finding.index in wanted:
            named.setdefault(finding.index, []).append(finding.code)
    rows = []
    for verdict in verdicts:
        item = conversion.items[verdict.index]
        rows.append(
            Row(
                verdict.index,
                conversion.where(verdict.index),
                verdict.type,
                verdict.call_id,
                verdict.name,
                item.get("status") if isinstance(item, dict) else None,
                verdict.reason,
                verdict.label,
                verdict.message,
                tuple((e.pointer, e.message) for e in verdict.errors),
                tuple(named.get(verdict.index, ())),
                verdict.ok,
                _blocks(verdict),
                places(verdict.index, item, verdict) if places is not None and isinstance(item, dict) else None,
            )
        )
    return rows


def replayable_subset(
    conversion: Conversion, report: JournalReport, tools: list[dict] | None = None, *, complete_statusless: bool = False
) -> Subset:
    """What of the conversation may go to the next provider, and what is left out, with why.

    Kept: messages, the calls the gate passes (``ok``) and their outputs, reasoning without provider-sealed
    content. Left out: namespaced items (provider extensions), calls the gate refuses and their outputs, outputs
    that answer no kept call, items an error finding names (``duplicate_member``…), provider-sealed reasoning
    (``encrypted_content``), ``item_reference`` and ``compaction`` items (they point into one provider's storage).

    :param complete_statusless: first mark each status-less call whose output follows it ``completed``
        (:func:`statusless_calls`; the explicit choice the page offers), then gate again: such a call is kept only
        if the gate then passes it (its arguments and schema still decide).
    """
    subset = Subset()
    items = conversion.items
    if complete_statusless:
        subset.completed = statusless_calls(items)
        if subset.completed:
            items = vouch(items, subset.completed)
            report = gate(
                Conversion(
                    conversion.source,
                    conversion.shape,
                    items,
                    conversion.origins,
                    conversion.tools,
                    conversion.tool_choice,
                    duplicates=conversion.duplicates,
                ),
                tools,
            )
    kept_calls: set[str] = set()
    for verdict in report.items:
        item = items[verdict.index]
        why = _left_out(item, verdict, kept_calls)
        if why is not None:
            subset.left_out.append(LeftOut(verdict.index, conversion.where(verdict.index), *why))
            continue
        if verdict.type == "function_call":
            kept_calls.add(item["call_id"])
        subset.items.append(item)
    return subset


def _left_out(item: Any, verdict: Any, kept_calls: set[str]) -> tuple[str, str] | None:
    """``(code, why)`` when the item stays out of the replayable subset, else ``None``."""
    kind = verdict.type
    if verdict.refused_by:
        return "refused", f"an error finding names it ({', '.join(verdict.refused_by)})"
    if kind is None or is_namespaced(kind) or verdict.reason == "namespaced":
        return "namespaced", f"{json.dumps(kind)} is a provider extension (namespaced): never replayable elsewhere"
    if kind == "function_call":
        if not verdict.ok:
            return verdict.reason, f"the gate refuses this call ({verdict.reason}): {verdict.message}"
        return None
    if kind == "function_call_output":
        if item.get("call_id") not in kept_calls:
            return "unanswerable", (
                "its call is not in the subset (refused, unfinished or missing): an output "
                "without its call is refused by the next provider"
            )
        return None
    if kind == "reasoning" and item.get("encrypted_content") is not None:
        return "sealed", "reasoning with encrypted_content is sealed by the provider that wrote it"
    if kind in ("item_reference", "compaction"):
        return "provider_bound", f"a {kind} item points into one provider's storage"
    return None


__all__ = [
    "PAGE_SIZE",
    "JournalCheck",
    "Row",
    "LeftOut",
    "Subset",
    "check_conversation",
    "gate",
    "replayable_subset",
    "statusless_calls",
    "read_tools",
    "tools_text",
]
