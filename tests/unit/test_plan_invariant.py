"""The invariant of the export: the body offered for a target, read back through the converter of that target's
shape and checked by the gate for that target, has no error finding — over every journal the tests hold and over
generated small conversations; and the plan's JSON Patch applied to the journal's items gives the items sent."""

from __future__ import annotations

import copy
import json

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REPO, TESTS
from support.cli import WEATHER_TOOL

from webapp.core.convert import ConvertError, convert_text
from webapp.core.export import export, read_back
from webapp.core.gate import TARGETS, check_journal

pytestmark = pytest.mark.unit

WEATHER = WEATHER_TOOL  # the weather tool the CLI tests call, one definition


def _journals() -> list[tuple[str, str, object]]:
    """(name, text, tools) of every journal in tests/cases/*.json, tests/data/samples and the examples."""
    found: list[tuple[str, str, object]] = []
    for path in sorted((TESTS / "cases").glob("*.json")):
        for i, case in enumerate(json.loads(path.read_text()).get("cases", ())):
            if not isinstance(case, dict):
                continue
            value = case.get("journal", case.get("items"))
            if value is None and isinstance(case.get("item"), dict):
                value = [case["item"]]
            if value is None:
                continue
            text = value if isinstance(value, str) else json.dumps(value)
            found.append((f"{path.name}#{i}", text, case.get("tools")))
    samples = TESTS / "data" / "samples"
    paths = sorted(p for p in samples.rglob("*.json*") if p.name != "tools.json")
    paths += sorted((REPO / "webapp" / "examples" / "conversations").glob("*.json"))
    found += [(str(p.relative_to(REPO)), p.read_text(), None) for p in paths]
    return found


JOURNALS = _journals()


def read_back_errors(body: dict, target: str, tools: object) -> list[tuple[str, int | None]]:
    """The error findings of ``body`` read back and judged for ``target``, as :func:`export` judges it: the calls'
    arguments were checked against ``tools`` before writing; read back, only the target's own rules count."""
    back = read_back(body, target)
    report = check_journal(back.items, None, target=target, source=back.source)
    return [(f.code, f.index) for f in report.findings if f.severity == "error"]


def offered(items: list, target: str, tools: object, source: str | None = None):
    """The export, or ``None`` when the tools are unusable input (``/api/export`` answers 400 then)."""
    try:
        return export(items, target=target, tools=tools, source=source)  # type: ignore[arg-type]
    except ConvertError:
        return None


#: Why a body may be withheld: never because the body read back would be refused (the invariant), only because
#: the journal as a whole is (a tool definition, its text, no items) or every item was left out.
NO_BODY_REASONS = ("the journal as a whole", "nothing is left to send")


def test_the_corpus_is_not_empty():
    assert len(JOURNALS) > 100
    assert any(name.startswith("webapp/examples") for name, _, _ in JOURNALS)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("name", "text", "tools"), JOURNALS, ids=[name for name, _, _ in JOURNALS])
def test_the_body_offered_is_the_body_judged(name, text, tools, target):
    try:
        conversion = convert_text(text, "auto")
    except ConvertError:
        return  # not a conversation: nothing is offered (its own tests check the error)
    tools = tools if tools is not None else conversion.tools
    answer = offered(conversion.items, target, tools, conversion.source)
    if answer is None:
        return
    plan = answer.report.plan
    assert jsonpatch.apply_patch(copy.deepcopy(conversion.items), plan.patch) == plan.kept
    if answer.body is None:
        assert answer.reason  # no body without a reason: the journal as a whole, or nothing left to send
        assert answer.reason.startswith(NO_BODY_REASONS), answer.reason
        return
    assert read_back_errors(answer.body, target, tools) == []
    if target == "portable":  # the plan's kept items are what is sent, member for member
        assert answer.body["input"] == plan.kept


