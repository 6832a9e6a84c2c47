"""The input items of a ``/v1/responses`` request (``ItemParam``), checked one by one.

Pure (no Flask, no I/O). Shapes: Open Responses OpenAPI 2026-04-24, ``#/components/schemas/ItemParam`` and the
content parts of each message role. Structure only: a ``function_call``'s namespacing, ``status`` and
``arguments`` are the replay gate's to judge (``webapp.core.gate``), a compaction item's seal the pipeline's
(``webapp.core.responses.pipeline``), which holds the key. Unknown fields on items and parts are kept (extension
fields such as ``namespace`` must survive a round trip); Chat Completions shapes (``role: "tool"``,
``tool_calls``) are refused with a hint at the Responses shape.
"""

from __future__ import annotations

from typing import Any

from webapp.core import items
from webapp.core.responses.attachments import DEFAULT_LIMITS, Limits, check_input_file, check_input_image
from webapp.core.responses.fields import (
    CHAT_ENVELOPE,
    INVALID_VALUE,
    MAX_TEXT,
    MISSING,
    RequestError,
    expect_array,
    expect_call_id,
    expect_enum,
    expect_integer,
    expect_name,
    expect_object,
    expect_string,
    path_index,
    path_key,
    quoted_list,
    required,
    type_error,
)

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


def _output_text(part: dict[str, Any], path: str) -> None:
    expect_string(required(part, "text", path), path_key(path, "text"), max_length=MAX_TEXT)
    if "annotations" in part:
        for j, note in enumerate(expect_array(part["annotations"], path_key(path, "annotations"))):
            where = path_index(path_key(path, "annotations"), j)
            note = expect_object(note, where)
            expect_enum(required(note, "type", where), path_key(where, "type"), ("url_citation",))
            for key in ("start_index", "end_index"):
                expect_integer(required(note, key, where), path_key(where, key), minimum=0)
            for key in ("url", "title"):
                expect_string(required(note, key, where), path_key(where, key))


def _content_part(part: Any, path: str, allowed: tuple[str, ...], owner: str, limits: Limits) -> None:
    part = expect_object(part, path)
    kind = required(part, "type", path)
    if not isinstance(kind, str):
        raise type_error(path_key(path, "type"), "a string", kind)
    if kind not in allowed:
        hint = ""
        if kind == "input_text" and "output_text" in allowed:
            hint = " (assistant messages carry output_text)"
        elif kind == "output_text" and "input_text" in allowed:
            hint = " (output_text belongs to assistant messages)"
        elif kind in ("input_video", "input_audio"):
            hint = " (this server accepts text, images and files only)"
        raise RequestError(
            f"{kind!r} is not accepted in {owner}; expected one of {quoted_list(allowed)}{hint}",
            path_key(path, "type"),
            INVALID_VALUE,
        )
    if kind == "input_text":
        expect_string(required(part, "text", path), path_key(path, "text"), max_length=MAX_TEXT)
    elif kind == "output_text":
        _output_text(part, path)
    elif kind == "refusal":
        expect_string(required(part, "refusal", path), path_key(path, "refusal"), max_length=MAX_TEXT)
    elif kind == "input_image":
        check_input_image(part, path, limits)
    elif kind == "input_file":
        check_input_file(part, path, limits)


def _text_or_parts(value: Any, path: str, allowed: tuple[str, ...], owner: str, limits: Limits) -> None:
    """A message's ``content`` or a call output's ``output``: a string, or an array of content parts."""
    if isinstance(value, str):
        expect_string(value, path, max_length=MAX_TEXT)
    elif isinstance(value, list):
        for j, part in enumerate(value):
            _content_part(part, path_index(path, j), allowed, owner, limits)
    else:
        raise type_error(path, "a string or an array of content parts", value)


# ------------------------------------------------------------------------------------------------ items


