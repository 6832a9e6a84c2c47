"""Conformance checker for ``/v1/responses`` bodies and SSE streams (a test helper, not a test file).

What it checks, and where each rule comes from:

* Every non-streamed body against ``#/components/schemas/ResponseResource`` and every streamed event against
  the event schema its ``type`` names, from the official OpenAPI document (Open Responses 2026-04-24, vendored
  as ``tests/data/openresponses-openapi.json``). JSON Schema Draft 2020-12 (the OpenAPI 3.1 dialect) through
  python-jsonschema with a ``referencing`` registry holding only that document: nothing is ever fetched.
* The HTTP streaming rules (Open Responses spec, "HTTP Transport"; spec notes §1.1, §2.2): ``Content-Type:
  text/event-stream``, every ``event:`` equal to the JSON ``type``, no ``id:`` lines, ``data: [DONE]`` last.
* The stream state machine (spec notes §1.4, after upstream ``state-machines/typescript``): response, item
  and content-part lifecycles, strictly increasing ``sequence_number``, exactly one terminal event,
  everything terminal at the end of the stream.
* The extra checks of spec notes §3.8: ``output_item.done`` items equal the final response's items,
  concatenated deltas equal the ``*.done`` text/arguments, ``arguments`` parse as JSON, an ``incomplete``
  item is the last one and makes the response ``incomplete``.

Violations are data (:class:`Violation` with a stable ``code``); the codes upstream's validator defines keep
their upstream names (``INVALID_ITEM_TRANSITION``, ``NON_MONOTONIC_SEQUENCE``, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from support import TESTS

SPEC_PATH = TESTS / "data" / "openresponses-openapi.json"
# The registry key of the OpenAPI document; a name only (never fetched: the registry has no retriever).
SPEC_URI = "urn:openresponses:openapi:2026-04-24"

RESPONSE_EVENTS = ("response.created", "response.queued", "response.in_progress")
TERMINAL_EVENTS = {"response.completed": "completed", "response.failed": "failed", "response.incomplete": "incomplete"}
# Text-like streams inside a content part: delta event -> (done event, field of the done event).
PART_TEXT_EVENTS = {
    "response.output_text.delta": ("response.output_text.done", "text"),
    "response.refusal.delta": ("response.refusal.done", "refusal"),
    "response.reasoning.delta": ("response.reasoning.done", "text"),
}
# The field of a finished content part that holds the text its deltas built.
PART_TEXT_FIELD = {"output_text": "text", "refusal": "refusal", "reasoning_text": "text", "summary_text": "text"}


# --------------------------------------------------------------------------------------------------- schemas


@lru_cache(maxsize=1)
def load_spec() -> dict[str, Any]:
    """The vendored OpenAPI document (``info.version`` 2026-04-24) as a dict; read once."""
    return json.loads(SPEC_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def registry() -> Registry:
    """A ``referencing`` registry holding only the OpenAPI document under :data:`SPEC_URI`.

    OpenAPI 3.1 schemas are JSON Schema 2020-12, so the document is a 2020-12 resource; its internal
    ``#/components/schemas/...`` references resolve against :data:`SPEC_URI`. Without a ``retrieve``
    callable any other URI raises ``Unresolvable`` instead of touching the network.
    """
    resource = Resource.from_contents(load_spec(), default_specification=DRAFT202012)
    return Registry().with_resource(SPEC_URI, resource)


@cache
def validator(schema_name: str) -> Draft202012Validator:
    """A Draft 2020-12 validator for ``#/components/schemas/<schema_name>``.

    :raises KeyError: no such schema in the document.
    """
    if schema_name not in load_spec()["components"]["schemas"]:
        raise KeyError(f"no schema {schema_name!r} in {SPEC_PATH.name}")
    return Draft202012Validator({"$ref": f"{SPEC_URI}#/components/schemas/{schema_name}"}, registry=registry())


@lru_cache(maxsize=1)
def event_schema_names() -> dict[str, str]:
    """Event ``type`` -> schema name, read from the ``text/event-stream`` ``oneOf`` of ``POST /responses``.

    Taken from the document rather than written out so the checker follows the pinned spec version.
    """
    media = load_spec()["paths"]["/responses"]["post"]["responses"]["200"]["content"]["text/event-stream"]
    schemas = load_spec()["components"]["schemas"]
    names: dict[str, str] = {}
    for ref in media["schema"]["oneOf"]:
        name = ref["$ref"].rsplit("/", 1)[-1]
        for event_type in schemas[name]["properties"]["type"]["enum"]:
            names[event_type] = name
    return names


def schema_errors(instance: Any, schema_name: str, *, limit: int = 3) -> list[str]:
    """Validate ``instance`` against ``#/components/schemas/<schema_name>``.

    :return: up to ``limit`` messages, best match first, each ``"<JSON Pointer>: <message>"``; ``[]`` if valid.
    """
    check = validator(schema_name)
    errors = list(check.iter_errors(instance))
    if not errors:
        return []
    best = best_match(errors)
    ordered = [best] + [e for e in errors if e is not best]
    return [f"{_pointer(e.absolute_path) or '/'}: {e.message}" for e in map(_into_union, ordered[:limit])]


def _into_union(error: ValidationError) -> ValidationError:
    """For a ``oneOf``/``anyOf`` failure, the error inside the branch whose ``type`` matched, if just one did.

    The spec's unions are discriminated by ``type``, so "is not valid under any of the given schemas" hides
    the real fault; the branch that accepted the ``type`` value is the one the sender meant.
    """
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        meant = [errs for errs in branches.values() if not any(list(e.relative_path) == ["type"] for e in errs)]
        if len(meant) != 1:
            break
        error = best_match(meant[0])
    return error


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


# --------------------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    :param code: stable name, e.g. ``INVALID_ITEM_TRANSITION``, ``SCHEMA_INVALID``, ``MISSING_DONE``.
    :param message: plain words naming the event/field at fault.
    :param frame: 0-based index of the SSE frame concerned (``None`` for the body or the stream as a whole).
    """

    code: str
    message: str
    frame: int | None = None

    def __str__(self) -> str:
        where = f"frame {self.frame}: " if self.frame is not None else ""
        return f"{self.code}: {where}{self.message}"


