"""The conformance cases as one table (:data:`CASES`): the official compliance suite's 17 and this app's extra
ones, each a function of a :class:`~.checks.CaseRun`.

The official 17 are exactly the tests of :data:`SUITE` (``openresponses/openresponses``,
``src/lib/compliance-tests.ts`` at the 2026-04-24 release, https://github.com/openresponses/openresponses), in its
order, with its ids, request bodies and validators. The extra ones (:data:`EXTRA`) are this app's own: the four
variants proposed upstream and never merged (``tool-calling-streaming``, ``file-input``,
``function-call-roundtrip``, ``previous-response-id``; spec notes §3) and ``stream-incomplete``. They are never
counted as the suite's.

Every case also gets the checks the suite skips (``Content-Type``, every stream rule of the linter, the replay
gate on each call: :mod:`webapp.core.conformance.checks`). :func:`run_case` runs one through a transport and never
raises: what went wrong is in its :class:`~.checks.CaseResult`.
"""

from __future__ import annotations

import base64
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.core.conformance.checks import SUITE, CaseResult, CaseRun, Stop
from webapp.core.conformance.transport import Transport, TransportError
from webapp.core.items import FUNCTION_CALL, FUNCTION_CALL_OUTPUT
from webapp.core.json import quote
from webapp.core.stream import vocabulary as v

__all__ = ["Case", "CASES", "CASE_IDS", "OFFICIAL", "EXTRA", "SUITE", "run_case"]

#: The suite's shared tool definition (spec notes §3.3, "G").
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}},
        "required": ["location"],
    },
}


def _user(content: Any) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": content}