def _message(item: dict[str, Any], path: str, limits: Limits) -> dict[str, Any]:
    role = required(item, "role", path)
    if role == "tool":
        raise RequestError(
            "'tool' is not a Responses role; a tool result is a function_call_output item: "
            '{"type": "function_call_output", "call_id": ..., "output": ...}',
            path_key(path, "role"),
            CHAT_ENVELOPE,
        )
    expect_enum(role, path_key(path, "role"), ROLES)
    for leaked in ("tool_calls", "tool_call_id", "function_call"):
        if leaked in item:
            raise RequestError(
                "a Chat Completions field; in Responses a tool call is its own function_call item "
                "and its result a function_call_output item",
                path_key(path, leaked),
                CHAT_ENVELOPE,
            )
    expect_string(item.get("id"), path_key(path, "id"), nullable=True)
    expect_string(item.get("status"), path_key(path, "status"), nullable=True)  # spec: any string on input
    if role == "assistant" and "phase" in item:
        expect_enum(item["phase"], path_key(path, "phase"), ("commentary", "final_answer"))
    _text_or_parts(
        required(item, "content", path), path_key(path, "content"), PARTS_BY_ROLE[role], f"a {role} message", limits
    )
    return item if item.get("type") == "message" else {"type": "message", **item}


def _function_call(item: dict[str, Any], path: str) -> dict[str, Any]:
    # Structure only: type namespacing, status and arguments are the replay gate's to judge.
    expect_string(item.get("id"), path_key(path, "id"), nullable=True)
    expect_call_id(item, path)
    expect_name(required(item, "name", path), path_key(path, "name"))
    return item


def _function_call_output(item: dict[str, Any], path: str, limits: Limits) -> dict[str, Any]:
    expect_string(item.get("id"), path_key(path, "id"), nullable=True)
    expect_call_id(item, path)
    _text_or_parts(
        required(item, "output", path), path_key(path, "output"), OUTPUT_PARTS, "a function_call_output", limits
    )
    expect_enum(item.get("status"), path_key(path, "status"), CALL_STATUSES, nullable=True)
    return item


def _reasoning(item: dict[str, Any], path: str) -> dict[str, Any]:
    expect_string(item.get("id"), path_key(path, "id"), nullable=True)
    where = path_key(path, "summary")
    for j, part in enumerate(expect_array(required(item, "summary", path), where)):
        at = path_index(where, j)
        part = expect_object(part, at)
        expect_enum(required(part, "type", at), path_key(at, "type"), ("summary_text",))
        expect_string(required(part, "text", at), path_key(at, "text"), max_length=MAX_TEXT)
    if item.get("content") is not None:
        raise RequestError(
            "must be null or absent on input (spec: ReasoningItemParam.content); send the summary",
            path_key(path, "content"),
            INVALID_VALUE,
        )
    expect_string(item.get("encrypted_content"), path_key(path, "encrypted_content"), nullable=True)
    return item


def _compaction(item: dict[str, Any], path: str) -> dict[str, Any]:
    # CompactionSummaryItemParam: the seal itself is checked by the endpoint, which holds the key.
    expect_string(item.get("id"), path_key(path, "id"), nullable=True)
    expect_string(
        required(item, "encrypted_content", path),
        path_key(path, "encrypted_content"),
        min_length=1,
        max_length=MAX_TEXT,
    )
    return item


def _item_reference(item: dict[str, Any], path: str) -> dict[str, Any]:
    expect_string(required(item, "id", path), path_key(path, "id"), min_length=1)
    return {**item, "type": "item_reference"}


def parse_item(item: Any, path: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Validate one input item (``ItemParam``) and return it with its ``type`` filled in.

    A typeless item with ``role`` is a message (EasyInputMessage); one whose only field is ``id`` (or whose
    ``type`` is null) is an ``item_reference``. Items whose ``type`` holds a colon (provider extensions)
    are returned untouched for the replay gate to refuse as ``namespaced``.

    :raises RequestError: naming ``path`` or a place under it.
    """
    item = expect_object(item, path)
    kind = item.get("type")
    if kind is None:
        if "role" in item:
            return _message(item, path, limits)
        if "id" in item and set(item) <= {"id", "type"}:
            return _item_reference(item, path)
        raise RequestError(
            "missing required field (the item type: one of " + quoted_list(ITEM_TYPES) + ")",
            path_key(path, "type"),
            MISSING,
        )
    if not isinstance(kind, str):
        raise type_error(path_key(path, "type"), "a string", kind)
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
        f"unsupported item type {kind!r}; expected one of {quoted_list(ITEM_TYPES)}{hint}",
        path_key(path, "type"),
        INVALID_VALUE,
    )
