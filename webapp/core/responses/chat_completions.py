"""The legacy Chat Completions layer (``POST /v1/chat/completions``): its own request and response models.

Pure (no Flask, no I/O). Deprecated by design (gateway plan, "Chat Completions deprecation path"): this module
shares no schema types with the Responses models. A chat request is validated here, in Chat Completions terms
(errors name ``messages[2].content[0].image_url.url``), then translated into an Open Responses *wire* body
(plain JSON) and answered by the same embedded test model as ``/v1/responses``
(``webapp.core.responses.testmodel``). Deleting this module and its view removes the endpoint and nothing else.

Shapes follow OpenAI's Chat Completions API as the official ``openai`` SDK types it (``ChatCompletion``,
``ChatCompletionChunk``); what the test model cannot honour is refused by name rather than ignored
(``n`` > 1, ``logprobs``, audio, the deprecated ``functions``).

Mapping (chat → Responses items): ``system``/``developer`` → messages of that role; ``user`` → a user message
(``text`` → ``input_text``, ``image_url`` → ``input_image``, ``file`` → ``input_file``; inline ``data:`` URLs
only, the server never fetches); ``assistant`` → an assistant message and one ``function_call`` per
``tool_calls`` entry; ``tool`` → ``function_call_output``. Back: a ``function_call`` becomes a ``tool_calls``
entry whose ``id`` is the call's ``call_id``; ``finish_reason`` is ``tool_calls``, ``length`` (cut by
``max_completion_tokens``) or ``stop``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.core.gate import FUNCTION_NAME, FUNCTION_NAME_RULE, TOOL_CHOICE_MODES
from webapp.core.json import json_type
from webapp.core.responses.models import (
    INVALID_TYPE,
    INVALID_VALUE,
    MISSING,
    UNKNOWN_PARAMETER,
    Limits,
    RequestError,
    parse_create_request,
    parse_data_url,
)
from webapp.core.responses.testmodel import Generation, generate, new_id, token_chunks
from webapp.core.schema import SchemaInvalid, compile_schema

ROLES = ("system", "developer", "user", "assistant", "tool")
MAX_TEXT = 10 * 1024 * 1024  # characters per text field, as /v1/responses allows

# error.code values: those of /v1/responses (webapp.core.responses.models, OpenAI's names), and this one of its own
UNSUPPORTED = "unsupported_parameter"

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


class ChatRequestError(ValueError):
    """The chat request is invalid (HTTP 400, ``invalid_request_error``).

    :param message: plain words, starting with ``param`` when there is one.
    :param param: where: ``messages[2].content[0].type``, ``tools[0].function.name``, ``max_tokens``.
    :param code: a stable code (``missing_required_parameter``, ``invalid_type``, ``invalid_value``,
        ``unknown_parameter``, ``unsupported_parameter``, ``orphan_output``, ``missing_output``, ...).
    """

    def __init__(self, message: str, param: str | None = None, code: str = INVALID_VALUE) -> None:
        self.message = f"{param}: {message}" if param else message
        super().__init__(self.message)
        self.param = param
        self.code = code


class ChatModelError(RuntimeError):
    """The test model could not answer a valid request (HTTP 500, ``model_error``).

    :param code: the model's error code (``model_error``).
    """

    def __init__(self, message: str, code: str = "model_error") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# ------------------------------------------------------------------------------------------------ models


@dataclass(frozen=True)
class ChatFunction:
    """A tool: ``{"type": "function", "function": {name, description?, parameters?, strict?}}``."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


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
class ChatToolChoice:
    """``tool_choice``: ``mode`` ``none``/``auto``/``required``; ``names`` limits the callable tools
    (a named function, or ``allowed_tools``); ``kind`` is the shape sent (``mode``, ``function``,
    ``allowed_tools``)."""

    mode: str = "auto"
    names: tuple[str, ...] | None = None
    kind: str = "mode"


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


