"""The gate per target (issue 18): the targets' rules from ``tests/cases/targets.json`` (docs/targets.md's
fixtures), the plan of what each target keeps and leaves out, custom tools' grammars, and the target's name
checked."""

import json
from pathlib import Path

import pytest

from webapp.core.export import export
from webapp.core.gate import check_journal, check_one
from webapp.core.gate.grammar import MAX_GRAMMAR_INPUT, check_input, describe
from webapp.core.gate.report import FINDINGS
from webapp.core.gate.targets import TARGET_RULES, TARGET_TITLES, TARGETS, plan, rule_for
from webapp.core.items import (
    ANTHROPIC_CALL_ID,
    COMPACTION_TRIGGER,
    NAMESPACE_TOOL,
    OPENAI_ITEM_TYPES,
    OPENAI_NOT_INPUT,
    OPENAI_TOOL_ITEMS,
    native_openai,
    provider_of,
    type_kind,
)

HERE = Path(__file__).resolve().parent.parent
CASES = json.loads((HERE / "cases" / "targets.json").read_text(encoding="utf-8"))["cases"]
TOOLS = json.loads((HERE / "data" / "samples" / "tools.json").read_text(encoding="utf-8"))
DOCS = (HERE.parent / "docs" / "targets.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("case", CASES, ids=[f"{c['rule']}: {c['description']}" for c in CASES])
def test_each_target_rule(case):
    report = check_journal(
        case["items"],
        (case.get("tools") or []) + TOOLS,
        target=case["target"],
        source=case.get("source"),
        thinking=case.get("thinking"),
        store=case.get("store"),
    )
    assert [[f.code, f.index] for f in report.findings] == case["findings"]
    assert report.replayable is case["replayable"]
    assert report.target == case["target"]
    if "dispositions" in case:
        assert [line.disposition for line in report.items] == case["dispositions"]
    if "reasons" in case:
        assert [line.reason for line in report.items] == case["reasons"]


def test_every_rule_has_its_severity_once_a_rule_id_in_the_docs_and_a_source():
    for rule in TARGET_RULES:
        assert FINDINGS[rule.code] == rule.severity
        assert set(rule.targets) <= set(TARGETS)
        assert rule.source.startswith("https://")
        for rule_id in rule.rule_id.split(", "):
            assert f"**{rule_id}." in DOCS, rule_id
    assert rule_for("orphan_output") is None and rule_for("duplicate_id").targets == TARGETS
    assert list(TARGET_TITLES) == list(TARGETS) and TARGETS[0] == "portable"


def test_the_rules_are_checked_by_a_case_each():
    """Every row of the table (a code for its targets, with its own source) has a case that makes its finding for
    one of its targets."""
    covered = {(finding[0], case["target"]) for case in CASES for finding in case["findings"]}
    for rule in TARGET_RULES:
        assert any((rule.code, target) in covered for target in rule.targets), (rule.code, rule.rule_id)


def test_a_code_has_one_row_per_target_and_one_severity():
    seen: dict[tuple[str, str], str] = {}
    for rule in TARGET_RULES:
        for target in rule.targets:
            assert (rule.code, target) not in seen, (rule.code, target)
            seen[(rule.code, target)] = rule.rule_id
            assert rule_for(rule.code, target) is rule
        assert FINDINGS[rule.code] == rule.severity
    assert rule_for("output_not_adjacent", "openai") is None
    assert rule_for("output_not_adjacent", "chat_completions").rule_id == "C1"


def test_the_plan_keeps_what_the_target_takes_and_strips_members():
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "s"}],
            "encrypted_content": "e",
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "f",
            "arguments": "{}",
            "status": "completed",
            "gemini:thought_signature": "CiQB",
        },
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
    ]
    portable = plan(items, target="portable")
    assert portable.source == "openai"  # native items: a native OpenAI journal
    assert portable.dispositions == ["keep", "keep", "keep", "leave_out"]
    # The reasoning's summary travels; its sealed content, OpenAI's ids and Gemini's signature do not.
    assert portable.kept[1] == {"type": "reasoning", "summary": [{"type": "summary_text", "text": "s"}]}
    assert portable.kept[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "f",
        "arguments": "{}",
        "status": "completed",
    }
    assert [(e.index, e.pointer, e.code) for e in portable.left_out] == [
        (1, "/1/id", "provider_id"),
        (1, "/1/encrypted_content", "sealed_state"),
        (2, "/2/id", "provider_id"),
        (2, "/2/gemini:thought_signature", "provider_member"),
        (3, "/3", "provider_item"),
    ]
    assert set(portable.notes) == {"provider_id", "sealed_state", "provider_member", "provider_item"}
    assert items[2]["id"] == "fc_1"  # the items are not changed
    openai = plan(items, target="openai")
    assert openai.dispositions == ["keep"] * 4
    assert openai.kept[:2] == items[:2] and "gemini:thought_signature" not in openai.kept[2]
    assert openai.kept[3] == items[3]
    gemini = plan(items, target="gemini")
    assert gemini.dispositions == ["keep", "leave_out", "keep", "leave_out"]
    assert gemini.kept[1]["gemini:thought_signature"] == "CiQB" and "id" not in gemini.kept[1]


