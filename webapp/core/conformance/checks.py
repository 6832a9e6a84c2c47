"""What a conformance case found, as data, and the checks it is judged by.

A case (:mod:`webapp.core.conformance.cases`) runs through a :class:`CaseRun`: each request goes through the
transport and is kept as an :class:`Exchange` (the body sent, the answer's status and type, the parsed answer or
the linted stream), and each check is a :class:`Check`. The official suite's checks (:data:`SUITE`; spec notes
§3.2: HTTP 2xx or the ``expectedStatuses``, the ``ResponseResource`` or ``CompactResource`` schema,
``hasOutput``, ``completedStatus``, ``hasOutputType``, ``hasAssistantMessagePhase``, ``compactObject``,
``streamingEvents``, ``streamingSchema``) have ``suite=True``: a case *passes* when they all hold (an extra case
is judged by the same kinds of check, though the suite does not run it). The checks the suite skips —
``Content-Type``, every rule of the stream linter (:data:`webapp.core.stream.RULES`), the replay gate on every
call — have ``suite=False``: a case is *strict* when those hold too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.conformance.transport import Socket, Transport, TransportError
from webapp.core.items import FUNCTION_CALL
from webapp.core.json import json_type, quote
from webapp.core.schema import ValidationError
from webapp.core.stream import (
    BODY_SCHEMAS,
    RecordingError,
    StreamReport,
    gate_call,
    lint,
    read_recording,
    violations,
    websocket_turn,
)
from webapp.core.stream import vocabulary as v

__all__ = ["SUITE", "Check", "Exchange", "CaseResult", "EndpointReport", "CaseRun", "Stop", "MAX_TURN_MESSAGES"]

#: The suite release the official cases follow (its repository, file and release), as the CLI and page name it.
SUITE = "openresponses/openresponses src/lib/compliance-tests.ts, release 2026-04-24"
#: The most messages one WebSocket turn may answer before the case gives up on it (a server that never ends).
MAX_TURN_MESSAGES = 100_000
#: Seconds a turn waits for response.failed after a stream's error event ("any error incurred while streaming
#: will be followed by a response.failed event") before it ends without one.
ERROR_GRACE = 5.0
#: Codes of the stream rules the official suite fails a stream for (spec notes §3.2 "streamingSchema").
SUITE_STREAM_CODES = frozenset(
    ("unreadable_event", "not_an_event", "unknown_event", "schema_invalid", "extension_event")
)
_EXCERPT = 300  # characters of an answer's body quoted in a failed check


@dataclass(frozen=True)
class Check:
    """One check of a case: ``name`` (``hasOutput``), whether it ``passed``, a ``detail`` (why not, or what was
    seen) and whether the official suite makes it (``suite``)."""

    name: str
    passed: bool
    detail: str = ""
    suite: bool = True


@dataclass
class Exchange:
    """One request of a case and what came back.

    :ivar label: ``POST /responses``, ``WebSocket turn 2``; :ivar request: the body or message sent (never the
        key: it travels in a header); :ivar status: :ivar content_type: of an HTTP answer; :ivar body: the parsed
        JSON answer, or an excerpt of a text that is not JSON; :ivar stream: the linted stream (SSE answer or
        WebSocket turn).
    """

    label: str
    request: Any = None
    status: int | None = None
    content_type: str | None = None
    body: Any = None
    stream: StreamReport | None = None


@dataclass
class CaseResult:
    """One case's answer.

    :ivar id: the case's id (upstream's for the official 17); :ivar title: one line; :ivar official: one of the
        suite's 17; :ivar checks: :ivar exchanges: in order; :ivar error: why the case stopped early (a transport
        error, a timeout, a check that the rest depends on), else ``None``; :ivar seconds: how long it ran.
    """

    id: str
    title: str
    official: bool
    checks: list[Check] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Every check the official suite makes held, and nothing stopped the case."""
        return self.error is None and all(check.passed for check in self.checks if check.suite)

    @property
    def strict(self) -> bool:
        """:attr:`passed`, and every check the suite skips held too."""
        return self.passed and all(check.passed for check in self.checks)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (``check-endpoint --json``): the checks, and each exchange with its stream's findings."""
        return {
            "id": self.id,
            "title": self.title,
            "official": self.official,
            "passed": self.passed,
            "strict": self.strict,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail, "suite": c.suite} for c in self.checks],
            "exchanges": [
                {
                    "label": e.label,
                    "status": e.status,
                    "content_type": e.content_type,
                    "events": len(e.stream.frames) if e.stream is not None else None,
                    "findings": [f.as_dict() for f in e.stream.findings] if e.stream is not None else [],
                }
                for e in self.exchanges
            ],
        }


