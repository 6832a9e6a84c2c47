"""The Open Responses item vocabulary, written once: item types, call statuses, namespacing, tool and call shapes.

Every other module asks here whether a type is portable, namespaced or unknown, and where a tool definition keeps
its name and parameters; nothing else spells these facts (``tests/unit/test_architecture.py`` keeps the core pure).
Sources: Open Responses spec, Items (``ItemParam`` / ``ItemField``) and "Extensions" (a ``slug:name`` type is a
provider extension); the vendored OpenAPI in ``tests/data/openresponses-openapi.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeGuard

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


#: OpenAI's native item types: the Responses API takes them back as input, unprefixed, but they are OpenAI's, not
#: the spec's (docs/targets.md, O9: the union ``ResponseInputItemParam`` of the ``openai`` SDK; those it does not
#: take back are :data:`OPENAI_NOT_INPUT`). Each maps to what kind of item it is: ``"call"`` (a client runs it and
#: answers with its output type), ``"output"`` (answers a call), ``"hosted"`` (OpenAI ran it; nothing to answer) or
#: ``"state"`` (tool lists, approvals, program state, compaction).
OPENAI_ITEM_TYPES: dict[str, str] = {
    "web_search_call": "hosted",
    "file_search_call": "hosted",
    "code_interpreter_call": "hosted",
    "image_generation_call": "hosted",
    "computer_call": "call",
    "computer_call_output": "output",
    "local_shell_call": "call",
    "local_shell_call_output": "output",
    "shell_call": "call",
    "shell_call_output": "output",
    "apply_patch_call": "call",
    "apply_patch_call_output": "output",
    "custom_tool_call": "call",
    "custom_tool_call_output": "output",
    "tool_search_call": "call",
    "tool_search_output": "output",
    "mcp_list_tools": "state",
    "mcp_approval_request": "call",
    "mcp_approval_response": "output",
    "mcp_call": "hosted",
    "additional_tools": "state",
    "program": "state",
    "program_output": "state",
    "compaction_trigger": "state",
    "context_compaction": "state",
}
#: Native types OpenAI's clients store but the Responses API refuses as input (its error lists the input types and
#: not these): Codex's ``context_compaction`` (an encrypted one goes back as a ``compaction`` item, an empty one is
#: a marker of the client's own). docs/targets.md O18; openai/codex#27423 (the error), openai/codex#27289.
OPENAI_NOT_INPUT = frozenset({"context_compaction"})
#: The input item that asks OpenAI to compact the conversation: "Must be the final input item"
#: (``CompactionTrigger`` in the SDK's ``response_input_param.py``); docs/targets.md O17.
COMPACTION_TRIGGER = "compaction_trigger"
#: Native items that carry tool definitions the model may call after them, in their ``tools`` member:
#: ``additional_tools`` ("A list of additional tools made available at this item") and ``tool_search_output`` ("The
#: loaded tool definitions returned by the tool search output"); docs/targets.md O19.
OPENAI_TOOL_ITEMS = ("additional_tools", "tool_search_output")
#: OpenAI's tool that groups function and custom tools under a name (``NamespaceToolParam``: ``{"type":
#: "namespace", "name", "description", "tools"}``); a call of one of them names it in its ``namespace`` member.
NAMESPACE_TOOL = "namespace"

#: The item id prefix OpenAI issues, by item type: an input item whose ``id`` lacks its type's prefix is refused
#: ("Invalid 'input[N].id': '…'. Expected an ID that begins with 'fc'.", ``invalid_id_prefix``). docs/targets.md
#: O16; only the types whose prefix OpenAI's error text shows are listed.
OPENAI_ID_PREFIXES: dict[str, str] = {
    "message": "msg_",
    "function_call": "fc_",
    "custom_tool_call": "ctc_",
    "reasoning": "rs_",
}
#: The longest ``id`` and ``call_id`` an OpenAI input item may have ("string too long. Expected a string with
#: maximum length 64", ``string_above_max_length``); docs/targets.md O16.
OPENAI_MAX_ID = 64
#: What an Anthropic ``tool_use.id`` (and so ``tool_result.tool_use_id``) may hold, whole (``fullmatch``): the
#: Messages API refuses others ("String should match pattern '^[a-zA-Z0-9_-]+$'"); docs/targets.md A7.
ANTHROPIC_CALL_ID = re.compile(r"[a-zA-Z0-9_-]+")
#: OpenAI's call of a custom tool: free-text ``input`` checked against the tool's ``format`` (docs/targets.md O12).
CUSTOM_TOOL_CALL = "custom_tool_call"
#: A native call type and the output type that answers it, paired by ``call_id`` (``mcp_approval_request`` is
#: answered by ``approval_request_id``); docs/targets.md O11, O13, O14.
OPENAI_CALL_OUTPUTS: dict[str, str] = {
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "tool_search_call": "tool_search_output",
    "mcp_approval_request": "mcp_approval_response",
}
#: The provider slugs this project knows, as item-type prefixes and member-name prefixes use them
#: (``anthropic:server_tool_use``, ``"anthropic:signature"``); ``openai`` also owns :data:`OPENAI_ITEM_TYPES`.
PROVIDERS = ("openai", "anthropic", "gemini", "chat_completions")


def provider_of(name: Any) -> str | None:
    """The provider an item type or a member name belongs to, or ``None`` when it is the spec's (or not a string).

    A name with a colon belongs to the slug before it (Open Responses spec, "Extending Items": ``<slug>:<name>``;
    the same spelling marks a provider's member on an item, ``"gemini:thought_signature"``); an unprefixed
    :data:`OPENAI_ITEM_TYPES` name is ``"openai"``. Any slug counts, known to :data:`PROVIDERS` or not.

    >>> provider_of("anthropic:signature"), provider_of("web_search_call"), provider_of("message")
    ('anthropic', 'openai', None)
    """
    if not isinstance(name, str):
        return None
    slug, colon, _ = name.partition(":")
    if colon:
        return slug
    return "openai" if name in OPENAI_ITEM_TYPES else None


def native_openai(items: Any) -> bool:
    """Whether a list of Open Responses-shaped items is a native OpenAI Responses journal (source ``openai``): one
    of them has an unprefixed :data:`OPENAI_ITEM_TYPES` type, or is a ``reasoning`` item OpenAI issued (an ``rs_``
    id with ``encrypted_content``). docs/targets.md O9, O3; the design of issue 18, "source".

    :param items: the items (entries that are not objects are skipped); anything but a list or tuple is ``False``.
    """
    if not isinstance(items, (list, tuple)):
        return False
    for item in items:
        if not isinstance(item, dict):
            continue
        item_type = item.get("type")
        if isinstance(item_type, str) and item_type in OPENAI_ITEM_TYPES:
            return True
        item_id = item.get("id")
        if (
            item_type == "reasoning"
            and isinstance(item_id, str)
            and item_id.startswith("rs_")
            and isinstance(item.get("encrypted_content"), str)
        ):
            return True
    return False


def is_namespaced(item_type: Any) -> TypeGuard[str]:
    """``True`` when ``item_type`` is a provider extension: a string with a colon (``openai:web_search_call``).

    Open Responses spec, Extensions: extension types are ``slug:name``; they are never portable.
    """
    return isinstance(item_type, str) and ":" in item_type


def type_kind(item_type: Any) -> str:
    """What an item's ``type`` says about portability.

    :param item_type: the item's ``type`` member as parsed (any JSON value), or ``None`` when it is missing.
    :return: ``"core"`` (:data:`CORE_TYPES`), ``"spec"`` (:data:`SPEC_TYPES`), ``"extension"`` (namespaced),
        ``"provider"`` (OpenAI's native type sent unprefixed: :data:`OPENAI_ITEM_TYPES`), ``"unknown"`` (a string
        neither the spec nor a provider prefix names), ``"missing"`` (``None``) or ``"invalid"`` (not a string).
    """
    if item_type is None:
        return "missing"
    if not isinstance(item_type, str):
        return "invalid"
    if ":" in item_type:
        return "extension"
    if item_type in CORE_TYPES:
        return "core"
    if item_type in SPEC_TYPES:
        return "spec"
    return "provider" if item_type in OPENAI_ITEM_TYPES else "unknown"


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
    return kind in ("core", "spec", "extension", "provider") or (
        kind == "unknown" and any(m in value for m in ITEM_ONLY_MEMBERS)
    )


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
