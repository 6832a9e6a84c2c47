"""webapp.core.gate: the article's contract (reasons and their order), details of check_item, check_journal's rules.

Data-driven from ``tests/cases/gate.json`` (one item each) and ``tests/cases/journal.json`` (whole journals)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from support import TESTS

from webapp.core import gate
from webapp.core.gate import (
    DEFAULT_MAX_DEPTH,
    FINDINGS,
    REASONS,
    STEPS,
    ItemRef,
    SchemaError,
    Verdict,
    check_item,
    check_journal,
    load_journal,
    replay_gate,
)
from webapp.core.json import NOT_IJSON, JSONTextError, try_loads_ijson

HERE = TESTS
SAMPLES = HERE / "data" / "samples"  # sample journals and tools (README.md there)
SAMPLE_TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
            "additionalProperties": False,
        },
        "strict": True,
    },
    {
        "type": "function",
        "name": "get_latest_sales_report",
        "description": "Latest sales report for a region",
        "parameters": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": False,
            "required": ["region"],
            "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
        },
        "strict": True,
    },
]
SCHEMAS = {tool["name"]: tool["parameters"] for tool in SAMPLE_TOOLS}
GATE = json.loads((HERE / "cases" / "gate.json").read_text(encoding="utf-8"))["cases"]
JOURNALS = json.loads((HERE / "cases" / "journal.json").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(autouse=True)
def short_pattern_budget(monkeypatch):
    """Catastrophic patterns give up after 0.2 s here instead of 1 s: same behaviour, faster suite."""
    monkeypatch.setattr("webapp.core.schema.patterns.PATTERN_BUDGET_SECONDS", 0.2)


def schema_of(case: dict):
    return case["schema"] if "schema" in case else SCHEMAS[case["tool"]]


def test_sample_tools_match_the_sample_file():
    """The tool schemas above are the sample tools.json."""
    assert json.loads((SAMPLES / "tools.json").read_text()) == SAMPLE_TOOLS


@pytest.mark.parametrize("case", GATE, ids=[c["description"] for c in GATE])
def test_replay_gate(case):
    assert replay_gate(case["item"], schema_of(case)) == case["reason"]


@pytest.mark.parametrize("case", GATE, ids=[c["description"] for c in GATE])
def test_check_item_agrees_and_explains(case):
    verdict = check_item(case["item"], schema_of(case))
    assert isinstance(verdict, Verdict)
    assert verdict.reason == case["reason"]
    assert verdict.ok is (case["reason"] == "ok")
    assert verdict.message
    assert verdict.schema_problem is None
    if case["reason"] == "arguments_schema":
        assert verdict.errors
    else:
        assert verdict.errors == ()
    if "errors" in case:
        pairs = zip(verdict.errors, case["errors"], strict=False)  # the lengths are compared below
        got = [{key: getattr(error, key) for key in expected} for error, expected in pairs]
        assert got == case["errors"]
        assert len(verdict.errors) == len(case["errors"])
    if case["reason"] == "arguments_parse":
        assert isinstance(verdict.parse_error, JSONTextError)
        assert f"line {verdict.parse_error.line}, column {verdict.parse_error.column}" in verdict.message
        for key, value in case.get("parse", {}).items():
            assert getattr(verdict.parse_error, key) == value
    else:
        assert verdict.parse_error is None
    if case["reason"] in ("ok", "arguments_schema"):
        assert verdict.arguments == json.loads(case["item"]["arguments"])


def test_reasons_are_the_articles_in_order():
    assert REASONS == (
        "namespaced",
        "not_function_call",
        "status",
        "arguments_type",
        "arguments_parse",
        "arguments_schema",
        "ok",
    )
    assert {case["reason"] for case in GATE} == set(REASONS)


def test_verdict_as_dict_is_json():
    verdict = check_item(GATE[1]["item"], schema_of(GATE[1]))
    data = json.loads(json.dumps(verdict.as_dict()))
    assert data["reason"] == "arguments_schema" and data["ok"] is False
    assert data["errors"] == [
        {
            "pointer": "/region",
            "keyword": "enum",
            "schema_path": "/properties/region/enum",
            "message": '"global" is not one of: "apac", "emea", "amer"',
        }
    ]
    assert data["parse_error"] is None and data["schema_error"] is None


BAD_SCHEMA = {"type": "object", "properties": {"region": {"$ref": "https://example.com/region.json"}}}


def test_replay_gate_raises_for_an_unusable_schema():
    with pytest.raises(SchemaError) as caught:
        replay_gate(GATE[0]["item"], BAD_SCHEMA)
    assert caught.value.pointer == "/properties/region/$ref"


def test_check_item_reports_an_unusable_schema_apart_from_the_item():
    verdict = check_item(GATE[0]["item"], BAD_SCHEMA)
    assert verdict.reason == "arguments_schema" and not verdict.ok
    assert verdict.errors == ()
    assert verdict.schema_problem is not None
    assert verdict.as_dict()["schema_error"]["pointer"] == "/properties/region/$ref"
    assert "remote references are disabled" in verdict.message
    # an item that stops earlier keeps its own reason, and the schema problem is still reported
    stopped = check_item({**GATE[0]["item"], "status": "incomplete"}, BAD_SCHEMA)
    assert stopped.reason == "status" and stopped.schema_problem is not None


def test_no_schema_never_lets_a_call_run():
    assert replay_gate(GATE[0]["item"], None) == "arguments_schema"
    verdict = check_item(GATE[0]["item"], None, tool_name="get_latest_sales_report")
    assert verdict.reason == "arguments_schema"
    assert "no schema" in verdict.message
    assert check_item({"type": "message", "role": "user", "content": "hi"}, None).reason == "not_function_call"


@pytest.mark.parametrize("item", [None, [], "function_call", 3])
def test_an_item_that_is_not_an_object_is_namespaced(item):
    assert replay_gate(item, SCHEMAS["get_weather"]) == "namespaced"
    verdict = check_item(item, SCHEMAS["get_weather"])
    assert verdict.reason == "namespaced" and "not a JSON object" in verdict.message


def test_catastrophic_pattern_is_answered_in_bounded_time():
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a|a)*$"}}}
    item = {
        "type": "function_call",
        "status": "completed",
        "name": "t",
        "call_id": "c",
        "arguments": json.dumps({"code": "a" * 40 + "!"}),
    }
    assert replay_gate(item, schema) == "arguments_schema"
    verdict = check_item(item, schema)
    assert verdict.reason == "arguments_schema"
    assert [(e.pointer, e.keyword) for e in verdict.errors] == [("/code", "pattern")]


def test_deep_arguments_are_a_parse_error_not_a_crash():
    schema = {"type": "array", "items": {"$ref": "#"}}
    deep = "[" * 150 + "]" * 150
    item = {"type": "function_call", "status": "completed", "name": "t", "call_id": "c", "arguments": deep}
    assert replay_gate(item, schema) == "arguments_parse"
    verdict = check_item(item, schema)
    assert verdict.reason == "arguments_parse" and verdict.parse_error.code == "too_deep"
    ok = {**item, "arguments": "[" * 99 + "]" * 99}
    assert replay_gate(ok, schema) == "ok" and check_item(ok, schema).ok


ARGUMENT_TEXTS = [
    '{"a":1}',
    '{"a":1,"a":2}',
    '{"a":NaN}',
    '{"a":-Infinity}',
    '{"a":1e400}',
    '{"a":-1e999}',
    '{"a":1e308}',
    '{"a":"\\ud800"}',
    '{"a":"\\ud83d\\ude00"}',
    '{"a":"\\uD83D"}',
    '{"a":"é"}',
    '{"a":"\ud800"}',
    "[1,2,]",
    "",
    " ",
    '{"a":1}x',
    '{"a":01}',
    "{'a':1}",
    '{"a":"\t"}',
    '"\\u0000"',
    "[" * 101 + "]" * 101,
    "[" * 100 + "]" * 100,
    '{"b":{"c":{"c":1,"c":2}}}',
    '{"a":"\\uFFFF"}',
    '{"a":"\ufdd0"}',
    "true",
    "null",
    "1E+400",
    '{"x":"1e400"}',
    '{"a":[1e400]}',
    '{"a":1.5e-400}',
    # where orjson's quick read must not decide (webapp.core.json.orjson_read.orjson_value): a name repeated with its
    # colon escaped (the colon count alone would miss it), integers wider than 64 bits (orjson reads floats)
    '{"a\\u003a":1,"a\\u003a":2}',
    '{"a\\u003A":1,"a:":2}',
    '{"a:":1,"a":2}',
    '{"a":"b:c","a":1}',
    '{"n":123456789012345678901234567890}',
    "[-9223372036854775809, 18446744073709551616]",
    "-0",
    "-0.0",
    '{"s":"1234567890123456789012"}',
    '{"a":1.0,"b":1}',
    '{"a":{},"a":{}}',
    '{"a":{},"b":{}}',
    '[{"a":1,"a":2}]',
    '{"a":{"b":1,"b":2},"c":3}',
    '{"a":"x:y"}',
]


@pytest.mark.parametrize("text", ARGUMENT_TEXTS)
def test_quick_parse_has_the_same_verdict_as_the_careful_parse(text):
    """replay_gate's fast I-JSON check (try_loads_ijson) refuses exactly what check_item's careful parse refuses."""
    try:
        careful = gate.steps._parse_arguments(text)
        refused = False
    except JSONTextError:
        refused = True
    quick = try_loads_ijson(text, max_depth=100)
    assert (quick is NOT_IJSON) is refused
    if not refused:
        assert repr(quick) == repr(careful)  # the same values and types (1.0 is not 1, -0.0 is not 0)


def test_quick_parse_reads_deep_arguments_past_what_orjson_writes_again():
    """Nesting deeper than orjson writes back (its duplicate-name proof) is read by the json module instead."""
    text = '{"a":' * 300 + "1" + "}" * 300
    value = try_loads_ijson(text, max_depth=400)
    assert value is not NOT_IJSON and json.dumps(value, separators=(",", ":")) == text
    duplicated = '{"a":' * 300 + '{"b":1,"b":2}' + "}" * 300
    assert try_loads_ijson(duplicated, max_depth=400) is NOT_IJSON


def test_quick_parse_agrees_on_random_mutations():
    rng = random.Random(2026)
    base = '{"region":"apac","n":[1,2.5,{"k":null}],"s":"x\\"y"}'
    alphabet = '{}[],:"\\ ae1.-+0NIu'
    for _ in range(400):
        chars = list(base)
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(len(chars))
            if rng.random() < 0.5:
                chars[position] = rng.choice(alphabet)
            else:
                chars.insert(position, rng.choice(alphabet))
        text = "".join(chars)
        try:
            gate.steps._parse_arguments(text)
            refused = False
        except JSONTextError:
            refused = True
        assert (try_loads_ijson(text, max_depth=100) is NOT_IJSON) is refused, text


# ---------------------------------------------------------------------------------------------------------------
# Journals


def run_journal(case: dict):
    source = case["journal"]
    journal = load_journal(source)
    return check_journal(journal, case.get("tools"), tool_choice=case.get("tool_choice"))


@pytest.mark.parametrize("case", JOURNALS, ids=[c["description"] for c in JOURNALS])
def test_journal_case(case):
    report = run_journal(case)
    assert report.replayable is case["replayable"]
    assert [item.reason for item in report.items] == case["reasons"]
    assert [item.index for item in report.items] == list(range(len(case["reasons"])))
    got = [{"code": f.code, "index": f.index, "severity": f.severity} for f in report.findings]
    assert got == case["findings"]
    for finding in report.findings:
        assert finding.message
        assert finding.severity == FINDINGS[finding.code]


def test_duplicate_member_findings_name_the_item_pointer_and_place():
    text = (
        '{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\\"location\\":\\"x\\"}",'
        '"status":"in_progress"}\n'
        '{"type":"openai:x","type":"function_call","call_id":"c2","name":"get_weather",'
        '"arguments":"{\\"location\\":\\"x\\"}","status":"in_progress","status":"completed"}'
    )
    report = check_journal(load_journal(text), SAMPLE_TOOLS)
    assert [item.reason for item in report.items] == ["status", "ok"]  # the last value of each name is judged
    found = [f.as_dict() for f in report.findings if f.code == "duplicate_member"]
    second_line = text.split("\n")[1]
    assert [(f["index"], f["call_id"], f["pointer"], f["line"], f["column"]) for f in found] == [
        (1, "c2", "/type", 2, second_line.index('"type":"function_call"') + 1),
        (1, "c2", "/status", 2, second_line.index('"status":"completed"') + 1),
    ]
    assert 'item 1 gives the member name "status" twice, at /status' in found[1]["message"]
    assert report.replayable is False


def test_sample_journal_with_tools():
    journal = load_journal((SAMPLES / "journal-openai-responses.jsonl").read_bytes())
    report = check_journal(journal, json.loads((SAMPLES / "tools.json").read_text()))
    assert [i.reason for i in report.items] == ["not_function_call"] * 3 + ["ok", "ok"] + ["not_function_call"] * 3 + [
        "namespaced"
    ]
    assert report.findings == []
    assert report.replayable is False  # the openai:web_search_call
    assert report.items[3].name == "get_latest_sales_report" and report.items[3].call_id == "call_Q7pX2mZk9"
    without_it = check_journal(journal.items[:8], json.loads((SAMPLES / "tools.json").read_text()))
    assert without_it.replayable is True


def test_sample_incomplete_response_carries_its_own_tools():
    journal = load_journal((SAMPLES / "response-incomplete.json").read_text())
    assert journal.shape == "response" and journal.tool_choice == "auto" and len(journal.tools) == 2
    report = check_journal(journal)
    assert [i.reason for i in report.items] == ["status"]
    assert report.replayable is False and report.findings == []
    assert report.shape == "response"


def test_journal_with_one_schema_for_every_call():
    items = [GATE[0]["item"], {**GATE[1]["item"], "name": "anything"}]
    report = check_journal(items, schema=SCHEMAS["get_latest_sales_report"])
    assert [i.reason for i in report.items] == ["ok", "arguments_schema"]
    assert report.findings == []
    broken = check_journal(items, schema=BAD_SCHEMA)
    assert [f.code for f in broken.findings] == ["tool_schema_invalid"]
    assert broken.replayable is False


def test_journal_report_as_dict():
    report = check_journal([GATE[0]["item"], GATE[2]["item"]], SAMPLE_TOOLS)
    data = json.loads(json.dumps(report.as_dict()))
    assert data["replayable"] is False
    assert data["counts"] == {"ok": 1, "namespaced": 1}
    assert (data["answer"], data["says"], data["unchecked"]) == (
        "not replayable",
        "not replayable (1 namespaced)",
        {},
    )
    assert data["items"][0] == {
        "index": 0,
        "id": "fc_001",
        "type": "function_call",
        "reason": "ok",
        "label": "ok",
        "ok": True,
        "refused_by": [],
        "disposition": "keep",
        "message": "may be executed, and its function_call_output written",
        "errors": [],
        "name": "get_latest_sales_report",
        "call_id": "call_123",
    }
    assert data["findings"] == []
    assert data["target"] == "portable" and data["source"] == "open_responses"
    assert data["items"][1]["disposition"] == "leave_out"
    assert [entry["code"] for entry in data["left_out"]] == ["provider_item"]


def test_an_item_an_error_finding_names_is_not_ok_whatever_its_value():
    """A member given twice: the gate passes the parsed value, but the item is ambiguous and refused."""
    text = (
        '[{"type": "openai:x", "type": "function_call", "id": "fc_1", "name": "get_latest_sales_report", '
        '"call_id": "c1", "status": "in_progress", "status": "completed", '
        '"arguments": "{\\"region\\":\\"apac\\"}"}]'
    )
    report = check_journal(load_journal(text), SAMPLE_TOOLS)
    [item] = report.items
    assert (item.reason, item.ok, item.refused_by, item.label) == ("ok", False, ("duplicate_member",), "refused")
    assert "duplicate_member" in item.message and "may not be executed" in item.message
    assert report.as_dict()["counts"] == {"refused": 1} and report.replayable is False


def test_a_long_journal_keeps_one_verdict_per_item():
    item = {"type": "function_call", "status": "completed", "name": "get_weather", "arguments": '{"location":"x"}'}
    items = [{**item, "call_id": f"call_{i}"} for i in range(2_000)]
    report = check_journal(items, SAMPLE_TOOLS)
    assert report.replayable is True and len(report.items) == 2_000


# ---------------------------------------------------------------------------------------------------------------
# The rules as one table; the depth limit; findings as data


def test_the_reasons_are_the_table_of_steps_in_order():
    assert tuple(step.reason for step in STEPS) + ("ok",) == REASONS


ENVELOPES = [
    None,
    3,
    [],
    {},
    {"type": 7},
    {"type": "openai:x"},
    {"type": "message"},
    {"type": "reasoning"},
    {"type": "function_call"},
]
STATUSES = [None, "completed", "in_progress", "incomplete", 1]
ARGUMENTS = [
    None,
    {"region": "apac"},
    '{"region":"apac"}',
    '{"region":"global"}',
    '{"region":',
    '{"a":1,"a":2}',
    '"apac"',
    "[" * 101 + "]" * 101,
]


@pytest.mark.parametrize(
    ("schema", "never"),
    [(SCHEMAS["get_latest_sales_report"], None), (None, "ok"), (True, "arguments_schema"), (False, "ok")],
)
def test_check_item_and_replay_gate_run_the_same_steps(schema, never):
    """Every combination of envelope, status and arguments: the same reason from both runners of the table."""
    seen = set()
    for envelope in ENVELOPES:
        for status in STATUSES:
            for arguments in ARGUMENTS:
                item = envelope
                if isinstance(envelope, dict):
                    item = {
                        **envelope,
                        **({"status": status} if status is not None else {}),
                        **({"arguments": arguments} if arguments is not None else {}),
                    }
                reason = replay_gate(item, schema)
                verdict = check_item(item, schema)
                assert verdict.reason == reason and verdict.ok is (reason == "ok"), item
                assert verdict.message
                seen.add(reason)
    assert seen == set(REASONS) - {never}


def test_the_depth_limit_is_a_parameter_with_the_documented_default():
    assert DEFAULT_MAX_DEPTH == 100
    schema = {"type": "array", "items": {"$ref": "#"}}
    item = {
        "type": "function_call",
        "status": "completed",
        "name": "t",
        "call_id": "c",
        "arguments": "[" * 20 + "]" * 20,
    }
    assert replay_gate(item, schema) == "ok" and check_item(item, schema).ok
    assert replay_gate(item, schema, max_depth=19) == "arguments_parse"
    verdict = check_item(item, schema, max_depth=19)
    assert verdict.reason == "arguments_parse" and verdict.parse_error.code == "too_deep"
    assert replay_gate(item, schema, max_depth=20) == "ok"
    assert [i.reason for i in check_journal([item], schema=schema, max_depth=19).items] == ["arguments_parse"]
    deeper = {**item, "arguments": "[" * 120 + "]" * 120}
    assert replay_gate(deeper, True) == "arguments_parse"
    assert replay_gate(deeper, True, max_depth=150) == "ok"


def test_findings_name_items_as_data():
    calls = [
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "status": "completed",
            "arguments": '{"location":"x"}',
        },
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "status": "completed",
            "arguments": '{"location":"y"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "a"},
        {"type": "function_call_output", "call_id": "c1", "output": "b"},
    ]
    report = check_journal(calls, SAMPLE_TOOLS)
    by_code = {f.code: f for f in report.findings}
    reused = by_code["duplicate_call_id"]
    assert (reused.index, reused.mentions) == (1, (1, 0))
    assert reused.message == 'item 1 reuses call_id "c1" of item 0' == reused.describe()
    assert reused.describe(lambda ref: f"<{ref.noun}@{ref.index}>") == '<item@1> reuses call_id "c1" of <item@0>'
    again = by_code["duplicate_output"]
    assert again.mentions == (3, 2) and again.parts[0] == ItemRef(3, "function_call_output")
    assert again.message == 'function_call_output 3 answers "c1" again (first at item 2)'


@pytest.mark.parametrize("case", JOURNALS, ids=[c["description"] for c in JOURNALS])
def test_every_finding_message_is_its_parts(case):
    report = run_journal(case)
    for finding in report.findings:
        assert finding.describe() == finding.message
        assert all(0 <= index < len(report.items) for index in finding.mentions)
        if finding.index is not None and finding.code != "missing_output":
            assert finding.index in finding.mentions or finding.code == "duplicate_member" and not finding.pointer


def test_blocks_replay_and_counts():
    items = [GATE[0]["item"], GATE[1]["item"], GATE[2]["item"], GATE[6]["item"]]
    report = check_journal(items, SAMPLE_TOOLS)
    assert [i.blocks_replay for i in report.items] == [False, True, True, False]
    assert report.counts == {"ok": 1, "arguments_schema": 1, "namespaced": 1, "not_function_call": 1}
    assert report.as_dict()["counts"] == report.counts


def test_a_nested_tool_with_an_unusable_schema_is_placed_in_its_function():
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "objekt"}}}
    report = check_journal([], [tool])
    assert [f.code for f in report.findings] == ["chat_completions_tool", "tool_schema_invalid", "empty_journal"]
    assert report.findings[1].message.startswith("tools[0].function.parameters/type: ")
    flat = check_journal([], [{"type": "function", "name": "f", "parameters": {"type": "objekt"}}])
    assert flat.findings[0].message.startswith("tools[0].parameters/type: ")


@pytest.mark.parametrize("name", [["get_weather"], {"a": 1}, None, 3, ""])
def test_a_call_whose_name_is_not_a_string_is_outside_any_tool_choice(name):
    """tool_choice allows names; a name that is a list or an object (unhashable) is none of them, not a crash: the
    call has no tool's name (missing_name), whatever the tools and tool_choice say."""
    call = {"type": "function_call", "call_id": "c1", "name": name, "status": "completed", "arguments": "{}"}
    report = check_journal([call], SAMPLE_TOOLS, tool_choice={"type": "function", "name": "get_weather"})
    assert [f.code for f in report.findings] == ["missing_name"]
    assert report.replayable is False and report.items[0].refused_by == ("missing_name",)


