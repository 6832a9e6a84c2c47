"""The stream step's model (``/stream``): a recorded stream linted, laid out as a timeline, and what it builds.

:func:`build` reads and lints the pasted recording (:func:`webapp.core.stream.lint_text`) and answers a
:class:`StreamPage`: the findings (each with its event, line:column and JSON Pointer), and per stream a timeline —
the events as rows grouped by item (the response's own events first), the failing ones marked, runs of clean
deltas of one part shown as one row — the gate's verdict on each call, and the response the stream builds with its
items, as the texts the Format and Journal steps are given. :func:`check_view` lays out an endpoint check
(:class:`webapp.core.conformance.EndpointReport`) the same way: each case, its checks, and each stream it received
as a timeline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.conformance import SUITE, CaseResult, EndpointReport, Exchange
from webapp.core.json import DEFAULT_MAX_DEPTH, quote
from webapp.core.stream import (
    KINDS,
    RULE,
    CallVerdict,
    Finding,
    Frame,
    RecordingError,
    StreamReport,
    StreamResult,
    lint_text,
)
from webapp.core.stream import vocabulary as v

__all__ = [
    "ROWS_SHOWN",
    "FINDINGS_SHOWN",
    "PLACES_SHOWN",
    "FindingGroup",
    "CARRY_LIMIT",
    "Row",
    "Group",
    "StreamView",
    "StreamPage",
    "build",
    "view_stream",
    "ExchangeView",
    "CaseView",
    "CheckView",
    "check_view",
    "rule_of",
]

#: Timeline rows shown per stream (a run of clean deltas is one row); rows with findings are shown beyond it.
ROWS_SHOWN = 1500
#: Rows with findings shown beyond :data:`ROWS_SHOWN` (the page says how many rows, and how many failing, it left out).
FINDINGS_SHOWN = 500
#: Places (events) named per group of findings; the group's count says how many there are.
PLACES_SHOWN = 5
#: The most characters of a response (or of its items) carried to the Format (Journal) step.
CARRY_LIMIT = 1_000_000
_SUMMARY = 90  # characters of a row's summary
_DELTAS = frozenset((*v.PART_TEXT_EVENTS, *v.SUMMARY_TEXT_EVENTS, v.FUNCTION_CALL_ARGUMENTS_DELTA))


@dataclass(frozen=True)
class Row:
    """One row of the timeline: one event, or a run of clean deltas of one part.

    :ivar index: :ivar last: the first and last frame (the same for one event); :ivar count: events in the row;
    :ivar line: :ivar column: where the first is in the pasted text; :ivar kind: its type (``[DONE]``, or what a
        frame that is no event is); :ivar sequence: its ``sequence_number``; :ivar summary: a few words of it;
    :ivar findings: what is wrong with it; :ivar sent: a WebSocket message the client sent.
    """

    index: int
    last: int
    count: int
    line: int
    column: int
    kind: str
    sequence: Any
    summary: str
    findings: tuple[Finding, ...] = ()
    sent: bool = False

    @property
    def severity(self) -> str | None:
        """``error`` when a finding of the row is one, else ``warning``, or ``None`` for a clean row."""
        if not self.findings:
            return None
        return "error" if any(f.severity == "error" for f in self.findings) else "warning"


@dataclass
class Group:
    """The rows of one item (``key``: ``item-<n>``) or of the response itself (``response``)."""

    key: str
    title: str
    rows: list[Row] = field(default_factory=list)

    @property
    def failing(self) -> int:
        return sum(1 for row in self.rows if row.findings)


@dataclass
class StreamView:
    """One stream as the page shows it.

    :ivar result: the linted stream; :ivar groups: its timeline; :ivar rows: :ivar shown: rows in all, and shown;
    :ivar hidden_failing: rows with findings left out (past :data:`ROWS_SHOWN` and :data:`FINDINGS_SHOWN` more);
    :ivar response_text: the response it builds, as JSON for the Format step (``None``: none, or too large);
    :ivar items_text: its items as JSON Lines for the Journal step; :ivar carry_note: why they are not offered.
    """

    result: StreamResult
    groups: list[Group]
    rows: int
    shown: int
    findings: int
    hidden_failing: int = 0
    response_text: str | None = None
    items_text: str | None = None
    carry_note: str | None = None

    @property
    def calls(self) -> list[CallVerdict]:
        return self.result.calls


@dataclass
class FindingGroup:
    """The findings of one rule on events of one type (``kind``: the event's type, ``""`` for the recording's own
    findings), in frame order: all of them are counted, the first :data:`PLACES_SHOWN` are named."""

    kind: str
    code: str
    severity: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def events(self) -> int:
        """How many events the group's findings are on."""
        return len({f.index for f in self.findings})

    @property
    def shown(self) -> list[Finding]:
        return self.findings[:PLACES_SHOWN]