def test_ids_issued_with_a_reasoning_item_that_does_not_go_are_left_out():
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
    ]
    result = plan(items, target="openai", source="openai", refused=[0])
    assert result.dispositions == ["refused", "keep", "keep"]
    assert [(e.pointer, e.code) for e in result.left_out] == [("/0", "refused"), ("/1/id", "issued_with_reasoning")]
    assert "id" not in result.kept[0] and result.kept[0]["call_id"] == "c1"


def test_an_unknown_target_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown target 'claude'"):
        check_journal([], target="claude")
    with pytest.raises(ValueError, match="one of portable, openai"):
        plan([], target="nope")


def test_one_item_alone_gets_the_target_rules_that_need_no_other_item():
    line, findings = check_one({"type": "web_search_call", "id": "ws_1", "status": "completed"})
    assert [f.code for f in findings] == ["provider_item"] and line.disposition == "leave_out" and not line.ok
    line, findings = check_one({"type": "web_search_call", "id": "ws_1", "status": "completed"}, target="openai")
    assert findings == [] and line.disposition == "keep" and line.ok is False  # nothing to run: not a call
    line, findings = check_one({"type": "frobnicate"})
    assert [f.code for f in findings] == ["unknown_type"] and line.label == "refused"


def test_the_vocabulary_knows_native_types_and_native_journals():
    assert type_kind("web_search_call") == "provider" and type_kind("frobnicate") == "unknown"
    assert provider_of("mcp_call") == "openai"
    assert native_openai([{"type": "reasoning", "id": "rs_1", "encrypted_content": "e", "summary": []}])
    assert not native_openai([{"type": "reasoning", "id": "rs_1", "summary": []}, {"type": "message"}])


@pytest.mark.parametrize(
    "syntax, definition, text, place",
    [
        ("regex", "^SELECT .+$", "DROP TABLE t", "line 1, column 1"),
        ("regex", "SELECT [a-z]+", "SELECT ab1", "line 1, column 10"),
        ("lark", 'start: "SELECT " NAME\n%import common.CNAME -> NAME\n', "SELECT 1", "line 1, column 8"),
    ],
)
def test_a_grammar_names_where_the_input_leaves_it(syntax, definition, text, place):
    fmt = {"type": "grammar", "syntax": syntax, "definition": definition}
    problem = check_input(text, fmt)
    assert problem is not None and place in problem.message and not problem.format_problem


def test_grammar_formats_that_cannot_be_used_and_inputs_too_long_are_said_so():
    assert check_input("x", None) is None and check_input("x", {"type": "text"}) is None
    unusable = check_input("x", {"type": "grammar", "syntax": "lark", "definition": "start: ("})
    assert unusable is not None and unusable.format_problem
    assert check_input("x", {"type": "grammar", "syntax": "ebnf", "definition": "x"}).format_problem
    assert check_input("x", {"type": "grammar", "syntax": "regex", "definition": "(?i)x"}).format_problem
    long = check_input("a" * (MAX_GRAMMAR_INPUT + 1), {"type": "grammar", "syntax": "regex", "definition": "a*"})
    assert long is not None and "20,001 characters" in long.message
    assert describe({"type": "grammar", "syntax": "lark"}) == "a Lark grammar"
    assert describe(None) == "free text (no JSON arguments)"