@dataclass
class EndpointReport:
    """Every case run against one server: ``url`` (its base URL, as given), ``model``, ``cases`` in table order."""

    url: str
    model: str
    cases: list[CaseResult]

    @property
    def official(self) -> list[CaseResult]:
        """The results of the official suite's 17 cases, in table order."""
        return [case for case in self.cases if case.official]

    @property
    def extra(self) -> list[CaseResult]:
        """The results of this app's extra cases (not the suite's), in table order."""
        return [case for case in self.cases if not case.official]

    @property
    def official_passed(self) -> int:
        """How many of the suite's 17 passed (the "17/17" of a compliance table)."""
        return sum(case.passed for case in self.official)

    @property
    def passed(self) -> bool:
        """Every case passed (the official and the extra ones)."""
        return all(case.passed for case in self.cases)

    @property
    def strict(self) -> bool:
        """Every case passed every check, the suite's and the ones it skips."""
        return all(case.strict for case in self.cases)

    def as_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "model": self.model,
            "suite": SUITE,
            "official": f"{self.official_passed}/{len(self.official)}",
            "extra": f"{sum(case.passed for case in self.extra)}/{len(self.extra)}",
            "passed": self.passed,
            "strict": self.strict,
            "cases": [case.as_dict() for case in self.cases],
        }


class Stop(Exception):
    """A check the rest of a case depends on failed: the case ends there (its :class:`CaseResult` says which)."""


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _count(n: int, what: str) -> str:
    """``1 event``, ``3 events``."""
    return f"{n:,} {what}" + ("" if n == 1 else "s")


#: Places named per group of :func:`grouped` (the count says how many there are).
PLACES_SHOWN = 3


def grouped(errors: list[ValidationError]) -> str:
    """Every schema error of a body in one line, grouped by what is wrong: each message once, with its count and
    its first :data:`PLACES_SHOWN` places (JSON Pointers); ``""`` for none.

    ``3 violations: expected string, got null ×2 at /a, /b; "x" is a required property at /c``
    """
    if not errors:
        return ""
    groups: dict[str, list[str]] = {}
    for error in errors:
        groups.setdefault(error.message, []).append(error.pointer or "/")
    parts = []
    for message, places in groups.items():
        shown = ", ".join(places[:PLACES_SHOWN])
        more = f" and {_count(len(places) - PLACES_SHOWN, 'more place')}" if len(places) > PLACES_SHOWN else ""
        times = f" ×{len(places)}" if len(places) > 1 else ""
        parts.append(f"{message}{times} at {shown}{more}")
    return f"{_count(len(errors), 'violation')}: " + "; ".join(parts)


