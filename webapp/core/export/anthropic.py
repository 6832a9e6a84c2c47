"""Items as the body of Anthropic's Messages API: ``{"system", "messages", "tools"}``.

The inverse of :mod:`webapp.core.convert.anthropic`: messages become ``text`` / ``image`` blocks, a
``function_call`` a ``tool_use`` (``input`` the parsed arguments object, docs/targets.md A8), an output a
``tool_result`` (its parts as blocks, A9), a ``reasoning`` item carrying ``"anthropic:signature"`` a ``thinking``
block and one carrying ``"anthropic:redacted_thinking"`` a ``redacted_thinking`` block, in their place (A1), and
``anthropic:<type>`` items their blocks again (A10). Each item's ``"anthropic:<member>"`` members go back on the
block they came from (``cache_control``, ``citations``, ``is_error``: A11, A12). Consecutive items of one role are
one message (the API merges them anyway: ``MessageCreateParamsBase.messages``), its ``tool_result`` blocks first
(A6); a call id with characters A7 refuses is changed, on the call and its output alike; system and developer
messages go to ``system`` (A13). What no block holds — reasoning without Anthropic's signature (A3), other
providers' members and items — is left out with a note.
"""

from __future__ import annotations

import json
import re
from typing import Any

from webapp.core.export.base import (
    Written,
    arguments_object,
    data_url,
    function_tools,
    leave_out_foreign,
    own_members,
    parts_of,
    reasoning_text,
)
from webapp.core.items import ANTHROPIC_CALL_ID, is_namespaced, provider_of

PROVIDER = "anthropic"
#: Anthropic blocks that sit in the assistant's turn (server tools run by Anthropic, and their results).
_ASSISTANT_BLOCKS = ("server_tool_use", "mcp_tool_use")


def write(items: list[Any], *, target: str = PROVIDER, tools: list[Any] | None = None) -> Written:
    """The Messages API body of ``items``.

    :param items: Open Responses items (dicts), as the gate's target policy kept them.
    :param tools: flat function tools (written as ``{name, description?, input_schema}``), or ``None``.
    :return: :class:`Written` with ``body`` ``{"system"?, "messages", "tools"?}``: ``system`` a list of text
        blocks when any system or developer message was handed.
    """
    written = Written({})
    system: list[dict] = []
    messages: list[dict] = []
    role = "user"
    ids = _ids(written, items)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            written.note("item_left_out", "not an item (an object): left out", index)
            continue
        if item.get("type") == "message" and item.get("role") in ("system", "developer"):
            if messages:
                written.note("system_moved", "a system message between turns was written into system", index)
            system += _blocks(written, item, index, "user")
            continue
        placed = _item(written, item, index, role, ids)
        if placed is None:
            continue
        role, blocks = placed
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += blocks
        else:
            messages.append({"role": role, "content": blocks})
    for message in messages:
        if message["role"] == "user":
            _results_first(written, message)
    if system:
        written.body["system"] = system
    written.body["messages"] = messages
    if tools is not None:
        written.body["tools"] = [_tool(tool) for tool in function_tools(written, tools)]
    return written


