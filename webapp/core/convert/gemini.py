"""Gemini ``generateContent`` (``contents[]`` of ``parts``, ``systemInstruction`` apart) to Open Responses items.

Shapes: a request ``{systemInstruction?, contents, tools?}``, a response ``{candidates: [{content,
finishReason}]}``, a bare ``contents`` array, one part. Mapping (``docs/targets.md``, "Target `gemini`"):
``functionCall`` → ``function_call`` (``args`` written as a JSON string; a call without ``id`` gets a stable id
from its position, and a ``functionResponse`` without ``id`` pairs with the oldest unanswered call of the same
name), ``functionResponse`` → ``function_call_output`` (``response`` written as JSON; a lone ``output`` or
``result`` member is the output itself), text → ``message`` (a part each); a ``thought: true`` part → a
``reasoning`` item; a ``thoughtSignature`` stays on the item (or content part) made from its part as
``"gemini:thought_signature"``, for Gemini only (with a note); ``finishReason: "MAX_TOKENS"`` cuts the
candidate's calls. snake_case (``function_call``, ``thought_signature``…) reads like camelCase (docs/targets.md G6).
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
)
from webapp.core.json import pointer as jp

PART_KEYS = (
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "executableCode",
    "codeExecutionResult",
)
CUT_REASONS = ("MAX_TOKENS",)
# Gemini's OpenAPI-subset schemas may spell types in capitals (``"OBJECT"``); JSON Schema types are lower case.
_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def is_part(value: Any) -> bool:
    return isinstance(value, dict) and any(k in value or _snake(k) in value for k in PART_KEYS)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def is_content(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("parts"), list)
        and value.get("role", "user") in ("user", "model", "function", "tool")
    )


def looks_like(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(is_content(c) for c in value)
    if not isinstance(value, dict):
        return False
    return (
        isinstance(value.get("contents"), list)
        or isinstance(value.get("candidates"), list)
        or is_content(value)
        or any(k in value for k in ("functionCall", "functionResponse", "function_call", "function_response"))
    )


def convert(value: Any) -> Conversion:
    """Convert one Gemini document. :raises ConvertError: when it is none of the shapes."""
    if isinstance(value, list):
        conversion = Conversion("gemini", "messages")
        _contents(Builder(conversion), value, "")
        return conversion
    if not isinstance(value, dict):
        raise ConvertError("a Gemini conversation is an object or a contents array")
    if isinstance(value.get("candidates"), list):
        conversion = Conversion("gemini", "response")
        builder = Builder(conversion)
        for i, candidate in enumerate(value["candidates"]):
            where = f"/candidates/{i}"
            if not isinstance(candidate, dict) or not is_content(candidate.get("content")):
                raise ConvertError(f"{where} must be a candidate with content.parts", where)
            _content(
                builder,
                candidate["content"],
                f"{where}/content",
                cut=camel(candidate).get("finishReason") in CUT_REASONS,
            )
        return conversion
    if isinstance(value.get("contents"), list):
        conversion = Conversion("gemini", "request")
        builder = Builder(conversion)
        system = value.get("systemInstruction") or value.get("system_instruction")
        if isinstance(system, dict):
            texts = [p["text"] for p in system.get("parts") or () if isinstance(p, dict) and "text" in p]
            builder.message("system", texts, "/systemInstruction")
        _contents(builder, value["contents"], "/contents")
        conversion.tools = convert_tools(value.get("tools"), conversion, "/tools")
        return conversion
    if is_content(value):
        conversion = Conversion("gemini", "message")
        _content(Builder(conversion), value, "", cut=False)
        return conversion
    if is_part(value):
        conversion = Conversion("gemini", "part")
        _part(Builder(conversion), "model", camel(value), "", cut=False)
        return conversion
    raise ConvertError("not a Gemini request, response, contents array or part")


def _contents(builder: Builder, contents: list, base: str) -> None:
    for i, content in enumerate(contents):
        where = f"{base}/{i}"
        if not is_content(content):
            raise ConvertError(f"{where} is not a Gemini content (role and parts)", where)
        _content(builder, content, where, cut=False)


#: snake_case part members (the proto field names, which REST accepts and the SDK's ``model_dump()`` writes) and
#: their camelCase JSON names: the converter reads both alike (docs/targets.md G6).
SNAKE = {
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "thought_signature": "thoughtSignature",
    "inline_data": "inlineData",
    "file_data": "fileData",
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "video_metadata": "videoMetadata",
    "mime_type": "mimeType",
    "file_uri": "fileUri",
    "finish_reason": "finishReason",
}
#: The item member a part's ``thoughtSignature`` becomes (docs/targets.md, "How items carry provider state").
SIGNATURE = "gemini:thought_signature"


def camel(part: dict) -> dict:
    """``part`` with its snake_case members (:data:`SNAKE`) spelt in camelCase, one level into ``inlineData`` /
    ``fileData`` too; a part already in camelCase comes back as it is."""
    if not any(k in SNAKE for k in part):
        return part
    out = {SNAKE.get(k, k): v for k, v in part.items()}
    for key in ("inlineData", "fileData"):
        if isinstance(out.get(key), dict):
            out[key] = {SNAKE.get(k, k): v for k, v in out[key].items()}
    return out


def _extra(part: dict, mapped: tuple[str, ...]) -> dict[str, Any]:
    """The part's members that no Open Responses field holds, as ``"gemini:<member>"`` (the signature as
    :data:`SIGNATURE`)."""
    extra = provider_members("gemini", {k: v for k, v in part.items() if k != "thoughtSignature"}, mapped)
    if "thoughtSignature" in part:
        extra[SIGNATURE] = part["thoughtSignature"]
    return extra


def _content(builder: Builder, content: dict, where: str, *, cut: bool) -> None:
    role = "assistant" if content.get("role") == "model" else "user"
    run: list[tuple[str, dict]] = []
    for i, part in enumerate(content["parts"]):
        place = f"{where}/parts/{i}"
        if not isinstance(part, dict):
            raise ConvertError(f"{place} is not a part (an object)", place)
        part = camel(part)
        if isinstance(part.get("text"), str) and part.get("thought") is not True:
            run.append((place, part))
            continue
        _texts(builder, role, run)  # text before a call stays before it
        run = []
        _part(builder, role, part, place, cut=cut)
    _texts(builder, role, run)


def _texts(builder: Builder, role: str, run: list[tuple[str, dict]]) -> None:
    """Consecutive text parts as one message, each its own content part with its signature on it."""
    if not run:
        return
    kind = "output_text" if role == "assistant" else "input_text"
    parts = []
    for _, part in run:
        piece: dict[str, Any] = {"type": kind, "text": part["text"]}
        if role == "assistant":
            piece["annotations"] = []
        parts.append({**piece, **_extra(part, ("text",))})
    item: dict[str, Any] = {"type": "message", "role": role, "content": parts}
    if role == "assistant":
        item["status"] = "completed"
    index = builder.add(item, run[0][0])
    for (place, part), piece in zip(run, parts, strict=True):
        _note_state(builder, part, piece, place, index)


def _note_state(builder: Builder, part: dict, carried: dict, where: str, index: int) -> None:
    """The notes for what a part's item (or content part) carries for Gemini only."""
    if SIGNATURE in carried:
        builder.note(
            "sealed_reasoning",
            f"a thoughtSignature is sealed by Gemini: kept on the item as {SIGNATURE!r}, for Gemini only",
            f"{where}/thoughtSignature",
            index,
        )
    others = sorted(k for k in carried if ":" in k and k not in (SIGNATURE, GENERATED, RESPONSE_KEY))
    if others:
        builder.note("provider_field", f"{', '.join(others)}: Gemini's own, kept for Gemini only", where, index)


