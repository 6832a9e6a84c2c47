"""The stream linter (``webapp.core.stream.lint``): the built-in endpoint's own streams lint clean, and each rule of
``RULES`` is named, at the right event, by a stream made to break it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import REPO

from webapp.core.conformance import CASES
from webapp.core.pages.stream import build
from webapp.core.responses.events import stream_events
from webapp.core.stream import EVENT_SCHEMAS, RULE, RULES, lint_text

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Weather in a city",
    "parameters": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
    "strict": None,
}


def resource(status: str = "in_progress", output: list | None = None, **extra: Any) -> dict[str, Any]:
    """A ResponseResource with every required member (spec notes §4)."""
    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1767225600,
        "completed_at": 1767225601 if status == "completed" else None,
        "status": status,
        "incomplete_details": None,
        "model": "m",
        "previous_response_id": None,
        "instructions": None,
        "output": output or [],
        "error": None,
        "tools": [WEATHER],
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
        "usage": None,
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


def message(text: str = "Hello there, how are you today?", item_id: str = "msg_1", status: str = "completed"):
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def call(arguments: str = '{"city":"Paris"}', item_id: str = "fc_1", status: str = "completed"):
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": f"call_{item_id}",
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


def endpoint(output: list, status: str = "completed", **extra: Any) -> list[dict[str, Any]]:
    """The events the built-in endpoint streams for a response ending with ``output`` (its own stream_events)."""
    if status == "completed":
        extra.setdefault("completed_at", 1767225601)
    return json.loads(json.dumps(list(stream_events(resource(), resource(status, output, **extra)))))


def sse(events: list[dict[str, Any]], done: bool = True) -> str:
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return text + ("data: [DONE]\n\n" if done else "")


def renumber(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def found(text: str, kind: str = "auto") -> list[tuple[str, int | None]]:
    return [(f.code, f.index) for f in lint_text(text, kind).findings]


TEXT = endpoint([message()])
CALL = endpoint([call()])
TWO = endpoint([message(item_id="msg_a"), call(item_id="fc_b")])
INCOMPLETE = endpoint(
    [message("Once upon a time", status="incomplete")], "incomplete", incomplete_details={"reason": "max_output_tokens"}
)
FAILED = endpoint([], "failed", error={"code": "model_error", "message": "no valid arguments"})


@pytest.mark.parametrize("events", [TEXT, CALL, TWO, INCOMPLETE, FAILED], ids=["text", "call", "two", "cut", "failed"])
def test_the_endpoints_own_streams_lint_clean(events):
    report = lint_text(sse(events))
    assert report.findings == []
    stream = report.streams[0]
    assert stream.response == events[-1]["response"]
    assert stream.items == events[-1]["response"]["output"]
    assert [call.reason for call in stream.calls] == ["ok"] * sum(i["type"] == "function_call" for i in stream.items)


def test_the_same_events_as_json_lines_and_a_websocket_turn_lint_clean():
    lines = "\n".join(json.dumps(e) for e in TWO)
    assert found(lines) == []
    create = json.dumps({"type": "response.create", "model": "m", "input": "hi"})
    assert found(create + "\n" + lines) == []
    assert lint_text(create + "\n" + lines).kind == "websocket"


def at(kind: str, nth: int = 0) -> Callable[[list], int]:
    """The index of the ``nth`` event of ``kind``."""
    return lambda events: [i for i, e in enumerate(events) if e["type"] == kind][nth]


def edit(kind: str, change: Callable[[dict], Any], nth: int = 0) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        change(events[at(kind, nth)(events)])
        return events

    return mutate


def drop(kind: str, nth: int = 0) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        del events[at(kind, nth)(events)]
        return renumber(events)

    return mutate


def insert(before: str, new: dict, nth: int = 0) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        events.insert(at(before, nth)(events), copy.deepcopy(new))
        return renumber(events)

    return mutate


def move(kind: str, after: str) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        event = events.pop(at(kind)(events))
        events.insert(at(after)(events) + 1, event)
        return renumber(events)

    return mutate


def both(*mutations: Callable[[list], list]) -> Callable[[list], list]:
    def mutate(events: list) -> list:
        for mutation in mutations:
            events = mutation(events)
        return events

    return mutate


def final(change: Callable[[dict], Any]) -> Callable[[list], list]:
    return edit("response.completed", lambda e: change(e["response"]))


DELTA = "response.output_text.delta"
ARGS = "response.function_call_arguments.delta"


def _extension_item(events: list) -> list:
    """A provider's own item (``acme:search``) added and done after the message, and in the final output."""
    item = {"type": "acme:search", "id": "s_1", "status": "in_progress", "query": "tides"}
    done = {**item, "status": "completed"}
    events[-1]["response"]["output"].append(done)
    events[-1:-1] = [
        {"type": "response.output_item.added", "output_index": 1, "item": item},
        {"type": "response.output_item.done", "output_index": 1, "item": done},
    ]
    return renumber(events)