@dataclass(frozen=True)
class SSEFrame:
    """One dispatched server-sent event.

    :param event: the ``event:`` field (``None`` when absent).
    :param data: the ``data:`` lines joined with ``\\n`` (WHATWG HTML, "Server-sent events", interpretation).
    :param ids: every ``id:`` value seen in the frame (the spec says servers SHOULD NOT send any).
    :param line: 1-based line number where the frame starts.
    """

    event: str | None
    data: str | None
    ids: tuple[str, ...]
    line: int


@dataclass
class ConformanceReport:
    """What a check found: ``violations`` (empty when conformant) plus what was parsed.

    ``response`` is the body (non-streamed) or the ``response`` of the terminal event (streamed);
    ``events`` are the decoded JSON events in order; ``frames`` the raw SSE frames.
    """

    violations: list[Violation] = field(default_factory=list)
    response: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    frames: list[SSEFrame] = field(default_factory=list)

    @property
    def codes(self) -> set[str]:
        """The distinct violation codes."""
        return {v.code for v in self.violations}

    @property
    def ok(self) -> bool:
        return not self.violations

    def add(self, code: str, message: str, frame: int | None = None) -> None:
        self.violations.append(Violation(code, message, frame))

    def assert_ok(self) -> None:
        """Raise ``AssertionError`` listing every violation (for use in tests)."""
        if self.violations:
            raise AssertionError("not conformant:\n  " + "\n  ".join(map(str, self.violations)))