#: Marks a call (and its response) whose ``call_id`` the converter made up: the Gemini writer sends no ``id``.
GENERATED = "gemini:call_id_generated"
#: The member of ``functionResponse.response`` a text output came from (``output`` or ``result``).
RESPONSE_KEY = "gemini:response_key"
#: The converter's own bookkeeping for the Gemini writer, not Gemini's data: another target loses nothing without
#: them (the writers leave them out without a note).
BOOKKEEPING = (GENERATED, RESPONSE_KEY)


def _part(builder: Builder, role: str, part: dict, where: str, *, cut: bool) -> None:
    if part.get("thought") is True:
        item: dict[str, Any] = {"type": "reasoning", "summary": []}
        if isinstance(part.get("text"), str):
            item["content"] = [{"type": "reasoning_text", "text": part["text"]}]
        item.update(_extra(part, ("text", "thought")))
        index = builder.add(item, where)
        builder.note(
            "sealed_reasoning", "a thought part is Gemini's own reasoning: kept as a reasoning item", where, index
        )
        _note_state(builder, part, item, where, index)
    elif isinstance(part.get("functionCall"), dict):
        call = part["functionCall"]
        call_id, name = call.get("id"), call.get("name")
        generated = not isinstance(call_id, str) or not call_id
        if generated:
            call_id = "call_gemini_" + ("_".join(t for t in jp.split(where) if t.isdigit()) or "0")
            builder.expect(name, call_id)
        index = builder.call(call_id, name, as_json_string(call.get("args", {})), f"{where}/functionCall", cut=cut)
        _note_unmapped(builder, call, ("id", "name", "args"), f"{where}/functionCall", index)
        extra = _extra(part, ("functionCall",))
        if generated:
            extra[GENERATED] = True
        builder.conversion.items[index].update(extra)
        builder.note(
            "arguments_serialised",
            "the functionCall args object was written as a JSON string",
            f"{where}/functionCall/args",
            index,
        )
        if generated:
            builder.note(
                "generated_call_id",
                f"the functionCall has no id: call_id {call_id} (from its position) "
                "pairs it with the next functionResponse of the same name",
                f"{where}/functionCall",
                index,
            )
        _note_state(builder, part, extra, where, index)
    elif isinstance(part.get("functionResponse"), dict):
        result = part["functionResponse"]
        call_id = result.get("id")
        extra = _extra(part, ("functionResponse",))
        by_position = False
        if not isinstance(call_id, str) or not call_id:
            by_position = builder.waiting(result.get("name")) > 1
            call_id = builder.answer(result.get("name"))
            if call_id is None:
                builder.note(
                    "unpaired_result",
                    "this functionResponse has no id and answers no call of the same name before it",
                    f"{where}/functionResponse",
                )
            else:
                extra[GENERATED] = True
        response = result.get("response")
        output = _response_output(response)
        if output is not response:
            extra[RESPONSE_KEY] = next(iter(response))
        index = builder.output(call_id, output, f"{where}/functionResponse")
        _note_unmapped(builder, result, ("id", "name", "response"), f"{where}/functionResponse", index)
        builder.conversion.items[index].update(extra)
        if by_position:
            builder.note(
                "paired_by_position",
                f"several calls of {json.dumps(result.get('name'), ensure_ascii=False)} without an id wait for "
                f"a result: this id-less functionResponse was paired with the oldest ({call_id}) by position; "
                "if the results came in another order, the pairing is wrong",
                f"{where}/functionResponse",
                index,
            )
        _note_state(builder, part, extra, where, index)
    elif isinstance(part.get("inlineData"), dict) and role == "user":
        data = part["inlineData"]
        mime_type = data.get("mimeType", "application/octet-stream")
        image = {"type": "input_image", "image_url": f"data:{mime_type};base64,{data.get('data', '')}"}
        image.update(_extra(part, ("inlineData",)))
        index = builder.add({"type": "message", "role": "user", "content": [image]}, where)
        _note_state(builder, part, image, where, index)
    else:
        kind = next((k for k in PART_KEYS if k in part), "part")
        builder.namespaced("gemini", kind, part, where, "server_tool" if "code" in kind.lower() else "unknown_part")


