"""WebSocket mode on ``/v1/responses`` (Open Responses 2026-04-24, ``x-openresponses-websocket``; spec notes §1.11)
over a real socket: the ``websockets`` client library, and the ``openai`` SDK's ``responses.connect()``.

The seven ``websocket-*`` tests of the compliance suite (spec notes §3.5) are here with upstream's request bodies;
every turn is checked by ``openapi_conformance.check_websocket_turn`` (event schemas, order, sequence numbers) and
every request body against ``WebSocketResponseCreateEvent``.
"""

from __future__ import annotations

import json
import time

import pytest
from support import TEST_TOKEN
from support.openapi_conformance import check_websocket_turn, schema_errors
from support.server import ServerThread
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from webapp import create_app
from webapp.core.responses.websocket import WS_CACHE_SIZE

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
MODEL = "openresponses-test"
TERMINAL = ("response.completed", "response.failed", "response.incomplete", "error")
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {"type": "object", "required": ["location"], "properties": {"location": {"type": "string"}}},
}


@pytest.fixture
def server(tmp_path):
    """Start the app (its own settings) on 127.0.0.1; returns its base URL. Stopped after the test."""
    started: list[ServerThread] = []

    def start(**settings) -> str:
        app = create_app(
            {
                "TESTING": True,
                "API_TOKEN": TEST_TOKEN,
                "RESPONSES_DATABASE": str(tmp_path / f"r{len(started)}.sqlite3"),
                **settings,
            }
        )
        thread = ServerThread(app)
        thread.start()
        started.append(thread)
        return thread.url

    yield start
    for thread in started:
        thread.stop()


@pytest.fixture
def url(server) -> str:
    return server()


def socket(base: str, headers: dict[str, str] | None = None):
    return connect(
        base.replace("http://", "ws://") + "/v1/responses",
        additional_headers=AUTH if headers is None else headers,
        open_timeout=10,
        close_timeout=5,
    )


def create(**body) -> dict:
    event = {"type": "response.create", "model": MODEL, **body}
    assert schema_errors(event, "WebSocketResponseCreateEvent") == []  # what we send is what the spec allows
    return event


def turn(ws, event: dict | str) -> list[str]:
    """Send one client event; the messages answered, up to the terminal event or the error event."""
    ws.send(event if isinstance(event, str) else json.dumps(event))
    messages = []
    while True:
        message = ws.recv(timeout=10)
        messages.append(message)
        if json.loads(message)["type"] in TERMINAL:
            return messages


def completed(messages: list[str]) -> dict:
    report = check_websocket_turn(messages)
    report.assert_ok()
    assert report.response["status"] == "completed"
    return report.response


def error(messages: list[str]) -> dict:
    assert len(messages) == 1
    event = json.loads(messages[0])
    assert schema_errors(event, "WebSocketErrorEvent") == []
    assert set(event) == {"type", "status", "error"} and set(event["error"]) == {"type", "code", "message", "param"}
    return event


def text_of(response: dict) -> str:
    return response["output"][0]["content"][0]["text"]


# ------------------------------------------------------------------------------------------------ the suite


def test_websocket_response(url):
    with socket(url) as ws:
        response = completed(
            turn(ws, create(input=[{"type": "message", "role": "user", "content": "Count from 1 to 3."}]))
        )
    assert text_of(response) == 'You said: "Count from 1 to 3."'


def test_websocket_sequential_responses(url):
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="Reply with exactly: first")))
        second = completed(turn(ws, create(store=False, input="Reply with exactly: second")))
    assert first["id"] != second["id"]
    assert text_of(first).endswith('"Reply with exactly: first"') and text_of(second).endswith('second"')


def test_websocket_continuation(url):
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="Remember the code word: cobalt. Reply with OK.")))
        second = completed(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=first["id"],
                    input="What is the code word? Reply with only the code word.",
                ),
            )
        )
    assert second["previous_response_id"] == first["id"] and second["store"] is False


