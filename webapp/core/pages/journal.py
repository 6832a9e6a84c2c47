"""The journal step's model: a whole conversation from any provider, gated, paired, and what goes to the target.

:func:`build` reads the text once (:func:`webapp.core.journal.read_text`), takes its shape and source from the
converters (:func:`webapp.core.convert.convert_text`), judges it once for the target
(:func:`webapp.core.export.export`: every item and the pairing rules, the gate's plan, the body written and read
back), and builds what the ``/journal`` page shows: a summary, one row per item (paged, optionally only what
blocks), the findings linked to their items, every note of the export (:attr:`JournalPage.notes`, as ``POST
/api/export`` gives them), and **what goes to the target**: the gate's plan for it (:attr:`JournalPage.plan`,
:func:`webapp.core.gate.targets.plan`), with what was left out or repaired and why. Both downloads come from that one
plan (the body offered is the body judged): the plan's kept items as Open Responses JSON Lines
(:meth:`JournalPage.jsonl`), and the body the target's API takes (:meth:`JournalPage.body`). The rows' items as
written and the places in the pasted text come from that one reading, not from parsing the text again.

Status-less calls whose output follows them are the ones their client vouched for
(:func:`webapp.core.gate.vouched_calls`): the page says so, and ``complete_statusless=True`` sends them as
``completed`` (a repair of the plan's, ``status_completed``); the table keeps the article's verdict.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webapp.core.convert import Conversion, ConvertError, as_journal, convert_text, placed, tools_from
from webapp.core.export import Export, ExportNote, export
from webapp.core.gate import DEFAULT_TARGET, TARGET_TITLES, Finding, JournalReport, ReplayPlan, vouched_calls
from webapp.core.gate.report import SEVERITIES
from webapp.core.journal import JournalError, JournalText, read_text
from webapp.core.journal.tools import read_definitions
from webapp.core.json import DEFAULT_MAX_DEPTH, Position, displayable, in_string
from webapp.core.json import pointer as jp

_RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}

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


@dataclass
class JournalPage:
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
    plan: ReplayPlan | None = None  # what goes to the target (status-less calls completed when chosen)
    answer: Export | None = None  # the export for the target: its body (or why none), its notes; plan and report
    complete_statusless: bool = False  # the user's choice: vouched status-less calls go as completed
    tools_origin: str = "none"  # "pasted", "journal" or "none"
    tools: list[dict] | None = None
    texts: dict[int, str] = field(default_factory=dict)  # this page's items as written in the source text
    target: str = DEFAULT_TARGET  # where the conversation is replayed: the verdict is about this target

    def item_text(self, index: int) -> str:
        """Item ``index`` as written in the pasted text (numbers, escapes and member order kept) when it came
        from it unchanged, else the converted item as indented JSON: what "open in 1/2/3" carries."""
        text = self.texts.get(index)
        if text is not None:
            return text
        assert self.conversion is not None  # rows, and so their items, exist only once the journal was converted
        return json.dumps(self.conversion.items[index], indent=2, ensure_ascii=False)

    def tool(self, name: Any) -> dict | None:
        """The function tool definition called ``name`` (flat Open Responses shape), or ``None``."""
        return next((t for t in self.tools or () if t.get("name") == name), None) if isinstance(name, str) else None

    @property
    def tools_error(self) -> str | None:
        """The tools problem as one sentence (``tools, line 2, column 20: …``), or ``None``."""
        return self.tools_problem.message if self.tools_problem is not None else None

    @property
    def exportable(self) -> bool:
        """Whether what goes to the target may be downloaded: the journal and the pasted tools were both read. With
        unreadable tools the page checks the journal without them, but a plan judged without the tools asked for
        is no answer to download (the export answers the page's error instead)."""
        return self.plan is not None and self.tools_problem is None

    @property
    def replayable(self) -> bool | None:
        """The journal's answer: ``True``, ``False`` (also when it could not be read) or ``None`` (cannot tell:
        calls not checked, no tool definitions given)."""
        return self.report.replayable if self.report is not None else False

    @property
    def target_title(self) -> str:
        """The target's title for the page (the gate's ``TARGET_TITLES``)."""
        return TARGET_TITLES[self.target]

    def body(self) -> Export | None:
        """What goes to the target (:func:`webapp.core.export.export`: the gate's plan for the target, then its
        writer, the body read back and judged): its ``body`` (``None`` with a ``reason`` when the gate offers none)
        and its ``report.plan``; ``None`` when the journal or the pasted tools could not be read. Made once, by
        :func:`build`: the page's verdict is its report."""
        return self.answer if self.exportable else None

    @property
    def notes(self) -> list[tuple[str, list[ExportNote]]]:
        """Every note of the export (what the body could not hold, the settings not carried), grouped by code in
        order of first appearance: ``[(code, [note, …]), …]``. The same notes ``POST /api/export`` gives."""
        grouped: dict[str, list[ExportNote]] = {}
        for note in self.answer.notes if self.answer is not None else ():
            grouped.setdefault(note.code, []).append(note)
        return list(grouped.items())

    @staticmethod
    def jsonl(answer: Export) -> str:
        """The items an export's plan sends (kept, repaired) as Open Responses JSON Lines, one item per line
        (``arguments`` strings as they were). A lone surrogate (legal in a JSON string, not encodable as UTF-8) is
        written as its ``\\uXXXX`` escape: the same string, in a text that can be sent."""
        plan = answer.report.plan if answer.report is not None else None
        items = plan.kept if plan is not None else []
        return "".join(displayable(json.dumps(item, ensure_ascii=False)) + "\n" for item in items)


def build(
    text: str | bytes,
    *,
    source: str = "auto",
    tools: str | bytes = "",
    only_blocking: bool = False,
    page: int = 1,
    page_size: int = PAGE_SIZE,
    complete_statusless: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
    target: str = DEFAULT_TARGET,
) -> JournalPage:
    """Convert, gate and summarise a conversation for the page.

    :param text: the journal as JSON or JSON Lines text, of any source; bytes (an upload, a field that is not
        UTF-8) are read as UTF-8, a byte that is not UTF-8 the error, named with its place.
    :param source: ``"auto"`` or one of :data:`webapp.core.convert.SOURCES`.
    :param tools: pasted tool definitions (any provider's shape); blank: the journal's own tools, if any.
    :param only_blocking: the table lists only rows that stop the replay.
    :param page: 1-based page of the table (clamped to the pages there are).
    :param complete_statusless: send status-less calls whose output follows them as ``completed`` (the plan
        repairs their status; the table keeps the article's verdict).
    :param target: where the conversation is replayed (one of the gate's ``TARGETS``; another value is read as
        the default, ``portable``): the verdict, the rows' dispositions and the body are about it.
    :return: a :class:`JournalPage`; unreadable input sets ``error`` (line:column or pointer named), never raises.
    """
    check = JournalPage(
        target=target if target in TARGET_TITLES else DEFAULT_TARGET, complete_statusless=complete_statusless
    )
    given, check.tools_problem = read_definitions(tools)  # as pasted: the export says what it does with each
    try:
        read = read_text(text, max_depth=max_depth)  # the one parse of the text
        conversion = convert_text(read, source)  # its shape and its source, found once
    except JournalError as error:
        check.error = ConvertError.from_journal(error)
        return check
    except ConvertError as error:
        check.error = error
        return check
    check.conversion = conversion
    tool_list = given if given is not None else conversion.tools
    check.tools_origin = "pasted" if given is not None else "journal" if conversion.tools is not None else "none"
    check.tools = tools_from(given) if given is not None else conversion.tools  # function tools, by name
    # One judgement for the page and its downloads: the export's (the gate's plan, the body written, read back).
    check.answer = export(as_journal(conversion), target=check.target, tools=tool_list, source=conversion.source)
    assert check.answer.report is not None  # export() always judges
    check.report = check.answer.report
    check.types = Counter(item.get("type") if isinstance(item, dict) else None for item in conversion.items)
    check.labels = Counter(verdict.label for verdict in check.report.items)
    ranked = sorted(check.report.findings, key=lambda f: _RANK[f.severity])  # what decides the answer first
    check.findings = [(f, placed(f, conversion)) for f in ranked[:FINDINGS_SHOWN]]
    check.finding_count = len(check.report.findings)
    check.statusless = vouched_calls(conversion.items)
    verdicts = check.report.items
    shown = [v for v in verdicts if _blocks(v)] if only_blocking else verdicts
    check.matching = len(shown)
    check.pages = max(1, -(-len(shown) // page_size))
    check.page = min(max(page, 1), check.pages)
    start = (check.page - 1) * page_size
    as_pasted = _Pasted(read, conversion, placeable=isinstance(text, str))  # an upload's places are not the field's
    check.rows = _rows(conversion, check.report, shown[start : start + page_size], as_pasted.place)  # this page only
    check.texts = as_pasted.as_written([row.index for row in check.rows])
    check.plan = check.report.plan
    if complete_statusless and check.statusless:  # judged again with the choice: arguments and schema still decide
        check.answer = export(
            as_journal(conversion),
            target=check.target,
            tools=tool_list,
            source=conversion.source,
            complete_statusless=True,
        )
        assert check.answer.report is not None  # export() always judges
        check.plan = check.answer.report.plan
    return check


def _same(raw: str, item: Any) -> bool:
    try:
        return json.loads(raw) == item
    except ValueError:
        return False


def _blocks(verdict: Any) -> bool:
    """Does this item stop the replay: the gate's own answer does, or an error finding names it that the plan does
    not repair (a repaired item is sent)."""
    return verdict.blocks_replay or (bool(verdict.refused_by) and not verdict.repaired)


class _Pasted:
    """The pasted text of an Open Responses journal as it was read (:class:`webapp.core.journal.JournalText`): its
    items as written, and places in it. Other sources (converted items) have no text to point into."""

    def __init__(self, read: JournalText, conversion: Conversion, *, placeable: bool) -> None:
        self.conversion = conversion
        self.read = read if conversion.source in ("open_responses", "openai") else None
        self.placeable = placeable

    def as_written(self, indices: list[int]) -> dict[int, str]:
        """The source text of each item in ``indices`` that the text holds unchanged: its JSON Lines line, or the
        slice of the JSON document at its origin (up to :data:`AS_WRITTEN_LIMIT` characters)."""
        conversion, read = self.conversion, self.read
        if read is None or not indices:
            return {}
        found: dict[int, str] = {}
        if read.records is not None:
            for index in indices:
                record = conversion.origins[index][1:]
                if record.isdigit() and int(record) < len(read.records):
                    found[index] = read.records[int(record)].document.text.strip()
        elif read.document is not None and len(read.document.text) <= AS_WRITTEN_LIMIT:
            for index in indices:
                raw = read.document.raw(conversion.origins[index])
                if raw is not None:
                    found[index] = raw
        # Only what the conversion left as it was: an item it changed is carried as converted.
        return {index: raw for index, raw in found.items() if _same(raw, conversion.items[index])}

    def place(self, index: int, item: Any, verdict: Any) -> Position | None:
        """Where item ``index``'s ``arguments_parse`` error (placed in the ``arguments`` string's own text) is in
        the pasted text, (line, column); ``None`` without such an error or a text to point into."""
        error = verdict.verdict.parse_error if verdict.verdict is not None else None
        conversion, read = self.conversion, self.read
        if (
            error is None
            or not error.line
            or read is None
            or not self.placeable
            or not isinstance(item.get("arguments"), str)
            or index >= len(conversion.origins)
        ):
            return None
        origin = conversion.origins[index]
        try:
            if read.records is not None:  # JSON Lines: the record's own text, its pointer without the record's index
                record = read.records[int(jp.split(origin)[0])]
                return in_string(
                    record.document,
                    jp.child(jp.join(jp.split(origin)[1:]), "arguments"),
                    item["arguments"],
                    error.line,
                    error.column,
                    first_line=record.line,
                )
            if read.document is None:  # a text read once holds records or a document
                return None
            return in_string(read.document, jp.child(origin, "arguments"), item["arguments"], error.line, error.column)
        except (ValueError, IndexError):  # the text is not as converted: no place
            return None


def _rows(
    conversion: Conversion,
    report: JournalReport,
    verdicts: Sequence[Any],
    places: Callable[[int, Any, Any], Position | None] | None = None,
) -> list[Row]:
    wanted = {v.index for v in verdicts}
    named: dict[int, list[str]] = {}
    for finding in report.findings:
        if finding.index is not None and finding.index in wanted:
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


__all__ = ["PAGE_SIZE", "JournalPage", "Row", "build"]
