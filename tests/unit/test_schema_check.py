"""The JSON Schema page's model (``webapp/core/pages/schema.py``) and the string locator
(``webapp/core/json/locate.py``), pure: no app, no HTML."""

from __future__ import annotations

import json

import pytest

from webapp.core.examples import SCHEMA as EXAMPLES
from webapp.core.json import Locator, parse, string_locator
from webapp.core.pages import schema as schema_page
from webapp.core.pages.schema import MAX_ERRORS_SHOWN
from webapp.core.schema import MAX_VALUE_CHARS, compile_schema, short_json

_, FC_009, REGION_SCHEMA = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]
CHAT_TOOL = {"type": "function", "function": {"name": "get_latest_sales_report", "parameters": REGION_SCHEMA}}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
}


def call(region: str = "global", **changes) -> dict:
    return {**FC_009, "arguments": json.dumps({"region": region}, separators=(",", ":")), **changes}


def pretty(value) -> str:
    return json.dumps(value, indent=2)


def at(text: str, position: tuple[int, int]) -> str:
    """The pasted text from a (line, column)."""
    line, column = position
    return text.splitlines()[line - 1][column - 1 :]


# -- the check ----------------------------------------------------------------------------------------------


def test_nothing_pasted_is_not_submitted_and_needs_both():
    check = schema_page.build("", " \n")
    assert not check.submitted and check.needs == ["instance", "schema"] and check.valid is None
    assert check.parse_problems == [] and check.groups == []


def test_global_is_one_enum_error_at_region_with_the_allowed_values():
    instance = pretty(call("global"))
    check = schema_page.build(instance, pretty(REGION_SCHEMA))
    assert check.valid is False and check.error_count == 1
    assert [g.pointer for g in check.groups] == ["/region"]
    group = check.groups[0]
    assert group.value == '"global"'
    row = group.rows[0]
    assert row.best and row.error.keyword == "enum"
    assert row.expected_label == "allowed values" and row.expected == ['"apac"', '"emea"', '"amer"']
    # Positions are in the pasted texts: at the offending value inside the arguments string, and at the keyword in
    # the schema.
    assert at(instance, group.position).startswith('\\"global\\"')
    assert at(pretty(REGION_SCHEMA), row.schema_position).startswith('"enum"')
    assert check.verdict is not None and check.verdict.reason == "arguments_schema"
    assert check.instance_taken.kind == "call" and check.instance_taken.shape == "string"
    assert check.instance_text == instance  # never fixed


def test_valid_call_is_valid_and_ok():
    check = schema_page.build(pretty(call("apac")), pretty(REGION_SCHEMA))
    assert check.valid is True and check.verdict.reason == "ok" and check.shown_count == 0


def test_bare_instance_groups_follow_the_best_match_order():
    instance = '{\n  "region": "global",\n  "extra": 1\n}'
    check = schema_page.build(instance, pretty(REGION_SCHEMA))
    expected = compile_schema(REGION_SCHEMA).errors({"region": "global", "extra": 1})
    assert [g.pointer for g in check.groups] == list(dict.fromkeys(e.pointer for e in expected))
    assert [row.best for g in check.groups for row in g.rows].count(True) == 1
    positions = {g.pointer: g.position for g in check.groups}
    # The refused value is marked, not its member's name; an unexpected member is marked at its name.
    assert positions == {"/region": (2, 13), "/extra": (3, 3)}
    extra = next(g for g in check.groups if g.pointer == "/extra")
    assert extra.rows[0].expected_label == "allowed members" and extra.rows[0].expected == ['"region"']
    assert check.item is None and check.verdict is None


def test_a_missing_member_has_no_value():
    check = schema_page.build("{}", pretty(REGION_SCHEMA))
    assert [(g.pointer, g.value) for g in check.groups] == [("/region", None)]