# --------------------------------------------------------------------------------------------------- bodies


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def check_response_resource(
    body: Any,
    report: ConformanceReport | None = None,
    *,
    frame: int | None = None,
    where: str = "response",
    schema: bool = True,
) -> ConformanceReport:
    """Check one ``ResponseResource`` (a body, or the ``response`` of a stream event).

    Rules: the OpenAPI schema; ``function_call`` items with status ``completed`` carry ``arguments`` that
    parse as JSON (spec notes §1.5); an ``incomplete`` item is the last output item and the response is then
    ``incomplete`` (Open Responses spec, Items: state machine); ``incomplete`` responses say why.
    """
    report = report if report is not None else ConformanceReport()
    for message in schema_errors(body, "ResponseResource") if schema else ():
        report.add("SCHEMA_INVALID", f"{where}{message if message.startswith('/') else ' ' + message}", frame)
    if not isinstance(body, dict):
        return report
    output = body.get("output") if isinstance(body.get("output"), list) else []
    for index, item in enumerate(output):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call" and item.get("status") == "completed":
            _check_arguments(report, item.get("arguments"), f"{where}.output[{index}].arguments", frame)
        if item.get("status") == "incomplete":
            if index != len(output) - 1:
                report.add(
                    "INCOMPLETE_ITEM_NOT_LAST",
                    f"{where}.output[{index}] is incomplete but {len(output) - 1 - index} item(s) follow it",
                    frame,
                )
            if body.get("status") != "incomplete":
                report.add(
                    "INCOMPLETE_ITEM_NOT_LAST",
                    f"{where}.output[{index}] is incomplete but the response status is "
                    f"{body.get('status')!r}, not 'incomplete'",
                    frame,
                )
    if body.get("status") == "incomplete" and not (body.get("incomplete_details") or {}).get("reason"):
        report.add("INCOMPLETE_DETAILS_MISSING", f"{where} is incomplete without incomplete_details.reason", frame)
    return report


def _check_arguments(report: ConformanceReport, arguments: Any, where: str, frame: int | None) -> None:
    if not isinstance(arguments, str):
        report.add("ARGUMENTS_NOT_JSON", f"{where} is {type(arguments).__name__}, not a JSON string", frame)
        return
    try:
        json.loads(arguments)
    except ValueError as err:
        report.add("ARGUMENTS_NOT_JSON", f"{where} does not parse as JSON ({err}): {arguments[:80]!r}", frame)


def check_json_response(body: str | bytes, content_type: str | None) -> ConformanceReport:
    """Check a non-streamed ``POST /v1/responses`` answer.

    :param body: the raw HTTP body.
    :param content_type: the ``Content-Type`` header; it MUST be ``application/json`` (spec, HTTP Transport).
    """
    report = ConformanceReport()
    if _media_type(content_type) != "application/json":
        report.add("CONTENT_TYPE", f"Content-Type is {content_type!r}, expected application/json")
    try:
        value = json.loads(body)
    except ValueError as err:
        report.add("INVALID_JSON", f"the body is not JSON: {err}")
        return report
    report.response = value if isinstance(value, dict) else None
    return check_response_resource(value, report, where="body")


# --------------------------------------------------------------------------------------------------- SSE


