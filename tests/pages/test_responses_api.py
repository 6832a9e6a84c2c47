"""``/v1/responses`` over Flask's test client: gateway behaviour, the gate on input, storage, sessions,
streams checked by the conformance checker, and the shipped bugs of peer gateways as regression cases
(each case names its source: the public issue or pull request, ``owner/repo #number``)."""

from __future__ import annotations

import html as html_module
import json
import os
import re

import pytest
from support import TEST_TOKEN
from support.openapi_conformance import check_json_response, check_stream

from webapp import create_app
from webapp.core.responses.sse import decode

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SALES = {
    "type": "function",
    "name": "get_latest_sales_report",
    "description": "Latest sales report for a region",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "required": ["region"],
        "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
    },
}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {"type": "object", "required": ["location"], "properties": {"location": {"type": "string"}}},
}


def post(client, body, headers=None):
    return client.post("/v1/responses", json=body, headers={**AUTH, **(headers or {})})


def error_of(response):
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    return body["error"]


def call(call_id="call_1", arguments='{"region":"apac"}', status="completed", name="get_latest_sales_report", **extra):
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
        **extra,
    }


def output(call_id="call_1", text="ok"):
    return {"type": "function_call_output", "call_id": call_id, "output": text}


USER = {"role": "user", "content": "go"}


# ------------------------------------------------------------------------------------------------ gateway


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/v1/responses", {"GET", "POST"}),  # GET: the WebSocket handshake (a plain GET is 405)
        ("/v1/responses/resp_1", {"GET", "DELETE"}),
        ("/v1/responses/resp_1/input_items", {"GET"}),
        ("/v1/sessions/k/items", {"GET"}),
    ],
)
def test_options_needs_no_token(client, path, allow):
    # A CORS preflight never carries the Authorization header, so it must not get 401.
    response = client.options(
        path,
        headers={
            "Origin": "http://localhost:5173",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    assert response.status_code == 200
    assert {m.strip() for m in response.headers["Allow"].split(",")} - {"HEAD", "OPTIONS"} == allow
    method = "POST" if "POST" in allow else min(allow)
    assert client.open(path, method=method).status_code == 401  # the other methods still need the token


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "missing_api_key"),
        ({"Authorization": "Basic abc"}, "missing_api_key"),
        ({"Authorization": "Bearer "}, "missing_api_key"),
        ({"Authorization": "Bearer sk-test-tokenX"}, "invalid_api_key"),
        ({"Authorization": f"Bearer {TEST_TOKEN[:-1]}"}, "invalid_api_key"),
    ],
)
def test_auth_is_required(client, headers, code):
    response = client.post("/v1/responses", json={"input": "hi"}, headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    error = error_of(response)
    assert (error["type"], error["code"]) == ("authentication_error", code)


def test_bearer_scheme_is_case_insensitive(client):
    response = client.post("/v1/responses", json={"input": "hi"}, headers={"Authorization": f"bearer {TEST_TOKEN}"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/responses"),
        ("GET", "/v1/responses"),
        ("GET", "/v1/responses/resp_1"),
        ("DELETE", "/v1/responses/resp_1"),
        ("GET", "/v1/sessions/s/items"),
    ],
)
def test_disabled_endpoint_is_404_for_every_method(tmp_path, method, path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "RESPONSES_ENABLED": False,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    response = app.test_client().open(path, method=method, json={"input": "hi"}, headers=AUTH)
    assert response.status_code == 404
    assert error_of(response)["type"] == "not_found"


def test_disabled_by_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASK_RESPONSES_ENABLED", "false")
    app = create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": str(tmp_path / "r.db")})
    assert post(app.test_client(), {"input": "hi"}).status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/responses", {"GET", "POST"}),  # GET: the WebSocket handshake
        ("GET", "/v1/responses", {"POST"}),  # a GET without the WebSocket upgrade: only POST would answer it
        ("POST", "/v1/responses/resp_1", {"GET", "DELETE"}),
        ("POST", "/v1/sessions/s/items", {"GET"}),
    ],
)
def test_wrong_method_is_405_with_allow(client, method, path, allow):
    response = client.open(path, method=method, headers=AUTH)
    assert response.status_code == 405
    assert {m.strip() for m in response.headers["Allow"].split(",")} - {"HEAD", "OPTIONS"} == allow
    assert error_of(response)["code"] == "method_not_allowed"