def _note_unmapped(builder: Builder, value: dict, mapped: tuple[str, ...], where: str, index: int) -> None:
    """A note for the members of a ``functionCall`` / ``functionResponse`` that no item field holds (``willContinue``,
    ``scheduling``, ``parts``…): dropped, never silently."""
    others = sorted(k for k in value if k not in mapped)
    if others:
        builder.note(
            "dropped_content", f"{', '.join(others)}: no Open Responses field holds them: dropped", where, index
        )


def _response_output(response: Any) -> Any:
    """Gemini's docs: an ``output`` member is the function's output; ``result`` is common too. A lone one of them
    holding text is the output; any other object is the output as JSON."""
    if isinstance(response, dict) and len(response) == 1:
        ((key, value),) = response.items()
        if key in ("output", "result") and isinstance(value, str):
            return value
    return response


def convert_tools(tools: Any, conversion: Conversion, where: str) -> list[dict] | None:
    """Gemini ``tools: [{functionDeclarations: [...]}]`` as flat function tools (capitalised types lowered)."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise ConvertError(f"{where} must be an array of tools", where)
    builder = Builder(conversion)
    out = []
    for i, tool in enumerate(tools):
        declarations = (
            tool.get("functionDeclarations") or tool.get("function_declarations") if isinstance(tool, dict) else None
        )
        if not isinstance(declarations, list):
            builder.note(
                "hosted_tool", f"tool {i} has no functionDeclarations (a Gemini-run tool): left out", f"{where}/{i}"
            )
            continue
        for j, declaration in enumerate(declarations):
            if not isinstance(declaration, dict):
                continue
            parameters = declaration.get("parameters") or declaration.get("parametersJsonSchema")
            lowered = _lower_types(parameters)
            if lowered != parameters:
                builder.note(
                    "schema_adjusted",
                    "Gemini's capitalised types (OBJECT, STRING, …) were written as JSON Schema's lower-case types",
                    f"{where}/{i}/functionDeclarations/{j}/parameters",
                )
            out.append(function_tool(declaration.get("name"), declaration.get("description"), lowered))
    return out


def _lower_types(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: (v.lower() if k == "type" and isinstance(v, str) and v in _TYPES else _lower_types(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema
