"""``webapp.core.responses`` (request, input_items, attachments, tools, resources): request validation (first bad
path, codes), item normalisation, inline attachments, tools and tool_choice, and the ``ResponseResource`` builder
against the official schema."""

from __future__ import annotations

import base64

import pytest
from support.openapi_conformance import schema_errors

from webapp.core.responses.attachments import Limits, parse_data_url
from webapp.core.responses.fields import RequestError
from webapp.core.responses.input_items import parse_item
from webapp.core.responses.request import KNOWN_PARAMETERS, CreateRequest, parse_create_request
from webapp.core.responses.resources import (
    function_call_item,
    message_item,
    response_resource,
    stored_input_item,
    usage,
)
from webapp.core.responses.tools import (
    Tool,
    ToolChoice,
    check_tool_choice,
    function_parameters_problem,
    parse_tool_choice,
    parse_tools,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PDF = b"%PDF-1.4\n%%EOF\n"


def data_url(media_type: str, raw: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(raw).decode()}"


def refuse(body) -> RequestError:
    with pytest.raises(RequestError) as err:
        parse_create_request(body)
    return err.value


# ------------------------------------------------------------------------------------------------ the body


def test_string_input_is_one_user_message_and_defaults_apply():
    request = parse_create_request({"model": "m", "input": "hi"})
    assert request.input == [{"type": "message", "role": "user", "content": "hi"}]
    assert (request.store, request.stream, request.tools, request.tool_choice) == (True, False, None, None)


def test_every_spec_field_is_accepted():
    body = {
        "model": "m",
        "input": "hi",
        "previous_response_id": None,
        "include": ["reasoning.encrypted_content"],
        "tools": [],
        "tool_choice": "auto",
        "metadata": {"k": "v"},
        "text": {"format": {"type": "text"}, "verbosity": "low"},
        "temperature": 0.5,
        "top_p": 0.9,
        "presence_penalty": 0,
        "frequency_penalty": -1,
        "parallel_tool_calls": False,
        "stream": False,
        "stream_options": {"include_obfuscation": False},
        "background": False,
        "max_output_tokens": 16,
        "max_tool_calls": 1,
        "reasoning": {"effort": "low"},
        "safety_identifier": "s",
        "prompt_cache_key": "p",
        "truncation": "auto",
        "instructions": "be nice",
        "store": False,
        "service_tier": "flex",
        "top_logprobs": 20,
        "user": "u",
    }
    assert set(body) == set(KNOWN_PARAMETERS)
    request = parse_create_request(body)
    assert (request.store, request.max_output_tokens, request.reasoning) == (
        False,
        16,
        {"effort": "low", "summary": None},
    )


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ([], None, "invalid_type"),
        ({"input": 3}, "input", "invalid_type"),
        ({"input": "a", "frobnicate": 1}, "frobnicate", "unknown_parameter"),
        ({"input": "a", "model": ""}, "model", "invalid_value"),
        ({"input": "a", "max_output_tokens": 15}, "max_output_tokens", "invalid_value"),
        ({"input": "a", "max_output_tokens": True}, "max_output_tokens", "invalid_type"),
        ({"input": "a", "max_tool_calls": 0}, "max_tool_calls", "invalid_value"),
        ({"input": "a", "top_logprobs": 21}, "top_logprobs", "invalid_value"),
        ({"input": "a", "temperature": 3}, "temperature", "invalid_value"),
        ({"input": "a", "truncation": "never"}, "truncation", "invalid_value"),
        ({"input": "a", "store": "yes"}, "store", "invalid_type"),
        ({"input": "a", "metadata": {"k": "x" * 513}}, "metadata.k", "invalid_value"),
        ({"input": "a", "metadata": {"a b": 1}}, 'metadata["a b"]', "invalid_type"),
        ({"input": "a", "include": ["file_search_call.results"]}, "include[0]", "invalid_value"),
        ({"input": "a", "reasoning": {"effort": "minimal"}}, "reasoning.effort", "invalid_value"),
        (
            {"input": "a", "text": {"format": {"type": "json_schema", "name": "x"}}},
            "text.format.schema",
            "missing_required_parameter",
        ),
        ({"input": "a", "safety_identifier": "s" * 65}, "safety_identifier", "invalid_value"),
        ({}, "input", "missing_required_parameter"),
        ({"input": []}, "input", "missing_required_parameter"),
    ],
)
def test_body_errors(body, param, code):
    err = refuse(body)
    assert (err.param, err.code) == (param, code)