@pytest.mark.parametrize(("tools", "schema"), [(SAMPLE_TOOLS, None), (None, True), (None, None)])
def test_a_call_without_a_name_never_runs(tools, schema):
    """The FunctionCall schema requires a name: without one, which tool would run is unknown — against the tools,
    one schema for every call, or none at all (not checked, but the name is still missing)."""
    call = {"type": "function_call", "call_id": "c1", "status": "completed", "arguments": "{}"}
    report = check_journal([call], tools, schema=schema)
    [finding] = report.findings
    assert (finding.code, finding.severity, finding.index) == ("missing_name", "error", 0)
    assert finding.message == "function_call 0 has no name: which tool it would run is unknown"
    assert not report.replayable and not report.items[0].ok


# ---------------------------------------------------------------------------------------------------------------
# No tools given ("not checked", "cannot tell") and the call-verdict memo: the same answers, less work


def everything(report) -> tuple:
    """All a report says, the per-item verdicts' details and the findings' parts included."""
    return (
        report.as_dict(),
        [(i.verdict.as_dict(), i.verdict.arguments) for i in report.items],
        [f.parts for f in report.findings],
    )


def journal_cases() -> list[tuple[list, list | None]]:
    cases = [(load_journal(case["journal"]).items, case.get("tools")) for case in JOURNALS]
    sample = load_journal((SAMPLES / "journal-openai-responses.jsonl").read_bytes()).items
    odd = [
        {"type": "function_call", "call_id": f"c{k}", "name": name, "status": status, "arguments": arguments}
        for k, (name, status, arguments) in enumerate(
            [
                ("get_weather", "completed", '{"location": "Paris"}'),
                ("get_weather", 1, "{}"),
                ("get_weather", True, "{}"),
                ("get_weather", None, "{}"),
                ("nope", "completed", '{"location": "x"}'),
                (["get_weather"], "completed", "{}"),
                ("get_weather", "completed", {"location": "x"}),
                ("get_weather", "completed", '{"location": 3}'),
                ("get_weather", "completed", "[" * 200 + "]" * 200),
                ("get_weather", "completed", "NaN"),
                ("get_weather", "in_progress", '{"locat'),
            ]
        )
    ]
    return cases + [(sample, SAMPLE_TOOLS), (sample, None), (odd + odd, SAMPLE_TOOLS), (odd, None)]


