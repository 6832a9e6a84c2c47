"""The legacy ``POST /v1/chat/completions`` layer: driven by the official ``openai`` SDK over real HTTP
(``max_retries=0``, strict response validation), plus its gateway behaviour and request validation.

The live app of ``conftest`` has ``CHAT_COMPLETIONS_ENABLED`` on; variants with other settings are served by
the ``serve`` fixture or driven through Flask's test client.
"""

from __future__ import annotations

import base64
import json
import logging

import openai
import pytest
from openai import OpenAI
from support import TEST_TOKEN
from support.openapi_conformance import parse_sse

from webapp import create_app
from webapp.core.responses.legacy_chat import ChatRequestError, parse_chat_request, to_responses_body

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a location",
        "parameters": {
            "type": "object",
            "required": ["location", "unit"],
            "additionalProperties": False,
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Current time in a city",
        "parameters": {"type": "object", "properties": {}},
    },
}
USER = {"role": "user", "content": "What's the weather like in Paris?"}
AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}


@pytest.fixture(scope="module")
def sdk(live_server) -> OpenAI:
    return OpenAI(base_url=live_server + "/v1", api_key=TEST_TOKEN, max_retries=0, _strict_response_validation=True)


def tool_turn(arguments: str = '{"location": "Paris", "unit": "celsius"}', result: str = "18 C") -> list[dict]:
    """A user question, the assistant's tool call, and the tool's result."""
    return [
        USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


# ================================================================================ replies through the SDK


def test_text_reply(sdk):
    completion = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Say hello."}])
    assert completion.object == "chat.completion" and completion.id.startswith("chatcmpl-")
    assert completion.model == "m"
    choice = completion.choices[0]
    assert (choice.index, choice.finish_reason) == (0, "stop")
    assert choice.message.role == "assistant"
    assert choice.message.content == 'You said: "Say hello."'
    assert choice.message.tool_calls is None
    usage = completion.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens and usage.completion_tokens > 0


def test_system_prompt_and_multi_turn(sdk):
    completion = sdk.chat.completions.create(
        model="m",
        messages=[
            {"role": "system", "content": "You are a pirate."},
            {"role": "user", "content": "My name is Alice."},
            {"role": "assistant", "content": "Hello Alice!"},
            {"role": "user", "content": "What is my name?"},
        ],
    )
    assert completion.choices[0].message.content == 'You said: "What is my name?"'


def test_tool_call_comes_back_as_tool_calls(sdk):
    completion = sdk.chat.completions.create(model="m", messages=[USER], tools=[WEATHER])
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather" and call.id.startswith("call_")
    arguments = json.loads(call.function.arguments)
    assert arguments["unit"] == "celsius"  # built from the schema: the first enum value
    assert set(arguments) == {"location", "unit"}


def test_tool_result_turn_answers_in_text(sdk):
    completion = sdk.chat.completions.create(model="m", messages=tool_turn(), tools=[WEATHER])
    choice = completion.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.content == "Tool results: get_weather (call_1) returned: 18 C."


def test_the_layer_accepts_its_own_tool_calls_echoed_back(sdk):
    first = sdk.chat.completions.create(model="m", messages=[USER], tools=[WEATHER])
    echoed = first.choices[0].message.model_dump(exclude_none=True)
    call_id = first.choices[0].message.tool_calls[0].id
    second = sdk.chat.completions.create(
        model="m",
        tools=[WEATHER],
        messages=[USER, echoed, {"role": "tool", "tool_call_id": call_id, "content": "18 C"}],
    )
    assert second.choices[0].message.content == f"Tool results: get_weather ({call_id}) returned: 18 C."


@pytest.mark.parametrize(
    "tool_choice, expected",
    [
        ("none", None),
        ("required", "get_weather"),
        ({"type": "function", "function": {"name": "get_time"}}, "get_time"),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [{"type": "function", "function": {"name": "get_time"}}],
                },
            },
            "get_time",
        ),
    ],
)
def test_tool_choice_is_honoured(sdk, tool_choice, expected):
    completion = sdk.chat.completions.create(model="m", messages=[USER], tools=[WEATHER, TIME], tool_choice=tool_choice)
    calls = completion.choices[0].message.tool_calls
    assert (calls[0].function.name if calls else None) == expected


