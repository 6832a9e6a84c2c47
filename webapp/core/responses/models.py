"""Open Responses request and response models: validate a ``CreateResponseBody``, build a ``ResponseResource``.

Pure (no Flask, no I/O). The shapes follow the Open Responses OpenAPI document, version 2026-04-24
(``#/components/schemas/CreateResponseBody``, ``ItemParam``, ``ResponseResource``, ``ItemField``); where the
prose spec and the schema disagree, the choice made is written beside the code.

Validation policy (after the shipped bugs of peer gateways, ``docs/peer-gateways.md`` §3):

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
checked as JSON Schema by ``webapp.core.schema``; ``item_reference`` and ``previous_response_id`` are resolved
against the store.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.core import items
from webapp.core.gate import CHAT_COMPLETIONS_ENVELOPE, FUNCTION_NAME, FUNCTION_NAME_RULE, TOOL_CHOICE_MODES
from webapp.core.json import json_type

MiB = 1024 * 1024
MAX_TEXT = 10 * MiB  # maxLength of input text fields in the spec (10485760 characters)

# Error codes carried in ``error.code`` (OpenAI's names where it has one).
MISSING = "missing_required_parameter"
INVALID_TYPE = "invalid_type"
INVALID_VALUE = "invalid_value"
UNKNOWN_PARAMETER = "unknown_parameter"
UNSUPPORTED = "unsupported_value"
CHAT_ENVELOPE = CHAT_COMPLETIONS_ENVELOPE  # the gate's finding for this mistake: one name for it
INVALID_PARAMETERS = "invalid_function_parameters"  # OpenAI's code for a tool schema it cannot use

# Item types this server reads: every one of webapp.core.items (compaction items only when this server sealed
# them).
ITEM_TYPES = items.ITEM_TYPES
ROLES = ("user", "system", "developer", "assistant")
# Content part types each role may send (spec: User/System/Developer/AssistantMessageItemParam.content).
PARTS_BY_ROLE = {
    "user": ("input_text", "input_image", "input_file"),
    "system": ("input_text",),
    "developer": ("input_text",),
    "assistant": ("output_text", "refusal"),
}
OUTPUT_PARTS = ("input_text", "input_image", "input_file")  # FunctionCallOutputItemParam.output (video refused)
CALL_STATUSES = items.CALL_STATUSES
INCLUDE_VALUES = ("reasoning.encrypted_content", "message.output_text.logprobs")
REASONING_EFFORTS = ("none", "low", "medium", "high", "xhigh")
REASONING_SUMMARIES = ("concise", "detailed", "auto")
SERVICE_TIERS = ("auto", "default", "flex", "priority")
TRUNCATIONS = ("auto", "disabled")
VERBOSITIES = ("low", "medium", "high")
IMAGE_DETAILS = ("low", "high", "auto")
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
# Keywords that apply to objects only (JSON Schema 2020-12 validation §6.5, applicator §10.3.2; draft-07's
# ``dependencies``): a schema without ``type`` that uses one describes an object.
OBJECT_KEYWORDS = (
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
)
# Keywords that assert nothing: a parameters schema made only of these means "no parameters".
ANNOTATION_KEYWORDS = frozenset(
    ("$schema", "$id", "$comment", "$anchor", "$defs", "definitions", "title", "description")
)

# File signatures, so a declared media type must match the bytes (a PNG labelled image/jpeg is refused).
_SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    "image/png": lambda b: b.startswith(b"\x89PNG\r\n\x1a\n"),
    "image/jpeg": lambda b: b.startswith(b"\xff\xd8\xff"),
    "image/gif": lambda b: b[:6] in (b"GIF87a", b"GIF89a"),
    "image/webp": lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP",
    "application/pdf": lambda b: b.startswith(b"%PDF-"),
}
_TEXT_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json")
_EXTENSIONS = {
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
}


@dataclass(frozen=True)
class Limits:
    """Caps on inline attachments (decoded bytes) and the media types accepted.

    The defaults keep a base64 attachment (4/3 of its size) well inside the default 20 MiB body cap.
    """

    max_image_bytes: int = 5 * MiB
    max_file_bytes: int = 5 * MiB
    image_types: tuple[str, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")
    file_types: tuple[str, ...] = ("application/pdf",) + _TEXT_TYPES


class RequestError(ValueError):
    """The request is invalid; the client can fix it (HTTP 400, ``invalid_request_error``).

    :param message: plain words; ``str(err)`` is ``"<param>: <message>"``.
    :param param: where, in the notation of OpenAI's errors: ``input[2].content[0].type``, ``tools[0].name``.
    :param code: a stable code (``missing_required_parameter``, ``invalid_type``, ``invalid_value``,
        ``unknown_parameter``, ``unsupported_value``, ``chat_completions_envelope``, ...).
    """

    def __init__(self, message: str, param: str | None = None, code: str = INVALID_VALUE) -> None:
        super().__init__(f"{param}: {message}" if param else message)
        self.message = f"{param}: {message}" if param else message
        self.param = param
        self.code = code


# ------------------------------------------------------------------------------------------------ paths


def path_key(path: str, key: str) -> str:
    """``input[2]`` + ``content`` → ``input[2].content``; keys that are not identifiers are quoted."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}" if path else key
    return f'{path}["{key}"]'