def test_body_over_the_cap_is_413(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "MAX_CONTENT_LENGTH": 1000,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    response = post(app.test_client(), {"input": "x" * 2000})
    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"


@pytest.mark.parametrize(
    ("data", "content_type", "status", "needle"),
    [
        ('{"input": "hi",}', "application/json", 400, "line 1, column"),
        ('{"input": "hi", "input": "again"}', "application/json", 400, "duplicate"),
        ('{"input": NaN}', "application/json", 400, "line 1"),
        ("", "application/json", 400, "empty"),
        ("input=hi", "application/x-www-form-urlencoded", 415, "application/json"),
        ("[" * 5000 + "]" * 5000, "application/json", 400, "deep"),
    ],
)
def test_malformed_bodies_get_clear_errors(client, data, content_type, status, needle):
    response = client.post("/v1/responses", data=data, content_type=content_type, headers=AUTH)
    assert response.status_code == status
    assert needle in error_of(response)["message"].lower()


def test_json_body_without_content_type_is_415(client):
    # A body without Content-Type is what a cross-site fetch() of a Blob sends without a CORS preflight.
    response = client.post("/v1/responses", data=json.dumps({"input": "hi"}), headers=AUTH)
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


# ------------------------------------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "messages", "chat_completions_envelope"),
        ({"input": "hi", "temperature": "hot"}, "temperature", "invalid_type"),
        ({"model": "m"}, "input", "missing_required_parameter"),
        (
            {"input": [USER, {"type": "message", "role": "user", "content": [{"type": "input_txt", "text": "x"}]}]},
            "input[1].content[0].type",
            "invalid_value",
        ),
        # openhuman #3624: a tool result folded into an assistant message kept input_text
        (
            {"input": [USER, USER, USER, {"role": "assistant", "content": [{"type": "input_text", "text": "r"}]}]},
            "input[3].content[0].type",
            "invalid_value",
        ),
        # kelivo #281 and openai-python #2677: Chat Completions tool turns
        (
            {"input": [USER, {"role": "tool", "tool_call_id": "c", "content": "x"}]},
            "input[1].role",
            "chat_completions_envelope",
        ),
        (
            {"input": [USER, {"role": "assistant", "content": "", "tool_calls": []}]},
            "input[1].tool_calls",
            "chat_completions_envelope",
        ),
        # mesh-llm #1904 / OpenClaw #57166: nested tool shape
        (
            {"input": "hi", "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]},
            "tools[0].function",
            "chat_completions_envelope",
        ),
        # vllm #55974: unsupported item types are a 400, never a 500
        ({"input": [USER, {"type": "mcp_call", "id": "x"}]}, "input[1].type", "invalid_value"),
        ({"input": "hi", "tools": [{"type": "web_search"}]}, "tools[0].type", "unsupported_value"),
        (
            {"input": "hi", "tools": [SALES], "tool_choice": {"type": "function", "name": "nope"}},
            "tool_choice.name",
            "invalid_value",
        ),
        ({"input": "hi", "tool_choice": "required"}, "tool_choice", "invalid_value"),
        (
            {"input": "hi", "tools": [{**SALES, "parameters": {"type": "objekt"}}]},
            "tools[0].parameters.type",
            "invalid_schema",
        ),
        ({"input": "hi", "background": True}, "background", "unsupported_value"),
        ({"input": [{"role": "system", "content": "only a system prompt"}]}, "input", "missing_required_parameter"),
    ],
)
def test_invalid_requests_name_the_first_bad_path(client, body, param, code):
    response = post(client, body)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", param, code)
    assert error["message"].startswith(param)


def test_garbage_bodies_never_cause_a_500(client):
    cases = [
        None,
        1,
        "x",
        [],
        [1],
        {"input": {}},
        {"input": [None]},
        {"input": [[]]},
        {"tools": "x", "input": "a"},
        {"input": [{"type": None}]},
        {"input": [{"type": 7}]},
        {"input": [{"role": 3, "content": "x"}]},
        {"input": [{"type": "function_call"}]},
        {"input": [{"type": "function_call_output", "call_id": ""}]},
        {"input": "a", "tool_choice": {"type": "allowed_tools", "tools": []}},
        {"input": "a", "metadata": {str(i): "v" for i in range(17)}},
        {"input": "a", "include": ["x"]},
        {"input": [{"type": "reasoning", "summary": [{"type": "summary_text"}]}]},
    ]
    for body in cases:
        response = post(client, body)
        assert response.status_code == 400, body
        assert error_of(response)["message"]


