"""Conformance of ``/v1/responses`` to the official OpenAPI document and the stream state machine.

Two halves:

* the checker (``tests/support/openapi_conformance.py``) is itself tested: hand-made good streams pass, and each
  hand-made bad stream is caught with the violation code that names its fault;
* the real endpoint (``live_server``) is run through the upstream compliance cases (spec notes §3.3, §3.4)
  plus an incomplete reply, and every body and every streamed event must pass the checker.
"""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from support import SHARED, TEST_TOKEN
from support.openapi_conformance import (
    SPEC_PATH,
    check_json_response,
    check_response_resource,
    check_stream,
    event_schema_names,
    parse_sse,
    schema_errors,
)

from webapp.core.conformance.cases import data_url, pdf_bytes, png_bytes

# ================================================================================ hand-made streams


def response_snapshot(status: str = "in_progress", output: list | None = None, **extra: Any) -> dict[str, Any]:
    """A ResponseResource with every required field (spec notes §4)."""
    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "completed_at": 1700000001 if status == "completed" else None,
        "status": status,
        "incomplete_details": None,
        "model": "test",
        "previous_response_id": None,
        "instructions": None,
        "output": output or [],
        "error": None,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": True,
        "text": {"format": {"type": "text"}},
        "top_p": 1,
        "presence_penalty": 0,
        "frequency_penalty": 0,
        "top_logprobs": 0,
        "temperature": 1,
        "reasoning": None,
        "usage": {
            "input_tokens": 3,
            "output_tokens": 2,
            "total_tokens": 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": True,
        "background": False,
        "service_tier": "default",
        "metadata": {},
        "safety_identifier": None,
        "prompt_cache_key": None,
    }
    body.update(extra)
    return body


