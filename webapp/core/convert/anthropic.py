"""Anthropic Messages (``messages[]`` of content blocks, ``system`` apart) to Open Responses items.

Shapes: a request ``{system?, messages, tools?}``, a response ``{type: "message", role: "assistant", content,
stop_reason}``, a bare ``messages`` array, one content block. Mapping (``docs/targets.md``, "Target `anthropic`"):
``tool_use`` → ``function_call`` (``input`` is an object: written as a JSON string), ``tool_result`` (in a user
message) → ``function_call_output``, text → ``message``, ``system`` → a system message; ``thinking`` /
``redacted_thinking`` are provider-sealed (dropped, with a note); server tools and unknown blocks are kept as
namespaced ``anthropic:<type>`` items; ``stop_reason: "max_tokens"`` cuts the response's calls.
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.convert.base import (
    Builder,
    Conversion,
    ConvertError,
    as_json_string,
    function_tool,
    provider_members,
    text_of,
)

#: Block types only Anthropic writes (the detector's evidence).
BLOCK_TYPES = (
    "text",
    "image",
    "document",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
)
SEALED = ("thinking", "redacted_thinking")
#: ``stop_reason`` values that mean the content was cut.
CUT_REASONS = ("max_tokens",)


def is_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and (value["type"] in BLOCK_TYPES or value["type"].endswith("_tool_result"))
    )


def is_message(value: Any) -> bool:
    content = value.get("content") if isinstance(value, dict) else None
    return (
        isinstance(value, dict)
        and value.get("role") in ("user", "assistant")
        and (isinstance(content, str) or (isinstance(content, list) and all(is_block(b) for b in content)))
    )


def specific(value: Any) -> bool:
    """``True`` when the document uses what only Anthropic has (blocks beyond text, ``input_schema`` tools,
    a ``system`` or ``thinking`` member, a ``stop_reason``)."""
    if isinstance(value, dict):
        if "stop_reason" in value or "system" in value or value.get("type") in ("tool_use", "tool_result"):
            return True
        if isinstance(value.get("thinking"), dict) and isinstance(value.get("messages"), list):  # a request setting
            return True
        if any(isinstance(t, dict) and "input_schema" in t for t in value.get("tools") or ()):
            return True
        messages = value.get("messages")
    else:
        messages = value
    return isinstance(messages, list) and any(
        isinstance(m, dict)
        and isinstance(m.get("content"), list)
        and any(is_block(b) and b["type"] != "text" for b in m["content"])
        for m in messages
    )


def looks_like(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(is_message(m) for m in value)
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("messages"), list):
        return all(is_message(m) for m in value["messages"])
    if value.get("type") == "message" and value.get("role") == "assistant" and isinstance(value.get("content"), list):
        return True
    return is_block(value) and value["type"] != "text"


def convert(value: Any) -> Conversion:
    """Convert one Anthropic Messages document. :raises ConvertError: when it is none of the shapes."""
    if isinstance(value, list):
        conversion = Conversion("anthropic", "messages")
        _messages(Builder(conversion), value, "")
        return conversion
    if not isinstance(value, dict):
        raise ConvertError("an Anthropic conversation is an object or a messages array")
    if isinstance(value.get("messages"), list):
        conversion = Conversion("anthropic", "request")
        builder = Builder(conversion)
        system = value.get("system")
        if isinstance(system, list):  # text blocks, each with its cache_control kept
            _content(builder, "system", system, "/system", cut=False)
        elif system is not None:
            builder.message("system", text_of(system), "/system")
        _messages(builder, value["messages"], "/messages")
        conversion.tools = convert_tools(value.get("tools"), conversion, "/tools")
        return conversion
    if value.get("type") == "message":
        conversion = Conversion("anthropic", "response")
        _content(
            Builder(conversion),
            "assistant",
            value.get("content"),
            "/content",
            cut=value.get("stop_reason") in CUT_REASONS,
        )
        return conversion
    if is_block(value):
        conversion = Conversion("anthropic", "part")
        _block(Builder(conversion), value, "", cut=False)
        return conversion
    raise ConvertError("not an Anthropic request, response, messages array or content block")


def _messages(builder: Builder, messages: list, base: str) -> None:
    for i, message in enumerate(messages):
        where = f"{base}/{i}"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise ConvertError(f"{where} is not an Anthropic message (role user or assistant)", where)
        _content(builder, message["role"], message.get("content"), f"{where}/content", cut=False)


def _content(builder: Builder, role: str, content: Any, where: str, *, cut: bool) -> None:
    """Blocks in order; consecutive text (and images) form one message, so the item order follows the blocks."""
    if isinstance(content, str):
        builder.message(role, [content], where.rsplit("/", 1)[0])
        return
    if not isinstance(content, list):
        raise ConvertError(f"{where} must be a string or an array of content blocks", where)
    run: list[tuple[int, dict]] = []
    for i, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise ConvertError(f"{where}/{i} is not a content block (an object with type)", f"{where}/{i}")
        if block["type"] in ("text", "image"):
            run.append((i, block))
            continue
        _flush(builder, role, run, where)
        run = []
        _block(builder, block, f"{where}/{i}", cut=cut)
    _flush(builder, role, run, where)


#: The members of each block that an Open Responses field holds; any other rides along as ``"anthropic:<name>"``.
_MAPPED = {
    "text": ("type", "text"),
    "image": ("type", "source"),
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content"),
    "thinking": ("type", "thinking"),
    "redacted_thinking": ("type", "data"),
}


def _flush(builder: Builder, role: str, run: list[tuple[int, dict]], where: str) -> None:
    if not run:
        return
    pointer = f"{where}/{run[0][0]}"
    carried: list[tuple[str, list[str]]] = []
    parts: list[dict] = []
    for i, block in run:
        part = _part(builder, role, block, f"{where}/{i}")
        if part is not None:
            parts.append(part)
            extra = [k for k in part if ":" in k]
            if extra:
                carried.append((f"{where}/{i}", extra))
    if parts:
        item: dict[str, Any] = {"type": "message", "role": role, "content": parts}
        if role == "assistant":
            item["status"] = "completed"
        index = builder.add(item, pointer)
        for place, names in carried:
            _note_carried(builder, names, place, index)


def _part(builder: Builder, role: str, block: dict, where: str) -> dict | None:
    """A text or image block as a content part (its Anthropic-only members on it), or ``None`` when dropped."""
    if block["type"] == "text" and isinstance(block.get("text"), str):
        assistant = role == "assistant"
        part = {"type": "output_text" if assistant else "input_text", "text": block["text"]}
        if assistant:
            part["annotations"] = []
        return {**part, **provider_members("anthropic", block, _MAPPED["text"])}
    if block["type"] == "image":
        url = _image_url(block.get("source"))
        if url is not None and role == "user":
            return {"type": "input_image", "image_url": url, **provider_members("anthropic", block, _MAPPED["image"])}
    builder.note(
        "dropped_content",
        f"a {block['type']} block with no usable content (or an image from the assistant) was dropped",
        where,
    )
    return None


def _note_carried(builder: Builder, names: list[str], where: str, index: int) -> None:
    builder.note(
        "provider_field",
        f"{', '.join(sorted(names))}: Anthropic's own, kept on the item for Anthropic only",
        where,
        index,
    )


def _image_url(source: Any) -> str | None:
    if not isinstance(source, dict):
        return None
    if source.get("type") == "url" and isinstance(source.get("url"), str):
        return source["url"]
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        return f"data:{source.get('media_type', 'application/octet-stream')};base64,{source['data']}"
    return None


def _block(builder: Builder, block: dict, where: str, *, cut: bool) -> None:
    kind = block["type"]
    if kind == "tool_use":
        arguments = block.get("input")
        index = builder.call(block.get("id"), block.get("name"), as_json_string(arguments), where, cut=cut)
        _carry(builder, index, block, _MAPPED["tool_use"], where)
        builder.note(
            "arguments_serialised", "the tool_use input object was written as a JSON string", f"{where}/input", index
        )
    elif kind == "tool_result":
        index = builder.output(block.get("tool_use_id"), "", where)
        builder.conversion.items[index]["output"] = _result_output(builder, block, where, index)
        _carry(builder, index, block, _MAPPED["tool_result"], where)
        if block.get("is_error") is True:
            builder.note(
                "result_is_error", "the tool_result says is_error: the output is the tool's error text", where, index
            )
    elif kind in SEALED:
        item: dict[str, Any] = {"type": "reasoning", "summary": []}
        if kind == "thinking":
            if isinstance(block.get("thinking"), str):
                item["content"] = [{"type": "reasoning_text", "text": block["thinking"]}]
            item.update(provider_members("anthropic", block, _MAPPED["thinking"]))
        else:
            item["anthropic:redacted_thinking"] = block.get("data")
            item.update(provider_members("anthropic", block, _MAPPED["redacted_thinking"]))
        index = builder.add(item, where)
        member = "anthropic:signature" if kind == "thinking" else "anthropic:redacted_thinking"
        builder.note(
            "sealed_reasoning",
            f"a {kind} block is sealed by Anthropic: kept as a reasoning item with {member!r}, for Anthropic only",
            where,
            index,
        )
    elif kind == "server_tool_use" or kind.endswith("_tool_result"):
        builder.namespaced("anthropic", kind, block, where, "server_tool")
    else:
        builder.namespaced("anthropic", kind, block, where, "unknown_part")


def _carry(builder: Builder, index: int, block: dict, mapped: tuple[str, ...], where: str) -> None:
    """Put the block's Anthropic-only members on item ``index`` (``"anthropic:cache_control"``…), with a note."""
    extra = provider_members("anthropic", block, mapped)
    if extra:
        builder.conversion.items[index].update(extra)
        _note_carried(builder, list(extra), where, index)


