"""The Format page's item reports (pure, ``webapp/core/inspection.py``): type badges, arguments, the gate's word."""

from __future__ import annotations

import json

import pytest

from webapp.core import gate
from webapp.core.inspection import NOT_CHECKED, arguments_check, inspect, type_badge
from webapp.core.json import parse, parse_lines

# -- items -----------------------------------------------------------------------------------------------------

FC_001 = {
    "type": "function_call",
    "id": "fc_001",
    "name": "get_latest_sales_report",
    "call_id": "call_123",
    "status": "completed",
    "arguments": '{"region":"apac"}',
}


@pytest.mark.parametrize(
    ("item", "kind", "tone"),
    [
        ({"type": "message", "role": "user", "content": "hi"}, "core", "ok"),
        (FC_001, "core", "ok"),
        ({"type": "function_call_output", "call_id": "c", "output": "x"}, "core", "ok"),
        ({"type": "reasoning", "summary": []}, "spec", "info"),
        ({"type": "item_reference", "id": "msg_1"}, "spec", "info"),
        ({"type": "compaction", "encrypted_content": "x"}, "spec", "info"),
        ({"type": "openai:web_search_call", "id": "ws_001", "status": "completed"}, "extension", "bad"),
        ({"type": "web_search_call"}, "provider", "bad"),
        ({"type": "frobnicate"}, "unknown", "warn"),
        ({"role": "user", "content": "hi"}, "missing", "warn"),
        ({"role": "assistant", "tool_calls": []}, "missing", "bad"),
        ({"id": "x"}, "missing", "bad"),
        ({"type": 5}, "invalid", "bad"),
        ([FC_001], "invalid", "bad"),
    ],
)
def test_type_badges(item, kind, tone):
    badge = type_badge(item)
    assert (badge.kind, badge.tone) == (kind, tone)
    assert badge.note


def test_a_namespaced_badge_names_the_provider_slug():
    assert '"openai"' in type_badge({"type": "openai:web_search_call"}).note


# (arguments value, state, reason the gate gives with no schema)
ARGUMENTS = [
    ('{"region":"apac"}', "json_object", "arguments_schema"),
    ("[1, 2]", "json_other", "arguments_schema"),
    ('"{\\"region\\":\\"apac\\"}"', "double_encoded", "arguments_schema"),
    (json.dumps(json.dumps('{"region":"apac"}')), "double_encoded", "arguments_schema"),
    ("", "empty", "arguments_parse"),
    ("   ", "empty", "arguments_parse"),
    ('{"region":"ap', "truncated", "arguments_parse"),
    ('{"region": "apac",', "truncated", "arguments_parse"),
    ("{'region': 'apac'}", "invalid", "arguments_parse"),
    ('{"a": 1, "a": 2}', "invalid", "arguments_parse"),
    ('{"a": NaN}', "invalid", "arguments_parse"),
    ('{"a": "\\ud800"}', "invalid", "arguments_parse"),
    ('{"a": 1e400}', "invalid", "arguments_parse"),
    ('{"a": 12345678901234567890}', "json_object", "arguments_schema"),
    ({"region": "apac"}, "object", "arguments_type"),
    (5, "not_string", "arguments_type"),
    (None, "not_string", "arguments_type"),
    (["a"], "not_string", "arguments_type"),
]


@pytest.mark.parametrize(("arguments", "state", "gate_reason"), ARGUMENTS)
def test_arguments_states_agree_with_the_gate(arguments, state, gate_reason):
    item = {**FC_001, "arguments": arguments}
    check = arguments_check(item)
    assert check.state == state
    verdict = gate.check_item(item, None)
    assert verdict.reason == gate_reason
    if check.reason is not None:
        assert check.reason == verdict.reason  # the page never claims another reason than the gate
    assert check.message


def test_double_encoded_arguments_fail_an_object_schema_in_the_gate():
    item = {**FC_001, "arguments": json.dumps(FC_001["arguments"])}
    assert arguments_check(item).layers == 2
    assert gate.check_item(item, {"type": "object"}).reason == "arguments_schema"


def test_missing_arguments():
    item = {k: v for k, v in FC_001.items() if k != "arguments"}
    check = arguments_check(item)
    assert (check.state, check.reason) == ("missing", gate.check_item(item, None).reason)


def test_good_arguments_are_shown_parsed_with_numbers_as_written():
    check = arguments_check({**FC_001, "arguments": '{"price":1.10,"n":1e2}'})
    assert check.text == '{\n  "price": 1.10,\n  "n": 1e2\n}'


def test_object_arguments_are_shown_as_written_when_the_raw_text_is_known():
    check = arguments_check({**FC_001, "arguments": {"price": 1.1}}, raw='{"price": 1.10}')
    assert check.text == '{\n  "price": 1.10\n}'


def test_truncated_arguments_name_the_place_inside_the_string():
    check = arguments_check({**FC_001, "arguments": '{"region":"ap'})
    assert (check.error.line, check.error.column) == (1, 14)
    assert "line 1, column 14" in check.message