# ------------------------------------------------------------------------------------------------ validation


def _expect(value: Any, kind: type | tuple[type, ...], path: str, what: str) -> Any:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # bool is an int subclass in Python, but true is no number in JSON.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ChatRequestError(f"expected {what}, got {json_type(value)}", path, INVALID_TYPE)
    return value


def _need(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        raise ChatRequestError("missing required field", f"{path}.{key}" if path else key, MISSING)
    return obj[key]


def _text(value: Any, path: str, *, empty: bool = True) -> str:
    _expect(value, str, path, "a string")
    if not empty and not value:
        raise ChatRequestError("must not be empty", path, INVALID_VALUE)
    if len(value) > MAX_TEXT:
        raise ChatRequestError(f"is {len(value):,} characters; the limit is {MAX_TEXT:,}", path, INVALID_VALUE)
    return value


def _name(value: Any, path: str) -> str:
    _text(value, path)
    if not FUNCTION_NAME.fullmatch(value):
        raise ChatRequestError(f"{value[:80]!r} must be {FUNCTION_NAME_RULE}", path)
    return value


def _integer(value: Any, path: str, minimum: int, maximum: int | None = None) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    _expect(value, int, path, "an integer or null")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
        raise ChatRequestError(f"must be {bound}, got {value}", path)
    return value


def _choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    _expect(value, str, path, "a string")
    if value not in choices:
        raise ChatRequestError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}", path)
    return value


def _parts(content: list[Any], path: str, role: str, limits: Limits) -> tuple[ChatPart, ...]:
    allowed = {"user": ("text", "image_url", "file"), "assistant": ("text", "refusal")}.get(role, ("text",))
    parts = []
    for j, raw in enumerate(content):
        at = f"{path}[{j}]"
        _expect(raw, dict, at, "a content part object")
        kind = _need(raw, "type", at)
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
            parts.append(ChatPart("text", _text(_need(raw, "text", at), f"{at}.text")))
        elif kind == "refusal":
            parts.append(ChatPart("refusal", _text(_need(raw, "refusal", at), f"{at}.refusal")))
        elif kind == "image_url":
            image = _expect(_need(raw, "image_url", at), dict, f"{at}.image_url", "an object {url, detail?}")
            url = _text(_need(image, "url", f"{at}.image_url"), f"{at}.image_url.url")
            detail = image.get("detail")
            if detail is not None:
                _choice(detail, f"{at}.image_url.detail", ("auto", "low", "high"))
            _data_url(url, f"{at}.image_url.url", limits.image_types, limits.max_image_bytes)
            parts.append(ChatPart("image", url, detail=detail))
        else:
            file = _expect(_need(raw, "file", at), dict, f"{at}.file", "an object {file_data, filename?}")
            if file.get("file_id") is not None:
                raise ChatRequestError(
                    "file ids need a file store this server does not have; send file_data as a data: URL",
                    f"{at}.file.file_id",
                    UNSUPPORTED,
                )
            data = _text(_need(file, "file_data", f"{at}.file"), f"{at}.file.file_data")
            filename = file.get("filename")
            if filename is not None:
                _text(filename, f"{at}.file.filename")
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
        return _text(content, where)
    if isinstance(content, list):
        return _parts(content, where, role, limits)
    raise ChatRequestError(
        f"expected a string or an array of content parts, got {json_type(content)}", where, INVALID_TYPE
    )