def group_findings(report: StreamReport) -> list[FindingGroup]:
    """Every finding of ``report``, grouped by event type and rule, the groups in the order of their first
    finding."""
    groups: dict[tuple[str, str], FindingGroup] = {}
    for finding in report.findings:
        kind = _kind(report.frames[finding.index]) if finding.index is not None else ""
        group = groups.get((kind, finding.code))
        if group is None:
            group = groups[(kind, finding.code)] = FindingGroup(kind, finding.code, finding.severity)
        group.findings.append(finding)
    return list(groups.values())


@dataclass
class StreamPage:
    """Everything the ``/stream`` page shows for one submission.

    :ivar text: the recording as pasted; :ivar kind: the kind asked for (``auto`` or one of :data:`KINDS`);
    :ivar report: the lint's answer (``None`` when the text could not be read); :ivar error: why not;
    :ivar streams: one :class:`StreamView` each; :ivar groups: every finding, grouped by event type and rule
        (:func:`group_findings`); :ivar finding_count: how many findings there are.
    """

    text: str
    kind: str
    report: StreamReport | None = None
    error: RecordingError | None = None
    streams: list[StreamView] = field(default_factory=list)
    groups: list[FindingGroup] = field(default_factory=list)
    finding_count: int = 0

    @property
    def kind_label(self) -> str:
        return KINDS[self.report.kind] if self.report is not None else ""


def _short(text: Any) -> str:
    shown = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    shown = shown.replace("\n", "⏎")
    return shown if len(shown) <= _SUMMARY else shown[: _SUMMARY - 1] + "…"


def _kind(frame: Frame) -> str:
    if frame.done:
        return "[DONE]"
    if frame.parsed:
        return str(frame.value["type"])
    return {"unreadable_event": "(not JSON)", "not_an_event": "(no event)", "frame_without_data": "(no data)"}.get(
        frame.problem[0] if frame.problem else "", "(no event)"
    )


def _summary(frame: Frame) -> str:
    """A few words of an event: the response's status, the item's type and id, the delta's text."""
    if not frame.parsed:
        return frame.problem[1] if frame.problem else ""
    event = frame.value
    kind = event["type"]
    if frame.sent:
        return f"the client's {kind}" + (f": {_short(event.get('input'))}" if "input" in event else "")
    response = event.get("response")
    if isinstance(response, dict):
        output = response.get("output")
        count = f"{len(output)} item(s)" if isinstance(output, list) else f"output {quote(output, 30)}"
        return f"status {quote(response.get('status'))}, {count}"
    item = event.get("item")
    if isinstance(item, dict):
        name = f" {item.get('name')}" if item.get("name") else ""
        return f"{item.get('type')} {item.get('id')}{name}, {item.get('status')}"
    if kind == v.ERROR:
        error = event.get("error") if isinstance(event.get("error"), dict) else event
        return f"{error.get('code')}: {_short(error.get('message'))}"
    for member in ("delta", "text", "refusal", "arguments"):
        if isinstance(event.get(member), str):
            return _short(event[member])
    part = event.get("part")
    if isinstance(part, dict):
        return f"part {event.get('content_index', event.get('summary_index'))}: {part.get('type')}"
    return ""


def _group_of(frame: Frame, items: dict[Any, str]) -> str:
    """Which group a frame is in: the item it is about (by id, else output_index), or ``response``."""
    if not frame.parsed or frame.sent:
        return "response"
    event = frame.value
    position = event.get("output_index")
    at = ("index", position) if isinstance(position, int) else None
    item = event.get("item")
    if isinstance(item, dict):
        key = item.get("id") if isinstance(item.get("id"), str) else at
        if event["type"] == v.OUTPUT_ITEM_ADDED and key is not None and key not in items:
            items[key] = f"item-{len(items)}"
            if at is not None:
                items.setdefault(at, items[key])
        return items.get(key) or items.get(at) or "response"
    item_id = event.get("item_id")
    if isinstance(item_id, str) and item_id in items:
        return items[item_id]
    return items.get(at) or "response"