@pytest.mark.parametrize(
    ("schema", "shape", "of"), [(TOOL, "flat", None), (CHAT_TOOL, "nested", None), ([WEATHER, TOOL], "flat", 2)]
)
def test_tool_definitions_are_unwrapped(schema, shape, of):
    check = schema_page.build(pretty(call("global")), pretty(schema))
    taken = check.schema_taken
    assert (taken.kind, taken.name, taken.shape, taken.of) == ("tool", "get_latest_sales_report", shape, of)
    assert [g.pointer for g in check.groups] == ["/region"]
    assert at(pretty(schema), check.groups[0].rows[0].schema_position).startswith('"enum"')


@pytest.mark.parametrize(
    ("instance", "schema", "message"),
    [
        ({"region": "apac"}, [WEATHER, TOOL], "paste the whole function_call item so its name picks one"),
        (call("apac", name="get_time"), [WEATHER, TOOL], 'without the called function "get_time"'),
        (call("apac"), {"type": "function", "name": "get_latest_sales_report"}, 'has no "parameters"'),
        (call("apac"), {**TOOL, "parameters": None}, '"parameters": null'),
        (call("apac"), [1, 2], "not a JSON array"),
        (call("apac"), "object", "not a JSON string"),
        (call("apac"), None, "not a JSON null"),
    ],
)
def test_unusable_schema_inputs_are_a_schema_problem(instance, schema, message):
    check = schema_page.build(pretty(instance), pretty(schema))
    assert check.schema_problem is not None and message in check.schema_problem.message
    assert check.groups == [] and check.valid is None


def test_name_mismatch_is_noticed_and_the_gate_gets_no_schema():
    check = schema_page.build(pretty(call("apac", name="get_weather")), pretty(TOOL))
    assert check.name_mismatch and check.call_name == "get_weather"
    assert check.verdict.reason == "arguments_schema"


def test_chat_completions_tool_call_is_unwrapped_but_not_judged_by_the_gate():
    tool_call = {
        "id": "call_T0",
        "type": "function",
        "function": {"name": "get_latest_sales_report", "arguments": '{"region":"global"}'},
    }
    check = schema_page.build(pretty(tool_call), pretty(REGION_SCHEMA))
    assert check.instance_taken.kind == "chat_call" and check.instance_taken.ident == "call_T0"
    assert check.item is None and check.verdict is None
    assert [g.pointer for g in check.groups] == ["/region"]


def test_arguments_stored_as_an_object_are_validated_at_their_place():
    item = call(arguments={"region": "global"})
    check = schema_page.build(pretty(item), pretty(REGION_SCHEMA))
    assert check.instance_taken.shape == "object" and check.verdict.reason == "arguments_type"
    assert at(pretty(item), check.groups[0].position).startswith('"global"')


def test_truncated_arguments_are_a_parse_problem_inside_the_pasted_string():
    instance = pretty(call(arguments='{"region":"ap', status="incomplete"))
    check = schema_page.build(instance, pretty(REGION_SCHEMA))
    [problem] = check.parse_problems
    assert problem.source == "arguments" and problem.error.code == "truncated"
    line, column = problem.position
    literal = instance.splitlines()[line - 1]
    assert literal.index('"arguments": "') + len('"arguments": ') < column - 1 < len(literal)
    assert check.has_instance is False and check.verdict.reason == "status"


def test_parse_errors_keep_their_own_positions():
    check = schema_page.build("{'a': 1}", "[1,")
    assert [(p.source, p.position) for p in check.parse_problems] == [("instance", (1, 2)), ("schema", (1, 4))]


@pytest.mark.parametrize(
    ("instance", "schema", "reason"),
    [
        ('{"a": 1, "a": 2}', '{"properties": {"a": {"type": "integer"}}}', "arguments_parse"),
        ('{"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}', '{"type": "object"}', "namespaced"),
        ('{"type": "message", "role": "user", "content": "hi"}', '{"type": "object"}', "not_function_call"),
    ],
)
def test_items_and_bare_arguments_get_the_gates_word(instance, schema, reason):
    check = schema_page.build(instance, schema)
    if reason == "arguments_parse":
        assert check.item is None and check.ijson_error is not None
    else:
        assert check.item is not None and check.verdict.reason == reason