def test_max_completion_tokens_cuts_with_finish_reason_length(sdk):
    completion = sdk.chat.completions.create(
        model="m", max_completion_tokens=3, messages=[{"role": "user", "content": "one two three four five"}]
    )
    assert completion.choices[0].finish_reason == "length"
    assert completion.choices[0].message.content == "You said:"  # 3 tokens: "You", "said", ":"
    assert completion.usage.completion_tokens == 3


def test_inline_image_is_acknowledged(sdk):
    url = (
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAA"
        "AElFTkSuQmCC"
    )  # a 1x1 PNG
    completion = sdk.chat.completions.create(
        model="m",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ],
    )
    content = completion.choices[0].message.content
    assert content.startswith('You said: "What is this?"') and "image/png" in content


def test_json_schema_response_format(sdk):
    schema = {
        "type": "object",
        "required": ["city"],
        "additionalProperties": False,
        "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}},
    }
    completion = sdk.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "Pick a city."}],
        response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": schema}},
    )
    assert json.loads(completion.choices[0].message.content) == {"city": "Paris"}


# ================================================================================ streaming


def test_streamed_text_equals_the_non_streamed_reply(sdk):
    messages = [{"role": "user", "content": "Count from 1 to 5."}]
    plain = sdk.chat.completions.create(model="m", messages=messages)
    chunks = list(
        sdk.chat.completions.create(model="m", messages=messages, stream=True, stream_options={"include_usage": True})
    )
    assert {chunk.object for chunk in chunks} == {"chat.completion.chunk"}
    assert len({chunk.id for chunk in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert text == plain.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.model_dump() == plain.usage.model_dump()
    assert all(chunk.usage is None for chunk in chunks[:-1])


def test_streamed_tool_call_through_the_sdk_stream_helper(sdk):
    with sdk.chat.completions.stream(model="m", messages=[USER], tools=[WEATHER]) as stream:
        deltas = [event.arguments_delta for event in stream if event.type == "tool_calls.function.arguments.delta"]
        final = stream.get_final_completion()
    [call] = final.choices[0].message.tool_calls
    assert final.choices[0].finish_reason == "tool_calls"
    assert "".join(deltas) == call.function.arguments and len(deltas) > 1
    assert json.loads(call.function.arguments)["unit"] == "celsius"


def test_stream_framing(live_server):
    """``data:`` lines only (no ``event:``, no ``id:``), JSON chunks, then ``data: [DONE]`` last."""
    import urllib.request

    body = {"model": "m", "messages": [USER], "tools": [WEATHER], "stream": True}
    request = urllib.request.Request(
        f"{live_server}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={**AUTH, "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        content_type, raw = answer.headers["Content-Type"], answer.read()
    frames, unterminated = parse_sse(raw)
    assert content_type.startswith("text/event-stream") and not unterminated
    assert frames[-1].data == "[DONE]"
    assert all(f.event is None and not f.ids for f in frames)
    chunks = [json.loads(f.data) for f in frames[:-1]]
    assert chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert chunks[-1]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "tool_calls", "logprobs": None}


# ================================================================================ gateway behaviour


def test_off_by_default_is_404_for_every_method(serve, client):
    sdk = serve()  # no CHAT_COMPLETIONS_ENABLED: the default is off
    with pytest.raises(openai.NotFoundError) as err:
        sdk.chat.completions.create(model="m", messages=[USER])
    assert err.value.body["type"] == "not_found" and "deprecated" in err.value.message
    for method in ("get", "post", "delete"):
        answer = getattr(client, method)("/v1/chat/completions")
        assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"


def test_responses_can_be_off_while_chat_completions_is_on(serve):
    sdk = serve(CHAT_COMPLETIONS_ENABLED=True, RESPONSES_ENABLED=False)
    assert sdk.chat.completions.create(model="m", messages=[USER]).choices[0].finish_reason == "stop"
    with pytest.raises(openai.NotFoundError):
        sdk.responses.create(model="m", input="hi")


@pytest.mark.parametrize("token, code", [(None, "missing_api_key"), ("sk-wrong", "invalid_api_key")])
def test_auth_is_required(live_server, token, code):
    client = OpenAI(
        base_url=live_server + "/v1",
        api_key="unused",
        max_retries=0,
        default_headers={"Authorization": f"Bearer {token}" if token else ""},
    )
    with pytest.raises(openai.AuthenticationError) as err:
        client.chat.completions.create(model="m", messages=[USER])
    assert err.value.code == code and err.value.body["type"] == "authentication_error"


def test_wrong_method_is_405_with_allow(sdk):
    with pytest.raises(openai.APIStatusError) as err:
        sdk.get("/chat/completions", cast_to=object)
    assert err.value.status_code == 405 and err.value.code == "method_not_allowed"
    assert "POST" in err.value.response.headers["Allow"]


def test_body_over_the_cap_is_413(serve):
    sdk = serve(CHAT_COMPLETIONS_ENABLED=True, MAX_CONTENT_LENGTH=4096)
    with pytest.raises(openai.APIStatusError) as err:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 5000}])
    assert err.value.status_code == 413 and err.value.code == "payload_too_large"


