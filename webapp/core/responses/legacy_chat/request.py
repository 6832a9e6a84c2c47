"""A ``POST /v1/chat/completions`` body validated, in Chat Completions terms: :func:`parse_chat_request`.

Pure. Members are checked in body order, so the error names the first bad place; what the test model cannot
honour is refused by name (``n`` > 1, ``logprobs``, audio, the deprecated ``functions``), what it ignores is still
validated, and tool calls and results must pair up as OpenAI's Chat API requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webapp.core.json import json_type
from webapp.core.responses.attachments import Limits, parse_data_url
from webapp.core.responses.fields import INVALID_TYPE, INVALID_VALUE, MISSING, UNKNOWN_PARAMETER, RequestError
from webapp.core.responses.legacy_chat.fields import (
    UNSUPPORTED,
    ChatRequestError,
    expect,
    expect_choice,
    expect_integer,
    expect_name,
    expect_text,
    need,
)
from webapp.core.responses.legacy_chat.tools import (
    ChatFunction,
    ChatToolChoice,
    parse_response_format,
    parse_tool_choice,
    parse_tools,
)

ROLES = ("system", "developer", "user", "assistant", "tool")

# Accepted and validated, without effect on the deterministic test model.
_NUMBERS = {"temperature": (0, 2), "top_p": (0, 1), "presence_penalty": (-2, 2), "frequency_penalty": (-2, 2)}
_STRINGS = ("user", "safety_identifier", "prompt_cache_key")
_ENUMS = {
    "service_tier": ("auto", "default", "flex", "scale", "priority"),
    "reasoning_effort": ("none", "minimal", "low", "medium", "high", "xhigh"),
    "verbosity": ("low", "medium", "high"),
    "prompt_cache_retention": ("in_memory", "24h"),
}
# Parameters of the Chat API this layer refuses by name, with the reason given to the client.
_UNSUPPORTED = {
    "functions": "deprecated in the Chat Completions API; send tools instead",
    "function_call": "deprecated in the Chat Completions API; send tool_choice instead",
    "audio": "audio output is not supported by this server",
    "prediction": "predicted outputs are not supported by this server",
    "web_search_options": "web search is not supported by this server",
    "moderation": "moderation is not supported by this server",
}


@dataclass(frozen=True)
class ChatToolCall:
    """One entry of an assistant message's ``tool_calls`` (``arguments`` is JSON text, as sent)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatPart:
    """One content part. ``kind``: ``text``, ``refusal``, ``image`` or ``file``.

    :param value: the text, the refusal, the image's data URL or the file's data URL.
    """

    kind: str
    value: str
    detail: str | None = None
    filename: str | None = None


@dataclass(frozen=True)
class ChatMessage:
    """One message of ``messages``; ``content`` is ``None`` only for an assistant message with tool calls."""

    role: str
    content: str | tuple[ChatPart, ...] | None
    tool_calls: tuple[ChatToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True)
class ChatRequest:
    """A validated Chat Completions request body."""

    model: str
    messages: tuple[ChatMessage, ...]
    tools: tuple[ChatFunction, ...] = ()
    tool_choice: ChatToolChoice | None = None
    stream: bool = False
    include_usage: bool = False
    max_tokens: int | None = None
    parallel_tool_calls: bool | None = None
    response_format: dict[str, Any] | None = None
    user: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


def _parts(content: list[Any], path: str, role: str, limits: Limits) -> tuple[ChatPart, ...]:
    allowed = {"user": ("text", "image_url", "file"), "assistant": ("text", "refusal")}.get(role, ("text",))
    parts = []
    for j, raw in enumerate(content):
        at = f"{path}[{j}]"
        expect(raw, dict, at, "a content part object")
        kind = need(raw, "type", at)
        if kind not in allowed:
            hint = " (this server accepts text, images and files only)" if kind == "input_audio" else ""
            if isinstance(kind, str) and kind.startswith(("input_", "output_")):
                hint = " (that is a Responses part type; Chat Completions parts are 'text', 'image_url', 'file')"
            raise ChatRequestError(
                f"{kind!r} is not accepted in a {role} message; expected one of {', '.join(map(repr, allowed))}{hint}",
                f"{at}.type",
                INVALID_VALUE if isinstance(kind, str) else INVALID_TYPE,
            )
        if kind == "text":
            parts.append(ChatPart("text", expect_text(need(raw, "text", at), f"{at}.text")))
        elif kind == "refusal":
            parts.append(ChatPart("refusal", expect_text(need(raw, "refusal", at), f"{at}.refusal")))
        elif kind == "image_url":
            image = expect(need(raw, "image_url", at), dict, f"{at}.image_url", "an object {url, detail?}")
            url = expect_text(need(image, "url", f"{at}.image_url"), f"{at}.image_url.url")
            detail = image.get("detail")
            if detail is not None:
                expect_choice(detail, f"{at}.image_url.detail", ("auto", "low", "high"))
            _data_url(url, f"{at}.image_url.url", limits.image_types, limits.max_image_bytes)
            parts.append(ChatPart("image", url, detail=detail))
        else:
            file = expect(need(raw, "file", at), dict, f"{at}.file", "an object {file_data, filename?}")
            if file.get("file_id") is not None:
                raise ChatRequestError(
                    "file ids need a file store this server does not have; send file_data as a data: URL",
                    f"{at}.file.file_id",
                    UNSUPPORTED,
                )
            data = expect_text(need(file, "file_data", f"{at}.file"), f"{at}.file.file_data")
            filename = file.get("filename")
            if filename is not None:
                expect_text(filename, f"{at}.file.filename")
            _data_url(data, f"{at}.file.file_data", limits.file_types, limits.max_file_bytes)
            parts.append(ChatPart("file", data, filename=filename))
    return tuple(parts)


