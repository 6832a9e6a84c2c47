"""The writers (``webapp/core/export/``): same-provider round trips give back the input — sealed parts, their
order, call ids, arguments byte for byte — and what a writer cannot write is a note (issue 18, points 2 and 6)."""

from __future__ import annotations

import json

import pytest
from support import REPO, TESTS

from webapp.core.convert import convert, convert_text
from webapp.core.export import WRITERS, write
from webapp.core.gate import plan

EXPORT = TESTS / "data" / "export"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
SAMPLES = TESTS / "data" / "samples"


def load(path):
    return json.loads(path.read_text())


def blocks(content):
    """Anthropic's string content written as the one text block it stands for (the writers write blocks)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sealed_and_inputs(messages) -> list[tuple[str, str]]:
    """Each thinking signature, redacted data and tool_use input as JSON text, in block order."""
    out = []
    for message in messages:
        for block in message["content"]:
            for key in ("signature", "data", "input"):
                if key in block and block["type"] != "image":
                    out.append((block["type"], compact(block[key])))
    return out


@pytest.mark.parametrize("path", [EXPORT / "anthropic-thinking-tools.json", CONVERSATIONS / "anthropic-messages.json"])
def test_anthropic_round_trip_gives_back_thinking_signatures_ids_and_inputs(path):
    source = load(path)
    conversion = convert(source, "anthropic")
    written = write(conversion.items, target="anthropic", tools=conversion.tools)
    expected = [{**m, "content": blocks(m["content"])} for m in source["messages"]]
    assert written.body["messages"] == expected
    assert written.body["system"] == blocks(source["system"])
    assert written.notes == []
    # byte for byte: the tool_use inputs' JSON text (their key order too), the signatures and redacted data
    assert sealed_and_inputs(written.body["messages"]) == sealed_and_inputs(expected)
    assert [t["name"] for t in written.body["tools"]] == [t["name"] for t in source["tools"]]
    assert [t["input_schema"] for t in written.body["tools"]] == [t["input_schema"] for t in source["tools"]]


def test_anthropic_sealed_state_rides_on_items_in_the_blocks_places():
    conversion = convert(load(EXPORT / "anthropic-thinking-tools.json"))
    kinds = [(item["type"], item.get("role")) for item in conversion.items]
    assert kinds[:5] == [
        ("message", "system"),
        ("anthropic:document", None),
        ("message", "user"),
        ("reasoning", None),
        ("reasoning", None),
    ]
    thinking, redacted = conversion.items[3], conversion.items[4]
    assert thinking["content"] == [
        {"type": "reasoning_text", "text": "The report tool gives the number; the chart tool the picture."}
    ]
    assert thinking["anthropic:signature"] == "EqQBCkYIBRgCKkD0c2lnbmF0dXJlIG9uZQ=="
    assert redacted["anthropic:redacted_thinking"].startswith("EmwKAhgBEgy3va3pzix")
    call = conversion.items[5]
    assert call["anthropic:cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert call["arguments"] == '{"region":"apac","limit":1.0,"tags":["q3","fy"]}'
    chart = next(i for i in conversion.items if i.get("call_id") == "toolu_02BcDeFgHiJkLmNoPqRsTuVw" and "output" in i)
    assert [p["type"] for p in chart["output"]] == ["input_text", "input_image"]
    assert chart["output"][1]["image_url"].startswith("data:image/png;base64,iVBOR")
    assert chart["anthropic:is_error"] is False
    answer = conversion.items[-1]
    assert answer["content"][0]["anthropic:citations"][0]["cited_text"] == "APAC target: 1.5M."
    assert conversion.items[0]["content"][0]["anthropic:cache_control"] == {"type": "ephemeral"}
    notes = {(n.code, n.pointer, n.index) for n in conversion.notes}
    assert ("sealed_reasoning", "/messages/1/content/0", 3) in notes
    assert ("sealed_reasoning", "/messages/1/content/1", 4) in notes
    assert ("provider_field", "/messages/1/content/2", 5) in notes  # cache_control
    assert ("provider_field", "/messages/3/content/1", len(conversion.items) - 1) in notes  # citations
    # no note without its item: every sealed or carried thing names the item that holds it (issue 18, point 7)
    assert all(n.index is not None for n in conversion.notes if n.code in ("sealed_reasoning", "provider_field"))


def test_gemini_round_trip_gives_back_signatures_on_their_parts_and_ids_only_where_given():
    source = load(EXPORT / "gemini-signed-calls.json")
    conversion = convert(source)
    written = write(conversion.items, target="gemini", tools=conversion.tools)
    assert written.body["contents"] == source["contents"]
    assert written.body["systemInstruction"] == source["systemInstruction"]
    assert written.notes == []
    for got, want in zip(written.body["contents"], source["contents"], strict=True):
        assert [compact(p) for p in got["parts"]] == [compact(p) for p in want["parts"]]  # member order too


def test_gemini_snake_case_reads_like_camel_case():
    snake, camel = (
        convert(load(EXPORT / name)) for name in ("gemini-signed-calls-snake.json", "gemini-signed-calls.json")
    )
    assert snake.source == "gemini" and snake.items == camel.items
    # the same notes, and one more per declaration whose capitalised schema types were lowered
    assert [(n.code, n.index) for n in snake.notes if n.code != "schema_adjusted"] == [
        (n.code, n.index) for n in camel.notes
    ]
    assert snake.tools == camel.tools  # google-genai's model_dump() capitalises the schema types; read back lower
    signed = [i for i in snake.items if "gemini:thought_signature" in i]
    assert [i["type"] for i in signed] == ["function_call", "function_call"]
    assert write(snake.items, target="gemini").body["contents"] == load(EXPORT / "gemini-signed-calls.json")["contents"]


def test_chat_completions_round_trip_keeps_arguments_strings_untouched():
    source = load(CONVERSATIONS / "chat-completions.json")
    conversion = convert(source)
    written = write(conversion.items, target="chat_completions", tools=conversion.tools)
    assert written.body["messages"] == source["messages"]
    assert written.body["tools"] == source["tools"]
    sent = [c["function"]["arguments"] for m in written.body["messages"] for c in m.get("tool_calls", ())]
    given = [c["function"]["arguments"] for m in source["messages"] for c in m.get("tool_calls", ())]
    assert sent == given and all(type(a) is str for a in sent)


def test_openai_round_trip_gives_back_the_native_journal():
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    items = [json.loads(line) for line in text.splitlines()]
    written = write(convert_text(text).items, target="openai")
    assert written.body["input"][:-1] == items[:-1]  # reasoning with encrypted_content, fc_/msg_ ids as they were
    assert written.body["input"][-1] == {**items[-1], "type": "web_search_call"}  # OpenAI's own type, unprefixed
    assert written.notes == []


def test_portable_leaves_every_provider_member_out_with_a_note():
    conversion = convert(load(EXPORT / "anthropic-thinking-tools.json"))
    written = write(conversion.items, target="portable")
    assert not any(":" in key for item in written.body["input"] for key in item)
    assert not any(":" in key for item in written.body["input"] for part in item.get("content") or () for key in part)
    left = {(n.index, n.pointer) for n in written.notes if n.code == "member_left_out"}
    assert (3, "/anthropic:signature") in left and (5, "/anthropic:cache_control") in left
    assert (0, "/content/0/anthropic:cache_control") in left


def test_another_providers_sealed_state_is_never_written_as_this_ones():
    anthropic_items = convert(load(EXPORT / "anthropic-thinking-tools.json")).items
    gemini_items = convert(load(EXPORT / "gemini-signed-calls.json")).items
    # Anthropic's thinking to Gemini: no thoughtSignature made of a Claude signature (docs/targets.md A3, G2)
    body = write(anthropic_items, target="gemini").body
    parts = [p for c in body["contents"] for p in c["parts"]]
    assert not any("thoughtSignature" in p or "signature" in p for p in parts)
    # Gemini's signatures to Anthropic: never a thinking block
    written = write(gemini_items, target="anthropic")
    assert not any(b["type"] == "thinking" for m in written.body["messages"] for b in m["content"])
    assert {n.pointer for n in written.notes if n.code == "member_left_out"} >= {"/gemini:thought_signature"}
    # OpenAI's encrypted reasoning to Anthropic: left out, said so
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    written = write(convert_text(text).items, target="anthropic")
    assert (2, "item_left_out") in {(n.index, n.code) for n in written.notes}
    assert (8, "item_left_out") in {(n.index, n.code) for n in written.notes}  # openai:web_search_call


def test_chat_completions_leaves_out_what_it_cannot_carry_c3():
    conversion = convert(load(EXPORT / "anthropic-thinking-tools.json"))
    written = write(conversion.items, target="chat_completions", tools=conversion.tools)
    codes = {(n.index, n.code, n.pointer) for n in written.notes}
    assert (3, "item_left_out", "") in codes and (4, "item_left_out", "") in codes  # thinking, redacted
    chart = next(i for i, item in enumerate(conversion.items) if isinstance(item.get("output"), list))
    assert (chart, "part_left_out", "/output/1") in codes  # the image of the tool_result
    assert (5, "member_left_out", "/anthropic:cache_control") in codes
    calls = [c["id"] for m in written.body["messages"] for c in m.get("tool_calls", ())]
    assert calls == ["toolu_01AbCdEfGhIjKlMnOpQrStUv", "toolu_02BcDeFgHiJkLmNoPqRsTuVw"]
    tool_messages = [m for m in written.body["messages"] if m["role"] == "tool"]
    assert tool_messages[1]["content"] == [{"type": "text", "text": "chart rendered"}]


def test_a_call_whose_arguments_are_not_an_object_is_noted_for_anthropic_and_gemini():
    items = [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "[1]", "status": "completed"}]
    for target in ("anthropic", "gemini"):
        written = write(items, target=target)
        assert [(n.code, n.index, n.pointer) for n in written.notes] == [("arguments_not_object", 0, "/arguments")]


def test_system_messages_go_where_each_target_keeps_instructions():
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "be brief"}]},
    ]
    anthropic = write(items, target="anthropic")
    assert anthropic.body["system"] == [{"type": "text", "text": "be brief"}]
    assert all(m["role"] != "system" for m in anthropic.body["messages"])
    gemini = write(items, target="gemini")
    assert gemini.body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert [n.code for n in anthropic.notes] == [n.code for n in gemini.notes] == ["system_moved"]


def test_unknown_target_is_a_value_error_naming_the_targets():
    with pytest.raises(ValueError, match="unknown target 'bedrock': one of portable, openai"):
        write([], target="bedrock")
    assert set(WRITERS) == {"portable", "openai", "anthropic", "gemini", "chat_completions"}


def test_anthropic_call_ids_it_refuses_are_renamed_by_the_plan_on_both_sides_and_results_come_first():
    items = [
        {"type": "function_call", "call_id": "functions.Bash:0", "name": "Bash", "arguments": "{}"},
        {"type": "function_call", "call_id": "functions_Bash_0", "name": "Bash", "arguments": "{}"},
        {"type": "message", "role": "user", "content": "and then?"},
        {"type": "function_call_output", "call_id": "functions.Bash:0", "output": "ok"},
        {"type": "function_call_output", "call_id": "functions_Bash_0", "output": "ok"},
    ]
    result = plan(items, target="anthropic")  # the repair is the plan's: what it keeps is what is sent
    assert [(r.code, r.pointer, r.op, r.value) for r in result.repairs] == [
        ("call_id_changed", "/0/call_id", "replace", "functions_Bash_0_"),  # changed, and still unique (A7)
        ("call_id_changed", "/3/call_id", "replace", "functions_Bash_0_"),  # its output the same way
    ]
    assert items[0]["call_id"] == "functions.Bash:0"  # the journal is not changed
    written = write(result.kept, target="anthropic")
    calls = [b["id"] for b in written.body["messages"][0]["content"]]
    assert calls == ["functions_Bash_0_", "functions_Bash_0"]
    user = written.body["messages"][1]["content"]
    assert [(b["type"], b.get("tool_use_id")) for b in user] == [
        ("tool_result", "functions_Bash_0_"),
        ("tool_result", "functions_Bash_0"),
        ("text", None),
    ]  # results first (A6), each still answering its call
    assert [(n.code, n.index) for n in written.notes] == [("results_first", None)]  # the writer changes no id


@pytest.mark.parametrize(
    "path, target, key",
    [
        (EXPORT / "anthropic-thinking-tools.json", "anthropic", "messages"),
        (EXPORT / "gemini-signed-calls.json", "gemini", "contents"),
    ],
)
def test_provider_state_survives_the_journal_in_between(path, target, key):
    # native -> items as JSON Lines (what `convert` prints) -> read back as an Open Responses journal -> native
    source = load(path)
    lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in convert(source).items)
    journal = convert_text(lines)
    assert journal.source == "open_responses"
    body = write(journal.items, target=target).body
    expected = source[key] if target == "gemini" else [{**m, "content": blocks(m["content"])} for m in source[key]]
    assert body[key] == expected


def test_gemini_says_what_its_system_instruction_cannot_hold():
    items = [
        {
            "type": "message",
            "role": "system",
            "content": [
                {"type": "input_text", "text": "be brief"},
                {"type": "input_image", "image_url": "https://x/y.png"},
            ],
        },
        {"type": "message", "role": "user", "content": "hi"},
    ]
    written = write(items, target="gemini")
    assert written.body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert [(n.code, n.index, n.pointer) for n in written.notes] == [("part_left_out", 0, "/content")]