@pytest.mark.parametrize(("items", "tools"), [case for case in journal_cases() if case[1] is None])
def test_without_tools_calls_are_not_checked_and_nothing_else_changes(items, tools):
    """No tool definitions: a call that passes every step before the schema's is ``not checked`` (its reason stays
    ``arguments_schema``, the article's order), never ``unknown_tool``; everything before the schema step still
    refuses; the answer is ``cannot tell`` only when nothing refuses and a call was not checked."""
    report = check_journal(items, tools)
    schema_true = check_journal(items, schema=True)  # the same journal where any schema passes every call
    assert not any(f.code == "unknown_tool" for f in report.findings)
    not_checked = [line for line in report.items if line.label == gate.NOT_CHECKED]
    assert all(line.reason == "arguments_schema" and not line.blocks_replay for line in not_checked)
    assert [line.index for line in not_checked] == [
        line.index for line in schema_true.items if line.reason == "ok" and not line.refused_by
    ]
    assert sum(report.unchecked.values()) >= len(not_checked)  # and the calls a finding refuses besides
    if report.unchecked:
        [notice] = [f for f in report.findings if f.code == "not_checked"]
        assert notice.severity == "notice" and "No tool definitions were given" in notice.message
    blocked = any(line.blocks_replay for line in report.items) or any(f.severity == "error" for f in report.findings)
    expected = False if blocked else (None if report.unchecked else True)
    assert report.replayable is expected
    assert report.answer == {None: "cannot tell", False: "not replayable", True: "replayable"}[expected]


