"""The request's own settings (``webapp/core/journal/settings.py``): read where the pasted text holds them, carried
on the conversion and the journal, counted by the gate (docs/targets.md A2, O3) and given back by the export."""

from __future__ import annotations

import pytest

from webapp.core.convert import convert, convert_text, read_journal
from webapp.core.export import export
from webapp.core.gate import check_journal
from webapp.core.journal import load_journal
from webapp.core.journal.settings import RequestSettings, read_settings, thinking_of

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather of a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def anthropic_request(thinking=None, *, first_thinks=False):
    """An Anthropic request whose last assistant turn calls a tool, starting with a thinking block or not."""
    assistant = [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]
    if first_thinks:
        assistant.insert(0, {"type": "thinking", "thinking": "Look it up.", "signature": "c2lnbmF0dXJl"})
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
        ],
        "tools": [WEATHER_TOOL],
    }
    if thinking is not None:
        request["thinking"] = thinking
    return request


def gate(document, target="anthropic", **options):
    journal, conversion = read_journal(document)
    return check_journal(journal, target=target, source=conversion.source if conversion else None, **options)


ENABLED = {"type": "enabled", "budget_tokens": 1024}


@pytest.mark.parametrize("thinking", [ENABLED, {"type": "adaptive"}])
def test_an_anthropic_request_with_thinking_on_needs_the_final_turn_to_think_a2(thinking):
    report = gate(anthropic_request(thinking))
    assert [(f.code, f.index) for f in report.findings] == [("thinking_required", 1)]
    assert report.replayable is False


def test_the_request_says_thinking_off_or_nothing_and_a2_does_not_apply():
    assert gate(anthropic_request({"type": "disabled"})).replayable is True
    assert gate(anthropic_request()).replayable is True


def test_the_final_turn_starting_with_thinking_passes_a2():
    assert gate(anthropic_request(ENABLED, first_thinks=True)).replayable is True


def test_an_explicit_option_overrides_what_the_request_says():
    assert gate(anthropic_request(ENABLED), thinking=False).replayable is True
    assert gate(anthropic_request({"type": "disabled"}), thinking=True).replayable is False


def test_thinking_off_is_not_turned_on_by_the_conversations_thinking():
    """Asked off, the conversation's own thinking blocks do not turn A2 on (the docstring's promise)."""
    items = convert(anthropic_request(ENABLED, first_thinks=True)).items
    # the thinking block gone from the last turn, but an earlier turn's thinking still there: A2 would fire when on
    report = check_journal([items[0], items[1], *items[2:]], target="anthropic", source="anthropic", thinking=False)
    assert "thinking_required" not in [f.code for f in report.findings]


def test_another_providers_thinking_setting_does_not_count_for_anthropic():
    gemini = {
        "generationConfig": {"thinkingConfig": {"thinkingBudget": 1024}},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}}]},
        ],
    }
    conversion = convert(gemini)
    assert conversion.settings.thinking is True
    assert conversion.settings.for_target("anthropic") == (None, None)
    assert conversion.settings.for_target("gemini") == (True, None)


@pytest.mark.parametrize(
    ("config", "on"),
    [
        ({"thinkingBudget": 0}, False),
        ({"thinkingBudget": -1}, True),
        ({"thinking_budget": 512}, True),
        ({"thinkingLevel": "low"}, True),
        ({"includeThoughts": True}, None),
    ],
)
def test_gemini_thinking_config_says_on_or_off(config, on):
    assert thinking_of(config) is on
    request = {"generationConfig": {"thinkingConfig": config}, "contents": [{"role": "user", "parts": [{"text": "x"}]}]}
    assert convert(request).settings.thinking is on


def test_the_settings_are_read_from_requests_and_responses_only():
    request = convert(anthropic_request(ENABLED))
    assert request.settings.source == "anthropic"
    assert dict(request.settings.members) == {"model": "claude-sonnet-4-5", "max_tokens": 2048, "thinking": ENABLED}
    assert (request.settings.model, request.settings.max_tokens, request.settings.thinking) == (
        "claude-sonnet-4-5",
        2048,
        True,
    )
    response = {"type": "message", "role": "assistant", "model": "claude-x", "content": [], "stop_reason": "end_turn"}
    assert dict(convert(response).settings.members) == {"model": "claude-x"}
    assert convert(anthropic_request(ENABLED)["messages"]).settings == RequestSettings()
    assert read_settings({"model": "m"}, "anthropic", "message") == RequestSettings()


def test_a_thinking_member_makes_plain_messages_an_anthropic_request():
    text_only = {"model": "m", "max_tokens": 10, "thinking": ENABLED, "messages": [{"role": "user", "content": "hi"}]}
    conversion = convert(text_only)
    assert conversion.source == "anthropic" and conversion.settings.thinking is True