def _tool_calls(value: Any, path: str) -> tuple[ChatToolCall, ...]:
    calls = []
    for k, raw in enumerate(_expect(value, list, path, "an array")):
        at = f"{path}[{k}]"
        _expect(raw, dict, at, "a tool call object")
        kind = raw.get("type", "function")
        if kind != "function":
            raise ChatRequestError(
                f"unsupported tool call type {kind!r}; expected 'function'", f"{at}.type", UNSUPPORTED
            )
        call_id = _text(_need(raw, "id", at), f"{at}.id", empty=False)
        function = _expect(_need(raw, "function", at), dict, f"{at}.function", "an object {name, arguments}")
        name = _name(_need(function, "name", f"{at}.function"), f"{at}.function.name")
        arguments = _need(function, "arguments", f"{at}.function")
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
    _expect(raw, dict, path, "a message object {role, content}")
    if "role" not in raw and "type" in raw:
        raise ChatRequestError(
            "missing required field (this looks like an Open Responses item; send it to "
            "POST /v1/responses, or give a Chat Completions message {role, content})",
            f"{path}.role",
            MISSING,
        )
    role = _need(raw, "role", path)
    if role == "function":
        raise ChatRequestError(
            "the 'function' role is deprecated in the Chat Completions API; send a 'tool' message with tool_call_id",
            f"{path}.role",
            UNSUPPORTED,
        )
    _choice(role, f"{path}.role", ROLES)
    if raw.get("name") is not None:
        _text(raw["name"], f"{path}.name")
    content = _content(raw, path, role, limits)
    tool_calls: tuple[ChatToolCall, ...] = ()
    tool_call_id = None
    if role == "assistant" and raw.get("tool_calls") is not None:
        tool_calls = _tool_calls(raw["tool_calls"], f"{path}.tool_calls")
    elif "tool_calls" in raw and raw["tool_calls"] is not None:
        raise ChatRequestError("only assistant messages carry tool_calls", f"{path}.tool_calls", INVALID_VALUE)
    if role == "tool":
        tool_call_id = _text(_need(raw, "tool_call_id", path), f"{path}.tool_call_id", empty=False)
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


def _usable_schema(schema: dict[str, Any], path: str) -> None:
    """The schema must compile (``webapp.core.schema``); the error's param continues into it with a JSON Pointer."""
    try:
        compile_schema(schema)
    except SchemaInvalid as err:
        raise ChatRequestError(
            f"not a usable JSON Schema: {err.message}", f"{path}{err.pointer}", "invalid_schema"
        ) from None


def _tools(value: Any) -> tuple[ChatFunction, ...]:
    tools: list[ChatFunction] = []
    names: dict[str, int] = {}
    for i, raw in enumerate(_expect(value, list, "tools", "an array")):
        at = f"tools[{i}]"
        _expect(raw, dict, at, "a tool object")
        if "name" in raw and "function" not in raw:
            raise ChatRequestError(
                "this is the flat Responses tool shape; Chat Completions tools are "
                '{"type": "function", "function": {"name": ..., "parameters": {...}}}',
                at,
                "responses_tool_shape",
            )
        kind = _need(raw, "type", at)
        if kind != "function":
            raise ChatRequestError(
                f"unsupported tool type {kind!r}; this server offers function tools only", f"{at}.type", UNSUPPORTED
            )
        function = _expect(_need(raw, "function", at), dict, f"{at}.function", "an object {name, parameters?}")
        name = _name(_need(function, "name", f"{at}.function"), f"{at}.function.name")
        if name in names:
            raise ChatRequestError(f"duplicate tool name {name!r} (also tools[{names[name]}])", f"{at}.function.name")
        names[name] = i
        description = function.get("description")
        if description is not None:
            _text(description, f"{at}.function.description")
        parameters = function.get("parameters")
        if parameters is not None:
            _expect(parameters, dict, f"{at}.function.parameters", "a JSON Schema object")
            _usable_schema(parameters, f"{at}.function.parameters")
        strict = function.get("strict")
        if strict is not None:
            _expect(strict, bool, f"{at}.function.strict", "a boolean or null")
        tools.append(ChatFunction(name, description, parameters, strict))
    return tuple(tools)