def _data_url(url: str, path: str, allowed: tuple[str, ...], max_bytes: int) -> None:
    # The attachment rules (inline only, media types, size cap, signature) are the Responses endpoint's.
    try:
        parse_data_url(url, path, allowed=allowed, max_bytes=max_bytes)
    except RequestError as err:
        raise ChatRequestError(err.message.removeprefix(f"{path}: "), path, err.code) from None


def _content(message: dict[str, Any], path: str, role: str, limits: Limits) -> str | tuple[ChatPart, ...] | None:
    where = f"{path}.content"
    content = message.get("content")
    if content is None:
        if role == "assistant":
            return None  # allowed with tool_calls; _message refuses it without
        if "content" not in message:
            raise ChatRequestError("missing required field", where, MISSING)
        raise ChatRequestError(
            "must be a string or an array of content parts (null only for an assistant message with tool_calls)",
            where,
            INVALID_TYPE,
        )
    if isinstance(content, str):
        return expect_text(content, where)
    if isinstance(content, list):
        return _parts(content, where, role, limits)
    raise ChatRequestError(
        f"expected a string or an array of content parts, got {json_type(content)}", where, INVALID_TYPE
    )


def _tool_calls(value: Any, path: str) -> tuple[ChatToolCall, ...]:
    calls = []
    for k, raw in enumerate(expect(value, list, path, "an array")):
        at = f"{path}[{k}]"
        expect(raw, dict, at, "a tool call object")
        kind = raw.get("type", "function")
        if kind != "function":
            raise ChatRequestError(
                f"unsupported tool call type {kind!r}; expected 'function'", f"{at}.type", UNSUPPORTED
            )
        call_id = expect_text(need(raw, "id", at), f"{at}.id", empty=False)
        function = expect(need(raw, "function", at), dict, f"{at}.function", "an object {name, arguments}")
        name = expect_name(need(function, "name", f"{at}.function"), f"{at}.function.name")
        arguments = need(function, "arguments", f"{at}.function")
        if not isinstance(arguments, str):
            raise ChatRequestError(
                f"expected a string of JSON text, got {json_type(arguments)} (encode the "
                "arguments object with json.dumps)",
                f"{at}.function.arguments",
                INVALID_TYPE,
            )
        calls.append(ChatToolCall(call_id, name, arguments))
    return tuple(calls)


def _message(raw: Any, path: str, limits: Limits) -> ChatMessage:
    expect(raw, dict, path, "a message object {role, content}")
    if "role" not in raw and "type" in raw:
        raise ChatRequestError(
            "missing required field (this looks like an Open Responses item; send it to "
            "POST /v1/responses, or give a Chat Completions message {role, content})",
            f"{path}.role",
            MISSING,
        )
    role = need(raw, "role", path)
    if role == "function":
        raise ChatRequestError(
            "the 'function' role is deprecated in the Chat Completions API; send a 'tool' message with tool_call_id",
            f"{path}.role",
            UNSUPPORTED,
        )
    expect_choice(role, f"{path}.role", ROLES)
    if raw.get("name") is not None:
        expect_text(raw["name"], f"{path}.name")
    content = _content(raw, path, role, limits)
    tool_calls: tuple[ChatToolCall, ...] = ()
    tool_call_id = None
    if role == "assistant" and raw.get("tool_calls") is not None:
        tool_calls = _tool_calls(raw["tool_calls"], f"{path}.tool_calls")
    elif "tool_calls" in raw and raw["tool_calls"] is not None:
        raise ChatRequestError("only assistant messages carry tool_calls", f"{path}.tool_calls", INVALID_VALUE)
    if role == "tool":
        tool_call_id = expect_text(need(raw, "tool_call_id", path), f"{path}.tool_call_id", empty=False)
    if role == "assistant" and content is None and not tool_calls:
        raise ChatRequestError("an assistant message needs content or tool_calls", f"{path}.content", MISSING)
    return ChatMessage(role, content, tool_calls, tool_call_id)


