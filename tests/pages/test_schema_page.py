"""The JSON Schema page (step 2) through Flask's test client: full page vs htmx partial, the no-JS POST,
unwrapping of items and tool definitions, the schema-problem pane, the format toggle, hostile input."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import template_rendered

from webapp.core.examples import SCHEMA as EXAMPLES
from webapp.core.pages.schema import MAX_ERRORS_SHOWN
from webapp.core.schema import compile_schema

HX = {"HX-Request": "true"}

# The article's fc_009 item and region schema (seeds/replay-gate-article.ru.txt), as the page's examples hold them.
_, FC_009, REGION_SCHEMA = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]


def call(region: str = "global", **changes) -> dict:
    """The article's fc_009 with ``region`` in its arguments string, and ``changes`` applied."""
    return {**FC_009, "arguments": json.dumps({"region": region}, separators=(",", ":")), **changes}


def pretty(value) -> str:
    return json.dumps(value, indent=2)


@contextmanager
def rendered(app) -> Iterator[list[str]]:
    """Names of the top-level templates rendered inside the block (Flask's template_rendered signal)."""
    names: list[str] = []

    def record(sender, template, context, **extra):
        names.append(template.name)

    template_rendered.connect(record, app)
    try:
        yield names
    finally:
        template_rendered.disconnect(record, app)


def textarea(body: str, name: str) -> str:
    """The text a browser shows in the named textarea (one leading newline is dropped by HTML)."""
    match = re.search(rf'<textarea[^>]*name="{name}"[^>]*>(.*?)</textarea>', body, re.S)
    assert match, f"no textarea {name!r}"
    text = html.unescape(match.group(1))
    return text[1:] if text.startswith("\n") else text


def post(client, instance=None, schema=None, headers=None, **fields):
    data = dict(fields)
    if instance is not None:
        data["instance"] = instance if isinstance(instance, str) else pretty(instance)
    if schema is not None:
        data["schema"] = schema if isinstance(schema, str) else pretty(schema)
    response = client.post("/schema", data=data, headers=headers or {})
    assert response.status_code == 200, response.data[:500]
    return response.get_data(as_text=True)


def groups(body: str) -> list[str]:
    """Instance pointers of the error groups, in page order."""
    return [html.unescape(p) for p in re.findall(r'class="panel err-group[^"]*" data-pointer="([^"]*)"', body)]


# -- full page, partial, carry ------------------------------------------------------------------------------


def test_get_shows_the_empty_form_and_a_hint(client, app):
    with rendered(app) as names:
        response = client.get("/schema")
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert names == ["schema/page.html"]
    assert textarea(body, "instance") == "" and textarea(body, "schema") == ""
    assert 'hx-post="/schema"' in body and 'method="post"' in body and 'action="/schema"' in body
    assert "schema.css" in body and "schema.js" in body
    assert "HX-Request" in response.headers["Vary"]


def test_no_js_post_gets_the_full_page_with_both_texts_kept(client, app):
    instance, schema = pretty(call("global")), pretty(REGION_SCHEMA)
    with rendered(app) as names:
        body = post(client, instance, schema)
    assert names[0] == "schema/page.html"
    assert textarea(body, "instance") == instance and textarea(body, "schema") == schema
    assert groups(body) == ["/region"]


def test_htmx_post_gets_only_the_result_partial(client, app):
    with rendered(app) as names:
        body = post(client, call("global"), REGION_SCHEMA, headers=HX)
    assert names == ["schema/_result.html"]
    assert "<html" not in body and "<textarea" not in body
    assert groups(body) == ["/region"]


def test_history_restore_gets_the_full_page(client, app):
    with rendered(app) as names:
        post(client, call("global"), REGION_SCHEMA, headers={**HX, "HX-History-Restore-Request": "true"})
    assert names[0] == "schema/page.html"


@pytest.mark.parametrize("headers", [{}, HX])
def test_instance_carried_alone_opens_the_page_and_asks_for_the_schema(client, app, headers):
    carried = '{"region": "apac"}'
    with rendered(app) as names:
        body = post(client, carried, headers=headers)
    assert names[0] == "schema/page.html"  # a carry from step 1 always wants the whole page
    assert textarea(body, "instance") == carried and textarea(body, "schema") == ""
    assert "schema needed" in body
    assert 'role="alert"' not in body and "not JSON" not in body


