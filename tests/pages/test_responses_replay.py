"""Status-less replays: a ``function_call`` without ``status`` (or with ``status: null``) is accepted on input when
its ``function_call_output`` follows it (``docs/responses-api.md``, "Status-less replays": the Vercel AI SDK and
LangChain send calls that way), while the inspector's gate on stored items keeps refusing it.

Through the real ``openai`` SDK (``max_retries=0``, strict validation) and Flask's test client.
"""

from __future__ import annotations

import json

import openai
import pytest
from support import TEST_TOKEN

from webapp.core.gate import replay_gate

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "object",
        "required": ["location"],
        "additionalProperties": False,
        "properties": {"location": {"type": "string"}},
    },
}
USER = {"type": "message", "role": "user", "content": "What is the weather in Paris?"}


def bare_call(call_id="call_1", arguments='{"location":"Paris"}', **extra):
    """A call as the Vercel AI SDK replays it: only type, call_id, name, arguments (no id, no status)."""
    return {"type": "function_call", "call_id": call_id, "name": "get_weather", "arguments": arguments, **extra}


def result(call_id="call_1", text="18 degrees and sunny"):
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def post(client, body):
    return client.post("/v1/responses", json=body, headers=AUTH)


@pytest.fixture
def sdk(serve):
    return serve()


# ------------------------------------------------------------------------------------------------ accepted


def test_vercel_ai_sdk_shape_is_accepted(sdk):
    # The AI SDK's second step: the call without id and status, then its output, tools resent.
    response = sdk.responses.create(model="m", input=[USER, bare_call(), result()], tools=[WEATHER])
    assert response.status == "completed"
    assert response.output_text == "Tool results: get_weather (call_1) returned: 18 degrees and sunny."


def test_null_status_is_accepted_with_its_output(sdk):
    response = sdk.responses.create(model="m", input=[USER, bare_call(status=None), result()], tools=[WEATHER])
    assert response.status == "completed" and "18 degrees" in response.output_text


def test_langchain_shape_after_stream_is_accepted(sdk):
    # LangChain's merged call after stream: id kept, status dropped.
    first = sdk.responses.create(
        model="m", input=[USER], tools=[WEATHER], tool_choice={"type": "function", "name": "get_weather"}
    )
    made = first.output[0].model_dump()
    replay = {k: made[k] for k in ("type", "id", "call_id", "name", "arguments")}
    second = sdk.responses.create(model="m", input=[USER, replay, result(made["call_id"])], tools=[WEATHER])
    assert second.status == "completed"
    assert second.output_text.startswith("Tool results: get_weather")


def test_parallel_calls_each_answered(sdk):
    items = [
        USER,
        bare_call("call_a"),
        bare_call("call_b", '{"location":"Rome"}'),
        result("call_b", "rain"),
        result("call_a", "sun"),
    ]
    response = sdk.responses.create(model="m", input=items, tools=[WEATHER])
    assert response.status == "completed"
    assert "call_a" in response.output_text and "call_b" in response.output_text


def test_stored_input_items_say_completed(sdk):
    # The call is stored as the client vouched for it: completed (input_items lists a status for every call).
    response = sdk.responses.create(model="m", input=[USER, bare_call(), result()], tools=[WEATHER])
    items = sdk.responses.input_items.list(response.id, order="asc").data
    stored = [item for item in items if item.type == "function_call"]
    assert len(stored) == 1 and stored[0].status == "completed" and stored[0].call_id == "call_1"


def test_output_for_a_call_of_the_previous_response(sdk):
    # The chain case: the call comes from the previous response (stored with its status), its output now.
    first = sdk.responses.create(
        model="m", input=[USER], tools=[WEATHER], tool_choice={"type": "function", "name": "get_weather"}
    )
    call_id = first.output[0].call_id
    second = sdk.responses.create(model="m", previous_response_id=first.id, input=[result(call_id)])
    assert second.status == "completed" and "18 degrees" in second.output_text


def test_the_rest_of_the_gate_still_applies(client):
    # Vouching fills the status only: bad arguments are still refused, with the usual place and code.
    response = post(
        client, {"model": "m", "input": [USER, bare_call(arguments='{"location": 7}'), result()], "tools": [WEATHER]}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "arguments_schema"
    assert response.get_json()["error"]["param"] == "input[1]"


# ------------------------------------------------------------------------------------------------ refused


@pytest.mark.parametrize("status", ["in_progress", "incomplete"])
def test_unfinished_call_is_refused_even_with_output(sdk, status):
    with pytest.raises(openai.BadRequestError) as err:
        sdk.responses.create(model="m", input=[USER, bare_call(status=status), result()], tools=[WEATHER])
    assert err.value.code == "status" and err.value.param == "input[1]"
    assert f'status is "{status}"' in err.value.message


@pytest.mark.parametrize("status", ["missing", None])
def test_status_less_call_without_output_is_refused(sdk, status):
    item = bare_call() if status == "missing" else bare_call(status=None)
    with pytest.raises(openai.BadRequestError) as err:
        sdk.responses.create(model="m", input=[USER, item], tools=[WEATHER])
    assert err.value.code == "status" and err.value.param == "input[1]"
    assert "accepted only with its function_call_output after it" in err.value.message


def test_output_before_the_call_does_not_vouch(client):
    # The output must follow the call: one that comes first answers nothing (orphan_output at input[1]).
    response = post(client, {"model": "m", "input": [USER, result(), bare_call()], "tools": [WEATHER]})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert (error["param"], error["code"]) == ("input[1]", "orphan_output")


def test_an_output_for_another_call_does_not_vouch(client):
    response = post(
        client,
        {"model": "m", "input": [USER, bare_call("call_1"), bare_call("call_2"), result("call_2")], "tools": [WEATHER]},
    )
    error = response.get_json()["error"]
    assert response.status_code == 400 and (error["param"], error["code"]) == ("input[1]", "status")


def test_status_less_call_then_output_in_the_next_request_is_refused(client):
    # Sent alone, a status-less call is refused; nothing is stored that a later output could answer.
    first = post(client, {"model": "m", "input": [USER, bare_call()], "tools": [WEATHER]})
    assert first.status_code == 400 and first.get_json()["error"]["code"] == "status"


# ------------------------------------------------------------------------------------------------ the inspector


def test_the_inspectors_gate_keeps_the_articles_rule(client):
    # /api/gate judges a stored item by itself: no status is "may be unfinished", whatever follows it.
    journal = [USER, bare_call(), result()]
    response = client.post("/api/gate", json={"items": journal, "tools": [WEATHER]})
    assert response.status_code == 200
    verdicts = response.get_json()["items"]
    assert verdicts[1]["reason"] == "status" and response.get_json()["replayable"] is False
    assert replay_gate(bare_call(), WEATHER["parameters"]) == "status"
    assert replay_gate(bare_call(status=None), WEATHER["parameters"]) == "status"


def test_cli_keeps_the_articles_rule(tmp_path, capsys):
    from webapp.__main__ import EXIT_NOT_REPLAYABLE, main

    journal = tmp_path / "journal.json"
    journal.write_text(json.dumps([USER, bare_call(), result()]))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]))
    assert main(["gate", str(journal), "--tools", str(tools)]) == EXIT_NOT_REPLAYABLE
    assert "status is missing" in capsys.readouterr().out
