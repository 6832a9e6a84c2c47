"""Conversion of provider conversations to Open Responses items (``webapp/core/convert``): pure, no app."""

from __future__ import annotations

import json

import pytest
from support import REPO, TESTS

from webapp.core.convert import ConvertError, convert, convert_text, detect
from webapp.core.gate import check_journal

SAMPLES = TESTS / "data" / "samples"
# the provider conversations ship with the app (the journal page's examples)
CONVERSATIONS_DIR = REPO / "webapp" / "examples" / "conversations"
CONVERSATIONS = ["chat-completions.json", "anthropic-messages.json", "gemini-contents.json"]


def load(name: str):
    return convert_text((CONVERSATIONS_DIR / name).read_text())


def parsed_or_text(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def shape(items: list[dict]) -> list[tuple]:
    """What the conversation says, without the ids a source may lack (call ids become their order of first use)."""
    order: dict = {}
    out = []
    for item in items:
        kind = item["type"]
        if kind == "reasoning":  # only Anthropic's sample thinks (kept for Anthropic: tests/unit/test_export*.py)
            continue
        if kind == "message":
            out.append((kind, item["role"], tuple(p.get("text") for p in item["content"])))
        elif kind == "function_call":
            out.append(
                (
                    kind,
                    order.setdefault(item["call_id"], len(order)),
                    item["name"],
                    json.dumps(json.loads(item["arguments"]), sort_keys=True),
                    item["status"],
                )
            )
        else:
            value = item["output"]
            if isinstance(value, list):  # an Anthropic tool_result of blocks: its parts, here only text
                value = "".join(part["text"] for part in value)
            output = json.dumps(parsed_or_text(value), sort_keys=True)
            out.append((kind, order.setdefault(item["call_id"], len(order)), output))
    return out


def test_the_three_providers_give_the_same_conversation():
    chat, claude, gemini = (load(name) for name in CONVERSATIONS)
    assert (chat.source, claude.source, gemini.source) == ("chat_completions", "anthropic", "gemini")
    assert shape(chat.items) == shape(gemini.items)
    # Anthropic's assistant also said "Let me look both up." before calling: the one real difference
    extra = [
        i
        for i, item in enumerate(claude.items)
        if item["type"] == "message"
        and item["role"] == "assistant"
        and item["content"][0]["text"] == "Let me look both up."
    ]
    assert len(extra) == 1
    assert shape([item for i, item in enumerate(claude.items) if i != extra[0]]) == shape(chat.items)


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_each_provider_sample_is_replayable_with_its_own_and_the_sample_tools(name):
    conversion = load(name)
    assert [t["name"] for t in conversion.tools] == ["get_latest_sales_report", "get_weather"]
    for tools in (conversion.tools, json.loads((SAMPLES / "tools.json").read_text())):
        report = check_journal(conversion.items, tools)
        assert report.replayable, [v.as_dict() for v in report.items if not v.ok]


def test_the_cut_off_response_makes_an_incomplete_call_the_gate_refuses():
    conversion = load("chat-completions-truncated.json")
    (call,) = conversion.items
    assert call["status"] == "incomplete" and call["arguments"] == '{"reg'
    assert [n.code for n in conversion.notes] == ["cut_off"]
    assert conversion.where(0) == "choices[0].message.tool_calls[0]"
    report = check_journal(conversion.items, json.loads((SAMPLES / "tools.json").read_text()))
    assert not report.replayable and report.items[0].reason == "status"


@pytest.mark.parametrize("message", [{"content": "hi"}, {"role": ["assistant"], "content": "hi"}])
def test_a_choice_whose_message_has_no_role_is_refused_at_its_place(message):
    # Such a message used to become an item with that role (None, a list) and no note.
    with pytest.raises(ConvertError, match="role and content") as caught:
        convert({"choices": [{"message": {"role": "assistant", "content": "a"}}, {"message": message}]})
    assert caught.value.pointer == "/choices/1"


def test_chat_completions_arguments_are_kept_byte_for_byte():
    raw = '{ "location" : "Paris",\n "unit":"celsius" }'
    conversion = convert(
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": raw}}
                    ],
                }
            ]
        }
    )
    assert conversion.items[0]["arguments"] == raw
    assert conversion.notes == []


def test_chat_completions_arguments_that_are_not_a_string_are_kept_and_noted():
    conversion = convert(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}],
            }
        ]
    )
    assert conversion.items[0]["arguments"] == {"a": 1}
    assert [(n.code, n.pointer) for n in conversion.notes] == [
        ("arguments_not_string", "/0/tool_calls/0/function/arguments")
    ]
    assert check_journal(conversion.items, [{"type": "function", "name": "f"}]).items[0].reason == "arguments_type"


