"""Chat Completions (``messages[]``) to Open Responses items.

Shapes: a request ``{messages, tools?}``, a response ``{object: "chat.completion", choices: [{message,
finish_reason}]}``, a bare ``messages`` array, one assistant message, one ``tool_calls`` entry. Mapping
(``docs/targets.md``, "Target `chat_completions`"): ``tool_calls[i]`` → ``function_call`` with ``arguments`` kept
byte for byte (it is the model's raw text and may be invalid JSON: the gate decides), ``role: "tool"`` →
``function_call_output``, text → ``message``; ``finish_reason: "length"`` cuts the message's calls (``incomplete``).
"""

from __future__ import annotations

import json
from typing import Any

from webapp.core.convert.base import Builder, Conversion, ConvertError, function_tool, text_of
from webapp.core.json import pointer as jp

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
#: ``finish_reason`` values that mean the message was cut (its calls unfinished).
CUT_REASONS = ("length",)


def looks_like(value: Any) -> bool:
    """``True`` for the shapes this module reads (see the module docstring)."""
    if isinstance(value, dict):
        if value.get("object") == "chat.completion" or isinstance(value.get("choices"), list):
            return True
        if isinstance(value.get("messages"), list):
            return all(is_message(m) for m in value["messages"])
        return is_message(value) or is_tool_call(value)
    return isinstance(value, list) and bool(value) and all(is_message(m) for m in value)


def is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ROLES
        and ("content" in value or "tool_calls" in value or "function_call" in value)
    )


def is_tool_call(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "function"
        and isinstance(value.get("function"), dict)
        and "id" in value
    )


def specific(value: Any) -> bool:
    """``True`` when the messages use what only Chat Completions has (``tool_calls``, ``role: tool``)."""
    messages = value.get("messages") if isinstance(value, dict) else value
    if isinstance(value, dict) and ("choices" in value or "tool_calls" in value):
        return True
    return isinstance(messages, list) and any(
        isinstance(m, dict) and (m.get("role") in ("tool", "function") or "tool_calls" in m) for m in messages
    )


def convert(value: Any) -> Conversion:
    """Convert one Chat Completions document. :raises ConvertError: when it is none of the shapes."""
    if isinstance(value, list):
        conversion = Conversion("chat_completions", "messages")
        _messages(Builder(conversion), value, "")
        return conversion
    if not isinstance(value, dict):
        raise ConvertError("a Chat Completions conversation is an object or a messages array")
    if isinstance(value.get("choices"), list):
        conversion = Conversion("chat_completions", "response")
        builder = Builder(conversion)
        for i, choice in enumerate(value["choices"]):
            where = f"/choices/{i}"
            if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
                raise ConvertError(f"{where} must be a choice with a message", where)
            _message(builder, choice["message"], f"{where}/message", cut=choice.get("finish_reason") in CUT_REASONS)
        return conversion
    if isinstance(value.get("messages"), list):
        conversion = Conversion("chat_completions", "request")
        builder = Builder(conversion)
        for member in ("system", "thinking"):  # an Anthropic request read as Chat Completions
            if member in value:
                builder.note(
                    "dropped_content",
                    f"{member!r} is no Chat Completions request member (an Anthropic request? use from: anthropic): "
                    "dropped",
                    f"/{member}",
                )
        _messages(builder, value["messages"], "/messages")
        conversion.tools = convert_tools(value.get("tools"), conversion, "/tools")
        return conversion
    if is_tool_call(value):
        conversion = Conversion("chat_completions", "call")
        _tool_call(Builder(conversion), value, "", cut=False)
        return conversion
    if is_message(value):
        conversion = Conversion("chat_completions", "message")
        _message(Builder(conversion), value, "", cut=False)
        return conversion
    raise ConvertError("not a Chat Completions request, response, messages array or message")


def _messages(builder: Builder, messages: list, base: str) -> None:
    for i, message in enumerate(messages):
        where = f"{base}/{i}"
        if not is_message(message):
            raise ConvertError(f"{where} is not a Chat Completions message (role and content)", where)
        _message(builder, message, where, cut=False)