def test_model_failure_is_500_model_error(sdk):
    impossible = {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "required": ["code"],
                "properties": {"code": {"type": "string", "minLength": 5, "maxLength": 2}},
            },
        },
    }
    with pytest.raises(openai.InternalServerError) as err:
        sdk.chat.completions.create(model="m", messages=[USER], tools=[impossible], tool_choice="required")
    assert err.value.body["type"] == "model_error" and "could not build arguments" in err.value.message


def test_a_deprecation_warning_is_logged_at_start_only_when_on(caplog):
    with caplog.at_level(logging.WARNING):
        create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": ":memory:"})
    assert "deprecated" not in caplog.text
    with caplog.at_level(logging.WARNING):
        create_app(
            {
                "TESTING": True,
                "API_TOKEN": TEST_TOKEN,
                "RESPONSES_DATABASE": ":memory:",
                "CHAT_COMPLETIONS_ENABLED": True,
            }
        )
    assert "/v1/chat/completions is enabled: it is deprecated" in caplog.text


@pytest.mark.parametrize("value, status", [("true", 200), ("1", 200), ("false", 404), ("off", 404), ("0", 404)])
def test_flask_prefixed_environment_variable_switches_it(monkeypatch, value, status):
    monkeypatch.setenv("FLASK_CHAT_COMPLETIONS_ENABLED", value)
    app = create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": ":memory:"})
    answer = app.test_client().post("/v1/chat/completions", headers=AUTH, json={"model": "m", "messages": [USER]})
    assert answer.status_code == status


