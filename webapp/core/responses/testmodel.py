"""The embedded test model: deterministic, offline answers for ``/v1/responses``.

Pure (no Flask, no I/O). Same context in, same output out (only ids and timestamps differ), so runs are
reproducible and a streamed answer ends with exactly the response a non-streamed one returns.

How it answers (the context is ``previous input + previous output + input``, spec 1.8):

* **The current turn** is the last user message, or the run of ``function_call_output`` items after it.
  A context with neither is refused (there is nothing to answer).
* **A tool call** when tools are offered and ``tool_choice`` is not ``none``: always under ``required``,
  a named function or ``allowed_tools`` in ``required`` mode; under ``auto`` only to answer a user message
  (after tool results it answers in text). Only tools ``tool_choice`` allows are called (a hard constraint,
  spec: allowed_tools). Which tool: those whose names the user message mentions, in order of mention (all of
  them when ``parallel_tool_calls`` is not false, at most ``max_tool_calls``), else the one whose name and
  description share most words with the message, else the first allowed tool.
* **Arguments** are built from the tool's ``parameters`` (``webapp.core.responses.schema_instances``: a
  deterministic value of the schema, checked with ``webapp.core.schema``, bounded in size and time). When no valid
  instance is found (in time, within the budget) the response ``failed`` (``model_error``).
* **A text reply** otherwise: ``You said: "<the user text>"`` (first 200 characters) with one note per
  attached image or file, or ``Tool results: <name> (<call_id>) returned: <output>.``; under
  ``text.format`` ``json_schema`` the reply is a JSON instance of that schema.
* **Token counts are approximate**: a token is a run of word characters or one other non-space character
  (``webapp.core.responses.tokens``); an image counts 85 tokens, a file one token per 4 bytes.
  ``max_output_tokens`` cuts the output at that many tokens: the cut item is ``incomplete``, it is the last one,
  and the response is ``incomplete`` with ``incomplete_details.reason = "max_output_tokens"`` (spec, Items:
  state machine).

Its answer is a pair of ``ResponseResource`` objects (:func:`respond`); the events that stream it come from
``webapp.core.responses.events``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.core.responses.fields import MISSING, RequestError
from webapp.core.responses.request import CreateRequest
from webapp.core.responses.resources import function_call_item, message_item, response_resource, usage
from webapp.core.responses.schema_instances import Unbuildable, build_instance
from webapp.core.responses.tokens import count_tokens, truncate_tokens
from webapp.core.responses.tools import Tool, ToolChoice
from webapp.core.schema import SchemaError

MODEL_NAME = "openresponses-test"
QUOTE_LIMIT = 200  # characters of the user's text quoted back
IMAGE_TOKENS = 85
_WORD = re.compile(r"[a-z0-9]+")


# ------------------------------------------------------------------------------------------------ reading the context


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") in ("input_text", "output_text")
        )
    return ""


def _attachment_notes(content: Any) -> list[str]:
    """One note per inline image or file (validated already; sizes computed from the base64 length)."""
    notes: list[str] = []
    if not isinstance(content, list):
        return notes
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
            url = part["image_url"]
            notes.append(f"an image ({_media(url)}, {_base64_size(url.partition(',')[2]):,} bytes)")
        elif part.get("type") == "input_file":
            source = part.get("file_data") or part.get("file_url") or ""
            media = _media(source) or "application/octet-stream"
            size = _base64_size(source.partition(",")[2] if source[:5].lower() == "data:" else source)
            notes.append(f"{part.get('filename') or 'a file'} ({media}, {size:,} bytes)")
    return notes


def _media(url: str) -> str:
    if url[:5].lower() != "data:":
        return ""
    return url[5:].split(",", 1)[0].split(";", 1)[0].lower()


def _base64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0


def _is_user(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "user"


@dataclass(frozen=True)
class Turn:
    """What the model answers: the last user message (``user``) and the tool results after it (``results``).

    :param user: the last user message in the context, or ``None``.
    :param results: the ``function_call_output`` items after it (the current turn when not empty).
    :param calls: every ``function_call`` of the context by ``call_id`` (to name a result's tool).
    """

    user: dict[str, Any] | None
    results: tuple[dict[str, Any], ...]
    calls: dict[str, dict[str, Any]]


def current_turn(context: list[dict[str, Any]]) -> Turn:
    """Find the current turn (gateway plan: the last user message or ``function_call_output``).

    :raises RequestError: (``input``) the context has neither.
    """
    last_user = max((i for i, item in enumerate(context) if _is_user(item)), default=-1)
    results = tuple(item for item in context[last_user + 1 :] if item.get("type") == "function_call_output")
    if last_user < 0 and not results:
        raise RequestError(
            "nothing to answer: the input has no user message and no function_call_output", "input", MISSING
        )
    calls = {
        item["call_id"]: item
        for item in context
        if item.get("type") == "function_call" and isinstance(item.get("call_id"), str)
    }
    return Turn(context[last_user] if last_user >= 0 else None, results, calls)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ").replace("-", " ")))


def choose_tools(
    turn: Turn, tools: list[Tool], choice: ToolChoice, *, parallel: bool, max_calls: int | None
) -> list[Tool]:
    """The tools to call, in order (empty: answer in text). See the module docstring for the rules."""
    allowed = [t for t in tools if choice.names is None or t.name in choice.names]
    if choice.mode == "none" or not allowed:
        return []
    if choice.mode == "auto" and (turn.results or turn.user is None):
        return []
    text = _text_of(turn.user.get("content")) if turn.user else ""
    lowered = text.lower()
    mentioned = sorted(
        (t for t in allowed if re.search(rf"(?<![\w-]){re.escape(t.name.lower())}(?![\w-])", lowered)),
        key=lambda t: lowered.find(t.name.lower()),
    )
    if mentioned:
        chosen = mentioned if parallel else mentioned[:1]
    else:
        words = _words(text)
        scores = [len(words & _words(f"{t.name} {t.description or ''}")) for t in allowed]
        chosen = [allowed[scores.index(max(scores))]]
    return chosen[:max_calls] if max_calls is not None else chosen


def _reply_text(turn: Turn) -> str:
    if turn.results:
        parts = []
        for result in turn.results:
            call_id = result.get("call_id")
            call = turn.calls.get(call_id, {}) if isinstance(call_id, str) else {}
            output = result.get("output")
            shown = output if isinstance(output, str) else _text_of(output)
            notes = _attachment_notes(output)
            if notes:
                shown = "; ".join(filter(None, [shown, *notes]))
            parts.append(f"{call.get('name', 'the tool')} ({result.get('call_id')}) returned: {_quote(shown)}")
        return "Tool results: " + "; ".join(parts) + "."
    assert turn.user is not None
    content = turn.user.get("content")
    text = _text_of(content).strip()
    notes = _attachment_notes(content)
    reply = f'You said: "{_quote(text)}"' if text else "You sent no text."
    if notes:
        reply += ". Received " + "; ".join(notes) + "."
    return reply


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT].rstrip() + "…"


def input_tokens(context: list[dict[str, Any]], instructions: str | None, tools: list[Tool]) -> int:
    """Approximate input size in tokens: instructions, every text, argument and output string of the context,
    each tool's name, description and parameters, plus 85 per image and 1 per 4 bytes of a file."""
    total = count_tokens(instructions or "")
    for tool in tools:
        total += count_tokens(f"{tool.name} {tool.description or ''} {json.dumps(tool.parameters or {})}")
    for item in context:
        for key in ("arguments", "name"):
            if isinstance(item.get(key), str):
                total += count_tokens(item[key])
        for key in ("content", "output", "summary"):
            value = item.get(key)
            total += count_tokens(value if isinstance(value, str) else _text_of(value))
            if isinstance(value, list):
                for part in value:
                    if isinstance(part, dict) and part.get("type") == "summary_text":
                        total += count_tokens(part.get("text", ""))
                    elif isinstance(part, dict) and part.get("type") == "input_image":
                        total += IMAGE_TOKENS
                    elif isinstance(part, dict) and part.get("type") == "input_file":
                        source = part.get("file_data") or part.get("file_url") or ""
                        total += _base64_size(source.partition(",")[2] or source) // 4
    return total


# ------------------------------------------------------------------------------------------------ generation


def new_id(prefix: str) -> str:
    """A fresh id such as ``resp_3f9a...``: the prefix, an underscore and 24 hex digits."""
    return f"{prefix}_{secrets.token_hex(12)}"


@dataclass(frozen=True)
class Generation:
    """What the model produced for one request.

    :param status: ``completed``, ``incomplete`` or ``failed``.
    :param output: the output items in their final state.
    :param usage: the ``Usage`` object.
    :param incomplete_details: ``{"reason": "max_output_tokens"}`` when cut short.
    :param error: ``{"code", "message"}`` when failed.
    """

    status: str
    output: list[dict[str, Any]]
    usage: dict[str, Any]
    incomplete_details: dict[str, str] | None = None
    error: dict[str, str] | None = None


def generate(
    request: CreateRequest, context: list[dict[str, Any]], tools: list[Tool], make_id: Callable[[str], str] = new_id
) -> Generation:
    """Answer ``context`` (previous input + previous output + this input, references resolved).

    :param tools: the tools in effect (the request's or the previous response's).
    :param make_id: id factory, called with the prefixes ``msg``, ``fc`` and ``call``.
    :raises RequestError: nothing to answer (see :func:`current_turn`).
    """
    turn = current_turn(context)
    tokens_in = input_tokens(context, request.instructions, tools)
    choice = request.tool_choice or ToolChoice()
    chosen = choose_tools(
        turn, tools, choice, parallel=request.parallel_tool_calls is not False, max_calls=request.max_tool_calls
    )
    planned: list[tuple[str, str, str | None]] = []  # (kind, text or arguments, tool name)
    try:
        for tool in chosen:
            planned.append(("function_call", _arguments(tool), tool.name))
        if not chosen:
            planned.append(("message", _formatted_reply(turn, request.text), None))
    except Unbuildable as err:
        what = f"arguments for tool {chosen[len(planned)].name!r}" if chosen else "a reply in the requested format"
        message = f"The test model could not build {what} that satisfy the schema: {err}"
        return Generation("failed", [], usage(tokens_in, 0), error={"code": "model_error", "message": message})

    budget = request.max_output_tokens
    output: list[dict[str, Any]] = []
    spent = 0
    status = "completed"
    for kind, body, name in planned:
        cost = count_tokens(body)
        item_status = "completed"
        if budget is not None and spent + cost > budget:
            body = truncate_tokens(body, budget - spent)
            cost = count_tokens(body)
            item_status = status = "incomplete"
        if kind == "message":
            output.append(message_item(make_id("msg"), body, item_status))
        else:
            assert name is not None
            output.append(function_call_item(make_id("fc"), make_id("call"), name, body, item_status))
        spent += cost
        if status == "incomplete":
            break
    details = {"reason": "max_output_tokens"} if status == "incomplete" else None
    return Generation(status, output, usage(tokens_in, spent), incomplete_details=details)


def _arguments(tool: Tool) -> str:
    """The call's ``arguments``: always a JSON object, as the gate requires of a call sent back."""
    schema = tool.parameters
    if isinstance(schema, dict) and "type" not in schema:
        # Parameters without type describe an object (tools.function_parameters_problem); `{}` and
        # annotation-only schemas mean "no parameters" and get `{}`. The added type only narrows the schema.
        schema = {**schema, "type": "object"}
    try:
        value = build_instance(schema)
    except SchemaError as err:
        raise Unbuildable(f"the parameters schema is unusable: {err}") from None
    if not isinstance(value, dict):  # e.g. a tool stored before parameters were checked
        raise Unbuildable("the parameters do not describe a JSON object, and arguments must be one")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _formatted_reply(turn: Turn, text: dict[str, Any] | None) -> str:
    fmt = (text or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        try:
            return json.dumps(build_instance(fmt.get("schema")), ensure_ascii=False)
        except SchemaError as err:
            raise Unbuildable(f"text.format.schema is unusable: {err}") from None
    if fmt.get("type") == "json_object":
        return json.dumps({"reply": _reply_text(turn)}, ensure_ascii=False)
    return _reply_text(turn)


def respond(
    request: CreateRequest,
    context: list[dict[str, Any]],
    tools: list[Tool],
    *,
    response_id: str,
    created_at: int,
    completed_at: int,
    make_id: Callable[[str], str] = new_id,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the model and wrap its output: ``(snapshot, final)`` ``ResponseResource`` objects.

    ``snapshot`` is the response as ``response.created`` shows it (``in_progress``, no output, no usage);
    ``final`` is the finished response (``completed``, ``incomplete`` or ``failed``), identical whether or
    not it is streamed.
    """
    generation = generate(request, context, tools, make_id)
    model = request.model or MODEL_NAME
    snapshot = response_resource(
        request,
        response_id=response_id,
        created_at=created_at,
        model=model,
        tools=tools,
        status="in_progress",
        output=[],
        usage_=None,
    )
    final = response_resource(
        request,
        response_id=response_id,
        created_at=created_at,
        model=model,
        tools=tools,
        status=generation.status,
        output=generation.output,
        usage_=generation.usage,
        completed_at=completed_at if generation.status == "completed" else None,
        error=generation.error,
        incomplete_details=generation.incomplete_details,
    )
    return snapshot, final