def test_a_responses_request_carries_store_and_include_on_its_journal():
    text = (
        '{"model": "gpt-5", "store": false, "include": ["reasoning.encrypted_content"], "reasoning": {"effort": "low"},'
        ' "input": [{"type": "message", "role": "user", "content": "hi"}]}'
    )
    journal = load_journal(text)
    assert (journal.store, journal.settings.include) == (False, ("reasoning.encrypted_content",))
    assert dict(journal.settings.members) == {
        "model": "gpt-5",
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "low"},
    }
    assert convert_text(text).settings == journal.settings


REASONING_BY_ID = {"type": "reasoning", "id": "rs_1", "summary": []}
SEALED = {**REASONING_BY_ID, "encrypted_content": "gAAAA"}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}", "status": "completed"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
TOOLS = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]


def responses_request(reasoning, **members):
    user = {"type": "message", "role": "user", "content": "go"}
    return {"model": "gpt-5", **members, "input": [user, reasoning, CALL, OUTPUT], "tools": TOOLS}


def to_openai(document, **options):
    return check_journal(load_journal(document), target="openai", source="openai", **options)


def test_store_false_in_the_request_counts_for_openai_o3():
    refused = to_openai(responses_request(REASONING_BY_ID, store=False))
    assert [f.code for f in refused.findings] == ["reasoning_not_stored", "reasoning_missing"]
    stateless = responses_request(SEALED, store=False, include=["reasoning.encrypted_content"])
    assert to_openai(stateless).replayable is True
    assert to_openai(responses_request(REASONING_BY_ID)).replayable is True
    # the option wins over the text, both ways
    assert [f.code for f in to_openai(responses_request(REASONING_BY_ID), store=False).findings] == [
        "reasoning_not_stored",
        "reasoning_missing",
    ]
    assert to_openai(responses_request(REASONING_BY_ID, store=False), store=True).replayable is True


def test_asking_overrides_and_is_remembered():
    settings = convert(anthropic_request(ENABLED)).settings
    off = settings.asking(thinking={"type": "disabled"}, store=False)
    assert (off.thinking, off.store, dict(off.asked)) == (
        False,
        False,
        {"thinking": {"type": "disabled"}, "store": False},
    )
    assert off.for_target("openai") == (False, False)  # asked: it counts whatever the target
    assert settings.for_target("openai") == (None, None)  # said by Anthropic's request: not OpenAI's


def test_the_export_judges_with_the_requests_settings():
    answer = export(load_journal_of(anthropic_request(ENABLED)), target="anthropic", source="anthropic")
    assert answer.report is not None and answer.report.replayable is False


def load_journal_of(document):
    return read_journal(document)[0]


# ---------------------------------------------------------------------------------------------------------------
# The export: the settings the target takes, carried; every other one a note


def exported(document, target, **asked):
    journal, conversion = read_journal(document)
    settings = journal.settings.asking(**asked) if asked else None
    return export(journal, target=target, source=conversion.source if conversion else None, settings=settings)


def notes_of(answer, code):
    return [(note.pointer, note.message) for note in answer.notes if note.code == code]


def test_a_same_provider_export_is_the_whole_request_with_its_settings_as_they_came():
    request = anthropic_request(ENABLED, first_thinks=True)
    answer = exported(request, "anthropic")
    assert list(answer.body)[:3] == ["model", "max_tokens", "thinking"]  # the request's own, first
    assert {k: answer.body[k] for k in ("model", "max_tokens", "thinking")} == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "thinking": ENABLED,
    }
    assert [t["name"] for t in answer.body["tools"]] == ["get_weather"]
    assert [n for n in answer.notes if n.code.startswith("setting_")] == []
    assert answer.report is not None and answer.report.replayable is True


def test_settings_are_not_mapped_across_providers_each_is_a_note():
    answer = exported(anthropic_request(ENABLED, first_thinks=True), "gemini")
    assert not {"model", "max_tokens", "thinking", "generationConfig"} & set(answer.body)
    assert [pointer for pointer, _ in notes_of(answer, "setting_left_out")] == ["/model", "/max_tokens", "/thinking"]
    assert all(note.index is None for note in answer.notes if note.code == "setting_left_out")


