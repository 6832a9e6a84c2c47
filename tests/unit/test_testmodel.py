"""``webapp.core.responses.testmodel``: values built from tool schemas, token counting, the choice of tools,
determinism, truncation, failure, and the event stream (checked with the conformance checker)."""

from __future__ import annotations

import itertools
import json

import pytest
from support.openapi_conformance import check_stream

from webapp.core.responses import tokens
from webapp.core.responses.events import stream_events
from webapp.core.responses.fields import RequestError
from webapp.core.responses.pattern_examples import example_for_pattern
from webapp.core.responses.request import parse_create_request
from webapp.core.responses.schema_instances import BuildTimeout, Unbuildable, build_instance
from webapp.core.responses.sse import DONE, encode_json
from webapp.core.responses.testmodel import choose_tools, current_turn, generate, respond
from webapp.core.responses.tokens import count_tokens, token_chunks, truncate_tokens
from webapp.core.responses.tools import Tool, ToolChoice
from webapp.core.schema import compile_schema

# ------------------------------------------------------------------------------------------------ schemas

SCHEMAS = {
    "required only": (
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]},
        {"a": "a"},
    ),
    "enum first": (
        {
            "type": "object",
            "required": ["region"],
            "additionalProperties": False,
            "properties": {"region": {"enum": ["apac", "emea"]}},
        },
        {"region": "apac"},
    ),
    "const and default": (
        {
            "type": "object",
            "required": ["c", "d"],
            "properties": {"c": {"const": 7}, "d": {"type": "string", "default": "x"}},
        },
        {"c": 7, "d": "x"},
    ),
    "bounds": (
        {
            "type": "object",
            "required": ["i", "n", "m"],
            "properties": {
                "i": {"type": "integer", "minimum": 5, "maximum": 9, "multipleOf": 3},
                "n": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "m": {"type": "number", "minimum": 19.99, "multipleOf": 0.01},
            },
        },
        {"i": 6, "n": 0.5, "m": 19.99},
    ),
    "negative range": ({"type": "integer", "maximum": -3}, -3),
    "strings": (
        {
            "type": "object",
            "required": ["p", "f", "l"],
            "properties": {
                "p": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"},
                "f": {"type": "string", "format": "date"},
                "l": {"type": "string", "minLength": 12},
            },
        },
        {"p": "AAA-00", "f": "2026-01-15", "l": "llllllllllll"},
    ),
    "arrays": ({"type": "array", "minItems": 3, "uniqueItems": True, "items": {"type": "integer"}}, [0, 1, 2]),
    "prefix items": ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]}, ["value", True]),
    "nested and $defs": (
        {
            "type": "object",
            "required": ["who"],
            "properties": {"who": {"$ref": "#/$defs/person"}},
            "$defs": {
                "person": {
                    "type": "object",
                    "required": ["name", "tags"],
                    "properties": {
                        "name": {"type": "string"},
                        "tags": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                    },
                }
            },
        },
        {"who": {"name": "name", "tags": ["tag"]}},
    ),
    "definitions (draft 7)": (
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": ["x"],
            "properties": {"x": {"$ref": "#/definitions/x"}},
            "definitions": {"x": {"type": "boolean"}},
        },
        {"x": True},
    ),
    "allOf merged": (
        {
            "allOf": [
                {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
                {"required": ["b"], "properties": {"b": {"type": "null"}}},
            ]
        },
        {"a": "a", "b": None},
    ),
    "anyOf second branch": (
        {
            "type": "object",
            "required": ["v"],
            "properties": {"v": {"anyOf": [{"type": "string", "minLength": 3, "maxLength": 2}, {"type": "integer"}]}},
        },
        {"v": 0},
    ),
    "nullable type list": ({"type": ["null", "integer"], "minimum": 2}, 2),
    "minProperties": ({"type": "object", "minProperties": 1, "properties": {"k": {"type": "boolean"}}}, {"k": True}),
    "required but not described": (
        {"type": "object", "required": ["z"], "additionalProperties": {"type": "integer"}},
        {"z": 0},
    ),
    "no parameters": (None, {}),
}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_build_instance_is_valid_and_as_expected(name):
    schema, expected = SCHEMAS[name]
    value = build_instance(schema)
    assert value == expected
    if schema is not None:
        assert compile_schema(schema).is_valid(value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "required": ["x"], "properties": {"x": False}},
        {"type": "object", "required": ["self"], "properties": {"self": {"$ref": "#"}}},
        {"type": "string", "minLength": 3, "maxLength": 2},
        {"type": "integer", "minimum": 5, "maximum": 4},
    ],
)
def test_unsatisfiable_schemas_are_reported(schema):
    with pytest.raises(Unbuildable):
        build_instance(schema)