# (id, the stream's events, mutation, expected code, where: the index of the event it must name)
EVENTS: list[tuple[str, list, Callable[[list], list], str, Callable[[list], int]]] = [
    # events
    (
        "unknown-event",
        TEXT,
        edit(DELTA, lambda e: e.update(type="response.output_text.more")),
        "unknown_event",
        at("response.output_text.more"),
    ),
    ("schema", TEXT, edit(DELTA, lambda e: e.pop("content_index")), "schema_invalid", at(DELTA)),
    (
        "extension-event",
        TEXT,
        insert("response.completed", {"type": "acme:trace", "step": 1}),
        "extension_event",
        at("acme:trace"),
    ),
    ("extension-item", TEXT, _extension_item, "extension_item", at("response.output_item.added", 1)),
    # sequence
    (
        "sequence-equal",
        TEXT,
        edit(DELTA, lambda e: e.update(sequence_number=e["sequence_number"] - 1), nth=1),
        "sequence_order",
        at(DELTA, 1),
    ),
    (
        "sequence-gap",
        TEXT,
        edit("response.completed", lambda e: e.update(sequence_number=e["sequence_number"] + 2)),
        "sequence_gap",
        at("response.completed"),
    ),
    (
        "sequence-start",
        TEXT,
        lambda events: [{**e, "sequence_number": e["sequence_number"] + 1} for e in events],
        "sequence_gap",
        lambda e: 0,
    ),
    ("first-event", TEXT, drop("response.created"), "first_event", lambda e: 0),
    (
        "in-progress-twice",
        TEXT,
        insert("response.output_item.added", {**TEXT[1]}),
        "response_transition",
        at("response.in_progress", 1),
    ),
    (
        "items-before-in-progress",
        TEXT,
        move("response.in_progress", "response.output_item.added"),
        "response_transition",
        at("response.output_item.added"),
    ),
    ("after-terminal", TEXT, move(DELTA, "response.completed"), "after_terminal", at(DELTA, -1)),
    ("no-terminal", TEXT, drop("response.completed"), "no_terminal", lambda e: len(e) - 1),
    (
        "error-without-failed",
        TEXT,
        insert(
            "response.completed",
            {"type": "error", "error": {"type": "server_error", "code": "x", "message": "m", "param": None}},
        ),
        "error_without_failed",
        at("error"),
    ),
    # items
    ("unknown-item", TEXT, edit(DELTA, lambda e: e.update(item_id="msg_other")), "unknown_item", at(DELTA)),
    (
        "duplicate-item",
        TEXT,
        insert("response.content_part.added", TEXT[2]),
        "duplicate_item",
        at("response.output_item.added", 1),
    ),
    ("output-index", TEXT, edit(DELTA, lambda e: e.update(output_index=5)), "output_index", at(DELTA)),
    (
        "added-at-wrong-index",
        TEXT,
        edit("response.output_item.added", lambda e: e.update(output_index=1)),
        "output_index",
        at("response.output_item.added"),
    ),
    (
        "arguments-for-a-message",
        TWO,
        edit(ARGS, lambda e: e.update(item_id="msg_a", output_index=0)),
        "wrong_item_kind",
        at(ARGS),
    ),
    ("delta-after-item-done", TEXT, move(DELTA, "response.output_item.done"), "item_transition", at(DELTA, -1)),
    (
        "added-completed",
        TEXT,
        edit("response.output_item.added", lambda e: e["item"].update(status="completed")),
        "item_transition",
        at("response.output_item.added"),
    ),
    ("unknown-part", TEXT, edit(DELTA, lambda e: e.update(content_index=3)), "unknown_part", at(DELTA)),
    ("duplicate-part", TEXT, insert(DELTA, TEXT[3]), "duplicate_part", at("response.content_part.added", 1)),
    (
        "content-index",
        TEXT,
        edit("response.content_part.added", lambda e: e.update(content_index=1)),
        "content_index",
        at("response.content_part.added"),
    ),
    ("delta-after-part-done", TEXT, move(DELTA, "response.content_part.done"), "part_transition", at(DELTA, -1)),
    (
        "text-mismatch",
        TEXT,
        edit("response.output_text.done", lambda e: e.update(text="other")),
        "text_mismatch",
        at("response.output_text.done"),
    ),
    (
        "arguments-mismatch",
        CALL,
        edit("response.function_call_arguments.done", lambda e: e.update(arguments="{}")),
        "arguments_mismatch",
        at("response.function_call_arguments.done"),
    ),
    (
        "part-mismatch",
        TEXT,
        edit(
            "response.output_item.done",
            lambda e: e["item"]["content"][0].update(
                annotations=[{"type": "url_citation", "url": "u", "title": "t", "start_index": 0, "end_index": 1}]
            ),
        ),
        "part_mismatch",
        at("response.output_item.done"),
    ),
    ("part-not-done", TEXT, drop("response.content_part.done"), "part_not_done", at("response.output_item.done")),
    ("item-not-done", TEXT, drop("response.output_item.done"), "item_not_done", at("response.completed")),
    (
        "tool-call-as-text",
        endpoint([message('{"name": "get_weather", "arguments": {"city": "Oslo"}}')]),
        lambda e: e,
        "tool_call_as_text",
        at("response.output_text.done"),
    ),
    # response
    (
        "terminal-status",
        TEXT,
        final(lambda r: r.update(status="in_progress")),
        "terminal_status",
        at("response.completed"),
    ),
    (
        "snapshot-finished",
        TEXT,
        edit("response.in_progress", lambda e: e.update(response=resource("completed"))),
        "terminal_status",
        at("response.in_progress"),
    ),
    ("response-id", TEXT, final(lambda r: r.update(id="resp_2")), "response_id", at("response.completed")),
    (
        "output-mismatch",
        TEXT,
        final(lambda r: r["output"][0]["content"][0].update(text="other")),
        "output_mismatch",
        at("response.completed"),
    ),
    (
        "output-count",
        TEXT,
        final(lambda r: r["output"].append(message(item_id="msg_9"))),
        "output_mismatch",
        at("response.completed"),
    ),
    (
        "incomplete-not-last",
        INCOMPLETE,
        lambda e: endpoint(
            [message("a", item_id="m0", status="incomplete"), message(item_id="m1")],
            "incomplete",
            incomplete_details={"reason": "max_output_tokens"},
        ),
        "incomplete_not_last",
        at("response.output_item.added", 1),
    ),
    (
        "incomplete-in-completed",
        TEXT,
        lambda e: endpoint([message(status="incomplete")]),
        "incomplete_not_last",
        at("response.completed"),
    ),
    (
        "done-in-progress",
        TEXT,
        edit("response.output_item.done", lambda e: e["item"].update(status="in_progress")),
        "status_inconsistent",
        at("response.output_item.done"),
    ),
    (
        "completed-in-incomplete",
        INCOMPLETE,
        lambda e: endpoint([message()], "incomplete", incomplete_details={"reason": "max_output_tokens"}),
        "status_inconsistent",
        at("response.incomplete"),
    ),
    (
        "incomplete-without-reason",
        INCOMPLETE,
        edit("response.incomplete", lambda e: e["response"].update(incomplete_details=None)),
        "incomplete_details",
        at("response.incomplete"),
    ),
    # calls
    (
        "gate-unparsable",
        CALL,
        lambda e: endpoint([call('{"city": "Paris"')]),
        "gate_refused",
        at("response.output_item.done"),
    ),
    (
        "gate-schema",
        CALL,
        lambda e: endpoint([call('{"town": "Paris"}')]),
        "gate_refused",
        at("response.output_item.done"),
    ),
    (
        "gate-unknown-tool",
        CALL,
        lambda e: endpoint([{**call(), "name": "get_time"}]),
        "gate_refused",
        at("response.output_item.done"),
    ),
]


