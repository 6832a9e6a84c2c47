"""``POST /api/export``: the body a target accepts, after the gate's plan for that target, with Flask's test client."""

from __future__ import annotations

import json

import pytest
from support import REPO

CONVERSATIONS_DIR = REPO / "webapp" / "examples" / "conversations"
ANTHROPIC = (CONVERSATIONS_DIR / "anthropic-messages.json").read_text()
NATIVE_OPENAI = [
    {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "SELECT 1"},
    {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"},
    {"type": "message", "role": "user", "content": "and now?"},
]
BODY_KEYS = {
    "portable": {"input"},
    "openai": {"input"},
    "anthropic": {"messages"},
    "gemini": {"contents"},
    "chat_completions": {"messages"},
}


def thinking_blocks(messages: list[dict]) -> list[dict]:
    return [
        block
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") in ("thinking", "redacted_thinking")
    ]


@pytest.mark.parametrize("target", sorted(BODY_KEYS))
def test_every_target_gets_the_body_its_api_takes(client, target):
    answer = client.post("/api/export", json={"journal": ANTHROPIC, "target": target})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["target"] == target
    assert BODY_KEYS[target] <= set(body["body"])
    assert "tools" in body["body"]  # the request's own tools go along


def test_the_same_provider_gets_its_signed_thinking_back_unchanged(client):
    request = json.loads(ANTHROPIC)
    sent = thinking_blocks(request["messages"])
    assert sent, "the example holds signed thinking"
    answer = client.post("/api/export", json={"journal": ANTHROPIC, "target": "anthropic"}).get_json()
    assert answer["replayable"] is True
    assert thinking_blocks(answer["body"]["messages"]) == sent
    assert answer["left_out"] == []


def test_another_provider_gets_no_signature_and_is_told_what_was_left_out(client):
    answer = client.post("/api/export", json={"journal": ANTHROPIC, "target": "openai"}).get_json()
    text = json.dumps(answer["body"])
    assert "signature" not in text and "thinking" not in text
    codes = {entry["code"] for entry in answer["left_out"]}
    assert "foreign_reasoning" in codes
    assert set(answer["left_out_notes"]) >= codes  # each code used has its words


def test_native_openai_items_go_to_openai_only(client):
    portable = client.post("/api/export", json={"journal": NATIVE_OPENAI, "target": "portable"}).get_json()
    assert portable["replayable"] is False
    assert [item["type"] for item in portable["body"]["input"]] == ["message"]
    assert [entry["index"] for entry in portable["left_out"] if entry["pointer"] in ("/0", "/1")] == [0, 1]
    sql = {
        "type": "custom",
        "name": "sql",
        "format": {"type": "grammar", "syntax": "regex", "definition": "^SELECT .+$"},
    }
    body = {"journal": NATIVE_OPENAI, "target": "openai", "tools": [sql]}
    openai = client.post("/api/export", json=body).get_json()
    assert openai["replayable"] is True and openai["left_out"] == []
    assert [item["type"] for item in openai["body"]["input"]] == [item["type"] for item in NATIVE_OPENAI]


def test_tools_given_are_written_in_the_targets_shape(client):
    tools = [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}]
    answer = client.post(
        "/api/export", json={"journal": NATIVE_OPENAI[2:], "target": "anthropic", "tools": tools}
    ).get_json()
    assert [tool["name"] for tool in answer["body"]["tools"]] == ["lookup"]
    assert answer["body"]["tools"][0]["input_schema"] == {"type": "object"}


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"target": "anthropic"}, "journal", "missing_required_parameter"),
        ({"journal": [], "target": "bedrock"}, "target", "invalid_value"),
        ({"journal": [], "target": 3}, "target", "invalid_value"),
        ({"journal": 3}, "journal", "invalid_type"),
        ({"journal": [], "from": "cohere"}, "from", "invalid_value"),
        ({"journal": [], "tools": {}}, "tools", "invalid_type"),
        ({"journal": "[{", "target": "openai"}, "journal", "invalid_journal"),
        ({"journal": [], "tool": []}, "tool", "unknown_parameter"),
    ],
)
def test_bad_input_is_a_400_naming_the_member(client, body, param, code):
    answer = client.post("/api/export", json=body)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert (error["param"], error["code"]) == (param, code)


def test_the_answer_gives_the_repair_as_a_json_patch_and_no_body_with_a_reason(client):
    import copy

    import jsonpatch

    from webapp.core.convert import convert

    items = convert(json.loads(ANTHROPIC)).items
    answer = client.post("/api/export", json={"journal": ANTHROPIC, "target": "gemini"}).get_json()
    assert answer["reason"] is None and answer["body"] is not None
    assert [(r["code"], r["op"]) for r in answer["repairs"]] == [("thought_signature_placeholder", "add")]
    kept = jsonpatch.apply_patch(copy.deepcopy(items), answer["patch"])
    assert len(kept) == len(items) - 1 and kept[3]["gemini:thought_signature"] == "skip_thought_signature_validator"
    unusable = [
        {"type": "function", "name": "f", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/no"}}}}
    ]
    refused = client.post("/api/export", json={"journal": ANTHROPIC, "target": "gemini", "tools": unusable})
    assert refused.status_code == 200
    assert refused.get_json()["body"] is None and "tool_schema_invalid" in refused.get_json()["reason"]
