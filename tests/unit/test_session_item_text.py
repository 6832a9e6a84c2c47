"""What the sessions page shows of each item without opening its JSON (webapp.core.responses.sessions.item_text)."""

from __future__ import annotations

import pytest

from webapp.core.responses.sessions import TEXT_CHARS, item_text


@pytest.mark.parametrize(
    ("item", "text"),
    [
        ({"type": "message", "role": "user", "content": "sales now"}, "sales now"),
        (
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Here."}, {"type": "refusal", "refusal": "Not that."}],
            },
            "Here.\n\nNot that.",
        ),
        (
            {"type": "function_call", "name": "get_weather", "call_id": "c", "arguments": '{"city":"Paris"}'},
            'get_weather({"city":"Paris"})',
        ),
        ({"type": "function_call", "name": "f", "arguments": {"a": 1}}, 'f({"a": 1})'),
        ({"type": "custom_tool_call", "name": "sql", "input": "SELECT 1"}, "sql(SELECT 1)"),
        ({"type": "function_call_output", "call_id": "c", "output": '{"t": 21}'}, '{"t": 21}'),
        ({"type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}]}, "Think."),
        ({"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "x"}]}, None),
        ({"type": "item_reference", "id": "msg_1"}, None),
    ],
)
def test_an_items_text(item, text):
    assert item_text(item) == text


def test_a_long_text_is_cut_and_says_so():
    said = item_text({"type": "message", "role": "user", "content": "x" * (TEXT_CHARS + 5)})
    assert said is not None and len(said) == TEXT_CHARS + 1 and said.endswith("…")
