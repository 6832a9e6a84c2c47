"""The conformance cases (``webapp.core.conformance.cases``): the official 17 are exactly the suite's (spec notes
§3, the 2026-04-24 release of ``src/lib/compliance-tests.ts``), the extra ones are counted apart, and the four new
cases check what the suite checks, through a fake transport."""

from __future__ import annotations

import json
from typing import Any

from webapp.core.conformance import CASE_IDS, CASES, EXTRA, OFFICIAL, SUITE, Answer, run_case
from webapp.core.conformance.cases import phase_fixture
from webapp.core.conformance.checks import EndpointReport

#: The suite's 17 test ids, in its order (spec notes §3, the correction at its head).
SUITE_IDS = (
    "basic-response",
    "assistant-phase",
    "response-output-phase-schema",
    "streaming-response",
    "websocket-response",
    "websocket-sequential-responses",
    "websocket-continuation",
    "websocket-reconnect-store-false-recovery",
    "websocket-previous-response-not-found",
    "websocket-failed-continuation-evicts-cache",
    "websocket-compact-new-chain",
    "system-prompt",
    "tool-calling",
    "image-input",
    "multi-turn",
    "compact-response",
    "compact-missing-model",
)
UNMERGED = ("tool-calling-streaming", "file-input", "function-call-roundtrip", "previous-response-id")


class Fake:
    """A transport that answers every POST with ``answer`` and records what was sent."""

    def __init__(self, status: int = 200, body: Any = None) -> None:
        self.status = status
        self.body = body
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def post(self, path: str, body: dict[str, Any]) -> Answer:
        self.sent.append((path, body))
        return Answer(self.status, "application/json", json.dumps(self.body))

    def connect(self) -> Any:
        raise AssertionError("no WebSocket expected")


def test_the_official_cases_are_exactly_the_suites_17_in_its_order():
    assert OFFICIAL == SUITE_IDS
    assert set(UNMERGED) <= set(EXTRA) and not set(UNMERGED) & set(OFFICIAL)
    assert [case.id for case in CASES] == [*OFFICIAL, *EXTRA]
    assert "2026-04-24" in SUITE and "src/lib/compliance-tests.ts" in SUITE


def test_the_report_counts_the_suite_and_the_extra_cases_apart():
    transport = Fake(200, phase_fixture("m"))
    results = [run_case(CASE_IDS[name], transport, "m") for name in ("response-output-phase-schema", "file-input")]
    report = EndpointReport("http://127.0.0.1:1/v1", "m", results)
    assert [case.id for case in report.official] == ["response-output-phase-schema"]
    assert [case.id for case in report.extra] == ["file-input"]
    assert report.as_dict()["official"] == "1/1" and report.as_dict()["suite"] == SUITE


def test_response_output_phase_schema_sends_nothing_and_checks_the_phases():
    transport = Fake()
    result = run_case(CASE_IDS["response-output-phase-schema"], transport, "m")
    assert transport.sent == []
    assert result.passed, result.checks
    assert [c.name for c in result.checks] == [
        "ResponseResource schema",
        "hasOutput",
        "completedStatus",
        "hasAssistantMessagePhase(commentary)",
        "hasAssistantMessagePhase(final_answer)",
    ]


def test_assistant_phase_sends_the_labelled_history():
    body = phase_fixture("m")
    transport = Fake(200, body)
    result = run_case(CASE_IDS["assistant-phase"], transport, "m")
    assert result.passed, result.checks
    ((path, sent),) = transport.sent
    assert path == "/responses" and [m.get("phase") for m in sent["input"]] == ["commentary", "final_answer", None]


def compact(output: list[dict[str, Any]], obj: str = "response.compaction") -> dict[str, Any]:
    return {"id": "cmp_1", "object": obj, "output": output, "created_at": 1764967971, "usage": None}


def test_compact_response_wants_a_compaction_object_with_a_compaction_item():
    item = {"type": "compaction", "id": "cmp_item_1", "encrypted_content": "sealed"}
    transport = Fake(200, compact([item]))
    result = run_case(CASE_IDS["compact-response"], transport, "m")
    ((path, sent),) = transport.sent
    assert path == "/responses/compact" and sent["prompt_cache_key"] == "openresponses-compact-test"
    assert "stream" not in sent and sent["model"] == "m"
    checks = {c.name: c.passed for c in result.checks}
    assert checks["compactObject"] and checks["hasOutputType(compaction)"], result.checks
    message = {"type": "message", "id": "m1", "status": "completed", "role": "assistant", "content": []}
    failed = run_case(CASE_IDS["compact-response"], Fake(200, compact([message], "response")), "m")
    assert not failed.passed
    names = [c.name for c in failed.checks if not c.passed]
    assert "compactObject" in names and "hasOutputType(compaction)" in names


def test_compact_missing_model_wants_400_or_422_and_sends_no_model():
    for status, passes in ((400, True), (422, True), (200, False), (500, False)):
        transport = Fake(status, {"error": {"type": "invalid_request_error", "message": "model is required"}})
        result = run_case(CASE_IDS["compact-missing-model"], transport, "m")
        ((path, sent),) = transport.sent
        assert path == "/responses/compact" and "model" not in sent
        assert result.passed is passes, (status, result.checks)