def test_errors_inside_the_arguments_string_are_at_the_offending_value_through_escapes():
    arguments = {"note": 'caf\u00e9 \u2603\n"x" \U0001f600', "region": "global", "n": "7"}
    schema = {
        **REGION_SCHEMA,
        "additionalProperties": False,
        "properties": {**REGION_SCHEMA["properties"], "n": {"type": "integer"}},
    }
    instance = pretty(call(arguments=json.dumps(arguments)))  # é, ☃, the quotes, newline, 😀 all escaped
    check = schema_page.build(instance, pretty(schema))
    places = {g.pointer: at(instance, g.position) for g in check.groups}
    assert places["/region"].startswith('\\"global\\"')
    assert places["/n"].startswith('\\"7\\"')
    assert places["/note"].startswith('\\"note\\":')  # an unexpected member: its name is what is refused
    # Spread over lines inside the string (escaped newlines): still on the item's one line, at the value.
    spread = pretty(call(arguments='\n  {"region":\n "global"}'))
    group = schema_page.build(spread, pretty(REGION_SCHEMA)).groups[0]
    assert group.position[0] == 7 and at(spread, group.position).startswith('\\"global\\"}"')


def test_document_value_offsets_skip_a_members_name():
    document = parse('{"a" :  [1, {"b":\n "x"}]}')
    assert document.text[document.value_offset("/a") :].startswith("[1")
    assert document.text[document.value_offset("/a/1/b") :].startswith('"x"')
    assert document.text[document.value_offset("/a/0") :].startswith("1,")
    assert document.value_offset("/nothing") is None
    assert document.positions(["/a/1/b"], values=True) == {"/a/1/b": (2, 2)}
    assert document.positions(["/a/1/b"]) == {"/a/1/b": (1, 14)}


def test_warnings_inside_the_arguments_string_point_into_the_pasted_text():
    instance = json.dumps(call(arguments='{"n": 12345678901234567890}'))
    check = schema_page.build(instance, "{}")
    [warning] = [w for w in check.warnings if w.source == "arguments"]
    assert at(instance, warning.position).startswith("12345678901234567890")


def test_formats_the_toggle_would_check_and_those_never_checked_are_listed():
    off = schema_page.build('"x"', '{"type": "string", "format": "email", "items": {"format": "x-made-up"}}')
    assert "email" in off.checkable_formats and off.unchecked_formats == ["x-made-up"]
    assert off.valid is True
    on = schema_page.build('"x"', '{"format": "email"}', format_assertion=True)
    assert on.valid is False and on.groups[0].rows[0].error.keyword == "format"


def test_many_errors_are_counted_and_the_shown_ones_capped():
    check = schema_page.build(json.dumps(["x"] * (MAX_ERRORS_SHOWN + 50)), '{"items": {"type": "integer"}}')
    assert check.error_count == MAX_ERRORS_SHOWN + 50 and check.shown_count == MAX_ERRORS_SHOWN


def test_the_parse_limits_are_the_callers():
    check = schema_page.build("[[[1]]]", "{}", max_depth=2)
    assert check.parse_problems[0].error.code == "too_deep"
    check = schema_page.build('"' + "a" * 100 + '"', "{}", max_bytes=50)
    assert check.parse_problems[0].source == "instance"


def test_short_json_cuts_lazily():
    assert short_json("a") == '"a"'
    cut = short_json(list(range(10**5)))
    assert len(cut) == MAX_VALUE_CHARS and cut.endswith("…") and cut.startswith("[0, 1, 2")


# -- the locator --------------------------------------------------------------------------------------------


def test_locator_with_a_prefix_answers_relative_pointers_and_none_for_nothing():
    text = '{\n  "parameters": {"a": 1}\n}'
    locate = Locator(parse(text), "/parameters")
    assert locate("/a") == (2, 18) and locate("/missing") is None
    assert locate.many(["/a", "/a", "/missing"]) == {"/a": (2, 18), "/missing": None}