def test_the_first_bad_member_in_document_order_is_reported():
    err = refuse({"input": [{"type": "message", "role": "user", "content": 5}], "temperature": "x"})
    assert err.param == "input[0].content"
    err = refuse({"temperature": "x", "input": [{"type": "message", "role": "user", "content": 5}]})
    assert err.param == "temperature"


def test_previous_response_id_alone_is_enough():
    assert parse_create_request({"previous_response_id": "resp_1"}).input == []


# ------------------------------------------------------------------------------------------------ items


@pytest.mark.parametrize(
    ("item", "expected_type"),
    [
        ({"role": "user", "content": "hi"}, "message"),  # EasyInputMessage: typeless
        ({"id": "msg_1"}, "item_reference"),
        ({"type": None, "id": "msg_1"}, "item_reference"),
        ({"type": "item_reference", "id": "msg_1"}, "item_reference"),
        (
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "t"}], "encrypted_content": "xyz"},
            "reasoning",
        ),
        (
            {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text", "text": "t"}]},
            "function_call_output",
        ),
        ({"type": "acme:trace", "anything": 1}, "acme:trace"),  # left for the gate to refuse as namespaced
        # the endpoint's own output echoed back: ids, statuses, annotations, logprobs
        (
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "t", "annotations": [], "logprobs": []}],
            },
            "message",
        ),
        (
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "f",
                "arguments": "{}",
                "status": "completed",
            },
            "function_call",
        ),
    ],
)
def test_items_accepted(item, expected_type):
    parsed = parse_item(item, "input[0]")
    assert parsed["type"] == expected_type
    assert {k: v for k, v in parsed.items() if k != "type"} == {k: v for k, v in item.items() if k != "type"}


@pytest.mark.parametrize(
    ("item", "param", "code"),
    [
        ({"content": "x"}, "input[0].type", "missing_required_parameter"),
        ({"type": "message", "content": "x"}, "input[0].role", "missing_required_parameter"),
        ({"type": "message", "role": "critic", "content": "x"}, "input[0].role", "invalid_value"),
        (
            {"type": "message", "role": "system", "content": [{"type": "input_image", "image_url": "x"}]},
            "input[0].content[0].type",
            "invalid_value",
        ),
        (
            {"type": "message", "role": "user", "content": [{"text": "no type"}]},
            "input[0].content[0].type",
            "missing_required_parameter",
        ),
        (
            {"type": "message", "role": "user", "content": [{"type": "input_text"}]},
            "input[0].content[0].text",
            "missing_required_parameter",
        ),
        (
            {"type": "message", "role": "user", "content": [{"type": "input_video", "video_url": "x"}]},
            "input[0].content[0].type",
            "invalid_value",
        ),
        ({"type": "message", "role": "assistant", "content": "x", "phase": "draft"}, "input[0].phase", "invalid_value"),
        (
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": "t",
                        "annotations": [
                            {"type": "url_citation", "start_index": -1, "end_index": 0, "url": "u", "title": "t"}
                        ],
                    }
                ],
            },
            "input[0].content[0].annotations[0].start_index",
            "invalid_value",
        ),
        ({"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"}, "input[0].call_id", "invalid_value"),
        (
            {"type": "function_call", "call_id": "c" * 65, "name": "f", "arguments": "{}"},
            "input[0].call_id",
            "invalid_value",
        ),
        (
            {"type": "function_call", "call_id": "c", "name": "bad name", "arguments": "{}"},
            "input[0].name",
            "invalid_value",
        ),
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "input[0].name", "missing_required_parameter"),
        ({"type": "function_call_output", "call_id": "c"}, "input[0].output", "missing_required_parameter"),
        ({"type": "function_call_output", "call_id": "c", "output": {"a": 1}}, "input[0].output", "invalid_type"),
        (
            {"type": "function_call_output", "call_id": "c", "output": "x", "status": "done"},
            "input[0].status",
            "invalid_value",
        ),
        (
            {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "t"}]},
            "input[0].content",
            "invalid_value",
        ),
        ({"type": "reasoning"}, "input[0].summary", "missing_required_parameter"),
        # A compaction item's structure is checked here; its seal by the endpoint (test_responses_compact.py).
        ({"type": "compaction"}, "input[0].encrypted_content", "missing_required_parameter"),
        ({"type": "compaction", "encrypted_content": 7}, "input[0].encrypted_content", "invalid_type"),
        ({"type": "tool_call", "id": "x"}, "input[0].type", "invalid_value"),
        ({"type": "item_reference", "id": ""}, "input[0].id", "invalid_value"),
    ],
)
def test_item_errors(item, param, code):
    with pytest.raises(RequestError) as err:
        parse_item(item, "input[0]")
    assert (err.value.param, err.value.code) == (param, code)
    assert str(err.value).startswith(param + ": ")