def test_leading_newline_survives_the_round_trip(client):
    text = '\n\n{"region": "apac"}'
    assert textarea(post(client, text, REGION_SCHEMA), "instance") == text


@pytest.mark.parametrize(
    ("name", "reason", "pointers"),
    [
        ("fc_001", "ok", []),
        ("fc_009", "arguments_schema", ["/region"]),
        ("tool", "arguments_schema", ["/region"]),
    ],
)
def test_examples_load_from_plain_links(client, name, reason, pointers):
    body = client.get(f"/schema?example={name}").get_data(as_text=True)
    assert f'data-testid="reason">{reason}</span>' in body
    assert groups(body) == pointers
    assert json.loads(textarea(body, "instance"))["type"] == "function_call"
    assert f'href="/schema?example={name}"' in body


def test_unknown_example_is_just_the_empty_form(client):
    body = client.get("/schema?example=<script>").get_data(as_text=True)
    assert textarea(body, "instance") == "" and "<script>" not in body.split("<main>")[1]


# -- the article's global example -----------------------------------------------------------------------


def test_global_is_flagged_at_region_with_the_allowed_values_and_left_alone(client):
    instance = pretty(call("global"))
    body = post(client, instance, REGION_SCHEMA)
    assert groups(body) == ["/region"]
    group = body[body.index('data-pointer="/region"') :]
    assert '<code class="kw">enum</code>' in group
    assert "allowed values:" in group
    assert all(f"<code>&#34;{v}&#34;</code>" in group for v in ("apac", "emea", "amer"))
    assert "value <code>&#34;global&#34;</code>" in group
    assert 'data-testid="reason">arguments_schema</span>' in body
    # Never "fixed": the pasted text comes back as it was, and so does what is carried to step 3.
    assert textarea(body, "instance") == instance
    carried = re.search(r'name="left" value="([^"]*)"', body).group(1)
    assert html.unescape(carried) == instance


def test_positions_point_into_the_pasted_text_including_the_arguments_string(client):
    instance = pretty(call("global"))
    body = post(client, instance, REGION_SCHEMA, headers=HX)
    line, column = map(int, re.search(r'data-field="instance" data-line="(\d+)" data-column="(\d+)"', body).groups())
    # The error is at the offending value of "region" inside the arguments string: its escaped quote in the text.
    assert instance.splitlines()[line - 1][column - 1 :].startswith('\\"global\\"}"')
    schema_text = pretty(REGION_SCHEMA)
    line, column = map(int, re.search(r'data-field="schema" data-line="(\d+)" data-column="(\d+)"', body).groups())
    assert schema_text.splitlines()[line - 1][column - 1 :].startswith('"enum"')


def test_position_through_escapes_in_the_arguments_string(client):
    # Escapes before the error move the column: \u00e9 is 6 characters in the text, 1 in the string.
    item = call(arguments='{"note":"caf\\u00e9 \\"x\\"\\n","region":"global"}')
    instance = json.dumps(item)
    body = post(client, instance, REGION_SCHEMA, headers=HX)
    line, column = map(int, re.search(r'data-field="instance" data-line="(\d+)" data-column="(\d+)"', body).groups())
    assert groups(body)[0] in ("/region", "/note")
    pointer_ = groups(body)[0]
    assert instance.splitlines()[line - 1][column - 1 :].startswith(f'\\"{pointer_[1:]}\\"')


def test_bare_instance_positions_and_grouping(client):
    instance = '{\n  "region": "global",\n  "extra": 1\n}'
    body = post(client, instance, REGION_SCHEMA, headers=HX)
    expected = compile_schema(REGION_SCHEMA).errors({"region": "global", "extra": 1})
    order = list(dict.fromkeys(e.pointer for e in expected))
    assert groups(body) == order and set(order) == {"/region", "/extra"}
    best = re.search(r'<li class="err best">.*?<code class="kw">([^<]*)</code>', body, re.S).group(1)
    assert best == expected[0].keyword
    assert body.count("best match</span>") == 1
    assert 'data-line="2" data-column="13"' in body  # /region: the value the enum refuses
    assert 'data-line="3" data-column="3"' in body  # /extra: its name, which is what is refused
    extra = body[body.index('data-pointer="/extra"') :]
    assert "allowed members:" in extra and "<code>&#34;region&#34;</code>" in extra