def test_websocket_reconnect_store_false_recovery(url):
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="Remember the code word: copper. Reply with OK.")))
    with socket(url) as ws:
        missed = error(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=first["id"],
                    input="Try to continue after reconnect. Reply with exactly: reconnected",
                ),
            )
        )
        recovered = completed(
            turn(
                ws,
                create(
                    store=False,
                    input=[
                        {
                            "type": "message",
                            "role": "user",
                            "content": "The previous store:false chain could not continue after reconnect. Start a new "
                            "response and reply with exactly: recovered",
                        }
                    ],
                ),
            )
        )
    assert missed["status"] == 400 and missed["error"]["code"] == "previous_response_not_found"
    assert missed["error"]["param"] == "previous_response_id"
    assert recovered["previous_response_id"] is None


def test_websocket_previous_response_not_found(url):
    missing = f"resp_openresponses_missing_{int(time.time() * 1000)}"
    with socket(url) as ws:
        event = error(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=missing,
                    input="This should fail because the previous response is missing.",
                ),
            )
        )
    assert event["status"] == 400
    assert event["error"]["code"] == "previous_response_not_found" and event["error"]["type"] == "invalid_request_error"
    assert missing in event["error"]["message"]


def test_websocket_failed_continuation_evicts_cache(url):
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="Remember the code word: ember. Reply with OK.")))
        failed = error(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=first["id"],
                    input=[
                        {
                            "type": "function_call_output",
                            "call_id": "call_openresponses_missing",
                            "output": "No matching tool call exists in the previous response.",
                        }
                    ],
                ),
            )
        )
        retry = error(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=first["id"],
                    input="Try to continue after the failed turn. Reply with exactly: stale",
                ),
            )
        )
    assert failed["status"] == 400 and failed["error"]["code"] == "orphan_output"
    assert retry["error"]["code"] == "previous_response_not_found"