# ------------------------------------------------------------------------------------------------ attachments


def test_inline_image_and_file_are_accepted():
    image = {"type": "input_image", "image_url": data_url("image/png", PNG), "detail": "low"}
    file = {"type": "input_file", "filename": "a.pdf", "file_data": data_url("application/pdf", PDF)}
    bare = {"type": "input_file", "filename": "notes.md", "file_data": base64.b64encode(b"# hi").decode()}
    parse_item({"role": "user", "content": [image, file, bare]}, "input[0]")


@pytest.mark.parametrize(
    ("part", "where", "needle"),
    [
        ({"type": "input_image", "image_url": "https://example.com/a.png"}, "image_url", "remote URLs"),
        ({"type": "input_image", "image_url": "HTTP://example.com/a.png"}, "image_url", "remote URLs"),
        ({"type": "input_image", "image_url": None}, "image_url", "needs image_url"),
        ({"type": "input_image", "file_id": "file_1"}, "file_id", "file store"),
        ({"type": "input_image", "image_url": data_url("image/svg+xml", b"<svg/>")}, "image_url", "not accepted"),
        ({"type": "input_image", "image_url": data_url("image/jpeg", PNG)}, "image_url", "does not look like"),
        ({"type": "input_image", "image_url": "data:image/png," + "abc"}, "image_url", "base64-encoded"),
        ({"type": "input_image", "image_url": "data:image/png;base64,iVBOR w0K"}, "image_url", "alphabet"),
        ({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0"}, "image_url", "padding"),
        ({"type": "input_image", "image_url": "data:image/png;base64,"}, "image_url", "empty"),
        ({"type": "input_image", "image_url": "data:image/png;base64"}, "image_url", "no comma"),
        ({"type": "input_file", "file_url": "https://example.com/a.pdf"}, "file_url", "remote URLs"),
        ({"type": "input_file", "filename": "a.exe", "file_data": "TVqQAAMAAAAEAAAA"}, "file_data", "data: URL"),
        ({"type": "input_file", "file_data": data_url("text/plain", b"\xff\xfe")}, "file_data", "UTF-8"),
        ({"type": "input_file"}, "file_data", "needs file_data"),
    ],
)
def test_unsupported_attachments_are_refused_naming_the_field(part, where, needle):
    with pytest.raises(RequestError) as err:
        parse_item({"role": "user", "content": [{"type": "input_text", "text": "x"}, part]}, "input[2]")
    assert err.value.param == f"input[2].content[1].{where}"
    assert needle in err.value.message


def test_attachment_size_cap():
    limits = Limits(max_image_bytes=100)
    assert parse_data_url(data_url("image/png", PNG), "p", allowed=limits.image_types, max_bytes=100).size == 24
    for size in (101, 10_000):
        with pytest.raises(RequestError, match="limit"):
            parse_data_url(data_url("image/png", PNG + b"\x00" * size), "p", allowed=limits.image_types, max_bytes=100)


# ------------------------------------------------------------------------------------------------ tools


def test_tools_parse_and_echo_every_key():
    [tool] = parse_tools([{"type": "function", "name": "f", "parameters": {"type": "object"}, "extra": 1}])
    assert tool.echo() == {
        "type": "function",
        "name": "f",
        "description": None,
        "parameters": {"type": "object"},
        "strict": None,
    }


@pytest.mark.parametrize(
    ("tools", "param", "code"),
    [
        ([{"name": "f"}], "tools[0].type", "missing_required_parameter"),
        ([{"type": "function"}], "tools[0].name", "missing_required_parameter"),
        ([{"type": "function", "name": "f" * 65}], "tools[0].name", "invalid_value"),
        ([{"type": "function", "name": "f"}, {"type": "function", "name": "f"}], "tools[1].name", "invalid_value"),
        ([{"type": "function", "name": "f", "parameters": []}], "tools[0].parameters", "invalid_type"),
        ([{"type": "function", "name": "f", "strict": "yes"}], "tools[0].strict", "invalid_type"),
        ([{"type": "file_search"}], "tools[0].type", "unsupported_value"),
    ],
)
def test_tool_errors(tools, param, code):
    with pytest.raises(RequestError) as err:
        parse_tools(tools)
    assert (err.value.param, err.value.code) == (param, code)


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "string"},
        {"type": "array", "items": {"type": "string"}},
        {"type": ["string", "object"]},
        {"type": "null"},
        {"anyOf": [{"type": "object"}, {"type": "string"}]},
        {"$ref": "#/$defs/args", "$defs": {"args": {"type": "object"}}},
        {"minLength": 3},
    ],
)
def test_tool_parameters_must_describe_an_object(parameters):
    # A call's arguments are a JSON object; parameters describing anything else made the model emit arguments such
    # as "\"value\"" that the endpoint then refused when they were sent back.
    with pytest.raises(RequestError) as err:
        parse_tools(
            [
                {"type": "function", "name": "ok", "parameters": {"type": "object"}},
                {"type": "function", "name": "f", "parameters": parameters},
            ]
        )
    assert (err.value.param, err.value.code) == ("tools[1].parameters", "invalid_function_parameters")
    assert "must describe a JSON object" in err.value.message and '"type": "object"' in err.value.message


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "object"},
        {"type": ["object", "null"]},
        {"properties": {"a": {"type": "string"}}},
        {"required": ["a"]},
        {"additionalProperties": False},
        {"patternProperties": {"^x": {}}},
        {},
        {"description": "no parameters", "$defs": {}},
        {"type": "objekt"},  # not a type name: the JSON Schema check names /type
    ],
)
def test_tool_parameters_describing_an_object_are_accepted(parameters):
    [tool] = parse_tools([{"type": "function", "name": "f", "parameters": parameters}])
    assert tool.parameters == parameters
    assert function_parameters_problem(parameters) is None