def _message(builder: Builder, message: dict, where: str, *, cut: bool) -> None:
    role = message.get("role")
    content = message.get("content")
    if isinstance(message.get("name"), str) and role != "function":
        builder.note(
            "dropped_content",
            f"the message name {json.dumps(message['name'], ensure_ascii=False)} has no Open Responses field: dropped",
            f"{where}/name",
        )
    if role == "tool":
        builder.output(message.get("tool_call_id"), _output_text(content), where)
        return
    if role == "function":  # legacy: answers the last legacy call of that name
        call_id = builder.answer(message.get("name"))
        if call_id is None:
            builder.note(
                "unpaired_result",
                f"the legacy function result for {json.dumps(message.get('name'))} answers no function_call before it",
                where,
            )
        builder.output(call_id, _output_text(content), where)
        return
    if role == "assistant":
        if isinstance(message.get("refusal"), str):
            builder.add(
                {
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "refusal", "refusal": message["refusal"]}],
                },
                where,
            )
        if isinstance(content, list):
            others = [p.get("type") if isinstance(p, dict) else None for p in content]
            others = [t for t in others if t != "text"]
            if others:
                builder.note(
                    "dropped_content",
                    f"assistant content parts {sorted(set(map(str, others)))} have no Chat Completions reading here "
                    "and were dropped (an Anthropic message? use from: anthropic)",
                    f"{where}/content",
                )
        builder.message("assistant", text_of(content), where)
        for j, call in enumerate(message.get("tool_calls") or ()):
            _tool_call(builder, call, f"{where}/tool_calls/{j}", cut=cut)
        legacy = message.get("function_call")
        if isinstance(legacy, dict):
            call_id = f"call_legacy_{len(builder.conversion.items)}"
            index = builder.call(
                call_id, legacy.get("name"), legacy.get("arguments"), f"{where}/function_call", cut=cut
            )
            builder.expect(legacy.get("name"), call_id)
            builder.note(
                "legacy_function_call",
                "a legacy function_call has no id: the generated call_id "
                f"{call_id} pairs it with the next function result of the same name",
                f"{where}/function_call",
                index,
            )
        return
    _user_like(builder, role, content, where)


def _user_like(builder: Builder, role: str, content: Any, where: str) -> None:
    if isinstance(content, list):
        dropped = [p.get("type") for p in content if isinstance(p, dict) and p.get("type") != "text"]
        images = [p for p in content if isinstance(p, dict) and p.get("type") == "image_url"]
        parts: list[dict] = [{"type": "input_text", "text": t} for t in text_of(content)]
        for image in images:
            source = image.get("image_url")
            url = source.get("url") if isinstance(source, dict) else None
            if isinstance(url, str):
                part = {"type": "input_image", "image_url": url}
                if source.get("detail") in ("auto", "low", "high"):
                    part["detail"] = source["detail"]  # the same field in Open Responses input_image
                parts.append(part)
            else:
                builder.note("dropped_content", "an image_url part without a url string was dropped", where)
        others = [t for t in dropped if t != "image_url"]
        if others:
            builder.note(
                "dropped_content",
                f"content parts {sorted(set(map(str, others)))} have no Open Responses form here and were dropped",
                where,
            )
        if parts:
            builder.add({"type": "message", "role": role, "content": parts}, where)
        return
    builder.message(role, text_of(content), where)


def _tool_call(builder: Builder, call: Any, where: str, *, cut: bool) -> None:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise ConvertError(
            f'{where} is not a tool call ({{id, type: "function", function: {{name, arguments}}}})', where
        )
    function = call["function"]
    arguments = function.get("arguments")
    index = builder.call(call.get("id"), function.get("name"), arguments, where, cut=cut)
    if not isinstance(arguments, str):
        builder.note(
            "arguments_not_string",
            "arguments is not a JSON string: kept as given, the gate refuses it (arguments_type)",
            f"{where}/function/arguments",
            index,
        )


def _output_text(content: Any) -> Any:
    """A tool message's content as the output string (text parts joined), or the value itself when not text."""
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "".join(text_of(content))
    return content


def convert_tools(tools: Any, conversion: Conversion, where: str) -> list[dict] | None:
    """Chat Completions tool definitions (nested ``{type, function: {name, parameters}}``) as flat ones."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise ConvertError(f"{where} must be an array of tool definitions", where)
    out = []
    builder = Builder(conversion)
    for i, tool in enumerate(tools):
        place = jp.join([*jp.split(where), str(i)])
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(tool, dict) and tool.get("type") == "function" and isinstance(function, dict):
            out.append(
                function_tool(
                    function.get("name"),
                    function.get("description"),
                    function.get("parameters"),
                    function.get("strict"),
                )
            )
        elif isinstance(tool, dict) and tool.get("type") == "function" and "name" in tool:
            out.append(tool)  # already flat
        else:
            builder.note("hosted_tool", f"tool {i} is not a function tool: left out", place)
    return out