def test_every_schema_violation_of_a_body_is_reported_grouped():
    body = phase_fixture("m")
    for member in ("top_p", "temperature", "presence_penalty", "frequency_penalty", "top_logprobs"):
        body[member] = "x"  # five members of one kind of fault
    del body["store"], body["background"]  # and two of another
    result = run_case(CASE_IDS["basic-response"], Fake(200, body), "m")
    (check,) = [c for c in result.checks if c.name == "ResponseResource schema"]
    assert not check.passed and check.detail.startswith("7 violations: ")
    # Each message once, with its count and its first three places: every violation is counted.
    assert 'expected number, got string "x" ×4 at /' in check.detail and "and 1 more place;" in check.detail
    assert 'expected integer, got string "x" at /top_logprobs' in check.detail
    assert 'missing required property "store" at /store' in check.detail
    assert 'missing required property "background" at /background' in check.detail


def sse(events: list[dict[str, Any]]) -> str:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n" for n, e in enumerate(events)
    )


class Streaming(Fake):
    def post(self, path: str, body: dict[str, Any]) -> Answer:
        self.sent.append((path, body))
        return Answer(self.status, "text/event-stream", self.body)


def test_streaming_schema_counts_refused_events_not_findings():
    final = {**phase_fixture("m"), "output": []}
    bad = {"type": "response.output_text.delta", "item_id": 1, "output_index": "x", "content_index": "y", "delta": 2}
    text = sse([{"type": "response.created", "response": {**final, "status": "in_progress"}}, bad, bad])
    text += sse([{"type": "response.completed", "response": final}]).replace(
        '"sequence_number": 0', '"sequence_number": 3'
    )
    result = run_case(CASE_IDS["streaming-response"], Streaming(200, text + "data: [DONE]\n\n"), "m")
    (check,) = [c for c in result.checks if c.name == "streamingSchema"]
    # Four faults an event, each one a finding (no cap at three an event).
    assert check.detail.startswith("2 events of 4 refused (8 findings), the first: event 1: schema_invalid: ")


CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"location": "San Francisco, CA"}',
    "status": "completed",
}


def test_the_gate_judges_a_call_by_the_tools_the_case_sent_not_the_echo():
    body = {**phase_fixture("m"), "output": [CALL], "tools": []}  # the server does not echo the tools
    result = run_case(CASE_IDS["tool-calling"], Fake(200, body), "m")
    (gate,) = [c for c in result.checks if c.name.startswith("replay gate")]
    assert gate.passed, gate.detail
    bad = {**CALL, "arguments": '{"city": "Paris"}'}  # the sent tool's schema wants location
    result = run_case(CASE_IDS["tool-calling"], Fake(200, {**body, "output": [bad]}), "m")
    (gate,) = [c for c in result.checks if c.name.startswith("replay gate")]
    assert not gate.passed and "location" in gate.detail


def test_a_streamed_call_is_gated_by_the_tools_sent():
    start = {**phase_fixture("m"), "status": "in_progress", "completed_at": None, "output": [], "tools": []}
    final = {**phase_fixture("m"), "output": [CALL], "tools": []}
    where = {"item_id": "fc_1", "output_index": 0}
    added = {**CALL, "arguments": "", "status": "in_progress"}
    events = [
        {"type": "response.created", "response": start},
        {"type": "response.in_progress", "response": start},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {"type": "response.function_call_arguments.delta", **where, "delta": CALL["arguments"]},
        {"type": "response.function_call_arguments.done", **where, "arguments": CALL["arguments"]},
        {"type": "response.output_item.done", "output_index": 0, "item": CALL},
        {"type": "response.completed", "response": final},
    ]  # fmt: skip
    result = run_case(CASE_IDS["tool-calling-streaming"], Streaming(200, sse(events) + "data: [DONE]\n\n"), "m")
    (exchange,) = result.exchanges
    assert [f.code for f in exchange.stream.findings] == []
    assert [call.reason for call in exchange.stream.streams[0].calls] == ["ok"]


def test_the_words_name_json_types_once():
    body = {**phase_fixture("m"), "model": None}
    result = run_case(CASE_IDS["basic-response"], Fake(200, body), "m")
    (check,) = [c for c in result.checks if c.name == "ResponseResource schema"]
    assert "expected string, got null at /model" in check.detail and "null null" not in check.detail
    result = run_case(CASE_IDS["basic-response"], Fake(200, None), "m")
    assert result.error == "a JSON object: the answer is JSON null, not an object"


def test_redaction_is_done_once_and_leaves_its_marker_whole():
    from webapp.check_endpoint import redact

    assert redact("a key: k", "k") == "a [the key]ey: [the key]"
    assert redact(redact("a key: k", "k"), "k") == "a [the key]ey: [the key]"
    assert redact({"type": "k", "text": ["k"]}, "k") == {"type": "k", "text": ["[the key]"]}
