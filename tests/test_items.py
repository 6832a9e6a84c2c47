"""The item vocabulary (``webapp/core/items.py``)."""

from __future__ import annotations

import pytest

from webapp.core.items import ITEM_TYPES, is_namespaced, tool_shape, type_kind


@pytest.mark.parametrize("value, expected", [
    ("openai:web_search_call", True), ("anthropic:web_search_tool_result", True), ("function_call", False),
    (":", True), (None, False), (7, False), (["a:b"], False),
])
def test_a_colon_in_a_string_type_is_namespaced(value, expected):
    assert is_namespaced(value) is expected


@pytest.mark.parametrize("value, expected", [
    ("message", "core"), ("function_call", "core"), ("function_call_output", "core"), ("reasoning", "spec"),
    ("item_reference", "spec"), ("compaction", "spec"), ("openai:web_search_call", "extension"),
    ("web_search_call", "unknown"), (None, "missing"), (3, "invalid"), ({"type": "x"}, "invalid"),
])
def test_type_kind(value, expected):
    assert type_kind(value) == expected


def test_every_spec_type_has_a_kind():
    assert {type_kind(t) for t in ITEM_TYPES} == {"core", "spec"}


def test_tool_shapes():
    flat = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    nested = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    assert tool_shape(flat).shape == "flat" and tool_shape(flat).parameters_pointer == "/parameters"
    assert tool_shape(flat).definition is flat
    shape = tool_shape(nested)
    assert (shape.shape, shape.name, shape.parameters_pointer) == ("nested", "get_weather", "/function/parameters")
    assert shape.definition is nested["function"]
    assert tool_shape({"type": "function", "name": 3}).name is None
    assert tool_shape({"type": "object", "properties": {}}) is None  # a schema, not a tool
    assert tool_shape({"type": "web_search"}) is None
    assert tool_shape([]) is None