@pytest.mark.parametrize("events, mutate, code, where", [pytest.param(*case[1:], id=case[0]) for case in EVENTS])
def test_each_rule_is_named_at_its_event(events, mutate, code, where):
    broken = mutate(copy.deepcopy(events))
    findings = found(sse(broken))
    assert (code, where(broken)) in findings, findings


# (id, SSE text, expected code, the frame it must name)
FRAMES: list[tuple[str, str, str, int]] = [
    ("content-type", "HTTP/1.1 200 OK\nContent-Type: application/json\n\n" + sse(TEXT), "content_type", 0),
    ("unterminated", sse(TEXT, done=False)[:-1], "unterminated_frame", len(TEXT) - 1),
    (
        "frame-without-data",
        sse(TEXT).replace("event: response.in_progress\n", "event: response.in_progress\n\nevent: x\n", 1),
        "frame_without_data",
        1,
    ),
    (
        "event-field",
        sse(TEXT).replace("event: response.in_progress", "event: response.progress"),
        "event_field_mismatch",
        1,
    ),
    ("no-event-field", sse(TEXT).replace("event: response.in_progress\n", ""), "event_field_mismatch", 1),
    (
        "id-field",
        sse(TEXT).replace("event: response.in_progress\n", "event: response.in_progress\nid: 1\n"),
        "id_field",
        1,
    ),
    ("missing-done", sse(TEXT, done=False), "missing_done", len(TEXT) - 1),
    ("data-after-done", sse(TEXT) + sse(TEXT[3:4], done=False), "data_after_done", len(TEXT) + 1),
    (
        "unreadable",
        sse(TEXT).replace('data: {"type": "response.in_progress"', 'data: {"type": response.in_progress"', 1),
        "unreadable_event",
        1,
    ),
    (
        "not-an-event",
        sse(TEXT).replace("event: response.in_progress\n", "data: [1]\n\nevent: response.in_progress\n", 1),
        "not_an_event",
        1,
    ),
]