def png_bytes(width: int = 32, height: int = 32, rgb: tuple[int, int, int] = (220, 20, 60)) -> bytes:
    """A solid red PNG (the suite sends a 32×32 red heart; only its being an image matters)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def pdf_bytes(text: str = "Title: OpenResponses File Input Fixture") -> bytes:
    """A one-page PDF showing ``text`` (the suite's file-input fixture says the same)."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


def data_url(media_type: str, data: bytes) -> str:
    """``data`` as a base64 ``data:`` URL of ``media_type`` (RFC 2397), as the suite's input_image/input_file send."""
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


# ------------------------------------------------------------------------------------------ single requests


def basic_response(run: CaseRun) -> None:
    body = run.respond("/responses", {"input": [_user("Say hello in exactly 3 words.")]})
    run.has_output(body)
    run.completed(body)


def assistant_phase(run: CaseRun) -> None:
    history = [
        {
            "type": "message",
            "role": "assistant",
            "phase": "commentary",
            "content": "I should answer with the saved number.",
        },
        {"type": "message", "role": "assistant", "phase": "final_answer", "content": "The number is four."},
        _user("Repeat only the number."),
    ]
    body = run.respond("/responses", {"input": history})
    run.has_output(body)
    run.completed(body)


def phase_fixture(model: str) -> dict[str, Any]:
    """The suite's local ``ResponseResource`` with two assistant messages labelled ``commentary`` and
    ``final_answer`` (``response-output-phase-schema``'s ``getMockResponse``)."""

    def message(item_id: str, phase: str, text: str) -> dict[str, Any]:
        part = {"type": "output_text", "text": text, "annotations": []}
        return {"id": item_id, "type": "message", "status": "completed", "role": "assistant", "phase": phase,
                "content": [part]}  # fmt: skip

    return {
        "id": "resp_phase_schema",
        "object": "response",
        "created_at": 1764967971,
        "completed_at": 1764967972,
        "status": "completed",
        "incomplete_details": None,
        "model": model,
        "previous_response_id": None,
        "instructions": None,
        "output": [
            message("msg_phase_commentary", "commentary", "I am checking the answer."),
            message("msg_phase_final", "final_answer", "The answer is four."),
        ],
        "error": None,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": True,
        "text": {"format": {"type": "text"}},
        "top_p": 1,
        "presence_penalty": 0,
        "frequency_penalty": 0,
        "top_logprobs": 0,
        "temperature": 1,
        "reasoning": {"effort": None, "summary": None},
        "usage": {
            "input_tokens": 1,
            "output_tokens": 2,
            "total_tokens": 3,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": True,
        "background": False,
        "service_tier": "default",
        "metadata": {},
        "safety_identifier": None,
        "prompt_cache_key": None,
    }


def response_output_phase_schema(run: CaseRun) -> None:
    # The suite's local fixture: no request is sent; it checks the schema this check judges by.
    body = run.fixture(phase_fixture(run.model))
    run.has_output(body)
    run.completed(body)
    run.has_phase(body, "commentary")
    run.has_phase(body, "final_answer")


def streaming_response(run: CaseRun) -> None:
    final = run.stream("/responses", {"input": [_user("Count from 1 to 5.")]})
    run.completed(final)


def system_prompt(run: CaseRun) -> None:
    system = {"type": "message", "role": "system", "content": "You are a pirate. Always respond in pirate speak."}
    body = run.respond("/responses", {"input": [system, _user("Say hello.")]})
    run.has_output(body)
    run.completed(body)


def tool_calling(run: CaseRun) -> None:
    body = run.respond(
        "/responses", {"input": [_user("What's the weather like in San Francisco?")], "tools": [WEATHER_TOOL]}
    )
    run.has_output(body)
    run.has_type(body, FUNCTION_CALL)
    run.gate(body, [WEATHER_TOOL])


def tool_calling_streaming(run: CaseRun) -> None:
    final = run.stream(
        "/responses", {"input": [_user("What's the weather like in San Francisco?")], "tools": [WEATHER_TOOL]}
    )
    report = run.result.exchanges[-1].stream
    events = [f.value for f in report.frames if f.parsed] if report is not None else []

    def seen(kind: str, item_type: str | None = None) -> bool:
        return any(
            e.get("type") == kind
            and (item_type is None or (isinstance(e.get("item"), dict) and e["item"].get("type") == item_type))
            for e in events
        )

    for kind, item_type in (
        (v.OUTPUT_ITEM_ADDED, FUNCTION_CALL),
        (v.FUNCTION_CALL_ARGUMENTS_DELTA, None),
        (v.FUNCTION_CALL_ARGUMENTS_DONE, None),
        (v.OUTPUT_ITEM_DONE, FUNCTION_CALL),
    ):
        name = kind.removeprefix("response.") + (f" ({item_type})" if item_type else "")
        run.check(name, seen(kind, item_type), "" if seen(kind, item_type) else "no such event came")
    run.has_type(final, FUNCTION_CALL)


def image_input(run: CaseRun) -> None:
    content = [
        {"type": "input_text", "text": "What do you see in this image? Answer in one sentence."},
        {"type": "input_image", "image_url": data_url("image/png", png_bytes())},
    ]
    body = run.respond("/responses", {"input": [_user(content)]})
    run.has_output(body)
    run.completed(body)


def file_input(run: CaseRun) -> None:
    content = [
        {"type": "input_text", "text": "Read the attached file and answer with its title only."},
        {
            "type": "input_file",
            "filename": "openresponses-fixture.pdf",
            "file_data": data_url("application/pdf", pdf_bytes()),
        },
    ]
    body = run.respond("/responses", {"input": [_user(content)]})
    run.has_output(body)
    run.completed(body)


def multi_turn(run: CaseRun) -> None:
    assistant = {
        "type": "message",
        "role": "assistant",
        "content": "Hello Alice! Nice to meet you. How can I help you today?",
    }
    body = run.respond("/responses", {"input": [_user("My name is Alice."), assistant, _user("What is my name?")]})
    run.has_output(body)
    run.completed(body)


def compact_response(run: CaseRun) -> None:
    history = [
        _user("We agreed to launch on Tuesday and notify support first."),
        {
            "type": "message",
            "role": "assistant",
            "content": "Understood. The launch is Tuesday, with support notified beforehand.",
        },
    ]
    body = run.respond(
        "/responses/compact",
        {"prompt_cache_key": "openresponses-compact-test", "input": history},
        schema="compact",
        label="POST /responses/compact",
    )
    run.has_output(body)
    run.check("compactObject", body.get("object") == "response.compaction", f"object is {quote(body.get('object'))}")
    run.has_type(body, "compaction")


def compact_missing_model(run: CaseRun) -> None:
    run.refused(
        "/responses/compact",
        {"input": [_user("Compact this conversation.")]},
        (400, 422),
        label="POST /responses/compact (no model)",
    )


# ------------------------------------------------------------------------------------------ two requests


def function_call_roundtrip(run: CaseRun) -> None:
    first = run.respond(
        "/responses",
        {
            "input": "Use the weather tool to get the temperature in San Francisco.",
            "tools": [WEATHER_TOOL],
            "tool_choice": {"type": "function", "name": "get_weather"},
        },
        label="POST /responses (1: the call)",
    )
    call = run.has_type(first, FUNCTION_CALL, " (1)")
    run.gate(first, [WEATHER_TOOL])
    run.require(
        "a function_call with call_id",
        isinstance(call, dict) and isinstance(call.get("call_id"), str),
        "First response did not include a function_call with call_id",
    )
    assert call is not None
    second = run.respond(
        "/responses",
        {
            "previous_response_id": first.get("id"),
            "input": [{"type": FUNCTION_CALL_OUTPUT, "call_id": call["call_id"], "output": "64 degrees and clear"}],
        },
        label="POST /responses (2: its output; tools not sent again)",
    )
    run.has_output(second, " (2)")
    run.completed(second, " (2)")


def previous_response_id(run: CaseRun) -> None:
    first = run.respond(
        "/responses", {"input": "Remember this code word: papaya. Reply with only OK."}, label="POST /responses (1)"
    )
    second = run.respond(
        "/responses",
        {"previous_response_id": first.get("id"), "input": "What code word did I ask you to remember?"},
        label="POST /responses (2: previous_response_id)",
    )
    run.has_output(second, " (2)")
    run.completed(second, " (2)")


# ------------------------------------------------------------------------------------------ WebSocket mode


def websocket_response(run: CaseRun) -> None:
    socket = run.connect()
    run.completed_turn(socket, {"input": [_user("Count from 1 to 3.")]})


def websocket_sequential_responses(run: CaseRun) -> None:
    socket = run.connect()
    first = run.completed_turn(socket, {"store": False, "input": "Reply with exactly: first"}, " (1)")
    second = run.completed_turn(socket, {"store": False, "input": "Reply with exactly: second"}, " (2)")
    run.check("two responses, in order", first.get("id") != second.get("id"), "both turns answered one response id")


def websocket_continuation(run: CaseRun) -> None:
    socket = run.connect()
    first = run.completed_turn(
        socket, {"store": False, "input": "Remember the code word: cobalt. Reply with OK."}, " (1)"
    )
    run.completed_turn(
        socket,
        {
            "store": False,
            "previous_response_id": first.get("id"),
            "input": "What is the code word? Reply with only the code word.",
        },
        " (2: previous_response_id, same socket)",
    )


def websocket_reconnect_store_false_recovery(run: CaseRun) -> None:
    first = run.completed_turn(
        run.connect(), {"store": False, "input": "Remember the code word: copper. Reply with OK."}, " (1)"
    )
    socket = run.connect()
    run.refused_turn(
        socket,
        {
            "store": False,
            "previous_response_id": first.get("id"),
            "input": "Try to continue after reconnect. Reply with exactly: reconnected",
        },
        "previous_response_not_found",
        " (2: after reconnecting)",
    )
    run.completed_turn(
        socket,
        {
            "store": False,
            "input": [
                _user(
                    "The previous store:false chain could not continue after reconnect. Start a new response and "
                    "reply with exactly: recovered"
                )
            ],
        },
        " (3: a new chain)",
    )


def websocket_previous_response_not_found(run: CaseRun) -> None:
    missing = f"resp_openresponses_missing_{int(time.time() * 1000)}"
    run.refused_turn(
        run.connect(),
        {
            "store": False,
            "previous_response_id": missing,
            "input": "This should fail because the previous response is missing.",
        },
        "previous_response_not_found",
    )


def websocket_failed_continuation_evicts_cache(run: CaseRun) -> None:
    socket = run.connect()
    first = run.completed_turn(
        socket, {"store": False, "input": "Remember the code word: ember. Reply with OK."}, " (1)"
    )
    run.refused_turn(
        socket,
        {
            "store": False,
            "previous_response_id": first.get("id"),
            "input": [
                {
                    "type": FUNCTION_CALL_OUTPUT,
                    "call_id": "call_openresponses_missing",
                    "output": "No matching tool call exists in the previous response.",
                }
            ],
        },
        None,
        " (2: an output for no call)",
    )
    run.refused_turn(
        socket,
        {
            "store": False,
            "previous_response_id": first.get("id"),
            "input": "Try to continue after the failed turn. Reply with exactly: stale",
        },
        "previous_response_not_found",
        " (3: the failed turn evicted it)",
    )


def websocket_compact_new_chain(run: CaseRun) -> None:
    compacted = run.respond(
        "/responses/compact",
        {
            "input": [
                _user([{"type": "input_text", "text": "Remember the compaction code word: slate."}]),
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "OK."}]},
                _user([{"type": "input_text", "text": "Compress this conversation for later continuation."}]),
            ]
        },
        schema="compact",
        label="POST /responses/compact",
    )
    output = compacted["output"] if isinstance(compacted.get("output"), list) else []
    run.require("compacted output", bool(output), "the compaction answered no output items")
    run.completed_turn(
        run.connect(),
        {
            "store": False,
            "tools": [],
            "input": [
                *output,
                {"type": "message", "role": "user", "content": "Continue from here. Reply with exactly: compacted"},
            ],
        },
        " (a new chain from the compacted output)",
    )