# ------------------------------------------------------------------------------------------------ gate on input


@pytest.mark.parametrize(
    ("items", "tools", "param", "code"),
    [
        ([USER, call(arguments='{"region":"global"}')], [SALES], "input[1]", "arguments_schema"),
        ([USER, call(status="in_progress")], [SALES], "input[1]", "status"),
        ([USER, call(status=None)], [SALES], "input[1]", "status"),
        ([USER, call(arguments={"region": "apac"})], [SALES], "input[1]", "arguments_type"),
        ([USER, call(arguments='{"region":"apac"')], [SALES], "input[1]", "arguments_parse"),
        ([USER, call(arguments='{"region":"apac","region":"emea"}')], [SALES], "input[1]", "arguments_parse"),
        ([USER, call(arguments='["apac"]')], [{**SALES, "parameters": None}], "input[1]", "arguments_schema"),
        ([USER, call(name="delete_everything")], [SALES], "input[1]", "unknown_tool"),
        ([USER, call()], None, "input[1]", "unknown_tool"),
        (
            [USER, {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}],
            [SALES],
            "input[1]",
            "namespaced",
        ),
        # gpt-oss #308: a duplicate call_id rebinds outputs to the wrong call
        ([USER, call(), call(arguments='{"region":"emea"}'), output()], [SALES], "input[2]", "duplicate_call_id"),
        # vercel/ai #11114: an output whose call_id matches no call
        ([USER, call(), output("call_other")], [SALES], "input[2]", "orphan_output"),
        ([USER, output("call_1"), call()], [SALES], "input[1]", "orphan_output"),
        ([USER, call(), output(), output()], [SALES], "input[3]", "duplicate_output"),
    ],
)
def test_gate_refuses_replayed_items(client, items, tools, param, code):
    body = {"input": items, **({"tools": tools} if tools is not None else {})}
    response = post(client, body)
    assert response.status_code == 400, response.get_json()
    error = error_of(response)
    assert (error["param"], error["code"]) == (param, code)
    assert error["message"].startswith(f"{param}: the replay gate refuses")


def test_gate_accepts_a_clean_replay_and_keeps_extension_fields(client):
    # earendil-works/pi #7709: extension fields such as namespace must not break a replay
    items = [USER, call(id="fc_9", namespace="billing"), output()]
    response = post(client, {"input": items, "tools": [SALES]})
    assert response.status_code == 200
    assert response.get_json()["output"][0]["content"][0]["text"].startswith("Tool results: get_latest_sales_report")


def test_output_for_a_truncated_previous_call_is_refused(client):
    first = post(
        client,
        {"input": "sales", "tools": [SALES], "tool_choice": "required", "max_output_tokens": 16, "instructions": None},
    ).get_json()
    if first["status"] != "incomplete":  # the built arguments fit in 16 tokens: force a cut on a long schema
        long_tool = {
            **SALES,
            "parameters": {
                "type": "object",
                "required": [f"p{i}" for i in range(10)],
                "properties": {f"p{i}": {"type": "string"} for i in range(10)},
            },
        }
        first = post(
            client, {"input": "sales", "tools": [long_tool], "tool_choice": "required", "max_output_tokens": 16}
        ).get_json()
    assert first["status"] == "incomplete" and first["output"][-1]["status"] == "incomplete"
    response = post(client, {"previous_response_id": first["id"], "input": [output(first["output"][-1]["call_id"])]})
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["param"]) == ("output_for_unfinished_call", "input[0]")


# ------------------------------------------------------------------------------------------------ the model


def test_tool_choice_none_answers_in_text(client):
    body = post(client, {"input": "sales?", "tools": [SALES], "tool_choice": "none"}).get_json()
    assert [i["type"] for i in body["output"]] == ["message"]


def test_named_tool_choice_is_honoured(client):
    body = post(
        client,
        {
            "input": "weather please",
            "tools": [WEATHER, SALES],
            "tool_choice": {"type": "function", "name": "get_latest_sales_report"},
        },
    ).get_json()
    assert [i["name"] for i in body["output"]] == ["get_latest_sales_report"]
    assert body["tool_choice"] == {"type": "function", "name": "get_latest_sales_report"}


