"""A chat request answered by the embedded test model: the ``chat.completion`` object and its stream chunks.

Pure. The request goes through the Responses side (``translate``, then ``parse_create_request``) and the same
``generate`` as ``/v1/responses``; a refusal there is named in Chat Completions terms (``messages[k]``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from webapp.core.responses.fields import RequestError
from webapp.core.responses.legacy_chat.fields import ChatRequestError
from webapp.core.responses.legacy_chat.request import ChatRequest
from webapp.core.responses.legacy_chat.translate import to_responses_body
from webapp.core.responses.request import parse_create_request
from webapp.core.responses.testmodel import Generation, generate, new_id
from webapp.core.responses.tokens import token_chunks


class ChatModelError(RuntimeError):
    """The test model could not answer a valid request (HTTP 500, ``model_error``).

    :param code: the model's error code (``model_error``).
    """

    def __init__(self, message: str, code: str = "model_error") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def complete(request: ChatRequest, *, completion_id: str | None = None, created: int = 0) -> dict[str, Any]:
    """Answer ``request`` with the embedded test model: a ``chat.completion`` object.

    :param completion_id: the ``id`` (default: a fresh ``chatcmpl-...``).
    :param created: the ``created`` Unix time in seconds.
    :raises ChatRequestError: the Responses side refused the translated request (naming the message).
    :raises ChatModelError: the model failed (e.g. no arguments satisfy a tool's ``parameters``).
    """
    body, origin = to_responses_body(request)
    try:
        parsed = parse_create_request(body)
    except RequestError as err:
        raise _from_responses(err, origin) from None
    if request.max_tokens is not None:
        parsed = replace(parsed, max_output_tokens=request.max_tokens)
    try:
        generation = generate(parsed, parsed.input, parsed.tools or [])
    except RequestError as err:
        raise _from_responses(err, origin) from None
    if generation.status == "failed":
        error = generation.error or {}
        raise ChatModelError(error.get("message", "the test model failed"), error.get("code", "model_error"))
    return _completion(request, generation, completion_id or new_id("chatcmpl").replace("_", "-", 1), created)


def _from_responses(err: RequestError, origin: list[int]) -> ChatRequestError:
    param: str | None
    match = re.match(r"input\[(\d+)\]", err.param or "")
    if match and int(match.group(1)) < len(origin):
        param = f"messages[{origin[int(match.group(1))]}]"
    elif (err.param or "").startswith("tools["):  # tools[i].x in the Responses shape is tools[i].function.x here
        param = re.sub(r"^(tools\[\d+\])\.", r"\1.function.", err.param or "")
    else:
        param = "messages" if (err.param or "").startswith("input") else err.param
    detail = err.message.removeprefix(f"{err.param}: ") if err.param else err.message
    return ChatRequestError(detail, param, err.code)


def _completion(request: ChatRequest, generation: Generation, completion_id: str, created: int) -> dict[str, Any]:
    text_parts = [
        part["text"]
        for item in generation.output
        if item["type"] == "message"
        for part in item["content"]
        if part.get("type") == "output_text"
    ]
    calls = [
        {"id": item["call_id"], "type": "function", "function": {"name": item["name"], "arguments": item["arguments"]}}
        for item in generation.output
        if item["type"] == "function_call"
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(text_parts) if text_parts else None,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    if generation.status == "incomplete":
        finish = "length"
    else:
        finish = "tool_calls" if calls else "stop"
    used = generation.usage
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": request.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": used["input_tokens"],
            "completion_tokens": used["output_tokens"],
            "total_tokens": used["total_tokens"],
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": None,
    }


def stream_chunks(request: ChatRequest, completion: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects that stream ``completion`` (as OpenAI's API sends them).

    First a chunk with ``delta.role``; then one ``delta.content`` per token of the text, or per tool call a
    chunk with its ``id``, ``type`` and ``function.name`` followed by ``function.arguments`` deltas (one per
    token); then an empty ``delta`` with ``finish_reason``. With ``stream_options.include_usage`` every chunk
    carries ``usage: null`` and a last chunk has no choices and the usage. The SSE ``data: [DONE]`` line is
    the transport's (``webapp.core.responses.sse.DONE``).
    """
    base = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
        "service_tier": "default",
        "system_fingerprint": None,
    }
    if request.include_usage:
        base["usage"] = None

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    choice = completion["choices"][0]
    message = choice["message"]
    calls = message.get("tool_calls") or []
    if calls:
        yield chunk({"role": "assistant", "content": None, "refusal": None})
        for index, call in enumerate(calls):
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
            for piece in token_chunks(call["function"]["arguments"]):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    else:
        yield chunk({"role": "assistant", "content": "", "refusal": None})
        for piece in token_chunks(message["content"] or ""):
            yield chunk({"content": piece})
    yield chunk({}, choice["finish_reason"])
    if request.include_usage:
        yield {**base, "choices": [], "usage": completion["usage"]}


def chunk_json(chunk: dict[str, Any]) -> str:
    """One chunk as the compact JSON of a ``data:`` line."""
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
