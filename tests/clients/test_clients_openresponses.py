"""``/v1/responses`` driven by ``openresponses-py`` (the spec-strict client of the 2026-04-24 release, pinned in
pyproject's ``test`` extra), over real HTTP and WebSocket: every body and event is validated against its models of
that release (``ResponseResource``, ``CompactResource``, the streaming events, ``WebSocketErrorEvent``).
"""

from __future__ import annotations

from typing import Any

import pytest
from openresponses import OpenResponses
from support import TEST_TOKEN

MODEL = "openresponses-test"
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


@pytest.fixture
def client(live_server):
    with OpenResponses(base_url=live_server + "/v1", api_key=TEST_TOKEN, timeout=20) as client:
        yield client


def text_of(response) -> str:
    """The text of the response's single message."""
    [item] = response.output
    assert item.root.type == "message"
    return "".join(part.root.text for part in item.root.content)


def as_input(items) -> list[dict[str, Any]]:
    """Output items (the SDK's models) as input items, as a client sends them back."""
    return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]


def test_create_is_a_strict_response_resource(client):
    response = client.responses.create({"model": MODEL, "input": "Hello strict client"})
    assert type(response).__name__ == "ResponseResource"
    assert response.status == "completed"
    assert text_of(response) == 'You said: "Hello strict client"'


def test_stream_events_validate_and_end_on_one_terminal_event(client):
    with client.responses.create({"model": MODEL, "input": "Count from 1 to 3.", "stream": True}) as stream:
        events = list(stream)
        final = stream.final_response
    kinds = [event.type for event in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))
    deltas = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    assert deltas == text_of(final) == 'You said: "Count from 1 to 3."'


def test_function_call_then_its_output_with_previous_response_id(client):
    asked = client.responses.create({"model": MODEL, "input": "Weather in Paris?", "tools": [WEATHER]})
    [call] = asked.output
    assert (call.root.type, call.root.name, call.root.status.root) == ("function_call", "get_weather", "completed")
    answered = client.responses.create(
        {
            "model": MODEL,
            "previous_response_id": asked.id,
            "input": [{"type": "function_call_output", "call_id": call.root.call_id, "output": "sunny"}],
        }
    )
    assert text_of(answered) == f"Tool results: get_weather ({call.root.call_id}) returned: sunny."


def test_compact_then_a_new_chain_from_its_output(client):
    first = client.responses.create({"model": MODEL, "input": "Remember: the code word is kiwi."})
    compacted = client.responses.compact({"model": MODEL, "previous_response_id": first.id})
    assert type(compacted).__name__ == "CompactResource" and compacted.object == "response.compaction"
    [compaction] = [item.root for item in compacted.output if item.root.type == "compaction"]
    assert compaction.encrypted_content
    assert compacted.usage.total_tokens == compacted.usage.input_tokens + compacted.usage.output_tokens
    # A new chain: no previous_response_id, the compacted output as its base input.
    following = client.responses.create(
        {
            "model": MODEL,
            "input": [*as_input(compacted.output), {"type": "message", "role": "user", "content": "And now?"}],
        }
    )
    assert following.status == "completed" and following.previous_response_id is None
    assert text_of(following) == 'You said: "And now?"'


def test_websocket_turns_in_sequence_and_a_store_false_continuation(client):
    with client.websocket() as socket:
        first = socket.create({"model": MODEL, "input": "Count from 1 to 3.", "store": False})
        events = list(first)
        assert first.error is None and first.final_response.status == "completed"
        assert [event.sequence_number for event in events] == list(range(len(events)))
        assert text_of(first.final_response) == 'You said: "Count from 1 to 3."'
        # The same connection continues the unstored response from its own cache, with only the new input.
        second = socket.create({"model": MODEL, "previous_response_id": first.response_id, "input": "And now?"})
        list(second)
        assert second.error is None and second.final_response.status == "completed"
        assert second.final_response.previous_response_id == first.response_id
        assert text_of(second.final_response) == 'You said: "And now?"'


def test_websocket_unknown_previous_response_is_an_error_event(client):
    with client.websocket() as socket:
        turn = socket.create(
            {"model": MODEL, "previous_response_id": "resp_openresponses_missing_1", "input": "Hello?"}
        )
        assert list(turn) == []
        assert turn.error is not None and turn.final_response is None
        assert (turn.error.status, turn.error.error.code) == (400, "previous_response_not_found")
        # The connection stays usable after an error event.
        fresh = socket.create({"model": MODEL, "input": "Hello again"})
        list(fresh)
        assert fresh.final_response.status == "completed"
