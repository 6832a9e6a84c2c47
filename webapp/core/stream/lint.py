"""Lint a recorded stream: every event against its schema, the transport's framing, the sequence rules, the
response the stream builds, and the replay gate on every finished call — one pass, findings as data.

:func:`lint` takes a :class:`~webapp.core.stream.recording.Recording` (:func:`lint_text` reads one first) and
answers a :class:`StreamReport`: the frames, a :class:`StreamResult` per stream (the response it builds, its items,
the gate's verdict on each call), and every :class:`~webapp.core.stream.rules.Finding` in frame order. The rules
are :data:`webapp.core.stream.rules.RULES`; the state machines are :mod:`webapp.core.stream.machine`'s.

Cost: one strict parse per event (at about ``json.loads`` speed, done by the reader), one compiled-schema check
(the Rust validator), a few dictionary operations; ``benchmarks/bench_stream.py`` measures it against
``json.loads`` alone on a 50 MB recording.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from webapp.core.items import FUNCTION_CALL, is_namespaced
from webapp.core.json import paused_gc, pointer
from webapp.core.stream import vocabulary as v
from webapp.core.stream.built import Report
from webapp.core.stream.calls import CallVerdict, gate_call
from webapp.core.stream.machine import StreamMachine
from webapp.core.stream.recording import Frame, Recording, Stream, read_recording
from webapp.core.stream.rules import Finding
from webapp.core.stream.schemas import EVENT_SCHEMAS, WEBSOCKET_SCHEMAS, schema_for, violations

__all__ = ["StreamResult", "StreamReport", "lint", "lint_text"]

_EVENT_STREAM = "text/event-stream"


@dataclass
class StreamResult:
    """One stream of a recording, linted.

    :ivar number: its place in the recording (0-based); :ivar label: how the page names it.
    :ivar transport: ``sse``, ``jsonl`` or ``websocket``; :ivar start: :ivar end: its frames'
        indices (``start`` to ``end - 1``).
    :ivar items: the items the stream built, in order; :ivar calls: the gate's verdict on each finished call.
    :ivar final: the terminal event's response; :ivar snapshot: the last response an event carried.
    :ivar request: the request that started it, when the recording holds it.
    :ivar refusal: a WebSocket error envelope that answered the turn instead of a stream (``None`` otherwise).
    """

    number: int
    label: str
    transport: str
    start: int
    end: int
    items: list[dict[str, Any]] = field(default_factory=list)
    calls: list[CallVerdict] = field(default_factory=list)
    final: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = None
    request: Any = None
    refusal: dict[str, Any] | None = None

    @property
    def response(self) -> dict[str, Any] | None:
        """The response this stream builds: the last response an event carried (the terminal one when it came),
        its ``output`` the items the events built. ``None`` when no event carried a response."""
        base = self.final if self.final is not None else self.snapshot
        if base is None:
            return None
        return {**base, "output": self.items}


@dataclass
class StreamReport:
    """What :func:`lint` found.

    :ivar kind: the recording's kind; :ivar detected: whether it was detected; :ivar frames: every frame, in
        order (a finding's ``index`` is a place in this list); :ivar streams: one :class:`StreamResult` each;
    :ivar findings: every finding, in frame order (the recording's own first).
    """

    kind: str
    detected: bool
    frames: list[Frame]
    streams: list[StreamResult]
    findings: list[Finding]

    @property
    def counts(self) -> Counter[str]:
        """Findings per severity (``error``, ``warning``)."""
        return Counter(finding.severity for finding in self.findings)

    @property
    def clean(self) -> bool:
        """No finding at all."""
        return not self.findings

    @property
    def codes(self) -> Counter[str]:
        """Findings per code."""
        return Counter(finding.code for finding in self.findings)

    def by_frame(self) -> dict[int, list[Finding]]:
        """Frame index -> its findings."""
        found: dict[int, list[Finding]] = {}
        for finding in self.findings:
            if finding.index is not None:
                found.setdefault(finding.index, []).append(finding)
        return found

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (``lint-stream --json``): ``kind``, ``events``, ``errors``, ``warnings``, ``findings``, and per
        stream its label, frames, response, calls."""
        counts = self.counts
        return {
            "kind": self.kind,
            "events": len(self.frames),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "findings": [finding.as_dict() for finding in self.findings],
            "streams": [
                {
                    "label": result.label,
                    "transport": result.transport,
                    "first_event": result.start,
                    "last_event": result.end - 1,
                    "response": result.response,
                    "calls": [call.as_dict() for call in result.calls],
                    "refusal": result.refusal,
                }
                for result in self.streams
            ],
        }


def lint_text(text: str | bytes, kind: str = "auto", *, max_depth: int = 100) -> StreamReport:
    """:func:`~webapp.core.stream.recording.read_recording` then :func:`lint`.

    :raises RecordingError: as ``read_recording``.
    """
    with paused_gc():  # a recording is a million small containers and no reference cycle
        return lint(read_recording(text, kind, max_depth=max_depth), max_depth=max_depth)


def lint(recording: Recording, *, max_depth: int = 100) -> StreamReport:
    """Every rule of :data:`~webapp.core.stream.rules.RULES` on every stream of ``recording``.

    :param max_depth: the nesting limit of a call's parsed arguments (the gate's).
    """
    frames: list[Frame] = []
    findings: list[Finding] = []
    results: list[StreamResult] = []
    with paused_gc():
        for number, stream in enumerate(recording.streams):
            start = len(frames)
            frames.extend(stream.frames)
            results.append(_lint_stream(number, stream, start, frames, findings, max_depth))
    findings.sort(key=lambda finding: -1 if finding.index is None else finding.index)
    return StreamReport(recording.kind, recording.detected, frames, results, findings)


def _lint_stream(
    number: int, stream: Stream, start: int, frames: list[Frame], findings: list[Finding], max_depth: int
) -> StreamResult:
    end = start + len(stream.frames)

    def report(code: str, index: int | None, at: str, message: str) -> None:
        if index is None:
            index = end - 1
        frame = frames[index]
        findings.append(Finding(code, index, frame.line, frame.column, at, message, number))

    machine = StreamMachine(report)
    result = StreamResult(number, stream.label, stream.transport, start, end, request=stream.request)
    sse = stream.transport == "sse"
    websocket = stream.transport == "websocket"
    if stream.content_type is not None and stream.content_type.split(";")[0].strip().lower() != _EVENT_STREAM:
        report(
            "content_type",
            start,
            "",
            f"the stream is sent as Content-Type {stream.content_type!r}, not {_EVENT_STREAM}",
        )
    compiled: dict[str, Any] = {}
    last_sequence: int | None = None
    first = True
    done_at: int | None = None
    events = 0
    for index in range(start, end):
        frame = frames[index]
        if done_at is not None and sse:
            machine.once("data_after_done", "after", index, "", f"a frame after data: [DONE] (event {done_at})")
        if frame.done:
            if websocket:
                report(
                    "done_on_websocket",
                    index,
                    "",
                    "a [DONE] message: WebSocket mode ends a turn with its terminal event",
                )
            elif done_at is None:
                done_at = index
            continue
        problem = frame.problem
        if problem is not None:
            findings.append(Finding(problem[0], index, problem[2], problem[3], "", problem[1], number))
            continue
        event = frame.value
        kind = event["type"]
        if websocket and (frame.sent or (kind == v.ERROR and "status" in event and "sequence_number" not in event)):
            # The client's response.create, or a refusal of the turn: WebSocket mode's envelopes, not stream events.
            envelope = WEBSOCKET_SCHEMAS[v.RESPONSE_CREATE if frame.sent else v.ERROR]
            for error in violations(event, envelope):
                report("schema_invalid", index, error.pointer, f"{envelope}: {error.message}")
            if not frame.sent:
                result.refusal = event
            continue
        events += 1
        if sse:
            if frame.event != kind:
                shown = "no event: line" if frame.event is None else f"event: {frame.event}"
                report("event_field_mismatch", index, "/type", f"{shown}, but the data's type is {kind!r}")
            if frame.ids:
                report("id_field", index, "", f"an id: field ({frame.ids[0]!r}): servers SHOULD NOT send one")
        sequence = event.get("sequence_number")
        if type(sequence) is int:
            if last_sequence is None:
                if sequence != 0:
                    report("sequence_gap", index, "/sequence_number", f"the first sequence_number is {sequence}, not 0")
            elif sequence <= last_sequence:
                report(
                    "sequence_order",
                    index,
                    "/sequence_number",
                    f"sequence_number {sequence} after {last_sequence}: it must strictly increase",
                )
            elif sequence != last_sequence + 1:
                report(
                    "sequence_gap",
                    index,
                    "/sequence_number",
                    f"sequence_number {sequence} after {last_sequence}: {sequence - last_sequence - 1} missing",
                )
            last_sequence = sequence
        schema = compiled.get(kind)
        if schema is None:
            name = EVENT_SCHEMAS.get(kind)
            if name is None:
                if is_namespaced(kind):
                    report(
                        "extension_event",
                        index,
                        "/type",
                        f"{kind!r} is a provider's own event: clients must ignore it, the official suite fails it",
                    )
                    if type(sequence) is not int:
                        report(
                            "schema_invalid",
                            index,
                            "/sequence_number",
                            "an extension event needs an integer sequence_number",
                        )
                else:
                    report("unknown_event", index, "/type", f"{kind!r} is none of the spec's 24 streaming events")
                continue
            schema = compiled[kind] = schema_for(name)
        if not schema.is_valid(event):
            _schema_findings(event, EVENT_SCHEMAS[kind], index, report)
        if first:
            first = False
            if kind != v.RESPONSE_CREATED:
                report("first_event", index, "/type", f"the stream begins with {kind}, not response.created")
        machine.feed(event, index)
    if events or result.refusal is None:
        machine.finish()
    if sse and done_at is None:
        report("missing_done", None, "", "the stream does not end with data: [DONE]")
    if stream.unterminated:
        report("unterminated_frame", None, "", "the body ends inside this frame: no blank line follows it")
    result.final, result.snapshot = machine.final, machine.snapshot
    result.items = [item.built() for item in machine.items]
    result.calls = _gated_calls(machine, report, max_depth, stream.request)
    return result


def _schema_findings(event: dict[str, Any], name: str, index: int, report: Report) -> None:
    """The schema's errors of one event; a provider's own item type (``slug:name``) where the schema wants one of
    the spec's items is an ``extension_item`` warning, not a schema error."""
    for error in violations(event, name):
        try:
            part = pointer.resolve(event, error.pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            part = None
        if isinstance(part, dict) and is_namespaced(part.get("type")) and error.keyword in ("anyOf", "oneOf"):
            report(
                "extension_item",
                index,
                error.pointer,
                f"item type {part['type']!r} is a provider's own: allowed by the spec's prose, refused by its schemas "
                "and the official suite",
            )
            continue
        report("schema_invalid", index, error.pointer, f"{name}: {error.message}")


def _gated_calls(machine: StreamMachine, report: Report, max_depth: int, request: Any) -> list[CallVerdict]:
    """The gate on each call an ``output_item.done`` finished, and on each call of the final response no such
    event finished (checked at the terminal event). The tools are the request's, when the recording holds the
    request (what the model was given, whether or not the response echoes them), else the response's."""
    tools = request.get("tools") if isinstance(request, dict) and "tools" in request else None
    if tools is None:
        tools = (machine.final or machine.snapshot or {}).get("tools")
    calls: list[tuple[dict[str, Any], int, str]] = []
    output = machine.final.get("output") if machine.final is not None else None
    for position, item in enumerate(machine.items):
        if item.done_item is not None:
            assert item.done_at is not None  # set with done_item, by the same output_item.done
            calls.append((item.done_item, item.done_at, "/item/arguments"))
        elif isinstance(output, list) and position < len(output) and machine.terminal_at is not None:
            calls.append((output[position], machine.terminal_at, f"/response/output/{position}/arguments"))
    if isinstance(output, list) and machine.terminal_at is not None:
        for position in range(len(machine.items), len(output)):
            calls.append((output[position], machine.terminal_at, f"/response/output/{position}/arguments"))
    verdicts: list[CallVerdict] = []
    for call_item, index, at in calls:
        if not isinstance(call_item, dict) or call_item.get("type") != FUNCTION_CALL:
            continue
        verdict = gate_call(call_item, tools, index, max_depth=max_depth)
        if verdict is None:
            continue
        verdicts.append(verdict)
        if verdict.refused:
            report(
                "gate_refused",
                index,
                at,
                f"the replay gate refuses call {call_item.get('name')!r} ({call_item.get('call_id')!r}): "
                f"{verdict.reason}: {verdict.message}",
            )
    return verdicts