def _item(written: Written, item: dict, index: int, role: str, ids: dict) -> tuple[str, list[dict]] | None:
    """``(role, blocks)`` of one item, or ``None`` (left out, noted); ``role``: the turn the previous item was in."""
    kind = item.get("type")
    leave_out_foreign(written, item, PROVIDER, index, "")
    own = own_members(item, PROVIDER)
    if kind == "message":
        message_role = "assistant" if item.get("role") == "assistant" else "user"
        return message_role, _blocks(written, item, index, message_role)
    if kind == "reasoning":
        if "signature" in own or "thinking" in own:
            text = reasoning_text(item)
            block = {"type": "thinking", "thinking": "" if text is None else text, **own}
            return "assistant", [block]
        if "redacted_thinking" in own:
            data = own.pop("redacted_thinking")
            return "assistant", [{"type": "redacted_thinking", "data": data, **own}]
        written.note(
            "item_left_out",
            "a reasoning item without Anthropic's signature cannot be a thinking block (docs/targets.md A3): left out",
            index,
        )
        return None
    if kind == "function_call":
        arguments = arguments_object(written, item, index)
        if arguments is None:
            return None
        call_id = ids.get(item.get("call_id"), item.get("call_id"))
        block = {"type": "tool_use", "id": call_id, "name": item.get("name"), "input": arguments, **own}
        return "assistant", [block]
    if kind == "function_call_output":
        output = item.get("output")
        if isinstance(output, list):
            output = _blocks(written, {"content": output}, index, "user", base="/output")
        call_id = ids.get(item.get("call_id"), item.get("call_id"))
        return "user", [{"type": "tool_result", "tool_use_id": call_id, "content": output, **own}]
    if is_namespaced(kind) and provider_of(kind) == PROVIDER:
        block_type = kind.partition(":")[2]
        block = {"type": block_type, **{k: v for k, v in item.items() if k != "type"}}
        in_assistant = block_type in _ASSISTANT_BLOCKS or block_type.endswith("_tool_result")
        return ("assistant" if in_assistant else role), [block]
    written.note("item_left_out", f"a {json.dumps(kind)} item has no Anthropic block: left out", index)
    return None


def _ids(written: Written, items: list[Any]) -> dict[str, str]:
    """Each call id that A7 refuses (:data:`webapp.core.items.ANTHROPIC_CALL_ID`; the gate warns of it as
    ``call_id_rewritten``) and the id written instead (its other characters as ``_``, made unique), with a
    note on the call; the call and its output get the same one, so the pair stays matched."""
    taken = {i.get("call_id") for i in items if isinstance(i, dict)}
    changed: dict[str, str] = {}
    for index, item in enumerate(items):
        call_id = item.get("call_id") if isinstance(item, dict) and item.get("type") == "function_call" else None
        if not isinstance(call_id, str) or ANTHROPIC_CALL_ID.fullmatch(call_id) or call_id in changed:
            continue
        new = re.sub(r"[^a-zA-Z0-9_-]", "_", call_id) or "call"
        while new in taken:
            new += "_"
        taken.add(new)
        changed[call_id] = new
        written.note(
            "call_id_changed",
            f"call id {json.dumps(call_id, ensure_ascii=False)} has characters Anthropic refuses "
            f"(docs/targets.md A7): written as {new!r}, on its tool_result too",
            index,
            "/call_id",
        )
    return changed


def _results_first(written: Written, message: dict) -> None:
    """Put a user message's ``tool_result`` blocks first (docs/targets.md A6), with a note when they were not."""
    blocks = message["content"]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    if results and blocks[: len(results)] != results:
        message["content"] = results + [b for b in blocks if b.get("type") != "tool_result"]
        ids = ", ".join(str(b.get("tool_use_id")) for b in results)
        written.note("results_first", f"the tool_result blocks for {ids} were put first in their user message", None)


def _blocks(written: Written, item: dict, index: int, role: str, base: str = "/content") -> list[dict]:
    """A message's (or an output's) parts as text and image blocks, each with its ``anthropic:`` members."""
    blocks = []
    for j, part in enumerate(parts_of(item)):
        where = f"{base}/{j}"
        if not isinstance(part, dict):
            written.note("part_left_out", "a content part that is not an object: left out", index, where)
            continue
        leave_out_foreign(written, part, PROVIDER, index, where)
        own = own_members(part, PROVIDER)
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"], **own})
        elif kind == "input_image" and role == "user" and isinstance(part.get("image_url"), str):
            inline = data_url(part["image_url"])
            if inline is not None:
                source = {"type": "base64", "media_type": inline[0], "data": inline[1]}
            else:
                source = {"type": "url", "url": part["image_url"]}
            blocks.append({"type": "image", "source": source, **own})
        else:
            written.note(
                "part_left_out", f"a {json.dumps(kind)} part has no Anthropic block here: left out", index, where
            )
    return blocks


def _tool(tool: dict) -> dict:
    """A flat function tool as Anthropic's ``{name, description?, input_schema}``."""
    out: dict[str, Any] = {"name": tool["name"]}
    if isinstance(tool.get("description"), str):
        out["description"] = tool["description"]
    parameters = tool.get("parameters")
    out["input_schema"] = parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}}
    return out
