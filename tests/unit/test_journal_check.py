"""The journal step's model (``webapp/core/pages/journal.py``): pure, no app."""

from __future__ import annotations

import json

from support import REPO, TESTS

from webapp.core.journal.tools import tools_text
from webapp.core.pages import journal as journal_page

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS_DIR = REPO / "webapp" / "examples" / "conversations"
TOOLS = (SAMPLES / "tools.json").read_text()
CALL = {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"location":"Paris"}'}


def jsonl(*items) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def kept(check) -> list[dict]:
    """What the page's JSON Lines download holds: the items the gate's plan sends."""
    answer = check.body()
    assert answer is not None and answer.body is not None, answer and answer.reason
    return [json.loads(line) for line in check.jsonl(answer).splitlines()]


def test_the_sample_journal_leaves_out_sealed_reasoning_and_the_namespaced_item():
    check = journal_page.build((SAMPLES / "journal-openai-responses.jsonl").read_text(), tools=TOOLS)
    assert check.error is None and not check.replayable and check.tools_origin == "pasted"
    assert check.types["function_call"] == 2 and check.labels["namespaced"] == 1
    whole = [(x.index, x.pointer, x.code) for x in check.plan.left_out if x.pointer == f"/{x.index}"]
    assert whole == [(2, "/2", "foreign_reasoning"), (8, "/8", "provider_item")]
    exported = kept(check)
    assert [item["type"] for item in exported] == [
        "message",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
    ]


def test_refused_calls_and_their_outputs_are_left_out_with_orphans():
    text = jsonl(
        {**CALL, "status": "incomplete", "arguments": '{"loc'},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
        {"type": "function_call_output", "call_id": "nobody", "output": "y"},
        {**CALL, "call_id": "c2", "status": "completed"},
        {"type": "function_call_output", "call_id": "c2", "output": "ok"},
    )
    check = journal_page.build(text, tools=TOOLS)
    assert {code for f, _ in check.findings for code in [f.code]} >= {"output_for_unfinished_call", "orphan_output"}
    assert [(x.index, x.code) for x in check.plan.left_out] == [(0, "refused"), (1, "refused"), (2, "refused")]
    assert [item["call_id"] for item in kept(check)] == ["c2", "c2"]


def test_statusless_calls_keep_the_articles_verdict_and_are_exported_only_by_choice():
    text = jsonl(
        CALL, {"type": "function_call_output", "call_id": "c1", "output": "sunny"}, {**CALL, "call_id": "c9"}
    )  # no output: never completed, even by choice
    check = journal_page.build(text, tools=TOOLS)
    assert check.statusless == [0]
    assert check.rows[0].reason == "status" and check.rows[0].blocks
    assert check.plan.kept == []
    chosen = journal_page.build(text, tools=TOOLS, complete_statusless=True)
    assert [(r.index, r.code) for r in chosen.plan.repairs] == [(0, "status_completed")]
    assert [(item["call_id"], item.get("status")) for item in kept(chosen)] == [
        ("c1", "completed"),
        ("c1", None),
    ]
    assert [x.index for x in chosen.plan.left_out] == [2]
    assert chosen.rows[0].reason == "status"  # the table keeps the article's verdict


def test_an_output_before_a_statusless_call_vouches_for_nothing():
    """The gate's one rule (webapp.core.gate.vouched_calls), as /v1/responses applies it: the output must come after
    the call. Before it, the output answers no earlier call (orphan_output) and the call stays unfinished."""
    text = jsonl({"type": "function_call_output", "call_id": "c1", "output": "sunny"}, CALL)
    check = journal_page.build(text, tools=TOOLS)
    assert check.statusless == [] and "orphan_output" in {f.code for f, _ in check.findings}
    chosen = journal_page.build(text, tools=TOOLS, complete_statusless=True)
    assert chosen.plan.repairs == [] and chosen.plan.kept == []
    assert [(x.index, x.code) for x in chosen.plan.left_out] == [(0, "refused"), (1, "refused")]


def test_a_statusless_call_completed_by_choice_still_meets_its_schema():
    text = jsonl(
        {**CALL, "arguments": '{"location": 3}'}, {"type": "function_call_output", "call_id": "c1", "output": "?"}
    )
    chosen = journal_page.build(text, tools=TOOLS, complete_statusless=True)
    assert chosen.plan.kept == [] and chosen.plan.left_out[0].code == "refused"
    assert chosen.report.items[0].reason == "status"  # the table keeps the article's verdict; the plan judged again


def test_only_blocking_and_paging():
    items = []
    for i in range(250):
        items += [
            {**CALL, "call_id": f"c{i}", "status": "completed" if i % 5 else "incomplete"},
            {"type": "function_call_output", "call_id": f"c{i}", "output": "x"},
        ]
    text = jsonl(*items)
    check = journal_page.build(text, tools=TOOLS, page=3, page_size=100)
    assert (check.matching, check.pages, check.page) == (500, 5, 3) and check.rows[0].index == 200
    blocking = journal_page.build(text, tools=TOOLS, only_blocking=True, page=9, page_size=20)
    # 50 incomplete calls and their 50 outputs (output_for_unfinished_call refuses them)
    assert (blocking.matching, blocking.pages, blocking.page) == (100, 5, 5)
    assert all(row.blocks for row in blocking.rows)


def test_each_provider_is_checked_with_its_own_tools_when_none_are_pasted():
    for name in ("chat-completions.json", "anthropic-messages.json", "gemini-contents.json"):
        check = journal_page.build((CONVERSATIONS_DIR / name).read_text())
        assert check.tools_origin == "journal" and check.replayable, name
        assert check.tool("get_weather")["parameters"]["required"] == ["location"]


def test_the_cut_off_response_is_not_replayable_and_says_why():
    check = journal_page.build((CONVERSATIONS_DIR / "chat-completions-truncated.json").read_text(), tools=TOOLS)
    assert not check.replayable and check.rows[0].reason == "status" and check.rows[0].status == "incomplete"
    assert check.conversion.notes[0].code == "cut_off" and check.plan.kept == []


def test_bad_input_names_the_place():
    check = journal_page.build('{"type": "function_call",\n "x": }')
    assert check.error is not None and (check.error.line, check.error.column) == (2, 7)
    assert check.report is None
    tools, problem = tools_text("[{")
    assert tools is None and problem.startswith("tools, line 1, column 3")
    assert tools_text('{"tools": 3}') == (
        None,
        "tools: expected an array of tool definitions (or a request with tools)",
    )
    assert tools_text("  ") == (None, None)


def test_one_tool_definition_is_taken_as_the_tools():
    # From a fresh user's audit: the Schema page takes one flat tool, the Journal page asked for an array.
    from webapp.core.journal.tools import read_tools

    flat = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    anthropic = {"name": "get_time", "input_schema": {"type": "object"}}
    for one in (flat, anthropic):
        tools, error = read_tools(json.dumps(one))
        assert error is None and [t["name"] for t in tools] == [one["name"]]
    tools, error = read_tools(json.dumps({"model": "m", "tools": [flat]}))
    assert error is None and [t["name"] for t in tools] == ["get_weather"]
    tools, error = read_tools('{"a": 1}')
    assert tools is None and error is not None