def test_allowed_tools_is_a_hard_constraint(client):
    # The message names get_weather, but only the sales tool may run (spec: allowed_tools).
    body = post(
        client,
        {
            "input": "call get_weather now",
            "tools": [WEATHER, SALES],
            "tool_choice": {
                "type": "allowed_tools",
                "tools": [{"type": "function", "name": "get_latest_sales_report"}],
            },
        },
    ).get_json()
    assert [i["name"] for i in body["output"]] == ["get_latest_sales_report"]
    assert body["tool_choice"]["mode"] == "auto"
    assert [t["name"] for t in body["tools"]] == ["get_weather", "get_latest_sales_report"]  # all stay visible


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        ({}, ["get_latest_sales_report", "get_weather"]),
        ({"max_tool_calls": 1}, ["get_latest_sales_report"]),
        ({"parallel_tool_calls": False}, ["get_latest_sales_report"]),
    ],
)
def test_mentioned_tools_are_called_in_parallel_within_max_tool_calls(client, extra, names):
    body = post(
        client, {"input": "use get_latest_sales_report and get_weather", "tools": [WEATHER, SALES], **extra}
    ).get_json()
    assert [i["name"] for i in body["output"]] == names
    assert len({i["call_id"] for i in body["output"]}) == len(names)
    # nodetool #4252 / CLIProxyAPI #5692: the item id and the call_id are different things
    assert all(i["id"].startswith("fc_") and i["call_id"].startswith("call_") for i in body["output"])


def test_echoed_tools_carry_every_key(client):
    tool = {"type": "function", "name": "bare"}
    body = post(client, {"input": "hi", "tools": [tool], "tool_choice": "none"}).get_json()
    assert body["tools"] == [
        {"type": "function", "name": "bare", "description": None, "parameters": None, "strict": None}
    ]


def test_truncation_marks_the_last_item_incomplete(client):
    # jundot/omlx #2817 and OpenClaw #142778: a length stop is incomplete, not completed
    body = post(client, {"input": "one two three " * 20, "max_output_tokens": 16}).get_json()
    assert body["status"] == "incomplete" and body["incomplete_details"] == {"reason": "max_output_tokens"}
    assert body["completed_at"] is None
    assert body["output"][-1]["status"] == "incomplete" and body["usage"]["output_tokens"] == 16


def test_json_schema_text_format_replies_with_an_instance(client):
    schema = {
        "type": "object",
        "required": ["answer", "n"],
        "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}, "n": {"type": "integer", "minimum": 3}},
    }
    body = post(client, {"input": "hi", "text": {"format": {"type": "json_schema", "name": "a", "schema": schema}}})
    body = body.get_json()
    assert json.loads(body["output"][0]["content"][0]["text"]) == {"answer": "yes", "n": 3}
    assert body["text"]["format"]["schema"] is None  # the response schema types it as null (spec notes §5.8)


def test_file_input_is_acknowledged(client):
    pdf = "data:application/pdf;base64,JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK"
    body = post(
        client,
        {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Title?"},
                        {"type": "input_file", "filename": "fixture.pdf", "file_data": pdf},
                    ],
                }
            ]
        },
    ).get_json()
    assert "fixture.pdf (application/pdf" in body["output"][0]["content"][0]["text"]


def test_non_streaming_model_failure_is_500_model_error(client):
    # OpenClaw #124038: a failure must not be a 200 "completed"
    never = {
        "type": "function",
        "name": "never",
        "parameters": {"type": "object", "required": ["x"], "properties": {"x": False}},
    }
    response = post(client, {"input": "go", "tools": [never]})
    assert response.status_code == 500
    error = error_of(response)
    assert error["type"] == "model_error" and "could not build arguments for tool 'never'" in error["message"]


def test_a_tool_whose_parameters_are_not_an_object_is_refused_up_front(client):
    # The model answered {"type": "string"} with arguments "\"value\"", which the endpoint refused when echoed back.
    tools = [SALES, {"type": "function", "name": "shout", "parameters": {"type": "string"}}]
    response = post(client, {"input": "shout", "tools": tools})
    assert response.status_code == 400
    error = error_of(response)
    assert error["type"] == "invalid_request_error" and error["param"] == "tools[1].parameters"
    assert error["code"] == "invalid_function_parameters"
    assert "function parameters must describe a JSON object" in error["message"]