@pytest.mark.parametrize("target", ["portable", "openai", "anthropic", "gemini", "chat_completions"])
def test_the_output_of_a_call_that_does_not_go_does_not_go_either(target):
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{", "status": "incomplete"},
        {"type": "function_call_output", "call_id": "c1", "output": "late"},
        {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "call_id": "c2", "output": "ok"},
    ]
    result = plan(items, target=target, source="open_responses", refused=[1])
    assert result.dispositions[1:3] == ["refused", "leave_out"]
    assert [entry.code for entry in result.left_out if entry.index == 2] == ["output_of_left_out_call"]
    assert [item.get("call_id") for item in result.kept if item["type"] == "function_call_output"] == ["c2"]


@pytest.mark.parametrize("target", ["portable", "openai", "anthropic", "gemini", "chat_completions"])
@pytest.mark.parametrize("odd_type", [["function_call"], {"a": 1}, 3, None])
def test_an_item_whose_type_is_no_string_is_judged_never_a_crash(target, odd_type):
    """Found by the route fuzz test: a list as ``type`` reached a set lookup (unhashable)."""
    item = {"type": odd_type, "call_id": "c1", "output": "x"}
    line, _ = check_one(item, target=target)
    assert line.verdict is not None and not line.verdict.ok
    report = check_journal([item, {"type": "message", "role": "user", "content": "hi"}], target=target)
    assert report.replayable is False
    assert plan([item], target=target, source="open_responses").dispositions in (["keep"], ["leave_out"])


@pytest.mark.parametrize(
    "call_id, rewritten", [("functions.Bash:0", True), ("toolu_01A-b", False), ("call 1", True), ("c1", False)]
)
def test_the_gate_warns_of_an_anthropic_call_id_exactly_when_the_export_rewrites_it(call_id, rewritten):
    """A7: one pattern (``ANTHROPIC_CALL_ID``) for the gate's warning and the writer's rewrite; a warning, never
    an error, since the export repairs the pair."""
    arguments = '{"location": "Paris"}'
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {
            "type": "function_call",
            "call_id": call_id,
            "name": "get_weather",
            "arguments": arguments,
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": call_id, "output": "sunny"},
    ]
    result = export(items, target="anthropic", tools=TOOLS)
    assert result.report is not None
    warned = [f for f in result.report.findings if f.code == "call_id_rewritten"]
    assert bool(warned) is rewritten and all(f.severity == "warning" for f in warned)
    assert result.report.plan is not None  # the plan repairs the pair (the writer writes what it is handed)
    assert any(r.code == "call_id_changed" for r in result.report.plan.repairs) is rewritten
    tool_use = result.body["messages"][1]["content"][0]
    tool_result = result.body["messages"][2]["content"][0]
    assert ANTHROPIC_CALL_ID.fullmatch(tool_use["id"]) and tool_use["id"] == tool_result["tool_use_id"]


def test_the_vocabulary_knows_openais_newer_items_and_which_it_takes_back():
    """O17-O19: compaction_trigger, context_compaction, additional_tools and tool_search_output are OpenAI's (never
    ``unknown_type``); OpenAI takes back all but context_compaction; the other targets leave them out."""
    for item_type in ("compaction_trigger", "context_compaction", "additional_tools", "tool_search_output"):
        assert type_kind(item_type) == "provider" and provider_of(item_type) == "openai"
    assert OPENAI_NOT_INPUT == {"context_compaction"} and COMPACTION_TRIGGER in OPENAI_ITEM_TYPES
    assert set(OPENAI_TOOL_ITEMS) <= set(OPENAI_ITEM_TYPES)
    item = {
        "type": "additional_tools",
        "role": "developer",
        "tools": [{"type": "function", "name": "lookup", "parameters": {}}],
    }
    for target in TARGETS:
        line, findings = check_one(item, target=target)
        assert line.disposition == ("keep" if target == "openai" else "leave_out"), target
        assert [f.code for f in findings] == ([] if target == "openai" else ["provider_item"])
    _, findings = check_one({"type": "context_compaction", "encrypted_content": "e"}, target="openai")
    assert [f.code for f in findings] == ["not_input_item"]


