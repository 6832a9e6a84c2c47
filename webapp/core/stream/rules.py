"""The stream rules as one ordered table (:data:`RULES`), and what breaking one looks like (:class:`Finding`).

Each rule has a stable ``code``, a severity (``error``: the stream is wrong; ``warning``: allowed, or a SHOULD, but
it will bite a client or the official suite), one sentence saying what it asks, where it comes from, and whether
the official compliance suite (the Open Responses project's own; spec notes §3.2, §3.6, §5.11) checks it.
The upstream state-machine validator's names are given in ``source`` where a rule is one of its rules. The linter
(:mod:`webapp.core.stream.lint`) emits only codes of this table; ``tests/unit/test_stream_lint.py`` checks each one is
emitted by some stream and that the table's order is the order of :data:`GROUPS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Rule", "RULES", "RULE", "GROUPS", "SEVERITIES", "Finding"]

SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Rule:
    """One rule of a stream.

    :ivar code: stable name (``event_field_mismatch``); :ivar group: one of :data:`GROUPS`.
    :ivar severity: ``error`` or ``warning``; :ivar what: what the rule asks, one sentence.
    :ivar source: where it comes from (a spec section, an RFC, the upstream validator's rule).
    :ivar suite: whether the official compliance suite checks it (``False``: a rule it skips).
    """

    code: str
    group: str
    severity: str
    what: str
    source: str
    suite: bool = False


#: The groups in the order the table lists them.
GROUPS = ("transport", "events", "sequence", "items", "response", "calls")

_HTTP = "Open Responses spec, HTTP Transport (streaming)"
_FSM = "Open Responses spec, Items: state machine; upstream state-machines validator"
_STREAMING = "Open Responses spec, Streaming (spec notes §2.3-2.5)"

RULES: tuple[Rule, ...] = (
    # -- transport: how the events are framed
    Rule("content_type", "transport", "error", "a streamed answer is sent as Content-Type: text/event-stream", _HTTP),
    Rule(
        "unterminated_frame",
        "transport",
        "warning",
        "the body ends with a blank line after its last frame (a browser drops a frame without one)",
        "WHATWG HTML, Server-sent events: dispatch",
    ),
    Rule(
        "frame_without_data",
        "transport",
        "error",
        "every SSE frame carries a data: line",
        "WHATWG HTML, Server-sent events; Open Responses spec, HTTP Transport",
    ),
    Rule(
        "event_field_mismatch",
        "transport",
        "error",
        "each SSE frame's event: field equals the JSON type of its data",
        _HTTP,
    ),
    Rule("id_field", "transport", "warning", "no SSE id: field (servers SHOULD NOT use it)", _HTTP),
    Rule("missing_done", "transport", "error", "an SSE stream ends with the literal data: [DONE]", _HTTP),
    Rule("data_after_done", "transport", "error", "nothing follows data: [DONE]", _HTTP),
    Rule(
        "done_on_websocket",
        "transport",
        "error",
        "WebSocket mode sends no [DONE]: a turn ends with its terminal event",
        "Open Responses spec, WebSocket Transport (spec notes §3.5)",
        True,
    ),
    # -- events: each event on its own
    Rule(
        "unreadable_event",
        "events",
        "error",
        "each event's data is JSON (I-JSON: no duplicate names, NaN or lone surrogates)",
        f"{_HTTP}; RFC 7493",
        True,
    ),
    Rule("not_an_event", "events", "error", "each event is a JSON object with a string type", _STREAMING, True),
    Rule(
        "unknown_event",
        "events",
        "error",
        "each event is one of the 24 streaming events of the spec, or a provider extension named slug:name",
        "Open Responses OpenAPI 2026-04-24, text/event-stream oneOf",
        True,
    ),
    Rule(
        "schema_invalid",
        "events",
        "error",
        "each event validates against its schema in the OpenAPI document",
        "Open Responses OpenAPI 2026-04-24, *StreamingEvent schemas",
        True,
    ),
    Rule(
        "extension_event",
        "events",
        "warning",
        "a provider's own event (slug:name) is allowed and must be "
        "ignorable, but the official suite fails any event outside the 24",
        "Open Responses spec, Extensions",
    ),
    Rule(
        "extension_item",
        "events",
        "warning",
        "a provider's own item type (slug:name) is allowed by the prose, "
        "but the schemas and the official suite refuse it",
        "Open Responses spec, Extensions (spec notes §5.2)",
    ),
    # -- sequence: the order of the whole stream
    Rule(
        "sequence_order", "sequence", "error", "sequence_number strictly increases", f"{_FSM} (NON_MONOTONIC_SEQUENCE)"
    ),
    Rule(
        "sequence_gap",
        "sequence",
        "warning",
        "sequence_number counts from 0 without gaps, so a client sees that nothing was lost",
        "Open Responses spec, Streaming: sequence_number; the built-in endpoint",
    ),
    Rule("first_event", "sequence", "error", "the first event is response.created", _STREAMING),
    Rule(
        "response_transition",
        "sequence",
        "error",
        "the response goes created -> (queued) -> in_progress -> one "
        "terminal state, and items stream only while it is in_progress",
        f"{_FSM} (INVALID_RESPONSE_TRANSITION)",
    ),
    Rule(
        "after_terminal",
        "sequence",
        "error",
        "no event follows the terminal event",
        f"{_FSM} (INVALID_RESPONSE_TRANSITION)",
    ),
    Rule(
        "no_terminal",
        "sequence",
        "error",
        "exactly one terminal event (response.completed, .incomplete or .failed) ends the stream",
        f"{_FSM} (RESPONSE_NOT_TERMINATED)",
        True,
    ),
    Rule(
        "error_without_failed",
        "sequence",
        "error",
        "an error event is followed by response.failed",
        "Open Responses spec, Streaming: errors",
    ),
    # -- items: each item's added -> deltas -> done
    Rule(
        "unknown_item",
        "items",
        "error",
        "a delta or done event names an item an output_item.added announced",
        f"{_FSM} (UNKNOWN_ITEM)",
    ),
    Rule("duplicate_item", "items", "error", "each item is added once", f"{_FSM} (DUPLICATE_ITEM)"),
    Rule(
        "output_index",
        "items",
        "error",
        "items are added at output_index 0, 1, 2 ... and every event of an item carries its output_index",
        _STREAMING,
    ),
    Rule(
        "wrong_item_kind",
        "items",
        "error",
        "argument events are about function_call items, content parts about message and reasoning items",
        _STREAMING,
    ),
    Rule(
        "item_transition",
        "items",
        "error",
        "an item is added in_progress, gets no event after its output_item.done, and is done once",
        f"{_FSM} (INVALID_ITEM_TRANSITION)",
    ),
    Rule(
        "unknown_part",
        "items",
        "error",
        "a text event names a content part a content_part.added announced",
        f"{_FSM} (UNKNOWN_CONTENT_PART)",
    ),
    Rule("duplicate_part", "items", "error", "each content part is added once", f"{_FSM} (DUPLICATE_CONTENT_PART)"),
    Rule("content_index", "items", "error", "an item's parts are added at content_index 0, 1, 2 ...", _STREAMING),
    Rule(
        "part_transition",
        "items",
        "error",
        "a content part gets no text after its text's done event, and is done once",
        f"{_FSM} (INVALID_CONTENT_PART_TRANSITION)",
    ),
    Rule(
        "text_mismatch",
        "items",
        "error",
        "a part's text deltas concatenate to its done text and to its content_part.done part",
        "Open Responses spec, Streaming: delta events (spec notes §3.8)",
    ),
    Rule(
        "arguments_mismatch",
        "items",
        "error",
        "function_call_arguments.delta events concatenate to "
        "function_call_arguments.done's arguments and to the done item's arguments",
        "Open Responses spec, Streaming: delta events (spec notes §3.8)",
    ),
    Rule(
        "part_mismatch",
        "items",
        "error",
        "output_item.done's content equals the parts content_part.done gave",
        "spec notes §3.8",
    ),
    Rule(
        "part_not_done",
        "items",
        "error",
        "every content part added is done before its item",
        f"{_FSM} (CONTENT_PART_NOT_TERMINATED)",
    ),
    Rule(
        "item_not_done",
        "items",
        "error",
        "every item added gets its output_item.done before the terminal event",
        f"{_FSM} (ITEM_NOT_TERMINATED)",
    ),
    Rule(
        "tool_call_as_text",
        "items",
        "error",
        "a tool call is streamed as a function_call item, not as tool-call markup or JSON in a message's text",
        "Open Responses spec, Streaming: function calls (spec notes §2.4)",
    ),
    # -- response: the final response against what the stream built
    Rule(
        "terminal_status",
        "response",
        "error",
        "the terminal event's response has the status its type names, and no earlier event's response is finished",
        _STREAMING,
    ),
    Rule(
        "response_id", "response", "error", "every event's response has the id of the response.created one", _STREAMING
    ),
    Rule(
        "output_mismatch",
        "response",
        "error",
        "the items the stream built equal the final response's output",
        "spec notes §3.8",
    ),
    Rule(
        "incomplete_not_last",
        "response",
        "error",
        "an incomplete item is the last one and its response is incomplete",
        "Open Responses spec, Items: state machine",
    ),
    Rule(
        "status_inconsistent",
        "response",
        "error",
        "item and response statuses agree: an item is done completed "
        "or incomplete, a completed response holds only completed items, and in an incomplete response only the "
        "items that finished before the cut are completed (the last one is incomplete)",
        "Open Responses spec, Items: state machine",
    ),
    Rule(
        "incomplete_details",
        "response",
        "warning",
        "an incomplete response says why (incomplete_details.reason)",
        "Open Responses spec, Items: state machine; ResponseResource",
    ),
    # -- calls: what the replay gate says of each finished call
    Rule(
        "gate_refused",
        "calls",
        "error",
        "every completed function_call passes the replay gate: its arguments "
        "are a JSON string of I-JSON that validates against its tool's parameters",
        "the replay gate (webapp.core.gate): arguments_type, arguments_parse, arguments_schema",
    ),
)
#: code -> its :class:`Rule`.
RULE: dict[str, Rule] = {rule.code: rule for rule in RULES}


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken rule, as data (like the gate's ``Finding``).

    :ivar code: one of :data:`RULES`' codes.
    :ivar index: the frame it is about (0-based, counted over every frame of the recording, ``[DONE]`` and
        unreadable ones included: the timeline's row), or ``None`` for the recording as a whole.
    :ivar line: :ivar column: where that frame (or the place inside it) is in the pasted text, 1-based.
    :ivar pointer: RFC 6901 JSON Pointer into the event of the member at fault (``""``: the event itself).
    :ivar message: one sentence for people.
    :ivar stream: which stream of the recording (0-based).
    """

    code: str
    index: int | None
    line: int | None
    column: int | None
    pointer: str
    message: str
    stream: int = 0

    @property
    def severity(self) -> str:
        """``error`` or ``warning`` (the rule's)."""
        return RULE[self.code].severity

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``code``, ``severity``, ``event`` (the index), ``line``, ``column``, ``pointer``, ``message``,
        ``stream``."""
        return {
            "code": self.code,
            "severity": self.severity,
            "event": self.index,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "message": self.message,
            "stream": self.stream,
        }
