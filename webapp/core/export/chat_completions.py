"""Items as the body of a Chat Completions request: ``{"messages", "tools"}``.

The inverse of :mod:`webapp.core.convert.chat_completions`: a message item becomes a message (text as a string
when it is one plain text part, else text and ``image_url`` parts; a refusal as ``refusal``), the
``function_call`` items after an assistant message its ``tool_calls`` (``arguments`` the item's string, untouched;
the call id kept as ``tool_calls[i].id``), an output a ``role: "tool"`` message. Chat Completions has no field for
reasoning, signatures, item ids, hosted or server tool items, provider members, or images in a tool message
(docs/targets.md C3): each is left out with a note.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.export.base import Written, function_tools, leave_out_foreign, parts_of

ROLES = ("system", "developer", "user", "assistant")


def write(items: list[Any], *, target: str = "chat_completions", tools: list[Any] | None = None) -> Written:
    """The Chat Completions body of ``items``.

    :param items: Open Responses items (dicts), as the gate's target policy kept them.
    :param tools: flat function tools (written nested: ``{type: "function", function: {…}}``), or ``None``.
    :return: :class:`Written` with ``body`` ``{"messages", "tools"?}``.
    """
    written = Written({})
    messages: list[dict] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            written.note("item_left_out", "not an item (an object): left out", index)
            continue
        leave_out_foreign(written, item, None, index, "")
        kind = item.get("type")
        if kind == "message" and item.get("role") in ROLES:
            messages.append(_message(written, item, index))
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")},
            }
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append(
                {"role": "tool", "tool_call_id": item.get("call_id"), "content": _output(written, item, index)}
            )
        else:
            what = "reasoning" if kind == "reasoning" else f"a {json.dumps(kind)} item"
            written.note("item_left_out", f"{what} has no Chat Completions form (docs/targets.md C3): left out", index)
    written.body["messages"] = messages
    if tools is not None:
        written.body["tools"] = [_tool(tool) for tool in function_tools(written, tools)]
    return written


def _message(written: Written, item: dict, index: int) -> dict:
    role = item["role"]
    content: list[dict] = []
    refusal = None
    for j, part in enumerate(parts_of(item)):
        where = f"/content/{j}"
        if isinstance(part, dict):
            leave_out_foreign(written, part, None, index, where)
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            content.append({"type": "text", "text": part["text"]})
        elif kind == "refusal" and role == "assistant" and isinstance(part.get("refusal"), str):
            refusal = part["refusal"]
        elif kind == "input_image" and role == "user" and isinstance(part.get("image_url"), str):
            image: dict[str, Any] = {"url": part["image_url"]}
            if part.get("detail") in ("auto", "low", "high"):
                image["detail"] = part["detail"]
            content.append({"type": "image_url", "image_url": image})
        else:
            written.note("part_left_out", f"a {json.dumps(kind)} part has no place here: left out", index, where)
    out: dict[str, Any] = {"role": role}
    texts_only = all(p["type"] == "text" for p in content)
    if role == "assistant" and len(content) > 1 and texts_only:
        written.note("text_joined", f"{len(content)} text parts written as one assistant text", index, "/content")
    if texts_only and (len(content) == 1 or role == "assistant"):
        out["content"] = "".join(p["text"] for p in content) if content else None
    else:
        out["content"] = content
    if refusal is not None:
        out["refusal"] = refusal
    return out


def _output(written: Written, item: dict, index: int) -> Any:
    """A tool message's content: the output string, or its text parts (an image has no place: C3)."""
    output = item.get("output")
    if not isinstance(output, list):
        return output
    parts = []
    for j, part in enumerate(output):
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append({"type": "text", "text": part["text"]})
        else:
            kind = part.get("type") if isinstance(part, dict) else None
            written.note(
                "part_left_out",
                f"a {json.dumps(kind)} part: a tool message holds text only (docs/targets.md C3): left out",
                index,
                f"/output/{j}",
            )
    return parts


def _tool(tool: dict) -> dict:
    """A flat function tool in Chat Completions' nested shape."""
    function: dict[str, Any] = {"name": tool["name"]}
    for key in ("description", "parameters", "strict"):
        if tool.get(key) is not None:
            function[key] = tool[key]
    return {"type": "function", "function": function}