def _tool_choice(value: Any, tools: tuple[ChatFunction, ...]) -> ChatToolChoice:
    known = {tool.name for tool in tools}
    if isinstance(value, str):
        choice = ChatToolChoice(_choice(value, "tool_choice", TOOL_CHOICE_MODES))
    else:
        _expect(value, dict, "tool_choice", f"{', '.join(map(repr, TOOL_CHOICE_MODES))} or an object")
        kind = _need(value, "type", "tool_choice")
        if kind == "function":
            if "name" in value and "function" not in value:
                raise ChatRequestError(
                    "this is the Responses shape; Chat Completions names a function as "
                    '{"type": "function", "function": {"name": ...}}',
                    "tool_choice",
                    "responses_tool_shape",
                )
            function = _expect(
                _need(value, "function", "tool_choice"), dict, "tool_choice.function", "an object {name}"
            )
            name = _name(_need(function, "name", "tool_choice.function"), "tool_choice.function.name")
            if name not in known:
                raise ChatRequestError(f"no tool named {name!r} in tools", "tool_choice.function.name")
            choice = ChatToolChoice("required", (name,), "function")
        elif kind == "allowed_tools":
            spec = _expect(
                _need(value, "allowed_tools", "tool_choice"),
                dict,
                "tool_choice.allowed_tools",
                "an object {mode, tools}",
            )
            mode = _choice(
                _need(spec, "mode", "tool_choice.allowed_tools"), "tool_choice.allowed_tools.mode", ("auto", "required")
            )
            listed = _expect(
                _need(spec, "tools", "tool_choice.allowed_tools"), list, "tool_choice.allowed_tools.tools", "an array"
            )
            if not listed:
                raise ChatRequestError("must list at least one tool", "tool_choice.allowed_tools.tools")
            names = []
            for k, entry in enumerate(listed):
                at = f"tool_choice.allowed_tools.tools[{k}]"
                _expect(entry, dict, at, 'an object {"type": "function", "function": {"name": ...}}')
                function = _expect(_need(entry, "function", at), dict, f"{at}.function", "an object {name}")
                name = _name(_need(function, "name", f"{at}.function"), f"{at}.function.name")
                if name not in known:
                    raise ChatRequestError(f"no tool named {name!r} in tools", f"{at}.function.name")
                names.append(name)
            choice = ChatToolChoice(mode, tuple(dict.fromkeys(names)), "allowed_tools")
        else:
            raise ChatRequestError(
                f"expected 'function' or 'allowed_tools', got {kind!r}",
                "tool_choice.type",
                INVALID_VALUE if isinstance(kind, str) else INVALID_TYPE,
            )
    if choice.mode == "required" and not tools:
        raise ChatRequestError("a tool call is required but the request offers no tools", "tool_choice")
    return choice


def _response_format(value: Any) -> dict[str, Any] | None:
    """``response_format`` as the Responses ``text.format`` it maps to."""
    if value is None:
        return None
    _expect(value, dict, "response_format", "an object {type, ...}")
    kind = _choice(
        _need(value, "type", "response_format"), "response_format.type", ("text", "json_object", "json_schema")
    )
    if kind != "json_schema":
        return {"type": kind}
    spec = _expect(
        _need(value, "json_schema", "response_format"),
        dict,
        "response_format.json_schema",
        "an object {name, schema, strict?}",
    )
    name = _name(_need(spec, "name", "response_format.json_schema"), "response_format.json_schema.name")
    schema = _expect(
        _need(spec, "schema", "response_format.json_schema"),
        dict,
        "response_format.json_schema.schema",
        "a JSON Schema object",
    )
    _usable_schema(schema, "response_format.json_schema.schema")
    strict = spec.get("strict")
    if strict is not None:
        _expect(strict, bool, "response_format.json_schema.strict", "a boolean or null")
    return {
        "type": "json_schema",
        "name": name,
        "schema": schema,
        "strict": strict,
        "description": spec.get("description"),
    }


