"""The streaming events of a response: what turns its ``in_progress`` snapshot into its final state.

Pure. One list of events serves both transports: SSE frames them (``webapp.core.responses.sse``, then ``[DONE]``),
WebSocket mode sends each as a JSON text message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webapp.core.responses.resources import output_text_part
from webapp.core.responses.tokens import delta_chunks


def stream_events(snapshot: dict[str, Any], final: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The streaming events that turn ``snapshot`` into ``final`` (Open Responses spec, Streaming; spec notes
    §2.3-2.5), with ``sequence_number`` counting from 0.

    Text: ``output_item.added``, ``content_part.added``, ``output_text.delta`` (one per ``tokens.DELTA_TOKENS``
    tokens), ``output_text.done``, ``content_part.done``, ``output_item.done``. Function call:
    ``output_item.added``, ``function_call_arguments.delta`` (likewise), ``.done``, ``output_item.done``. Around them
    ``response.created`` and ``response.in_progress`` first, exactly one terminal event last:
    ``response.completed``, ``response.incomplete``, or ``error`` then ``response.failed``. The SSE ``[DONE]``
    line is the transport's, not an event: see ``webapp.core.responses.sse.DONE``.
    """
    sequence = 0

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        nonlocal sequence
        payload = {"type": kind, "sequence_number": sequence, **fields}
        sequence += 1
        return payload

    yield event("response.created", response=snapshot)
    yield event("response.in_progress", response=snapshot)
    for index, item in enumerate(final["output"]):
        if item["type"] == "message":
            yield event(
                "response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []}
            )
            for part_index, part in enumerate(item["content"]):
                where = {"item_id": item["id"], "output_index": index, "content_index": part_index}
                yield event("response.content_part.added", **where, part=output_text_part(""))
                for chunk in delta_chunks(part["text"]):
                    yield event("response.output_text.delta", **where, delta=chunk, logprobs=[])
                yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
                yield event("response.content_part.done", **where, part=part)
        elif item["type"] == "function_call":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for chunk in delta_chunks(item["arguments"]):
                yield event(
                    "response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=chunk
                )
            yield event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                arguments=item["arguments"],
            )
        yield event("response.output_item.done", output_index=index, item=item)
    if final["status"] == "failed":
        error = final.get("error") or {"code": "model_error", "message": "the model failed"}
        # The spec's ErrorStreamingEvent nests an ErrorPayload; the flat copies serve clients (the openai SDK's
        # ResponseErrorEvent) that read message/code/param at the top level.
        yield event(
            "error",
            error={"type": "model_error", "code": error["code"], "message": error["message"], "param": None},
            code=error["code"],
            message=error["message"],
            param=None,
        )
        yield event("response.failed", response=final)
    elif final["status"] == "incomplete":
        yield event("response.incomplete", response=final)
    else:
        yield event("response.completed", response=final)
