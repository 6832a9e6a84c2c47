"""The stream step's domain: lint a recorded Open Responses stream (SSE as ``curl -N`` prints it, a HAR file, JSON
Lines of events, a WebSocket message log), event by event, against the spec and what its official suite skips.

One idea per module:

``vocabulary``  the event types and what each says (written once: the endpoint streams with these names);
``recording``   a recording read into its streams and frames, each frame with its place (:func:`read_recording`);
``schemas``     the event schemas bundled from the OpenAPI document, validated with :mod:`webapp.core.schema`;
``rules``       the rules as one ordered table (:data:`RULES`) and each broken one as data (:class:`Finding`);
``built``       the items a stream builds (as a client holds them) and the final response against them;
``machine``     the sequence rules: response, item and part state machines, feeding the built items;
``calls``       the replay gate on every finished function_call (:func:`gate_call`);
``lint``        all of it in one pass: :func:`lint`, :func:`lint_text` -> :class:`StreamReport`.

Everything public is re-exported here: ``from webapp.core.stream import lint_text``.
"""

from webapp.core.stream.built import first_difference
from webapp.core.stream.calls import CallVerdict, gate_call
from webapp.core.stream.lint import StreamReport, StreamResult, lint, lint_text
from webapp.core.stream.machine import looks_like_tool_call
from webapp.core.stream.recording import (
    KINDS,
    Frame,
    Recording,
    RecordingError,
    Stream,
    detect,
    read_recording,
    websocket_turn,
)
from webapp.core.stream.rules import GROUPS, RULE, RULES, SEVERITIES, Finding, Rule
from webapp.core.stream.schemas import (
    BODY_SCHEMAS,
    EVENT_SCHEMAS,
    SPEC_VERSION,
    WEBSOCKET_SCHEMAS,
    schema_for,
    violations,
)

__all__ = [
    "BODY_SCHEMAS",
    "EVENT_SCHEMAS",
    "GROUPS",
    "KINDS",
    "RULE",
    "RULES",
    "SEVERITIES",
    "SPEC_VERSION",
    "WEBSOCKET_SCHEMAS",
    "CallVerdict",
    "Finding",
    "Frame",
    "Recording",
    "RecordingError",
    "Rule",
    "Stream",
    "StreamReport",
    "StreamResult",
    "detect",
    "first_difference",
    "gate_call",
    "lint",
    "lint_text",
    "looks_like_tool_call",
    "read_recording",
    "schema_for",
    "violations",
    "websocket_turn",
]