def message_item(text: str, status: str = "completed", item_id: str = "msg_1") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status != "in_progress" else []
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def text_events(
    chunks: tuple[str, ...] = ("Hello", " there", "!"),
    *,
    item_id: str = "msg_1",
    output_index: int = 0,
    item_status: str = "completed",
) -> list[dict[str, Any]]:
    """The item part of a text reply (spec notes §2.3 steps 3-8)."""
    text = "".join(chunks)
    part = {"type": "output_text", "text": text, "annotations": []}
    where = {"item_id": item_id, "output_index": output_index, "content_index": 0}
    return [
        {
            "type": "response.output_item.added",
            "output_index": output_index,
            "item": message_item("", "in_progress", item_id),
        },
        {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
        *({"type": "response.output_text.delta", **where, "delta": chunk, "logprobs": []} for chunk in chunks),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        {
            "type": "response.output_item.done",
            "output_index": output_index,
            "item": message_item(text, item_status, item_id),
        },
    ]


def call_item(arguments: str, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


def call_events(chunks: tuple[str, ...] = ('{"location":', ' "Paris"}')) -> list[dict[str, Any]]:
    """The item part of a function call (spec notes §2.4 steps 3-6)."""
    arguments = "".join(chunks)
    where = {"item_id": "fc_1", "output_index": 0}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": call_item("", "in_progress")},
        *({"type": "response.function_call_arguments.delta", **where, "delta": chunk} for chunk in chunks),
        {"type": "response.function_call_arguments.done", **where, "arguments": arguments},
        {"type": "response.output_item.done", "output_index": 0, "item": call_item(arguments)},
    ]


def wrap(item_events: list[dict[str, Any]], terminal: str = "completed", **extra: Any) -> list[dict[str, Any]]:
    """created + in_progress + the item events + the terminal event whose output is every done item."""
    output = copy.deepcopy([e["item"] for e in item_events if e["type"] == "response.output_item.done"])
    events = [
        {"type": "response.created", "response": response_snapshot()},
        {"type": "response.in_progress", "response": response_snapshot()},
        *item_events,
        {"type": f"response.{terminal}", "response": response_snapshot(terminal, output, **extra)},
    ]
    return renumber(events)


def renumber(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events = json.loads(json.dumps(events))  # a deep copy that shares nothing, as two SSE frames would
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def to_sse(events: list[dict[str, Any]], *, done: bool = True) -> str:
    frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
    return "".join(frames) + ("data: [DONE]\n\n" if done else "")


SSE = "text/event-stream"


def incomplete_events() -> list[dict[str, Any]]:
    return wrap(
        text_events(("Once upon", " a"), item_status="incomplete"),
        "incomplete",
        incomplete_details={"reason": "max_output_tokens"},
    )


def failed_events() -> list[dict[str, Any]]:
    error = {
        "type": "error",
        "error": {"type": "server_error", "code": "model_error", "message": "boom", "param": None},
    }
    failed = response_snapshot("failed", error={"code": "model_error", "message": "boom"})
    return renumber(
        [
            {"type": "response.created", "response": response_snapshot()},
            {"type": "response.in_progress", "response": response_snapshot()},
            error,
            {"type": "response.failed", "response": failed},
        ]
    )


@pytest.mark.parametrize(
    "events",
    [
        pytest.param(wrap(text_events()), id="text"),
        pytest.param(wrap(call_events()), id="function_call"),
        pytest.param(wrap(text_events(item_id="msg_a") + text_events(item_id="msg_b", output_index=1)), id="two-items"),
        pytest.param(incomplete_events(), id="incomplete"),
        pytest.param(failed_events(), id="error-then-failed"),
    ],
)
def test_good_hand_made_streams_pass(events):
    report = check_stream(to_sse(events), SSE)
    report.assert_ok()
    assert report.response == events[-1]["response"]
    assert [e["type"] for e in report.events] == [e["type"] for e in events]


def test_the_checker_accepts_crlf_comments_and_a_content_type_with_charset():
    body = ": keep-alive\r\n\r\n" + to_sse(wrap(text_events())).replace("\n", "\r\n")
    check_stream(body, "text/event-stream; charset=utf-8").assert_ok()


def _drop(kind: str, nth: int = 0) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        matches = [i for i, e in enumerate(events) if e["type"] == kind]
        del events[matches[nth]]
        return renumber(events)

    return mutate


def _edit(kind: str, change: Callable[[dict], Any], nth: int = 0, renumbered: bool = True) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        change([e for e in events if e["type"] == kind][nth])
        return renumber(events) if renumbered else events

    return mutate


def _duplicate(kind: str, *, after: bool = True) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        index = next(i for i, e in enumerate(events) if e["type"] == kind)
        events.insert(index + 1 if after else index, copy.deepcopy(events[index]))
        return renumber(events)

    return mutate


def _move(kind: str, before: str) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        index = next(i for i, e in enumerate(events) if e["type"] == kind)
        event = events.pop(index)
        events.insert(next(i for i, e in enumerate(events) if e["type"] == before), event)
        return renumber(events)

    return mutate


def _insert_before(kind: str, new: dict) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        events.insert(next(i for i, e in enumerate(events) if e["type"] == kind), copy.deepcopy(new))
        return renumber(events)

    return mutate


def _final_output(change: Callable[[list], Any]) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        change(events[-1]["response"]["output"])
        return events

    return mutate


DELTA = {
    "type": "response.output_text.delta",
    "item_id": "msg_1",
    "output_index": 0,
    "content_index": 0,
    "delta": "x",
    "logprobs": [],
}

# (id, base events, mutation of the event list, expected violation code)
EVENT_MUTATIONS: list[tuple[str, Callable[[], list], Callable[[list], list], str]] = [
    (
        "sequence-equal",
        lambda: wrap(text_events()),
        _edit("response.output_text.delta", lambda e: e.update(sequence_number=2), nth=1, renumbered=False),
        "NON_MONOTONIC_SEQUENCE",
    ),
    (
        "sequence-decreasing",
        lambda: wrap(text_events()),
        _edit("response.completed", lambda e: e.update(sequence_number=0), renumbered=False),
        "NON_MONOTONIC_SEQUENCE",
    ),
    (
        "schema-part-without-annotations",
        lambda: wrap(text_events()),
        _edit("response.content_part.added", lambda e: e["part"].pop("annotations")),
        "SCHEMA_INVALID",
    ),
    (
        "schema-delta-without-content-index",
        lambda: wrap(text_events()),
        _edit("response.output_text.delta", lambda e: e.pop("content_index")),
        "SCHEMA_INVALID",
    ),
    (
        "schema-final-response-missing-usage",
        lambda: wrap(text_events()),
        _edit("response.completed", lambda e: e["response"].pop("usage")),
        "SCHEMA_INVALID",
    ),
    (
        "schema-no-sequence-number",
        lambda: wrap(text_events()),
        _edit("response.in_progress", lambda e: e.pop("sequence_number"), renumbered=False),
        "SCHEMA_INVALID",
    ),
    (
        "unknown-event-type",
        lambda: wrap(text_events()),
        _insert_before("response.completed", {"type": "response.thinking"}),
        "UNKNOWN_EVENT_TYPE",
    ),
    (
        "completed-before-in-progress",
        lambda: wrap(text_events()),
        _drop("response.in_progress"),
        "INVALID_RESPONSE_TRANSITION",
    ),
    (
        "in-progress-twice",
        lambda: wrap(text_events()),
        _duplicate("response.in_progress"),
        "INVALID_RESPONSE_TRANSITION",
    ),
    (
        "created-after-in-progress",
        lambda: wrap(text_events()),
        _move("response.created", "response.output_item.added"),
        "INVALID_RESPONSE_TRANSITION",
    ),
    (
        "two-terminal-events",
        lambda: wrap(text_events()),
        _duplicate("response.completed"),
        "INVALID_RESPONSE_TRANSITION",
    ),
    (
        "event-after-terminal",
        lambda: wrap(text_events()),
        lambda ev: renumber(ev + [copy.deepcopy(ev[-2])]),
        "INVALID_RESPONSE_TRANSITION",
    ),
    (
        "item-before-in-progress",
        lambda: wrap(text_events()),
        _move("response.in_progress", "response.content_part.added"),
        "INVALID_RESPONSE_TRANSITION",
    ),
    ("no-terminal-event", lambda: wrap(text_events()), _drop("response.completed"), "RESPONSE_NOT_TERMINATED"),
    (
        "terminal-status-mismatch",
        lambda: wrap(text_events()),
        _edit("response.completed", lambda e: e["response"].update(status="in_progress", completed_at=None)),
        "RESPONSE_STATUS_MISMATCH",
    ),
    (
        "response-id-changes",
        lambda: wrap(text_events()),
        _edit("response.completed", lambda e: e["response"].update(id="resp_2")),
        "RESPONSE_ID_MISMATCH",
    ),
    ("item-added-twice", lambda: wrap(text_events()), _duplicate("response.output_item.added"), "DUPLICATE_ITEM"),
    (
        "item-done-twice",
        lambda: wrap(text_events()),
        _duplicate("response.output_item.done"),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "delta-after-item-done",
        lambda: wrap(text_events()),
        _insert_before("response.completed", DELTA),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "item-done-still-in-progress",
        lambda: wrap(text_events()),
        _edit("response.output_item.done", lambda e: e["item"].update(status="in_progress")),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "item-added-already-completed",
        lambda: wrap(text_events()),
        _edit("response.output_item.added", lambda e: e["item"].update(status="completed")),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "arguments-delta-on-a-message",
        lambda: wrap(text_events()),
        _insert_before(
            "response.output_text.done",
            {"type": "response.function_call_arguments.delta", "item_id": "msg_1", "output_index": 0, "delta": "{"},
        ),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "arguments-delta-after-done",
        lambda: wrap(call_events()),
        _move("response.function_call_arguments.done", "response.function_call_arguments.delta"),
        "INVALID_ITEM_TRANSITION",
    ),
    (
        "delta-for-unknown-item",
        lambda: wrap(text_events()),
        _edit("response.output_text.delta", lambda e: e.update(item_id="msg_9")),
        "UNKNOWN_ITEM",
    ),
    (
        "done-for-unknown-item",
        lambda: wrap(text_events()),
        _edit("response.output_item.done", lambda e: e["item"].update(id="msg_9")),
        "UNKNOWN_ITEM",
    ),
    ("item-never-done", lambda: wrap(text_events()), _drop("response.output_item.done"), "ITEM_NOT_TERMINATED"),
    (
        "delta-for-unknown-part",
        lambda: wrap(text_events()),
        _edit("response.output_text.delta", lambda e: e.update(content_index=1)),
        "UNKNOWN_CONTENT_PART",
    ),
    (
        "part-added-twice",
        lambda: wrap(text_events()),
        _duplicate("response.content_part.added"),
        "DUPLICATE_CONTENT_PART",
    ),
    (
        "delta-after-part-done",
        lambda: wrap(text_events()),
        _insert_before("response.output_item.done", DELTA),
        "INVALID_CONTENT_PART_TRANSITION",
    ),
    (
        "delta-after-text-done",
        lambda: wrap(text_events()),
        _insert_before("response.content_part.done", DELTA),
        "INVALID_CONTENT_PART_TRANSITION",
    ),
    (
        "part-never-done",
        lambda: wrap(text_events()),
        _drop("response.content_part.done"),
        "CONTENT_PART_NOT_TERMINATED",
    ),
    (
        "part-added-at-index-1",
        lambda: wrap(text_events()),
        lambda ev: renumber([{**e, "content_index": 1} if "content_index" in e else e for e in ev]),
        "CONTENT_INDEX_MISMATCH",
    ),
    (
        "delta-at-other-output-index",
        lambda: wrap(text_events()),
        _edit("response.output_text.delta", lambda e: e.update(output_index=3)),
        "OUTPUT_INDEX_MISMATCH",
    ),
    (
        "item-added-at-index-1",
        lambda: wrap(text_events()),
        lambda ev: renumber([{**e, "output_index": 1} if "output_index" in e else e for e in ev]),
        "OUTPUT_INDEX_MISMATCH",
    ),
    ("text-delta-lost", lambda: wrap(text_events()), _drop("response.output_text.delta", 1), "DELTA_MISMATCH"),
    (
        "text-done-differs",
        lambda: wrap(text_events()),
        _edit("response.output_text.done", lambda e: e.update(text="Hello!")),
        "DELTA_MISMATCH",
    ),
    (
        "part-done-differs",
        lambda: wrap(text_events()),
        _edit("response.content_part.done", lambda e: e["part"].update(text="Hi")),
        "DELTA_MISMATCH",
    ),
    (
        "arguments-delta-lost",
        lambda: wrap(call_events()),
        _drop("response.function_call_arguments.delta", 1),
        "DELTA_MISMATCH",
    ),
    (
        "item-arguments-differ",
        lambda: wrap(call_events()),
        _edit("response.output_item.done", lambda e: e["item"].update(arguments='{"location": "Rome"}')),
        "DELTA_MISMATCH",
    ),
    (
        "item-content-differs-from-part",
        lambda: wrap(text_events()),
        lambda ev: _final_output(lambda out: out[0]["content"][0].update(text="Bye"))(
            _edit("response.output_item.done", lambda e: e["item"]["content"][0].update(text="Bye"))(ev)
        ),
        "PART_MISMATCH",
    ),
    (
        "final-output-differs",
        lambda: wrap(text_events()),
        _final_output(lambda out: out[0]["content"][0].update(text="Bye")),
        "ITEM_MISMATCH",
    ),
    ("final-output-missing-item", lambda: wrap(text_events()), _final_output(lambda out: out.clear()), "ITEM_MISMATCH"),
    (
        "arguments-not-json",
        lambda: wrap(call_events()),
        lambda _: wrap(call_events(('{"location":', " Paris}"))),
        "ARGUMENTS_NOT_JSON",
    ),
    (
        "item-after-incomplete-item",
        lambda: wrap(text_events() + text_events(item_id="msg_2", output_index=1)),
        lambda _: wrap(
            text_events(item_status="incomplete") + text_events(item_id="msg_2", output_index=1),
            "incomplete",
            incomplete_details={"reason": "max_output_tokens"},
        ),
        "INCOMPLETE_ITEM_NOT_LAST",
    ),
    (
        "incomplete-item-but-completed",
        incomplete_events,
        lambda _: wrap(text_events(item_status="incomplete")),
        "INCOMPLETE_ITEM_NOT_LAST",
    ),
    (
        "incomplete-without-reason",
        incomplete_events,
        _edit("response.incomplete", lambda e: e["response"].update(incomplete_details=None)),
        "INCOMPLETE_DETAILS_MISSING",
    ),
    (
        "error-then-completed",
        lambda: wrap(text_events()),
        _insert_before("response.completed", failed_events()[2]),
        "ERROR_WITHOUT_FAILED",
    ),
]


@pytest.mark.parametrize("make, mutate, code", [pytest.param(*case[1:], id=case[0]) for case in EVENT_MUTATIONS])
def test_each_stream_violation_is_detected(make, mutate, code):
    events = make()
    check_stream(to_sse(events), SSE).assert_ok()  # the base is good, so the mutation alone is at fault
    report = check_stream(to_sse(mutate(events)), SSE)
    assert code in report.codes, report.violations
    assert all(v.message for v in report.violations)


GOOD = to_sse(wrap(text_events()))

# (id, raw SSE body, content type, expected violation code): faults of the framing, not of the events
FRAMING_FAULTS = [
    ("content-type-json", GOOD, "application/json", "CONTENT_TYPE"),
    ("content-type-missing", GOOD, None, "CONTENT_TYPE"),
    (
        "event-line-differs",
        GOOD.replace("event: response.output_text.done", "event: message", 1),
        SSE,
        "EVENT_TYPE_MISMATCH",
    ),
    ("event-line-missing", GOOD.replace("event: response.in_progress\n", "", 1), SSE, "EVENT_TYPE_MISMATCH"),
    (
        "id-line",
        GOOD.replace("event: response.created\n", "id: 1\nevent: response.created\n", 1),
        SSE,
        "ID_FIELD_PRESENT",
    ),
    ("no-done", to_sse(wrap(text_events()), done=False), SSE, "MISSING_DONE"),
    (
        "done-not-last",
        GOOD + 'event: response.completed\ndata: {"type": "response.completed"}\n\n',
        SSE,
        "DATA_AFTER_DONE",
    ),
    ("done-twice", GOOD + "data: [DONE]\n\n", SSE, "DATA_AFTER_DONE"),
    ("data-not-json", GOOD.replace("data: [DONE]", "data: {oops}\n\ndata: [DONE]"), SSE, "INVALID_JSON"),
    ("data-not-an-event", GOOD.replace("data: [DONE]", "data: [1, 2]\n\ndata: [DONE]"), SSE, "INVALID_EVENT"),
    ("event-without-data", GOOD.replace("data: [DONE]", "event: ping\n\ndata: [DONE]"), SSE, "INVALID_EVENT"),
    ("last-frame-unterminated", GOOD.removesuffix("\n\n"), SSE, "UNTERMINATED_FRAME"),
    ("empty-body", "", SSE, "EMPTY_STREAM"),
]


@pytest.mark.parametrize("body, content_type, code", [pytest.param(*case[1:], id=case[0]) for case in FRAMING_FAULTS])
def test_each_framing_violation_is_detected(body, content_type, code):
    assert code in check_stream(body, content_type).codes


def test_a_violation_names_its_frame_and_the_offending_value():
    events = wrap(text_events())
    events[4]["sequence_number"] = 3  # the second delta repeats the first one's number
    violation = next(v for v in check_stream(to_sse(events), SSE).violations if v.code == "NON_MONOTONIC_SEQUENCE")
    assert violation.frame == 4
    assert "sequence_number 3 after 3" in violation.message
    assert str(violation).startswith("NON_MONOTONIC_SEQUENCE: frame 4: ")


def test_parse_sse_follows_the_whatwg_rules():
    body = "event: a\ndata: one\ndata:two\n: a comment\nid: 7\n\ndata: x\r\n\r\nevent: tail\ndata: y"
    frames, unterminated = parse_sse(body)
    assert [(f.event, f.data, f.ids) for f in frames] == [("a", "one\ntwo", ("7",)), (None, "x", ())]
    assert frames[1].line == 7
    assert unterminated


# ================================================================================ non-streamed bodies


def test_a_complete_body_passes_and_each_body_fault_is_detected():
    good = response_snapshot("completed", [message_item("Hi")])
    assert check_json_response(json.dumps(good), "application/json").ok
    faults = {
        "SCHEMA_INVALID": {k: v for k, v in good.items() if k != "tools"},
        "ARGUMENTS_NOT_JSON": response_snapshot("completed", [call_item("{'location': 'Paris'}")]),
        "INCOMPLETE_ITEM_NOT_LAST": response_snapshot(
            "incomplete",
            [message_item("a", "incomplete"), message_item("b", item_id="msg_2")],
            incomplete_details={"reason": "max_output_tokens"},
        ),
    }
    for code, body in faults.items():
        assert code in check_json_response(json.dumps(body), "application/json").codes, code
    assert "CONTENT_TYPE" in check_json_response(json.dumps(good), "text/html").codes
    assert "INVALID_JSON" in check_json_response("<html>", "application/json").codes


def test_schema_errors_name_the_member_at_fault():
    body = response_snapshot("completed", [message_item("Hi")])
    del body["output"][0]["content"][0]["annotations"]
    body["tools"] = [{"type": "function", "name": "f"}]  # description/parameters/strict keys are required
    messages = schema_errors(body, "ResponseResource", limit=10)
    assert any(m.startswith("/tools/0") and "description" in m for m in messages), messages
    assert check_response_resource(body).codes == {"SCHEMA_INVALID"}


def test_the_vendored_openapi_document_is_the_shared_reference():
    doc = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    assert doc["info"] == {"title": "Open Responses", "version": "2026-04-24"}
    assert len(event_schema_names()) == 24
    shared = SHARED / "reference" / "openresponses-openapi.json"
    if shared.exists():  # beside the checkout on the team's machines; CI may have a bare clone
        assert json.loads(shared.read_text(encoding="utf-8")) == doc


def test_the_spec_example_response_is_itself_invalid():
    """Spec notes §5.5: the document's own ResponseResource example misses required fields; the checker says so."""
    doc = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    example = doc["components"]["schemas"]["ResponseResource"].get("example")
    if example is None:
        pytest.skip("this version of the document has no example")
    assert schema_errors(example, "ResponseResource")


# ================================================================================ the real endpoint

# Upstream's shared tool definition, verbatim (spec notes §3.3).
G = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "required": ["location"],
        "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}},
    },
}


