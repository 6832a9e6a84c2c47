"""The tools of a browser session, pure: the function tools pasted texts define, and the function a pasted call names.

Every page keeps the function tools met in any of its fields for the browser session and offers them wherever a
schema is needed, filling an empty schema field with the tool a pasted call names (``static/state/tools.js``, through
``POST /api/tools``). What a tool definition is and what a call names is decided here, by the item vocabulary
(:func:`webapp.core.items.tools_in`, :func:`webapp.core.items.call_shape`), so the script spells no shape of its
own. A text is read as the pages read it: one JSON value, or JSON Lines (each record looked into).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webapp.core.convert import ConvertError, is_other_provider_tool, tools_from
from webapp.core.items import call_shape, tools_in
from webapp.core.json import DEFAULT_MAX_DEPTH, JSONTextError, line_records, looks_like_lines, parse

__all__ = ["SessionTools", "find_tools"]


@dataclass(frozen=True)
class SessionTools:
    """What the texts hold for the session.

    :ivar tools: tool name -> its whole definition as pasted (flat or nested shape; an Anthropic or Gemini tool as
        the flat Open Responses tool it converts to), in the order first met; of two definitions of one name the
        last is kept (the newer paste wins, as in the browser's store).
    :ivar calls: for each text, in order: the function a pasted call (a ``function_call`` item or a Chat
        Completions tool call) names, or ``None`` (not JSON, not one call, or a call without a name).
    """

    tools: dict[str, dict]
    calls: list[str | None]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"tools": [{"name", "definition"}], "calls": [name | null, ...]}``."""
        return {"tools": [{"name": name, "definition": tool} for name, tool in self.tools.items()], "calls": self.calls}


def find_tools(texts: Iterable[str], *, max_depth: int = DEFAULT_MAX_DEPTH) -> SessionTools:
    """The function tools defined in ``texts`` and the call each text is (see :class:`SessionTools`).

    A text that is not JSON (or JSON Lines) holds nothing: the page it was pasted in says why. Never raises for
    bad input. :param max_depth: the parse limit of each text (and of each record).
    """
    tools: dict[str, dict] = {}
    calls: list[str | None] = []
    for text in texts:
        values = _values(text, max_depth)
        for value in values:
            tools.update(tools_in(value) or _other_providers(value))
        shape = call_shape(values[0]) if len(values) == 1 else None
        calls.append(None if shape is None else shape.name)
    return SessionTools(tools, calls)


def _other_providers(value: Any) -> list[tuple[str, dict]]:
    """Anthropic (``{name, input_schema}``) and Gemini (``{functionDeclarations}``) function tools in a pasted value
    (one of them, a list, or a request with ``tools``), as the flat Open Responses tools they convert to
    (:func:`webapp.core.convert.tools_from`): the shape every page's schema field reads."""
    # Only these two shapes alone are wrapped: tools_from would read a Chat Completions tool *call* as a tool.
    if is_other_provider_tool(value):
        value = [value]
    try:
        return [(tool["name"], tool) for tool in tools_from(value) if isinstance(tool.get("name"), str)]
    except ConvertError:
        return []


def _values(text: str, max_depth: int) -> list[Any]:
    """The values of one text: ``[value]`` for JSON, every record's for JSON Lines, ``[]`` for neither (a bad
    record is skipped: the others still hold their tools)."""
    if not text.strip():
        return []
    try:
        return [parse(text, max_depth=max_depth).value]
    except JSONTextError as error:
        if error.code != "extra_data" or not looks_like_lines(text, max_depth=max_depth):
            return []
    values = []
    for _, _, raw in line_records(text):
        try:
            values.append(parse(raw, max_depth=max_depth).value)
        except JSONTextError:
            continue
    return values
