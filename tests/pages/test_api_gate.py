"""POST /api/gate: one item, a journal, and hostile requests (never a 500, always the one error shape)."""

from __future__ import annotations

import json

import pytest

WEATHER = {
    "type": "object",
    "properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["location"],
    "additionalProperties": False,
}
TOOLS = [{"type": "function", "name": "get_weather", "parameters": WEATHER}]


@pytest.fixture(autouse=True)
def short_pattern_budget(monkeypatch):
    """Catastrophic patterns give up after 0.2 s here instead of 1 s: same behaviour, faster suite."""
    monkeypatch.setattr("webapp.core.schema.patterns.PATTERN_BUDGET_SECONDS", 0.2)


def call(arguments: str, status: str = "completed", call_id: str = "call_1") -> dict:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


def post(client, body, **kwargs):
    if isinstance(body, (str, bytes)):
        return client.post("/api/gate", data=body, content_type=kwargs.pop("content_type", "application/json"))
    return client.post("/api/gate", json=body)


def assert_error(response, status: int, param: str | None = None, words: str = ""):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["param"] == param
    assert words in body["error"]["message"]
    return body["error"]


def test_one_item_ok(client):
    response = post(client, {"item": call('{"location":"Paris"}'), "schema": WEATHER})
    assert response.status_code == 200
    assert response.get_json() == {
        "reason": "ok",
        "ok": True,
        "label": "ok",
        "message": "may be executed, and its function_call_output written",
        "errors": [],
        "parse_error": None,
        "schema_error": None,
        "dialect": "2020-12",
        "refused_by": [],
        "findings": [],
        "target": "portable",
        "disposition": "keep",
    }


def test_one_item_schema_errors_point_at_members(client):
    body = post(client, {"item": call('{"unit":"kelvin","extra":1}'), "schema": WEATHER}).get_json()
    assert body["reason"] == "arguments_schema" and body["ok"] is False
    assert [(e["pointer"], e["keyword"]) for e in body["errors"]] == [
        ("/location", "required"),
        ("/extra", "additionalProperties"),
        ("/unit", "enum"),
    ]
    for error in body["errors"]:
        assert set(error) == {"pointer", "keyword", "schema_path", "message"}


def test_one_item_parse_error_has_line_and_column(client):
    body = post(client, {"item": call('{"location":"Paris","location":"Rome"}'), "schema": WEATHER}).get_json()
    assert body["reason"] == "arguments_parse"
    assert body["parse_error"] == {
        "message": body["parse_error"]["message"],
        "code": "duplicate_key",
        "line": 1,
        "column": 21,
    }


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ({"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}, "namespaced"),
        ({"type": "function_call_output", "call_id": "c", "output": "x"}, "not_function_call"),
        (call('{"location":"Par', status="incomplete"), "status"),
        ({**call("{}"), "arguments": {"location": "Paris"}}, "arguments_type"),
    ],
)
def test_one_item_reasons(client, item, reason):
    assert post(client, {"item": item, "schema": WEATHER}).get_json()["reason"] == reason


@pytest.mark.parametrize(
    ("schema", "pointer", "words"),
    [
        ({"$ref": "http://169.254.169.254/latest/meta-data"}, "/$ref", "remote references are disabled"),
        (
            {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
            "/$defs/b/$ref",
            "cycle",
        ),
        ({"$schema": "http://json-schema.org/draft-07/schema/#"}, "/$schema", "did you mean"),
        ({"properties": {"a": {"pattern": "(x"}}}, "/properties/a/pattern", "regex"),
        ({"type": "objekt"}, "/type", "not a valid 2020-12 schema"),
    ],
)
def test_an_unusable_schema_is_reported_apart_from_the_item(client, schema, pointer, words):
    response = post(client, {"item": call('{"location":"Paris"}'), "schema": schema})
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is False and body["reason"] == "arguments_schema" and body["errors"] == []
    assert body["schema_error"]["pointer"] == pointer
    assert words in body["schema_error"]["message"]
    assert body["dialect"] is None


def test_catastrophic_pattern_answers(client):
    schema = {"type": "object", "properties": {"code": {"pattern": "^(a+)+$"}, "c2": {"pattern": "^(a|a)*$"}}}
    arguments = json.dumps({"code": "a" * 5000 + "!", "c2": "a" * 40 + "!"})
    body = post(client, {"item": call(arguments), "schema": schema}).get_json()
    assert body["reason"] == "arguments_schema"
    assert sorted(e["pointer"] for e in body["errors"]) == ["/c2", "/code"]


def test_format_assertion(client):
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
    item = call('{"when":"2026-02-30"}')
    assert post(client, {"item": item, "schema": schema}).get_json()["ok"] is True
    body = post(client, {"item": item, "schema": schema, "format_assertion": True}).get_json()
    assert body["reason"] == "arguments_schema" and body["errors"][0]["keyword"] == "format"


def test_journal_as_items(client):
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        call('{"location":"Paris"}'),
        {"type": "function_call_output", "call_id": "call_9", "output": "x"},
    ]
    body = post(client, {"items": items, "tools": TOOLS}).get_json()
    assert body["replayable"] is False
    assert [(i["index"], i["reason"]) for i in body["items"]] == [
        (0, "not_function_call"),
        (1, "ok"),
        (2, "not_function_call"),
    ]
    assert body["findings"] == [
        {
            "code": "orphan_output",
            "index": 2,
            "call_id": "call_9",
            "message": body["findings"][0]["message"],
            "severity": "error",
            "pointer": None,
            "line": None,
            "column": None,
        }
    ]