def test_gemini_generation_config_goes_back_to_gemini_and_is_a_note_elsewhere():
    config = {"temperature": 0.2, "thinkingConfig": {"thinkingBudget": 0, "includeThoughts": False}}
    request = {"generationConfig": config, "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert exported(request, "gemini").body["generationConfig"] == config
    answer = exported(request, "anthropic")
    assert "generationConfig" not in answer.body
    assert [p for p, _ in notes_of(answer, "setting_left_out")] == ["/generationConfig"]
    # the Messages API requires model and max_tokens, which no one gave
    assert [p for p, _ in notes_of(answer, "setting_required")] == ["/model", "/max_tokens"]


def test_a_model_goes_only_to_the_provider_that_named_it():
    request = {
        "model": "gpt-5",
        "previous_response_id": "resp_1",
        "temperature": 0.5,
        "input": [{"type": "message", "role": "user", "content": "hi"}],
    }
    journal = load_journal(request)
    own = export(journal, target="openai", source="openai")
    assert {k: own.body[k] for k in ("model", "previous_response_id", "temperature")} == {
        "model": "gpt-5",
        "previous_response_id": "resp_1",
        "temperature": 0.5,
    }
    for target, source in (("portable", "openai"), ("openai", "open_responses"), ("portable", "open_responses")):
        answer = export(journal, target=target, source=source)
        assert "model" not in answer.body and "previous_response_id" not in answer.body
        assert answer.body["temperature"] == 0.5  # the same API's setting, as it came
        left = notes_of(answer, "setting_left_out")
        assert [p for p, _ in left] == ["/model", "/previous_response_id"]
        assert "provider-specific" in left[0][1]


def test_a_gemini_model_goes_in_the_url_not_the_body():
    response = {
        "modelVersion": "gemini-2.5-flash",
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
    }
    answer = exported(response, "gemini")
    assert "model" not in answer.body and "modelVersion" not in answer.body
    assert "generateContent" in notes_of(answer, "setting_left_out")[0][1]


def test_store_false_with_sealed_reasoning_asks_for_encrypted_content_o3():
    answer = export(load_journal(responses_request(SEALED, store=False)), target="openai", source="openai")
    assert answer.body["store"] is False and answer.body["include"] == ["reasoning.encrypted_content"]
    assert [p for p, _ in notes_of(answer, "setting_added")] == ["/include"]
    asked = responses_request(SEALED, store=False, include=["reasoning.encrypted_content"])
    assert notes_of(export(load_journal(asked), target="openai", source="openai"), "setting_added") == []


def test_options_asked_beside_the_text_win_and_go_where_the_target_takes_them():
    request = anthropic_request(ENABLED, first_thinks=True)
    off = exported(request, "anthropic", thinking=False)
    assert off.body["thinking"] == {"type": "disabled"}
    own = exported(request, "anthropic", thinking={"type": "enabled", "budget_tokens": 4096})
    assert own.body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert exported(request, "anthropic", thinking=True).body["thinking"] == ENABLED  # on, as the request said
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    unknown_budget = exported(gemini, "anthropic", thinking=True)
    assert "thinking" not in unknown_budget.body
    assert "budget" in notes_of(unknown_budget, "setting_left_out")[0][1]
    stored = exported({"input": [{"type": "message", "role": "user", "content": "hi"}]}, "openai", store=False)
    assert stored.body["store"] is False
    assert [p for p, _ in notes_of(exported(gemini, "gemini", store=True), "setting_left_out")] == ["/store"]


def test_o3_says_what_the_requests_include_asked():
    without = to_openai(responses_request(REASONING_BY_ID, store=False)).findings[0]
    assert without.code == "reasoning_not_stored" and "did not ask for include" in without.message
    asked = responses_request(REASONING_BY_ID, store=False, include=["reasoning.encrypted_content"])
    removed = to_openai(asked).findings[0]
    assert "asked for include" in removed.message and "removed since" in removed.message
    unknown = check_journal([REASONING_BY_ID, CALL, OUTPUT], TOOLS, target="openai", source="openai", store=False)
    assert "include" not in unknown.findings[0].message  # no request known: nothing said of it


def test_a_setting_the_rules_cannot_read_is_a_note_never_a_silent_drop():
    typo = convert(anthropic_request({"type": "enabeld", "budget_tokens": 1024}))
    assert typo.settings.thinking is None
    assert [(n.code, n.pointer) for n in typo.notes if n.code == "setting_unread"] == [("setting_unread", "/thinking")]
    journal = load_journal({"store": "no", "include": "reasoning", "input": []})
    assert [(n.code, n.pointer) for n in journal.notes] == [
        ("setting_unread", "/store"),
        ("setting_unread", "/include"),
    ]
    assert journal.store is None
    assert convert_text('{"store": "no", "input": []}').notes[0].code == "setting_unread"


def test_thinking_asked_off_refuses_a_final_assistant_message_that_thinks():
    """The export writes thinking {type: disabled}; Anthropic then refuses an assistant message in the final position
    that holds thinking (docs/targets.md A2, its reverse)."""
    request = anthropic_request(ENABLED, first_thinks=True)
    request["messages"].append(
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "Sunny.", "signature": "c2ln"}]}
    )
    assert gate(request).replayable is True
    report = gate(request, thinking=False)
    assert [(f.code, f.index) for f in report.findings] == [("thinking_not_enabled", 4)]