def test_missing_member_is_reported_at_its_pointer(client):
    body = post(client, "{}", REGION_SCHEMA, headers=HX)
    assert groups(body) == ["/region"]
    assert '<span class="value muted">missing</span>' in body


def test_valid_instance(client):
    body = post(client, {"region": "apac"}, REGION_SCHEMA, headers=HX)
    assert 'data-testid="validity">valid</span>' in body
    assert 'data-testid="reason">ok</span>' in body and groups(body) == []
    assert "2020-12" in body


# -- what was pasted: items and tool definitions --------------------------------------------------------

CHAT_TOOL = {"type": "function", "function": {"name": "get_latest_sales_report", "parameters": REGION_SCHEMA}}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
}


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        (TOOL, "flat shape"),
        (CHAT_TOOL, "Chat Completions nested shape"),
        ([WEATHER, TOOL], "picked by the call's name from the 2 tools pasted"),
    ],
)
def test_tool_definitions_are_unwrapped_and_the_page_says_so(client, schema, said):
    body = post(client, call("global"), schema, headers=HX)
    assert "the <code>parameters</code> of the tool definition <code>get_latest_sales_report</code>" in body
    assert said in body
    assert groups(body) == ["/region"]
    line, column = map(int, re.search(r'data-field="schema" data-line="(\d+)" data-column="(\d+)"', body).groups())
    assert pretty(schema).splitlines()[line - 1][column - 1 :].startswith('"enum"')


@pytest.mark.parametrize(
    ("instance", "schema", "message"),
    [
        ({"region": "apac"}, [WEATHER, TOOL], "paste the whole function_call item so its name picks one"),
        (call("apac", name="get_time"), [WEATHER, TOOL], "without the called function &#34;get_time&#34;"),
        (call("apac"), {"type": "function", "name": "get_latest_sales_report"}, "has no &#34;parameters&#34;"),
        (call("apac"), {**TOOL, "parameters": None}, "&#34;parameters&#34;: null"),
        (call("apac"), [1, 2], "not a JSON array"),
        (call("apac"), '"object"', "not a JSON string"),
        (call("apac"), "null", "not a JSON null"),
    ],
)
def test_unusable_schema_inputs_get_the_schema_pane(client, instance, schema, message):
    body = post(client, instance, schema, headers=HX)
    assert 'data-testid="schema-problem"' in body and message in body
    assert groups(body) == [] and "schema unusable" in body


def test_name_mismatch_between_call_and_tool_is_pointed_out(client):
    body = post(client, call("apac", name="get_weather"), TOOL, headers=HX)
    assert "mismatch</span>" in body and "<code>get_weather</code>" in body


def test_chat_completions_tool_call_is_unwrapped(client):
    tool_call = {
        "id": "call_T0",
        "type": "function",
        "function": {"name": "get_latest_sales_report", "arguments": '{"region":"global"}'},
    }
    body = post(client, tool_call, REGION_SCHEMA, headers=HX)
    assert "Chat Completions tool call <code>call_T0</code>" in body
    assert "not an Open Responses item" in body
    assert groups(body) == ["/region"]
    assert "Gate verdict" not in body  # the gate judges Open Responses items only


def test_arguments_stored_as_an_object_are_validated_but_called_out(client):
    item = call(arguments={"region": "global"})
    body = post(client, item, REGION_SCHEMA, headers=HX)
    assert "stored as a JSON object, not a string" in body
    assert 'data-testid="reason">arguments_type</span>' in body
    assert groups(body) == ["/region"]
    line, column = map(int, re.search(r'data-field="instance" data-line="(\d+)" data-column="(\d+)"', body).groups())
    assert pretty(item).splitlines()[line - 1][column - 1 :].startswith('"global"')