@pytest.fixture
def chat_client(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "CHAT_COMPLETIONS_ENABLED": True,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    return app.test_client()


@pytest.mark.parametrize(
    "data, content_type, status, code",
    [
        ("", "application/json", 400, "invalid_json"),
        ('{"model": "m", "model": "n", "messages": []}', "application/json", 400, "invalid_json"),  # duplicate key
        ('{"model": "m",}', "application/json", 400, "invalid_json"),
        ("model=m", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
        ("[1]", "application/json", 400, "invalid_type"),
    ],
)
def test_bad_bodies_get_the_error_envelope(chat_client, data, content_type, status, code):
    answer = chat_client.post("/v1/chat/completions", data=data, content_type=content_type, headers=AUTH)
    assert answer.status_code == status
    error = answer.get_json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["code"] == code


def test_a_json_syntax_error_names_line_and_column(chat_client):
    answer = chat_client.post(
        "/v1/chat/completions", data='{"model": "m",\n "messages": [,]}', content_type="application/json", headers=AUTH
    )
    message = answer.get_json()["error"]["message"]
    assert "line 2, column 15" in message and not message.endswith("..")


# ================================================================================ request validation

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()

# (id, body changes over {"model": "m", "messages": [USER]}, expected param, expected code)
BAD_REQUESTS = [
    ("model-null", {"model": None}, "model", "invalid_type"),
    (
        "parameters-not-object",
        {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "string"}}}]},
        "tools[0].function.parameters",
        "invalid_function_parameters",
    ),
    ("empty-model", {"model": ""}, "model", "invalid_value"),
    ("messages-null", {"messages": None}, "messages", "invalid_type"),
    ("empty-messages", {"messages": []}, "messages", "invalid_value"),
    ("message-not-object", {"messages": ["hi"]}, "messages[0]", "invalid_type"),
    ("no-role", {"messages": [{"content": "hi"}]}, "messages[0].role", "missing_required_parameter"),
    (
        "responses-item",
        {"messages": [{"type": "message", "content": "hi"}]},
        "messages[0].role",
        "missing_required_parameter",
    ),
    ("bad-role", {"messages": [{"role": "robot", "content": "hi"}]}, "messages[0].role", "invalid_value"),
    (
        "function-role",
        {"messages": [{"role": "function", "name": "f", "content": "hi"}]},
        "messages[0].role",
        "unsupported_parameter",
    ),
    ("no-content", {"messages": [{"role": "user"}]}, "messages[0].content", "missing_required_parameter"),
    ("content-number", {"messages": [{"role": "user", "content": 3}]}, "messages[0].content", "invalid_type"),
    (
        "responses-part",
        {"messages": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]},
        "messages[0].content[0].type",
        "invalid_value",
    ),
    (
        "image-in-system",
        {"messages": [{"role": "system", "content": [{"type": "image_url", "image_url": {"url": PNG}}]}, USER]},
        "messages[0].content[0].type",
        "invalid_value",
    ),
    (
        "remote-image",
        {
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}
            ]
        },
        "messages[0].content[0].image_url.url",
        "unsupported_value",
    ),
    (
        "image-bad-base64",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR!"}}],
                }
            ]
        },
        "messages[0].content[0].image_url.url",
        "invalid_value",
    ),
    (
        "image-type-not-allowed",
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "data:image/tiff;base64,AAAA"}}],
                }
            ]
        },
        "messages[0].content[0].image_url.url",
        "unsupported_value",
    ),
    (
        "image-bad-detail",
        {
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG, "detail": "max"}}]}
            ]
        },
        "messages[0].content[0].image_url.detail",
        "invalid_value",
    ),
    (
        "file-id",
        {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}]},
        "messages[0].content[0].file.file_id",
        "unsupported_parameter",
    ),
    (
        "audio-part",
        {"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]},
        "messages[0].content[0].type",
        "invalid_value",
    ),
    (
        "assistant-empty",
        {"messages": [USER, {"role": "assistant", "content": None}, USER]},
        "messages[1].content",
        "missing_required_parameter",
    ),
    (
        "arguments-object",
        {
            "messages": [
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": {"location": "Paris"}},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c", "content": "x"},
            ]
        },
        "messages[1].tool_calls[0].function.arguments",
        "invalid_type",
    ),
    (
        "tool-without-id",
        {"messages": [USER, {"role": "tool", "content": "x"}]},
        "messages[1].tool_call_id",
        "missing_required_parameter",
    ),
    (
        "orphan-tool-message",
        {"messages": [USER, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]},
        "messages[1].tool_call_id",
        "orphan_output",
    ),
    ("unanswered-call", {"messages": tool_turn()[:2] + [USER]}, "messages[2]", "missing_output"),
    ("unanswered-call-at-end", {"messages": tool_turn()[:2]}, "messages", "missing_output"),
    ("answered-twice", {"messages": tool_turn() + [tool_turn()[2]]}, "messages[3].tool_call_id", "duplicate_output"),
    ("call-id-reused", {"messages": tool_turn() + tool_turn()}, "messages[4].tool_calls[0].id", "duplicate_call_id"),
    ("only-system", {"messages": [{"role": "system", "content": "x"}]}, "messages", "missing_required_parameter"),
    ("flat-tool", {"tools": [{"type": "function", "name": "f"}]}, "tools[0]", "responses_tool_shape"),
    ("tool-type", {"tools": [{"type": "custom", "custom": {"name": "f"}}]}, "tools[0].type", "unsupported_parameter"),
    (
        "tool-name",
        {"tools": [{"type": "function", "function": {"name": "get weather"}}]},
        "tools[0].function.name",
        "invalid_value",
    ),
    ("tool-duplicate", {"tools": [WEATHER, WEATHER]}, "tools[1].function.name", "invalid_value"),
    (
        "tool-schema",
        {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "objekt"}}}]},
        "tools[0].function.parameters/type",
        "invalid_schema",
    ),  # the pointer goes into the schema
    (
        "choice-unknown-tool",
        {"tools": [WEATHER], "tool_choice": {"type": "function", "function": {"name": "nope"}}},
        "tool_choice.function.name",
        "invalid_value",
    ),
    (
        "choice-responses-shape",
        {"tools": [WEATHER], "tool_choice": {"type": "function", "name": "get_weather"}},
        "tool_choice",
        "responses_tool_shape",
    ),
    ("required-without-tools", {"tool_choice": "required"}, "tool_choice", "invalid_value"),
    ("choice-word", {"tool_choice": "always"}, "tool_choice", "invalid_value"),
    ("n-2", {"n": 2}, "n", "unsupported_parameter"),
    ("logprobs", {"logprobs": True}, "logprobs", "unsupported_parameter"),
    ("functions", {"functions": [{"name": "f"}]}, "functions", "unsupported_parameter"),
    ("unknown", {"temprature": 1}, "temprature", "unknown_parameter"),
    ("responses-body", {"input": "hi"}, "input", "unknown_parameter"),
    ("temperature-range", {"temperature": 3}, "temperature", "invalid_value"),
    ("temperature-bool", {"temperature": True}, "temperature", "invalid_type"),
    ("max-tokens-zero", {"max_tokens": 0}, "max_tokens", "invalid_value"),
    ("max-tokens-disagree", {"max_tokens": 5, "max_completion_tokens": 6}, "max_tokens", "invalid_value"),
    ("stream-options-without-stream", {"stream_options": {"include_usage": True}}, "stream_options", "invalid_value"),
    (
        "stream-option-unknown",
        {"stream": True, "stream_options": {"usage": True}},
        "stream_options.usage",
        "unknown_parameter",
    ),
    ("stop-too-many", {"stop": ["a", "b", "c", "d", "e"]}, "stop", "invalid_value"),
    ("format-type", {"response_format": {"type": "yaml"}}, "response_format.type", "invalid_value"),
    (
        "format-schema",
        {
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "x",
                    "schema": {"type": "object", "properties": {"a": {"$ref": "https://example.com/s"}}},
                },
            }
        },
        "response_format.json_schema.schema/properties/a/$ref",
        "invalid_schema",
    ),
    ("metadata-value", {"metadata": {"k": 1}}, "metadata.k", "invalid_type"),
]


