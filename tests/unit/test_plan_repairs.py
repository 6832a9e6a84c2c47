"""The plan repairs what a target would refuse, says so, and gives the repair as an RFC 6902 JSON Patch: the body
offered is the body judged (webapp/core/gate/targets.py ``plan``, webapp/core/export ``export``)."""

from __future__ import annotations

import copy
import json

import jsonpatch
import pytest
from support import REPO

from webapp.core.convert import convert
from webapp.core.export import export, read_back
from webapp.core.gate import check_journal, plan
from webapp.core.gate.targets import GEMINI_PLACEHOLDER_SIGNATURE

pytestmark = pytest.mark.unit

CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
}


def errors_read_back(answer, target, tools):
    """The error findings the body meets, read back by the converter of the target's shape and gated for it."""
    back = read_back(answer.body, target)
    report = check_journal(back.items, tools, target=target, source=back.source)
    return [(f.code, f.index) for f in report.findings if f.severity == "error"]


def applied(items, patch):
    return jsonpatch.apply_patch(copy.deepcopy(items), patch)


def test_openai_a_reasoning_item_whose_call_is_refused_is_left_out_too():
    # An OpenAI output: reasoning, then its call, whose arguments its tool's schema refuses, then the call's output.
    items = [
        {"type": "message", "role": "user", "content": "weather in Paris?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "18"},
        {"type": "message", "role": "user", "content": "and tomorrow?"},
    ]
    items[2]["status"] = "completed"
    answer = export(items, target="openai", tools=[WEATHER], source="openai")
    assert answer.body is not None and answer.body["input"] == [items[0], items[4]]  # the reasoning does not go alone
    left = [(e.pointer, e.code) for e in answer.left_out]
    assert left == [("/1", "reasoning_alone"), ("/2", "refused"), ("/3", "output_of_left_out_call")]
    assert "reasoning_alone" in answer.report.plan.notes
    assert errors_read_back(answer, "openai", [WEATHER]) == []  # no reasoning_without_following_item (O1)


def test_gemini_a_chat_completions_conversation_gets_the_placeholder_signature():
    source = json.loads((CONVERSATIONS / "chat-completions.json").read_text())
    conversion = convert(source)
    answer = export(conversion.items, target="gemini", tools=conversion.tools, source=conversion.source)
    assert answer.body is not None and answer.reason is None
    calls = [p for c in answer.body["contents"] for p in c["parts"] if "functionCall" in p]
    assert calls[0]["thoughtSignature"] == GEMINI_PLACEHOLDER_SIGNATURE == "skip_thought_signature_validator"
    assert "thoughtSignature" not in calls[1]  # a parallel call: only the first of its step carries one (G1)
    repairs = answer.report.plan.repairs
    assert [(r.code, r.op) for r in repairs] == [("thought_signature_placeholder", "add")]
    assert all(e.code != "refused" for e in answer.left_out)  # repaired, not refused
    assert errors_read_back(answer, "gemini", conversion.tools) == []  # no thought_signature_missing (G1)


def test_gemini_keeps_a_signature_the_call_has():
    items = [
        {"type": "message", "role": "user", "content": "weather?"},
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "get_weather",
            "arguments": '{"location":"Paris"}',
            "status": "completed",
            "gemini:thought_signature": "c2lnbmVk",
        },
    ]
    result = plan(items, target="gemini")
    assert result.repairs == [] and result.kept[1]["gemini:thought_signature"] == "c2lnbmVk"


def test_the_plan_strips_a_gemini_text_parts_signature_for_another_target_with_a_note():
    conversion = convert(
        {
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"text": "hello", "thoughtSignature": "U0lH"}]},
            ]
        }
    )
    for target in ("portable", "openai", "anthropic", "chat_completions"):
        result = plan(conversion.items, target=target, source="gemini")
        assert [(e.pointer, e.code) for e in result.left_out] == [
            ("/1/content/0/gemini:thought_signature", "provider_member")
        ]
        assert "gemini:thought_signature" not in result.kept[1]["content"][0]
        assert {"op": "remove", "path": "/1/content/0/gemini:thought_signature"} in result.patch
    assert plan(conversion.items, target="gemini", source="gemini").left_out == []  # Gemini's own: it stays


def test_a_hosted_tool_left_out_is_a_note_naming_it():
    items = [{"type": "message", "role": "user", "content": "search the web"}]
    for target in ("portable", "anthropic", "gemini", "chat_completions"):
        answer = export(items, target=target, tools=[{"type": "web_search"}, WEATHER])
        notes = [n.as_dict() for n in answer.notes if not n.code.startswith("setting_")]  # anthropic: model…
        assert notes == [
            {
                "index": None,
                "pointer": "/0",
                "code": "tool_left_out",
                "message": 'tool 0 ("web_search") is not a function tool: the body carries function tools only, '
                "left out",
            }
        ]


