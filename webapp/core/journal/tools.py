"""Tool definitions pasted beside a journal, in any provider's shape, read as flat Open Responses function tools.

The journal step's ``tools`` field: a list of definitions, one definition, or a request holding ``tools`` —
Open Responses, Chat Completions, Anthropic or Gemini (:func:`webapp.core.convert.tools_from`). Blank: none given,
the journal's own tools are used.
"""

from __future__ import annotations

from typing import Any

from webapp.core.convert import ConvertError, is_tool_definition, tools_from
from webapp.core.json import JSONTextError, parse

__all__ = ["read_definitions", "read_tools", "tools_text"]


def read_tools(text: str | bytes) -> tuple[list[dict] | None, ConvertError | None]:
    """Tool definitions pasted in any provider's shape (a list, one definition, or a request holding ``tools``),
    as flat Open Responses function tools (:func:`webapp.core.convert.tools_from`); see :func:`read_definitions`.

    :return: ``(tools, None)``, ``(None, None)`` for blank text, or ``(None, error)`` as :func:`read_definitions`.
    """
    given, error = read_definitions(text)
    return (tools_from(given) if given is not None else None), error


def read_definitions(text: str | bytes) -> tuple[list[Any] | None, ConvertError | None]:
    """Tool definitions pasted in any provider's shape, as given: every definition kept (hosted tools, custom
    tools with their grammars), checked to be readable as :func:`webapp.core.convert.tools_from` reads them. What
    the gate and the export take: they say what they do with a tool that is no function tool. Bytes (a field that
    is not UTF-8) are read as UTF-8, a byte that is not UTF-8 the error.

    :return: ``(definitions, None)`` (a list, or a request's ``tools``), ``(None, None)`` for blank text, or
        ``(None, error)``: a :class:`ConvertError` whose message names line:column (with ``line``, ``column``,
        ``detail`` and the caret ``excerpt`` set) or the pointer of the problem.
    """
    if not text.strip():
        return None, None
    try:
        value = parse(text).value
    except JSONTextError as error:
        return None, ConvertError(
            f"tools, line {error.line}, column {error.column}: {error.message}",
            line=error.line,
            column=error.column,
            detail=error.message,
            excerpt=error.excerpt,
        )
    if is_tool_definition(value):
        value = [value]  # one definition, as the Schema page takes it (a field for tools holds no call)
    try:
        tools_from(value)  # readable, or the error naming its pointer
    except ConvertError as error:
        return None, ConvertError(f"tools{error.pointer}: {error.message}", error.pointer)
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value = value["tools"]  # a request holding them
    return (value if isinstance(value, list) else None), None


def tools_text(text: str) -> tuple[list[dict] | None, str | None]:
    """:func:`read_tools` with the problem as one sentence: ``(tools, None)``, ``(None, None)`` or
    ``(None, message)``."""
    tools, error = read_tools(text)
    return tools, error.message if error is not None else None