@pytest.mark.parametrize(
    ("value", "shape", "pointers"),
    [
        (FC_001, "item", [""]),
        ([FC_001, {"type": "message", "role": "user", "content": "x"}], "array", ["/0", "/1"]),
        ({"object": "response", "output": [FC_001]}, "response", ["/output/0"]),
        ({"model": "m", "input": [FC_001]}, "request", ["/input/0"]),
    ],
)
def test_inspect_finds_items_in_every_journal_shape(value, shape, pointers):
    inspection = inspect(parse(json.dumps(value)))
    assert inspection.shape == shape
    assert [item.pointer for item in inspection.items] == pointers
    assert inspection.reasons.get(NOT_CHECKED) == 1  # only the schema is left: not shown as a refusal


@pytest.mark.parametrize(
    "value",
    [
        {"type": "object", "properties": {}}.get("properties"),
        [1, 2],
        "text",
        3,
        {"name": "get_weather", "parameters": {}},
        [[FC_001]],
    ],
)
def test_inspect_ignores_documents_that_hold_no_items(value):
    assert inspect(parse(json.dumps(value))) is None


def test_inspect_reads_json_lines_and_keeps_line_numbers():
    records = parse_lines(json.dumps(FC_001) + "\n\n" + json.dumps({"type": "openai:web_search_call"}) + "\n")
    inspection = inspect(records)
    assert inspection.shape == "jsonl"
    assert [(item.index, item.line, item.badge.kind) for item in inspection.items] == [
        (0, 1, "core"),
        (1, 3, "extension"),
    ]


def test_inspect_shows_the_first_items_and_counts_them_all():
    items = [
        {**FC_001, "id": f"fc_{i}", "call_id": f"call_{i}", "arguments": "" if i % 2 else "{}"} for i in range(120)
    ]
    inspection = inspect(parse(json.dumps(items)), limit=10)
    assert inspection.total == 120 and len(inspection.items) == 10
    assert inspection.states == {"json_object": 60, "empty": 60}
    assert inspection.reasons == {NOT_CHECKED: 60, "arguments_parse": 60}
    # One call_id for them all: every call after the first is refused (duplicate_call_id), as the Journal page says.
    again = inspect(parse(json.dumps([{**item, "call_id": "call_0"} for item in items])), limit=10)
    assert again.reasons == {NOT_CHECKED: 1, "arguments_parse": 60, "refused": 59}
    assert again.items[2].gate_label == "refused" and again.items[2].refused_by == ("duplicate_call_id",)
    assert again.items[2].gate_summary[0] == "bad"


def test_a_lone_item_is_refused_by_what_stops_it_whatever_its_value():
    # From a fresh user's audit: Format said "not checked" for an item giving "status" twice.
    text = json.dumps(FC_001)[:-1] + ', "status": "incomplete", "status": "completed"}'
    inspection = inspect(parse(text))
    [item] = inspection.items
    assert item.gate_label == "refused" and item.refused_by == ("duplicate_member",)
    finding = inspection.findings[0]  # FC_001 has a status already: given three times, two findings
    assert {f.code for f in inspection.findings} == {"duplicate_member"}
    assert finding.index is None and finding.message.startswith('the item gives the member name "status" twice')
    bare = inspect(parse(json.dumps({k: v for k, v in FC_001.items() if k != "call_id"})))
    assert bare.items[0].refused_by == ("missing_call_id",) and bare.findings[0].message.startswith("the item has no")
    assert inspect(parse(json.dumps(FC_001))).findings == []


def test_journal_items_giving_a_name_twice_are_refused_on_json_lines_too():
    line = json.dumps(FC_001)[:-1] + ', "status": "incomplete", "status": "completed"}'
    other = json.dumps({**FC_001, "call_id": "call_other", "id": "fc_other"})
    inspection = inspect(parse_lines(other + "\n" + line + "\n"))
    assert [item.refused_by for item in inspection.items] == [(), ("duplicate_member",)]
    assert {(f.code, f.index, f.line) for f in inspection.findings} == {
        ("duplicate_member", 1, 2),
        ("not_checked", None, None),  # no tools on the Format page: its call is not checked, and it says so
    }


def test_item_text_is_the_item_as_written():
    text = '[{"type": "function_call", "id": "fc_1", "status": "completed", "n": 1.10, "arguments": "{}"}]'
    [item] = inspect(parse(text)).items
    assert '"n": 1.10' in item.text


def test_an_output_a_finding_stops_is_refused_though_it_has_nothing_to_run():
    # From a fresh user's audit: an orphan output was badged and counted not_function_call beside its refusal.
    output = {"type": "function_call_output", "call_id": "nowhere", "output": "ok"}
    inspection = inspect(parse_lines(json.dumps(output) + "\n" + json.dumps(FC_001) + "\n"))
    assert inspection.reasons == {"refused": 1, NOT_CHECKED: 1}
    item = inspection.items[0]
    assert item.gate_label == "refused" and item.gate_summary == (
        "bad",
        "nothing to execute, but orphan_output stops this item (see the findings): it may not be replayed",
    )
