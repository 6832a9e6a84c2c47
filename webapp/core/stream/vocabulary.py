"""The streaming vocabulary, written once: the event types of an Open Responses stream and what each one says.

The built-in endpoint's stream (``webapp.core.responses.events.stream_events``) is written with these names and the
linter reads streams with them, so the first stream the linter must pass clean is spelled by the same table.
Sources: Open Responses spec, Streaming (the 24 ``*StreamingEvent`` schemas of the vendored OpenAPI document,
``tests/data/openresponses-openapi.json``; spec notes §2.1); WebSocket mode (``WebSocketResponseCreateEvent``,
``WebSocketErrorEvent``); the ``[DONE]`` frame is the SSE transport's (``webapp.core.responses.sse.DONE_DATA``).
"""

from __future__ import annotations

# The response's life: a snapshot of the whole response in each.
RESPONSE_CREATED = "response.created"
RESPONSE_QUEUED = "response.queued"
RESPONSE_IN_PROGRESS = "response.in_progress"
RESPONSE_COMPLETED = "response.completed"
RESPONSE_FAILED = "response.failed"
RESPONSE_INCOMPLETE = "response.incomplete"

# One output item's life.
OUTPUT_ITEM_ADDED = "response.output_item.added"
OUTPUT_ITEM_DONE = "response.output_item.done"

# Content parts of a message (or reasoning) item, and the text streamed into them.
CONTENT_PART_ADDED = "response.content_part.added"
CONTENT_PART_DONE = "response.content_part.done"
OUTPUT_TEXT_DELTA = "response.output_text.delta"
OUTPUT_TEXT_DONE = "response.output_text.done"
OUTPUT_TEXT_ANNOTATION_ADDED = "response.output_text.annotation.added"
REFUSAL_DELTA = "response.refusal.delta"
REFUSAL_DONE = "response.refusal.done"
REASONING_DELTA = "response.reasoning.delta"
REASONING_DONE = "response.reasoning.done"

# A reasoning item's summary parts (indexed by summary_index, not content_index).
REASONING_SUMMARY_PART_ADDED = "response.reasoning_summary_part.added"
REASONING_SUMMARY_PART_DONE = "response.reasoning_summary_part.done"
REASONING_SUMMARY_TEXT_DELTA = "response.reasoning_summary_text.delta"
REASONING_SUMMARY_TEXT_DONE = "response.reasoning_summary_text.done"

# A function call's arguments (no content part, no content_index).
FUNCTION_CALL_ARGUMENTS_DELTA = "response.function_call_arguments.delta"
FUNCTION_CALL_ARGUMENTS_DONE = "response.function_call_arguments.done"

#: The error event of a stream (``ErrorStreamingEvent``); "any error incurred while streaming will be followed by
#: a response.failed event". On a WebSocket the same type also names a request's refusal (``WebSocketErrorEvent``,
#: with an HTTP-like ``status`` and no ``sequence_number``).
ERROR = "error"

#: What a WebSocket client sends to start a turn.
RESPONSE_CREATE = "response.create"

#: Terminal event -> the response status it carries (exactly one of them ends a stream).
TERMINAL_EVENTS: dict[str, str] = {
    RESPONSE_COMPLETED: "completed",
    RESPONSE_FAILED: "failed",
    RESPONSE_INCOMPLETE: "incomplete",
}
#: The events that carry a response snapshot before the end.
LIFECYCLE_EVENTS = (RESPONSE_CREATED, RESPONSE_QUEUED, RESPONSE_IN_PROGRESS)
#: Every event that carries a whole response (``response``).
RESPONSE_EVENTS = LIFECYCLE_EVENTS + tuple(TERMINAL_EVENTS)

#: Text streamed into a content part: delta event -> (its done event, the done event's member holding the text).
PART_TEXT_EVENTS: dict[str, tuple[str, str]] = {
    OUTPUT_TEXT_DELTA: (OUTPUT_TEXT_DONE, "text"),
    REFUSAL_DELTA: (REFUSAL_DONE, "refusal"),
    REASONING_DELTA: (REASONING_DONE, "text"),
}
#: Text streamed into a reasoning summary part.
SUMMARY_TEXT_EVENTS: dict[str, tuple[str, str]] = {
    REASONING_SUMMARY_TEXT_DELTA: (REASONING_SUMMARY_TEXT_DONE, "text"),
}
#: A finished content part's type -> the member holding the text its deltas built.
PART_TEXT_FIELD: dict[str, str] = {
    "output_text": "text",
    "refusal": "refusal",
    "reasoning_text": "text",
    "summary_text": "text",
}

#: Item statuses that end an item (Open Responses spec, Items: state machine).
FINISHED_STATUSES = ("completed", "incomplete")

#: The one status of a response cut short (the last item is then ``incomplete``).
INCOMPLETE = "incomplete"