# -- parse errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX])
def test_parse_errors_of_both_inputs_show_line_column_and_excerpt_and_keep_the_texts(client, headers):
    instance = '{\n  "region": "apac",\n}'
    schema = "{'type': 'object'}"
    body = post(client, instance, schema, headers=headers)
    assert 'data-source="instance"' in body and 'data-source="schema"' in body
    assert (
        'data-field="instance" data-line="3" data-column="1"' in body
        or 'data-field="instance" data-line="2" data-column="19"' in body
    )  # at the '}' or at the comma
    assert 'data-field="schema" data-line="1" data-column="2"' in body
    assert body.count('<pre class="excerpt">') == 2 and "^" in body
    assert "not JSON</span>" in body
    if not headers:
        assert textarea(body, "instance") == instance and textarea(body, "schema") == schema


def test_truncated_arguments_string_is_arguments_parse_with_both_positions(client):
    item = call(arguments='{"region":"ap', status="incomplete")
    instance = pretty(item)
    body = post(client, instance, REGION_SCHEMA, headers=HX)
    assert 'data-source="arguments"' in body and "arguments_parse</span>" in body
    assert "of the string" in body
    line, column = map(int, re.search(r'data-field="instance" data-line="(\d+)" data-column="(\d+)"', body).groups())
    literal = instance.splitlines()[line - 1]
    start = literal.index('"arguments": "') + len('"arguments": ')
    assert start < column - 1 < len(literal)  # inside the cut-off string literal in the pasted text
    assert 'data-testid="reason">status</span>' in body  # the gate stops earlier, at status


# -- the schema itself unusable ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": 12},  # metaschema
        {"$schema": "https://example.com/my-dialect", "type": "object"},  # unknown dialect
        {"$ref": "http://169.254.169.254/latest/meta-data"},  # remote $ref: refused, never fetched
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},  # cycle
        {"type": "string", "pattern": "(["},  # bad pattern
    ],
)
def test_invalid_schema_gets_its_own_pane_not_instance_errors(client, schema):
    body = post(client, '"x"', schema, headers=HX)
    assert 'data-testid="schema-problem"' in body
    assert groups(body) == [] and 'data-testid="validity"' not in body


def test_remote_ref_is_refused_by_name(client):
    body = post(client, "{}", {"$ref": "http://169.254.169.254/latest/meta-data"}, headers=HX)
    pane = body[body.index('data-testid="schema-problem"') :]
    assert "$ref" in pane


# -- format assertion -------------------------------------------------------------------------------------


def test_format_assertion_is_off_by_default_and_the_toggle_turns_it_on(client):
    schema = {"type": "string", "format": "email"}
    off = post(client, '"not-an-email"', schema, headers=HX)
    on = post(client, '"not-an-email"', schema, headers=HX, format_assertion="on")
    checked = compile_schema(schema, format_assertion=True).checked_formats
    assert "email" in checked
    assert 'data-testid="validity">valid</span>' in off and "annotation only" in off
    assert 'data-testid="validity">invalid</span>' in on and '<code class="kw">format</code>' in on
    formats = on[on.index('data-testid="formats"') :]
    assert all(f"<code>{name}</code>" in formats for name in checked)
    full = post(client, '"x"', schema, format_assertion="on")
    assert 'name="format_assertion" value="on" checked' in full


def test_formats_no_checker_knows_are_named(client):
    schema = {"type": "string", "format": "x-made-up-format"}
    body = post(client, '"whatever"', schema, headers=HX, format_assertion="on")
    assert "not checked</span>" in body and "<code>x-made-up-format</code>" in body


# -- hostile input ----------------------------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'


@pytest.mark.parametrize(
    ("instance", "schema"),
    [
        (json.dumps({SCRIPT: IMG, "region": SCRIPT}), pretty(REGION_SCHEMA)),
        (json.dumps(call(SCRIPT, id=IMG, name=SCRIPT)), json.dumps({**TOOL, "name": IMG})),
        (SCRIPT, IMG),
        (json.dumps(call(IMG)), json.dumps({"enum": [SCRIPT], "$comment": IMG})),
    ],
)
def test_pasted_markup_renders_as_text(client, instance, schema):
    for headers in ({}, HX):
        body = post(client, instance, schema, headers=headers)
        assert "<script>alert" not in body and "<img src=x" not in body


