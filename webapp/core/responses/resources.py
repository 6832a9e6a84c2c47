"""What ``/v1/responses`` answers: ``ResponseResource``, ``CompactResource``, output items, usage, stored input.

Pure (no Flask, no I/O). Shapes: Open Responses OpenAPI 2026-04-24 (``ResponseResource``, ``ItemField``,
``CompactResource``, ``Usage``); every member the schema requires is present, in the spec's order.
"""

from __future__ import annotations

from typing import Any

from webapp.core.responses.input_items import CALL_STATUSES
from webapp.core.responses.request import CreateRequest
from webapp.core.responses.tools import Tool, ToolChoice


def compact_resource(
    *, resource_id: str, created_at: int, output: list[dict[str, Any]], usage_: dict[str, Any]
) -> dict[str, Any]:
    """A ``CompactResource``: ``id``, ``object: "response.compaction"``, ``output`` (``ItemField[]``),
    ``created_at`` (Unix seconds) and ``usage``."""
    return {
        "id": resource_id,
        "object": "response.compaction",
        "output": output,
        "created_at": created_at,
        "usage": usage_,
    }


def output_text_part(text: str) -> dict[str, Any]:
    """An ``output_text`` content part (``OutputTextContent``: ``annotations`` is required)."""
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(item_id: str, text: str | None, status: str = "completed") -> dict[str, Any]:
    """An assistant ``Message`` output item; ``text=None`` gives the empty item of ``output_item.added``."""
    content = [] if text is None else [output_text_part(text)]
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def function_call_item(
    item_id: str, call_id: str, name: str, arguments: str, status: str = "completed"
) -> dict[str, Any]:
    """A ``FunctionCall`` output item (``arguments`` is the JSON text, as a string)."""
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


def usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """A ``Usage`` object with all five required members.

    ``input_tokens_details`` also carries ``cache_write_tokens`` (an extra member, allowed by the spec's
    schema): the openai SDK's strict validation requires it.
    """
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }


def text_echo(text: dict[str, Any] | None) -> dict[str, Any]:
    """The response's ``text`` (``TextField``): the format defaults to ``{"type": "text"}``.

    A ``json_schema`` format is echoed with ``schema: null``: the response schema types it as null
    (``JsonSchemaResponseFormat.schema``, spec notes §5.8), so the schema itself is not repeated.
    """
    fmt = dict((text or {}).get("format") or {"type": "text"})
    if fmt.get("type") == "json_schema":
        fmt = {
            "type": "json_schema",
            "name": fmt["name"],
            "description": fmt.get("description"),
            "schema": None,
            "strict": bool(fmt.get("strict")),
        }
    result: dict[str, Any] = {"format": fmt}
    if text is not None and text.get("verbosity") is not None:
        result["verbosity"] = text["verbosity"]
    return result


def response_resource(
    request: CreateRequest,
    *,
    response_id: str,
    created_at: int,
    model: str,
    tools: list[Tool],
    status: str,
    output: list[dict[str, Any]],
    usage_: dict[str, Any] | None,
    completed_at: int | None = None,
    error: dict[str, str] | None = None,
    incomplete_details: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A ``ResponseResource`` with all 31 fields the spec requires (spec notes §4), in the spec's order.

    Settings the request left out are echoed with the value this server used (``temperature`` 1,
    ``top_p`` 1, penalties 0, ``truncation`` ``disabled``, ``service_tier`` ``default``...).

    :param tools: the tools in effect (the request's, or those inherited from the previous response).
    :param status: ``in_progress``, ``completed``, ``incomplete`` or ``failed``.
    """
    choice = request.tool_choice or ToolChoice()
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "completed_at": completed_at,
        "status": status,
        "incomplete_details": incomplete_details,
        "model": model,
        "previous_response_id": request.previous_response_id,
        "instructions": request.instructions,
        "output": output,
        "error": error,
        "tools": [tool.echo() for tool in tools],
        "tool_choice": choice.echo(),
        "truncation": request.truncation or "disabled",
        "parallel_tool_calls": request.parallel_tool_calls is not False,
        "text": text_echo(request.text),
        "top_p": 1.0 if request.top_p is None else request.top_p,
        "presence_penalty": request.presence_penalty or 0.0,
        "frequency_penalty": request.frequency_penalty or 0.0,
        "top_logprobs": request.top_logprobs or 0,
        "temperature": 1.0 if request.temperature is None else request.temperature,
        "reasoning": request.reasoning,
        "usage": usage_,
        "max_output_tokens": request.max_output_tokens,
        "max_tool_calls": request.max_tool_calls,
        "store": request.store,
        "background": False,
        "service_tier": "default" if request.service_tier in (None, "auto") else request.service_tier,
        "metadata": dict(request.metadata),
        "safety_identifier": request.safety_identifier,
        "prompt_cache_key": request.prompt_cache_key,
    }


def stored_input_item(item: dict[str, Any], item_id: str) -> dict[str, Any]:
    """An input item as ``GET /v1/responses/{id}/input_items`` lists it: with an ``id`` (kept when the
    client sent one), messages with array content and a status, calls and outputs with a status.

    :param item_id: the id to use when the item has none.
    """
    result = dict(item)
    if not result.get("id"):
        result = {"id": item_id, **result}
    kind = result.get("type")
    if kind == "message":
        content = result.get("content")
        if isinstance(content, str):
            part_type = "output_text" if result.get("role") == "assistant" else "input_text"
            result["content"] = [
                output_text_part(content) if part_type == "output_text" else {"type": "input_text", "text": content}
            ]
        if result.get("status") not in CALL_STATUSES:
            result["status"] = "completed"
    elif kind in ("function_call", "function_call_output") and result.get("status") is None:
        result["status"] = "completed"
    return result