@pytest.mark.parametrize("text, code, where", [pytest.param(*case[1:], id=case[0]) for case in FRAMES])
def test_each_framing_rule_is_named_at_its_frame(text, code, where):
    findings = found(text)
    assert (code, where) in findings, findings


def test_done_on_a_websocket_is_named():
    create = json.dumps({"type": "response.create", "model": "m"})
    log = "\n".join([create, *(json.dumps(e) for e in TEXT), "[DONE]"])
    assert ("done_on_websocket", len(TEXT) + 1) in found(log)


def test_a_refused_websocket_turn_is_no_stream():
    create = json.dumps({"type": "response.create", "model": "m", "previous_response_id": "resp_x"})
    refusal = {
        "type": "error",
        "status": 400,
        "error": {
            "type": "invalid_request_error",
            "code": "previous_response_not_found",
            "message": "no",
            "param": "previous_response_id",
        },
    }
    report = lint_text("\n".join([create, json.dumps(refusal), create, *(json.dumps(e) for e in TEXT)]))
    assert report.findings == []
    assert report.streams[0].refusal == refusal and report.streams[1].response["status"] == "completed"


def test_every_rule_of_the_table_is_exercised_here():
    exercised = {case[3] for case in EVENTS} | {case[2] for case in FRAMES} | {"done_on_websocket"}
    assert exercised == set(RULE)


def test_findings_carry_the_place_and_the_pointer():
    broken = edit(DELTA, lambda e: e.pop("content_index"))(copy.deepcopy(TEXT))
    text = sse(broken)
    report = lint_text(text)
    (finding,) = [f for f in report.findings if f.code == "schema_invalid"]
    line = text.split("\n").index(f"data: {json.dumps(broken[at(DELTA)(broken)])}") + 1
    assert (finding.line, finding.column, finding.pointer) == (line, 7, "/content_index")
    assert finding.severity == "error" and finding.as_dict()["event"] == at(DELTA)(broken)
    assert "content_index" in finding.message