@pytest.mark.parametrize("target", ["portable", "openai", "anthropic", "gemini", "chat_completions"])
def test_a_journal_refused_as_a_whole_gets_no_body_and_the_reason(target):
    items = [{"type": "message", "role": "user", "content": "hi"}]
    tools = [
        {"type": "function", "name": "f", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/nope"}}}}
    ]
    answer = export(items, target=target, tools=tools)
    assert answer.body is None and answer.reason is not None and "tool_schema_invalid" in answer.reason
    assert answer.as_dict()["body"] is None and answer.as_dict()["reason"] == answer.reason
    assert answer.text() == "null\n"


def test_complete_statusless_is_a_repair_of_the_status_with_its_patch():
    items = [
        {"type": "message", "role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"location":"Paris"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "18"},
        {
            "type": "function_call",
            "call_id": "c2",
            "name": "get_weather",
            "arguments": '{"location":"Oslo"}',
            "status": None,
        },
        {"type": "function_call_output", "call_id": "c2", "output": "3"},
    ]
    refused = check_journal(items, [WEATHER]).plan
    assert refused.kept == [items[0]]  # the article's rule: only completed calls run
    vouched = check_journal(items, [WEATHER], complete_statusless=True).plan
    assert vouched.dispositions == ["keep"] * 5
    assert [(r.pointer, r.op, r.value) for r in vouched.repairs] == [
        ("/1/status", "add", "completed"),
        ("/3/status", "replace", "completed"),
    ]
    assert applied(items, vouched.patch) == vouched.kept
    assert "status" not in items[1]  # the journal is not changed


@pytest.mark.parametrize("target", ["portable", "openai", "anthropic", "gemini", "chat_completions"])
@pytest.mark.parametrize("name", ["anthropic-messages.json", "chat-completions.json", "gemini-contents.json"])
def test_the_patch_applied_to_the_journals_items_gives_the_items_sent(name, target):
    conversion = convert(json.loads((CONVERSATIONS / name).read_text()))
    result = check_journal(conversion.items, conversion.tools, target=target, source=conversion.source).plan
    assert applied(conversion.items, result.patch) == result.kept
    ops = {op["op"] for op in result.patch}
    assert ops <= {"remove", "replace", "add"}


def test_the_patch_names_each_kind_of_change():
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "a.b", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a.b", "output": "ok", "anthropic:cache_control": {"type": "x"}},
    ]
    result = plan(items, target="anthropic", source="open_responses")
    assert result.patch == [
        {"op": "remove", "path": "/2/id"},
        {"op": "replace", "path": "/2/call_id", "value": "a_b"},
        {"op": "replace", "path": "/3/call_id", "value": "a_b"},
        {"op": "remove", "path": "/1"},
    ]
    assert applied(items, result.patch) == result.kept
    assert result.as_dict()["patch"] == result.patch and result.as_dict()["repairs"][0]["code"] == "call_id_changed"


def test_an_item_of_the_targets_own_keeps_its_id():
    # An openai:web_search_call an Open Responses server passed on: OpenAI issued it, and requires its id (O10).
    items = [
        {"type": "message", "role": "user", "content": "next"},
        {
            "type": "openai:web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "q"},
        },
    ]
    result = plan(items, target="openai", source="open_responses")
    assert result.kept[1]["id"] == "ws_1" and result.left_out == []
    answer = export(items, target="openai")
    assert answer.body is not None and errors_read_back(answer, "openai", None) == []


def test_what_the_plan_cannot_repair_gets_no_body_and_the_reason():
    # Anthropic thinking is on (A2): the final turn must start with thinking. Its first call is refused (A2), so the
    # next call starts the turn, still without thinking: leaving items out cannot repair that.
    def call(call_id):
        return {
            "type": "function_call",
            "call_id": call_id,
            "name": "get_weather",
            "arguments": '{"location":"Paris"}',
            "status": "completed",
        }

    def output(call_id):
        return {"type": "function_call_output", "call_id": call_id, "output": "18"}

    thinking = {
        "type": "reasoning",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "t"}],
        "anthropic:signature": "EqQB",
    }
    items = [{"type": "message", "role": "user", "content": "hi"}, thinking, call("c1"), output("c1")]
    items += [
        {"type": "message", "role": "user", "content": "more"},
        call("c2"),
        output("c2"),
        call("c3"),
        output("c3"),
    ]
    answer = export(items, target="anthropic", tools=[WEATHER], source="anthropic")
    assert answer.body is None and answer.as_dict()["body"] is None
    assert answer.reason.startswith("the body, read back, would still be refused by anthropic: thinking_required")


def test_openai_leaves_out_a_reasoning_item_without_its_id_in_the_plan_not_in_the_writer():
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        },
    ]
    result = plan(items, target="openai", source="openai")
    assert [(e.pointer, e.code) for e in result.left_out] == [("/1", "reasoning_without_id")]
    answer = export(items, target="openai", source="openai")
    assert [
        n.code for n in answer.notes if not n.code.startswith("setting_")
    ] == []  # the writer had nothing to leave out: the plan did, and said so


def test_a_repaired_call_is_labelled_repaired_and_the_answer_says_the_body_repairs_it():
    """G1 repaired with Google's placeholder: refused as it is (the answer stays not replayable), but its row is
    ``repaired`` (sent), not ``refused``, and the answer says the body offered repairs it."""
    from webapp.core.convert import convert_text
    from webapp.core.gate import check_journal

    conversion = convert_text((REPO / "webapp/examples/conversations/chat-completions.json").read_text(), "auto")
    report = check_journal(conversion.items, conversion.tools, target="gemini", source=conversion.source)
    [line] = [line for line in report.items if line.refused_by]
    assert (line.label, line.disposition, line.repaired) == ("repaired", "keep", True)
    assert report.counts.get("repaired") == 1 and "refused" not in report.counts
    assert report.replayable is False
    assert report.says.endswith("; the body offered repairs it (see what goes)")