@pytest.mark.parametrize(
    ("instance", "schema"),
    [
        ("[" * 10_000 + "]" * 10_000, "{}"),
        ("{}", '{"items":' * 5_000 + "{}" + "}" * 5_000),
        ('"\\ud800"', '{"type": "string", "pattern": "^\\\\p{L}+$"}'),
        ("1e400", '{"type": "number", "multipleOf": 0.1}'),
        ('{"a/b": {"~c": 1}}', '{"properties": {"a/b": {"properties": {"~c": {"type": "string"}}}}}'),
        ("\x00\x01\x02", "\ufeff{}"),
        (json.dumps(call(arguments='"{\\"region\\":\\"apac\\"}"')), pretty(REGION_SCHEMA)),  # double-encoded
        (json.dumps(call(arguments="")), pretty(REGION_SCHEMA)),
        (json.dumps(call(arguments="[" * 5000)), pretty(REGION_SCHEMA)),
        ('{"type": "function_call", "arguments": "{}"}', '{"type": "function", "function": {"parameters": 1}}'),
        ("[]", json.dumps([{"type": "function", "function": None}])),
        ("{}", '{"$ref": "#/nowhere"}'),
        ("{}", '{"$ref": "file:///etc/passwd"}'),
        ("{}", '{"$schema": 5}'),
        ("{}", "true"),
        ("{}", "false"),
    ],
)
def test_hostile_inputs_never_fail_the_page(client, instance, schema):
    for headers in ({}, HX):
        body = post(client, instance, schema, headers=headers)
        assert 'class="panel schema-summary"' in body


def test_many_errors_are_counted_but_the_list_is_capped(client):
    instance = json.dumps(["x"] * (MAX_ERRORS_SHOWN + 50))
    body = post(client, instance, {"items": {"type": "integer"}}, headers=HX)
    assert f"{MAX_ERRORS_SHOWN + 50} errors" in body and f"the first {MAX_ERRORS_SHOWN} shown" in body
    assert len(groups(body)) == MAX_ERRORS_SHOWN


def test_duplicate_members_are_warned_about_where_they_are(client):
    body = post(client, '{"region": "apac", "region": "global"}', REGION_SCHEMA, headers=HX)
    assert "duplicate_key</span>" in body


def test_item_offers_the_step_3_carry(client):
    instance = pretty(call("apac"))
    body = post(client, instance, REGION_SCHEMA, headers=HX)
    form = re.search(r'<form method="post" action="/diff" class="carry">.*?</form>', body, re.S).group(0)
    assert html.unescape(re.search(r'name="left" value="([^"]*)"', form).group(1)) == instance


def test_lone_surrogates_are_shown_as_their_escape(client):
    body = post(client, '{"\\ud800": "\\udfff"}', '{"additionalProperties": false}', headers=HX)
    assert groups(body) == ["/\\ud800"]
    assert "lone_surrogate</span>" in body


def test_catastrophic_pattern_found_while_validating_goes_to_the_schema_pane(client, monkeypatch):
    """CompiledSchema.errors may raise PatternTimeout (a SchemaError) for one instance: the schema's fault."""
    from webapp.core.schema import CompiledSchema, PatternTimeout

    def timeout(self, instance):
        raise PatternTimeout("pattern needs more than 1 s (catastrophic backtracking)", "/pattern", "pattern")

    monkeypatch.setattr(CompiledSchema, "errors", timeout)
    body = post(client, json.dumps("a" * 40 + "!"), {"pattern": "^(a|a)*$"}, headers=HX)
    pane = body[body.index('data-testid="schema-problem"') :]
    assert "/pattern" in pane and "catastrophic" in pane
    assert 'data-testid="validity"' not in body and 'data-testid="reason"' not in body


def _big_rows(bad_every: int = 6, count: int = 1500) -> dict:
    """Rows whose ``region`` is wrong in every ``bad_every``-th: 250 errors in a text of some 400,000 characters."""
    return {
        "rows": [
            {"id": i, "region": "global" if i % bad_every == 0 else "apac", "note": "n" * 200} for i in range(count)
        ]
    }