@pytest.mark.parametrize("target", TARGETS)
def test_every_example_conversation_gets_a_body_for_every_target(target):
    for path in sorted((REPO / "webapp" / "examples" / "conversations").glob("*.json")):
        conversion = convert_text(path.read_text(), "auto")
        answer = export(conversion.items, target=target, tools=conversion.tools, source=conversion.source)
        if path.name == "chat-completions-truncated.json":  # one call, cut off: nothing may be sent, and it says so
            assert answer.body is None and answer.reason.startswith("nothing is left to send"), answer.reason
            continue
        assert answer.body is not None and answer.reason is None, (path.name, answer.reason)


# ---------------------------------------------------------------------------------------------------------------
# Generated small conversations: messages, calls with and without outputs, reasoning with and without
# encrypted_content, signatures, odd call ids.

CALL_IDS = st.sampled_from(["call_1", "call_2", "fc|x", "functions.Bash:0", "toolu_01", "a b", "c-3"])
ARGUMENTS = st.sampled_from(['{"location":"Paris"}', "{}", '{"location":3}', "not json", '{"location":"Oslo"}'])
SIGNATURE = st.sampled_from([None, "c2lnbmVk", "skip_thought_signature_validator"])


@st.composite
def items(draw) -> dict:
    kind = draw(st.sampled_from(["user", "assistant", "reasoning", "call", "output", "output"]))
    if kind == "user":
        return {"type": "message", "role": "user", "content": draw(st.sampled_from(["hi", "and now?"]))}
    if kind == "assistant":
        part: dict = {"type": "output_text", "text": "ok", "annotations": []}
        signature = draw(SIGNATURE)
        if signature is not None:
            part["gemini:thought_signature"] = signature
        return {"type": "message", "role": "assistant", "content": [part], "status": "completed"}
    if kind == "reasoning":
        item: dict = {
            "type": "reasoning",
            "summary": draw(st.sampled_from([[], [{"type": "summary_text", "text": "s"}]])),
        }
        if draw(st.booleans()):
            item["id"] = f"rs_{draw(st.integers(0, 3))}"
        if draw(st.booleans()):
            item["encrypted_content"] = "gAAAA"
        owner = draw(st.sampled_from([None, "anthropic", "gemini"]))
        if owner == "anthropic":
            item["content"] = [{"type": "reasoning_text", "text": "thinking"}]
            item["anthropic:signature"] = "EqQB"
        elif owner == "gemini":
            item["gemini:thought_signature"] = "c2ln"
        return item
    if kind == "call":
        call: dict = {
            "type": "function_call",
            "call_id": draw(CALL_IDS),
            "name": "get_weather",
            "arguments": draw(ARGUMENTS),
        }
        status = draw(st.sampled_from(["completed", "completed", None, "absent", "incomplete"]))
        if status != "absent":
            call["status"] = status
        if draw(st.booleans()):
            call["id"] = f"fc_{draw(st.integers(0, 3))}"
        signature = draw(SIGNATURE)
        if signature is not None:
            call["gemini:thought_signature"] = signature
        return call
    return {"type": "function_call_output", "call_id": draw(CALL_IDS), "output": "18"}


@pytest.mark.slow  # a few hundred exports, each read back and gated: tens of seconds
@settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    conversation=st.lists(items(), min_size=1, max_size=8),
    target=st.sampled_from(TARGETS),
    tools=st.sampled_from([None, [WEATHER]]),
    source=st.sampled_from([None, "openai", "anthropic", "gemini", "chat_completions"]),
)
def test_generated_conversations_keep_the_invariant(conversation, target, tools, source):
    answer = export(conversation, target=target, tools=tools, source=source)
    plan = answer.report.plan
    assert jsonpatch.apply_patch(copy.deepcopy(conversation), plan.patch) == plan.kept
    if answer.body is None:
        assert answer.reason and answer.reason.startswith(NO_BODY_REASONS), answer.reason
        return
    assert read_back_errors(answer.body, target, tools) == []
