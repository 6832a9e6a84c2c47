"""A parse error inside an ``arguments`` string placed in the pasted text (issue 11) on Format, Diff and Journal,
through the one string map of :mod:`webapp.core.json.locate` (escapes count as written)."""

from __future__ import annotations

import json

from webapp.core.diff_page import diff_page
from webapp.core.format_page import format_document
from webapp.core.journal_check import check_conversation
from webapp.core.json import in_string, parse

CUT = {"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"é\\n": "ap', "status": "completed"}
LINE = json.dumps(CUT)  # the string's escapes: \" is 2 characters, \\n 3, é 6 (\u00e9)
END = LINE.index('"ap"') + 4  # 1-based column of the closing quote of "arguments"


def test_in_string_maps_through_escapes_and_a_records_line():
    document = parse(LINE)
    assert in_string(document, "/arguments", CUT["arguments"], 1, 1) == (1, LINE.index('"{') + 2)
    assert in_string(document, "/arguments", CUT["arguments"], 1, 99, first_line=3) == (3, END)


def test_format_places_the_error_of_each_json_lines_record():
    outcome = format_document(LINE + "\n" + LINE + "\n")
    assert [item.arguments_at for item in outcome.inspection.items] == [(1, END), (2, END)]


def test_diff_places_a_journal_sides_arguments_parse():
    right = LINE + "\n" + json.dumps(dict(CUT, call_id="d", arguments="{}")) + "\n" + LINE.replace('"c"', '"e"')
    page = diff_page(json.dumps([dict(CUT, arguments="{}")]), right)
    assert [(r.code, r.at) for r in page.verdicts[1].refusals] == [
        ("arguments_parse", (1, END)),
        ("arguments_parse", (3, END)),
    ]


def test_journal_rows_place_it_for_open_responses_items_only():
    check = check_conversation(json.dumps({"type": "message", "role": "user", "content": "hi"}) + "\n" + LINE)
    assert [row.message_at for row in check.rows] == [None, (2, END)]
    chat = {
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": "x'}}],
            }
        ]
    }
    rows = check_conversation(json.dumps(chat)).rows
    assert [(row.reason, row.message_at) for row in rows if row.type == "function_call"] == [("arguments_parse", None)]