CATASTROPHIC = {
    "type": "object",
    "required": ["p"],
    "properties": {"p": {"type": "string", "pattern": "^(a|a)+b$", "minLength": 26}},
}


@pytest.fixture
def short_budget(monkeypatch):
    """Catastrophic patterns give up after 0.05 s instead of 1 s: the same path, a faster suite."""
    monkeypatch.setattr("webapp.core.schema.patterns.PATTERN_BUDGET_SECONDS", 0.05)


def test_catastrophic_pattern_gives_up_instead_of_stalling(short_budget):
    # Reviewer's case: plain re.search on "a" * 26 took 26 s and held the GIL; the ECMA engine of webapp.core.schema
    # runs it with the build's time budget.
    with pytest.raises(BuildTimeout) as err:
        build_instance(CATASTROPHIC)
    assert "^(a|a)+b$" in str(err.value) and "catastrophic" in str(err.value) and "'p'" in str(err.value)


def test_patterns_are_read_as_ecma():
    # \\p{Lu} is ECMA (Unicode mode) but not Python re: the builder reads patterns as webapp.core.schema does.
    schema = {
        "type": "object",
        "required": ["code"],
        "properties": {"code": {"type": "string", "pattern": "^\\p{Lu}+$"}},
    }
    value = build_instance(schema)
    assert value == {"code": "A"} and compile_schema(schema).is_valid(value)


def test_catastrophic_pattern_fails_the_response_cleanly(short_budget):
    result = run({"input": "go", "tools": [{"type": "function", "name": "slow", "parameters": CATASTROPHIC}]})
    assert result.status == "failed" and result.output == []
    assert result.error["code"] == "model_error"
    assert "'slow'" in result.error["message"] and "catastrophic backtracking" in result.error["message"]


@pytest.mark.parametrize(
    ("pattern", "example"),
    [
        ("^[0-9]{3}$", "000"),
        ("^(foo|bar)_[a-z]+$", "foo_a"),
        ("[^abc]x", "0x"),
        ("^(?:\\+1)?[2-9]\\d{2}$", "200"),
        ("a{2,5}?b*c+", "aac"),
        ("(", None),
    ],
)
def test_example_for_pattern(pattern, example):
    assert example_for_pattern(pattern) == example


# ------------------------------------------------------------------------------------------------ tokens


@pytest.mark.parametrize(
    ("text", "count", "chunks"),
    [
        ("", 0, []),
        ("Hello, world!", 4, ["Hello", ",", " world", "!"]),
        ("  lead and trail  ", 3, ["  lead", " and", " trail  "]),
        ("naïve café ☃", 3, ["naïve", " café", " ☃"]),
    ],
)
def test_tokens(text, count, chunks):
    assert count_tokens(text) == count
    assert token_chunks(text) == chunks and "".join(chunks) == text


def test_truncate_tokens_keeps_a_prefix():
    assert truncate_tokens("one, two three", 2) == "one,"
    assert truncate_tokens("one two", 5) == "one two"
    assert truncate_tokens("one two", 0) == ""


# ------------------------------------------------------------------------------------------------ choosing

WEATHER = Tool("get_weather", "Current weather for a city", {"type": "object"})
SALES = Tool("get_latest_sales_report", "Latest sales report for a region", {"type": "object"})


def turn(text):
    return current_turn([{"type": "message", "role": "user", "content": text}])


