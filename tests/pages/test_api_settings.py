"""``thinking`` and ``store`` on ``POST /api/gate`` and ``POST /api/export``: the request's own settings counted,
the options over them, bad values a 400 naming the member by its JSON Pointer (docs/targets.md, "What is read from
the request")."""

from __future__ import annotations

import json

import pytest

ENABLED = {"type": "enabled", "budget_tokens": 1024}
TOOL = {"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}


def anthropic_request(thinking=None):
    """An Anthropic request whose last assistant turn calls a tool without a thinking block first."""
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
        ],
        "tools": [TOOL],
    }
    if thinking is not None:
        request["thinking"] = thinking
    return request


def error_of(response):
    assert response.status_code == 400
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    return body["error"]


@pytest.mark.parametrize("as_text", [False, True])
def test_the_gate_counts_the_requests_thinking_for_anthropic(client, as_text):
    request = anthropic_request(ENABLED)
    journal = json.dumps(request) if as_text else request
    answer = client.post("/api/gate", json={"journal": journal, "target": "anthropic"}).get_json()
    assert answer["replayable"] is False
    assert [f["code"] for f in answer["findings"]] == ["thinking_required"]
    assert answer["settings"] == {"thinking": True, "store": None}


@pytest.mark.parametrize(
    ("thinking", "replayable"),
    [(False, True), ({"type": "disabled"}, True), (True, False), (ENABLED, False), ({"type": "adaptive"}, False)],
)
def test_the_thinking_option_overrides_the_request(client, thinking, replayable):
    body = {"journal": anthropic_request(ENABLED if replayable else {"type": "disabled"}), "target": "anthropic"}
    answer = client.post("/api/gate", json={**body, "thinking": thinking})
    assert answer.status_code == 200
    assert answer.get_json()["replayable"] is replayable


def test_the_store_option_counts_for_openai_o3(client):
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": []},
    ]
    body = {"journal": items, "from": "openai", "target": "openai"}
    assert client.post("/api/gate", json=body).get_json()["replayable"] is True
    answer = client.post("/api/gate", json={**body, "store": False}).get_json()
    assert "reasoning_not_stored" in [f["code"] for f in answer["findings"]]
    assert answer["settings"] == {"thinking": None, "store": False}


@pytest.mark.parametrize("route", ["/api/gate", "/api/export"])
@pytest.mark.parametrize(
    ("member", "value", "pointer", "code"),
    [
        ("thinking", "yes", "/thinking", "invalid_type"),
        ("thinking", {"type": "on"}, "/thinking/type", "invalid_value"),
        ("thinking", {"type": "enabled"}, "/thinking/budget_tokens", "invalid_value"),
        ("thinking", {"type": "enabled", "budget_tokens": 100}, "/thinking/budget_tokens", "invalid_value"),
        ("thinking", {"type": "disabled", "budget": 1}, "/thinking/budget", "invalid_value"),
        ("store", "false", "/store", "invalid_type"),
    ],
)
def test_a_bad_setting_is_a_400_naming_it_by_its_pointer(client, route, member, value, pointer, code):
    error = error_of(client.post(route, json={"journal": anthropic_request(), member: value}))
    assert (error["param"], error["code"]) == (member, code)
    assert error["message"].startswith(f"{pointer}: ")


def test_settings_with_one_item_are_a_400(client):
    item = {"type": "message", "role": "user", "content": "hi"}
    error = error_of(client.post("/api/gate", json={"item": item, "store": False}))
    assert (error["param"], error["code"]) == ("store", "invalid_value")


def test_the_export_offers_the_whole_request_and_notes_what_it_leaves_out(client):
    request = anthropic_request(ENABLED)
    same = client.post("/api/export", json={"journal": request, "target": "anthropic", "thinking": False}).get_json()
    assert same["replayable"] is True
    assert {k: same["body"][k] for k in ("model", "max_tokens", "thinking")} == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "thinking": {"type": "disabled"},
    }
    other = client.post("/api/export", json={"journal": request, "target": "gemini"}).get_json()
    assert not {"model", "max_tokens", "thinking"} & set(other["body"])
    left = [(n["pointer"], n["index"]) for n in other["notes"] if n["code"] == "setting_left_out"]
    assert left == [("/model", None), ("/max_tokens", None), ("/thinking", None)]