def test_journal_as_jsonl_text(client):
    text = "\n".join(
        json.dumps(x)
        for x in (
            {"type": "message", "role": "user", "content": "hi"},
            call('{"location":"Paris"}'),
            {"type": "function_call_output", "call_id": "call_1", "output": "x"},
        )
    )
    body = post(client, {"journal": text, "tools": TOOLS}).get_json()
    assert body["replayable"] is True and body["shape"] == "jsonl" and body["findings"] == []


def test_journal_as_response_uses_its_own_tools(client):
    response = {"object": "response", "output": [call('{"location":"Paris","unit":"kelvin"}')], "tools": TOOLS}
    body = post(client, {"journal": response}).get_json()
    assert body["shape"] == "response" and body["replayable"] is False
    assert body["items"][0]["errors"][0]["pointer"] == "/unit"
    assert post(client, {"journal": json.dumps(response)}).get_json() == body


def test_journal_allowed_tools(client):
    choice = {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "other"}]}
    body = post(client, {"items": [call('{"location":"Paris"}')], "tools": TOOLS, "tool_choice": choice}).get_json()
    assert [f["code"] for f in body["findings"]] == ["tool_not_allowed"]


def test_journal_tool_choice_with_a_call_named_by_a_list_is_a_finding_not_a_500(client):
    response = post(client, {"items": [{**call("{}"), "name": ["get_weather"]}], "tools": TOOLS, "tool_choice": "none"})
    assert response.status_code == 200
    assert [f["code"] for f in response.get_json()["findings"]] == ["missing_name"]


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ("this is not json", None, "not valid JSON: line 1, column 1"),
        ('{"item": {"type": "function_call",}}', None, "line 1, column 34"),
        ("", None, "empty"),
        ("[1, 2]", None, "must be a JSON object"),
        ('{"item": "x"}', "item", "item must be an Open Responses item"),
        ('{"item": {}, "schema": "object"}', "schema", "schema must be a JSON Schema"),
        ('{"item": {}, "format_assertion": "yes"}', "format_assertion", "true or false"),
        ('{"items": {"type": "message"}}', "items", "items must be a JSON array"),
        ('{"items": [], "tools": {"a": 1}}', "tools", "tools must be a JSON array"),
        ('{"journal": 5}', "journal", "journal must be"),
        ('{"journal": "{\\"a\\": 1,}"}', "journal", "journal: line 1, column"),
        ('{"journal": "{\\"a\\": 1}\\n[1]"}', "journal", "JSON Lines, line 2"),
        ('{"journal": {"output": 3}}', "journal", "/output"),
        ('{"journal": "[\\"\\\\\\t\\"]"}', "journal", "Invalid escape '\\' followed by a tab (U+0009)"),
        ('{"item": {}, "items": []}', "items", "not item and items"),
        ('{"tools": []}', "item", "Send"),
        ("[" * 5000 + "]" * 5000, None, "deeper than"),
        ('{"item": ' + "[" * 150 + "]" * 150 + "}", None, "deeper than"),
    ],
)
def test_malformed_requests_are_400_naming_the_param(client, body, param, words):
    assert_error(post(client, body), 400, param, words)


def test_a_lone_surrogate_in_the_request_is_answered(client):
    body = '{"item": {"type": "x\\ud800", "status": "completed"}, "schema": {}}'
    response = post(client, body)
    assert response.status_code == 200
    assert response.get_json()["reason"] == "not_function_call"
    assert "\\ud800" in response.get_data(as_text=True)


AMBIGUOUS = (
    '{"type":"openai:x","type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",'
    '"arguments":"{\\"location\\":\\"Paris\\"}","status":"in_progress","status":"completed"}'
)


