"""``POST /api/convert`` with Flask's test client."""

from __future__ import annotations

import json

import pytest
from support import REPO, TESTS

SAMPLES = TESTS / "data" / "samples"
# the provider conversations ship with the app (the journal page's examples)
CONVERSATIONS_DIR = REPO / "webapp" / "examples" / "conversations"


@pytest.mark.parametrize(
    "name, source",
    [
        ("chat-completions.json", "chat_completions"),
        ("anthropic-messages.json", "anthropic"),
        ("gemini-contents.json", "gemini"),
    ],
)
def test_a_provider_conversation_as_parsed_json(client, name, source):
    journal = json.loads((CONVERSATIONS_DIR / name).read_text())
    answer = client.post("/api/convert", json={"journal": journal})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["source"] == source and body["shape"] == "request"
    assert [item["type"] for item in body["items"]].count("function_call") == 2
    assert len(body["origins"]) == len(body["items"])
    assert [t["name"] for t in body["tools"]] == ["get_latest_sales_report", "get_weather"]


def test_text_and_a_forced_source(client):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    body = client.post("/api/convert", json={"journal": text, "from": "open_responses"}).get_json()
    assert body["source"] == "open_responses" and body["origins"][0] == "line 1" and len(body["items"]) == 9


def test_the_cut_off_response_says_why(client):
    journal = json.loads((CONVERSATIONS_DIR / "chat-completions-truncated.json").read_text())
    body = client.post("/api/convert", json={"journal": journal}).get_json()
    assert body["items"][0]["status"] == "incomplete"
    assert body["notes"] == [
        {
            "index": 0,
            "path": "choices[0].message.tool_calls[0]",
            "pointer": "/choices/0/message/tool_calls/0",
            "code": "cut_off",
            "message": body["notes"][0]["message"],
        }
    ]


@pytest.mark.parametrize(
    "payload, param, code, words",
    [
        ({}, "journal", "missing_required_parameter", "journal is required"),
        ({"journal": [], "from": "cohere"}, "from", "invalid_value", "from must be"),
        ({"journal": '{"a":'}, "journal", "unusable_journal", "line 1, column 6"),
        ({"journal": {"foo": 1}}, "journal", "unusable_journal", "not a conversation"),
        (
            {"journal": {"messages": [{"role": "user", "content": "x"}, 7]}, "from": "anthropic"},
            "journal",
            "unusable_journal",
            "journal/messages/1: ",
        ),
    ],
)
def test_unusable_requests_name_the_place(client, payload, param, code, words):
    answer = client.post("/api/convert", json=payload)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert (error["param"], error["code"]) == (param, code) and words in error["message"]


def test_a_body_that_is_not_an_object(client):
    answer = client.post("/api/convert", json=[1])
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "invalid_body"


def test_the_gate_reads_another_providers_conversation_and_names_its_places(client):
    journal = json.loads((CONVERSATIONS_DIR / "chat-completions-truncated.json").read_text())
    tools = json.loads((SAMPLES / "tools.json").read_text())
    body = client.post("/api/gate", json={"journal": journal, "tools": tools}).get_json()
    assert body["source"] == "chat_completions" and not body["replayable"]
    (item,) = body["items"]
    assert (item["reason"], item["origin"]) == ("status", "choices[0].message.tool_calls[0]")
    assert body["notes"][0]["code"] == "cut_off"


@pytest.mark.parametrize("name", ["chat-completions.json", "anthropic-messages.json", "gemini-contents.json"])
def test_the_gate_finds_each_provider_sample_replayable_as_text_too(client, name):
    text = (CONVERSATIONS_DIR / name).read_text()
    body = client.post("/api/gate", json={"journal": text}).get_json()
    assert body["replayable"] and body["source"] != "open_responses"
    assert all(item["origin"] for item in body["items"])


def test_gate_findings_of_a_converted_journal_point_at_the_source(client):
    messages = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
        {"role": "tool", "tool_call_id": "c1", "content": "again"},
    ]
    body = client.post("/api/gate", json={"journal": messages, "from": "chat_completions"}).get_json()
    duplicate = next(f for f in body["findings"] if f["code"] == "duplicate_output")
    assert duplicate["origin"] == "[2]" and "(messages" not in duplicate["message"]
    assert "function_call_output 2 ([2])" in duplicate["message"]


def test_open_responses_journals_are_answered_as_before(client):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    body = client.post("/api/gate", json={"journal": text}).get_json()
    # Read as it is (no origins, no notes); its source is said: a native OpenAI journal (issue 18).
    assert body["source"] == "openai" and "origin" not in body["items"][0] and "notes" not in body
    bad = client.post("/api/gate", json={"journal": [], "from": "cohere"}).get_json()["error"]
    assert (bad["param"], bad["code"]) == ("from", "invalid_value")
