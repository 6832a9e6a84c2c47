"""Items as the body of Gemini's ``generateContent``: ``{"systemInstruction", "contents", "tools"}``.

The inverse of :mod:`webapp.core.convert.gemini`, written in camelCase (the REST API's JSON names; it reads
snake_case too, docs/targets.md G6): messages become text parts (images ``inlineData`` / ``fileData``), a
``function_call`` a ``functionCall`` part (``args`` the parsed arguments object; its ``id`` only when the source
had one: ``"gemini:call_id_generated"``), an output a ``functionResponse`` part naming its call's function, a
``reasoning`` item a ``thought: true`` part, and ``gemini:<kind>`` items their parts again (G7). A
``"gemini:thought_signature"`` goes back as ``thoughtSignature`` on the part it came with, exactly as received
(G1, G2), and every other ``"gemini:<member>"`` as ``<member>``. Roles are ``user`` and ``model``; function
responses go in a ``user`` turn of their own; system and developer messages go to ``systemInstruction`` (G5).
What no part holds — reasoning of another provider, other providers' members and items, images in a function
response (not covered: docs/targets.md, "Rules we could not source" 17) — is left out with a note.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from webapp.core.convert.gemini import BOOKKEEPING
from webapp.core.export.base import (
    Written,
    arguments_object,
    call_names,
    data_url,
    function_tools,
    leave_out_foreign,
    own_members,
    parts_of,
    reasoning_text,
)
from webapp.core.items import is_namespaced, provider_of

PROVIDER = "gemini"
#: Item members the Gemini converter writes for this writer alone (not part members), without their prefix.
_BOOKKEEPING = tuple(name.partition(":")[2] for name in BOOKKEEPING)
#: Gemini's server-side parts, written in the model's turn (``Part`` in google-genai's types, G7).
_MODEL_PARTS = ("executableCode", "codeExecutionResult", "toolCall")


def write(items: list[Any], *, target: str = PROVIDER, tools: list[Any] | None = None) -> Written:
    """The ``generateContent`` body of ``items``.

    :param items: Open Responses items (dicts), as the gate's target policy kept them.
    :param tools: flat function tools (one ``{"functionDeclarations": [...]}`` tool, each declaration's JSON
        Schema as ``parametersJsonSchema``, which takes JSON Schema as it is), or ``None``.
    :return: :class:`Written` with ``body`` ``{"systemInstruction"?, "contents", "tools"?}``.
    """
    written = Written({})
    system: list[dict] = []
    contents: list[dict] = []
    names = call_names(items)
    # Calls whose id the converter made up (Gemini gave none): their responses go without one too, as they came, so
    # that Gemini (and this gate, reading the body back) pairs them by name and order.
    generated = {
        item.get("call_id")
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call" and item.get(f"{PROVIDER}:call_id_generated")
    }
    role = "user"
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            written.note("item_left_out", "not an item (an object): left out", index)
            continue
        if item.get("type") == "message" and item.get("role") in ("system", "developer"):
            if contents:
                written.note("system_moved", "a system message between turns was written into systemInstruction", index)
            for part in _parts(written, item, index, "user"):
                if "text" in part:
                    system.append(part)
                else:  # systemInstruction holds text (G5): an image there is said, not dropped silently
                    kind = next(iter(part), None)
                    words = f"a {kind} part has no place in systemInstruction: left out"
                    written.note("part_left_out", words, index, "/content")
            continue
        placed = _item(written, item, index, role, names, generated)
        if placed is None:
            continue
        role, parts, responses = placed
        last = contents[-1] if contents else None
        # a function response turn stays apart from a user's own words (G4: it answers the call turn before it)
        if last is not None and last["role"] == role and _all_responses(last) == responses:
            last["parts"] += parts
        else:
            contents.append({"role": role, "parts": parts})
    if system:
        written.body["systemInstruction"] = {"parts": system}
    written.body["contents"] = contents
    if tools is not None:
        declarations = [_declaration(tool) for tool in function_tools(written, tools)]
        written.body["tools"] = [{"functionDeclarations": declarations}] if declarations else []
    return written


def _all_responses(content: dict) -> bool:
    return all("functionResponse" in part for part in content["parts"])


def _signed(part: dict, own: dict) -> dict:
    """``part`` with the item's (or content part's) ``gemini:`` members back on it, the signature as
    ``thoughtSignature``."""
    for name, value in own.items():
        if name in _BOOKKEEPING:
            continue
        part["thoughtSignature" if name == "thought_signature" else name] = value
    return part


def _item(
    written: Written, item: dict, index: int, role: str, names: dict, generated: Collection[Any] = ()
) -> tuple[str, list[dict], bool] | None:
    """``(role, parts, is_function_response)`` of one item, or ``None`` (left out, noted)."""
    kind = item.get("type")
    leave_out_foreign(written, item, PROVIDER, index, "")
    own = own_members(item, PROVIDER)
    if kind == "message":
        message_role = "model" if item.get("role") == "assistant" else "user"
        parts = _parts(written, item, index, message_role)
        return (message_role, parts, False) if parts else None
    if kind == "reasoning":
        text = reasoning_text(item)
        if text is None and "thought_signature" not in own:
            written.note("item_left_out", "a reasoning item with no text and no Gemini signature: left out", index)
            return None
        if not own and item.get("encrypted_content") is not None:
            written.note(
                "item_left_out", "another provider's sealed reasoning cannot be a Gemini thought: left out", index
            )
            return None
        part: dict[str, Any] = {} if text is None else {"text": text}
        part["thought"] = True
        return "model", [_signed(part, own)], False
    if kind == "function_call":
        arguments = arguments_object(written, item, index)
        if arguments is None:
            return None
        call: dict[str, Any] = {}
        if not own.get("call_id_generated"):
            call["id"] = item.get("call_id")
        call.update({"name": item.get("name"), "args": arguments})
        return "model", [_signed({"functionCall": call}, own)], False
    if kind == "function_call_output":
        response = _response(written, item, index, own, names, item.get("call_id") in generated)
        return "user", [_signed({"functionResponse": response}, own)], True
    if is_namespaced(kind) and provider_of(kind) == PROVIDER:
        part = {k: v for k, v in item.items() if k != "type"}
        model = any(key in part for key in _MODEL_PARTS)
        return ("model" if model else role), [part], False
    written.note("item_left_out", f"a {json.dumps(kind)} item has no Gemini part: left out", index)
    return None


def _response(written: Written, item: dict, index: int, own: dict, names: dict, call_generated: bool = False) -> dict:
    """A ``functionResponse``: its call's ``id`` (when the source had one: not when the output or its call says the
    id was generated) and ``name``, and ``response`` — a text output under the member it came from (``output``
    unless ``"gemini:response_key"`` says ``result``), an output that is a JSON object as that object."""
    response: dict[str, Any] = {}
    if not own.get("call_id_generated") and not call_generated:
        response["id"] = item.get("call_id")
    name = names.get(item.get("call_id"))
    if name is None:
        written.note("name_unknown", "its call is not among the items: the functionResponse has no name", index)
    response["name"] = name
    output = item.get("output")
    if isinstance(output, list):
        texts = []
        for j, part in enumerate(output):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                kind = part.get("type") if isinstance(part, dict) else None
                written.note(
                    "part_left_out",
                    f"a {json.dumps(kind)} part of the output: images in a functionResponse are not covered here",
                    index,
                    f"/output/{j}",
                )
        output = "".join(texts)
    key = own.get("response_key")
    value = None
    if key is None and isinstance(output, str):
        try:
            value = json.loads(output)
        except ValueError:
            value = None
    response["response"] = value if isinstance(value, dict) else {key or "output": output}
    return response


def _parts(written: Written, item: dict, index: int, role: str) -> list[dict]:
    """A message's content parts as Gemini parts, each with its ``gemini:`` members (a signed text part keeps its
    ``thoughtSignature``)."""
    parts = []
    for j, part in enumerate(parts_of(item)):
        where = f"/content/{j}"
        if not isinstance(part, dict):
            written.note("part_left_out", "a content part that is not an object: left out", index, where)
            continue
        leave_out_foreign(written, part, PROVIDER, index, where)
        own = own_members(part, PROVIDER)
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            parts.append(_signed({"text": part["text"]}, own))
        elif kind == "input_image" and isinstance(part.get("image_url"), str):
            inline = data_url(part["image_url"])
            if inline is not None:
                parts.append(_signed({"inlineData": {"mimeType": inline[0], "data": inline[1]}}, own))
            else:
                parts.append(_signed({"fileData": {"fileUri": part["image_url"]}}, own))
        else:
            written.note("part_left_out", f"a {json.dumps(kind)} part has no Gemini part here: left out", index, where)
    return parts


def _declaration(tool: dict) -> dict:
    """A flat function tool as a ``FunctionDeclaration``."""
    out: dict[str, Any] = {"name": tool["name"]}
    if isinstance(tool.get("description"), str):
        out["description"] = tool["description"]
    if isinstance(tool.get("parameters"), dict):
        out["parametersJsonSchema"] = tool["parameters"]
    return out
