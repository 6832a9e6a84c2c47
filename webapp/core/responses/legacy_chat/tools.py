"""A Chat Completions request's ``tools``, ``tool_choice`` and ``response_format``, checked.

Pure. Tools are nested (``{"type": "function", "function": {...}}``); the flat Responses shape is refused by name
(``responses_tool_shape``). Schemas must compile (``webapp.core.schema``); a problem's ``param`` continues into
the schema with its JSON Pointer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.core.gate import TOOL_CHOICE_MODES
from webapp.core.responses.fields import INVALID_TYPE, INVALID_VALUE
from webapp.core.responses.legacy_chat.fields import (
    UNSUPPORTED,
    ChatRequestError,
    expect,
    expect_choice,
    expect_name,
    expect_text,
    need,
)
from webapp.core.schema import SchemaError, compile_schema


@dataclass(frozen=True)
class ChatFunction:
    """A tool: ``{"type": "function", "function": {name, description?, parameters?, strict?}}``."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


@dataclass(frozen=True)
class ChatToolChoice:
    """``tool_choice``: ``mode`` ``none``/``auto``/``required``; ``names`` limits the callable tools
    (a named function, or ``allowed_tools``); ``kind`` is the shape sent (``mode``, ``function``,
    ``allowed_tools``)."""

    mode: str = "auto"
    names: tuple[str, ...] | None = None
    kind: str = "mode"


def _usable_schema(schema: dict[str, Any], path: str) -> None:
    """The schema must compile (``webapp.core.schema``); the error's param continues into it with a JSON Pointer."""
    try:
        compile_schema(schema)
    except SchemaError as err:
        raise ChatRequestError(
            f"not a usable JSON Schema: {err.message}", f"{path}{err.pointer}", "invalid_schema"
        ) from None


def parse_tools(value: Any) -> tuple[ChatFunction, ...]:
    """Validate ``tools``: nested function tools with unique names and usable ``parameters`` schemas.

    :raises ChatRequestError: the flat Responses shape (``responses_tool_shape``), another tool type, a bad or
        duplicate name, a schema that does not compile (``invalid_schema``, naming the place inside it).
    """
    tools: list[ChatFunction] = []
    names: dict[str, int] = {}
    for i, raw in enumerate(expect(value, list, "tools", "an array")):
        at = f"tools[{i}]"
        expect(raw, dict, at, "a tool object")
        if "name" in raw and "function" not in raw:
            raise ChatRequestError(
                "this is the flat Responses tool shape; Chat Completions tools are "
                '{"type": "function", "function": {"name": ..., "parameters": {...}}}',
                at,
                "responses_tool_shape",
            )
        kind = need(raw, "type", at)
        if kind != "function":
            raise ChatRequestError(
                f"unsupported tool type {kind!r}; this server offers function tools only", f"{at}.type", UNSUPPORTED
            )
        function = expect(need(raw, "function", at), dict, f"{at}.function", "an object {name, parameters?}")
        name = expect_name(need(function, "name", f"{at}.function"), f"{at}.function.name")
        if name in names:
            raise ChatRequestError(f"duplicate tool name {name!r} (also tools[{names[name]}])", f"{at}.function.name")
        names[name] = i
        description = function.get("description")
        if description is not None:
            expect_text(description, f"{at}.function.description")
        parameters = function.get("parameters")
        if parameters is not None:
            expect(parameters, dict, f"{at}.function.parameters", "a JSON Schema object")
            _usable_schema(parameters, f"{at}.function.parameters")
        strict = function.get("strict")
        if strict is not None:
            expect(strict, bool, f"{at}.function.strict", "a boolean or null")
        tools.append(ChatFunction(name, description, parameters, strict))
    return tuple(tools)