def _check_pairing(messages: tuple[ChatMessage, ...]) -> None:
    """Tool results answer the calls of the assistant message just before them, each exactly once, and every
    call is answered before the conversation moves on (the rules OpenAI's Chat API enforces)."""
    seen: dict[str, int] = {}
    open_calls: dict[str, int] = {}  # call id -> index of the assistant message, awaiting its tool message
    answered: set[str] = set()
    for i, message in enumerate(messages):
        if message.role == "tool":
            call_id = message.tool_call_id
            if call_id in answered:
                raise ChatRequestError(
                    f"tool_call_id {call_id!r} was already answered", f"messages[{i}].tool_call_id", "duplicate_output"
                )
            if call_id not in open_calls:
                pending = ", ".join(map(repr, open_calls)) or "none"
                raise ChatRequestError(
                    f"a 'tool' message must answer a tool call of the assistant message before "
                    f"it; tool_call_id {call_id!r} is not one of them (open calls: {pending})",
                    f"messages[{i}].tool_call_id",
                    "orphan_output",
                )
            del open_calls[call_id]
            answered.add(call_id)
            continue
        if open_calls:
            index = next(iter(open_calls.values()))
            raise ChatRequestError(
                f"the tool_calls of messages[{index}] need a 'tool' message each before the "
                f"next message; unanswered: {', '.join(map(repr, open_calls))}",
                f"messages[{i}]",
                "missing_output",
            )
        for k, call in enumerate(message.tool_calls):
            if call.id in seen:
                raise ChatRequestError(
                    f"tool call id {call.id!r} is also used in messages[{seen[call.id]}]",
                    f"messages[{i}].tool_calls[{k}].id",
                    "duplicate_call_id",
                )
            seen[call.id] = i
            open_calls[call.id] = i
    if open_calls:
        index = next(iter(open_calls.values()))
        raise ChatRequestError(
            f"the tool_calls of messages[{index}] have no 'tool' message answering "
            f"{', '.join(map(repr, open_calls))}; send the results as 'tool' messages",
            "messages",
            "missing_output",
        )


def _ignored(key: str, value: Any) -> None:
    """Validate a parameter that is accepted without effect on the test model."""
    if value is None:
        return
    if key in _NUMBERS:
        low, high = _NUMBERS[key]
        expect(value, (int, float), key, "a number or null")
        if not low <= value <= high:
            raise ChatRequestError(f"must be between {low} and {high}, got {value}", key)
    elif key in _STRINGS:
        expect_text(value, key)
    elif key in _ENUMS:
        expect_choice(value, key, _ENUMS[key])
    elif key == "seed":
        expect_integer(value, key, -(2**63))
    elif key == "stop":
        stops = [value] if isinstance(value, str) else expect(value, list, key, "a string or an array of strings")
        if len(stops) > 4:
            raise ChatRequestError(f"at most 4 stop sequences, got {len(stops)}", key)
        for k, stop in enumerate(stops):
            expect_text(stop, f"{key}[{k}]" if isinstance(value, list) else key)
    elif key == "logit_bias":
        for token, bias in expect(value, dict, key, "an object").items():
            expect(bias, (int, float), f"{key}.{token}", "a number")
    elif key == "store":
        expect(value, bool, key, "a boolean or null")
    elif key == "modalities":
        if expect(value, list, key, "an array") not in (["text"], []):
            raise ChatRequestError("only the 'text' modality is supported", key, UNSUPPORTED)
    elif key == "top_logprobs":
        expect_integer(value, key, 0, 20)
    elif key == "prompt_cache_options":
        expect(value, dict, key, "an object")


_IGNORED = (
    *_NUMBERS,
    *_STRINGS,
    *_ENUMS,
    "seed",
    "stop",
    "logit_bias",
    "store",
    "modalities",
    "top_logprobs",
    "prompt_cache_options",
)