def test_given_tools_keep_unknown_tool_and_no_tools_is_not_checked():
    call = {"type": "function_call", "call_id": "c1", "name": "nope", "status": "completed", "arguments": "{}"}
    journal = load_journal({"input": [call], "tools": SAMPLE_TOOLS})
    assert [f.code for f in check_journal(journal).findings] == ["unknown_tool"]
    assert [f.code for f in check_journal([call], []).findings] == ["unknown_tool"]  # an empty list is given
    assert check_journal([call], schema={"type": "object"}).items[0].reason == "ok"
    report = check_journal([call])  # nothing given: the CLI's, the API's and the pages' default
    assert [f.code for f in report.findings] == ["not_checked"]
    assert report.replayable is None and report.unchecked == {"nope": 1}
    assert report.says == 'cannot tell until the tools are given (1 call of tool "nope" not checked)'
    assert report.items[0].label == "not checked" and not report.items[0].ok
    assert report.plan is not None and report.plan.dispositions == ["keep"]  # not checked is not refused


def test_thousands_of_unchecked_calls_make_one_finding_and_the_real_ones_stay_visible():
    """30,000 calls without tools: one grouped ``not_checked`` finding, not 15,000 ``unknown_tool`` — so the
    pairing findings that decide the answer are not buried."""
    items: list = []
    for k in range(15_000):
        name = ("get_weather", "lookup")[k % 2]
        items.append(
            {"type": "function_call", "call_id": f"c{k}", "name": name, "status": "completed", "arguments": "{}"}
        )
        items.append({"type": "function_call_output", "call_id": f"c{k}", "output": "ok"})
    items.append({"type": "function_call_output", "call_id": "nobody", "output": "?"})
    report = check_journal(items)
    assert [f.code for f in report.findings] == ["orphan_output", "not_checked"]
    assert report.unchecked == {"get_weather": 7_500, "lookup": 7_500}
    assert report.replayable is False and report.says.startswith("not replayable (1 error: orphan_output")