def column_of(text: str, marker: str) -> int:
    assert text.count(marker) == 1 and "\n" not in text
    return text.index(marker) + 1


def test_an_item_with_duplicate_envelope_members_is_refused_naming_the_place(client):
    # Read leniently it looked "ok"; a parser keeping the first values sees a namespaced, in-progress item.
    body = '{"item": ' + AMBIGUOUS + ', "schema": {"type": "object"}}'
    error = assert_error(post(client, body), 400, "item", "/item/type")
    assert error["code"] == "duplicate_member"
    column = column_of(body, '"type":"function_call"')
    assert f"/item/type (second at line 1, column {column})" in error["message"]
    status_column = column_of(body, '"status":"completed"')
    assert f"/item/status (second at line 1, column {status_column})" in error["message"]
    assert "must never be replayed" in error["message"]


@pytest.mark.parametrize(
    ("body", "param", "pointer"),
    [
        ('{"item": {"type": "message"}, "item": ' + AMBIGUOUS + "}", "item", "/item"),
        ('{"item": {"type": "message"}, "schema": {"type": "object", "type": "string"}}', "schema", "/schema/type"),
        ('{"items": [], "tools": [{"type": "function", "name": "a", "name": "b"}]}', "tools", "/tools/0/name"),
        ('{"items": [], "tool_choice": "none", "tool_choice": "auto"}', "tool_choice", "/tool_choice"),
        ('{"items": [], "format_assertion": true, "format_assertion": false}', "format_assertion", "/format_assertion"),
    ],
)
def test_duplicates_that_make_the_request_unclear_are_400(client, body, param, pointer):
    error = assert_error(post(client, body), 400, param, f"at {pointer} ")
    assert error["code"] == "duplicate_member"


@pytest.mark.parametrize(
    ("field", "text", "pointer"),
    [
        ("items", "[" + AMBIGUOUS + "]", "/items/0/status"),
        ("journal", '{"object": "response", "output": [' + AMBIGUOUS + "]}", "/journal/output/0/status"),
    ],
)
def test_a_journal_with_duplicate_members_is_not_replayable(client, field, text, pointer):
    body = '{"tools": ' + json.dumps(TOOLS) + ', "' + field + '": ' + text + "}"
    report = post(client, body).get_json()
    assert [item["reason"] for item in report["items"]] == ["ok"] and report["replayable"] is False
    found = [f for f in report["findings"] if f["code"] == "duplicate_member"]
    assert [f["pointer"] for f in found] == [pointer.replace("status", "type"), pointer]
    assert (found[1]["index"], found[1]["line"], found[1]["column"], found[1]["severity"]) == (
        0,
        1,
        column_of(body, '"status":"completed"'),
        "error",
    )


def test_a_journal_sent_as_text_is_placed_in_its_own_text(client):
    text = "[" + AMBIGUOUS + "]"
    report = post(client, {"journal": text, "tools": TOOLS}).get_json()
    found = [f for f in report["findings"] if f["code"] == "duplicate_member"]
    assert [(f["index"], f["pointer"], f["line"], f["column"]) for f in found] == [
        (0, "/0/type", 1, column_of(text, '"type":"function_call"')),
        (0, "/0/status", 1, column_of(text, '"status":"completed"')),
    ]
    assert report["replayable"] is False


def test_a_duplicate_name_inside_arguments_stays_an_arguments_parse_verdict(client):
    body = post(client, {"items": [call('{"location":"a","location":"b"}')], "tools": TOOLS}).get_json()
    assert body["items"][0]["reason"] == "arguments_parse"
    assert not [f for f in body["findings"] if f["code"] == "duplicate_member"]


@pytest.mark.parametrize("keyword", ["not", "items", "allOf"])
def test_the_deepest_schema_the_body_allows_is_answered(client, keyword):
    """Nested as deep as the request's depth limit allows, in the shapes that recurse most in jsonschema."""
    schema: dict = {"type": "object"}
    node = schema
    for _ in range(45 if keyword == "allOf" else 95):
        child: dict = {}
        node[keyword] = [child] if keyword == "allOf" else child
        node = child
    response = post(client, {"item": call('{"location":"x"}'), "schema": schema})
    assert response.status_code == 200
    body = response.get_json()
    assert body["schema_error"] is None
    assert body["reason"] == ("arguments_schema" if keyword == "not" else "ok")


def test_huge_schema_is_answered(client):
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string", "maxLength": 10} for i in range(2000)}}
    body = post(client, {"item": call('{"p10":"01234567890"}'), "schema": schema}).get_json()
    assert body["reason"] == "arguments_schema"
    assert body["errors"][0]["pointer"] == "/p10"


