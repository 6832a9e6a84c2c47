"""``webapp.core.responses.sse``: encoder/decoder round trips and the WHATWG parsing rules (examples from the HTML
spec)."""

from __future__ import annotations

import json

import pytest

from webapp.core.responses import sse
from webapp.core.responses.sse import DONE, Decoder, ServerSentEvent, decode, encode, encode_json, iter_decode


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # WHATWG HTML §9.2.4 examples: data lines join with LF; comments ignored.
        ("data: YHOO\ndata: +2\ndata: 10\n\n", [ServerSentEvent("YHOO\n+2\n10")]),
        (
            ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
            [
                ServerSentEvent("first event", id="1"),
                ServerSentEvent("second event", id=""),
                ServerSentEvent(" third event", id=""),
            ],
        ),
        # "data" with no colon is an empty data field; two of them make one LF.
        ("data\n\ndata\ndata\n\ndata:\n", [ServerSentEvent(""), ServerSentEvent("\n")]),
        # One space after the colon is removed, no more.
        ("data:test\n\ndata: test\n\n", [ServerSentEvent("test"), ServerSentEvent("test")]),
        # CR and CRLF end lines too.
        ("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r", [ServerSentEvent("1", "a"), ServerSentEvent("2", "b")]),
        # An event with no data field is not dispatched, and its event name does not leak into the next one.
        ("event: ping\n\ndata: x\n\n", [ServerSentEvent("x")]),
        # retry only when all digits; unknown fields ignored; id with NUL ignored.
        (
            "retry: 1500\nfoo: bar\ndata: a\n\nretry: 1x\nid: a\0b\ndata: b\n\n",
            [ServerSentEvent("a", retry=1500), ServerSentEvent("b")],
        ),
        # A leading BOM is dropped.
        ("\ufeffdata: bom\n\n", [ServerSentEvent("bom")]),
    ],
)
def test_decode_follows_whatwg(body, expected):
    assert decode(body) == expected


def test_last_event_id_persists_across_events():
    events = decode("id: 7\ndata: a\n\ndata: b\n\n")
    assert [e.id for e in events] == ["7", "7"]


def test_unterminated_event_is_dropped_unless_asked():
    assert decode("data: a\n\ndata: tail") == [ServerSentEvent("a")]
    assert decode("data: a\n\ndata: tail", dispatch_pending=True) == [ServerSentEvent("a"), ServerSentEvent("tail")]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_chunked_feed_equals_whole_body(size):
    body = "event: x\r\ndata: héllo\r\ndata: wörld\r\n\r\n: c\r\ndata: [DONE]\r\n\r\n"
    decoder = Decoder()
    events = []
    for i in range(0, len(body), size):
        events += decoder.feed(body[i : i + size])
    events += decoder.close()
    assert events == decode(body) == [ServerSentEvent("héllo\nwörld", "x"), ServerSentEvent("[DONE]")]


def test_iter_decode_handles_utf8_split_inside_a_character():
    raw = "data: ☃ snow\n\n".encode()
    chunks = [raw[i : i + 1] for i in range(len(raw))]
    assert list(iter_decode(chunks)) == [ServerSentEvent("☃ snow")]


@pytest.mark.parametrize(
    "event",
    [
        ServerSentEvent("plain"),
        ServerSentEvent("two\nlines", "message"),
        ServerSentEvent("crlf\r\ninside\rtoo", "x"),  # normalised to LF, as the client would see it
        ServerSentEvent("", "empty"),
        ServerSentEvent("with id", "e", id="42", retry=3000),
        ServerSentEvent(" leading space"),
    ],
)
def test_encode_then_decode_round_trips(event):
    expected = ServerSentEvent(event.data.replace("\r\n", "\n").replace("\r", "\n"), event.event, event.id, event.retry)
    assert decode(encode(event)) == [expected]


@pytest.mark.parametrize(
    "bad",
    [
        ServerSentEvent("x", event="a\nb"),
        ServerSentEvent("x", id="1\r2"),
        ServerSentEvent("x", id="nul\0"),
        ServerSentEvent("x", retry=-1),
    ],
)
def test_encode_refuses_fields_that_would_break_framing(bad):
    with pytest.raises(ValueError):
        encode(bad)


def test_encode_json_names_the_event_after_its_type_and_keeps_one_data_line():
    payload = {"type": "response.output_text.delta", "sequence_number": 3, "delta": "line\nbreak ☃"}
    frame = encode_json(payload)
    assert frame.startswith("event: response.output_text.delta\ndata: {")
    assert frame.count("\ndata:") == 1 and frame.endswith("\n\n")
    [event] = decode(frame)
    assert event.event == payload["type"] and event.json() == payload


def test_encode_json_requires_a_type():
    with pytest.raises(ValueError, match="type"):
        encode_json({"sequence_number": 1})


def test_done_frame_has_no_event_line():
    [event] = decode(DONE)
    assert event == ServerSentEvent("[DONE]")
    with pytest.raises(json.JSONDecodeError):
        event.json()


FLAT_EVENTS = [
    {
        "type": "response.output_text.delta",
        "sequence_number": 7,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": 'He said "hi"\n\t\\ — é 😀 \u2028',
        "logprobs": [],
    },
    {
        "type": "response.function_call_arguments.delta",
        "sequence_number": 8,
        "item_id": "fc_1",
        "output_index": 1,
        "delta": '{"city":',
    },
    {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "output": [], "n": None}},
]


@pytest.mark.parametrize("event", FLAT_EVENTS, ids=[e["type"] for e in FLAT_EVENTS])
def test_encode_json_is_the_json_text_of_the_event(event):
    frame = sse.encode_json(event)
    assert frame.startswith(f"event: {event['type']}\ndata: ") and frame.endswith("\n\n")
    assert frame.count("\n") == 3  # one data line: line breaks inside strings are escaped
    [decoded] = sse.decode(frame)
    assert decoded.event == event["type"] and json.loads(decoded.data) == event


def test_encode_events_equals_one_frame_per_event_with_a_shared_snapshot():
    snapshot = {"id": "resp_1", "object": "response", "output": [], "status": "in_progress"}
    events = [
        {"type": "response.created", "sequence_number": 0, "response": snapshot},
        {"type": "response.in_progress", "sequence_number": 1, "response": snapshot},
        *FLAT_EVENTS[:2],
    ]
    assert list(sse.encode_events(events)) == [sse.encode_json(e) for e in events]


@pytest.mark.parametrize("limit", [1, 40, 16384])
def test_coalesce_keeps_the_bytes_and_cuts_only_between_frames(limit):
    frames = [sse.encode_json({**FLAT_EVENTS[0], "sequence_number": n}) for n in range(50)]
    writes = list(sse.coalesce(frames, limit=limit))
    assert "".join(writes) == "".join(frames)
    assert all(write.endswith("\n\n") for write in writes)  # never a frame split across writes
    if limit == 1:
        assert len(writes) >= len(frames) // 2  # a tiny limit joins next to nothing
    if limit == 16384:
        assert len(writes) < len(frames)
    assert list(sse.coalesce([], limit=limit)) == []