@pytest.mark.parametrize(("shape", "scans"), [("bare", 2), ("arguments string", 3), ("arguments object", 2)])
def test_every_shown_error_of_a_big_text_has_its_line_and_column(client, monkeypatch, shape, scans):
    import webapp.core.json.document as document
    from webapp.core.json.document import POSITION_MAP_LIMIT

    targeted: list[set[str]] = []

    class Counting(document.PositionRecorder):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if kwargs.get("targets") is not None:
                targeted.append(kwargs["targets"])

    monkeypatch.setattr(document, "PositionRecorder", Counting)
    rows = _big_rows()
    instance = {
        "bare": lambda: pretty(rows),
        "arguments string": lambda: pretty(call(arguments=json.dumps(rows))),
        "arguments object": lambda: pretty(call(arguments=rows)),
    }[shape]()
    # The tool definition's long description makes the schema text big too; its parameters sit under a prefix.
    tool = {
        "type": "function",
        "name": FC_009["name"],
        "description": "d" * POSITION_MAP_LIMIT,
        "parameters": {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"region": {"enum": ["apac", "emea", "amer"]}}},
                }
            },
        },
    }
    schema = json.dumps(tool, indent=2)
    assert len(instance) > POSITION_MAP_LIMIT and len(schema) > POSITION_MAP_LIMIT
    body = post(client, instance, schema, headers=HX)

    # One scan per text for all shown errors (plus one for where the arguments string is in the item).
    assert len(targeted) == scans and max(map(len, targeted)) == MAX_ERRORS_SHOWN
    assert "250 errors at 200 locations" in " ".join(body.split())
    assert groups(body) == [f"/rows/{i}/region" for i in range(0, 1500, 6)][:MAX_ERRORS_SHOWN]
    # The place is the offending value; in the string its quotes are escaped.
    quote = '\\"' if shape == "arguments string" else '"'
    back = 120
    at_instance = re.findall(r'data-field="instance" data-line="(\d+)" data-column="(\d+)"', body)
    at_schema = re.findall(r'data-field="schema" data-line="(\d+)" data-column="(\d+)"', body)
    assert len(at_instance) == len(at_schema) == MAX_ERRORS_SHOWN
    assert "no place in the pasted text" not in body
    for (line, column), pointer_ in zip(at_instance, groups(body), strict=True):
        offset = _offset_of(instance, int(line), int(column))
        assert instance.startswith(f"{quote}global{quote}", offset)
        # ... of its own row: the id written just before the member.
        assert re.findall(r'"id\\?":\s*(\d+)', instance[max(0, offset - back) : offset])[-1] == pointer_.split("/")[2]
    assert {schema[_offset_of(schema, int(line), int(column)) :][:9] for line, column in at_schema} == {'"enum": ['}