def test_a_namespace_tools_functions_are_named_by_openais_rule_and_left_alone_elsewhere():
    """O19, O15: a function tool inside a namespace tool is an OpenAI tool: its name is checked for ``openai``; the
    other targets' writers leave the namespace tool out, so its names are not theirs to check."""
    namespace = {
        "type": NAMESPACE_TOOL,
        "name": "crm",
        "description": "CRM tools",
        "tools": [{"type": "function", "name": "find.customer", "defer_loading": True, "parameters": {}}],
    }
    items = [{"type": "message", "role": "user", "content": "hi"}]
    report = check_journal(items, [namespace], target="openai")
    assert [(f.code, f.index) for f in report.findings] == [("invalid_tool_name", None)]
    assert "namespace" in report.findings[0].message and not report.replayable
    assert check_journal(items, [namespace], target="anthropic").findings == []


def test_calls_of_tools_that_items_carry_or_a_namespace_holds_are_checked_against_them():
    """O19: a tool loaded by a ``tool_search_output`` (or given by ``additional_tools``) may be called after it,
    and its schema checks the call; a call with a ``namespace`` names the tool of that namespace. Before this, each
    such call was ``unknown_tool``."""
    lookup = {
        "type": "function",
        "name": "lookup",
        "defer_loading": True,
        "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    }
    items = [
        {"type": "message", "role": "user", "content": "find 7"},
        {"type": "tool_search_call", "call_id": "t1", "execution": "client", "arguments": {"q": "lookup"}},
        {"type": "tool_search_output", "call_id": "t1", "execution": "client", "tools": [lookup]},
        {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": '{"id": 7}', "status": "completed"},
        {"type": "function_call_output", "call_id": "c1", "output": "found"},
        {"type": "function_call", "call_id": "c2", "name": "lookup", "arguments": '{"id": "x"}', "status": "completed"},
        {"type": "function_call_output", "call_id": "c2", "output": "?"},
    ]
    report = check_journal(items, [], target="openai")
    assert [f.code for f in report.findings] == []
    assert [line.reason for line in report.items][3:6:2] == ["ok", "arguments_schema"]
    before = check_journal([items[0], items[3]], [], target="openai")  # no item loads it: unknown, as before
    assert [f.code for f in before.findings] == ["unknown_tool", "output_required"]  # openai: append its output

    namespace = {"type": NAMESPACE_TOOL, "name": "crm", "description": "CRM", "tools": [lookup]}
    call = {**items[3], "namespace": "crm"}
    report = check_journal([items[0], call, items[4]], [namespace], target="openai")
    assert report.findings == [] and report.items[1].reason == "ok"
    bare = check_journal([items[0], items[3], items[4]], [namespace], target="openai")
    assert [f.code for f in bare.findings] == ["unknown_tool"] and "crm/lookup" in bare.findings[0].message
    additional = {"type": "additional_tools", "role": "developer", "tools": [lookup]}
    report = check_journal([items[0], additional, items[3], items[4]], [], target="openai")
    assert report.findings == [] and report.items[2].reason == "ok"


@pytest.mark.parametrize("target", ["anthropic", "gemini"])
def test_arguments_too_deep_to_parse_are_the_articles_reason_never_a_crash(target):
    """A8 reads the arguments the article's steps parsed; parsing them again overflowed Python's stack (found by
    the schema page's hostile inputs)."""
    deep = '{"a": ' + "[" * 100_000 + "}"
    item = {"type": "function_call", "call_id": "c1", "name": "any", "arguments": deep, "status": "completed"}
    report = check_journal([item], [{"type": "function", "name": "any", "parameters": {}}], target=target)
    assert report.items[0].reason == "arguments_parse" and not report.replayable
    assert "arguments_not_object" not in [f.code for f in report.findings]


def test_one_item_alone_has_none_of_the_order_rules():
    """G4's "first turn" is about a conversation: one call checked alone (the Schema page, ``check_one``) is not one."""
    call = {"type": "function_call", "call_id": "c1", "name": "any", "arguments": "{}", "status": "completed"}
    line, findings = check_one(call, target="gemini", tools=[{"type": "function", "name": "any", "parameters": {}}])
    assert findings == [] and line.disposition == "keep"
    report = check_journal([call], [{"type": "function", "name": "any", "parameters": {}}], target="gemini")
    assert [f.code for f in report.findings] == ["call_turn_misplaced", "thought_signature_missing"]