def test_a_missing_field_is_reported_once_not_on_every_delta():
    broken = copy.deepcopy(TEXT)
    for event in broken:
        if event["type"] == DELTA:
            event["item_id"] = "msg_elsewhere"
    codes = [code for code, _ in found(sse(broken))]
    assert codes.count("unknown_item") == 1


def test_a_done_part_whose_type_is_no_string_is_a_finding_not_a_crash():
    # The part's type keys the table of text members: a list there raised TypeError (unhashable) before.
    done = "response.content_part.done"
    broken = edit(done, lambda e: e["part"].update(type=["output_text"]))(copy.deepcopy(TEXT))
    assert ("schema_invalid", at(done)(broken)) in found(sse(broken))


def test_the_rules_table():
    assert len({rule.code for rule in RULES}) == len(RULES)
    assert all(rule.severity in ("error", "warning") and rule.what and rule.source for rule in RULES)
    groups = [rule.group for rule in RULES]
    assert groups == sorted(groups, key=("transport", "events", "sequence", "items", "response", "calls").index)


def test_docs_stream_names_every_rule_and_every_case():
    text = (REPO / "docs" / "stream.md").read_text(encoding="utf-8")
    assert [rule.code for rule in RULES if f"`{rule.code}`" not in text] == []
    assert [case.id for case in CASES if f"`{case.id}`" not in text] == []


_KEYS = ("type", "sequence_number", "item_id", "output_index", "content_index", "summary_index", "delta", "text")
_KEYS += ("arguments", "item", "part", "response", "error", "status", "id", "output", "tools", "refusal")
_scalars = st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from(["", "x", "msg_1", "completed", "fc_1"])
_values = st.recursive(
    _scalars | st.sampled_from(["message", "function_call", "output_text", "acme:x", "incomplete"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5),
    max_leaves=12,
)
_events = st.dictionaries(st.sampled_from(_KEYS), _values, max_size=7).flatmap(
    lambda event: st.sampled_from([*EVENT_SCHEMAS, "acme:x", "response.create", "bogus"]).map(
        lambda kind: {**event, "type": kind}
    )
)


@settings(derandomize=True, database=None, deadline=None, max_examples=300)
@given(events=st.lists(_events, max_size=10), kind=st.sampled_from(["sse", "jsonl", "websocket"]), done=st.booleans())
def test_any_events_at_all_are_answered_with_findings_of_the_table(events, kind, done):
    if kind == "sse":
        text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n" * done
    else:
        text = "\n".join([*(json.dumps(e) for e in events), *(["[DONE]"] if done else [])])
    if not text.strip():
        return
    report = lint_text(text, kind)
    assert {finding.code for finding in report.findings} <= set(RULE)
    json.dumps(report.as_dict(), default=str)
    page = build(text, kind)
    assert page.error is None and len(page.streams) == len(report.streams)


def test_a_missing_item_id_is_one_finding_not_two():
    # With no item announced, a delta without item_id was schema_invalid /item_id and unknown_item "names item_id
    # null": one missing member reported twice.
    gone = ("response.output_item.added", "response.content_part.added")
    broken = [e for e in copy.deepcopy(TEXT) if e["type"] not in gone]
    edit(DELTA, lambda e: e.pop("item_id"))(broken)
    report = lint_text(sse(renumber(broken)))
    on_delta = [(f.code, f.pointer) for f in report.findings if f.index == at(DELTA)(broken)]
    assert on_delta == [("schema_invalid", "/item_id")]
    assert not any("item_id null" in f.message for f in report.findings)


def test_an_unknown_item_id_names_the_item_it_is_read_as_by_its_output_index():
    """The fallback item is named by its output_index (the item), and the event that added it (the place), never
    by the event index as if it were the item's number."""
    broken = copy.deepcopy(TEXT)
    for event in broken:
        if event["type"] == DELTA:
            event["item_id"] = "msg_elsewhere"
    [finding] = [f for f in lint_text(sse(broken), "auto").findings if f.code == "unknown_item"]
    assert "read as about the item at output_index 0 (added at event" in finding.message