def test_over_size_body_is_413(app, client):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = post(client, json.dumps({"item": call("{}"), "schema": {"description": "x" * 2000}}))
    error = assert_error(response, 413)
    assert error["code"] == "payload_too_large"


def test_get_is_405_with_allow(client):
    response = client.get("/api/gate")
    assert response.status_code == 405
    assert "POST" in response.headers["Allow"]
    assert response.get_json()["error"]["code"] == "method_not_allowed"


def test_one_item_against_the_tool_it_names(client):
    body = post(client, {"item": call('{"location":"Paris","unit":"kelvin"}'), "tools": TOOLS}).get_json()
    assert body["reason"] == "arguments_schema" and body["errors"][0]["pointer"] == "/unit"
    missing = post(client, {"item": {**call("{}"), "name": "nope"}, "tools": TOOLS}).get_json()
    assert missing["reason"] == "arguments_schema" and 'no schema of "nope"' in missing["message"]
    assert_error(post(client, {"item": call("{}"), "tools": "x"}), 400, "tools", "tools must be a JSON array")


def deep_call(levels: int) -> dict:
    return call("[" * levels + "]" * levels)


@pytest.mark.parametrize(
    ("setting", "levels", "reason"),
    [
        (None, 20, "ok"),
        (10, 20, "arguments_parse"),
        (20, 20, "ok"),
        (None, 120, "arguments_parse"),
        (150, 120, "ok"),
    ],
)
def test_json_max_depth_is_the_gates_depth(app, client, setting, levels, reason):
    """The setting, not a constant of the gate, decides how deep a call's arguments may nest."""
    if setting is not None:
        app.config["JSON_MAX_DEPTH"] = setting
    one = post(client, {"item": deep_call(levels), "schema": True}).get_json()
    assert one["reason"] == reason
    if reason == "arguments_parse":
        assert one["parse_error"]["code"] == "too_deep"
    items = post(client, {"items": [deep_call(levels)], "schema": True}).get_json()
    text = post(client, {"journal": json.dumps([deep_call(levels)]), "schema": True}).get_json()
    assert [i["reason"] for i in items["items"]] == [i["reason"] for i in text["items"]] == [reason]


def test_json_max_depth_limits_the_body_too(app, client):
    app.config["JSON_MAX_DEPTH"] = 5
    nested = {"item": {"type": "function_call", "x": [[[[[1]]]]]}}
    assert_error(post(client, nested), 400, None, "deeper than")
    assert_error(post(client, {"journal": json.dumps([[[[[[1]]]]]])}), 400, "journal", "deeper than")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"call_id": None}, "missing_call_id"),
        ({"name": None}, "missing_name"),
        ({"name": 5, "call_id": [1]}, "missing_name"),
    ],
)
def test_one_call_that_cannot_be_paired_or_named_is_never_ok(client, change, code):
    """From a fresh user's audit: {"type": "function_call", "status": "completed", "arguments": "{}"} with any
    schema was ok, while the CLI and /v1/responses refuse it (a FunctionCall requires call_id and name)."""
    item = {k: v for k, v in {**call("{}"), **change}.items() if v is not None}
    answer = post(client, {"item": item, "schema": True}).get_json()
    assert (answer["reason"], answer["ok"]) == ("ok", False) and code in answer["refused_by"]
    assert answer["message"].startswith(f"the gate passes its value, but {', '.join(answer['refused_by'])} stops")
    assert {f["code"] for f in answer["findings"]} == set(answer["refused_by"])
    assert all(f["message"].startswith("the item ") for f in answer["findings"])


def test_a_tool_definition_as_the_schema_is_read_as_its_parameters(client):
    # From a fresh user's audit: the Schema page takes the tool definition, /api/gate called it an unusable schema.
    parameters = {"type": "object", "properties": {"region": {"enum": ["apac"]}}, "required": ["region"]}
    for tool in (
        {"type": "function", "name": "get_weather", "parameters": parameters},
        {"type": "function", "function": {"name": "get_weather", "parameters": parameters}},
    ):
        good = post(client, {"item": call('{"region": "apac"}'), "schema": tool}).get_json()
        bad = post(client, {"item": call('{"region": "emea"}'), "schema": tool}).get_json()
        assert (good["reason"], good["ok"], bad["reason"]) == ("ok", True, "arguments_schema")
        assert bad["schema_error"] is None and bad["errors"][0]["pointer"] == "/region"