def _media(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


class CaseRun:
    """What a case function is handed: the transport, the model to ask for, and the result it fills in."""

    def __init__(self, transport: Transport, model: str, result: CaseResult) -> None:
        self.transport = transport
        self.model = model
        self.result = result
        self.sockets: list[Socket] = []

    # ------------------------------------------------------------------------------------------ checks

    def check(self, name: str, passed: bool, detail: str = "", *, suite: bool = True) -> bool:
        """Record one check; answers ``passed``."""
        self.result.checks.append(Check(name, bool(passed), detail, suite))
        return bool(passed)

    def require(self, name: str, passed: bool, detail: str = "") -> None:
        """:meth:`check`, and stop the case when it failed (the rest depends on it).

        :raises Stop: when ``passed`` is false.
        """
        if not self.check(name, passed, detail):
            raise Stop(f"{name}: {detail}" if detail else name)

    def has_output(self, response: dict[str, Any], what: str = "") -> None:
        """The suite's ``hasOutput``: a non-empty ``output``."""
        output = response.get("output")
        self.check(f"hasOutput{what}", isinstance(output, list) and bool(output), "" if output else "output is empty")

    def completed(self, response: dict[str, Any], what: str = "") -> None:
        """The suite's ``completedStatus``."""
        status = response.get("status")
        self.check(f"completedStatus{what}", status == "completed", f"status is {quote(status)}")

    def has_type(self, response: dict[str, Any], kind: str, what: str = "") -> dict[str, Any] | None:
        """The suite's ``hasOutputType``: the first output item of ``kind``, recorded as a check."""
        output = response["output"] if isinstance(response.get("output"), list) else []
        item = next((i for i in output if isinstance(i, dict) and i.get("type") == kind), None)
        types = ", ".join(str(i.get("type")) for i in output if isinstance(i, dict)) or "nothing"
        self.check(f"hasOutputType({kind}){what}", item is not None, f"output holds {types}")
        return item

    def has_phase(self, response: dict[str, Any], phase: str) -> None:
        """The suite's ``hasAssistantMessagePhase(phase)``: an assistant ``message`` of ``output`` labelled
        ``phase``."""
        output = response["output"] if isinstance(response.get("output"), list) else []
        found = any(
            isinstance(i, dict)
            and i.get("type") == "message"
            and i.get("role") == "assistant"
            and i.get("phase") == phase
            for i in output
        )
        self.check(f"hasAssistantMessagePhase({phase})", found, "" if found else f"no assistant message is {phase}")

    def gate(self, response: dict[str, Any], tools: list[dict[str, Any]]) -> None:
        """Not the suite's: every completed ``function_call`` of ``response`` passes the replay gate, judged by
        ``tools``, the tools the case sent (a response need not echo them to be judged by them)."""
        output = response["output"] if isinstance(response.get("output"), list) else []
        for item in output:
            if isinstance(item, dict) and item.get("type") == FUNCTION_CALL:
                verdict = gate_call(item, tools, 0)
                if verdict is not None:
                    self.check(
                        f"replay gate: {quote(item.get('name'))}",
                        not verdict.refused,
                        f"{verdict.reason}: {verdict.message}",
                        suite=False,
                    )

    # ------------------------------------------------------------------------------------------ HTTP

    def respond(self, path: str, body: dict[str, Any], *, label: str = "", schema: str = "response") -> dict[str, Any]:
        """``POST`` a non-streamed request and check the answer: HTTP 2xx, JSON, its schema (``response``:
        ``ResponseResource``; ``compact``: ``CompactResource``); not the suite's: ``Content-Type:
        application/json`` (Open Responses spec, HTTP Transport).

        :return: the parsed answer. :raises Stop: not 2xx, or not a JSON object.
        :raises TransportError: from the transport.
        """
        sent = {"model": self.model, **body, "stream": False} if schema == "response" else {"model": self.model, **body}
        answer = self.transport.post(path, sent)
        exchange = Exchange(label or f"POST {path}", sent, answer.status, answer.content_type)
        self.result.exchanges.append(exchange)
        self.require("HTTP 2xx", 200 <= answer.status < 300, f"HTTP {answer.status}: {_excerpt(answer.text)}")
        self.check(
            "Content-Type: application/json",
            _media(answer.content_type) == "application/json",
            f"Content-Type is {quote(answer.content_type)}",
            suite=False,
        )
        try:
            value = json.loads(answer.text)
        except ValueError as err:
            exchange.body = _excerpt(answer.text)
            raise Stop(f"the answer is not JSON ({err})") from None
        exchange.body = value
        self.require("a JSON object", isinstance(value, dict), f"the answer is JSON {json_type(value)}, not an object")
        errors = violations(value, BODY_SCHEMAS[schema])
        self.check(f"{BODY_SCHEMAS[schema]} schema", not errors, grouped(errors))
        return value

    def fixture(self, body: dict[str, Any], *, label: str = "the suite's local fixture (no request)") -> dict[str, Any]:
        """Check a body the case made itself (the suite's ``getMockResponse``): the ``ResponseResource`` schema,
        nothing sent.

        :return: ``body``."""
        self.result.exchanges.append(Exchange(label, None, None, None, body))
        errors = violations(body, BODY_SCHEMAS["response"])
        self.check(f"{BODY_SCHEMAS['response']} schema", not errors, grouped(errors))
        return body

    def refused(self, path: str, body: dict[str, Any], statuses: tuple[int, ...], *, label: str = "") -> None:
        """``POST`` ``body`` as it is (no ``model`` added) and check that the answer's status is one of
        ``statuses`` (the suite's ``expectedStatuses``, no schema).

        :raises TransportError: from the transport.
        """
        answer = self.transport.post(path, body)
        exchange = Exchange(label or f"POST {path}", body, answer.status, answer.content_type)
        try:
            exchange.body = json.loads(answer.text)
        except ValueError:
            exchange.body = _excerpt(answer.text)
        self.result.exchanges.append(exchange)
        wanted = " or ".join(str(status) for status in statuses)
        self.check(f"HTTP {wanted}", answer.status in statuses, f"HTTP {answer.status}: {_excerpt(answer.text)}")

    def stream(self, path: str, body: dict[str, Any], *, label: str = "") -> dict[str, Any]:
        """``POST`` a streamed request (``stream: true``) and check the SSE answer: HTTP 2xx, events, each
        event's schema and the terminal response (the suite's ``streamingEvents``/``streamingSchema``); not the
        suite's: every stream rule of the linter.

        :return: the terminal event's response (``{}`` when none came). :raises Stop: not 2xx.
        """
        sent = {"model": self.model, **body, "stream": True}
        answer = self.transport.post(path, sent)
        exchange = Exchange(label or f"POST {path} (stream)", sent, answer.status, answer.content_type)
        self.result.exchanges.append(exchange)
        self.require("HTTP 2xx", 200 <= answer.status < 300, f"HTTP {answer.status}: {_excerpt(answer.text)}")
        if not answer.text.strip():
            self.require("streamingEvents", False, "the answer holds no event")
        try:
            recording = read_recording(answer.text, "sse")
        except RecordingError as err:
            raise Stop(f"streamingEvents: the answer is no event stream ({err}): {_excerpt(answer.text)}") from None
        for stream in recording.streams:
            stream.content_type = answer.content_type
            stream.request = sent  # the gate judges calls by the tools sent
        report = exchange.stream = lint(recording)
        if answer.cut:
            self.check("the whole stream", False, "the answer was cut at the size limit", suite=False)
        return self._judge_stream(report)

    def _judge_stream(self, report: StreamReport, what: str = "") -> dict[str, Any]:
        events = sum(frame.parsed for frame in report.frames)
        self.require(f"streamingEvents{what}", events > 0, "no event could be read")
        refused = [f for f in report.findings if f.code in SUITE_STREAM_CODES]
        self.check(
            f"streamingSchema{what}",
            not refused,
            f"{_count(len({f.index for f in refused}), 'event')} of {events} refused "
            f"({_count(len(refused), 'finding')}), the first: event {refused[0].index}: {refused[0].code}: "
            f"{refused[0].message}"
            if refused
            else f"{_count(events, 'event')} valid",
        )
        final = report.streams[-1].final
        self.check(f"terminal response{what}", final is not None, "" if final else "no terminal event came")
        findings = report.findings
        counts = report.counts
        self.check(
            f"every stream rule{what}",
            not findings,
            "clean"
            if not findings
            else f"{_count(counts['error'], 'error finding')} and {_count(counts['warning'], 'warning finding')} "
            f"on {_count(len({f.index for f in findings}), 'event')}: "
            + ", ".join(f"{code} ×{n}" for code, n in sorted(report.codes.items())),
            suite=False,
        )
        return final or {}

    # ------------------------------------------------------------------------------------------ WebSocket

    def connect(self) -> Socket:
        """A WebSocket to the server's ``/responses``; closed when the case ends."""
        socket = self.transport.connect()
        self.sockets.append(socket)
        return socket

    def close(self) -> None:
        """Close every socket the case opened."""
        for socket in self.sockets:
            try:
                socket.close()
            except TransportError:
                pass

    def turn(self, socket: Socket, body: dict[str, Any], *, label: str = "") -> StreamReport:
        """Send one ``response.create`` and read the messages up to its terminal event, a refusal (WebSocket
        mode's ``error`` envelope) or :data:`MAX_TURN_MESSAGES`; after a stream's ``error`` event, up to
        :data:`ERROR_GRACE` seconds more for its ``response.failed``. The turn is linted as a WebSocket recording.

        :raises TransportError: closed or out of time before the turn ended.
        """
        create = {"type": v.RESPONSE_CREATE, "model": self.model, **body}
        text = json.dumps(create)
        socket.send(text)
        messages = [(text, True)]
        number = sum(e.label.startswith("WebSocket turn") for e in self.result.exchanges) + 1
        exchange = Exchange(label or f"WebSocket turn {number}", create)
        self.result.exchanges.append(exchange)
        failing = False  # a stream's error event came: response.failed should follow it
        while len(messages) <= MAX_TURN_MESSAGES:
            try:
                message = socket.receive(ERROR_GRACE if failing else None)
            except TransportError:
                if failing:
                    break  # no response.failed after the error: the lint says so (error_without_failed)
                raise
            messages.append((message, False))
            try:
                event = json.loads(message)
            except ValueError:
                continue
            kind = event.get("type") if isinstance(event, dict) else None
            if kind in v.TERMINAL_EVENTS:
                break
            if kind == v.ERROR:
                if "sequence_number" not in event:
                    break  # WebSocket mode's refusal of the turn (WebSocketErrorEvent): nothing follows it
                failing = True
        report = exchange.stream = lint(websocket_turn(messages, exchange.label))
        return report

    def completed_turn(self, socket: Socket, body: dict[str, Any], what: str = "") -> dict[str, Any]:
        """A turn that must end ``completed``: its stream checked as :meth:`stream` checks one.

        :raises Stop: the turn was refused (an ``error`` event) or had no event.
        """
        report = self.turn(socket, body)
        refusal = report.streams[0].refusal
        if refusal is not None:
            error = refusal["error"] if isinstance(refusal.get("error"), dict) else {}
            self.require(f"turn answered{what}", False, f"error {quote(error.get('code'))}: {error.get('message')}")
        final = self._judge_stream(report, what)
        self.completed(final, what)
        return final

    def refused_turn(self, socket: Socket, body: dict[str, Any], code: str | None, what: str = "") -> dict[str, Any]:
        """A turn that must be refused: an ``error`` event (with ``code``, when given) or a ``response.failed``.

        :return: the error event's ``error`` (``{}`` for a ``response.failed``).
        """
        report = self.turn(socket, body)
        refusal = report.streams[0].refusal
        events = [f.value for f in report.frames if f.parsed and not f.sent]
        failed = any(e.get("type") == v.RESPONSE_FAILED for e in events)
        error = refusal.get("error") if refusal is not None and isinstance(refusal.get("error"), dict) else None
        if error is None:
            error = next((e.get("error") for e in events if e.get("type") == v.ERROR), None)
            error = error if isinstance(error, dict) else None
        if code is None:
            self.check(f"turn refused{what}", error is not None or failed, "the turn was answered, not refused")
        else:
            got = error.get("code") if error else None
            self.check(f"error {code}{what}", got == code, f"got {quote(got)}" if error else "no error event came")
        if refusal is not None:
            errors = violations(refusal, "WebSocketErrorEvent")
            self.check(f"WebSocketErrorEvent schema{what}", not errors, grouped(errors), suite=False)
        return error or {}