@pytest.mark.parametrize("parameters", [{}, {"properties": {"text": {"type": "string"}}, "required": ["text"]}])
def test_every_call_the_model_makes_is_accepted_when_sent_back(client, parameters):
    tool = {"type": "function", "name": "shout", "parameters": parameters}
    first = post(client, {"input": "shout", "tools": [tool], "tool_choice": "required"})
    assert first.status_code == 200
    [made] = first.get_json()["output"]
    assert made["type"] == "function_call" and isinstance(json.loads(made["arguments"]), dict)
    echoed = {k: made[k] for k in ("type", "call_id", "name", "arguments", "status")}
    second = post(client, {"input": [USER, echoed, output(made["call_id"])], "tools": [tool]})
    assert second.status_code == 200, second.get_json()


@pytest.mark.parametrize("stream", [False, True])
def test_catastrophic_pattern_fails_the_model_not_the_server(client, monkeypatch, stream):
    # A backtracking pattern once held the interpreter for 26 s; now building arguments gives up within the schema
    # layer's budget (shortened here) and the model fails as for an impossible schema.
    monkeypatch.setattr("webapp.core.schema.patterns.PATTERN_BUDGET_SECONDS", 0.05)
    slow = {
        "type": "function",
        "name": "slow",
        "parameters": {
            "type": "object",
            "required": ["p"],
            "properties": {"p": {"type": "string", "pattern": "^(a|a)+b$", "minLength": 26}},
        },
    }
    response = post(client, {"input": "go", "tools": [slow], "stream": stream})
    if not stream:
        assert response.status_code == 500
        error = error_of(response)
        assert error["type"] == "model_error" and "catastrophic backtracking" in error["message"]
        return
    report = check_stream(response.get_data(), response.headers["Content-Type"])
    report.assert_ok()
    assert [e["type"] for e in report.events][-2:] == ["error", "response.failed"]
    assert "catastrophic backtracking" in report.response["error"]["message"]


def test_typeless_message_in_a_mixed_list_is_not_dropped(client):
    # Rapid-MLX #904: a typeless {role, content} was silently dropped
    body = post(
        client,
        {"input": [{"type": "message", "role": "user", "content": "first"}, {"role": "user", "content": "second"}]},
    ).get_json()
    assert body["output"][0]["content"][0]["text"] == 'You said: "second"'


# ------------------------------------------------------------------------------------------------ streams

STREAM_CASES = {
    "text": {"input": "Count from 1 to 5."},
    "function_call": {"input": "What's the weather in Paris?", "tools": [WEATHER]},
    "two_calls": {"input": "get_weather and get_latest_sales_report", "tools": [WEATHER, SALES]},
    "incomplete": {"input": "word " * 40, "max_output_tokens": 16},
    "incomplete_call": {
        "input": "x",
        "tools": [
            {
                **WEATHER,
                "parameters": {
                    "type": "object",
                    "required": [f"p{i}" for i in range(12)],
                    "properties": {f"p{i}": {"type": "string"} for i in range(12)},
                },
            }
        ],
        "max_output_tokens": 16,
    },
    "failed": {
        "input": "x",
        "tools": [
            {
                "type": "function",
                "name": "never",
                "parameters": {"type": "object", "required": ["x"], "properties": {"x": False}},
            }
        ],
    },
}


@pytest.mark.parametrize("case", list(STREAM_CASES))
def test_streams_are_conformant_and_match_the_json_answer(client, case):
    response = post(client, {**STREAM_CASES[case], "stream": True})
    assert response.status_code == 200
    report = check_stream(response.get_data(), response.headers["Content-Type"])
    report.assert_ok()
    final = report.response
    terminal = [
        e["type"]
        for e in report.events
        if e["type"] in ("response.completed", "response.incomplete", "response.failed")
    ]
    # OpenClaw #113629 / #44972: exactly one terminal event, agreeing with the status
    assert terminal == [f"response.{final['status']}"]
    assert b"\nid:" not in response.get_data()
    assert response.headers["Cache-Control"] == "no-cache"
    if case == "failed":
        assert [e["type"] for e in report.events][-2:] == ["error", "response.failed"]
        assert final["error"]["code"] == "model_error"
        return
    plain = post(client, STREAM_CASES[case])
    check_json_response(plain.get_data(), plain.headers["Content-Type"]).assert_ok()
    assert _without_ids(plain.get_json()) == _without_ids(final)