# ------------------------------------------------------------------------------------------ this app's extras


def stream_incomplete(run: CaseRun) -> None:
    """A reply cut by ``max_output_tokens``, streamed: the cut item is incomplete and last, the response says so."""
    words = " ".join(f"word{n}" for n in range(400))
    final = run.stream("/responses", {"input": f"Repeat after me: {words}", "max_output_tokens": 16})
    output = final.get("output") if isinstance(final.get("output"), list) else []
    run.check(
        "status incomplete", final.get("status") == "incomplete", f"status is {final.get('status')!r}", suite=False
    )
    last = output[-1] if output and isinstance(output[-1], dict) else {}
    run.check(
        "the last item is incomplete", last.get("status") == "incomplete", f"it is {last.get('status')!r}", suite=False
    )


@dataclass(frozen=True)
class Case:
    """One case: its ``id`` (upstream's for the official ones), a ``title``, whether it is ``official`` (one of the
    17 tests of :data:`SUITE`), whether it needs WebSocket mode, and the function that runs it."""

    id: str
    title: str
    official: bool
    websocket: bool
    run: Callable[[CaseRun], None]


CASES: tuple[Case, ...] = (
    # The official suite's 17, in its order (SUITE).
    Case("basic-response", "a plain request, answered completed with output", True, False, basic_response),
    Case("assistant-phase", "assistant history labelled commentary and final_answer", True, False, assistant_phase),
    Case(
        "response-output-phase-schema",
        "the suite's local response with phase labels fits the schema (no request)",
        True,
        False,
        response_output_phase_schema,
    ),
    Case("streaming-response", "the same, streamed: every event valid, completed", True, False, streaming_response),
    Case("websocket-response", "WebSocket mode: one response.create, completed", True, True, websocket_response),
    Case(
        "websocket-sequential-responses",
        "two turns on one socket, in order",
        True,
        True,
        websocket_sequential_responses,
    ),
    Case(
        "websocket-continuation", "a store:false turn continued on the same socket", True, True, websocket_continuation
    ),
    Case(
        "websocket-reconnect-store-false-recovery",
        "a store:false id is gone after reconnecting; a new chain works",
        True,
        True,
        websocket_reconnect_store_false_recovery,
    ),
    Case(
        "websocket-previous-response-not-found",
        "an unknown previous_response_id: previous_response_not_found",
        True,
        True,
        websocket_previous_response_not_found,
    ),
    Case(
        "websocket-failed-continuation-evicts-cache",
        "an orphan output fails and evicts the id",
        True,
        True,
        websocket_failed_continuation_evicts_cache,
    ),
    Case(
        "websocket-compact-new-chain",
        "/responses/compact, then a new chain from its output",
        True,
        True,
        websocket_compact_new_chain,
    ),
    Case("system-prompt", "a system message before the user's", True, False, system_prompt),
    Case("tool-calling", "a tool offered: a function_call comes back", True, False, tool_calling),
    Case("image-input", "an input_image (a PNG data URL)", True, False, image_input),
    Case("multi-turn", "an earlier assistant message given as a string", True, False, multi_turn),
    Case("compact-response", "/responses/compact answers a compaction item", True, False, compact_response),
    Case(
        "compact-missing-model", "/responses/compact without model: HTTP 400 or 422", True, False, compact_missing_model
    ),
    # This app's extra cases: proposed upstream and never merged, or this app's own.
    Case("tool-calling-streaming", "tool-calling, streamed: the call's events", False, False, tool_calling_streaming),
    Case("file-input", "an input_file (a PDF data URL)", False, False, file_input),
    Case(
        "function-call-roundtrip",
        "a forced call, then its output by previous_response_id",
        False,
        False,
        function_call_roundtrip,
    ),
    Case(
        "previous-response-id",
        "a second turn continuing the first (store not sent)",
        False,
        False,
        previous_response_id,
    ),
    Case(
        "stream-incomplete",
        "a streamed reply cut by max_output_tokens: incomplete item last",
        False,
        False,
        stream_incomplete,
    ),
)
#: Case id -> case.
CASE_IDS: dict[str, Case] = {case.id: case for case in CASES}
#: The ids of the official suite's 17, in its order.
OFFICIAL: tuple[str, ...] = tuple(case.id for case in CASES if case.official)
#: The ids of this app's extra cases (never counted as the suite's).
EXTRA: tuple[str, ...] = tuple(case.id for case in CASES if not case.official)


def run_case(case: Case, transport: Transport, model: str) -> CaseResult:
    """Run ``case`` through ``transport``; never raises (a transport error or a failed check the rest depends on
    ends the case, and its result says which)."""
    result = CaseResult(case.id, case.title, case.official)
    run = CaseRun(transport, model, result)
    started = time.monotonic()
    try:
        case.run(run)
    except Stop as stop:
        result.error = str(stop)
    except TransportError as err:
        result.error = err.message
    except Exception as exc:  # noqa: BLE001 - one odd answer must not end the other cases (or be a 500 on the page)
        result.error = f"the check itself failed on this server's answers ({type(exc).__name__}: {exc})"
    finally:
        run.close()
        result.seconds = time.monotonic() - started
    return result