def parse_chat_request(body: Any, limits: Limits | None = None) -> ChatRequest:
    """Validate a ``POST /v1/chat/completions`` body (OpenAI Chat Completions API, as the ``openai`` SDK sends it).

    Required: ``model`` (a non-empty string) and ``messages`` (a non-empty array). Members are checked in body
    order, so the error names the first bad place. Unknown parameters are refused (``unknown_parameter``), as
    are those the test model cannot honour (``unsupported_parameter``: ``n`` > 1, ``logprobs: true``,
    ``functions``, ``audio``...). Tool calls and results must pair up (:func:`_check_pairing`).

    :param limits: caps on inline images and files (those of ``/v1/responses``).
    :raises ChatRequestError: the first problem found.
    """
    limits = limits or Limits()
    if not isinstance(body, dict):
        raise ChatRequestError(f"the body must be a JSON object, got {json_type(body)}", None, INVALID_TYPE)
    fields: dict[str, Any] = {}
    stream_options = None
    max_tokens: dict[str, int | None] = {}
    for key, value in body.items():
        if key == "model":
            fields["model"] = expect_text(value, key, empty=False)
        elif key == "messages":
            messages = expect(value, list, key, "an array of messages")
            if not messages:
                raise ChatRequestError("must hold at least one message", key)
            fields["messages"] = tuple(_message(m, f"messages[{i}]", limits) for i, m in enumerate(messages))
        elif key == "tools":
            fields["tools"] = () if value is None else parse_tools(value)
        elif key == "tool_choice":
            fields["tool_choice_raw"] = value
        elif key == "stream":
            fields["stream"] = bool(value is not None and expect(value, bool, key, "a boolean or null"))
        elif key == "stream_options":
            if value is not None:
                stream_options = expect(value, dict, key, "an object {include_usage?}")
                for option, flag in stream_options.items():
                    if option not in ("include_usage", "include_obfuscation"):
                        raise ChatRequestError("unknown option", f"{key}.{option}", UNKNOWN_PARAMETER)
                    if flag is not None:
                        expect(flag, bool, f"{key}.{option}", "a boolean or null")
        elif key in ("max_tokens", "max_completion_tokens"):
            max_tokens[key] = expect_integer(value, key, 1)
        elif key == "n":
            if expect_integer(value, key, 1, 128) not in (None, 1):
                raise ChatRequestError("only one choice (n = 1) is supported by this server", key, UNSUPPORTED)
        elif key == "logprobs":
            if value is not None and expect(value, bool, key, "a boolean or null"):
                raise ChatRequestError("log probabilities are not available from the test model", key, UNSUPPORTED)
        elif key == "parallel_tool_calls":
            fields["parallel_tool_calls"] = None if value is None else expect(value, bool, key, "a boolean")
        elif key == "response_format":
            fields["response_format"] = parse_response_format(value)
        elif key == "metadata":
            fields["metadata"] = _metadata(value)
        elif key in _IGNORED:
            _ignored(key, value)
            if key == "user":
                fields["user"] = value
        elif key in _UNSUPPORTED:
            raise ChatRequestError(_UNSUPPORTED[key], key, UNSUPPORTED)
        else:
            hint = ""
            if key in ("input", "instructions", "previous_response_id"):
                hint = " (this looks like an Open Responses body; send it to POST /v1/responses)"
            raise ChatRequestError(f"unrecognized request argument{hint}", key, UNKNOWN_PARAMETER)
    for key in ("model", "messages"):
        if key not in fields:
            raise ChatRequestError("missing required parameter", key, MISSING)
    if stream_options is not None and not fields.get("stream"):
        raise ChatRequestError("stream_options is only allowed when stream is true", "stream_options")
    tools = fields.get("tools", ())
    choice = (
        parse_tool_choice(fields.pop("tool_choice_raw"), tools) if fields.get("tool_choice_raw") is not None else None
    )
    fields.pop("tool_choice_raw", None)
    if len({v for v in max_tokens.values() if v is not None}) > 1:
        raise ChatRequestError(
            "max_tokens and max_completion_tokens disagree; send max_completion_tokens only", "max_tokens"
        )
    _check_pairing(fields["messages"])
    if not any(m.role in ("user", "tool") for m in fields["messages"]):
        raise ChatRequestError(
            "nothing to answer: send at least one 'user' message (or 'tool' results)", "messages", MISSING
        )
    limit = max_tokens.get("max_completion_tokens") or max_tokens.get("max_tokens")
    include_usage = bool((stream_options or {}).get("include_usage"))
    return ChatRequest(**fields, tool_choice=choice, max_tokens=limit, include_usage=include_usage)


def _metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    expect(value, dict, "metadata", "an object of strings")
    if len(value) > 16:
        raise ChatRequestError(f"at most 16 keys, got {len(value)}", "metadata")
    for key, item in value.items():
        if len(key) > 64:
            raise ChatRequestError(f"key {key[:20]!r}... is longer than 64 characters", "metadata")
        if len(expect_text(item, f"metadata.{key}")) > 512:
            raise ChatRequestError("is longer than 512 characters", f"metadata.{key}")
    return dict(value)