def test_string_locator_moves_through_escapes():
    decoded = 'caf\u00e9 "x"\n{"region": 1}'
    document = parse(json.dumps({"arguments": decoded}))  # é as \u00e9, the quotes and newline escaped
    move = string_locator(document, "/arguments", decoded)
    text = document.text
    assert at(text, move(1, 1)).startswith("caf\\u00e9")
    assert at(text, move(1, 5)).startswith(' \\"x\\"')
    assert at(text, move(2, 2)).startswith('\\"region\\"')
    assert move(99, 1) is None and move(1, 0) is None
    assert text[move(2, 1000)[1] - 1] == '"'  # past the end: the closing quote


def test_string_locator_counts_an_escaped_surrogate_pair_as_one_character():
    decoded = "\U0001f600x"
    document = parse('{"a": "\\ud83d\\ude00x"}')
    move = string_locator(document, "/a", decoded)
    assert at(document.text, move(1, 2)).startswith("x")


def test_string_locator_without_a_string_literal_answers_none():
    document = parse('{"a": 1}')
    assert string_locator(document, "/a", "1")(1, 1) is None
    assert string_locator(document, "/nothing", "x")(1, 1) is None


# -- JSON Lines instances: record by record -------------------------------------------------------------------


def jsonl(*values) -> str:
    return "\n".join(v if isinstance(v, str) else json.dumps(v) for v in values) + "\n"


def test_json_lines_of_bare_arguments_are_checked_record_by_record():
    text = jsonl({"region": "apac"}, {"region": "global"}, "", {"region": "emea"}, {"region": 7}, {"region": "amer"})
    check = schema_page.build(text, pretty(REGION_SCHEMA))
    assert check.records is not None and check.record_count == 5
    assert [r.line for r in check.records] == [1, 2, 4, 5, 6]  # the blank line 3 is no record
    assert [r.outcome for r in check.records] == ["valid", "invalid", "valid", "invalid", "valid"]
    assert check.records_passed == 3 and check.records_badge == "invalid"
    assert check.outcomes == {"valid": 3, "invalid": 2}
    assert check.parse_problems == [] and check.valid is None  # no one-value verdict: one per record
    # Errors name their JSON Pointer and line:column in the whole text.
    [group] = check.records[3].check.groups
    assert group.pointer == "/region" and group.position == (5, 12)
    assert at(text, group.position).startswith("7}")
    assert check.records[1].position == (2, 1)


def test_a_record_of_bare_arguments_that_is_not_ijson_names_its_line_in_the_whole_text():
    """A duplicate name is only a warning for JSON, but the gate reads arguments as I-JSON: arguments_parse, with
    the record's line in the whole text (not the record's own line 1)."""
    text = jsonl({"region": "apac"}, "", '{"region": "apac", "region": "emea"}')
    check = schema_page.build(text, pretty(REGION_SCHEMA))
    record = check.records[1]
    assert record.line == 3 and record.outcome == "arguments_parse"
    error = record.check.ijson_error
    assert (error.line, error.code) == (3, "duplicate_key") and str(error).startswith("line 3, column ")
    assert text.splitlines()[2][error.column - 1 :].startswith('"region": "emea"')


