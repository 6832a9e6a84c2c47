"""The tools a call is checked against, and which calls ``tool_choice`` lets run.

A call's schema is its function tool's ``parameters`` (:func:`tool_table`, :func:`tool_schema`); a schema field of
a page, of ``/api/gate`` or of the CLI may hold a JSON Schema, a tool definition or a list of them
(:func:`read_schema_field`, the one reader of it). ``tool_choice`` is read once, here (:func:`allowed_names`), with
its modes (:data:`TOOL_CHOICE_MODES`) and the pattern of a function's name (:data:`FUNCTION_NAME`) that the
``/v1`` request models check too. Sources: Open Responses spec, "tool_choice"; ``FunctionToolParam``,
``ToolChoiceValueEnum`` and ``AllowedToolChoice`` in ``tests/data/openresponses-openapi.json``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from webapp.core.gate.report import Finding
from webapp.core.items import NAMESPACE_TOOL, tool_shape
from webapp.core.json import kind_of as _kind
from webapp.core.json import pointer
from webapp.core.json import quote as _q
from webapp.core.schema import SchemaError, compile_schema

__all__ = [
    "FUNCTION_NAME",
    "FUNCTION_NAME_RULE",
    "GEMINI_FUNCTION_NAME",
    "GEMINI_FUNCTION_NAME_RULE",
    "NO_PARAMETERS_SCHEMA",
    "TOOL_CHOICE_MODES",
    "SchemaField",
    "ToolEntry",
    "allowed_names",
    "parameters_of",
    "read_schema_field",
    "tool_key",
    "tool_schema",
    "tool_table",
]

#: When a function tool has no ``parameters``, its arguments must still be a JSON object.
NO_PARAMETERS_SCHEMA: dict[str, Any] = {"type": "object"}

#: ``tool_choice`` as a string, and an ``allowed_tools`` choice's ``mode`` (``ToolChoiceValueEnum``): ``none`` (no
#: tool may be called), ``auto`` (the model decides), ``required`` (at least one call).
TOOL_CHOICE_MODES = ("none", "auto", "required")

#: A function's name, whole (``fullmatch``): ``FunctionToolParam.name`` is 1 to 64 of ``[a-zA-Z0-9_-]``.
FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: :data:`FUNCTION_NAME` in words, for error messages.
FUNCTION_NAME_RULE = "1-64 characters of letters, digits, '_' or '-'"
#: A Gemini function's name, whole: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
#: underscores, dots, colons and dashes, with a maximum length of 128" (``FunctionDeclaration.name``, google-genai
#: ``types.py``; docs/targets.md G8).
GEMINI_FUNCTION_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}")
#: :data:`GEMINI_FUNCTION_NAME` in words.
GEMINI_FUNCTION_NAME_RULE = "a letter or '_', then letters, digits, '_', '.', ':' or '-', 128 characters at most"


class SchemaField(NamedTuple):
    """What a schema field holds (:func:`read_schema_field`): ``(schema, tools)``, at most one of them given.

    :ivar schema: the value itself when it is no tool definition (a JSON Schema, or what the caller refuses as not
        being one: it is not checked here), else ``None``.
    :ivar tools: the function tool definitions it holds (``[the tool]`` for one), else ``None``.
    """

    schema: Any
    tools: list[Any] | None


def read_schema_field(value: Any) -> SchemaField:
    """The one reader of a field that may hold a JSON Schema, a tool definition or a list of them (the Schema
    page's schema, the Diff page's tool schema, ``/api/gate``'s ``schema``, the CLI's ``--schema``).

    A function tool definition (flat or Chat Completions shape: :func:`webapp.core.items.tool_shape`) is read as the
    tools ``[value]``, a non-empty list whose every entry is one as those tools: a call is then checked against the
    parameters of the tool of its name, and a call of another name has none (``arguments_schema``, or
    ``unknown_tool`` in a journal). Anything else is the schema (``None`` stays ``(None, None)``).

    :return: a :class:`SchemaField`.
    """
    if tool_shape(value) is not None:
        return SchemaField(None, [value])
    if isinstance(value, list) and value and all(tool_shape(entry) is not None for entry in value):
        return SchemaField(None, list(value))
    return SchemaField(value, None)


@dataclass
class ToolEntry:
    """One function tool of a :func:`tool_table`: its ``name``, the ``schema`` its calls are checked against (its
    ``parameters``, or :data:`NO_PARAMETERS_SCHEMA`), ``where`` it was given (``tools[2]``) and the ``problem``
    that makes the schema unusable, if any."""

    name: str
    schema: Any
    where: str
    problem: SchemaError | None = None


def tool_key(name: str, namespace: Any = None) -> str:
    """The key of a function tool in a :func:`tool_table`: its ``name``, or ``"<namespace>/<name>"`` for a tool of
    an OpenAI ``namespace`` tool, which a call names by its ``name`` and ``namespace`` members
    (``ResponseFunctionToolCallParam.namespace``, docs/targets.md O19; no function name holds a ``/``)."""
    return f"{namespace}/{name}" if isinstance(namespace, str) and namespace else name


def tool_table(tools: Iterable[Any] | None, findings: list[Finding], base: str = "tools") -> dict[str, ToolEntry]:
    """Function tools by name, from ``CreateResponseBody.tools`` (flat ``{type:"function", name, parameters}``);
    the nested Chat Completions shape ``{type:"function", function:{name, parameters}}`` is recognised and
    reported (:func:`webapp.core.items.tool_shape` tells them apart). The function tools of an OpenAI
    ``namespace`` tool (``NamespaceToolParam``, docs/targets.md O19) are in it by :func:`tool_key`. Other tool
    types (hosted tools) are not function tools and are skipped.

    :param findings: receives the findings about the definitions (``invalid_tool``, ``chat_completions_tool``,
        ``tool_schema_invalid``), in order.
    :param base: how the findings name the list (``tools``; ``item 3 tools`` for the tools an item carries).
    :return: key -> :class:`ToolEntry`, in the order given; the first of two tools of one key wins."""
    table: dict[str, ToolEntry] = {}
    listed: list[tuple[str, Any, str | None]] = []
    for position, tool in enumerate(tools or ()):
        inner = tool.get("tools") if isinstance(tool, dict) and tool.get("type") == NAMESPACE_TOOL else None
        namespace = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(inner, list) and isinstance(namespace, str) and namespace:
            listed += [(f"{base}[{position}].tools[{j}]", each, namespace) for j, each in enumerate(inner)]
        else:
            listed.append((f"{base}[{position}]", tool, None))
    for where, tool, namespace in listed:
        if not isinstance(tool, dict):
            findings.append(Finding.of("invalid_tool", None, f"{where} is {_kind(tool)}, not a tool definition"))
            continue
        shape = tool_shape(tool)
        if shape is None:
            continue
        if shape.shape == "nested":
            findings.append(
                Finding.of(
                    "chat_completions_tool",
                    None,
                    f"{where} uses the Chat Completions shape "
                    "{type, function: {name, parameters}}; Open Responses tools are flat "
                    '{type: "function", name, parameters} (its schema is still used)',
                )
            )
        if not shape.name:
            findings.append(Finding.of("invalid_tool", None, f"{where} has no name"))
            continue
        name = tool_key(shape.name, namespace)
        if name in table:
            findings.append(
                Finding.of(
                    "invalid_tool",
                    None,
                    f"{where}: a second tool named {_q(name)} (the first is {table[name].where}); calls use the first",
                )
            )
            continue
        schema = shape.definition.get("parameters")
        entry = ToolEntry(name, NO_PARAMETERS_SCHEMA if schema is None else schema, where)
        try:
            compile_schema(entry.schema)
        except SchemaError as exc:
            entry.problem = exc
            place = where + "".join(f".{token}" for token in pointer.split(shape.parameters_pointer))
            findings.append(Finding.of("tool_schema_invalid", None, f"{place}{exc.pointer}: {exc.message}"))
        table[name] = entry
    return table


def tool_schema(tools: Iterable[Any] | None, name: Any) -> dict | bool | None:
    """The parameters schema of the function tool called ``name`` in ``tools`` (flat or Chat Completions shape;
    ``{"type": "object"}`` when it has none), or ``None`` when there is no such tool."""
    entry = tool_table(tools, []).get(name) if isinstance(name, str) else None
    return entry.schema if entry is not None else None


def parameters_of(value: Any) -> Any:
    """``value`` as the schema of a call: a function tool definition (flat or Chat Completions shape) is its
    ``parameters`` (``{"type": "object"}`` without them), as the Schema page reads one; anything else is itself."""
    shape = tool_shape(value)
    if shape is None:
        return value
    parameters = shape.definition.get("parameters")
    return NO_PARAMETERS_SCHEMA if parameters is None else parameters


def allowed_names(tool_choice: Any) -> tuple[set[str] | None, str, str | None]:
    """What ``tool_choice`` lets run (Open Responses spec, "tool_choice"; ``ToolChoiceParam`` and
    ``AllowedToolChoice`` in ``tests/data/openresponses-openapi.json``).

    ``None``, ``"auto"`` and ``"required"`` allow every tool; ``"none"`` none; ``{type: "function", name}``
    that one; ``{type: "allowed_tools", tools, mode}`` the listed names in ``auto`` and ``required`` mode (the
    default is ``auto``), none in ``none`` mode ("no tool may be called"). ``required`` asks the producing turn
    for at least one call; replaying a call does not depend on it.

    :return: ``(names, words, problem)``: the names allowed (``None`` = any), words for messages, and why the
        gate cannot read ``tool_choice`` (then no name is allowed, so no call passes silently), else ``None``.
    """
    if tool_choice is None or tool_choice in ("auto", "required"):
        return None, "", None
    if tool_choice == "none":
        return set(), 'tool_choice is "none"', None
    if not isinstance(tool_choice, dict):
        return (
            set(),
            "",
            (
                f"tool_choice {_q(tool_choice)} is not one of {', '.join(map(_q, TOOL_CHOICE_MODES))}, "
                '{type: "function", name} or {type: "allowed_tools", tools, mode}'
            ),
        )
    kind = tool_choice.get("type")
    if kind == "function":
        name = tool_choice.get("name")
        if not isinstance(name, str) or not name:
            return set(), "", 'tool_choice {type: "function"} has no name'
        return {name}, f"tool_choice forces {_q(name)}", None
    if kind != "allowed_tools":
        return (
            set(),
            "",
            (
                f'tool_choice type {_q(kind)} is not one the gate knows ("function", '
                '"allowed_tools"): which calls it allows cannot be checked'
            ),
        )
    listed = tool_choice.get("tools")
    if not isinstance(listed, list) or not listed:
        return set(), "", "tool_choice allowed_tools has no tools list (it must list 1 to 128 tools)"
    names: set[str] = set()
    for position, entry in enumerate(listed):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            return set(), "", f'tool_choice.tools[{position}] is not a {{type: "function", name}} entry'
        names.add(name)
    mode = tool_choice.get("mode", "auto")
    mode = "auto" if mode is None else mode
    if mode not in TOOL_CHOICE_MODES:
        return (
            set(),
            "",
            (f"tool_choice allowed_tools mode {_q(mode)} is not one of {', '.join(map(_q, TOOL_CHOICE_MODES))}"),
        )
    shown = ", ".join(sorted(map(_q, names)))
    if mode == "none":
        return set(), f'tool_choice allowed_tools has mode "none" (no tool may be called; it lists {shown})', None
    return names, f"tool_choice allowed_tools lists {shown}", None
