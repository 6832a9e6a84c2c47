"""Diff sides in other shapes: JSON Lines (compared record by record) and "compare as Open Responses" (each side
converted from its provider first)."""

from __future__ import annotations

import itertools
import json

import pytest
from support import TESTS

from webapp.core.pages import diff as diff_page
from webapp.core.pages.diff import PageOptions, patch_download

SAME_CALL = sorted((TESTS / "data" / "samples" / "same-call").glob("*.json"))


@pytest.mark.parametrize("left, right", list(itertools.combinations(SAME_CALL, 2)), ids=lambda p: p.stem)
def test_the_same_call_from_two_providers_differs_only_in_its_ids(left, right):
    page = diff_page.build(left.read_text(), right.read_text(), PageOptions(as_items=True))
    assert [s.error for s in page.sides] == [None, None]
    # the call's id and item id are each provider's own (Open Responses items carry an id the others lack; a Gemini
    # call without one says its call_id was made up, for the Gemini writer: "gemini:call_id_generated")
    ids = {"/call_id", "/id", "/gemini:call_id_generated"}
    assert {change.left or change.right for change in page.result.changes} <= ids
    assert [v.label for v in page.verdicts] == ["not checked", "not checked"]
    as_pasted = diff_page.build(left.read_text(), right.read_text())
    assert len(as_pasted.result.changes) > len(page.result.changes) or left.stem.startswith("open-responses")


def test_converted_sides_say_what_they_were_and_place_no_positions():
    chat = json.dumps(
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
        }
    )
    claude = json.dumps({"type": "tool_use", "id": "c", "name": "f", "input": {"a": 2}})
    page = diff_page.build(chat, claude, PageOptions(as_items=True))
    assert [s.conversion.source for s in page.sides] == ["chat_completions", "anthropic"]
    assert [(r.left, r.left_at) for r in page.rows] == [("/arguments", None)]
    patch = json.loads(patch_download(chat, claude, PageOptions(as_items=True)))
    assert patch == [{"op": "replace", "path": "/arguments", "value": '{"a":2}'}]


def test_a_side_that_is_no_conversation_is_an_error_naming_it():
    page = diff_page.build("[1, 2]", "{}", PageOptions(as_items=True))
    assert page.result is None and "not a conversation" in page.sides[0].error.message


def test_json_lines_sides_are_compared_record_by_record_with_their_lines():
    left = (
        '{"type": "message", "role": "user", "content": "a"}\n\n{"type": "function_call", "call_id": "c", '
        '"name": "f", "arguments": "{}", "status": "completed"}\n'
    )
    right = left.replace('"status": "completed"', '"status": "incomplete"')
    page = diff_page.build(left, right)
    assert [s.jsonl for s in page.sides] == [True, True]
    assert [(c.kind, c.left) for c in page.result.changes] == [("changed", "/1/status")]
    assert page.rows[0].left_at[0] == 3  # the record's own line
    assert any("status" in b.message for b in page.result.blockers)


def test_json_lines_places_on_the_first_record_line_are_its_own_columns():
    # The sides are compared as one array, "[" put before the first record: its columns were one off.
    left = '\n{"a": 1, "b": 2}\n{"a": 3}\n'
    right = '\n{"a": 1, "b": 5}\n{"a": 4}\n'
    page = diff_page.build(left, right)
    assert [(r.left, r.left_at, r.right_at) for r in page.rows] == [
        ("/0/b", (2, 10), (2, 10)),
        ("/1/a", (3, 2), (3, 2)),
    ]  # where each member starts: its name
    assert left.splitlines()[1][10 - 1 :].startswith('"b"') and left.splitlines()[2][2 - 1 :].startswith('"a"')


def test_a_bad_json_lines_record_names_its_line():
    page = diff_page.build('{"a": 1}\n{"a": }\n', '{"a": 1}')
    assert page.result is None and (page.sides[0].error.line, page.sides[0].error.column) == (2, 7)


def test_the_page_takes_the_option(client):
    chat = json.dumps(
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        }
    )
    claude = json.dumps({"type": "tool_use", "id": "c", "name": "f", "input": {}})
    body = client.post(
        "/diff", data={"left": chat, "right": claude, "as_items": "on"}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    assert "converted from chat_completions" in body and "no changes" in body