@pytest.mark.parametrize(
    ("value", "expected", "echo"),
    [
        (None, ToolChoice("auto", None, "auto"), "auto"),
        ("required", ToolChoice("required", None, "required"), "required"),
        (
            {"type": "function", "name": "f"},
            ToolChoice("required", ("f",), "function"),
            {"type": "function", "name": "f"},
        ),
        (
            {"type": "allowed_tools", "tools": [{"type": "function", "name": "f"}], "mode": "required"},
            ToolChoice("required", ("f",), "allowed_tools"),
            {"type": "allowed_tools", "tools": [{"type": "function", "name": "f"}], "mode": "required"},
        ),
    ],
)
def test_tool_choice_shapes(value, expected, echo):
    choice = parse_tool_choice(value)
    assert choice == expected and choice.echo() == echo


@pytest.mark.parametrize(
    ("value", "param"),
    [
        ("sometimes", "tool_choice"),
        ({"type": "web_search"}, "tool_choice.type"),
        ({"type": "allowed_tools", "tools": []}, "tool_choice.tools"),
        ({"type": "allowed_tools", "tools": [{"type": "function"}]}, "tool_choice.tools[0].name"),
        ({"type": "function", "function": {"name": "f"}}, "tool_choice.function"),
    ],
)
def test_tool_choice_errors(value, param):
    with pytest.raises(RequestError) as err:
        parse_tool_choice(value)
    assert err.value.param == param