@pytest.mark.parametrize("changes, param, code", [pytest.param(*case[1:], id=case[0]) for case in BAD_REQUESTS])
def test_each_bad_request_names_its_place(chat_client, changes, param, code):
    answer = chat_client.post("/v1/chat/completions", json={"model": "m", "messages": [USER], **changes}, headers=AUTH)
    assert answer.status_code == 400, answer.get_json()
    error = answer.get_json()["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")
    assert error["message"].startswith(f"{param}: ")


def test_sdk_raises_bad_request_with_the_param(sdk):
    with pytest.raises(openai.BadRequestError) as err:
        sdk.chat.completions.create(model="m", messages=[USER], n=3)
    assert err.value.param == "n" and err.value.code == "unsupported_parameter"


def test_missing_required_parameters_are_named():
    with pytest.raises(ChatRequestError) as err:
        parse_chat_request({"messages": [USER]})
    assert (err.value.param, err.value.code) == ("model", "missing_required_parameter")
    with pytest.raises(ChatRequestError) as err:
        parse_chat_request({"model": "m"})
    assert err.value.param == "messages"


def test_translation_to_responses_items():
    request = parse_chat_request(
        {
            "model": "m",
            "user": "alice",
            "parallel_tool_calls": False,
            "tools": [WEATHER],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
                *tool_turn(),
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "And now?"}, {"type": "image_url", "image_url": {"url": PNG}}],
                },
            ],
        }
    )
    body, origin = to_responses_body(request)
    assert body["input"] == [
        {"type": "message", "role": "developer", "content": "Be brief."},
        {"type": "message", "role": "user", "content": USER["content"]},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"location": "Paris", "unit": "celsius"}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "18 C"},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "And now?"},
                {"type": "input_image", "image_url": PNG, "detail": "auto"},
            ],
        },
    ]
    assert origin == [0, 1, 2, 3, 4]
    assert body["tools"] == [{"type": "function", **WEATHER["function"], "strict": None}]
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert (body["parallel_tool_calls"], body["user"], body["store"]) == (False, "alice", False)
