"""The item vocabulary (``webapp/core/items.py``)."""

from __future__ import annotations

import pytest
from support import REPO

from webapp.core.items import (
    ITEM_TYPES,
    OPENAI_CALL_OUTPUTS,
    OPENAI_ITEM_TYPES,
    is_namespaced,
    provider_of,
    tool_shape,
    type_kind,
)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("openai:web_search_call", True),
        ("anthropic:web_search_tool_result", True),
        ("function_call", False),
        (":", True),
        (None, False),
        (7, False),
        (["a:b"], False),
    ],
)
def test_a_colon_in_a_string_type_is_namespaced(value, expected):
    assert is_namespaced(value) is expected


@pytest.mark.parametrize(
    "value, expected",
    [
        ("message", "core"),
        ("function_call", "core"),
        ("function_call_output", "core"),
        ("reasoning", "spec"),
        ("item_reference", "spec"),
        ("compaction", "spec"),
        ("openai:web_search_call", "extension"),
        ("web_search_call", "provider"),  # OpenAI's native type, unprefixed (issue 18)
        ("frobnicate", "unknown"),
        (None, "missing"),
        (3, "invalid"),
        ({"type": "x"}, "invalid"),
    ],
)
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


def test_tools_in_a_pasted_value_are_the_named_function_tools_wherever_a_tools_list_is():
    from webapp.core.items import tools_in

    flat = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    nested = {"type": "function", "function": {"name": "lookup", "parameters": {}}}
    hosted, unnamed = {"type": "web_search"}, {"type": "function", "parameters": {}}
    chat_call = {"type": "function", "function": {"name": "lookup", "arguments": "{}"}}  # a call, not a tool
    assert tools_in([flat, [nested], hosted, unnamed, chat_call]) == [("get_weather", flat), ("lookup", nested)]
    body = {"model": "m", "input": [], "tools": [nested, flat]}  # a CreateResponseBody
    assert tools_in(body) == [("lookup", nested), ("get_weather", flat)]
    assert tools_in(flat) == [("get_weather", flat)] and tools_in({"type": "object"}) == [] and tools_in(3) == []
    deep: list = [flat]
    for _ in range(5000):  # no recursion
        deep = [deep]
    assert tools_in(deep) == [("get_weather", flat)]


def test_call_shapes():
    from webapp.core.items import call_shape

    item = {"type": "function_call", "name": "get_weather", "arguments": "{}"}
    assert call_shape(item) == call_shape(item) and (call_shape(item).kind, call_shape(item).name) == (
        "call",
        "get_weather",
    )
    assert call_shape(item).arguments_pointer == "/arguments"
    chat = {"type": "function", "id": "c1", "function": {"name": "lookup", "arguments": "{}"}}
    assert (call_shape(chat).kind, call_shape(chat).name, call_shape(chat).arguments_pointer) == (
        "chat_call",
        "lookup",
        "/function/arguments",
    )
    assert call_shape({"type": "function_call", "name": "x"}) is None  # no arguments: an item like any other
    assert call_shape({"type": "function_call", "name": 3, "arguments": "{}"}).name is None
    assert call_shape({"type": "function", "name": "x", "parameters": {}}) is None  # a tool definition
    assert call_shape([item]) is None


def test_the_browser_script_leaves_tool_and_call_shapes_to_the_server():
    """Issue 11: the browser's one state script (since split) re-spelled tool_shape; the server (POST /api/tools) is
    now the one source (the modules of static/state/ since issue 17)."""

    modules = sorted((REPO / "static" / "state").glob("*.js"))
    assert modules
    script = "\n".join(path.read_text() for path in modules)
    assert '"function"' not in script and ".function" not in script and "function_call" not in script
    assert "/api/tools" in script or "toolsUrl" in script


@pytest.mark.parametrize(
    ("name", "provider"),
    [
        ("anthropic:signature", "anthropic"),
        ("gemini:thought_signature", "gemini"),
        ("openai:web_search_call", "openai"),
        ("web_search_call", "openai"),
        ("custom_tool_call_output", "openai"),
        ("message", None),
        ("reasoning", None),
        ("function_call_v2", None),
        (7, None),
        (None, None),
    ],
)
def test_provider_of_reads_the_prefix_or_openais_native_types(name, provider):
    assert provider_of(name) == provider


def test_every_native_call_type_has_its_output_type_in_the_vocabulary():
    for call, output in OPENAI_CALL_OUTPUTS.items():
        assert OPENAI_ITEM_TYPES[call] == "call"
        assert OPENAI_ITEM_TYPES[output] == "output"