def test_tool_choice_names_must_exist():
    tools = [Tool("f")]
    check_tool_choice(parse_tool_choice({"type": "function", "name": "f"}), tools)
    with pytest.raises(RequestError) as err:
        check_tool_choice(
            parse_tool_choice(
                {
                    "type": "allowed_tools",
                    "tools": [{"type": "function", "name": "f"}, {"type": "function", "name": "g"}],
                }
            ),
            tools,
        )
    assert err.value.param == "tool_choice.tools[1].name"


# ------------------------------------------------------------------------------------------------ responses


def resource(request: CreateRequest, **overrides):
    fields = {
        "response_id": "resp_1",
        "created_at": 1,
        "model": "m",
        "tools": request.tools or [],
        "status": "completed",
        "output": [message_item("msg_1", "hi")],
        "usage_": usage(3, 1),
        "completed_at": 2,
    }
    return response_resource(request, **{**fields, **overrides})


@pytest.mark.parametrize(
    "body",
    [
        {"input": "hi"},
        {
            "input": "hi",
            "tools": [{"type": "function", "name": "f", "description": "d", "strict": True}],
            "tool_choice": {"type": "allowed_tools", "tools": [{"type": "function", "name": "f"}]},
            "reasoning": {"summary": "auto"},
            "text": {"format": {"type": "json_schema", "name": "n", "schema": {"type": "object"}}},
            "metadata": {"a": "b"},
            "service_tier": "auto",
            "temperature": 0,
        },
    ],
)
def test_response_resource_has_the_31_required_fields_and_validates(body):
    built = resource(parse_create_request(body))
    assert len(built) == 31
    assert schema_errors(built, "ResponseResource") == []


def test_incomplete_and_failed_resources_validate():
    request = parse_create_request({"input": "hi"})
    cut = resource(
        request,
        status="incomplete",
        completed_at=None,
        incomplete_details={"reason": "max_output_tokens"},
        output=[function_call_item("fc_1", "call_1", "f", '{"a":', "incomplete")],
    )
    failed = resource(
        request, status="failed", completed_at=None, output=[], error={"code": "model_error", "message": "no"}
    )
    assert schema_errors(cut, "ResponseResource") == [] and schema_errors(failed, "ResponseResource") == []


def test_stored_input_items_get_ids_and_array_content():
    assert stored_input_item({"type": "message", "role": "user", "content": "hi"}, "msg_9") == {
        "id": "msg_9",
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hi"}],
        "status": "completed",
    }
    assistant = stored_input_item({"type": "message", "role": "assistant", "content": "yo", "id": "msg_1"}, "x")
    assert assistant["id"] == "msg_1" and assistant["content"][0]["type"] == "output_text"
    assert (
        stored_input_item({"type": "function_call_output", "call_id": "c", "output": "o"}, "fco_1")["status"]
        == "completed"
    )