def user(content: Any) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": content}


def post(base_url: str, body: dict[str, Any]) -> tuple[int, str | None, bytes]:
    """POST /v1/responses as the upstream suite does (JSON, Bearer token); returns (status, Content-Type, body)."""
    request = urllib.request.Request(
        f"{base_url}/v1/responses",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {TEST_TOKEN}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers.get("Content-Type"), answer.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type"), err.read()


def run(base_url: str, body: dict[str, Any]):
    """Send ``body`` (with ``model`` and an explicit ``stream``, like upstream) and check what comes back."""
    body = {"model": "test", "stream": False, **body}
    status, content_type, raw = post(base_url, body)
    assert status == 200, f"HTTP {status}: {raw[:500]!r}"
    report = check_stream(raw, content_type) if body["stream"] else check_json_response(raw, content_type)
    report.assert_ok()
    assert report.response is not None
    return report


# Single-request cases of the upstream compliance suite (spec notes §3.3); the id is upstream's.
SINGLE_CASES = [
    ("basic-response", {"input": [user("Say hello in exactly 3 words.")]}, "message"),
    ("streaming-response", {"input": [user("Count from 1 to 5.")], "stream": True}, "message"),
    (
        "system-prompt",
        {
            "input": [
                {"type": "message", "role": "system", "content": "You are a pirate. Always respond in pirate speak."},
                user("Say hello."),
            ]
        },
        "message",
    ),
    ("tool-calling", {"input": [user("What's the weather like in San Francisco?")], "tools": [G]}, "function_call"),
    (
        "tool-calling-streaming",
        {"input": [user("What's the weather like in San Francisco?")], "tools": [G], "stream": True},
        "function_call",
    ),
    (
        "image-input",
        {
            "input": [
                user(
                    [
                        {"type": "input_text", "text": "What do you see in this image? Answer in one sentence."},
                        {"type": "input_image", "image_url": data_url("image/png", png_bytes())},
                    ]
                )
            ]
        },
        "message",
    ),
    (
        "file-input",
        {
            "input": [
                user(
                    [
                        {"type": "input_text", "text": "Read the attached file and answer with its title only."},
                        {
                            "type": "input_file",
                            "filename": "openresponses-fixture.pdf",
                            "file_data": data_url("application/pdf", pdf_bytes()),
                        },
                    ]
                )
            ]
        },
        "message",
    ),
    (
        "multi-turn",
        {
            "input": [
                user("My name is Alice."),
                {
                    "type": "message",
                    "role": "assistant",
                    "content": "Hello Alice! Nice to meet you. How can I help you today?",
                },
                user("What is my name?"),
            ]
        },
        "message",
    ),
    ("instructions-and-string-input", {"instructions": "Answer briefly.", "input": "Hello"}, "message"),
]


@pytest.mark.parametrize("body, output_type", [pytest.param(*case[1:], id=case[0]) for case in SINGLE_CASES])
def test_compliance_case(live_server, body, output_type):
    report = run(live_server, body)
    response = report.response
    assert response["output"], "hasOutput"
    assert response["status"] == "completed"
    assert any(item["type"] == output_type for item in response["output"]), response["output"]
    if body.get("stream"):
        types = [e["type"] for e in report.events]
        assert types[:2] == ["response.created", "response.in_progress"]
        if output_type == "function_call":  # upstream tool-calling-streaming's checks
            added = [e for e in report.events if e["type"] == "response.output_item.added"]
            assert any(e["item"]["type"] == "function_call" for e in added)
            assert "response.function_call_arguments.delta" in types
            assert "response.function_call_arguments.done" in types
        else:
            assert "response.output_text.delta" in types and "response.content_part.done" in types


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_max_output_tokens_gives_an_incomplete_response_whose_last_item_is_incomplete(live_server, stream):
    words = " ".join(f"word{n}" for n in range(400))
    report = run(live_server, {"input": f"Repeat after me: {words}", "max_output_tokens": 16, "stream": stream})
    response = report.response
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["output"][-1]["status"] == "incomplete"
    if stream:
        assert report.events[-1]["type"] == "response.incomplete"


def _normalised(response: dict[str, Any]) -> dict[str, Any]:
    """The response with the fields that differ between two runs (ids, clocks) blanked."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: ("*" if k in {"id", "call_id", "created_at", "completed_at"} else walk(v)) for k, v in value.items()
            }
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(response)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"input": "Count from 1 to 5."}, id="text"),
        pytest.param({"input": "Weather in Paris?", "tools": [G]}, id="function_call"),
    ],
)
def test_the_final_streamed_response_equals_the_non_streamed_one(live_server, body):
    plain = run(live_server, body).response
    streamed = run(live_server, {**body, "stream": True}).response
    assert _normalised(streamed) == _normalised(plain)


def test_function_call_roundtrip(live_server):
    """Upstream ``function-call-roundtrip`` (spec notes §3.4): tools are not resent on the second turn."""
    first = run(
        live_server,
        {
            "input": "Use the weather tool to get the temperature in San Francisco.",
            "tools": [G],
            "tool_choice": {"type": "function", "name": "get_weather"},
        },
    ).response
    call = next((item for item in first["output"] if item["type"] == "function_call" and item.get("call_id")), None)
    assert call is not None, "First response did not include a function_call with call_id"
    assert call["name"] == "get_weather"
    assert isinstance(json.loads(call["arguments"])["location"], str)  # valid against G's parameters
    second = run(
        live_server,
        {
            "previous_response_id": first["id"],
            "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "64 degrees and clear"}],
        },
    ).response
    assert second["output"] and second["status"] == "completed"
    assert second["previous_response_id"] == first["id"]
    assert second["output"][-1]["type"] == "message"


def test_previous_response_id(live_server):
    """Upstream ``previous-response-id``: ``store`` is never sent, so responses are kept by default."""
    first = run(live_server, {"input": "Remember this code word: papaya. Reply with only OK."}).response
    second = run(
        live_server,
        {"previous_response_id": first["id"], "input": "What code word did I ask you to remember?", "stream": True},
    ).response
    assert second["output"] and second["status"] == "completed"
    assert second["previous_response_id"] == first["id"]


def test_the_endpoint_accepts_its_own_output_echoed_back(live_server):
    """Replayed output items (with ``id``/``status``) are valid input (issue 4, Items)."""
    first = run(live_server, {"input": "What's the weather like in Paris?", "tools": [G]}).response
    call = first["output"][-1]
    echoed = [
        user("What's the weather like in Paris?"),
        *first["output"],
        {"type": "function_call_output", "call_id": call["call_id"], "output": "18 C"},
    ]
    second = run(live_server, {"input": echoed, "tools": [G]}).response
    assert second["status"] == "completed" and second["output"][-1]["type"] == "message"


def test_stored_response_is_conformant_when_read_back(live_server):
    first = run(live_server, {"input": "Say hello."}).response
    request = urllib.request.Request(
        f"{live_server}/v1/responses/{first['id']}", headers={"Authorization": f"Bearer {TEST_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        report = check_json_response(answer.read(), answer.headers.get("Content-Type"))
    report.assert_ok()
    assert report.response == first


def test_a_model_failure_streams_error_then_response_failed(live_server):
    """Spec notes §2.5: ``error``, then ``response.failed`` with ``error: {code, message}``, then ``[DONE]``.

    The test model fails when a tool's parameters admit no value (here a string of at least 5 and at most 2
    characters), so the failure path is reachable without fault injection.
    """
    impossible = {
        "type": "function",
        "name": "lookup",
        "description": None,
        "strict": None,
        "parameters": {
            "type": "object",
            "required": ["code"],
            "properties": {"code": {"type": "string", "minLength": 5, "maxLength": 2}},
        },
    }
    status, content_type, raw = post(
        live_server, {"model": "test", "input": "Call lookup.", "tools": [impossible], "stream": True}
    )
    assert status == 200
    report = check_stream(raw, content_type)
    report.assert_ok()
    assert [e["type"] for e in report.events][-2:] == ["error", "response.failed"]
    assert report.response["status"] == "failed" and report.response["error"]["code"] == "model_error"


TEN_ARGUMENTS = {
    "type": "function",
    "name": "fill_form",
    "description": None,
    "strict": None,
    "parameters": {
        "type": "object",
        "required": [f"field{n}" for n in range(10)],
        "properties": {f"field{n}": {"type": "string"} for n in range(10)},
    },
}
TIME = {
    "type": "function",
    "name": "get_time",
    "description": "Current time in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    "body, status, shape",
    [
        pytest.param(
            {"input": "Call get_weather and get_time for Paris.", "tools": [G, TIME]},
            "completed",
            ["function_call", "function_call"],
            id="parallel-calls",
        ),
        pytest.param(
            {"input": "Fill the form.", "tools": [TEN_ARGUMENTS], "max_output_tokens": 16},
            "incomplete",
            ["function_call"],
            id="call-cut-by-max-output-tokens",
        ),
        pytest.param(
            {
                "input": "Weather?",
                "tools": [G, TIME],
                "tool_choice": {
                    "type": "allowed_tools",
                    "mode": "required",
                    "tools": [{"type": "function", "name": "get_time"}],
                },
            },
            "completed",
            ["function_call"],
            id="allowed-tools",
        ),
        pytest.param(
            {
                "input": "Pick one.",
                "text": {
                    "format": {
                        "type": "json_schema",
                        "name": "pick",
                        "schema": {
                            "type": "object",
                            "required": ["n"],
                            "properties": {"n": {"type": "integer", "minimum": 3}},
                        },
                    }
                },
            },
            "completed",
            ["message"],
            id="json-schema-format",
        ),
        pytest.param(
            {
                "instructions": "Be brief.",
                "metadata": {"run": "7"},
                "reasoning": {"effort": "low"},
                "input": [
                    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]},
                    {"type": "message", "role": "developer", "content": "No emoji."},
                    user("Hi"),
                ],
            },
            "completed",
            ["message"],
            id="echoed-settings-and-reasoning-input",
        ),
    ],
)
def test_other_shapes_stay_conformant(live_server, body, status, shape, stream):
    response = run(live_server, {**body, "stream": stream}).response
    assert response["status"] == status
    assert [item["type"] for item in response["output"]] == shape