@pytest.mark.parametrize(
    ("text", "choice", "extra", "names"),
    [
        ("how is the weather", {}, {}, ["get_weather"]),
        ("the sales for a region", {}, {}, ["get_latest_sales_report"]),
        ("nothing in common", {}, {}, ["get_weather"]),
        ("get_latest_sales_report then get_weather", {}, {}, ["get_latest_sales_report", "get_weather"]),
        ("get_latest_sales_report then get_weather", {}, {"max_calls": 1}, ["get_latest_sales_report"]),
        ("get_weather", {"tool_choice": "none"}, {}, []),
        (
            "get_weather",
            {
                "tool_choice": {
                    "type": "allowed_tools",
                    "tools": [{"type": "function", "name": "get_latest_sales_report"}],
                    "mode": "none",
                }
            },
            {},
            [],
        ),
        (
            "get_weather",
            {"tool_choice": {"type": "function", "name": "get_latest_sales_report"}},
            {},
            ["get_latest_sales_report"],
        ),
    ],
)
def test_choose_tools(text, choice, extra, names):
    tool_choice = parse_create_request({"input": "x", **choice}).tool_choice or ToolChoice()
    chosen = choose_tools(turn(text), [WEATHER, SALES], tool_choice, parallel=True, max_calls=extra.get("max_calls"))
    assert [t.name for t in chosen] == names


def test_after_tool_results_auto_answers_in_text_but_required_calls_again():
    context = [
        {"type": "message", "role": "user", "content": "weather"},
        {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "call_id": "c", "output": "sunny"},
    ]
    now = current_turn(context)
    assert [r["call_id"] for r in now.results] == ["c"]
    assert choose_tools(now, [WEATHER], ToolChoice(), parallel=True, max_calls=None) == []
    required = parse_create_request({"input": "x", "tool_choice": "required"}).tool_choice
    assert choose_tools(now, [WEATHER], required, parallel=True, max_calls=None) == [WEATHER]


def test_nothing_to_answer():
    with pytest.raises(RequestError) as err:
        current_turn([{"type": "message", "role": "developer", "content": "rules"}])
    assert err.value.param == "input"


# ------------------------------------------------------------------------------------------------ generating


def ids():
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(counter)}"


def run(body, context=None, tools=None):
    request = parse_create_request(body)
    return generate(request, context or request.input, tools if tools is not None else request.tools or [], ids())


def test_generation_is_deterministic():
    body = {"input": "Tell me about get_weather", "tools": [WEATHER.echo()]}
    assert run(body) == run(body)


def test_echo_reply_quotes_the_user_and_counts_tokens():
    result = run({"input": "  Hello,\n  world!  ", "instructions": "Be brief."})
    assert result.status == "completed"
    [item] = result.output
    assert item["content"][0]["text"] == 'You said: "Hello, world!"'
    assert result.usage["output_tokens"] == count_tokens('You said: "Hello, world!"')
    assert result.usage["input_tokens"] == count_tokens("Be brief.") + count_tokens("Hello,\n  world!")


def test_long_input_is_quoted_up_to_a_limit():
    text = run({"input": "x" * 1000}).output[0]["content"][0]["text"]
    assert text.endswith('…"') and len(text) < 250


def test_tool_call_arguments_validate_against_the_tool():
    schema = SCHEMAS["nested and $defs"][0]
    result = run({"input": "go", "tools": [{"type": "function", "name": "who", "parameters": schema}]})
    [item] = result.output
    assert item["type"] == "function_call" and item["id"] == "fc_1" and item["call_id"] == "call_2"
    assert compile_schema(schema).is_valid(json.loads(item["arguments"]))


def test_truncated_call_is_incomplete_and_last():
    params = {
        "type": "object",
        "required": [f"k{i}" for i in range(8)],
        "properties": {f"k{i}": {"type": "string"} for i in range(8)},
    }
    result = run(
        {
            "input": "go",
            "max_output_tokens": 16,
            "tools": [
                {"type": "function", "name": "a", "parameters": params},
                {"type": "function", "name": "b", "parameters": params},
            ],
            "tool_choice": "required",
        }
    )
    assert result.status == "incomplete" and result.incomplete_details == {"reason": "max_output_tokens"}
    [item] = result.output
    assert item["status"] == "incomplete" and result.usage["output_tokens"] == 16
    with pytest.raises(json.JSONDecodeError):
        json.loads(item["arguments"])