def test_an_empty_journal_is_not_replayable():
    report = check_journal([])
    assert [f.code for f in report.findings] == ["empty_journal"] and report.replayable is False


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"schema": SCHEMAS["get_weather"]},
        {"schema": {"type": 12}},
        {"max_depth": 3},
        {"format_assertion": True},
        {"tool_choice": {"type": "function", "name": "get_weather"}},
    ],
)
def test_a_memo_shared_by_several_checks_changes_no_answer(settings):
    memo = gate.VerdictMemo()
    for items, tools in journal_cases() + journal_cases():  # the second round answers from the memo
        assert everything(check_journal(items, tools, memo=memo, **settings)) == everything(
            check_journal(items, tools, **settings)
        )


def test_a_memo_keeps_the_calls_checked_differently_apart():
    """One call, one memo: against another schema, another depth limit or under another name it is gated anew."""
    call = {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_weather",
        "status": "completed",
        "arguments": '{"location": "Paris", "unit": "kelvin"}',
    }
    memo = gate.VerdictMemo()
    assert check_journal([call], SAMPLE_TOOLS, memo=memo).items[0].reason == "arguments_schema"
    assert check_journal([call], schema={"type": "object"}, memo=memo).items[0].reason == "ok"
    assert check_journal([call], schema={"type": "object"}, max_depth=0, memo=memo).items[0].reason == "arguments_parse"
    renamed = check_journal([{**call, "name": "other"}], schema=True, memo=memo).items[0]
    assert renamed.reason == "ok"
    unknown = check_journal([{**call, "name": "other"}], SAMPLE_TOOLS, memo=memo).items[0]
    assert unknown.message == 'no schema of "other" to check the arguments against'
    assert len(memo) == 5


