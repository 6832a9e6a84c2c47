"""webapp.core.journal: every accepted journal shape is detected, and a bad one is named precisely."""

from __future__ import annotations

import json

import pytest
from support import TESTS

from webapp.core.journal import Duplicate, Journal, JournalError, from_value, load_journal
from webapp.core.json import parse

SAMPLES = TESTS / "data" / "samples"
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "t", "arguments": "{}", "status": "completed"}
TOOLS = [{"type": "function", "name": "t", "parameters": {"type": "object"}}]


@pytest.mark.parametrize(
    ("source", "shape", "count"),
    [
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
    ],
)
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
    journal = load_journal(json.dumps({"object": "response", "output": [CALL], "tools": TOOLS, "tool_choice": choice}))
    assert journal.tools == TOOLS and journal.tool_choice == choice


def test_where_names_the_place_of_an_item():
    text = "\n" + json.dumps(CALL) + "\n\n" + json.dumps(CALL)
    journal = load_journal(text)
    assert journal.lines == [2, 4]
    assert journal.where(1) == "line 4"
    assert load_journal({"output": [CALL]}).where(0) == "output[0]"
    assert load_journal({"input": [CALL, CALL]}).where(1) == "input[1]"
    assert load_journal([CALL]).where(0) == "[0]"


@pytest.mark.parametrize(
    ("source", "expected", "line", "column"),
    [
        ("[" + json.dumps(CALL) + ",]", "line 1, column", 1, None),
        ('{"input": [1,\n  2,,]}', "line 2, column 5", 2, 5),
        ("", "empty", 1, 1),
        (json.dumps(CALL) + '\n{"type": "message",\n', "JSON Lines, line 2, column 20", 2, 20),
        (json.dumps(CALL) + "\n[1, 2]\n", "JSON Lines, line 2: each line must be one item", 2, 1),
        (json.dumps(CALL) + "\n" + json.dumps(CALL) + " trailing\n", "JSON Lines, line 2", 2, None),
    ],
)
def test_text_errors_name_line_and_column(source, expected, line, column):
    with pytest.raises(JournalError) as caught:
        load_journal(source)
    assert expected in caught.value.message
    assert caught.value.line == line
    if column is not None:
        assert caught.value.column == column


@pytest.mark.parametrize(
    ("source", "pointer", "words"),
    [
        ({"output": {"type": "message"}}, "/output", "must be an array"),
        ({"input": 5}, "/input", "string or an array"),
        ({"input": [], "tools": {"type": "function"}}, "/tools", "array of tool definitions"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "/messages", "Chat Completions request"),
        ({"hello": "world"}, "", "not a journal"),
        (42, "", "not a number"),
        ("42", "", "not a number"),
    ],
)
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


AMBIGUOUS = (
    '{"type":"openai:x","type":"function_call","call_id":"c1","name":"t","arguments":"{}",'
    '"status":"in_progress","status":"completed"}'
)


def place(text: str, marker: str) -> tuple[int, int]:
    """1-based line and column where ``marker`` (unique in ``text``) starts."""
    at = text.index(marker)
    assert text.count(marker) == 1
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


SECOND_TYPE, SECOND_STATUS = '"type":"function_call"', '"status":"completed"'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[" + AMBIGUOUS + "]", [(0, "/0/type", SECOND_TYPE), (0, "/0/status", SECOND_STATUS)]),
        (AMBIGUOUS, [(0, "/type", SECOND_TYPE), (0, "/status", SECOND_STATUS)]),
        (
            '{"type":"message","role":"user","content":"hi"}\n' + AMBIGUOUS,
            [(1, "/type", SECOND_TYPE), (1, "/status", SECOND_STATUS)],
        ),
        (
            '{"object":"response","output":[{"type":"message"},' + AMBIGUOUS + '],"object" :"response"}',
            [
                (1, "/output/1/type", SECOND_TYPE),
                (1, "/output/1/status", SECOND_STATUS),
                (None, "/object", '"object" :'),
            ],
        ),
        (
            '{"input":[{"type":"message","content":[{"type":"input_text","text":"a","text":"b"}]}],'
            '"tools":[{"type":"function","name":"t","parameters":{"type":"object","type":"string"}}]}',
            [(0, "/input/0/content/0/text", '"text":"b"'), (None, "/tools/0/parameters/type", '"type":"string"')],
        ),
        (json.dumps([CALL]), []),
    ],
)
def test_member_names_given_twice_are_kept_with_their_item_and_place(text, expected):
    # A parser keeping the first value reads another item (namespaced, in progress): the gate must see them.
    journal = load_journal(text)
    assert [(d.index, d.pointer, d.line, d.column) for d in journal.duplicates] == [
        (index, pointer, *place(text, marker)) for index, pointer, marker in expected
    ]
    for duplicate in journal.duplicates:
        assert isinstance(duplicate, Duplicate) and duplicate.message.startswith("Duplicate member name")


def test_duplicates_of_a_value_parsed_from_a_bigger_text_keep_their_place_in_it():
    body = '{"items":[{"type":"message"},' + AMBIGUOUS + '],"tools":[],"tools":[]}'
    document = parse(body)
    journal = from_value(document.value["items"], document.warnings, "/items")
    assert [(d.index, d.pointer) for d in journal.duplicates] == [(1, "/items/1/type"), (1, "/items/1/status")]