def _without_ids(response):
    response = {k: v for k, v in response.items() if k not in ("id", "created_at", "completed_at")}
    response["output"] = [{k: v for k, v in item.items() if k not in ("id", "call_id")} for item in response["output"]]
    return response


def test_streamed_function_call_snapshot(client):
    # sglang #12653, OpenClaw #128510, butterbase #130: the streamed call is in the final output, completed
    response = post(client, {"input": "weather in Oslo", "tools": [WEATHER], "stream": True})
    events = [e.json() for e in decode(response.get_data()) if e.data != "[DONE]"]
    done = [e for e in events if e["type"] == "response.output_item.done"]
    final = events[-1]["response"]
    assert [d["item"] for d in done] == final["output"]
    assert final["output"][0]["type"] == "function_call" and final["output"][0]["status"] == "completed"


def test_a_bad_streaming_request_fails_before_the_stream(client):
    response = post(client, {"input": [{"type": "nope"}], "stream": True})
    assert response.status_code == 400 and response.mimetype == "application/json"


# ------------------------------------------------------------------------------------------------ storage


def test_store_false_keeps_nothing(client):
    body = post(client, {"input": "secret", "store": False}, {"X-Session-Key": "private"}).get_json()
    assert body["store"] is False
    assert client.get(f"/v1/responses/{body['id']}", headers=AUTH).status_code == 404
    assert client.get("/v1/sessions/private/items", headers=AUTH).get_json()["data"] == []
    response = post(client, {"previous_response_id": body["id"], "input": "again"})
    assert response.status_code == 400
    assert error_of(response)["code"] == "previous_response_not_found"


def test_previous_response_id_replays_the_conversation(client):
    # OpenClaw #37765: previous_response_id was silently ignored
    first = post(client, {"input": "Remember: papaya.", "instructions": "Be brief."}).get_json()
    second = post(client, {"previous_response_id": first["id"], "input": "What word?"}).get_json()
    assert second["previous_response_id"] == first["id"]
    assert second["usage"]["input_tokens"] > first["usage"]["input_tokens"]
    assert second["instructions"] is None  # instructions do not carry over (OpenAI semantics)


def test_deleting_an_ancestor_breaks_the_chain_with_a_clear_error(client):
    first = post(client, {"input": "one"}).get_json()
    second = post(client, {"previous_response_id": first["id"], "input": "two"}).get_json()
    assert client.delete(f"/v1/responses/{first['id']}", headers=AUTH).get_json() == {
        "id": first["id"],
        "object": "response",
        "deleted": True,
    }
    assert client.delete(f"/v1/responses/{first['id']}", headers=AUTH).status_code == 404
    response = post(client, {"previous_response_id": second["id"], "input": "three"})
    assert response.status_code == 400
    assert first["id"] in error_of(response)["message"] and "no longer stored" in error_of(response)["message"]


def test_unknown_response_is_404(client):
    for method in ("GET", "DELETE"):
        response = client.open("/v1/responses/resp_nope", method=method, headers=AUTH)
        assert response.status_code == 404 and error_of(response)["type"] == "not_found"
    assert client.get("/v1/responses/resp_nope/input_items", headers=AUTH).status_code == 404


def test_input_items_list_object_and_paging(client):
    items = [{"role": "developer", "content": "d"}] + [{"role": "user", "content": str(i)} for i in range(4)]
    created = post(client, {"input": items}).get_json()
    url = f"/v1/responses/{created['id']}/input_items"
    page = client.get(url + "?order=asc&limit=2", headers=AUTH).get_json()
    assert page["object"] == "list" and page["has_more"] is True
    assert [i["content"][0]["text"] for i in page["data"]] == ["d", "0"]
    assert all(i["id"].startswith("msg_") and i["status"] == "completed" for i in page["data"])
    rest = client.get(f"{url}?order=asc&after={page['last_id']}", headers=AUTH).get_json()
    assert [i["content"][0]["text"] for i in rest["data"]] == ["1", "2", "3"] and rest["has_more"] is False
    newest = client.get(url, headers=AUTH).get_json()  # default order: desc
    assert newest["first_id"] == rest["last_id"]
    for query in ("?limit=0", "?limit=x", "?order=up", "?after=nope"):
        assert client.get(url + query, headers=AUTH).status_code == 400