def test_a_memo_reuses_the_calls_the_other_side_gated():
    """The two sides of a diff: the right side's unchanged calls are answered from the left side's verdicts."""

    def calls(cities):
        return [
            {
                "type": "function_call",
                "call_id": f"c{k}",
                "name": "get_weather",
                "status": "completed",
                "arguments": json.dumps({"location": city}),
            }
            for k, city in enumerate(cities)
        ]

    memo = gate.VerdictMemo()
    left = check_journal(calls(["Paris", "Lyon", "Nice"]), SAMPLE_TOOLS, memo=memo)
    right = check_journal(calls(["Paris", "Lyon", "Brest", "Nice"]), SAMPLE_TOOLS, memo=memo)
    assert len(memo) == 4
    assert right.items[1].verdict is left.items[1].verdict
    assert [i.reason for i in right.items] == ["ok"] * 4


@pytest.mark.parametrize("case", JOURNALS, ids=[c["description"] for c in JOURNALS])
def test_a_report_makes_its_item_lines_as_the_checker_does_one_by_one(case):
    """check_journal keeps each item's Verdict and makes the ItemVerdicts when first read: the same lines, counts
    and refusals as JournalChecker.add gives item by item (findings naming an item later make it refused)."""
    report = run_journal(case)
    assert len(report.items) == len(report.verdicts)
    assert all(line.verdict is verdict for line, verdict in zip(report.items, report.verdicts, strict=True))
    journal = load_journal(case["journal"])
    tools = journal.tools if case.get("tools") is None else case["tools"]
    choice = journal.tool_choice if case.get("tool_choice") is None else case["tool_choice"]
    twice: dict = {}
    for duplicate in journal.duplicates:
        twice.setdefault(duplicate.index, []).append(duplicate)
    checker = gate.JournalChecker(tools, tool_choice=choice, duplicates=twice.get(None, ()))
    one_by_one = [checker.add(item, twice.get(index, ())) for index, item in enumerate(journal.items)]
    codes = {}
    for finding in checker.take_findings():
        if finding.severity == "error" and finding.index is not None:
            codes.setdefault(finding.index, []).append(finding.code)
    assert [(line.index, line.id, line.type, line.reason, line.name, line.call_id) for line in report.items] == [
        (line.index, line.id, line.type, line.reason, line.name, line.call_id) for line in one_by_one
    ]
    assert {i: list(dict.fromkeys(c)) for i, c in codes.items()} == {i: list(c) for i, c in report.refused.items()}
    assert [line.refused_by for line in report.items] == [report.refused.get(i, ()) for i in range(len(one_by_one))]
    assert report.counts == dict(Counter(line.label for line in report.items))
    assert report.items[1:] == list(report.items)[1:] and report.items == list(report.items)