def test_websocket_compact_new_chain(url):
    import urllib.request

    compact_body = {
        "model": MODEL,
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Remember the compaction code word: slate."}],
            },
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "OK."}]},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Compress this conversation for later continuation."}],
            },
        ],
    }
    request = urllib.request.Request(
        url + "/v1/responses/compact",
        data=json.dumps(compact_body).encode(),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        output = json.loads(answer.read())["output"]
    with socket(url) as ws:
        # Upstream sends the compacted output as is, without validating it as input first.
        response = completed(
            turn(
                ws,
                {
                    "type": "response.create",
                    "model": MODEL,
                    "store": False,
                    "tools": [],
                    "input": [
                        *output,
                        {
                            "type": "message",
                            "role": "user",
                            "content": "Continue from here. Reply with exactly: compacted",
                        },
                    ],
                },
            )
        )
    assert response["previous_response_id"] is None
    assert text_of(response) == 'You said: "Continue from here. Reply with exactly: compacted"'


# ------------------------------------------------------------------------------------------------ more


def test_store_false_continuation_keeps_the_whole_context(url):
    # The cached turn holds its output: a tool result on the next turn pairs with the call made there.
    with socket(url) as ws:
        first = completed(
            turn(
                ws,
                create(
                    store=False,
                    input="Weather in Paris?",
                    tools=[WEATHER],
                    tool_choice={"type": "function", "name": "get_weather"},
                ),
            )
        )
        call = first["output"][0]
        second = completed(
            turn(
                ws,
                create(
                    store=False,
                    previous_response_id=first["id"],
                    input=[{"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}],
                ),
            )
        )
        third = completed(turn(ws, create(store=False, previous_response_id=second["id"], input="thanks")))
    assert text_of(second) == f"Tool results: get_weather ({call['call_id']}) returned: sunny."
    assert third["tools"] == first["tools"]  # inherited along the cached chain


def test_store_false_responses_are_not_stored(url):
    import urllib.error
    import urllib.request

    with socket(url) as ws:
        response = completed(turn(ws, create(store=False, input="hi")))
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(f"{url}/v1/responses/{response['id']}", headers=AUTH))
    assert err.value.code == 404


def test_store_true_continues_on_another_connection_and_over_http(url):
    import urllib.request

    with socket(url, {**AUTH, "X-Session-Key": "ws-session"}) as ws:
        first = completed(turn(ws, create(input="Remember: papaya.")))
    with socket(url) as ws:
        second = completed(turn(ws, create(previous_response_id=first["id"], input="What was it?")))
    with urllib.request.urlopen(urllib.request.Request(f"{url}/v1/responses/{second['id']}", headers=AUTH)) as r:
        assert json.loads(r.read())["previous_response_id"] == first["id"]
    with urllib.request.urlopen(urllib.request.Request(f"{url}/v1/sessions/ws-session/items", headers=AUTH)) as r:
        items = json.loads(r.read())["data"]
    assert {item["response_id"] for item in items} == {first["id"], second["id"]}  # the continuation stays in it


def test_a_stored_response_continuing_a_connection_only_one_can_be_continued(url):
    """``store: true`` after ``store: false`` on one connection: the stored response keeps what the unstored one stood
    for, so it is continued on another connection and over HTTP (200 of 200 such chains failed: the store walked to
    the unstored response and found nothing, while ``GET`` on the stored one answered 200)."""
    import urllib.request

    forced = {"tools": [WEATHER], "tool_choice": {"type": "function", "name": "get_weather"}}
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="Weather in Paris?", **forced)))
        second = completed(turn(ws, create(previous_response_id=first["id"], input="Hold on, running it.")))
    call = first["output"][0]
    answer = [{"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}]
    with socket(url) as ws:  # another connection: the first response is gone with the one that made it
        third = completed(turn(ws, create(previous_response_id=second["id"], input=answer)))
    body = json.dumps({"model": MODEL, "previous_response_id": second["id"], "input": answer}).encode()
    headers = {**AUTH, "Content-Type": "application/json"}
    with urllib.request.urlopen(urllib.request.Request(f"{url}/v1/responses", data=body, headers=headers)) as r:
        over_http = json.loads(r.read())
    # the output answers the call the unstored first response made: it is in the stored one's context
    for response in (third, over_http):
        assert response["previous_response_id"] == second["id"]
        assert text_of(response) == f"Tool results: get_weather ({call['call_id']}) returned: sunny."
    assert third["tools"] == first["tools"]  # inherited along the chain


def test_a_failed_response_evicts_its_previous_id(url):
    # A response the model fails (the test model cannot build a value for an unsatisfiable format) is a 5xx-like
    # continuation: its events end in error + response.failed, and the id it continued is evicted.
    impossible = {
        "format": {
            "type": "json_schema",
            "name": "never",
            "strict": True,
            "schema": {"type": "string", "minLength": 3, "maxLength": 1},
        }
    }
    with socket(url) as ws:
        first = completed(turn(ws, create(store=False, input="hi")))
        messages = turn(ws, create(store=False, previous_response_id=first["id"], input="again", text=impossible))
        kinds = [json.loads(m)["type"] for m in messages]
        assert kinds[-1] == "error"
        ws_messages = [messages[-1], ws.recv(timeout=10)]  # the error event, then response.failed
        assert json.loads(ws_messages[1])["type"] == "response.failed"
        retry = error(turn(ws, create(store=False, previous_response_id=first["id"], input="again")))
    assert retry["error"]["code"] == "previous_response_not_found"


def test_the_connection_cache_is_bounded(url):
    with socket(url) as ws:
        ids = [completed(turn(ws, create(store=False, input=f"turn {n}")))["id"] for n in range(WS_CACHE_SIZE + 1)]
        oldest = error(turn(ws, create(store=False, previous_response_id=ids[0], input="back to the start")))
        newest = completed(turn(ws, create(store=False, previous_response_id=ids[-1], input="go on")))
    assert oldest["error"]["code"] == "previous_response_not_found"
    assert newest["previous_response_id"] == ids[-1]


@pytest.mark.parametrize(
    ("message", "param", "code"),
    [
        ("not json", None, "invalid_json"),
        ('{"type": "response.create", "input": "a", "input": "b"}', None, "invalid_json"),  # I-JSON: one name once
        ("[1]", None, "invalid_type"),
        ('{"type": "response.cancel"}', "type", "invalid_value"),
        ('{"model": "m", "input": "hi"}', "type", "invalid_value"),
        ('{"type": "response.create", "input": "hi", "stream": true}', "stream", "unsupported_parameter"),
        ('{"type": "response.create", "input": "hi", "stream": false}', "stream", "unsupported_parameter"),
        (
            '{"type": "response.create", "input": "hi", "stream_options": null}',
            "stream_options",
            "unsupported_parameter",
        ),
        ('{"type": "response.create", "input": "hi", "background": false}', "background", "unsupported_parameter"),
        ('{"type": "response.create", "input": "hi", "messages": []}', "messages", "chat_completions_envelope"),
        ('{"type": "response.create"}', "input", "missing_required_parameter"),
        (
            '{"type": "response.create", "input": [{"type": "function_call", "call_id": "c", "name": "f", '
            '"arguments": "{}", "status": "in_progress"}]}',
            "input[0]",
            "status",
        ),
    ],
)
def test_bad_events_get_an_error_event_and_the_connection_lives_on(url, message, param, code):
    with socket(url) as ws:
        event = error(turn(ws, message))
        assert event["status"] == 400 and (event["error"]["param"], event["error"]["code"]) == (param, code)
        completed(turn(ws, create(input="still here?")))


def test_a_binary_message_is_read_as_utf8_json(url):
    with socket(url) as ws:
        ws.send(json.dumps(create(input="bytes")).encode())
        messages = []
        while not messages or json.loads(messages[-1])["type"] not in TERMINAL:
            messages.append(ws.recv(timeout=10))
    assert text_of(completed(messages)) == 'You said: "bytes"'


@pytest.mark.parametrize(("headers", "status"), [({}, 401), ({"Authorization": "Bearer wrong"}, 401)])
def test_the_handshake_needs_the_token(url, headers, status):
    with pytest.raises(InvalidStatus) as err:
        with socket(url, headers):
            pass
    assert err.value.response.status_code == status
    assert json.loads(err.value.response.body)["error"]["code"] in ("missing_api_key", "invalid_api_key")


def test_disabled_endpoint_refuses_the_handshake(server):
    with pytest.raises(InvalidStatus) as err:
        with socket(server(RESPONSES_ENABLED=False)):
            pass
    assert err.value.response.status_code == 404


def test_the_connection_limit(server):
    base = server(RESPONSES_WEBSOCKET_SECONDS=1)
    with socket(base) as ws:
        completed(turn(ws, create(input="quick")))
        event = error([ws.recv(timeout=10)])
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
    assert event["status"] == 400
    assert event["error"]["code"] == "websocket_connection_limit_reached"
    assert event["error"]["type"] == "invalid_request_error"


def test_a_message_over_the_size_cap_closes_the_connection(server):
    base = server(MAX_CONTENT_LENGTH=4096, SOCK_SERVER_OPTIONS={"max_message_size": 4096})
    with socket(base) as ws:
        ws.send(json.dumps(create(input="x" * 8000)))
        # The server answers with a close frame, never with events. (Under the dev server the TCP connection
        # may linger after it, so the client may still be waiting for the close to finish when recv gives up.)
        with pytest.raises((ConnectionClosed, TimeoutError)):
            ws.recv(timeout=3)
        assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1009  # RFC 6455: too big


# ------------------------------------------------------------------------------------------------ openai SDK


# The SDK opens its socket with websockets' connect() outside a with block, which websockets 17.1+ deprecates.
@pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager:DeprecationWarning")
def test_openai_sdk_connect(url):
    from openai import OpenAI

    client = OpenAI(base_url=url + "/v1", api_key=TEST_TOKEN, max_retries=0)
    with client.responses.connect(max_retries=0) as connection:
        connection.response.create(model=MODEL, input="Count from 1 to 3.", store=False)
        events = []
        for event in connection:
            events.append(event)
            if event.type in TERMINAL:
                break
        assert [e.sequence_number for e in events] == list(range(len(events)))
        first = events[-1].response
        assert events[-1].type == "response.completed" and first.output_text == 'You said: "Count from 1 to 3."'

        connection.response.create(model=MODEL, input="And then?", store=False, previous_response_id=first.id)
        for event in connection:
            if event.type in TERMINAL:
                break
        assert event.type == "response.completed" and event.response.previous_response_id == first.id

        connection.response.create(model=MODEL, input="x", previous_response_id="resp_gone")
        for event in connection:
            if event.type in TERMINAL:
                break
        assert type(event).__name__ == "ResponseWsError"
        assert (event.status, event.error.code, event.error.type) == (
            400,
            "previous_response_not_found",
            "invalid_request_error",
        )
