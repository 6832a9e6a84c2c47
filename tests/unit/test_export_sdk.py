"""Every target's body validated against the providers' own SDK request types (issue 18, point 6): pydantic
``TypeAdapter`` over the ``openai`` and ``anthropic`` TypedDicts, google-genai's models, and the app's own strict
``/v1/responses`` parser for ``portable``.

Traps (docs/targets.md, "SDK request types"): a TypedDict ignores keys it does not
declare, so the key sets are checked apart (:func:`undeclared`); an ``Iterable[...]`` field is validated only when
it is iterated, so the result is walked while the adapter lives (:func:`walk`); google-genai forbids extra fields
and reads both cases; its ``thought_signature`` is bytes, so the base64 text is compared, not bytes.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest
import typing_extensions
from anthropic.types import MessageParam, TextBlockParam, ToolUnionParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam
from openai.types.responses import ToolParam
from openai.types.responses.response_input_param import ResponseInputParam
from pydantic import BaseModel, TypeAdapter
from support import REPO, TESTS

from webapp.core.convert import convert, convert_text
from webapp.core.export import WRITERS, write
from webapp.core.responses.request import parse_create_request

EXPORT = TESTS / "data" / "export"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
SAMPLES = TESTS / "data" / "samples"

#: Every source fixture: a provider's own conversation, with its tools.
SOURCES = {
    "anthropic-thinking": lambda: convert(json.loads((EXPORT / "anthropic-thinking-tools.json").read_text())),
    "anthropic-sample": lambda: convert(json.loads((CONVERSATIONS / "anthropic-messages.json").read_text())),
    "gemini-signed": lambda: convert(json.loads((EXPORT / "gemini-signed-calls.json").read_text())),
    "gemini-snake": lambda: convert(json.loads((EXPORT / "gemini-signed-calls-snake.json").read_text())),
    "chat": lambda: convert(json.loads((CONVERSATIONS / "chat-completions.json").read_text())),
    "openai-journal": lambda: convert_text((SAMPLES / "journal-openai-responses.jsonl").read_text()),
}


def _strip(annotation: Any) -> Any:
    """The type under ``Required`` / ``NotRequired`` / ``Annotated`` / ``ReadOnly``."""
    wrappers = (typing.Required, typing.NotRequired, typing.Annotated, typing_extensions.ReadOnly)
    while typing.get_origin(annotation) in wrappers:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_typeddict(annotation: Any) -> bool:
    return isinstance(annotation, type) and typing_extensions.is_typeddict(annotation)  # the SDKs' TypedDicts


def _holds(annotation: Any, value: Any) -> bool:
    """Whether a union member can be what ``value`` is: a TypedDict (or a union holding one) for an object, a list
    type for an array. The SDK's response models that sit in some unions are not request types: never."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_holds(_strip(m), value) for m in typing.get_args(annotation))
    if isinstance(value, dict):
        return _is_typeddict(annotation) or origin in (dict, Mapping, typing.Mapping) or annotation is dict
    return origin in (list, Iterable, Sequence, typing.Iterable, typing.Sequence)


def undeclared(value: Any, annotation: Any, where: str = "") -> list[str]:
    """The places where ``value`` holds a key that no TypedDict of ``annotation`` (which it validates against)
    declares; ``[]`` when every key is declared. A union is met when one of its members has no such key."""
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        found = None
        if not isinstance(value, (dict, list)):
            return []  # a scalar: the TypeAdapter judged it
        for member in typing.get_args(annotation):
            member = _strip(member)
            if not _holds(member, value):
                continue
            if _is_typeddict(member) and "type" in typing.get_type_hints(member) and isinstance(value, dict):
                literal = _strip(typing.get_type_hints(member)["type"])
                if typing.get_origin(literal) is typing.Literal and value.get("type") not in typing.get_args(literal):
                    continue
            problems = undeclared(value, member, where)
            if not problems:
                return []
            found = problems if found is None else found
        return found if found is not None else [f"{where}: no member of the union fits"]
    if _is_typeddict(annotation):
        hints = typing.get_type_hints(annotation, include_extras=True)
        problems = [f"{where}/{key}: not declared by {annotation.__name__}" for key in value if key not in hints]
        for key, item in value.items():
            if key in hints:
                problems += undeclared(item, hints[key], f"{where}/{key}")
        return problems
    if origin in (list, Iterable, Sequence, typing.Iterable, typing.Sequence) and isinstance(value, list):
        (inner,) = typing.get_args(annotation) or (Any,)
        return [p for i, item in enumerate(value) for p in undeclared(item, inner, f"{where}/{i}")]
    return []