def test_unbuildable_arguments_fail_the_response():
    result = run(
        {
            "input": "go",
            "tools": [
                {
                    "type": "function",
                    "name": "n",
                    "parameters": {"type": "object", "required": ["x"], "properties": {"x": False}},
                }
            ],
        }
    )
    assert result.status == "failed" and result.output == []
    assert result.error["code"] == "model_error" and "'n'" in result.error["message"]


# ------------------------------------------------------------------------------------------------ streaming


def stream_of(body):
    request = parse_create_request(body)
    snapshot, final = respond(
        request, request.input, request.tools or [], response_id="resp_1", created_at=1, completed_at=2, make_id=ids()
    )
    events = list(stream_events(snapshot, final))
    return snapshot, final, events


@pytest.mark.parametrize(
    "body",
    [
        {"input": "Count from 1 to 5."},
        {"input": "get_weather and get_latest_sales_report", "tools": [WEATHER.echo(), SALES.echo()]},
        {"input": "word " * 30, "max_output_tokens": 16},
        {"input": "x", "tools": [{"type": "function", "name": "n", "parameters": {"type": "object", "not": {}}}]},
    ],
)
def test_stream_events_pass_the_conformance_checker(body):
    snapshot, final, events = stream_of(body)
    text = "".join(encode_json(e) for e in events) + DONE
    report = check_stream(text, "text/event-stream")
    report.assert_ok()
    assert report.response == final
    assert snapshot["status"] == "in_progress" and snapshot["output"] == [] and snapshot["usage"] is None


def test_text_stream_sequence():
    _, final, events = stream_of({"input": "hi there"})
    kinds = [e["type"] for e in events]
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * len(deltas),
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert "".join(deltas) == final["output"][0]["content"][0]["text"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_function_call_stream_sequence():
    _, final, events = stream_of({"input": "x", "tools": [WEATHER.echo()]})
    kinds = [e["type"] for e in events]
    assert kinds[2] == "response.output_item.added" and events[2]["item"]["arguments"] == ""
    assert kinds[-3:] == ["response.function_call_arguments.done", "response.output_item.done", "response.completed"]
    assert "response.content_part.added" not in kinds
    streamed = "".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
    assert streamed == final["output"][0]["arguments"] == "{}"


def test_failed_stream_has_error_then_failed_only():
    _, final, events = stream_of(
        {"input": "x", "tools": [{"type": "function", "name": "n", "parameters": {"type": "object", "not": {}}}]}
    )
    assert [e["type"] for e in events] == ["response.created", "response.in_progress", "error", "response.failed"]
    error = events[2]
    assert error["error"]["type"] == "model_error" and error["message"] == error["error"]["message"]
    assert final["status"] == "failed" and final["completed_at"] is None


@pytest.mark.parametrize("text", ["", "one", "Count from 1 to 5, please.", 'He said: "é 😀"\n  twice'])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_delta_chunks_join_back_to_the_text(text, size):
    chunks = tokens.delta_chunks(text, size)
    assert "".join(chunks) == text
    assert len(chunks) == -(-len(tokens.token_chunks(text)) // size)


def test_built_arguments_are_cached_but_never_shared():
    schema = {
        "type": "object",
        "required": ["tags"],
        "properties": {"tags": {"type": "array", "minItems": 1, "items": {"type": "string"}}},
    }
    first = build_instance(schema)
    first["tags"].append("changed by a caller")
    second = build_instance(schema)
    assert second != first and len(second["tags"]) == 1  # a fresh copy each time


def test_a_step_no_double_can_count_fails_the_response_as_model_error():
    # 1e308 / 1e-308 steps is infinity: it raised OverflowError (a 500 server_error) while looking for a multiple
    schema = {"type": "number", "multipleOf": 1e-308, "minimum": 1e308}
    result = run({"input": "go", "text": {"format": {"type": "json_schema", "name": "huge", "schema": schema}}})
    assert result.status == "failed" and result.error["code"] == "model_error"
    assert "minimum" in result.error["message"]
