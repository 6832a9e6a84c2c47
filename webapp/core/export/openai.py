"""Items as the body of an Open Responses server (target ``portable``) or of OpenAI's Responses API (``openai``):
``{"input": [...], "tools": [...]}``.

The inverse of reading an Open Responses journal: the items go as they are, without the ``<provider>:`` members
the converters put on them (a name with a colon is never an Open Responses field; docs/targets.md, "How items
carry provider state").
For ``openai`` an ``openai:<type>`` item is written as OpenAI's native unprefixed type (docs/targets.md O9) and an
assistant message without its ``msg_…`` id in the short form OpenAI's request types take (O8); another provider's
namespaced item cannot be sent to OpenAI and is left out with a note.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.export.base import Written, function_tools, leave_out_foreign, without_members
from webapp.core.items import is_namespaced, provider_of


def write(items: list[Any], *, target: str, tools: list[Any] | None = None) -> Written:
    """The ``{"input", "tools"?}`` body of ``items`` for ``target`` ``"portable"`` or ``"openai"``.

    :param items: Open Responses items (dicts), as the gate's target policy kept them.
    :param tools: flat function tools, or ``None`` when not known (then the body has no ``tools``).
    :return: :class:`Written`; each member or item left out has a note naming the item's index and pointer.
    """
    written = Written({"input": []})
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            written.note("item_left_out", "not an item (an object): left out", index)
            continue
        kind = item.get("type")
        if target == "openai" and is_namespaced(kind):
            if provider_of(kind) != "openai":
                written.note("item_left_out", f"{json.dumps(kind)} is {provider_of(kind)}'s own: left out", index)
                continue
            item = {**item, "type": kind.partition(":")[2]}  # OpenAI takes its own items unprefixed (O9)
        if target == "openai" and kind == "reasoning" and not isinstance(item.get("id"), str):
            written.note(
                "item_left_out",
                "a reasoning item without an rs_ id (another provider's, or made here) cannot be sent to OpenAI, "
                "whose reasoning input is an item it issued (docs/targets.md O1–O3, A3): left out",
                index,
            )
            continue
        written.body["input"].append(_clean(written, item, index, target))
    if tools is not None:
        written.body["tools"] = [_tool(tool, target) for tool in function_tools(written, tools)]
    return written


def _clean(written: Written, item: dict, index: int, target: str) -> dict:
    """The item without ``<provider>:`` members (on it and on its content parts), each with a note."""
    leave_out_foreign(written, item, None, index, "")
    out = without_members(item)
    for key in ("content", "output"):
        if isinstance(out.get(key), list):
            parts = []
            for j, part in enumerate(out[key]):
                if isinstance(part, dict):
                    leave_out_foreign(written, part, None, index, f"/{key}/{j}")
                    part = without_members(part)
                parts.append(part)
            out[key] = parts
    if target == "openai" and out.get("type") == "message" and out.get("role") == "assistant" and "id" not in out:
        out = _short_assistant(written, out, index)
    return out


def _short_assistant(written: Written, item: dict, index: int) -> dict:
    """An assistant message without an id in the short form (``EasyInputMessageParam``: content a string), as the
    output form (``ResponseOutputMessageParam``) requires ``id`` and ``status`` (docs/targets.md O8)."""
    parts = item.get("content")
    if not isinstance(parts, list):
        return {"type": "message", "role": "assistant", "content": parts}
    texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "output_text"]
    for j, part in enumerate(parts):
        if not (isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("text"), str)):
            kind = part.get("type") if isinstance(part, dict) else None
            written.note(
                "part_left_out",
                f"a {json.dumps(kind)} part has no place in an assistant message without id: left out",
                index,
                f"/content/{j}",
            )
    texts = [t for t in texts if isinstance(t, str)]
    if len(texts) > 1:
        written.note("text_joined", f"{len(texts)} output_text parts written as one text", index, "/content")
    return {"type": "message", "role": "assistant", "content": "".join(texts)}


def _tool(tool: dict, target: str) -> dict:
    """A flat function tool; for ``openai`` with ``strict`` present (``FunctionToolParam`` requires the key; ``null``
    leaves OpenAI's default), without ``<provider>:`` members."""
    out = without_members(tool)
    if target == "openai":
        out.setdefault("strict", None)
        out.setdefault("parameters", None)
    return out