def test_a_journal_is_judged_by_the_gate_item_by_item_against_its_tools():
    tools = pretty([TOOL, WEATHER])
    weather = {
        "type": "function_call",
        "id": "fc_w",
        "call_id": "c_w",
        "name": "get_weather",
        "status": "completed",
        "arguments": json.dumps({"location": 3}),
    }
    text = jsonl(
        {"type": "message", "role": "user", "content": "hi"},
        call("apac"),
        call("global"),
        call("apac", status="incomplete"),
        weather,
        {"type": "openai:web_search_call", "id": "ws"},
        call("apac", name="nope"),
    )
    check = schema_page.build(text, tools)
    assert [r.outcome for r in check.records] == [
        "not_function_call",
        "ok",
        "arguments_schema",
        "status",
        "arguments_schema",
        "namespaced",
        "schema problem",
    ]
    assert check.records_passed == 2 and check.records_badge == "not replayable"
    assert check.schema_tools == 2 and check.compiled is not None  # each call picks its tool by name
    # The global call: the error at the offending value inside its arguments string, on its own line.
    [group] = check.records[2].check.groups
    assert group.position[0] == 3 and at(text, group.position).startswith('\\"global\\"')
    # The weather call validated against get_weather's parameters, not the region schema.
    [group] = check.records[4].check.groups
    assert group.pointer == "/location" and at(text, group.position).startswith("3}")
    # An incomplete call: the gate stops at status, though its arguments would pass.
    assert check.records[3].check.verdict.reason == "status" and check.records[3].check.error_count == 0
    assert "without the called function" in check.records[6].check.schema_problem.message


def test_a_record_that_is_not_json_is_that_records_error_at_its_line_and_column():
    text = jsonl({"region": "apac"}, '{"region": "apac",}', {"region": "emea"})
    check = schema_page.build(text, pretty(REGION_SCHEMA))
    bad = check.records[1]
    assert bad.outcome == "not JSON" and not bad.passed
    [problem] = bad.check.parse_problems
    assert problem.position == (2, 18) and problem.error.line == 2  # the trailing comma
    assert problem.error.offset == len(jsonl({"region": "apac"})) + 17
    assert [r.outcome for r in check.records] == ["valid", "not JSON", "valid"]
    # A truncated arguments string inside a record: placed in the whole text too.
    cut = call(arguments='{"region":"ap')
    check = schema_page.build(jsonl({"type": "message", "role": "user", "content": "x"}, cut), pretty(REGION_SCHEMA))
    record = check.records[1]
    assert record.outcome == "arguments_parse"
    assert record.check.parse_problems[0].source == "arguments" and record.check.parse_problems[0].position[0] == 2


def test_json_lines_is_read_as_the_format_page_reads_it():
    # A first line that is not JSON on its own: the whole text's error, as on the Format page.
    check = schema_page.build('{"region": \n"apac"} {"x": 1}\n', pretty(REGION_SCHEMA))
    assert check.records is None and check.parse_problems[0].source == "instance"
    # One value spread over lines is one instance, not records.
    check = schema_page.build(pretty({"region": "apac"}), pretty(REGION_SCHEMA))
    assert check.records is None and check.valid is True


def test_json_lines_warnings_name_their_places_in_the_whole_text():
    check = schema_page.build('{"region": "apac"}\n{"region": "apac", "region": "emea"}\n', pretty(REGION_SCHEMA))
    [warning] = [w for w in check.warnings if w.code == "duplicate_key"]
    assert warning.position == (2, 20) and "line 2, column 2 and line 2, column 20" in warning.message