def test_refused_lines_say_what_stops_an_item_the_gate_passes():
    call = {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_weather",
        "status": "completed",
        "arguments": '{"location": "Paris"}',
    }
    report = check_journal([call, dict(call, id="again")], SAMPLE_TOOLS)
    first, second = report.items
    assert (first.reason, first.refused_by, first.ok) == ("ok", (), True)
    assert (second.reason, second.label, second.refused_by, second.ok) == (
        "ok",
        "refused",
        ("duplicate_call_id",),
        False,
    )
    assert second.message.startswith("the gate passes its value, but duplicate_call_id stops this item")
    assert report.counts == {"ok": 1, "refused": 1} and not report.replayable


def test_a_stream_of_ever_new_item_types_and_names_keeps_each_verdict_its_own():
    """The checker remembers the verdict of at most REMEMBERED types and names; past them each is made anew."""
    checker = gate.JournalChecker(SAMPLE_TOOLS)
    count = gate.REMEMBERED + 10
    for k in range(count):
        extension = checker.add({"type": f"acme:kind_{k}"})
        assert extension.reason == "namespaced" and f'"acme:kind_{k}"' in extension.message
        portable = checker.add({"type": f"kind_{k}"})
        assert portable.reason == "not_function_call" and f'"kind_{k}"' in portable.message
        call = checker.add(
            {"type": "function_call", "call_id": f"c{k}", "name": f"tool_{k}", "status": "completed", "arguments": "{}"}
        )
        assert call.message == f'no schema of "tool_{k}" to check the arguments against'
    # Each new unprefixed type is one the spec does not define: unknown_type (issue 18), beside each unknown tool.
    assert [f.code for f in checker.take_findings()] == ["unknown_type", "unknown_tool"] * count


# ---------------------------------------------------------------------------------------------------------------
# One item, as the pages and /api/gate judge it

ONE_CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "status": "completed",
    "arguments": '{"location": "Paris"}',
}


def test_one_item_is_refused_by_what_a_journal_of_it_would_find():
    schema = SCHEMAS["get_weather"]
    line, findings = gate.check_one(ONE_CALL, schema, tool_name="get_weather")
    assert (line.reason, line.ok, findings) == ("ok", True, [])
    for missing, code in (("call_id", "missing_call_id"), ("name", "missing_name")):
        item = {k: v for k, v in ONE_CALL.items() if k != missing}
        line, findings = gate.check_one(item, schema)
        assert (line.reason, line.refused_by, line.ok, line.label) == ("ok", (code,), False, "refused")
        assert [f.code for f in findings] == [code] and findings[0].describe(lambda ref: "the item").startswith(
            "the item has no " + missing
        )
    # Named twice in its text: which status counts depends on the parser.
    text = json.dumps(ONE_CALL)[:-1] + ', "status": "incomplete", "status": "completed"}'
    line, findings = gate.check_one(load_journal(text), schema)
    assert line.reason == "ok" and line.refused_by == ("duplicate_member",) and not line.ok
    assert findings[0].pointer == "/status" and findings[0].line == 1


def test_one_item_has_none_of_the_findings_about_other_items():
    output = {"type": "function_call_output", "call_id": "call_9", "output": "18°C"}
    line, findings = gate.check_one(output)
    assert (line.reason, line.refused_by, findings) == ("not_function_call", (), [])  # no orphan_output alone
    line, findings = gate.check_one({"role": "assistant", "tool_calls": []})
    assert [f.code for f in findings] == ["chat_completions_envelope"] and line.refused_by
    line, findings = gate.check_one({**ONE_CALL, "status": "incomplete"})
    assert line.reason == "status" and not findings  # the gate's own reason needs no finding


def test_a_journal_read_from_one_item_has_no_pairing_findings():
    # The CLI and /api/gate's journal mode read a file of one item as a journal of it: an output alone is no orphan
    # there, as the pages (check_one) judge it; in an array it is one (its call is missing from the journal).
    output = {"type": "function_call_output", "call_id": "call_9", "output": "18°C"}
    alone = check_journal(load_journal(json.dumps(output)))
    assert alone.shape == "item" and alone.findings == [] and alone.replayable
    assert [f.code for f in check_journal(load_journal(json.dumps([output]))).findings] == ["orphan_output"]
    bare = {k: v for k, v in ONE_CALL.items() if k != "call_id"}
    assert [f.code for f in check_journal(load_journal(json.dumps(bare)), SAMPLE_TOOLS).findings] == ["missing_call_id"]


