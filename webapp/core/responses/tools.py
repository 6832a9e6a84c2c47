"""The tools of a ``/v1/responses`` request and its ``tool_choice``: flat function tools, checked.

Pure (no Flask, no I/O). Shapes: Open Responses OpenAPI 2026-04-24, ``FunctionToolParam``, ``ToolChoiceParam``;
spec notes §1.7. A tool's ``parameters`` must describe a JSON object (:func:`function_parameters_problem`);
whether it is a usable JSON Schema is the pipeline's check (``webapp.core.schema``). The nested Chat Completions
shape is refused with a hint at the flat one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webapp.core.gate import TOOL_CHOICE_MODES
from webapp.core.responses.fields import (
    CHAT_ENVELOPE,
    INVALID_TYPE,
    INVALID_VALUE,
    UNSUPPORTED,
    RequestError,
    expect_array,
    expect_boolean,
    expect_enum,
    expect_name,
    expect_object,
    expect_string,
    path_index,
    path_key,
    quoted_list,
    required,
)

INVALID_PARAMETERS = "invalid_function_parameters"  # OpenAI's code for a tool schema it cannot use
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
# Keywords that apply to objects only (JSON Schema 2020-12 validation §6.5, applicator §10.3.2; draft-07's
# ``dependencies``): a schema without ``type`` that uses one describes an object.
OBJECT_KEYWORDS = (
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
)
# Keywords that assert nothing: a parameters schema made only of these means "no parameters".
ANNOTATION_KEYWORDS = frozenset(
    ("$schema", "$id", "$comment", "$anchor", "$defs", "definitions", "title", "description")
)


@dataclass(frozen=True)
class Tool:
    """A flat function tool (``FunctionToolParam``)."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None

    def echo(self) -> dict[str, Any]:
        """The ``FunctionTool`` of a ``ResponseResource``: every key present, nulls included (spec §4)."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "strict": self.strict,
        }


def parse_tools(value: Any, path: str = "tools") -> list[Tool]:
    """Validate ``tools``: flat function tools with unique names.

    :raises RequestError: a non-function tool type, the nested Chat Completions shape, a bad or duplicate
        name, ``parameters`` that is not an object or does not describe a JSON object (code
        ``invalid_function_parameters``, see :func:`function_parameters_problem`).
    """
    tools: list[Tool] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(expect_array(value, path)):
        where = path_index(path, i)
        raw = expect_object(raw, where)
        if "function" in raw and "name" not in raw:
            raise RequestError(
                "this is the Chat Completions tool shape; Responses tools are flat: "
                '{"type": "function", "name": ..., "parameters": {...}}',
                path_key(where, "function"),
                CHAT_ENVELOPE,
            )
        kind = required(raw, "type", where)
        if kind != "function":
            raise RequestError(
                f"unsupported tool type {kind!r}; this server offers function tools only",
                path_key(where, "type"),
                UNSUPPORTED if isinstance(kind, str) else INVALID_TYPE,
            )
        name = expect_name(required(raw, "name", where), path_key(where, "name"))
        if name in seen:
            raise RequestError(
                f"duplicate tool name {name!r} (also tools[{seen[name]}])", path_key(where, "name"), INVALID_VALUE
            )
        seen[name] = i
        description = expect_string(raw.get("description"), path_key(where, "description"), nullable=True)
        parameters = raw.get("parameters")
        if parameters is not None:
            expect_object(parameters, path_key(where, "parameters"))
            problem = function_parameters_problem(parameters)
            if problem is not None:
                raise RequestError(problem, path_key(where, "parameters"), INVALID_PARAMETERS)
        strict = expect_boolean(raw.get("strict"), path_key(where, "strict"), nullable=True)
        tools.append(Tool(name, description, parameters, strict))
    return tools


def function_parameters_problem(parameters: dict[str, Any]) -> str | None:
    """Why ``parameters`` cannot be a function tool's parameters, or ``None`` when it can.

    A call's ``arguments`` are a JSON object (Open Responses spec, function_call: "the function arguments as a
    JSON string"; the gate refuses anything else), so the parameters must describe one: ``"type": "object"``
    (or a type list of ``"object"`` and ``"null"``), or no ``type`` with object keywords (:data:`OBJECT_KEYWORDS`),
    or no assertion at all (``{}``, only ``title``/``description``/``$defs``...: a function without parameters,
    called with ``{}``). Anything else (``{"type": "string"}``, a bare ``anyOf``) would make the model emit
    arguments that the endpoint itself refuses when they are sent back.

    A ``type`` that is not a JSON type name (``"objekt"``) is left to the JSON Schema check, which names the place
    inside the schema.

    :param parameters: the tool's ``parameters`` object.
    :return: a sentence for :class:`RequestError`, or ``None``.
    """
    kind = parameters.get("type")
    names = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if names is None or not all(isinstance(n, str) and n in JSON_TYPES for n in names):
        if "type" in parameters:
            return None  # not a valid type: the schema check names it
        if any(key in parameters for key in OBJECT_KEYWORDS) or set(parameters) <= ANNOTATION_KEYWORDS:
            return None
        found = ", ".join(sorted(parameters)[:5])
        return (
            'function parameters must describe a JSON object: use "type": "object", or no type with object '
            f"keywords such as properties or required (this schema has only {found}); a call's arguments are "
            "always a JSON object"
        )
    if "object" in names and set(names) <= {"object", "null"}:
        return None
    shown = json.dumps(kind)
    return (
        f'function parameters must describe a JSON object, not type {shown}: use "type": "object" with '
        "properties (wrap a single value as a property), or no type with object keywords; a call's "
        "arguments are always a JSON object"
    )


@dataclass(frozen=True)
class ToolChoice:
    """``tool_choice``, normalised (Open Responses spec, tool_choice; spec notes §1.7).

    :param mode: ``none`` (no tool), ``auto`` (the model decides) or ``required`` (at least one call).
    :param names: the tools that may be called; ``None`` means every tool of the request.
    :param kind: the shape sent: ``none``/``auto``/``required``, ``function`` or ``allowed_tools``.
    """

    mode: str = "auto"
    names: tuple[str, ...] | None = None
    kind: str = "auto"

    def echo(self) -> str | dict[str, Any]:
        """The response's ``tool_choice``: the enum, ``FunctionToolChoice`` or ``AllowedToolChoice`` (with
        ``mode``, which the response schema requires)."""
        if self.kind == "function":
            assert self.names
            return {"type": "function", "name": self.names[0]}
        if self.kind == "allowed_tools":
            return {
                "type": "allowed_tools",
                "tools": [{"type": "function", "name": n} for n in self.names or ()],
                "mode": self.mode,
            }
        return self.mode


def parse_tool_choice(value: Any, path: str = "tool_choice") -> ToolChoice:
    """Validate ``tool_choice``: ``none|auto|required``, ``{type: function, name}`` or
    ``{type: allowed_tools, tools: [...] (1-128), mode?}``. Names are checked against the tools later
    (:func:`check_tool_choice`), once tools inherited from a previous response are known."""
    if value is None or isinstance(value, str):
        mode = expect_enum(value, path, TOOL_CHOICE_MODES, nullable=True) or "auto"
        return ToolChoice(mode, None, mode)
    value = expect_object(value, path)
    kind = required(value, "type", path)
    if kind == "function":
        if "function" in value and "name" not in value:
            raise RequestError(
                'this is the Chat Completions shape; use {"type": "function", "name": ...}',
                path_key(path, "function"),
                CHAT_ENVELOPE,
            )
        return ToolChoice("required", (expect_name(required(value, "name", path), path_key(path, "name")),), "function")
    if kind == "allowed_tools":
        where = path_key(path, "tools")
        listed = expect_array(required(value, "tools", path), where)
        if not 1 <= len(listed) <= 128:
            raise RequestError(f"must list 1 to 128 tools, got {len(listed)}", where, INVALID_VALUE)
        names: list[str] = []
        for i, entry in enumerate(listed):
            at = path_index(where, i)
            entry = expect_object(entry, at)
            expect_enum(required(entry, "type", at), path_key(at, "type"), ("function",))
            names.append(expect_name(required(entry, "name", at), path_key(at, "name")))
        mode = expect_enum(value.get("mode"), path_key(path, "mode"), TOOL_CHOICE_MODES, nullable=True) or "auto"
        return ToolChoice(mode, tuple(dict.fromkeys(names)), "allowed_tools")
    raise RequestError(
        f"expected 'function' or 'allowed_tools', got {kind!r} (or use one of {quoted_list(TOOL_CHOICE_MODES)})",
        path_key(path, "type"),
        INVALID_VALUE if isinstance(kind, str) else INVALID_TYPE,
    )


def check_tool_choice(choice: ToolChoice, tools: list[Tool]) -> None:
    """Every name ``tool_choice`` gives must be a tool of the request; ``required`` needs a tool.

    :raises RequestError: naming ``tool_choice`` (or the entry at fault).
    """
    known = {tool.name for tool in tools}
    if choice.kind == "function" and choice.names and choice.names[0] not in known:
        raise RequestError(f"no tool named {choice.names[0]!r} in tools", "tool_choice.name", INVALID_VALUE)
    if choice.kind == "allowed_tools":
        for i, name in enumerate(choice.names or ()):
            if name not in known:
                raise RequestError(f"no tool named {name!r} in tools", f"tool_choice.tools[{i}].name", INVALID_VALUE)
    if choice.mode == "required" and not tools:
        raise RequestError("a tool call is required but the request offers no tools", "tool_choice", INVALID_VALUE)
