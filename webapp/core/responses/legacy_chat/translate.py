"""A validated chat request as the Open Responses ``CreateResponseBody`` that asks the same of the model.

Pure. The body is plain JSON (the wire format), so this layer shares no request type with the Responses side.
"""

from __future__ import annotations

from typing import Any

from webapp.core.responses.legacy_chat.request import ChatMessage, ChatPart, ChatRequest


def to_responses_body(request: ChatRequest) -> tuple[dict[str, Any], list[int]]:
    """The Open Responses ``CreateResponseBody`` (plain JSON) that asks the same of the model.

    ``max_tokens`` is left out: the Chat API allows budgets below the Responses minimum of 16, so
    :func:`complete` applies it to the parsed request instead.

    :return: ``(body, origin)``: ``origin[k]`` is the index in ``messages`` of ``body["input"][k]`` (to name
        the message when the Responses side refuses an item).
    """
    items: list[dict[str, Any]] = []
    origin: list[int] = []
    for i, message in enumerate(request.messages):
        made = _items(message)
        items += made
        origin += [i] * len(made)
    body: dict[str, Any] = {"model": request.model, "input": items, "store": False}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": t.strict,
            }
            for t in request.tools
        ]
    choice = request.tool_choice
    if choice is not None:
        if choice.kind == "function":
            body["tool_choice"] = {"type": "function", "name": choice.names[0]}  # type: ignore[index]  # a function choice names it
        elif choice.kind == "allowed_tools":
            body["tool_choice"] = {
                "type": "allowed_tools",
                "mode": choice.mode,
                "tools": [{"type": "function", "name": n} for n in choice.names or ()],
            }
        else:
            body["tool_choice"] = choice.mode
    if request.parallel_tool_calls is not None:
        body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.response_format is not None:
        body["text"] = {"format": request.response_format}
    if request.user is not None:
        body["user"] = request.user
    return body, origin


def _items(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [{"type": "function_call_output", "call_id": message.tool_call_id, "output": _plain(message.content)}]
    items: list[dict[str, Any]] = []
    content: Any = message.content
    if isinstance(content, tuple):
        # system/developer parts are text only (validated), and Responses wants them as input_text: join them.
        content = (
            _plain(content)
            if message.role in ("system", "developer")
            else [_part(message.role, part) for part in content]
        )
    if content is not None and (content != "" or not message.tool_calls):
        items.append({"type": "message", "role": message.role, "content": content})
    items += [
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments,
            "status": "completed",
        }
        for call in message.tool_calls
    ]
    return items


def _plain(content: str | tuple[ChatPart, ...] | None) -> str:
    if isinstance(content, tuple):
        return "\n".join(part.value for part in content if part.kind == "text")
    return content or ""


def _part(role: str, part: ChatPart) -> dict[str, Any]:
    if part.kind == "text":
        return {"type": "output_text" if role == "assistant" else "input_text", "text": part.value}
    if part.kind == "refusal":
        return {"type": "refusal", "refusal": part.value}
    if part.kind == "image":
        return {"type": "input_image", "image_url": part.value, "detail": part.detail or "auto"}
    return {"type": "input_file", "file_data": part.value, "filename": part.filename}