def test_a_tool_definition_of_another_name_is_no_schema_for_the_call(client):
    tool = {"type": "function", "name": "other_tool", "parameters": {"type": "object"}}
    answer = post(client, {"item": call('{"region": "apac"}'), "schema": tool}).get_json()
    assert (answer["reason"], answer["ok"]) == ("arguments_schema", False)
    journal = post(client, {"items": [call('{"region": "apac"}')], "schema": tool}).get_json()
    assert not journal["replayable"] and [f["code"] for f in journal["findings"]] == ["unknown_tool"]


def test_a_list_of_tool_definitions_as_the_schema_is_the_tools(client):
    tools = [
        {"type": "function", "name": "other_tool", "parameters": {"type": "object"}},
        {"type": "function", "name": "get_weather", "parameters": {"type": "object", "required": ["region"]}},
    ]
    good = post(client, {"item": {**call('{"region": "apac"}'), "name": "get_weather"}, "schema": tools}).get_json()
    assert (good["reason"], good["ok"]) == ("ok", True)
    assert post(client, {"item": call("{}"), "schema": [1]}).status_code == 400


@pytest.mark.parametrize("path", ["/api/gate", "/api/convert", "/api/tools", "/v1/responses"])
def test_a_body_with_a_backslash_before_a_tab_is_400_naming_the_place(client, path):
    """Issue 19: the message for this invalid escape was itself a 500 on every JSON route."""
    response = client.post(
        path,
        data='{"item": "\\\t"}',
        content_type="application/json",
        headers={"Authorization": "Bearer sk-test-token"},
    )
    assert_error(response, 400, None, "line 1, column 11: Invalid escape '\\' followed by a tab (U+0009)")


NATIVE = [
    {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "SELECT 1"},
    {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"},
    {"type": "computer_call", "id": "cu_1", "call_id": "c2", "status": "completed", "action": {"type": "screenshot"}},
    {"type": "tool_search_call", "call_id": "t1", "execution": "client", "arguments": {"q": "x"}},
]
SQL = [{"type": "custom", "name": "sql", "format": {"type": "grammar", "syntax": "regex", "definition": "^SELECT .+$"}}]


def test_a_journal_of_native_openai_items_is_judged_for_its_target(client):
    """Issue 18: native OpenAI items are not 'nothing to run' for portable; for openai they are kept and checked."""
    portable = post(client, {"items": NATIVE, "tools": SQL}).get_json()
    assert portable["replayable"] is False and portable["target"] == "portable" and portable["source"] == "openai"
    assert [f["code"] for f in portable["findings"]] == ["provider_item"] * 4
    assert [i["disposition"] for i in portable["items"]] == ["leave_out"] * 4
    assert [e["pointer"] for e in portable["left_out"]] == ["/0", "/1", "/2", "/3"]
    assert set(portable["left_out_notes"]) == {"provider_item"}
    openai = post(client, {"items": NATIVE, "tools": SQL, "target": "openai"}).get_json()
    assert openai["target"] == "openai" and [i["disposition"] for i in openai["items"]] == ["keep"] * 4
    assert [i["reason"] for i in openai["items"]][0] == "ok"  # its input fits the regex grammar
    # The last turn's calls wait for their outputs: to be appended before sending, not a refusal (O7).
    assert [f["code"] for f in openai["findings"]] == ["output_required", "output_required"]
    assert openai["replayable"] is True and openai["says"] == "replayable once the output of 2 calls is appended"


def test_a_custom_tool_call_outside_its_grammar_is_refused_with_the_place(client):
    item = {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "DROP TABLE t"}
    answer = post(client, {"item": item, "tools": SQL, "target": "openai"}).get_json()
    assert answer["reason"] == "arguments_schema" and answer["ok"] is False
    assert "line 1, column 1" in answer["message"] and answer["target"] == "openai"


def test_one_item_has_its_disposition_for_the_target(client):
    item = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}
    portable = post(client, {"item": item}).get_json()
    assert portable["disposition"] == "leave_out" and [f["code"] for f in portable["findings"]] == ["provider_item"]
    openai = post(client, {"item": item, "target": "openai"}).get_json()
    assert openai["disposition"] == "keep" and openai["findings"] == []


def test_duplicate_ids_are_refused(client):
    items = [{"type": "message", "id": "msg_1", "role": "user", "content": "a"}] * 2
    answer = post(client, {"items": items}).get_json()
    assert answer["replayable"] is False and [f["code"] for f in answer["findings"]] == ["duplicate_id"]


@pytest.mark.parametrize("target", ["claude", 3, None])
def test_an_unknown_target_is_a_400_naming_it(client, target):
    assert_error(post(client, {"items": [], "target": target}), 400, "target", "target must be one of portable")
    assert_error(post(client, {"item": call("{}"), "target": target}), 400, "target", "openai, anthropic")
