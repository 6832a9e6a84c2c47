"""The streaming events of a response: what turns its ``in_progress`` snapshot into its final state.

Pure. The event types are the streaming vocabulary's (:mod:`webapp.core.stream.vocabulary`), the one the stream
linter reads them with. One list of events serves both transports: SSE frames them (``webapp.core.responses.sse``,
then ``[DONE]``), WebSocket mode sends each as a JSON text message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webapp.core.items import FUNCTION_CALL, MESSAGE
from webapp.core.responses.resources import output_text_part
from webapp.core.responses.tokens import delta_chunks
from webapp.core.stream import vocabulary as v


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

    yield event(v.RESPONSE_CREATED, response=snapshot)
    yield event(v.RESPONSE_IN_PROGRESS, response=snapshot)
    for index, item in enumerate(final["output"]):
        if item["type"] == MESSAGE:
            yield event(v.OUTPUT_ITEM_ADDED, output_index=index, item={**item, "status": "in_progress", "content": []})
            for part_index, part in enumerate(item["content"]):
                where = {"item_id": item["id"], "output_index": index, "content_index": part_index}
                yield event(v.CONTENT_PART_ADDED, **where, part=output_text_part(""))
                for chunk in delta_chunks(part["text"]):
                    yield event(v.OUTPUT_TEXT_DELTA, **where, delta=chunk, logprobs=[])
                yield event(v.OUTPUT_TEXT_DONE, **where, text=part["text"], logprobs=[])
                yield event(v.CONTENT_PART_DONE, **where, part=part)
        elif item["type"] == FUNCTION_CALL:
            yield event(
                v.OUTPUT_ITEM_ADDED,
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for chunk in delta_chunks(item["arguments"]):
                yield event(v.FUNCTION_CALL_ARGUMENTS_DELTA, item_id=item["id"], output_index=index, delta=chunk)
            yield event(
                v.FUNCTION_CALL_ARGUMENTS_DONE,
                item_id=item["id"],
                output_index=index,
                arguments=item["arguments"],
            )
        yield event(v.OUTPUT_ITEM_DONE, output_index=index, item=item)
    if final["status"] == "failed":
        error = final.get("error") or {"code": "model_error", "message": "the model failed"}
        # The spec's ErrorStreamingEvent nests an ErrorPayload; the flat copies serve clients (the openai SDK's
        # ResponseErrorEvent) that read message/code/param at the top level.
        yield event(
            v.ERROR,
            error={"type": "model_error", "code": error["code"], "message": error["message"], "param": None},
            code=error["code"],
            message=error["message"],
            param=None,
        )
        yield event(v.RESPONSE_FAILED, response=final)
    elif final["status"] == "incomplete":
        yield event(v.RESPONSE_INCOMPLETE, response=final)
    else:
        yield event(v.RESPONSE_COMPLETED, response=final)
