"""Gemini ``generateContent`` (``contents[]`` of ``parts``, ``systemInstruction`` apart) to Open Responses items.

Shapes: a request ``{systemInstruction?, contents, tools?}``, a response ``{candidates: [{content,
finishReason}]}``, a bare ``contents`` array, one part. Mapping (``docs/targets.md``, "Target `gemini`"):
``functionCall`` → ``function_call`` (``args`` written as a JSON string; a call without ``id`` gets a stable id
from its position, and a ``functionResponse`` without ``id`` pairs with the oldest unanswered call of the same
name), ``functionResponse`` → ``function_call_output`` (``response`` written as JSON; a lone ``output`` or
``result`` member is the output itself), text → ``message``; ``thought`` parts and ``thoughtSignature`` are
provider-sealed (dropped, with a note); ``finishReason: "MAX_TOKENS"`` cuts the candidate's calls.
"""

from __future__ import annotations

from typing import Any

from webapp.core.convert.base import Builder, Conversion, ConvertError, as_json_string, function_tool
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
    return isinstance(value, dict) and any(k in value for k in PART_KEYS)


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
        or "functionCall" in value
        or "functionResponse" in value
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
                builder, candidate["content"], f"{where}/content", cut=candidate.get("finishReason") in CUT_REASONS
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
        _part(Builder(conversion), "model", value, "", cut=False)
        return conversion
    raise ConvertError("not a Gemini request, response, contents array or part")


def _contents(builder: Builder, contents: list, base: str) -> None:
    for i, content in enumerate(contents):
        where = f"{base}/{i}"
        if not is_content(content):
            raise ConvertError(f"{where} is not a Gemini content (role and parts)", where)
        _content(builder, content, where, cut=False)


def _content(builder: Builder, content: dict, where: str, *, cut: bool) -> None:
    role = "assistant" if content.get("role") == "model" else "user"
    texts: list[str] = []
    first_text = ""  # the place of the first of texts (none yet: "")
    for i, part in enumerate(content["parts"]):
        place = f"{where}/parts/{i}"
        if not isinstance(part, dict):
            raise ConvertError(f"{place} is not a part (an object)", place)
        if "thoughtSignature" in part:
            builder.note(
                "sealed_reasoning",
                "a thoughtSignature is sealed by Gemini: dropped, only Gemini can take it back",
                f"{place}/thoughtSignature",
            )
        if isinstance(part.get("text"), str) and part.get("thought") is not True:
            first_text = first_text or place
            texts.append(part["text"])
            continue
        if texts:  # text before a call stays before it
            builder.message(role, texts, first_text)
            texts, first_text = [], ""
        _part(builder, role, part, place, cut=cut)
    if texts:
        builder.message(role, texts, first_text)


def _part(builder: Builder, role: str, part: dict, where: str, *, cut: bool) -> None:
    if part.get("thought") is True:
        builder.note("sealed_reasoning", "a thought part is Gemini's own reasoning: dropped", where)
    elif isinstance(part.get("functionCall"), dict):
        call = part["functionCall"]
        call_id, name = call.get("id"), call.get("name")
        generated = not isinstance(call_id, str) or not call_id
        if generated:
            call_id = "call_gemini_" + ("_".join(t for t in jp.split(where) if t.isdigit()) or "0")
            builder.expect(name, call_id)
        index = builder.call(call_id, name, as_json_string(call.get("args", {})), f"{where}/functionCall", cut=cut)
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
    elif isinstance(part.get("functionResponse"), dict):
        result = part["functionResponse"]
        call_id = result.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = builder.answer(result.get("name"))
            if call_id is None:
                builder.note(
                    "unpaired_result",
                    "this functionResponse has no id and answers no call of the same name before it",
                    f"{where}/functionResponse",
                )
        builder.output(call_id, _response_output(result.get("response")), f"{where}/functionResponse")
    elif isinstance(part.get("inlineData"), dict) and role == "user":
        data = part["inlineData"]
        mime_type = data.get("mimeType", "application/octet-stream")
        builder.add(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_image",
                        "image_url": f"data:{mime_type};base64,{data.get('data', '')}",
                    }
                ],
            },
            where,
        )
    else:
        kind = next((k for k in PART_KEYS if k in part), "part")
        builder.namespaced("gemini", kind, part, where, "server_tool" if "code" in kind.lower() else "unknown_part")


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