def test_sealed_reasoning_and_server_tools_are_reported_not_lost():
    conversion = convert(
        {
            "messages": [
                {"role": "user", "content": "search"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "redacted_thinking", "data": "abc"},
                        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                        {"type": "text", "text": "found"},
                    ],
                },
            ]
        }
    )
    kinds = [item["type"] for item in conversion.items]
    assert kinds == ["message", "reasoning", "anthropic:server_tool_use", "anthropic:web_search_tool_result", "message"]
    # the redacted thinking is kept in its place, for Anthropic only (issue 18, point 2)
    assert conversion.items[1] == {"type": "reasoning", "summary": [], "anthropic:redacted_thinking": "abc"}
    assert [n.code for n in conversion.notes] == ["sealed_reasoning", "server_tool", "server_tool"]
    assert (conversion.notes[0].pointer, conversion.notes[0].index) == ("/messages/1/content/0", 1)
    report = check_journal(conversion.items)
    assert not report.replayable and {v.reason for v in report.items} >= {"namespaced"}


def test_gemini_calls_without_ids_pair_by_order_and_name():
    conversion = convert(
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "args": {"n": 1}}},
                        {"functionCall": {"name": "g", "args": {}}},
                        {"functionCall": {"name": "f", "args": {"n": 2}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "f", "response": {"output": "one"}}},
                        {"functionResponse": {"name": "f", "response": {"output": "two"}}},
                        {"functionResponse": {"name": "g", "response": {"x": 1}}},
                    ],
                },
            ]
        }
    )
    calls = {
        item["call_id"]: json.loads(item["arguments"]) for item in conversion.items if item["type"] == "function_call"
    }
    outputs = [(item["call_id"], item["output"]) for item in conversion.items if item["type"] == "function_call_output"]
    assert [calls[c] for c, _ in outputs] == [{"n": 1}, {"n": 2}, {}]
    assert [o for _, o in outputs] == ["one", "two", '{"x":1}']
    assert len(calls) == 3 and all(c.startswith("call_gemini_") for c in calls)
    again = convert({"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]})
    assert again.items[0]["call_id"] == "call_gemini_0_0"  # stable: from the position, not random


def test_a_result_for_no_call_is_noted_and_left_for_the_gate():
    conversion = convert([{"role": "user", "parts": [{"functionResponse": {"name": "x", "response": {}}}]}])
    assert [n.code for n in conversion.notes] == ["unpaired_result", "output_serialised"]
    report = check_journal(conversion.items)
    assert [f.code for f in report.findings] == ["missing_call_id"] and not report.replayable


def test_tool_definitions_convert_from_every_shape():
    chat = convert(
        {
            "messages": [{"role": "user", "content": "x"}],
            "tools": [
                {"type": "function", "function": {"name": "a", "parameters": {"type": "object"}, "strict": True}},
                {"type": "web_search"},
            ],
        }
    )
    assert chat.tools == [{"type": "function", "name": "a", "parameters": {"type": "object"}, "strict": True}]
    assert [n.code for n in chat.notes] == ["ambiguous_source", "hosted_tool"]
    claude = convert(
        {
            "system": "s",
            "messages": [{"role": "user", "content": "x"}],
            "tools": [
                {"name": "b", "description": "d", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search"},
            ],
        }
    )
    assert claude.source == "anthropic"
    assert claude.tools == [{"type": "function", "name": "b", "description": "d", "parameters": {"type": "object"}}]
    gemini = convert(
        {
            "contents": [{"role": "user", "parts": [{"text": "x"}]}],
            "tools": [
                {
                    "functionDeclarations": [
                        {"name": "c", "parameters": {"type": "OBJECT", "properties": {"type": {"type": "STRING"}}}}
                    ]
                },
                {"googleSearch": {}},
            ],
        }
    )
    assert gemini.tools[0]["parameters"] == {"type": "object", "properties": {"type": {"type": "string"}}}
    assert [n.code for n in gemini.notes] == ["schema_adjusted", "hosted_tool"]


def test_the_same_call_in_five_envelopes_is_one_function_call():
    calls = []
    for path in sorted((SAMPLES / "same-call").glob("*.json")):
        (item,) = convert_text(path.read_text()).items
        calls.append((item["type"], item["name"], json.loads(item["arguments"]), item["status"]))
    assert len(calls) == 5 and len({json.dumps(call, sort_keys=True) for call in calls}) == 1


def test_open_responses_input_is_not_changed():
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    conversion = convert_text(text)
    # Its rs_ reasoning with encrypted_content makes it a native OpenAI journal (issue 18): read as it is.
    assert conversion.source == "openai" and conversion.notes == []
    assert conversion.items == [json.loads(line) for line in text.splitlines() if line.strip()]
    assert conversion.where(8) == "line 9"


def test_json_lines_of_chat_messages_name_their_lines():
    text = "\n".join(
        json.dumps(m)
        for m in [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ]
    )
    conversion = convert_text(text)
    assert conversion.source == "chat_completions"
    assert [conversion.where(i) for i in range(3)] == ["line 1", "line 2, tool_calls[0]", "line 3"]


def test_a_sessions_page_reads_as_open_responses():
    page = {
        "object": "list",
        "session_key": "k",
        "data": [
            {
                "response_id": "resp_1",
                "source": "input",
                "index": 0,
                "item": {"type": "message", "role": "user", "content": "x"},
                "previous_response_id": None,
            }
        ],
        "has_more": False,
    }
    conversion = convert(page)
    assert (conversion.source, conversion.shape, conversion.where(0)) == ("open_responses", "session", "data[0].item")
    assert conversion.items == [page["data"][0]["item"]]


@pytest.mark.parametrize(
    "value",
    [
        {"messages": [{"role": "user", "content": "x"}]},
        [{"role": "user", "content": "x"}],
    ],
)
def test_plain_messages_are_ambiguous_and_say_so(value):
    assert detect(value) == ("chat_completions", True)
    assert convert(value).notes[0].code == "ambiguous_source"


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"a":', "line 1, column 6"),
        ('{"foo": 1}', "not a conversation"),
        ("[1, 2]", "not a conversation"),
    ],
)
def test_unusable_input_is_a_clear_error(text, words):
    with pytest.raises(ConvertError, match=words):
        convert_text(text)


def test_a_forced_source_that_does_not_fit_names_the_place():
    with pytest.raises(ConvertError) as caught:
        convert({"messages": [{"role": "user", "content": "x"}, 3]}, "anthropic")
    assert caught.value.pointer == "/messages/1"
    with pytest.raises(ConvertError, match="unknown source"):
        convert([], "cohere")


def test_an_image_in_a_tool_result_stays_as_an_input_image_part_of_the_output():
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
    conversion = convert(
        {
            "messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "chart", "input": {}}]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": [{"type": "text", "text": "done"}, image, {"type": "search_result"}],
                        }
                    ],
                },
            ]
        }
    )
    assert conversion.items[1]["output"] == [
        {"type": "input_text", "text": "done"},
        {"type": "input_image", "image_url": "https://example.com/chart.png"},
    ]
    # what it still cannot carry is noted with the item that lost it (issue 18, point 7: the index was null)
    assert [(n.code, n.pointer, n.index) for n in conversion.notes if n.code == "dropped_content"] == [
        ("dropped_content", "/messages/1/content/0/content/2", 1)
    ]