def _offset_of(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based line and column."""
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


# -- the page agrees with the gate (found by a fresh user) ----------------------------------------------------


@pytest.mark.parametrize(
    ("instance", "schema", "reason"),
    [
        # bare arguments the gate refuses as I-JSON before any schema
        ('{"a": 1, "a": 2}', '{"properties": {"a": {"type": "integer"}}}', "arguments_parse"),
        ('{"a": "\\ud800"}', '{"type": "object"}', "arguments_parse"),
        # a tool definition for another function is no schema for this call
        (
            '{"type": "function_call", "name": "other", "call_id": "c", "status": "completed", "arguments": "{}"}',
            '{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}',
            "arguments_schema",
        ),
        # items that are not calls get the gate's own reason, not "ok"
        ('{"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}', '{"type": "object"}', "namespaced"),
        ('{"type": "message", "role": "user", "content": "hi"}', '{"type": "object"}', "not_function_call"),
        ('{"a": 1}', '{"type": "object"}', "ok"),
    ],
)
def test_the_reason_shown_is_the_gates(client, instance, schema, reason):
    html = client.post(
        "/schema", data={"instance": instance, "schema": schema}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    shown = re.findall(r'data-testid="reason">\s*([a-z_]+)', html)
    assert shown == [reason]


@pytest.mark.parametrize(
    ("item", "reason", "groups_shown"),
    [
        (
            {
                "type": "openai:web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "apac"},
            },
            "namespaced",
            [],
        ),
        (
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "c",
                "name": "get_latest_sales_report",
                "status": "completed",
                "arguments": {"region": "apac"},
            },
            "arguments_type",
            [],
        ),
        (
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "c",
                "name": "get_latest_sales_report",
                "status": "incomplete",
                "arguments": '{"region": "apac"}',
            },
            "status",
            [],
        ),
    ],
)
def test_the_headline_follows_the_gate(client, item, reason, groups_shown):
    # Issue 11: a namespaced item was "invalid, 5 errors: unexpected property type, id, status…", object arguments
    # or status incomplete got a big "valid" while the gate said arguments_type / status.
    body = client.post(
        "/schema", data={"instance": json.dumps(item), "schema": json.dumps(REGION_SCHEMA)}, headers=HX
    ).get_data(as_text=True)
    assert 'data-testid="validity"' not in body
    assert 'data-testid="headline">not replayable</span>' in body
    assert f"refuses this item at\n  <code>{reason}</code>" in body
    assert re.findall(r'data-testid="reason">\s*([a-z_]+)', body) == [reason]
    assert groups(body) == groups_shown


def test_format_is_described_in_the_schema_s_own_dialect(client):
    # Issue 11 nit: a draft-04 schema said format is "annotation only (the 2020-12 default)".
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "string", "format": "email"}
    body = client.post("/schema", data={"instance": '"x"', "schema": json.dumps(schema)}, headers=HX).get_data(
        as_text=True
    )
    formats = body[body.index('data-testid="formats"') :]
    formats = formats[: formats.index("</dd>")]
    assert "2020-12" not in formats and "not asserted (draft-04 leaves checking" in formats


# -- a JSON Lines instance ------------------------------------------------------------------------------------


def records(body: str) -> list[tuple[int, str]]:
    """(line, outcome) of each record shown, in page order."""
    found = re.findall(r'data-testid="record" data-line="(\d+)">.*?data-testid="outcome">([^<]*)</span>', body, re.S)
    return [(int(line), html.unescape(outcome)) for line, outcome in found]


def test_a_journal_is_accepted_and_each_record_gets_its_result_linked_to_its_line(client):
    """Issue 11: Schema refused JSON Lines ("Extra data … (or use JSON Lines, one per line)")."""
    journal = (
        "\n".join(
            json.dumps(item)
            for item in [
                {"type": "message", "role": "user", "content": "Latest sales for APAC?"},
                call("apac"),
                call("global"),
                {"type": "openai:web_search_call", "id": "ws_001", "status": "completed"},
            ]
        )
        + "\n{broken\n"
    )
    body = post(client, journal, TOOL, headers=HX)
    assert "Extra data" not in body and "could not be parsed" not in body
    assert records(body) == [
        (1, "not_function_call"),
        (2, "ok"),
        (3, "arguments_schema"),
        (4, "namespaced"),
        (5, "not JSON"),
    ]
    assert 'data-testid="validity">not replayable</span>' in body  # the headline follows the gate
    assert re.search(r'data-testid="headline">2 of 5 records valid</span>', body)
    # Each record links to its line (a jump, not an editor marker); its errors are markers at line:column.
    assert 'href="#instance" data-field="instance" data-line="3" data-column="1" data-no-marker>line 3</a>' in body
    third = body[body.index('data-line="3">') : body.index('data-line="4">')]
    line, column = map(
        int, re.search(r'data-field="instance" data-line="(\d+)" data-column="(\d+)">line', third).groups()
    )
    assert line == 3 and journal.splitlines()[2][column - 1 :].startswith('\\"global\\"')
    assert '<code class="ptr">/region</code>' in third
    broken = body[body.index('data-line="5">') :]
    assert 'data-line="5" data-column="2">line 5, column 2</a>' in broken
    assert "JSON Lines: each of its 5 records" in body  # what was checked


def test_json_lines_records_shown_are_capped_and_the_page_says_so(client):
    from webapp.core.pages.schema import MAX_RECORDS_SHOWN

    text = "\n".join(json.dumps({"region": "global"}) for _ in range(MAX_RECORDS_SHOWN + 5))
    body = post(client, text, REGION_SCHEMA, headers=HX)
    assert len(records(body)) == MAX_RECORDS_SHOWN
    assert f"The first {MAX_RECORDS_SHOWN} of {MAX_RECORDS_SHOWN + 5} records are shown" in body
    assert re.search(rf'data-testid="headline">0 of {MAX_RECORDS_SHOWN + 5} records valid', body)
    assert 'data-testid="validity">invalid</span>' in body


@pytest.mark.parametrize(
    "instance",
    [
        "1\n2",
        "[]\n{",
        '"a"\n"b"\n\n',
        '{"type": "function_call"}\n{"type": 7}',
        '{"a": 1}\n' + "[" * 200,
        '{}\n{"arguments": "x", "type": "function_call"}',
    ],
)
@pytest.mark.parametrize("schema", [REGION_SCHEMA, TOOL, [TOOL], True, "{bad"])
def test_odd_json_lines_never_fail_the_page(client, instance, schema):
    body = post(client, instance, schema if isinstance(schema, str) else json.dumps(schema), headers=HX)
    assert 'data-testid="summary"' in body


def _badges(body: str, label: str) -> set[str]:
    """The classes of every badge on the page that reads ``label``."""
    return set(re.findall(r'<span class="badge (\w+)"[^>]*>\s*' + re.escape(label) + r"\s*</span>", body))


def test_not_function_call_has_the_gates_badge_in_records_outcomes_and_the_item_verdict(client):
    """One label, one look: the gate badges ``not_function_call`` as information (nothing to run, not a pass of a
    check, not a refusal), and the records, the outcome counts and the one item's verdict line all show that."""
    message = {"type": "message", "role": "user", "content": "hi"}
    call = {"type": "function_call", "call_id": "c1", "name": "get_weather", "status": "completed", "arguments": "{}"}
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    lines = "\n".join(json.dumps(value) for value in (message, call)) + "\n"
    records = client.post("/schema", data={"instance": lines, "schema": json.dumps(tool)}, headers=HX)
    body = records.get_data(as_text=True)
    assert 'data-testid="outcomes"' in body and body.count('data-testid="outcome"') == 2
    one = client.post("/schema", data={"instance": json.dumps(message), "schema": json.dumps(tool)}, headers=HX)
    verdict = one.get_data(as_text=True)
    assert 'data-testid="reason">not_function_call' in verdict
    assert _badges(verdict, "not_function_call") == {"info"}
    assert _badges(body, "not_function_call") == {"info"}  # the record's badge and its outcome count
    assert _badges(body, "ok") == {"ok"}


CUSTOM_SQL = '{"type":"custom","name":"sql","format":{"type":"grammar","syntax":"regex","definition":"^SELECT .+$"}}'


@pytest.mark.parametrize(
    ("given", "tools", "grammar", "reason"),
    [
        ("DROP TABLE t", "", "no custom tool pasted", "arguments_schema"),
        ("DROP TABLE t", CUSTOM_SQL, "a regex grammar", "arguments_schema"),
        ("SELECT 1", CUSTOM_SQL, "a regex grammar", "ok"),
        ("SELECT 1", '{"type":"custom","name":"sql"}', "free text (no JSON arguments)", "ok"),
    ],
)
def test_a_custom_tool_call_is_checked_against_its_grammar_not_a_schema(client, given, tools, grammar, reason):
    item = json.dumps({"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": given})
    shown = client.post("/schema", data={"instance": item, "schema": tools}, headers={"HX-Request": "true"})
    text = shown.get_data(as_text=True)
    assert "no JSON arguments" in text and f'data-testid="grammar">{grammar}<' in text
    assert f'data-reason="{reason}"' in text or f'data-testid="reason">{reason}<' in text
    assert "schema unusable" not in text  # a custom tool is not read as a JSON Schema


def test_the_target_decides_the_verdict_and_travels_to_step_3(client):
    from webapp.core.examples import DIFF

    _, _, native = DIFF["namespaced"]  # openai:web_search_call: refused for portable, OpenAI's own for openai
    sent = {"instance": json.dumps(native), "schema": json.dumps(EXAMPLES["tool"][2])}
    portable = client.post("/schema", data=sent, headers=HX).get_data(as_text=True)
    assert 'data-testid="headline">not replayable' in portable
    page = client.post("/schema", data={**sent, "target": "openai"}).get_data(as_text=True)
    assert "not replayable" not in page and 'data-testid="reason">provider item' in page
    assert '<option value="openai" selected>' in page
    fc = client.post("/schema", data={"instance": json.dumps(call()), "target": "anthropic"}).get_data(as_text=True)
    carry = fc[fc.index('action="/diff"') :]
    assert '<input type="hidden" name="target" value="anthropic">' in carry