def _ignored(key: str, value: Any) -> None:
    """Validate a parameter that is accepted without effect on the test model."""
    if value is None:
        return
    if key in _NUMBERS:
        low, high = _NUMBERS[key]
        _expect(value, (int, float), key, "a number or null")
        if not low <= value <= high:
            raise ChatRequestError(f"must be between {low} and {high}, got {value}", key)
    elif key in _STRINGS:
        _text(value, key)
    elif key in _ENUMS:
        _choice(value, key, _ENUMS[key])
    elif key == "seed":
        _integer(value, key, -(2**63))
    elif key == "stop":
        stops = [value] if isinstance(value, str) else _expect(value, list, key, "a string or an array of strings")
        if len(stops) > 4:
            raise ChatRequestError(f"at most 4 stop sequences, got {len(stops)}", key)
        for k, stop in enumerate(stops):
            _text(stop, f"{key}[{k}]" if isinstance(value, list) else key)
    elif key == "logit_bias":
        for token, bias in _expect(value, dict, key, "an object").items():
            _expect(bias, (int, float), f"{key}.{token}", "a number")
    elif key == "store":
        _expect(value, bool, key, "a boolean or null")
    elif key == "modalities":
        if _expect(value, list, key, "an array") not in (["text"], []):
            raise ChatRequestError("only the 'text' modality is supported", key, UNSUPPORTED)
    elif key == "top_logprobs":
        _integer(value, key, 0, 20)
    elif key == "prompt_cache_options":
        _expect(value, dict, key, "an object")


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
            fields["model"] = _text(value, key, empty=False)
        elif key == "messages":
            messages = _expect(value, list, key, "an array of messages")
            if not messages:
                raise ChatRequestError("must hold at least one message", key)
            fields["messages"] = tuple(_message(m, f"messages[{i}]", limits) for i, m in enumerate(messages))
        elif key == "tools":
            fields["tools"] = () if value is None else _tools(value)
        elif key == "tool_choice":
            fields["tool_choice_raw"] = value
        elif key == "stream":
            fields["stream"] = bool(value is not None and _expect(value, bool, key, "a boolean or null"))
        elif key == "stream_options":
            if value is not None:
                stream_options = _expect(value, dict, key, "an object {include_usage?}")
                for option, flag in stream_options.items():
                    if option not in ("include_usage", "include_obfuscation"):
                        raise ChatRequestError("unknown option", f"{key}.{option}", UNKNOWN_PARAMETER)
                    if flag is not None:
                        _expect(flag, bool, f"{key}.{option}", "a boolean or null")
        elif key in ("max_tokens", "max_completion_tokens"):
            max_tokens[key] = _integer(value, key, 1)
        elif key == "n":
            if _integer(value, key, 1, 128) not in (None, 1):
                raise ChatRequestError("only one choice (n = 1) is supported by this server", key, UNSUPPORTED)
        elif key == "logprobs":
            if value is not None and _expect(value, bool, key, "a boolean or null"):
                raise ChatRequestError("log probabilities are not available from the test model", key, UNSUPPORTED)
        elif key == "parallel_tool_calls":
            fields["parallel_tool_calls"] = None if value is None else _expect(value, bool, key, "a boolean")
        elif key == "response_format":
            fields["response_format"] = _response_format(value)
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
    choice = _tool_choice(fields.pop("tool_choice_raw"), tools) if fields.get("tool_choice_raw") is not None else None
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
    _expect(value, dict, "metadata", "an object of strings")
    if len(value) > 16:
        raise ChatRequestError(f"at most 16 keys, got {len(value)}", "metadata")
    for key, item in value.items():
        if len(key) > 64:
            raise ChatRequestError(f"key {key[:20]!r}... is longer than 64 characters", "metadata")
        if len(_text(item, f"metadata.{key}")) > 512:
            raise ChatRequestError("is longer than 512 characters", f"metadata.{key}")
    return dict(value)


# ------------------------------------------------------------------------------------------------ translation


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
            body["tool_choice"] = {"type": "function", "name": choice.names[0]}  # type: ignore[index]
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


# ------------------------------------------------------------------------------------------------ answering


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
