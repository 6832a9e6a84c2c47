"""The Open Responses item vocabulary, written once: item types, call statuses, namespacing, tool and call shapes.

Every other module asks here whether a type is portable, namespaced or unknown, and where a tool definition keeps
its name and parameters; nothing else spells these facts (``tests/unit/test_architecture.py`` keeps the core pure).
Sources: Open Responses spec, Items (``ItemParam`` / ``ItemField``) and "Extensions" (a ``slug:name`` type is a
provider extension); the vendored OpenAPI in ``tests/data/openresponses-openapi.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The portable core (Open Responses spec, Items): what any provider can take back.
CORE_TYPES = ("message", "function_call", "function_call_output")
MESSAGE, FUNCTION_CALL, FUNCTION_CALL_OUTPUT = CORE_TYPES
#: Other item types the spec defines; their payloads may be provider-bound (``encrypted_content``).
SPEC_TYPES = ("reasoning", "item_reference", "compaction")
#: Every item type the spec defines.
ITEM_TYPES = CORE_TYPES + SPEC_TYPES
#: ``function_call.status`` values (Open Responses spec, Items: state machine). Only ``completed`` may run.
CALL_STATUSES = ("in_progress", "completed", "incomplete")
#: The one status that lets a call run and a ``function_call_output`` be written.
RUNNABLE_STATUS = "completed"


def is_namespaced(item_type: Any) -> bool:
    """``True`` when ``item_type`` is a provider extension: a string with a colon (``openai:web_search_call``).

    Open Responses spec, Extensions: extension types are ``slug:name``; they are never portable.
    """
    return isinstance(item_type, str) and ":" in item_type


def type_kind(item_type: Any) -> str:
    """What an item's ``type`` says about portability.

    :param item_type: the item's ``type`` member as parsed (any JSON value), or ``None`` when it is missing.
    :return: ``"core"`` (:data:`CORE_TYPES`), ``"spec"`` (:data:`SPEC_TYPES`), ``"extension"`` (namespaced),
        ``"unknown"`` (a string the spec does not define), ``"missing"`` (``None``) or ``"invalid"`` (not a
        string).
    """
    if item_type is None:
        return "missing"
    if not isinstance(item_type, str):
        return "invalid"
    if ":" in item_type:
        return "extension"
    if item_type in CORE_TYPES:
        return "core"
    return "spec" if item_type in SPEC_TYPES else "unknown"


#: Members only an item has (a call's or an output's), not a tool's arguments: with an unknown ``type`` they still
#: make an object an item (a newer or a misspelt item type), not bare arguments.
ITEM_ONLY_MEMBERS = ("call_id", "arguments")


def looks_like_item(value: Any) -> bool:
    """Whether a pasted object is an Open Responses item, not a tool's arguments (which may have a ``type`` member
    of their own): its ``type`` is one the spec defines or a provider extension, or any other string with
    :data:`ITEM_ONLY_MEMBERS` beside it (``{"type": "function_call_v2", "call_id": …}``: the gate says
    ``not_function_call``, nothing to execute)."""
    if not isinstance(value, dict):
        return False
    kind = type_kind(value.get("type"))
    return kind in ("core", "spec", "extension") or (kind == "unknown" and any(m in value for m in ITEM_ONLY_MEMBERS))


@dataclass(frozen=True)
class ToolShape:
    """Where a function tool definition keeps its parts.

    :ivar shape: ``"flat"`` (Open Responses: ``{type: "function", name, parameters}``) or ``"nested"`` (Chat
        Completions: ``{type: "function", function: {name, parameters}}``).
    :ivar name: the tool's name, or ``None`` when it has none (or not a string).
    :ivar parameters_pointer: RFC 6901 pointer to its ``parameters`` inside the definition.
    :ivar definition: the object holding ``name`` and ``parameters`` (the tool itself, or its ``function``).
    """

    shape: str
    name: str | None
    parameters_pointer: str
    definition: dict


def tool_shape(value: Any) -> ToolShape | None:
    """The shape of ``value`` when it is a function tool definition, else ``None``.

    A JSON Schema never has ``"type": "function"`` (not a JSON type), so telling a tool from a bare schema is
    unambiguous. Hosted tools (``web_search`` …) are not function tools: ``None``.
    """
    if not isinstance(value, dict) or value.get("type") != "function":
        return None
    function = value.get("function")
    if isinstance(function, dict) and "name" not in value:
        name = function.get("name")
        return ToolShape("nested", name if isinstance(name, str) else None, "/function/parameters", function)
    name = value.get("name")
    return ToolShape("flat", name if isinstance(name, str) else None, "/parameters", value)


def tools_in(value: Any) -> list[tuple[str, dict]]:
    """The named function tool definitions in a pasted value, as ``(name, tool)`` in order: a tool definition, a
    list of them (nested lists too), or an object with a ``tools`` list (a CreateResponseBody, a ResponseResource,
    a Chat Completions request). Tools without a name (nothing could pick them), hosted tools and tool *calls*
    (a Chat Completions ``{type: "function", function: {name, arguments}}`` has a tool's nested shape) are left out.

    Iterative: the value may be as deep as the parse limit allows.
    """
    found: list[tuple[str, dict]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            shape = tool_shape(node)
            if shape is not None:
                if shape.name is not None and call_shape(node) is None:
                    found.append((shape.name, node))
            elif isinstance(node.get("tools"), list):
                stack.append(node["tools"])
    return found


@dataclass(frozen=True)
class CallShape:
    """Where a pasted tool call keeps its parts.

    :ivar kind: ``"call"`` (an Open Responses ``function_call`` item, Open Responses spec, Items) or
        ``"chat_call"`` (a Chat Completions tool call ``{type: "function", function: {name, arguments}}``).
    :ivar name: the called function's name, or ``None`` when it has none (or not a string).
    :ivar arguments_pointer: RFC 6901 pointer to its ``arguments`` (``/arguments``, ``/function/arguments``).
    """

    kind: str
    name: str | None
    arguments_pointer: str


def call_shape(value: Any) -> CallShape | None:
    """The shape of ``value`` when it is a tool call holding ``arguments``, else ``None`` (a ``function_call``
    without ``arguments`` is an item like any other)."""
    if not isinstance(value, dict):
        return None
    if value.get("type") == "function_call" and "arguments" in value:
        name = value.get("name")
        return CallShape("call", name if isinstance(name, str) else None, "/arguments")
    function = value.get("function")
    if value.get("type") == "function" and isinstance(function, dict) and "arguments" in function:
        name = function.get("name")
        return CallShape("chat_call", name if isinstance(name, str) else None, "/function/arguments")
    return None