def parse_sse(text: str | bytes) -> tuple[list[SSEFrame], bool]:
    """Split an SSE body into frames (WHATWG HTML, "Server-sent events": event stream interpretation).

    Lines end in CRLF, LF or CR; ``field: value`` loses one leading space; lines starting with ``:`` are
    comments; a blank line dispatches the frame. Frames with neither ``data`` nor ``event`` are not frames.

    Deliberately independent of ``webapp.core.responses.sse``: a checker that shared the server's parser would share its
    bugs. It also keeps what a client throws away (every ``id:`` value, line numbers) to report them.

    :return: ``(frames, unterminated)``; ``unterminated`` is true when the body ends inside a frame (no
             blank line after its last field) — a browser would drop that frame.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    frames: list[SSEFrame] = []
    event: str | None = None
    data: list[str] = []
    ids: list[str] = []
    start = 0
    pending = False
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    rest = lines.pop()  # what follows the last line break: "" for a body that ends in one
    for number, line in enumerate(lines, start=1):
        if line == "":
            if data or event is not None or ids:
                frames.append(SSEFrame(event, "\n".join(data) if data else None, tuple(ids), start))
            event, data, ids, pending = None, [], [], False
            continue
        if line.startswith(":"):
            continue
        if not pending:
            start, pending = number, True
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            ids.append(value)
    return frames, pending or rest != ""


class _StreamState:
    """The finite state machines of one stream (spec notes §1.4), fed one event at a time."""

    def __init__(self, report: ConformanceReport) -> None:
        self.report = report
        self.response_state = "idle"
        self.response_id: str | None = None
        self.terminal_count = 0
        self.error_seen = False
        self.items: dict[str, dict[str, Any]] = {}  # item id -> {state, output_index, type, done_item, ...}
        self.order: list[str] = []  # item ids in output_index order
        self.parts: dict[tuple[Any, str, Any], dict[str, Any]] = {}  # (item id, kind, index) -> {state, text...}
        self.incomplete_item: str | None = None
        self.reported_states: set[str] = set()

    # -- helpers
    def add(self, code: str, message: str, frame: int | None) -> None:
        self.report.add(code, message, frame)

    def need_live_response(self, etype: str, frame: int) -> None:
        # Reported once per response state, so one missing response.in_progress is one violation.
        if self.response_state != "in_progress" and self.response_state not in self.reported_states:
            self.reported_states.add(self.response_state)
            self.add(
                "INVALID_RESPONSE_TRANSITION",
                f"{etype} while the response is {self.response_state!r} (items stream only in 'in_progress')",
                frame,
            )

    def need_item(self, event: dict[str, Any], frame: int, *, kind: str | None = None) -> dict[str, Any] | None:
        etype = event["type"]
        item_id = event.get("item_id")
        item = self.items.get(item_id) if isinstance(item_id, str) else None
        if item is None:
            self.add("UNKNOWN_ITEM", f"{etype} names item_id {item_id!r}, which no output_item.added announced", frame)
            return None
        if item["state"] != "active":
            self.add(
                "INVALID_ITEM_TRANSITION", f"{etype} for item {item_id!r}, which is already {item['state']}", frame
            )
        if event.get("output_index") != item["output_index"]:
            self.add(
                "OUTPUT_INDEX_MISMATCH",
                f"{etype} for item {item_id!r} says output_index "
                f"{event.get('output_index')!r}; the item was added at {item['output_index']}",
                frame,
            )
        if kind is not None and item["type"] != kind:
            self.add(
                "INVALID_ITEM_TRANSITION",
                f"{etype} for item {item_id!r} of type {item['type']!r}, expected a {kind} item",
                frame,
            )
        return item

    def need_part(self, event: dict[str, Any], frame: int, kind: str, index_field: str) -> dict[str, Any] | None:
        key = (event.get("item_id"), kind, event.get(index_field))
        part = self.parts.get(key)
        if part is None:
            self.add(
                "UNKNOWN_CONTENT_PART",
                f"{event['type']} names {index_field} {key[2]!r} of item {key[0]!r}, "
                f"which no {'content_part' if kind == 'content' else 'reasoning_summary_part'}.added announced",
                frame,
            )
            return None
        if part["state"] != "active":
            self.add(
                "INVALID_CONTENT_PART_TRANSITION",
                f"{event['type']} for {index_field} {key[2]} of item {key[0]!r}, which is already {part['state']}",
                frame,
            )
        return part

    # -- events
    def feed(self, event: dict[str, Any], frame: int) -> None:
        etype = event["type"]
        if self.response_state in TERMINAL_EVENTS.values():
            self.add(
                "INVALID_RESPONSE_TRANSITION",
                f"{etype} after the terminal event (response already {self.response_state})",
                frame,
            )
            return
        if etype in RESPONSE_EVENTS or etype in TERMINAL_EVENTS:
            self.response_event(event, frame)
        elif etype == "error":
            self.error_seen = True
        elif etype == "response.output_item.added":
            self.item_added(event, frame)
        elif etype == "response.output_item.done":
            self.item_done(event, frame)
        elif etype in ("response.content_part.added", "response.reasoning_summary_part.added"):
            self.part_added(event, frame)
        elif etype in ("response.content_part.done", "response.reasoning_summary_part.done"):
            self.part_done(event, frame)
        elif etype in PART_TEXT_EVENTS or etype in {done for done, _ in PART_TEXT_EVENTS.values()}:
            self.part_text(event, frame, "content", "content_index")
        elif etype in ("response.reasoning_summary_text.delta", "response.reasoning_summary_text.done"):
            self.part_text(event, frame, "summary", "summary_index")
        elif etype == "response.output_text.annotation.added":
            self.need_live_response(etype, frame)
            if self.need_item(event, frame) is not None:
                self.need_part(event, frame, "content", "content_index")
        elif etype in ("response.function_call_arguments.delta", "response.function_call_arguments.done"):
            self.arguments(event, frame)

    def response_event(self, event: dict[str, Any], frame: int) -> None:
        etype, state = event["type"], self.response_state
        allowed = {
            "response.created": {"idle"},
            "response.queued": {"idle", "created"},
            "response.in_progress": {"idle", "created", "queued"},
            "response.completed": {"in_progress"},
            "response.incomplete": {"in_progress"},
            "response.failed": {"idle", "created", "queued", "in_progress"},
        }[etype]
        if state not in allowed:
            self.add(
                "INVALID_RESPONSE_TRANSITION",
                f"{etype} while the response is {state!r} (allowed from: {', '.join(sorted(allowed))})",
                frame,
            )
        response = event.get("response") if isinstance(event.get("response"), dict) else {}
        new_state = etype.removeprefix("response.")
        if etype in TERMINAL_EVENTS:
            self.terminal_count += 1
            if response.get("status") != TERMINAL_EVENTS[etype]:
                self.add(
                    "RESPONSE_STATUS_MISMATCH",
                    f"{etype} carries a response with status {response.get('status')!r}",
                    frame,
                )
        elif response.get("status") in TERMINAL_EVENTS.values():
            self.add(
                "RESPONSE_STATUS_MISMATCH",
                f"{etype} carries a response that is already {response.get('status')!r}",
                frame,
            )
        if self.response_id is None:
            self.response_id = response.get("id")
        elif response.get("id") != self.response_id:
            self.add(
                "RESPONSE_ID_MISMATCH",
                f"{etype} is about response {response.get('id')!r}, the stream began with {self.response_id!r}",
                frame,
            )
        self.response_state = new_state

    def item_added(self, event: dict[str, Any], frame: int) -> None:
        self.need_live_response(event["type"], frame)
        item = event.get("item")
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            self.add("INVALID_ITEM_TRANSITION", "output_item.added without an item id", frame)
            return
        item_id = item["id"]
        if item_id in self.items:
            self.add("DUPLICATE_ITEM", f"output_item.added for item {item_id!r} a second time", frame)
            return
        if self.incomplete_item is not None:
            self.add(
                "INCOMPLETE_ITEM_NOT_LAST",
                f"item {item_id!r} added after item {self.incomplete_item!r} "
                "ended incomplete (an incomplete item MUST be the last one)",
                frame,
            )
        if event.get("output_index") != len(self.order):
            self.add(
                "OUTPUT_INDEX_MISMATCH",
                f"item {item_id!r} added at output_index {event.get('output_index')!r}"
                f", expected {len(self.order)} (the next free index)",
                frame,
            )
        if item.get("status") in ("completed", "incomplete"):
            self.add("INVALID_ITEM_TRANSITION", f"item {item_id!r} is added already {item['status']!r}", frame)
        self.items[item_id] = {
            "state": "active",
            "output_index": event.get("output_index"),
            "type": item.get("type"),
            "arguments": [],
            "arguments_done": None,
            "done_item": None,
            "frame": frame,
            "parts": 0,
            "summaries": 0,
        }
        self.order.append(item_id)

    def item_done(self, event: dict[str, Any], frame: int) -> None:
        self.need_live_response(event["type"], frame)
        done = event.get("item")
        item_id = done.get("id") if isinstance(done, dict) else None
        item = self.items.get(item_id) if isinstance(item_id, str) else None
        if item is None:
            self.add(
                "UNKNOWN_ITEM", f"output_item.done for item {item_id!r}, which no output_item.added announced", frame
            )
            return
        if item["state"] != "active":
            self.add(
                "INVALID_ITEM_TRANSITION", f"output_item.done for item {item_id!r}, already {item['state']}", frame
            )
            return
        if event.get("output_index") != item["output_index"]:
            self.add(
                "OUTPUT_INDEX_MISMATCH",
                f"output_item.done for item {item_id!r} says output_index "
                f"{event.get('output_index')!r}; it was added at {item['output_index']}",
                frame,
            )
        for (part_item, kind, index), part in self.parts.items():
            if part_item == item_id and part["state"] == "active":
                self.add(
                    "CONTENT_PART_NOT_TERMINATED",
                    f"item {item_id!r} is done while its {kind} part {index} is still open",
                    frame,
                )
                part["state"] = "abandoned"  # reported here, not again at the end of the stream
        status = done.get("status")
        if status == "in_progress":
            self.add(
                "INVALID_ITEM_TRANSITION", f"output_item.done for item {item_id!r} with status 'in_progress'", frame
            )
        item["state"] = "incomplete" if status == "incomplete" else "completed"
        item["done_item"] = done
        item["done_frame"] = frame
        if status == "incomplete":
            self.incomplete_item = item_id
        if item["type"] == "function_call":
            arguments = done.get("arguments")
            streamed = item["arguments_done"] if item["arguments_done"] is not None else "".join(item["arguments"])
            if (item["arguments"] or item["arguments_done"] is not None) and arguments != streamed:
                self.add(
                    "DELTA_MISMATCH",
                    f"output_item.done for {item_id!r} has arguments {arguments!r}; the stream built {streamed!r}",
                    frame,
                )
            if status == "completed":
                _check_arguments(self.report, arguments, f"output_item.done item {item_id!r} arguments", frame)
        content = done.get("content") if isinstance(done.get("content"), list) else None
        for (part_item, kind, index), part in self.parts.items():
            if part_item != item_id or part.get("done_part") is None:
                continue
            field_name = "content" if kind == "content" else "summary"
            holder = done.get(field_name) if field_name == "summary" else content
            if (
                isinstance(holder, list)
                and isinstance(index, int)
                and 0 <= index < len(holder)
                and holder[index] != part["done_part"]
            ):
                self.add(
                    "PART_MISMATCH",
                    f"item {item_id!r} {field_name}[{index}] differs from its {kind}_part.done part",
                    frame,
                )

    def part_added(self, event: dict[str, Any], frame: int) -> None:
        self.need_live_response(event["type"], frame)
        summary = event["type"].startswith("response.reasoning_summary")
        kind, index_field = ("summary", "summary_index") if summary else ("content", "content_index")
        item = self.need_item(event, frame)
        if item is None:
            return
        key = (event["item_id"], kind, event.get(index_field))
        if key in self.parts:
            self.add(
                "DUPLICATE_CONTENT_PART",
                f"{event['type']} for {index_field} {key[2]!r} of item {key[0]!r} a second time",
                frame,
            )
            return
        counter = "summaries" if summary else "parts"
        if event.get(index_field) != item[counter]:
            self.add(
                "CONTENT_INDEX_MISMATCH",
                f"{event['type']} at {index_field} {event.get(index_field)!r}, "
                f"expected {item[counter]} (the next free index)",
                frame,
            )
        item[counter] += 1
        self.parts[key] = {"state": "active", "deltas": [], "text_done": None, "done_part": None}

    def part_done(self, event: dict[str, Any], frame: int) -> None:
        self.need_live_response(event["type"], frame)
        summary = event["type"].startswith("response.reasoning_summary")
        kind, index_field = ("summary", "summary_index") if summary else ("content", "content_index")
        if self.need_item(event, frame) is None:
            return
        part = self.need_part(event, frame, kind, index_field)
        if part is None or part["state"] != "active":
            return
        part["state"] = "completed"
        done_part = event.get("part") if isinstance(event.get("part"), dict) else {}
        part["done_part"] = done_part
        text_field = PART_TEXT_FIELD.get(done_part.get("type"))
        if text_field is not None and (part["deltas"] or part["text_done"] is not None):
            built = part["text_done"] if part["text_done"] is not None else "".join(part["deltas"])
            if done_part.get(text_field) != built:
                self.add(
                    "DELTA_MISMATCH",
                    f"{event['type']} part {text_field} {done_part.get(text_field)!r} "
                    f"differs from the streamed text {built!r}",
                    frame,
                )

    def part_text(self, event: dict[str, Any], frame: int, kind: str, index_field: str) -> None:
        etype = event["type"]
        self.need_live_response(etype, frame)
        if self.need_item(event, frame) is None:
            return
        part = self.need_part(event, frame, kind, index_field)
        if part is None or part["state"] != "active":
            return
        if etype.endswith(".delta"):
            if part["text_done"] is not None:
                self.add("INVALID_CONTENT_PART_TRANSITION", f"{etype} after the part's text was done", frame)
            part["deltas"].append(event.get("delta") or "")
            return
        if part["text_done"] is not None:
            self.add("INVALID_CONTENT_PART_TRANSITION", f"{etype} a second time for the same part", frame)
        text = event.get("text", event.get("refusal"))
        built = "".join(part["deltas"])
        if text != built:
            self.add("DELTA_MISMATCH", f"{etype} says {text!r}; the deltas concatenate to {built!r}", frame)
        part["text_done"] = text

    def arguments(self, event: dict[str, Any], frame: int) -> None:
        etype = event["type"]
        self.need_live_response(etype, frame)
        item = self.need_item(event, frame, kind="function_call")
        if item is None or item["state"] != "active":
            return
        if item["arguments_done"] is not None:
            self.add("INVALID_ITEM_TRANSITION", f"{etype} after function_call_arguments.done", frame)
        if etype.endswith(".delta"):
            item["arguments"].append(event.get("delta") or "")
            return
        built = "".join(item["arguments"])
        if event.get("arguments") != built:
            self.add(
                "DELTA_MISMATCH",
                f"function_call_arguments.done says {event.get('arguments')!r}; the deltas concatenate to {built!r}",
                frame,
            )
        item["arguments_done"] = event.get("arguments")

    # -- end of stream
    def finish(self, final: dict[str, Any] | None) -> None:
        if self.terminal_count == 0:
            self.add(
                "RESPONSE_NOT_TERMINATED",
                "the stream ended without response.completed, response.incomplete or response.failed",
                None,
            )
        if self.error_seen and self.response_state != "failed":
            self.add(
                "ERROR_WITHOUT_FAILED",
                f"an error event was not followed by response.failed (the response ended {self.response_state!r})",
                None,
            )
        for item_id, item in self.items.items():
            if item["state"] == "active":
                self.add(
                    "ITEM_NOT_TERMINATED", f"item {item_id!r} was added (frame {item['frame']}) but never done", None
                )
        for (item_id, kind, index), part in self.parts.items():
            if part["state"] == "active":
                self.add("CONTENT_PART_NOT_TERMINATED", f"{kind} part {index} of item {item_id!r} was never done", None)
        if self.incomplete_item is not None and self.response_state != "incomplete":
            self.add(
                "INCOMPLETE_ITEM_NOT_LAST",
                f"item {self.incomplete_item!r} ended incomplete but the response "
                f"ended {self.response_state!r}, not 'incomplete'",
                None,
            )
        if final is None:
            return
        output = final.get("output") if isinstance(final.get("output"), list) else []
        if len(output) != len(self.order):
            self.add(
                "ITEM_MISMATCH",
                f"the final response has {len(output)} output item(s); the stream added {len(self.order)}",
                None,
            )
        for item_id in self.order:
            item = self.items[item_id]
            index = item["output_index"]
            if item["done_item"] is None or not isinstance(index, int) or not 0 <= index < len(output):
                continue
            if output[index] != item["done_item"]:
                self.add(
                    "ITEM_MISMATCH",
                    f"output_item.done item {item_id!r} (frame {item['done_frame']}) differs "
                    "from the final "
                    f"response's output[{index}]: {_first_difference(item['done_item'], output[index])}",
                    None,
                )


def _first_difference(left: Any, right: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``<pointer>: <left> != <right>`` (for readable messages)."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [k for k in right if k not in left]:
            if left.get(key, ...) != right.get(key, ...):
                return _first_difference(left.get(key, "<absent>"), right.get(key, "<absent>"), f"{path}/{key}")
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}/{index}")
    return f"{path or '/'}: {json.dumps(left)[:80]} != {json.dumps(right)[:80]}"


def check_stream(body: str | bytes, content_type: str | None) -> ConformanceReport:
    """Check a streamed ``POST /v1/responses`` answer (``stream: true``) against every rule of this module.

    :param body: the whole raw SSE body.
    :param content_type: the ``Content-Type`` header; it MUST be ``text/event-stream``.
    :return: a :class:`ConformanceReport`; ``response`` is the terminal event's response (``None`` if none).
    """
    report = ConformanceReport()
    if _media_type(content_type) != "text/event-stream":
        report.add("CONTENT_TYPE", f"Content-Type is {content_type!r}, expected text/event-stream")
    frames, unterminated = parse_sse(body)
    report.frames = frames
    if unterminated:
        report.add("UNTERMINATED_FRAME", "the body ends inside a frame (no blank line after its last field)")
    if not frames:
        report.add("EMPTY_STREAM", "the stream holds no events")
    known = event_schema_names()
    state = _StreamState(report)
    last_sequence: int | None = None
    done_frame: int | None = None
    final: dict[str, Any] | None = None
    for index, frame in enumerate(frames):
        if frame.ids:
            report.add(
                "ID_FIELD_PRESENT",
                f"an id: line ({frame.ids[0]!r}) at line {frame.line}; servers SHOULD NOT use the SSE id field",
                index,
            )
        if done_frame is not None:
            report.add("DATA_AFTER_DONE", f"a frame after data: [DONE] (frame {done_frame})", index)
        if frame.data is None:
            report.add("INVALID_EVENT", f"a frame without data: at line {frame.line}", index)
            continue
        if frame.data == "[DONE]":
            if done_frame is None:
                done_frame = index
            continue
        try:
            event = json.loads(frame.data)
        except ValueError as err:
            report.add("INVALID_JSON", f"data at line {frame.line} is not JSON: {err}", index)
            continue
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            report.add("INVALID_EVENT", f"data at line {frame.line} is not an object with a string type", index)
            continue
        report.events.append(event)
        etype = event["type"]
        if frame.event != etype:
            report.add("EVENT_TYPE_MISMATCH", f"event: {frame.event!r} but the JSON type is {etype!r}", index)
        sequence = event.get("sequence_number")
        if isinstance(sequence, int) and not isinstance(sequence, bool):
            if last_sequence is not None and sequence <= last_sequence:
                report.add(
                    "NON_MONOTONIC_SEQUENCE", f"{etype} has sequence_number {sequence} after {last_sequence}", index
                )
            last_sequence = sequence
        schema_name = known.get(etype)
        if schema_name is None:
            if ":" in etype:  # a provider extension event: allowed by the spec, outside every FSM
                if not isinstance(sequence, int):
                    report.add("SCHEMA_INVALID", f"extension event {etype!r} lacks an integer sequence_number", index)
                continue
            report.add("UNKNOWN_EVENT_TYPE", f"{etype!r} is none of the spec's streaming events", index)
            continue
        for message in schema_errors(event, schema_name):
            report.add("SCHEMA_INVALID", f"{etype} ({schema_name}) {message}", index)
        if etype in TERMINAL_EVENTS and isinstance(event.get("response"), dict) and final is None:
            final = event["response"]
            # the event schema already checked its shape
            check_response_resource(final, report, frame=index, where=f"{etype}.response", schema=False)
        state.feed(event, index)
    state.finish(final)
    if done_frame is None:
        report.add("MISSING_DONE", "the stream does not end with data: [DONE]")
    report.response = final
    return report


def check_websocket_turn(messages: Iterable[str]) -> ConformanceReport:
    """Check one WebSocket-mode turn: the text messages of one ``response.create``, up to its terminal event.

    WebSocket mode sends "the same streaming event objects with the same ordering and sequence_number semantics"
    (spec notes §1.11), one JSON object per message and no ``[DONE]``. So every message must be an event object,
    none may be ``[DONE]`` (the compliance suite fails a ``[DONE]`` before the terminal event, and one after it would
    be read as the next turn's), and the events are checked by :func:`check_stream`, every rule but the SSE framing.

    :return: the report; ``response`` is the terminal event's response.
    """
    frames: list[str] = []
    report = ConformanceReport()
    for index, message in enumerate(messages):
        if message == "[DONE]":
            report.add(
                "DONE_ON_WEBSOCKET", "a [DONE] message: WebSocket mode ends a turn with its terminal event", index
            )
            continue
        try:
            event = json.loads(message)
        except ValueError as err:
            report.add("INVALID_JSON", f"message {index} is not JSON: {err}", index)
            continue
        etype = event.get("type") if isinstance(event, dict) else None
        # Re-framed as SSE (event: = type) so the stream rules apply unchanged.
        frames.append(f"event: {etype}\ndata: {json.dumps(event)}\n\n")
    streamed = check_stream("".join(frames) + "data: [DONE]\n\n", "text/event-stream")
    streamed.violations[:0] = report.violations
    return streamed