def path_index(path: str, index: int) -> str:
    """``input`` + 2 → ``input[2]``."""
    return f"{path}[{index}]"


def _type_error(path: str, expected: str, value: Any) -> RequestError:
    return RequestError(f"expected {expected}, got {json_type(value)}", path, INVALID_TYPE)


def _choices(values: tuple[str, ...]) -> str:
    return ", ".join(repr(v) for v in values)


# ------------------------------------------------------------------------------------------------ checks


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _type_error(path, "an object", value)
    return value


def _array(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _type_error(path, "an array", value)
    return value


def _string(
    value: Any, path: str, *, nullable: bool = False, min_length: int = 0, max_length: int | None = None
) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise _type_error(path, "a string" + (" or null" if nullable else ""), value)
    if len(value) < min_length:
        raise RequestError(
            "must not be empty" if min_length == 1 else f"must be at least {min_length} characters", path, INVALID_VALUE
        )
    if max_length is not None and len(value) > max_length:
        raise RequestError(f"is {len(value):,} characters; the limit is {max_length:,}", path, INVALID_VALUE)
    return value


def _integer(
    value: Any, path: str, *, nullable: bool = False, minimum: int | None = None, maximum: int | None = None
) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON has one number type; 64.0 is the integer 64
    if not isinstance(value, int) or isinstance(value, bool):
        raise _type_error(path, "an integer" + (" or null" if nullable else ""), value)
    if minimum is not None and value < minimum:
        raise RequestError(f"must be at least {minimum}, got {value}", path, INVALID_VALUE)
    if maximum is not None and value > maximum:
        raise RequestError(f"must be at most {maximum}, got {value}", path, INVALID_VALUE)
    return value


def _number(value: Any, path: str, *, minimum: float | None = None, maximum: float | None = None) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _type_error(path, "a number or null", value)
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        raise RequestError(f"must be between {minimum} and {maximum}, got {value}", path, INVALID_VALUE)
    return value


def _boolean(value: Any, path: str, *, nullable: bool = False) -> bool | None:
    if value is None and nullable:
        return None
    if not isinstance(value, bool):
        raise _type_error(path, "a boolean" + (" or null" if nullable else ""), value)
    return value


def _enum(value: Any, path: str, choices: tuple[str, ...], *, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise _type_error(path, "a string" + (" or null" if nullable else ""), value)
    if value not in choices:
        raise RequestError(f"expected one of {_choices(choices)}, got {value!r}", path, INVALID_VALUE)
    return value


def _required(obj: dict[str, Any], key: str, path: str, what: str = "") -> Any:
    if key not in obj:
        raise RequestError(f"missing required field{what}", path_key(path, key), MISSING)
    return obj[key]


def _name(value: Any, path: str) -> str:
    name = _string(value, path, min_length=1)
    assert name is not None
    if not FUNCTION_NAME.fullmatch(name):
        raise RequestError(f"{name[:80]!r} must be {FUNCTION_NAME_RULE}", path, INVALID_VALUE)
    return name


def _call_id(obj: dict[str, Any], path: str) -> str:
    value = _string(_required(obj, "call_id", path), path_key(path, "call_id"), min_length=1, max_length=64)
    assert value is not None
    return value


# ------------------------------------------------------------------------------------------------ data URLs


@dataclass(frozen=True)
class DataUrl:
    """An inline attachment, decoded and checked.

    :param media_type: lower-case media type, e.g. ``image/png``.
    :param size: decoded length in bytes.
    """

    media_type: str
    size: int


def parse_data_url(
    url: str, path: str, *, allowed: tuple[str, ...], max_bytes: int, default_type: str | None = None
) -> DataUrl:
    """Check an inline attachment: ``data:<media type>[;param]*;base64,<data>`` (RFC 2397).

    :param allowed: media types accepted.
    :param max_bytes: cap on the decoded size.
    :param default_type: media type to assume for bare base64 (no ``data:`` prefix); ``None`` refuses it.
    :raises RequestError: a remote URL (never fetched), not base64, malformed base64, a media type not in
        ``allowed``, bytes that do not match the declared type, an empty or an oversized attachment.
    """
    if re.match(r"(?i)[a-z][a-z0-9+.-]*://", url):
        raise RequestError(
            "remote URLs are not fetched by this server; send the content inline as a data: URL "
            "(data:<media type>;base64,<data>)",
            path,
            UNSUPPORTED,
        )
    if url[:5].lower() == "data:":
        header, comma, payload = url[5:].partition(",")
        if not comma:
            raise RequestError("malformed data: URL (no comma before the data)", path, INVALID_VALUE)
        params = [p.strip() for p in header.split(";")]
        media_type = params[0].lower() or "text/plain"
        if "base64" not in (p.lower() for p in params[1:]):
            raise RequestError(
                "the data: URL must be base64-encoded (data:<media type>;base64,<data>)", path, UNSUPPORTED
            )
    elif default_type is not None:
        media_type, payload = default_type, url
    else:
        raise RequestError("expected a data: URL (data:<media type>;base64,<data>)", path, UNSUPPORTED)
    if media_type not in allowed:
        raise RequestError(
            f"media type {media_type!r} is not accepted; allowed: {', '.join(allowed)}", path, UNSUPPORTED
        )
    if len(payload) > (max_bytes + 2) // 3 * 4 + 4:  # refuse before decoding megabytes for nothing
        raise RequestError(f"the attachment is larger than the limit of {max_bytes:,} bytes", path, INVALID_VALUE)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as err:
        reason = str(err)
        if "padding" in reason:
            reason = "its length is not a multiple of 4 (missing '=' padding?)"
        elif "Only base64 data" in reason or "Non-base64" in reason:
            reason = "characters outside the base64 alphabet (A-Z a-z 0-9 + / =, no spaces or line breaks)"
        raise RequestError(f"malformed base64 data: {reason}", path, INVALID_VALUE) from None
    if not data:
        raise RequestError("the attachment is empty", path, INVALID_VALUE)
    if len(data) > max_bytes:
        raise RequestError(f"the attachment is {len(data):,} bytes; the limit is {max_bytes:,}", path, INVALID_VALUE)
    check = _SIGNATURES.get(media_type)
    if check is not None and not check(data):
        raise RequestError(
            f"the data does not look like {media_type} (its first bytes do not match)", path, INVALID_VALUE
        )
    if media_type in _TEXT_TYPES:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestError(f"a {media_type} attachment must be UTF-8 text", path, INVALID_VALUE) from None
    return DataUrl(media_type, len(data))


# ------------------------------------------------------------------------------------------------ parts


def _input_image(part: dict[str, Any], path: str, limits: Limits) -> None:
    if part.get("file_id") is not None:
        raise RequestError(
            "file ids need a file store this server does not have; send image_url as a data: URL",
            path_key(path, "file_id"),
            UNSUPPORTED,
        )
    url = _string(
        _required(part, "image_url", path, " (a data: URL)"),
        path_key(path, "image_url"),
        nullable=True,
        max_length=20 * MiB,
    )
    if url is None:
        raise RequestError("an image needs image_url (a data: URL)", path_key(path, "image_url"), MISSING)
    _enum(part.get("detail"), path_key(path, "detail"), IMAGE_DETAILS, nullable=True)
    parse_data_url(url, path_key(path, "image_url"), allowed=limits.image_types, max_bytes=limits.max_image_bytes)


def _input_file(part: dict[str, Any], path: str, limits: Limits) -> None:
    filename = _string(part.get("filename"), path_key(path, "filename"), nullable=True, max_length=255)
    if part.get("file_id") is not None:
        raise RequestError(
            "file ids need a file store this server does not have; send file_data as a data: URL",
            path_key(path, "file_id"),
            UNSUPPORTED,
        )
    file_url = _string(part.get("file_url"), path_key(path, "file_url"), nullable=True)
    file_data = _string(part.get("file_data"), path_key(path, "file_data"), nullable=True, max_length=32 * MiB)
    if file_data is None and file_url is None:
        raise RequestError("a file needs file_data (a data: URL)", path_key(path, "file_data"), MISSING)
    if file_data is not None and file_url is not None:
        raise RequestError("send either file_data or file_url, not both", path_key(path, "file_url"), INVALID_VALUE)
    if file_url is not None:
        parse_data_url(file_url, path_key(path, "file_url"), allowed=limits.file_types, max_bytes=limits.max_file_bytes)
        return
    assert file_data is not None
    # The spec calls file_data "base64-encoded data": bare base64 is accepted when the filename says the type.
    extension = re.search(r"\.[A-Za-z0-9]+$", filename or "")
    default = _EXTENSIONS.get(extension.group(0).lower()) if extension else None
    parse_data_url(
        file_data,
        path_key(path, "file_data"),
        allowed=limits.file_types,
        max_bytes=limits.max_file_bytes,
        default_type=default,
    )


def _output_text(part: dict[str, Any], path: str) -> None:
    _string(_required(part, "text", path), path_key(path, "text"), max_length=MAX_TEXT)
    if "annotations" in part:
        for j, note in enumerate(_array(part["annotations"], path_key(path, "annotations"))):
            where = path_index(path_key(path, "annotations"), j)
            note = _object(note, where)
            _enum(_required(note, "type", where), path_key(where, "type"), ("url_citation",))
            for key in ("start_index", "end_index"):
                _integer(_required(note, key, where), path_key(where, key), minimum=0)
            for key in ("url", "title"):
                _string(_required(note, key, where), path_key(where, key))


def _content_part(part: Any, path: str, allowed: tuple[str, ...], owner: str, limits: Limits) -> None:
    part = _object(part, path)
    kind = _required(part, "type", path)
    if not isinstance(kind, str):
        raise _type_error(path_key(path, "type"), "a string", kind)
    if kind not in allowed:
        hint = ""
        if kind == "input_text" and "output_text" in allowed:
            hint = " (assistant messages carry output_text)"
        elif kind == "output_text" and "input_text" in allowed:
            hint = " (output_text belongs to assistant messages)"
        elif kind in ("input_video", "input_audio"):
            hint = " (this server accepts text, images and files only)"
        raise RequestError(
            f"{kind!r} is not accepted in {owner}; expected one of {_choices(allowed)}{hint}",
            path_key(path, "type"),
            INVALID_VALUE,
        )
    if kind == "input_text":
        _string(_required(part, "text", path), path_key(path, "text"), max_length=MAX_TEXT)
    elif kind == "output_text":
        _output_text(part, path)
    elif kind == "refusal":
        _string(_required(part, "refusal", path), path_key(path, "refusal"), max_length=MAX_TEXT)
    elif kind == "input_image":
        _input_image(part, path, limits)
    elif kind == "input_file":
        _input_file(part, path, limits)


def _text_or_parts(value: Any, path: str, allowed: tuple[str, ...], owner: str, limits: Limits) -> None:
    """A message's ``content`` or a call output's ``output``: a string, or an array of content parts."""
    if isinstance(value, str):
        _string(value, path, max_length=MAX_TEXT)
    elif isinstance(value, list):
        for j, part in enumerate(value):
            _content_part(part, path_index(path, j), allowed, owner, limits)
    else:
        raise _type_error(path, "a string or an array of content parts", value)


# ------------------------------------------------------------------------------------------------ items


def _message(item: dict[str, Any], path: str, limits: Limits) -> dict[str, Any]:
    role = _required(item, "role", path)
    if role == "tool":
        raise RequestError(
            "'tool' is not a Responses role; a tool result is a function_call_output item: "
            '{"type": "function_call_output", "call_id": ..., "output": ...}',
            path_key(path, "role"),
            CHAT_ENVELOPE,
        )
    _enum(role, path_key(path, "role"), ROLES)
    for leaked in ("tool_calls", "tool_call_id", "function_call"):
        if leaked in item:
            raise RequestError(
                "a Chat Completions field; in Responses a tool call is its own function_call item "
                "and its result a function_call_output item",
                path_key(path, leaked),
                CHAT_ENVELOPE,
            )
    _string(item.get("id"), path_key(path, "id"), nullable=True)
    _string(item.get("status"), path_key(path, "status"), nullable=True)  # spec: any string on input
    if role == "assistant" and "phase" in item:
        _enum(item["phase"], path_key(path, "phase"), ("commentary", "final_answer"))
    _text_or_parts(
        _required(item, "content", path), path_key(path, "content"), PARTS_BY_ROLE[role], f"a {role} message", limits
    )
    return item if item.get("type") == "message" else {"type": "message", **item}


def _function_call(item: dict[str, Any], path: str) -> dict[str, Any]:
    # Structure only: type namespacing, status and arguments are the replay gate's to judge.
    _string(item.get("id"), path_key(path, "id"), nullable=True)
    _call_id(item, path)
    _name(_required(item, "name", path), path_key(path, "name"))
    return item


def _function_call_output(item: dict[str, Any], path: str, limits: Limits) -> dict[str, Any]:
    _string(item.get("id"), path_key(path, "id"), nullable=True)
    _call_id(item, path)
    _text_or_parts(
        _required(item, "output", path), path_key(path, "output"), OUTPUT_PARTS, "a function_call_output", limits
    )
    _enum(item.get("status"), path_key(path, "status"), CALL_STATUSES, nullable=True)
    return item


def _reasoning(item: dict[str, Any], path: str) -> dict[str, Any]:
    _string(item.get("id"), path_key(path, "id"), nullable=True)
    where = path_key(path, "summary")
    for j, part in enumerate(_array(_required(item, "summary", path), where)):
        at = path_index(where, j)
        part = _object(part, at)
        _enum(_required(part, "type", at), path_key(at, "type"), ("summary_text",))
        _string(_required(part, "text", at), path_key(at, "text"), max_length=MAX_TEXT)
    if item.get("content") is not None:
        raise RequestError(
            "must be null or absent on input (spec: ReasoningItemParam.content); send the summary",
            path_key(path, "content"),
            INVALID_VALUE,
        )
    _string(item.get("encrypted_content"), path_key(path, "encrypted_content"), nullable=True)
    return item


def _compaction(item: dict[str, Any], path: str) -> dict[str, Any]:
    # CompactionSummaryItemParam: the seal itself is checked by the endpoint, which holds the key.
    _string(item.get("id"), path_key(path, "id"), nullable=True)
    _string(
        _required(item, "encrypted_content", path),
        path_key(path, "encrypted_content"),
        min_length=1,
        max_length=MAX_TEXT,
    )
    return item


def _item_reference(item: dict[str, Any], path: str) -> dict[str, Any]:
    _string(_required(item, "id", path), path_key(path, "id"), min_length=1)
    return {**item, "type": "item_reference"}


def parse_item(item: Any, path: str, limits: Limits = Limits()) -> dict[str, Any]:
    """Validate one input item (``ItemParam``) and return it with its ``type`` filled in.

    A typeless item with ``role`` is a message (EasyInputMessage); one whose only field is ``id`` (or whose
    ``type`` is null) is an ``item_reference``. Items whose ``type`` holds a colon (provider extensions)
    are returned untouched for the replay gate to refuse as ``namespaced``.

    :raises RequestError: naming ``path`` or a place under it.
    """
    item = _object(item, path)
    kind = item.get("type")
    if kind is None:
        if "role" in item:
            return _message(item, path, limits)
        if "id" in item and set(item) <= {"id", "type"}:
            return _item_reference(item, path)
        raise RequestError(
            "missing required field (the item type: one of " + _choices(ITEM_TYPES) + ")",
            path_key(path, "type"),
            MISSING,
        )
    if not isinstance(kind, str):
        raise _type_error(path_key(path, "type"), "a string", kind)
    if ":" in kind:
        return item
    if kind == "message":
        return _message(item, path, limits)
    if kind == "function_call":
        return _function_call(item, path)
    if kind == "function_call_output":
        return _function_call_output(item, path, limits)
    if kind == "reasoning":
        return _reasoning(item, path)
    if kind == "item_reference":
        return _item_reference(item, path)
    if kind == "compaction":
        return _compaction(item, path)
    hint = ""
    if kind in ("tool_call", "tool_result", "tool", "function"):
        hint = "; tool calls are function_call items and their results function_call_output items"
    raise RequestError(
        f"unsupported item type {kind!r}; expected one of {_choices(ITEM_TYPES)}{hint}",
        path_key(path, "type"),
        INVALID_VALUE,
    )


# ------------------------------------------------------------------------------------------------ tools


@dataclass(frozen=True)
class Tool:
    """A flat function tool (``FunctionToolParam``)."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None

    def echo(self) -> dict[str, Any]:
        """The ``FunctionTool`` of a ``ResponseResource``: every key present, nulls included (spec §4)."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "strict": self.strict,
        }


def parse_tools(value: Any, path: str = "tools") -> list[Tool]:
    """Validate ``tools``: flat function tools with unique names.

    :raises RequestError: a non-function tool type, the nested Chat Completions shape, a bad or duplicate
        name, ``parameters`` that is not an object or does not describe a JSON object (code
        ``invalid_function_parameters``, see :func:`function_parameters_problem`).
    """
    tools: list[Tool] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(_array(value, path)):
        where = path_index(path, i)
        raw = _object(raw, where)
        if "function" in raw and "name" not in raw:
            raise RequestError(
                "this is the Chat Completions tool shape; Responses tools are flat: "
                '{"type": "function", "name": ..., "parameters": {...}}',
                path_key(where, "function"),
                CHAT_ENVELOPE,
            )
        kind = _required(raw, "type", where)
        if kind != "function":
            raise RequestError(
                f"unsupported tool type {kind!r}; this server offers function tools only",
                path_key(where, "type"),
                UNSUPPORTED if isinstance(kind, str) else INVALID_TYPE,
            )
        name = _name(_required(raw, "name", where), path_key(where, "name"))
        if name in seen:
            raise RequestError(
                f"duplicate tool name {name!r} (also tools[{seen[name]}])", path_key(where, "name"), INVALID_VALUE
            )
        seen[name] = i
        description = _string(raw.get("description"), path_key(where, "description"), nullable=True)
        parameters = raw.get("parameters")
        if parameters is not None:
            _object(parameters, path_key(where, "parameters"))
            problem = function_parameters_problem(parameters)
            if problem is not None:
                raise RequestError(problem, path_key(where, "parameters"), INVALID_PARAMETERS)
        strict = _boolean(raw.get("strict"), path_key(where, "strict"), nullable=True)
        tools.append(Tool(name, description, parameters, strict))
    return tools


def function_parameters_problem(parameters: dict[str, Any]) -> str | None:
    """Why ``parameters`` cannot be a function tool's parameters, or ``None`` when it can.

    A call's ``arguments`` are a JSON object (Open Responses spec, function_call: "the function arguments as a
    JSON string"; the gate refuses anything else), so the parameters must describe one: ``"type": "object"``
    (or a type list of ``"object"`` and ``"null"``), or no ``type`` with object keywords (:data:`OBJECT_KEYWORDS`),
    or no assertion at all (``{}``, only ``title``/``description``/``$defs``...: a function without parameters,
    called with ``{}``). Anything else (``{"type": "string"}``, a bare ``anyOf``) would make the model emit
    arguments that the endpoint itself refuses when they are sent back.

    A ``type`` that is not a JSON type name (``"objekt"``) is left to the JSON Schema check, which names the place
    inside the schema.

    :param parameters: the tool's ``parameters`` object.
    :return: a sentence for :class:`RequestError`, or ``None``.
    """
    kind = parameters.get("type")
    names = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if names is None or not all(isinstance(n, str) and n in JSON_TYPES for n in names):
        if "type" in parameters:
            return None  # not a valid type: the schema check names it
        if any(key in parameters for key in OBJECT_KEYWORDS) or set(parameters) <= ANNOTATION_KEYWORDS:
            return None
        found = ", ".join(sorted(parameters)[:5])
        return (
            'function parameters must describe a JSON object: use "type": "object", or no type with object '
            f"keywords such as properties or required (this schema has only {found}); a call's arguments are "
            "always a JSON object"
        )
    if "object" in names and set(names) <= {"object", "null"}:
        return None
    shown = json.dumps(kind)
    return (
        f'function parameters must describe a JSON object, not type {shown}: use "type": "object" with '
        "properties (wrap a single value as a property), or no type with object keywords; a call's "
        "arguments are always a JSON object"
    )


@dataclass(frozen=True)
class ToolChoice:
    """``tool_choice``, normalised (Open Responses spec, tool_choice; spec notes §1.7).

    :param mode: ``none`` (no tool), ``auto`` (the model decides) or ``required`` (at least one call).
    :param names: the tools that may be called; ``None`` means every tool of the request.
    :param kind: the shape sent: ``none``/``auto``/``required``, ``function`` or ``allowed_tools``.
    """

    mode: str = "auto"
    names: tuple[str, ...] | None = None
    kind: str = "auto"

    def echo(self) -> str | dict[str, Any]:
        """The response's ``tool_choice``: the enum, ``FunctionToolChoice`` or ``AllowedToolChoice`` (with
        ``mode``, which the response schema requires)."""
        if self.kind == "function":
            assert self.names
            return {"type": "function", "name": self.names[0]}
        if self.kind == "allowed_tools":
            return {
                "type": "allowed_tools",
                "tools": [{"type": "function", "name": n} for n in self.names or ()],
                "mode": self.mode,
            }
        return self.mode


def parse_tool_choice(value: Any, path: str = "tool_choice") -> ToolChoice:
    """Validate ``tool_choice``: ``none|auto|required``, ``{type: function, name}`` or
    ``{type: allowed_tools, tools: [...] (1-128), mode?}``. Names are checked against the tools later
    (:func:`check_tool_choice`), once tools inherited from a previous response are known."""
    if value is None or isinstance(value, str):
        mode = _enum(value, path, TOOL_CHOICE_MODES, nullable=True) or "auto"
        return ToolChoice(mode, None, mode)
    value = _object(value, path)
    kind = _required(value, "type", path)
    if kind == "function":
        if "function" in value and "name" not in value:
            raise RequestError(
                'this is the Chat Completions shape; use {"type": "function", "name": ...}',
                path_key(path, "function"),
                CHAT_ENVELOPE,
            )
        return ToolChoice("required", (_name(_required(value, "name", path), path_key(path, "name")),), "function")
    if kind == "allowed_tools":
        where = path_key(path, "tools")
        listed = _array(_required(value, "tools", path), where)
        if not 1 <= len(listed) <= 128:
            raise RequestError(f"must list 1 to 128 tools, got {len(listed)}", where, INVALID_VALUE)
        names: list[str] = []
        for i, entry in enumerate(listed):
            at = path_index(where, i)
            entry = _object(entry, at)
            _enum(_required(entry, "type", at), path_key(at, "type"), ("function",))
            names.append(_name(_required(entry, "name", at), path_key(at, "name")))
        mode = _enum(value.get("mode"), path_key(path, "mode"), TOOL_CHOICE_MODES, nullable=True) or "auto"
        return ToolChoice(mode, tuple(dict.fromkeys(names)), "allowed_tools")
    raise RequestError(
        f"expected 'function' or 'allowed_tools', got {kind!r} (or use one of {_choices(TOOL_CHOICE_MODES)})",
        path_key(path, "type"),
        INVALID_VALUE if isinstance(kind, str) else INVALID_TYPE,
    )


def check_tool_choice(choice: ToolChoice, tools: list[Tool]) -> None:
    """Every name ``tool_choice`` gives must be a tool of the request; ``required`` needs a tool.

    :raises RequestError: naming ``tool_choice`` (or the entry at fault).
    """
    known = {tool.name for tool in tools}
    if choice.kind == "function" and choice.names and choice.names[0] not in known:
        raise RequestError(f"no tool named {choice.names[0]!r} in tools", "tool_choice.name", INVALID_VALUE)
    if choice.kind == "allowed_tools":
        for i, name in enumerate(choice.names or ()):
            if name not in known:
                raise RequestError(f"no tool named {name!r} in tools", f"tool_choice.tools[{i}].name", INVALID_VALUE)
    if choice.mode == "required" and not tools:
        raise RequestError("a tool call is required but the request offers no tools", "tool_choice", INVALID_VALUE)


# ------------------------------------------------------------------------------------------------ request


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
        _string(value, "input", max_length=MAX_TEXT)
        request.input = [{"type": "message", "role": "user", "content": value}]
        return
    if not isinstance(value, list):
        raise _type_error("input", "a string or an array of items", value)
    request.input = [parse_item(item, path_index("input", i), limits) for i, item in enumerate(value)]


def _metadata(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = _object(value, "metadata")
    if len(value) > 16:
        raise RequestError(f"at most 16 keys, got {len(value)}", "metadata", INVALID_VALUE)
    for key, item in value.items():
        if len(key) > 64:
            raise RequestError(f"key {key[:20]!r}... is longer than 64 characters", "metadata", INVALID_VALUE)
        _string(item, path_key("metadata", key), max_length=512)
    request.metadata = dict(value)


def _text(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = _object(value, "text")
    result: dict[str, Any] = {}
    fmt = value.get("format")
    if fmt is not None:
        fmt = _object(fmt, "text.format")
        kind = _enum(_required(fmt, "type", "text.format"), "text.format.type", ("text", "json_schema", "json_object"))
        if kind == "json_schema":
            _name(_required(fmt, "name", "text.format"), "text.format.name")
            _object(_required(fmt, "schema", "text.format"), "text.format.schema")
            _string(fmt.get("description"), "text.format.description", nullable=True)
            _boolean(fmt.get("strict"), "text.format.strict", nullable=True)
        result["format"] = dict(fmt)
    if "verbosity" in value:
        result["verbosity"] = _enum(value["verbosity"], "text.verbosity", VERBOSITIES, nullable=True)
    request.text = result


def _reasoning_param(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = _object(value, "reasoning")
    request.reasoning = {
        "effort": _enum(value.get("effort"), "reasoning.effort", REASONING_EFFORTS, nullable=True),
        "summary": _enum(value.get("summary"), "reasoning.summary", REASONING_SUMMARIES, nullable=True),
    }


def _include(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    request.include = [
        _enum(v, path_index("include", i), INCLUDE_VALUES) or "" for i, v in enumerate(_array(value, "include"))
    ]


def _stream_options(value: Any, request: CreateRequest, limits: Limits) -> None:
    if value is None:
        return
    value = _object(value, "stream_options")
    _boolean(value.get("include_obfuscation"), "stream_options.include_obfuscation", nullable=True)
    request.stream_options = dict(value)


def _background(value: Any, request: CreateRequest, limits: Limits) -> None:
    if _boolean(value, "background"):
        raise RequestError("background responses are not supported by this server", "background", UNSUPPORTED)


def _set(name: str, check: Callable[[Any, str], Any]) -> Callable[[Any, CreateRequest, Limits], None]:
    def apply(value: Any, request: CreateRequest, limits: Limits) -> None:
        setattr(request, name, check(value, name))

    return apply


_FIELDS: dict[str, Callable[[Any, CreateRequest, Limits], None]] = {
    "model": _set("model", lambda v, p: _string(v, p, nullable=True, min_length=1, max_length=256)),
    "input": _input,
    "previous_response_id": _set("previous_response_id", lambda v, p: _string(v, p, nullable=True, min_length=1)),
    "include": _include,
    "tools": _set("tools", lambda v, p: None if v is None else parse_tools(v, p)),
    "tool_choice": _set("tool_choice", lambda v, p: None if v is None else parse_tool_choice(v, p)),
    "metadata": _metadata,
    "text": _text,
    "temperature": _set("temperature", lambda v, p: _number(v, p, minimum=0, maximum=2)),
    "top_p": _set("top_p", lambda v, p: _number(v, p, minimum=0, maximum=1)),
    "presence_penalty": _set("presence_penalty", lambda v, p: _number(v, p, minimum=-2, maximum=2)),
    "frequency_penalty": _set("frequency_penalty", lambda v, p: _number(v, p, minimum=-2, maximum=2)),
    "parallel_tool_calls": _set("parallel_tool_calls", lambda v, p: _boolean(v, p, nullable=True)),
    "stream": _set("stream", lambda v, p: bool(_boolean(v, p, nullable=True))),
    "stream_options": _stream_options,
    "background": _background,
    "max_output_tokens": _set("max_output_tokens", lambda v, p: _integer(v, p, nullable=True, minimum=16)),
    "max_tool_calls": _set("max_tool_calls", lambda v, p: _integer(v, p, nullable=True, minimum=1)),
    "reasoning": _reasoning_param,
    "safety_identifier": _set("safety_identifier", lambda v, p: _string(v, p, nullable=True, max_length=64)),
    "prompt_cache_key": _set("prompt_cache_key", lambda v, p: _string(v, p, nullable=True, max_length=64)),
    "truncation": _set("truncation", lambda v, p: _enum(v, p, TRUNCATIONS, nullable=True)),
    "instructions": _set("instructions", lambda v, p: _string(v, p, nullable=True, max_length=MAX_TEXT)),
    "store": _set("store", lambda v, p: _boolean(v, p, nullable=True) is not False),
    "service_tier": _set("service_tier", lambda v, p: _enum(v, p, SERVICE_TIERS, nullable=True)),
    "top_logprobs": _set("top_logprobs", lambda v, p: _integer(v, p, nullable=True, minimum=0, maximum=20)),
    "user": _set("user", lambda v, p: _string(v, p, nullable=True, min_length=1, max_length=256)),
}
#: Parameters named in ``CreateResponseBody`` (plus OpenAI's ``user``), in the spec's order.
KNOWN_PARAMETERS = tuple(_FIELDS)


def parse_create_request(body: Any, limits: Limits = Limits()) -> CreateRequest:
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


def parse_compact_request(body: Any, limits: Limits = Limits()) -> CreateRequest:
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
                f"unknown parameter; /responses/compact takes {_choices(COMPACT_PARAMETERS)}", key, UNKNOWN_PARAMETER
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


# ------------------------------------------------------------------------------------------------ responses


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
    if (text or {}).get("verbosity") is not None:
        result["verbosity"] = text["verbosity"]  # type: ignore[index]
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
