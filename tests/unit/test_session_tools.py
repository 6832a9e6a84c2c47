"""The session tools (``webapp/core/session_tools.py``) and ``POST /api/tools``: which function tools pasted texts
define and which function each pasted call names, decided on the server for static/state/tools.js."""

from __future__ import annotations

import json

from support import REPO

from webapp.core.examples import SCHEMA as EXAMPLES
from webapp.core.session_tools import find_tools

SAMPLES = REPO / "webapp" / "examples" / "conversations"
_, FC_009, _ = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def test_tools_and_calls_of_each_text():
    chat_call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    found = find_tools([json.dumps(FC_009), json.dumps([TOOL, WEATHER]), "", "{not json", json.dumps(chat_call)])
    assert list(found.tools) == ["get_latest_sales_report", "get_weather"]
    assert found.tools["get_weather"] == WEATHER  # the whole definition as pasted, nested shape kept
    assert found.calls == ["get_latest_sales_report", None, None, None, "get_weather"]


def test_anthropic_and_gemini_tools_are_kept_as_the_open_responses_tools_they_convert_to():
    for name in ("anthropic-messages.json", "gemini-contents.json"):
        found = find_tools([(SAMPLES / name).read_text()])
        assert list(found.tools) == ["get_latest_sales_report", "get_weather"], name
        tool = found.tools["get_weather"]
        assert tool["type"] == "function" and tool["name"] == "get_weather" and tool["parameters"]["type"] == "object"
    one = {"name": "lookup", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    gemini = {"functionDeclarations": [{"name": "find", "parameters": {"type": "OBJECT"}}]}
    found = find_tools([json.dumps(one), json.dumps([gemini]), json.dumps({"a": 1}), "[1, 2]"])
    assert found.tools["lookup"]["parameters"] == one["input_schema"]
    assert list(found.tools) == ["lookup", "find"]


def test_a_journal_in_json_lines_and_a_request_body_hold_tools_too():
    journal = "\n".join([json.dumps(FC_009), "{broken", json.dumps({"tools": [TOOL]})])
    found = find_tools([journal, json.dumps({"model": "m", "input": [], "tools": [WEATHER]})])
    assert list(found.tools) == ["get_latest_sales_report", "get_weather"]
    assert found.calls == [None, None]  # a journal is no single call


def test_the_last_definition_of_a_name_is_kept():
    newer = {**TOOL, "description": "newer"}
    found = find_tools([json.dumps(TOOL), json.dumps(newer)])
    assert found.tools == {"get_latest_sales_report": newer}


def test_a_provider_conversation_with_tools_gives_them():
    text = (SAMPLES / "chat-completions.json").read_text()
    assert set(find_tools([text]).tools) >= {"get_latest_sales_report", "get_weather"}


def test_the_api_answers_tools_and_calls(client):
    response = client.post("/api/tools", json={"texts": [json.dumps(FC_009), json.dumps(TOOL)]})
    assert response.status_code == 200
    assert response.json == {
        "tools": [{"name": "get_latest_sales_report", "definition": TOOL}],
        "calls": ["get_latest_sales_report", None],
    }


def test_the_api_names_a_bad_request(client):
    for body, words in [
        ([], "must be a JSON object"),
        ({}, "texts is required"),
        ({"texts": "x"}, "not a string"),
        ({"texts": ["a", 1]}, "a list holding a number"),
    ]:
        response = client.post("/api/tools", json=body)
        assert response.status_code == 400 and words in response.json["error"]["message"]
    assert client.post("/api/tools", data="{}", content_type="text/plain").status_code == 415