def test_json_lines_are_bounded_every_record_counted_the_first_shown():
    from webapp.core.pages.schema import MAX_RECORD_ERRORS_SHOWN, MAX_RECORDS_SHOWN

    count = MAX_RECORDS_SHOWN + 150
    text = jsonl(*({"region": "global" if i % 2 else "apac"} for i in range(count)))
    check = schema_page.build(text, pretty(REGION_SCHEMA))
    assert check.record_count == count and len(check.records) == MAX_RECORDS_SHOWN and check.records_cut
    assert check.outcomes == {"valid": count // 2, "invalid": count // 2}
    many = {"type": "array", "items": {"type": "string"}}
    check = schema_page.build(jsonl(list(range(50)), ["ok"]), pretty(many))
    first = check.records[0].check
    assert first.error_count == 50 and first.shown_count == MAX_RECORD_ERRORS_SHOWN


def test_json_lines_without_a_schema_are_not_checked_but_items_get_the_gate():
    text = jsonl({"type": "message", "role": "user", "content": "x"}, {"region": "apac"}, "{nope")
    check = schema_page.build(text, "")
    assert check.needs == ["schema"]
    assert [r.outcome for r in check.records] == ["not_function_call", "not checked", "not JSON"]


# -- what stops an item whatever its value's verdict (a fresh user's audit: these were "ok" here only) ----------

DUPLICATE_STATUS = (
    '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_latest_sales_report",'
    '"status":"incomplete","status":"completed","arguments":"{\\"region\\":\\"apac\\"}"}'
)


def test_an_item_giving_a_member_name_twice_is_refused_as_every_page_refuses_it():
    check = schema_page.build(DUPLICATE_STATUS, pretty(TOOL))
    assert check.valid is True and check.verdict.reason == "ok"  # its arguments pass; the item does not
    assert check.verdict.refused_by == ("duplicate_member",) and not check.verdict.ok
    assert check.refused == "duplicate_member"
    assert check.findings[0].startswith('the item gives the member name "status" twice, at /status')


@pytest.mark.parametrize(("missing", "code"), [("call_id", "missing_call_id"), ("name", "missing_name")])
def test_a_call_without_a_call_id_or_a_name_is_refused(missing, code):
    item = {k: v for k, v in call("apac").items() if k != missing}
    check = schema_page.build(pretty(item), pretty(REGION_SCHEMA))
    assert check.valid is True and check.verdict.refused_by == (code,) and check.refused == code


def test_an_unknown_item_type_is_judged_as_an_item_not_validated_as_arguments():
    item = {**call("apac"), "type": "function_call_v2"}
    check = schema_page.build(pretty(item), pretty(TOOL))
    assert check.verdict.reason == "not_function_call" and check.error_count == 0 and not check.has_instance


def test_a_record_giving_a_member_name_twice_is_refused():
    check = schema_page.build(jsonl(call("apac"), DUPLICATE_STATUS), pretty(TOOL))
    assert [r.outcome for r in check.records] == ["ok", "refused"]
    assert check.records_badge == "not replayable"
    assert check.records[1].check.findings[0].startswith('the item gives the member name "status" twice')


def test_an_item_with_nothing_to_execute_is_no_refusal():
    # From a fresh user's audit: "not replayable … refuses at not_function_call" for a lone output.
    check = schema_page.build(pretty({"type": "function_call_output", "call_id": "c1", "output": "ok"}), pretty(TOOL))
    assert check.verdict.reason == "not_function_call" and check.refused is None


def test_records_that_are_items_are_paired_as_the_journal_they_make():
    # From a fresh user's audit: "valid, 2 of 2" here, duplicate_call_id on every other page and in the CLI.
    again = {**call("apac"), "id": "fc_2"}
    check = schema_page.build(jsonl(call("apac"), again), pretty(TOOL))
    assert [r.outcome for r in check.records] == ["ok", "refused"]
    assert check.records_badge == "not replayable" and check.outcomes == {"ok": 1, "refused": 1}
    assert check.records[1].check.findings == [
        f'the item on line 2 reuses call_id "{again["call_id"]}" of the item on line 1'
    ]
    line = check.records[1].check.verdict  # its line says what stops it, not "may be executed"
    assert line.refused_by == ("duplicate_call_id",) and line.message.startswith("the gate passes its value, but")
    orphan = schema_page.build(
        jsonl({"type": "function_call_output", "call_id": "nowhere", "output": "ok"}, call("apac")), pretty(TOOL)
    )
    assert [r.outcome for r in orphan.records] == ["refused", "ok"]
    assert orphan.records[0].check.verdict.message.startswith("nothing to execute, but orphan_output stops")
    answered = {"type": "function_call_output", "call_id": again["call_id"], "output": "ok"}
    fine = schema_page.build(jsonl(call("apac"), answered), pretty(TOOL))
    assert [r.outcome for r in fine.records] == ["ok", "not_function_call"] and fine.records_badge == "valid"
