"""``/v1/responses`` driven by the official ``openai`` SDK, with strict response validation, over real HTTP.

Every body and event the server sends must parse into the SDK's pydantic models
(``_strict_response_validation=True``); every refusal must surface as the SDK's typed exception with the
error envelope's ``type``/``code``/``param``.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

import openai
import pytest
from openai import OpenAI
from support import TEST_TOKEN

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["location", "unit"],
        "additionalProperties": False,
    },
}
SALES = {
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
}


@pytest.fixture(scope="module")
def sdk(live_server) -> OpenAI:
    return OpenAI(base_url=live_server + "/v1", api_key=TEST_TOKEN, max_retries=0, _strict_response_validation=True)


def png_1x1() -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(raw).decode()


# ------------------------------------------------------------------------------------------------ replies


def test_non_streaming_text(sdk):
    response = sdk.responses.create(model="m", input="Say hello in exactly 3 words.")
    assert response.object == "response" and response.status == "completed"
    assert response.output_text == 'You said: "Say hello in exactly 3 words."'
    assert response.usage.total_tokens == response.usage.input_tokens + response.usage.output_tokens > 0
    assert response.id.startswith("resp_") and response.output[0].id.startswith("msg_")


def test_streaming_text_helper_and_final_response(sdk):
    deltas = []
    with sdk.responses.stream(model="m", input=[{"role": "user", "content": "Count from 1 to 5."}]) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
        final = stream.get_final_response()
    assert final.status == "completed"
    assert "".join(deltas) == final.output_text == 'You said: "Count from 1 to 5."'
    assert len(deltas) > 2  # streamed in pieces (a few tokens per delta), not in one


def test_streamed_events_are_in_the_spec_order(sdk):
    events = list(sdk.responses.create(model="m", input="hi there", stream=True))
    kinds = [e.type for e in events]
    assert kinds[:4] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
    ]
    assert kinds[-4:] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_stream_final_equals_non_stream_apart_from_ids(sdk):
    body = {"model": "m", "input": "Same answer twice, please.", "tools": [SALES], "instructions": "Be brief."}
    plain = sdk.responses.create(**body).model_dump()
    with sdk.responses.stream(**body) as stream:
        streamed = stream.get_final_response().model_dump()
    for response in (plain, streamed):
        for key in ("id", "created_at", "completed_at"):
            response.pop(key)
        for item in response["output"]:
            item.pop("id"), item.pop("call_id", None)
            item.pop("parsed_arguments", None)  # added by the SDK's stream helper, not sent by the server
    assert plain == streamed


def test_tool_call_then_output_via_previous_response_id(sdk):
    first = sdk.responses.create(model="m", input="What's the weather like in San Francisco?", tools=[WEATHER])
    [call] = first.output
    assert call.type == "function_call" and call.name == "get_weather" and call.status == "completed"
    assert json.loads(call.arguments) == {"location": "location", "unit": "celsius"}
    second = sdk.responses.create(
        model="m",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "64 degrees and clear"}],
    )
    assert second.status == "completed" and second.previous_response_id == first.id
    assert second.output_text == f"Tool results: get_weather ({call.call_id}) returned: 64 degrees and clear."
    assert [t.name for t in second.tools] == ["get_weather"]  # inherited from the previous response


def test_streamed_tool_call(sdk):
    with sdk.responses.stream(model="m", input="sales please", tools=[SALES], tool_choice="required") as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert "response.function_call_arguments.delta" in kinds and "response.function_call_arguments.done" in kinds
    [call] = final.output
    assert call.status == "completed" and json.loads(call.arguments) == {"region": "apac"}


def test_round_trip_of_own_output_without_previous_response_id(sdk):
    first = sdk.responses.create(model="m", input="Get the sales report.", tools=[SALES], store=False)
    history = [{"role": "user", "content": "Get the sales report."}]
    history += [item.model_dump(exclude_none=True) for item in first.output]  # ids and statuses included
    history.append({"type": "function_call_output", "call_id": first.output[0].call_id, "output": "apac: 42"})
    second = sdk.responses.create(model="m", input=history, tools=[SALES])
    assert second.status == "completed"
    assert second.output_text.startswith("Tool results: get_latest_sales_report")
    # ... and that answer echoed back too, with a new user turn
    third = sdk.responses.create(
        model="m",
        tools=[SALES],
        tool_choice="none",
        input=history
        + [item.model_dump(exclude_none=True) for item in second.output]
        + [{"role": "user", "content": "thanks"}],
    )
    assert third.output_text == 'You said: "thanks"'


def test_image_input_is_acknowledged(sdk):
    response = sdk.responses.create(
        model="m",
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What do you see?"},
                    {"type": "input_image", "image_url": png_1x1()},
                ],
            }
        ],
    )
    assert "an image (image/png" in response.output_text


def test_truncation_is_incomplete(sdk):
    response = sdk.responses.create(model="m", input="word " * 50, max_output_tokens=16)
    assert response.status == "incomplete" and response.incomplete_details.reason == "max_output_tokens"
    assert response.output[-1].status == "incomplete"
    assert response.usage.output_tokens == 16


def test_retrieve_input_items_and_delete(sdk):
    created = sdk.responses.create(
        model="m", input=[{"role": "developer", "content": "Be terse."}, {"role": "user", "content": "hello"}]
    )
    assert sdk.responses.retrieve(created.id).model_dump() == created.model_dump()
    items = sdk.responses.input_items.list(created.id, order="asc")
    assert [item.role for item in items.data] == ["developer", "user"]
    sdk.responses.delete(created.id)
    with pytest.raises(openai.NotFoundError) as err:
        sdk.responses.retrieve(created.id)
    assert err.value.body["type"] == "not_found"


# ------------------------------------------------------------------------------------------------ refusals


def test_wrong_token_is_401(live_server):
    bad = OpenAI(base_url=live_server + "/v1", api_key="sk-wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as err:
        bad.responses.create(model="m", input="hi")
    assert err.value.code == "invalid_api_key"


@pytest.mark.parametrize(
    ("kwargs", "param", "code"),
    [
        (
            {"input": [{"type": "message", "role": "tool", "content": "x"}]},
            "input[0].role",
            "chat_completions_envelope",
        ),
        (
            {
                "input": [
                    {"role": "user", "content": [{"type": "input_image", "image_url": "https://example.com/a.png"}]}
                ]
            },
            "input[0].content[0].image_url",
            "unsupported_value",
        ),
        (
            {"input": "hi", "tools": [{"type": "function", "function": {"name": "f"}}]},
            "tools[0].function",
            "chat_completions_envelope",
        ),
        ({"input": "hi", "max_output_tokens": 3}, "max_output_tokens", "invalid_value"),
        (
            {"previous_response_id": "resp_missing", "input": "hi"},
            "previous_response_id",
            "previous_response_not_found",
        ),
    ],
)
def test_bad_requests_raise_typed_errors(sdk, kwargs, param, code):
    with pytest.raises(openai.APIStatusError) as err:
        sdk.responses.create(model="m", **kwargs)
    assert err.value.status_code == 400
    assert (err.value.param, err.value.code) == (param, code)


@pytest.mark.parametrize(
    ("item", "code"),
    [
        (
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "get_latest_sales_report",
                "arguments": '{"region":"global"}',
                "status": "completed",
            },
            "arguments_schema",
        ),
        (
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "get_latest_sales_report",
                "arguments": '{"region":"apac"',
                "status": "incomplete",
            },
            "status",
        ),
        ({"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}, "namespaced"),
        ({"type": "function_call_output", "call_id": "call_nobody", "output": "x"}, "orphan_output"),
    ],
)
def test_gate_refusals(sdk, item, code):
    with pytest.raises(openai.BadRequestError) as err:
        sdk.responses.create(model="m", tools=[SALES], input=[{"role": "user", "content": "go"}, item])
    assert (err.value.code, err.value.param) == (code, "input[1]")


def test_model_failure_in_a_stream_raises_the_error_event(sdk):
    impossible = {
        "type": "function",
        "name": "never",
        "parameters": {"type": "object", "required": ["x"], "properties": {"x": {"not": {}}}},
    }
    with pytest.raises(openai.APIError, match="could not build arguments"):
        for _ in sdk.responses.create(model="m", input="go", tools=[impossible], stream=True):
            pass


def test_disabled_endpoint_is_404(serve):
    client = serve(RESPONSES_ENABLED=False)
    with pytest.raises(openai.NotFoundError) as err:
        client.responses.create(model="m", input="hi")
    assert err.value.body["type"] == "not_found"


def test_body_over_the_cap_is_413(serve):
    client = serve(MAX_CONTENT_LENGTH=4096)
    with pytest.raises(openai.APIStatusError) as err:
        client.responses.create(model="m", input="x" * 5000)
    assert err.value.status_code == 413 and err.value.code == "payload_too_large"


def test_wrong_method_is_405_with_allow(sdk):
    with pytest.raises(openai.APIStatusError) as err:
        sdk.get("/responses", cast_to=object)
    assert err.value.status_code == 405
    assert "POST" in err.value.response.headers["Allow"]
    assert err.value.code == "method_not_allowed"