def _result_output(builder: Builder, block: dict, where: str, index: int) -> Any:
    """A ``tool_result``'s content as the output: a string as it is; an array of blocks as the output's parts
    (``input_text``, ``input_image``: a ``function_call_output.output`` may be a list of them, Open Responses spec,
    Items; docs/targets.md A9), each with its Anthropic-only members; other blocks dropped with a note."""
    content = block.get("content")
    if content is None:
        return ""
    if not isinstance(content, list):
        return content if isinstance(content, str) else as_json_string(content)
    parts = []
    for i, inner in enumerate(content):
        place = f"{where}/content/{i}"
        if isinstance(inner, dict) and inner.get("type") in ("text", "image"):
            part = _part(builder, "user", inner, place)
            if part is not None:
                parts.append(part)
                extra = [k for k in part if ":" in k]
                if extra:
                    _note_carried(builder, extra, place, index)
            continue
        kind = inner.get("type") if isinstance(inner, dict) else None
        builder.note(
            "dropped_content",
            f"a {json.dumps(kind)} block inside the tool_result has no Open Responses output part: dropped",
            place,
            index,
        )
    return parts


def convert_tools(tools: Any, conversion: Conversion, where: str) -> list[dict] | None:
    """Anthropic tool definitions (``{name, description, input_schema}``) as flat function tools; server tools
    (``{type: "web_search_20250305", …}``) are left out with a note."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise ConvertError(f"{where} must be an array of tool definitions", where)
    builder = Builder(conversion)
    out = []
    for i, tool in enumerate(tools):
        if isinstance(tool, dict) and "input_schema" in tool:
            out.append(function_tool(tool.get("name"), tool.get("description"), tool.get("input_schema")))
        else:
            kind = tool.get("type") if isinstance(tool, dict) else None
            builder.note(
                "hosted_tool",
                f"tool {i} ({json.dumps(kind)}) is run by Anthropic, not a function tool: left out",
                f"{where}/{i}",
            )
    return out