# -- the policy, once: labels, the schema field, vouching, /v1 input ---------------------------------------------


def test_the_labels_that_pass_and_their_badges():
    # Every reason refuses but the passing ones; the gate's own words (refused, not checked) and a journal's.
    assert {reason for reason in REASONS if not gate.is_refusal(reason)} == set(gate.PASSING_REASONS)
    assert gate.REFUSING_REASONS == tuple(r for r in REASONS if r not in gate.PASSING_REASONS)
    assert [gate.badge(label) for label in ("ok", "not_function_call", "not checked", "replayable")] == [
        "ok",
        "info",
        "info",
        "ok",
    ]
    for label in (*gate.REFUSING_REASONS, gate.REFUSED, gate.NOT_REPLAYABLE, "orphan_output"):
        assert gate.is_refusal(label) and gate.badge(label) == "bad", label
    # An error finding turns a label that would pass into "refused"; a refusal keeps its own reason.
    assert [gate.item_label(label, True) for label in ("ok", "not_function_call", "not checked", "status")] == [
        "refused",
        "refused",
        "refused",
        "status",
    ]
    assert gate.item_label("ok", False) == "ok"


def test_a_call_judged_without_a_schema_is_schema_next_only_when_its_schema_alone_can_refuse_it():
    assert gate.label_without_schema(check_item(ONE_CALL, None)) == gate.NOT_CHECKED
    assert gate.label_without_schema(check_item({**ONE_CALL, "status": "incomplete"}, None)) == "status"
    assert gate.label_without_schema(check_item({**ONE_CALL, "arguments": "{"}, None)) == "arguments_parse"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, (None, None)),
        ({"type": "object"}, ({"type": "object"}, None)),
        (True, (True, None)),
        (SAMPLE_TOOLS[0], (None, [SAMPLE_TOOLS[0]])),
        (SAMPLE_TOOLS, (None, SAMPLE_TOOLS)),
        ([{"type": "function", "function": {"name": "f"}}], (None, [{"type": "function", "function": {"name": "f"}}])),
        ([], ([], None)),  # no tools: not a schema either, which the caller refuses
        ([SAMPLE_TOOLS[0], {"type": "object"}], ([SAMPLE_TOOLS[0], {"type": "object"}], None)),
        ({"type": "web_search"}, ({"type": "web_search"}, None)),  # a hosted tool is no function tool
    ],
)
def test_a_schema_field_is_a_schema_or_the_tools_it_holds(value, expected):
    assert tuple(gate.read_schema_field(value)) == expected


def test_a_status_less_call_is_vouched_for_by_an_output_after_it_only():
    call = {k: v for k, v in ONE_CALL.items() if k != "status"}
    output = {"type": "function_call_output", "call_id": ONE_CALL["call_id"], "output": "18°C"}
    user = {"type": "message", "role": "user", "content": "hi"}
    assert gate.vouched_calls([user, call, output]) == [1]
    assert gate.vouched_calls([user, {**call, "status": None}, user, output]) == [1]  # anywhere after it
    assert gate.vouched_calls([output, call]) == []  # an output before its call answers nothing: orphan_output
    assert gate.vouched_calls([{**call, "status": "incomplete"}, output]) == []  # it says it did not finish
    assert gate.vouched_calls([call, {**output, "call_id": "other"}]) == []
    unhashable = {**call, "call_id": ["x"]}
    assert gate.vouched_calls([unhashable, {**output, "call_id": ["x"]}, "not an item", 3]) == []
    items = [call, output]
    vouched = gate.vouch(items)
    assert vouched[0] == {**call, "status": "completed"} and vouched[1] is output and "status" not in items[0]
    assert replay_gate(vouched[0], SCHEMAS["get_weather"]) == "ok"


def test_the_v1_input_policy_names_the_first_problem_in_input_order():
    tools = [SAMPLE_TOOLS[0]]
    call = dict(ONE_CALL)
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "18°C"}
    assert gate.refuse_input([], [call, output], tools) is None
    # A call of a tool not offered: unknown_tool, not the gate's bare arguments_schema.
    other = {**call, "name": "get_time"}
    refusal = gate.refuse_input([], [other], tools)
    assert (refusal.code, refusal.param) == ("unknown_tool", "input[0]")
    assert refusal.message.endswith("calls 'get_time', which is not among the tools (get_weather)")
    assert "send the tools" in gate.refuse_input([], [other], tools, tools_sent=False).message
    # Arguments the gate passes still encode a JSON object.
    refusal = gate.refuse_input(
        [], [{**call, "arguments": "[1]"}], [{"type": "function", "name": "get_weather", "parameters": {}}]
    )
    assert refusal is not None and refusal.code == "arguments_schema" and "JSON object" in refusal.message
    # Items of earlier responses pair but are not judged again; findings name input[k].
    refusal = gate.refuse_input([call, output], [output], tools)
    assert (refusal.code, refusal.param) == ("duplicate_output", "input[0]")
    assert "an item of an earlier response" in refusal.message
    refusal = gate.refuse_input([], [{k: v for k, v in call.items() if k != "status"}], tools)
    assert refusal.code == "status" and "accepted only with its function_call_output after it" in refusal.message