def test_item_reference_resolves_to_a_stored_item(client):
    first = post(client, {"input": "remember me"}).get_json()
    message_id = first["output"][0]["id"]
    second = post(client, {"input": [{"type": "item_reference", "id": message_id}, {"role": "user", "content": "ok"}]})
    assert second.status_code == 200
    stored = client.get(f"/v1/responses/{second.get_json()['id']}/input_items?order=asc", headers=AUTH).get_json()
    assert stored["data"][0]["id"] == message_id and stored["data"][0]["role"] == "assistant"
    missing = post(client, {"input": [{"id": "msg_unknown"}, {"role": "user", "content": "ok"}]})
    assert missing.status_code == 400
    assert (error_of(missing)["param"], error_of(missing)["code"]) == ("input[0].id", "item_not_found")


# ------------------------------------------------------------------------------------------------ sessions


def test_session_items_follow_header_then_user(client):
    post(client, {"input": "by header", "user": "ignored"}, {"X-Session-Key": "alpha"})
    post(client, {"input": "by user", "user": "bob"})
    alpha = client.get("/v1/sessions/alpha/items", headers=AUTH).get_json()
    assert [(d["source"], d["item"]["type"]) for d in alpha["data"]] == [("input", "message"), ("output", "message")]
    assert alpha["data"][0]["item"]["content"][0]["text"] == "by header"
    assert alpha["data"][0]["inspect_url"].endswith(f"/sessions/alpha#{alpha['data'][0]['response_id']}-input-0")
    bob = client.get("/v1/sessions/bob/items", headers=AUTH).get_json()
    assert bob["data"][0]["item"]["content"][0]["text"] == "by user"
    assert client.get("/v1/sessions/ignored/items", headers=AUTH).get_json()["data"] == []
    # a continuation without header or user stays in the session of the response it continues
    post(client, {"previous_response_id": bob["data"][0]["response_id"], "input": "more"})
    assert len(client.get("/v1/sessions/bob/items", headers=AUTH).get_json()["data"]) == 4
    assert client.get("/v1/sessions/alpha/items", headers={}).status_code == 401