def test_gemini_id_less_calls_of_one_name_get_a_warning_that_pairing_is_by_position():
    conversion = convert(
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "args": {"n": 1}}},
                        {"functionCall": {"name": "f", "args": {"n": 2}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "f", "response": {"n": 2}}},
                        {"functionResponse": {"name": "f", "response": {"n": 1}}},
                    ],
                },
            ]
        }
    )
    warned = [n for n in conversion.notes if n.code == "paired_by_position"]
    assert [(n.pointer, n.index) for n in warned] == [("/contents/1/parts/0/functionResponse", 2)]
    assert "paired with the oldest (call_gemini_0_0) by position" in warned[0].message
    # one call of a name, or calls with ids: nothing to warn about
    single = convert(
        {
            "contents": [
                {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
            ]
        }
    )
    assert "paired_by_position" not in {n.code for n in single.notes}


def test_chat_completions_says_what_it_drops_and_keeps_image_detail():
    conversion = convert(
        {
            "system": "be brief",
            "messages": [
                {
                    "role": "user",
                    "name": "ana",
                    "content": [
                        {"type": "text", "text": "look"},
                        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
                    ],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t"}]},
            ],
        },
        "chat_completions",
    )
    assert conversion.items[0]["content"][1] == {
        "type": "input_image",
        "image_url": "https://example.com/a.png",
        "detail": "low",
    }
    dropped = [(n.code, n.pointer) for n in conversion.notes]
    assert dropped == [
        ("dropped_content", "/system"),
        ("dropped_content", "/messages/0/name"),
        ("dropped_content", "/messages/1/content"),
    ]
    assert "an Anthropic request? use from: anthropic" in conversion.notes[0].message


def test_gemini_call_and_response_members_no_item_field_holds_are_noted():
    conversion = convert(
        {
            "contents": [
                {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}, "partialArgs": []}}]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {}, "willContinue": True}}],
                },
            ]
        }
    )
    dropped = [(n.pointer, n.index, n.message) for n in conversion.notes if n.code == "dropped_content"]
    assert dropped == [
        ("/contents/0/parts/0/functionCall", 0, "partialArgs: no Open Responses field holds them: dropped"),
        ("/contents/1/parts/0/functionResponse", 1, "willContinue: no Open Responses field holds them: dropped"),
    ]
