"""A ``/v1/responses`` request body checked: ``CreateResponseBody`` and the compact body, field by field.

Pure (no Flask, no I/O). The shapes follow the Open Responses OpenAPI document, version 2026-04-24
(``#/components/schemas/CreateResponseBody``, ``CompactResponseMethodPublicBody``); where the prose spec and the
schema disagree, the choice made is written beside the code. The input items are checked by
``webapp.core.responses.input_items``, attachments by ``attachments``, tools and ``tool_choice`` by ``tools``, each
field's type and bounds by ``fields``.

Validation policy (after the shipped bugs of peer gateways):

* strict on the types and values of known fields; the first problem found, in document order, is reported
  as :class:`RequestError` whose ``param`` names the place (``input[2].content[0].type``);
* unknown top-level parameters are refused (as OpenAI does: ``unknown_parameter``), while unknown fields on
  items and parts are kept (extension fields such as ``namespace`` must survive a round trip);
* an item without ``type`` but with ``role`` is a message, one with only ``id`` is an ``item_reference``;
* the endpoint's own output echoed back (``id``, ``status``, ``annotations``...) is accepted;
* Chat Completions shapes (``role: "tool"``, ``tool_calls``, nested ``{"function": {...}}`` tools) are
  refused with a hint at the Responses shape;
* images and files are accepted only inline, as ``data:`` URLs of an allowed media type within a size cap;
  the server never fetches a URL.

What this module leaves to others: the replay gate judges ``function_call`` items (``type`` with a colon,
``status``, ``arguments``) and the pairing of calls and outputs (``webapp.core.gate``); tool ``parameters`` are
checked as JSON Schema, and ``item_reference`` and ``previous_response_id`` resolved against the store, by
``webapp.core.responses.pipeline``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.json import json_type
from webapp.core.responses.attachments import DEFAULT_LIMITS, Limits
from webapp.core.responses.fields import (
    CHAT_ENVELOPE,
    INVALID_TYPE,
    INVALID_VALUE,
    MAX_TEXT,
    MISSING,
    UNKNOWN_PARAMETER,
    UNSUPPORTED,
    RequestError,
    expect_array,
    expect_boolean,
    expect_enum,
    expect_integer,
    expect_name,
    expect_number,
    expect_object,
    expect_string,
    path_index,
    path_key,
    quoted_list,
    required,
    type_error,
)
from webapp.core.responses.input_items import parse_item
from webapp.core.responses.tools import Tool, ToolChoice, parse_tool_choice, parse_tools

INCLUDE_VALUES = ("reasoning.encrypted_content", "message.output_text.logprobs")
REASONING_EFFORTS = ("none", "low", "medium", "high", "xhigh")
REASONING_SUMMARIES = ("concise", "detailed", "auto")
SERVICE_TIERS = ("auto", "default", "flex", "priority")
TRUNCATIONS = ("auto", "disabled")
VERBOSITIES = ("low", "medium", "high")


@dataclass
class CreateRequest:
    """A validated ``CreateResponseBody``.

    ``input`` holds the items in order (a string input became one user message); ``tools`` and
    ``tool_choice`` are ``None`` when the request did not send them (a previous response may supply
    tools). ``store`` defaults to true: the compliance suite never sends it and expects retrieval.
    """

    model: str | None = None
    input: list[dict[str, Any]] = field(default_factory=list)
    instructions: str | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | None = None
    stream: bool = False
    max_output_tokens: int | None = None
    max_tool_calls: int | None = None
    previous_response_id: str | None = None
    store: bool = True
    metadata: dict[str, str] = field(default_factory=dict)
    user: str | None = None
    text: dict[str, Any] | None = None
    reasoning: dict[str, Any] | None = None
    temperature: float | None = None
    top_p: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    parallel_tool_calls: bool | None = None
    top_logprobs: int | None = None
    truncation: str | None = None
    service_tier: str | None = None
    safety_identifier: str | None = None
    prompt_cache_key: str | None = None
    include: list[str] = field(default_factory=list)
    stream_options: dict[str, Any] | None = None


def _input(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    if isinstance(value, str):
        expect_string(value, "input", max_length=MAX_TEXT)
        request.input = [{"type": "message", "role": "user", "content": value}]
        return
    if not isinstance(value, list):
        raise type_error("input", "a string or an array of items", value)
    request.input = [parse_item(item, path_index("input", i), limits) for i, item in enumerate(value)]


def _metadata(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = expect_object(value, "metadata")
    if len(value) > 16:
        raise RequestError(f"at most 16 keys, got {len(value)}", "metadata", INVALID_VALUE)
    for key, item in value.items():
        if len(key) > 64:
            raise RequestError(f"key {key[:20]!r}... is longer than 64 characters", "metadata", INVALID_VALUE)
        expect_string(item, path_key("metadata", key), max_length=512)
    request.metadata = dict(value)


def _text(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = expect_object(value, "text")
    result: dict[str, Any] = {}
    fmt = value.get("format")
    if fmt is not None:
        fmt = expect_object(fmt, "text.format")
        kind = expect_enum(
            required(fmt, "type", "text.format"), "text.format.type", ("text", "json_schema", "json_object")
        )
        if kind == "json_schema":
            expect_name(required(fmt, "name", "text.format"), "text.format.name")
            expect_object(required(fmt, "schema", "text.format"), "text.format.schema")
            expect_string(fmt.get("description"), "text.format.description", nullable=True)
            expect_boolean(fmt.get("strict"), "text.format.strict", nullable=True)
        result["format"] = dict(fmt)
    if "verbosity" in value:
        result["verbosity"] = expect_enum(value["verbosity"], "text.verbosity", VERBOSITIES, nullable=True)
    request.text = result


def _reasoning_param(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = expect_object(value, "reasoning")
    request.reasoning = {
        "effort": expect_enum(value.get("effort"), "reasoning.effort", REASONING_EFFORTS, nullable=True),
        "summary": expect_enum(value.get("summary"), "reasoning.summary", REASONING_SUMMARIES, nullable=True),
    }


def _include(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    request.include = [
        expect_enum(v, path_index("include", i), INCLUDE_VALUES) or ""
        for i, v in enumerate(expect_array(value, "include"))
    ]


def _stream_options(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = expect_object(value, "stream_options")
    expect_boolean(value.get("include_obfuscation"), "stream_options.include_obfuscation", nullable=True)
    request.stream_options = dict(value)


def _background(value: Any, request: CreateRequest, limits: Limits) -> None:
    if expect_boolean(value, "background"):
        raise RequestError("background responses are not supported by this server", "background", UNSUPPORTED)


def _set(name: str, check: Callable[[Any, str], Any]) -> Callable[[Any, CreateRequest, Limits], None]:
    def apply(value: Any, request: CreateRequest, limits: Limits) -> None:
        setattr(request, name, check(value, name))

    return apply


_FIELDS: dict[str, Callable[[Any, CreateRequest, Limits], None]] = {
    "model": _set("model", lambda v, p: expect_string(v, p, nullable=True, min_length=1, max_length=256)),
    "input": _input,
    "previous_response_id": _set("previous_response_id", lambda v, p: expect_string(v, p, nullable=True, min_length=1)),
    "include": _include,
    "tools": _set("tools", lambda v, p: None if v is None else parse_tools(v, p)),
    "tool_choice": _set("tool_choice", lambda v, p: None if v is None else parse_tool_choice(v, p)),
    "metadata": _metadata,
    "text": _text,
    "temperature": _set("temperature", lambda v, p: expect_number(v, p, minimum=0, maximum=2)),
    "top_p": _set("top_p", lambda v, p: expect_number(v, p, minimum=0, maximum=1)),
    "presence_penalty": _set("presence_penalty", lambda v, p: expect_number(v, p, minimum=-2, maximum=2)),
    "frequency_penalty": _set("frequency_penalty", lambda v, p: expect_number(v, p, minimum=-2, maximum=2)),
    "parallel_tool_calls": _set("parallel_tool_calls", lambda v, p: expect_boolean(v, p, nullable=True)),
    "stream": _set("stream", lambda v, p: bool(expect_boolean(v, p, nullable=True))),
    "stream_options": _stream_options,
    "background": _background,
    "max_output_tokens": _set("max_output_tokens", lambda v, p: expect_integer(v, p, nullable=True, minimum=16)),
    "max_tool_calls": _set("max_tool_calls", lambda v, p: expect_integer(v, p, nullable=True, minimum=1)),
    "reasoning": _reasoning_param,
    "safety_identifier": _set("safety_identifier", lambda v, p: expect_string(v, p, nullable=True, max_length=64)),
    "prompt_cache_key": _set("prompt_cache_key", lambda v, p: expect_string(v, p, nullable=True, max_length=64)),
    "truncation": _set("truncation", lambda v, p: expect_enum(v, p, TRUNCATIONS, nullable=True)),
    "instructions": _set("instructions", lambda v, p: expect_string(v, p, nullable=True, max_length=MAX_TEXT)),
    "store": _set("store", lambda v, p: expect_boolean(v, p, nullable=True) is not False),
    "service_tier": _set("service_tier", lambda v, p: expect_enum(v, p, SERVICE_TIERS, nullable=True)),
    "top_logprobs": _set("top_logprobs", lambda v, p: expect_integer(v, p, nullable=True, minimum=0, maximum=20)),
    "user": _set("user", lambda v, p: expect_string(v, p, nullable=True, min_length=1, max_length=256)),
}
#: Parameters named in ``CreateResponseBody`` (plus OpenAI's ``user``), in the spec's order.
KNOWN_PARAMETERS = tuple(_FIELDS)


def parse_create_request(body: Any, limits: Limits = DEFAULT_LIMITS) -> CreateRequest:
    """Validate a ``POST /v1/responses`` body (Open Responses ``CreateResponseBody``).

    Members are checked in the order they appear in the body, so the error names the first bad place.
    Also refused: a body that is not an object, unknown parameters (``messages`` gets a Chat Completions
    hint), and a request with neither ``input`` nor ``previous_response_id``.

    :return: the request, normalised (see :class:`CreateRequest`).
    :raises RequestError: the first problem.
    """
    if not isinstance(body, dict):
        raise RequestError(
            f"the body must be a JSON object (CreateResponseBody), got {json_type(body)}", None, INVALID_TYPE
        )
    request = CreateRequest()
    for key, value in body.items():
        check = _FIELDS.get(key)
        if check is None:
            hint = ""
            if key == "messages":
                hint = "; this looks like a Chat Completions body: send the conversation as input items"
            elif key in ("conversation", "prompt"):
                hint = "; not supported by this server"
            raise RequestError(
                f"unknown parameter{hint}", key, CHAT_ENVELOPE if key == "messages" else UNKNOWN_PARAMETER
            )
        check(value, request, limits)
    if not request.input and request.previous_response_id is None:
        raise RequestError("missing required parameter: give input (a string or an array of items)", "input", MISSING)
    return request


#: ``CompactResponseMethodPublicBody`` (Open Responses 2026-04-24, ``POST /responses/compact``), then this server's
#: one extension: ``tools``, so that the replay gate can check the calls of a conversation compacted inline.
COMPACT_PARAMETERS = ("model", "input", "previous_response_id", "instructions", "prompt_cache_key", "tools")


def parse_compact_request(body: Any, limits: Limits = DEFAULT_LIMITS) -> CreateRequest:
    """Validate a ``POST /v1/responses/compact`` body: ``model`` (required), ``input``, ``previous_response_id``,
    ``instructions``, ``prompt_cache_key`` and ``tools`` (see :data:`COMPACT_PARAMETERS`), each checked as in
    :func:`parse_create_request`.

    :return: a :class:`CreateRequest` holding those fields (the others keep their defaults).
    :raises RequestError: not an object, an unknown parameter, no ``model`` (``missing_required_parameter``), or
        neither ``input`` nor ``previous_response_id``.
    """
    if not isinstance(body, dict):
        raise RequestError(
            f"the body must be a JSON object (CompactResponseMethodPublicBody), got {json_type(body)}",
            None,
            INVALID_TYPE,
        )
    request = CreateRequest()
    for key, value in body.items():
        if key not in COMPACT_PARAMETERS:
            raise RequestError(
                f"unknown parameter; /responses/compact takes {quoted_list(COMPACT_PARAMETERS)}", key, UNKNOWN_PARAMETER
            )
        _FIELDS[key](value, request, limits)
    if request.model is None:
        raise RequestError(
            "missing required parameter (CompactResponseMethodPublicBody requires model)", "model", MISSING
        )
    if not request.input and request.previous_response_id is None:
        raise RequestError(
            "missing required parameter: give input (a string or an array of items) or previous_response_id",
            "input",
            MISSING,
        )
    return request
