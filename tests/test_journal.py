"""webapp.journal: every accepted journal shape is detected, and a bad one is named precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp.journal import Journal, JournalError, load_journal

SAMPLES = Path(__file__).resolve().parent / "data" / "samples"
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "t", "arguments": "{}",
        "status": "completed"}
TOOLS = [{"type": "function", "name": "t", "parameters": {"type": "object"}}]


@pytest.mark.parametrize(("source", "shape", "count"), [
    ([CALL, CALL], "array", 2),
    (json.dumps([CALL]), "array", 1),
    (json.dumps([CALL]).encode("utf-8"), "array", 1),
    ("\ufeff" + json.dumps([CALL]), "array", 1),
    (json.dumps(CALL) + "\n" + json.dumps(CALL) + "\n", "jsonl", 2),
    (json.dumps(CALL) + "\r\n\r\n" + json.dumps(CALL), "jsonl", 2),
    ({"object": "response", "output": [CALL], "tools": TOOLS}, "response", 1),
    ({"id": "resp_1", "output": []}, "response", 0),
    ({"model": "m", "input": [CALL, CALL], "tools": TOOLS}, "request", 2),
    ({"model": "m", "input": "hello"}, "request", 1),
    ({"model": "m", "input": None}, "request", 0),
    (CALL, "item", 1),
    ([], "array", 0),
])
def test_shapes(source, shape, count):
    journal = load_journal(source)
    assert isinstance(journal, Journal)
    assert journal.shape == shape
    assert len(journal.items) == count


def test_string_input_is_one_user_message():
    journal = load_journal({"input": "What's the weather?", "tools": TOOLS, "tool_choice": "required"})
    assert journal.items == [{"type": "message", "role": "user", "content": "What's the weather?"}]
    assert journal.tools == TOOLS and journal.tool_choice == "required"


def test_response_keeps_tools_and_tool_choice():
    choice = {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "t"}]}
    journal = load_journal(json.dumps({"object": "response", "output": [CALL], "tools": TOOLS,
                                       "tool_choice": choice}))
    assert journal.tools == TOOLS and journal.tool_choice == choice


def test_where_names_the_place_of_an_item():
    text = "\n" + json.dumps(CALL) + "\n\n" + json.dumps(CALL)
    journal = load_journal(text)
    assert journal.lines == [2, 4]
    assert journal.where(1) == "line 4"
    assert load_journal({"output": [CALL]}).where(0) == "output[0]"
    assert load_journal({"input": [CALL, CALL]}).where(1) == "input[1]"
    assert load_journal([CALL]).where(0) == "[0]"


@pytest.mark.parametrize(("source", "expected", "line", "column"), [
    ("[" + json.dumps(CALL) + ",]", "line 1, column", 1, None),
    ('{"input": [1,\n  2,,]}', "line 2, column 5", 2, 5),
    ("", "empty", 1, 1),
    (json.dumps(CALL) + "\n{\"type\": \"message\",\n", "JSON Lines, line 2, column 20", 2, 20),
    (json.dumps(CALL) + "\n[1, 2]\n", "JSON Lines, line 2: each line must be one item", 2, 1),
    (json.dumps(CALL) + "\n" + json.dumps(CALL) + " trailing\n", "JSON Lines, line 2", 2, None),
])
def test_text_errors_name_line_and_column(source, expected, line, column):
    with pytest.raises(JournalError) as caught:
        load_journal(source)
    assert expected in caught.value.message
    assert caught.value.line == line
    if column is not None:
        assert caught.value.column == column


@pytest.mark.parametrize(("source", "pointer", "words"), [
    ({"output": {"type": "message"}}, "/output", "must be an array"),
    ({"input": 5}, "/input", "string or an array"),
    ({"input": [], "tools": {"type": "function"}}, "/tools", "array of tool definitions"),
    ({"messages": [{"role": "user", "content": "hi"}]}, "/messages", "Chat Completions request"),
    ({"hello": "world"}, "", "not a journal"),
    (42, "", "not a number"),
    ("42", "", "not a number"),
])
def test_shape_errors_name_the_pointer(source, pointer, words):
    with pytest.raises(JournalError) as caught:
        load_journal(source)
    assert caught.value.pointer == pointer
    assert words in caught.value.message


def test_deep_text_is_an_error_not_a_crash():
    with pytest.raises(JournalError) as caught:
        load_journal("[" * 5000 + "]" * 5000)
    assert caught.value.code == "too_deep"


def test_the_samples_load():
    jsonl = load_journal((SAMPLES / "journal-openai-responses.jsonl").read_bytes())
    assert jsonl.shape == "jsonl" and len(jsonl.items) == 9
    response = load_journal((SAMPLES / "response-incomplete.json").read_text())
    assert response.shape == "response" and response.items[0]["status"] == "incomplete"