def parse_tool_choice(value: Any, tools: tuple[ChatFunction, ...]) -> ChatToolChoice:
    """Validate ``tool_choice`` against ``tools``: a mode, ``{"type": "function", "function": {"name"}}`` or
    ``{"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}``.

    :raises ChatRequestError: an unknown shape or mode, a name that is no tool, ``required`` without tools.
    """
    known = {tool.name for tool in tools}
    if isinstance(value, str):
        choice = ChatToolChoice(expect_choice(value, "tool_choice", TOOL_CHOICE_MODES))
    else:
        expect(value, dict, "tool_choice", f"{', '.join(map(repr, TOOL_CHOICE_MODES))} or an object")
        kind = need(value, "type", "tool_choice")
        if kind == "function":
            if "name" in value and "function" not in value:
                raise ChatRequestError(
                    "this is the Responses shape; Chat Completions names a function as "
                    '{"type": "function", "function": {"name": ...}}',
                    "tool_choice",
                    "responses_tool_shape",
                )
            function = expect(need(value, "function", "tool_choice"), dict, "tool_choice.function", "an object {name}")
            name = expect_name(need(function, "name", "tool_choice.function"), "tool_choice.function.name")
            if name not in known:
                raise ChatRequestError(f"no tool named {name!r} in tools", "tool_choice.function.name")
            choice = ChatToolChoice("required", (name,), "function")
        elif kind == "allowed_tools":
            spec = expect(
                need(value, "allowed_tools", "tool_choice"),
                dict,
                "tool_choice.allowed_tools",
                "an object {mode, tools}",
            )
            mode = expect_choice(
                need(spec, "mode", "tool_choice.allowed_tools"), "tool_choice.allowed_tools.mode", ("auto", "required")
            )
            listed = expect(
                need(spec, "tools", "tool_choice.allowed_tools"), list, "tool_choice.allowed_tools.tools", "an array"
            )
            if not listed:
                raise ChatRequestError("must list at least one tool", "tool_choice.allowed_tools.tools")
            names = []
            for k, entry in enumerate(listed):
                at = f"tool_choice.allowed_tools.tools[{k}]"
                expect(entry, dict, at, 'an object {"type": "function", "function": {"name": ...}}')
                function = expect(need(entry, "function", at), dict, f"{at}.function", "an object {name}")
                name = expect_name(need(function, "name", f"{at}.function"), f"{at}.function.name")
                if name not in known:
                    raise ChatRequestError(f"no tool named {name!r} in tools", f"{at}.function.name")
                names.append(name)
            choice = ChatToolChoice(mode, tuple(dict.fromkeys(names)), "allowed_tools")
        else:
            raise ChatRequestError(
                f"expected 'function' or 'allowed_tools', got {kind!r}",
                "tool_choice.type",
                INVALID_VALUE if isinstance(kind, str) else INVALID_TYPE,
            )
    if choice.mode == "required" and not tools:
        raise ChatRequestError("a tool call is required but the request offers no tools", "tool_choice")
    return choice


def parse_response_format(value: Any) -> dict[str, Any] | None:
    """``response_format`` as the Responses ``text.format`` it maps to."""
    if value is None:
        return None
    expect(value, dict, "response_format", "an object {type, ...}")
    kind = expect_choice(
        need(value, "type", "response_format"), "response_format.type", ("text", "json_object", "json_schema")
    )
    if kind != "json_schema":
        return {"type": kind}
    spec = expect(
        need(value, "json_schema", "response_format"),
        dict,
        "response_format.json_schema",
        "an object {name, schema, strict?}",
    )
    name = expect_name(need(spec, "name", "response_format.json_schema"), "response_format.json_schema.name")
    schema = expect(
        need(spec, "schema", "response_format.json_schema"),
        dict,
        "response_format.json_schema.schema",
        "a JSON Schema object",
    )
    _usable_schema(schema, "response_format.json_schema.schema")
    strict = spec.get("strict")
    if strict is not None:
        expect(strict, bool, "response_format.json_schema.strict", "a boolean or null")
    return {
        "type": "json_schema",
        "name": name,
        "schema": schema,
        "strict": strict,
        "description": spec.get("description"),
    }