def test_session_page_carries_items_to_the_pages(client):
    post(client, {"input": "sales now", "tools": [SALES]}, {"X-Session-Key": "team/a b"})
    html = client.get("/sessions/team/a%20b").get_data(as_text=True)
    assert html.count('action="/format"') == 2 and 'name="document"' in html
    assert html.count('action="/schema"') == 1 and 'name="instance"' in html
    assert "get_latest_sales_report" in html
    # step 2 gets the whole call and the tool it names, and shows the gate's verdict on them
    form = html[html.index('action="/schema"') :]
    fields = dict(re.findall(r'<textarea name="(\w+)" hidden>(.*?)</textarea>', form, re.S)[:2])
    instance, schema = (json.loads(html_module.unescape(fields[name])) for name in ("instance", "schema"))
    assert instance["type"] == "function_call" and json.loads(instance["arguments"]) == {"region": "apac"}
    assert schema["name"] == "get_latest_sales_report" and "parameters" in schema
    checked = client.post(
        "/schema", data={"instance": json.dumps(instance), "schema": json.dumps(schema)}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    assert re.findall(r'data-testid="reason">\s*([a-z_]+)', checked) == ["ok"]


def test_session_page_is_for_loopback_clients_only(client):
    assert client.get("/sessions/x", environ_base={"REMOTE_ADDR": "10.0.0.5"}).status_code == 403


@pytest.mark.parametrize("path", ["/sessions", "/sessions/"])
def test_the_sessions_index_lists_sessions_and_unkeyed_responses_newest_first(client, path):
    post(client, {"input": "first secret words"}, {"X-Session-Key": "older"})
    unkeyed = post(client, {"input": "no key here"}).get_json()["id"]
    post(client, {"input": "second secret words"}, {"X-Session-Key": "newer"})
    post(client, {"input": "more"}, {"X-Session-Key": "newer"})
    answer = client.get(path)
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    rows = re.findall(r'<tr data-(session|response)="([^"]+)"', html)
    assert rows == [("session", "newer"), ("response", unkeyed), ("session", "older")]
    assert 'href="/sessions/newer"' in html and f'href="/responses/{unkeyed}"' in html
    newer = html[html.index('data-session="newer"') :]
    assert re.findall(r'<td class="num">(\d+)</td>', newer)[:2] == ["2", "4"]  # responses, items
    assert "secret words" not in html and "no key here" not in html  # counts and times only


def test_a_response_without_a_session_key_has_its_page(client):
    unkeyed = post(client, {"input": "no key here", "tools": [SALES]}).get_json()["id"]
    html = client.get(f"/responses/{unkeyed}").get_data(as_text=True)
    assert f"Response <code>{unkeyed}</code>" in html and "no key here" in html
    assert 'action="/format"' in html and 'id="session-journal"' in html
    assert client.get("/responses/resp_missing").status_code == 404


@pytest.mark.parametrize("path", ["/sessions", "/sessions/", "/responses/resp_x"])
def test_the_sessions_index_and_a_responses_page_are_for_loopback_clients_only(client, path):
    assert client.get(path, environ_base={"REMOTE_ADDR": "10.0.0.5"}).status_code == 403


def test_the_sessions_index_is_bounded(client, monkeypatch):
    from webapp.web.pages import sessions

    monkeypatch.setattr(sessions, "INDEX_LINES", 2)
    for key in ("a", "b", "c"):
        post(client, {"input": "hi"}, {"X-Session-Key": key})
    html = client.get("/sessions").get_data(as_text=True)
    assert re.findall(r'<tr data-session="([^"]+)"', html) == ["c", "b"]
    assert "The newest 2 are listed." in html


def test_bad_session_header_is_refused(client):
    response = post(client, {"input": "hi"}, {"X-Session-Key": "   "})
    assert response.status_code == 400 and error_of(response)["param"] == "X-Session-Key"


# ------------------------------------------------------------------------------------------------ the store


def test_memory_database_keeps_responses_for_the_app(tmp_path):
    app = create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": ":memory:"})
    client = app.test_client()
    first = post(client, {"input": "one"}).get_json()
    assert client.get(f"/v1/responses/{first['id']}", headers=AUTH).get_json() == first
    assert post(client, {"previous_response_id": first["id"], "input": "two"}).status_code == 200


def test_concurrent_conversations_over_http(live_server):
    import threading
    import urllib.request

    def call(body):
        request = urllib.request.Request(
            live_server + "/v1/responses", json.dumps(body).encode(), {**AUTH, "Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    results: dict[int, list[dict]] = {}

    def conversation(n):
        chain = [call({"input": f"conversation {n}", "user": f"user-{n}"})]
        for turn in range(3):
            chain.append(call({"previous_response_id": chain[-1]["id"], "input": f"turn {turn}", "user": f"user-{n}"}))
        results[n] = chain

    threads = [threading.Thread(target=conversation, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == list(range(8))
    for n, chain in results.items():
        assert [r["previous_response_id"] for r in chain[1:]] == [r["id"] for r in chain[:-1]]
        request = urllib.request.Request(f"{live_server}/v1/sessions/user-{n}/items", headers=AUTH)
        with urllib.request.urlopen(request, timeout=30) as response:
            items = json.loads(response.read())["data"]
        assert len(items) == 8  # four turns: one input and one output item each
        assert items[0]["item"]["content"][0]["text"] == f"conversation {n}"


@pytest.fixture
def usual_umask():
    previous = os.umask(0o022)  # what most shells set: files 0644 unless made otherwise
    yield
    os.umask(previous)


def test_the_database_and_its_wal_and_shm_files_are_private(tmp_path, usual_umask):
    """The stored conversations are as private as the token and the secret (mode 0600), the write-ahead log and its
    index included (they were 0644), also for a database made before this rule."""
    (tmp_path / "old.sqlite3").touch(mode=0o644)
    for name in ("responses.sqlite3", "old.sqlite3"):
        app = create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": str(tmp_path / name)})
        answer = app.test_client().post("/v1/responses", json={"model": "m", "input": "keep me"}, headers=AUTH)
        assert answer.status_code == 200
        modes = {suffix: (tmp_path / (name + suffix)).stat().st_mode & 0o777 for suffix in ("", "-wal", "-shm")}
        assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}, modes
