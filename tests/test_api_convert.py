"""``POST /api/convert`` with Flask's test client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "data" / "samples"
# the provider conversations ship with the app (the journal page's examples)
CONVERSATIONS_DIR = Path(__file__).resolve().parent.parent / "webapp" / "examples" / "conversations"


@pytest.mark.parametrize("name, source", [("chat-completions.json", "chat_completions"),
                                          ("anthropic-messages.json", "anthropic"),
                                          ("gemini-contents.json", "gemini")])
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
    assert body["notes"] == [{"index": 0, "path": "choices[0].message.tool_calls[0]",
                              "pointer": "/choices/0/message/tool_calls/0", "code": "cut_off",
                              "message": body["notes"][0]["message"]}]


@pytest.mark.parametrize("payload, param, code, words", [
    ({}, "journal", "missing_required_parameter", "journal is required"),
    ({"journal": [], "from": "cohere"}, "from", "invalid_value", "from must be"),
    ({"journal": '{"a":'}, "journal", "unusable_journal", "line 1, column 6"),
    ({"journal": {"foo": 1}}, "journal", "unusable_journal", "not a conversation"),
    ({"journal": {"messages": [{"role": "user", "content": "x"}, 7]}, "from": "anthropic"}, "journal",
     "unusable_journal", "journal/messages/1: "),
])
def test_unusable_requests_name_the_place(client, payload, param, code, words):
    answer = client.post("/api/convert", json=payload)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert (error["param"], error["code"]) == (param, code) and words in error["message"]


def test_a_body_that_is_not_an_object(client):
    answer = client.post("/api/convert", json=[1])
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "invalid_body"