def walk(value: Any) -> None:
    """Iterate every lazily validated ``Iterable`` of a validated value (validation errors raise here)."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            walk(getattr(value, name))
    elif isinstance(value, Mapping):
        for item in value.values():
            walk(item)
    elif isinstance(value, (str, bytes)):
        return
    elif isinstance(value, Iterable):
        for item in value:
            walk(item)


def check_typed(value: Any, annotation: Any) -> None:
    """``value`` validates against ``annotation`` (iterables walked) and has no key it does not declare."""
    adapter = TypeAdapter(annotation)  # alive while the lazy iterables it made are walked
    walk(adapter.validate_python(value))
    del adapter
    assert undeclared(value, annotation) == []


def check_portable(body: dict) -> None:
    parse_create_request({"model": "test", **body})


def check_openai(body: dict) -> None:
    check_typed(body["input"], ResponseInputParam)
    if "tools" in body:
        check_typed(body["tools"], list[ToolParam])


def check_anthropic(body: dict) -> None:
    assert set(body) <= {"system", "messages", "tools"}
    check_typed(body["messages"], list[MessageParam])
    if "system" in body:
        check_typed(body["system"], list[TextBlockParam])
    if "tools" in body:
        check_typed(body["tools"], list[ToolUnionParam])


def check_gemini(body: dict) -> None:
    assert set(body) <= {"systemInstruction", "contents", "tools"}
    for content in body["contents"]:
        model = genai.Content.model_validate_json(json.dumps(content))  # JSON: base64 read as the API reads it
        again = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        sent = [p.get("thoughtSignature") for p in content["parts"]]
        assert [p.get("thoughtSignature") for p in again["parts"]] == sent  # the base64 text, not bytes
    if "systemInstruction" in body:
        genai.Content.model_validate_json(json.dumps(body["systemInstruction"]))
    for tool in body.get("tools", ()):
        genai.Tool.model_validate_json(json.dumps(tool))


def check_chat(body: dict) -> None:
    assert set(body) <= {"messages", "tools"}
    check_typed(body["messages"], list[ChatCompletionMessageParam])
    if "tools" in body:
        check_typed(body["tools"], list[ChatCompletionToolUnionParam])


CHECKS = {
    "portable": check_portable,
    "openai": check_openai,
    "anthropic": check_anthropic,
    "gemini": check_gemini,
    "chat_completions": check_chat,
}


def test_every_target_has_its_check():
    assert set(CHECKS) == set(WRITERS)


@pytest.mark.parametrize("target", list(CHECKS))
@pytest.mark.parametrize("source", list(SOURCES))
def test_every_body_fits_the_targets_request_types(source, target):
    conversion = SOURCES[source]()
    items = conversion.items
    if target == "portable":
        # the strict endpoint takes the portable kinds of item; what the gate leaves out for portable
        # (namespaced items, sealed reasoning: docs/targets.md P1, P2) is the gate's to leave out, not a writer's
        items = [
            i
            for i in items
            if ":" not in i["type"] and not (i["type"] == "reasoning" and ("encrypted_content" in i or "id" not in i))
        ]
    written = write(items, target=target, tools=conversion.tools)
    CHECKS[target](written.body)


def test_the_checks_refuse_what_the_sdk_types_refuse():
    # an undeclared key, and a bad block inside an Iterable field, are caught (the traps above)
    with pytest.raises(AssertionError):
        check_anthropic({"messages": [{"role": "user", "content": [{"type": "text", "text": "x", "cache": 1}]}]})
    with pytest.raises(ValueError):
        check_anthropic({"messages": [{"role": "user", "content": [{"type": "text"}]}]})
    with pytest.raises(ValueError):
        check_gemini({"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f"}, "signature": "x"}]}]})
    with pytest.raises(AssertionError):
        check_chat({"messages": [{"role": "user", "content": "x", "reasoning": "r"}]})
    with pytest.raises(ValueError):
        check_openai(
            {"input": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]}]}
        )


@pytest.mark.parametrize(("source", "target"), [("anthropic-thinking", "anthropic"), ("chat", "chat_completions")])
def test_a_same_provider_export_is_a_whole_request_the_sdk_takes(source, target):
    """With the source's model, output limit and settings carried (docs/targets.md, "What is read from the
    request"), the body is the whole request: it validates as the SDK's request parameters, model included."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    from webapp.core.export import export

    conversion = SOURCES[source]()
    answer = export(
        conversion.items, target=target, tools=conversion.tools, source=conversion.source, settings=conversion.settings
    )
    assert "model" in answer.body
    assert not [note for note in answer.notes if note.code.startswith("setting_")]
    request = {"anthropic": MessageCreateParamsNonStreaming, "chat_completions": CompletionCreateParamsNonStreaming}
    check_typed(answer.body, request[target])