def view_stream(report: StreamReport, result: StreamResult, *, rows: int = ROWS_SHOWN) -> StreamView:
    """The timeline of one stream of ``report``: its frames as rows, grouped by item, clean delta runs joined."""
    by_frame = report.by_frame()
    items: dict[Any, str] = {}
    groups: dict[str, Group] = {"response": Group("response", "the response")}
    pending: dict[str, list[tuple[int, Frame]]] = {}  # group -> its current run of clean deltas (index, frame)
    total = shown = extra = hidden_failing = 0

    def add(group: Group, row: Row) -> None:
        nonlocal total, shown, extra, hidden_failing
        total += 1
        if shown < rows or (row.findings and extra < FINDINGS_SHOWN):
            if shown >= rows:
                extra += 1
            shown += 1
            group.rows.append(row)
        elif row.findings:
            hidden_failing += 1

    def flush(key: str) -> None:
        run = pending.pop(key, None)
        if not run:
            return
        start, first = run[0]
        text = "".join(frame.value.get("delta") or "" for _, frame in run)
        summary = _short(text) + (f" ({len(run)} deltas)" if len(run) > 1 else "")
        sequence = first.value.get("sequence_number")
        add(groups[key], Row(start, run[-1][0], len(run), first.line, first.column, _kind(first), sequence, summary))

    for index in range(result.start, result.end):
        frame = report.frames[index]
        key = _group_of(frame, items)
        if key not in groups:
            item = frame.value.get("item") if frame.parsed else None
            title = f"item {len(groups) - 1}"
            if isinstance(item, dict):
                name = f" {item.get('name')}" if item.get("name") else ""
                title += f" · {item.get('type')} {item.get('id') or '(no id)'}{name}"
            groups[key] = Group(key, title)
        findings = tuple(by_frame.get(index, ()))
        kind = _kind(frame)
        run = pending.get(key)
        if not findings and kind in _DELTAS and frame.parsed:
            if run and _part_of(run[-1][1]) == _part_of(frame):
                run.append((index, frame))
                continue
            flush(key)
            pending[key] = [(index, frame)]
            continue
        flush(key)
        sequence = frame.value.get("sequence_number") if frame.parsed else None
        add(
            groups[key],
            Row(index, index, 1, frame.line, frame.column, kind, sequence, _summary(frame), findings, frame.sent),
        )
    for key in list(pending):
        flush(key)
    view = StreamView(
        result,
        [group for group in groups.values() if group.rows or group.key != "response"],
        total,
        shown,
        sum(1 for f in report.findings if f.stream == result.number),
        hidden_failing,
    )
    _carry(view)
    return view


def _part_of(frame: Frame) -> tuple[Any, Any]:
    """The delta's type and part: a run of deltas of one part is one row."""
    event = frame.value
    return event["type"], event.get("content_index", event.get("summary_index"))


def _carry(view: StreamView) -> None:
    response = view.result.response
    items = view.result.items
    if response is None and not items:
        return
    response_text = json.dumps(response, indent=2, ensure_ascii=False) if response is not None else None
    items_text = "\n".join(json.dumps(item, ensure_ascii=False) for item in items) if items else None
    size = max(len(response_text or ""), len(items_text or ""))
    if size > CARRY_LIMIT:
        view.carry_note = (
            f"the response is {size:,} characters, over the {CARRY_LIMIT:,} the page carries to another step: "
            "lint it from the command line (python -m webapp lint-stream FILE --json) to get it whole"
        )
        return
    view.response_text, view.items_text = response_text, items_text


def build(text: str | bytes, kind: str = "auto", *, max_depth: int = DEFAULT_MAX_DEPTH) -> StreamPage:
    """Read and lint a pasted (or uploaded) recording.

    :param text: the recording; bytes (an upload) are read as UTF-8.
    :param kind: ``auto`` or one of :data:`KINDS`; anything else is read as ``auto``.
    :return: the :class:`StreamPage`; a recording that cannot be read is its ``error`` (never an exception).
    """
    kind = kind if kind in KINDS else "auto"
    shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    page = StreamPage(shown, kind)
    try:
        report = lint_text(text, kind, max_depth=max_depth)
    except RecordingError as err:
        page.error = err
        return page
    page.report = report
    page.streams = [view_stream(report, result) for result in report.streams]
    page.finding_count = len(report.findings)
    page.groups = group_findings(report)
    return page


# ------------------------------------------------------------------------------------------ the endpoint check


@dataclass
class ExchangeView:
    """One request of a case and its stream's timeline (``None`` for a non-streamed answer)."""

    exchange: Exchange
    stream: StreamView | None


@dataclass
class CaseView:
    """One case of an endpoint check, as the page shows it."""

    case: CaseResult
    exchanges: list[ExchangeView]

    @property
    def failed_checks(self) -> list[Any]:
        return [check for check in self.case.checks if not check.passed]


@dataclass
class CheckView:
    """An endpoint check's answer: the ``report`` and its cases laid out, or the ``error`` that kept it from
    starting (a refused URL), with the fields to show again (never the key)."""

    url: str
    model: str
    report: EndpointReport | None = None
    cases: list[CaseView] = field(default_factory=list)
    error: str | None = None
    suite: str = SUITE

    @property
    def official(self) -> list[CaseView]:
        """The official suite's cases (:data:`~webapp.core.conformance.SUITE`), in its order."""
        return [view for view in self.cases if view.case.official]

    @property
    def extra(self) -> list[CaseView]:
        """This app's extra cases, listed apart from the suite's."""
        return [view for view in self.cases if not view.case.official]


def check_view(url: str, model: str, report: EndpointReport | None = None, error: str | None = None) -> CheckView:
    """Lay out an endpoint check: each case, and each stream it received as a timeline."""
    view = CheckView(url, model, report, error=error)
    for case in report.cases if report is not None else ():
        exchanges = [
            ExchangeView(e, view_stream(e.stream, e.stream.streams[0], rows=200) if e.stream is not None else None)
            for e in case.exchanges
        ]
        view.cases.append(CaseView(case, exchanges))
    return view


def rule_of(code: str) -> Any:
    """The rule a finding's ``code`` names (for its sentence and source on the page)."""
    return RULE[code]
