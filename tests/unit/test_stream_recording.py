"""Reading recordings (``webapp.core.stream.recording``): SSE as ``curl -N``/``-i`` prints it, HAR files, JSON Lines,
WebSocket logs; each frame with its place in the pasted text, nothing dropped, unreadable input named."""

from __future__ import annotations

import base64
import json

import pytest

from webapp.core.stream import RecordingError, detect, read_recording

CREATED = {"type": "response.created", "sequence_number": 0}
DELTA = {"type": "response.output_text.delta", "sequence_number": 1, "delta": "hi"}


def frame(event: dict, *, name: str | None = None) -> str:
    return f"event: {name or event['type']}\ndata: {json.dumps(event)}\n\n"


def places(recording) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in recording.frames]


def test_sse_frames_have_the_line_and_column_of_their_data():
    text = frame(CREATED) + frame(DELTA) + "data: [DONE]\n\n"
    recording = read_recording(text)
    assert recording.kind == "sse" and recording.detected
    assert places(recording) == [(2, 7), (5, 7), (7, 7)]
    first, second, done = recording.frames
    assert first.value == CREATED and first.event == "response.created" and first.parsed
    assert second.value == DELTA and not done.parsed and done.done


def test_sse_follows_the_whatwg_rules():
    # CRLF and CR line ends, a comment, a field without a space, two data lines joined with LF, an id, a retry.
    text = (
        ": keep-alive\r\n\r\n"
        "event:response.created\r\n"
        'data:{"type": "response.created",\r\n'
        'data: "sequence_number": 0}\r\n'
        "id: 7\r\nretry: 100\r\n\r\n"
        "data: [DONE]\r\r"
    )
    recording = read_recording(text)
    first, done = recording.frames
    assert first.value == CREATED and first.event == "response.created" and first.ids == ("7",)
    assert (first.line, first.column) == (4, 6)
    assert done.done and (done.line, done.column) == (9, 7)
    assert not recording.streams[0].unterminated


def test_curl_i_headers_are_read_and_the_content_type_kept():
    text = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nX-A: b\r\n\r\n" + frame(CREATED)
    recording = read_recording(text)
    assert recording.kind == "sse"
    assert recording.streams[0].content_type == "text/event-stream; charset=utf-8"
    assert places(recording) == [(6, 7)]


def test_a_body_that_ends_inside_a_frame_is_read_and_marked_unterminated():
    recording = read_recording(frame(CREATED) + f"event: x\ndata: {json.dumps(DELTA)}\n")
    assert [f.value for f in recording.frames] == [CREATED, DELTA]
    assert recording.streams[0].unterminated


def test_frames_that_are_no_event_are_kept_with_the_reason():
    text = "event: a\ndata: {bad\n\n" + "data: [1, 2]\n\n" + "event: lonely\n\n" + 'data: {"a": 1, "a": 2}\n\n'
    unreadable, not_event, no_data, duplicate = read_recording(text).frames
    assert unreadable.problem[0] == "unreadable_event" and unreadable.problem[2:] == (2, 8)
    assert not_event.problem[0] == "not_an_event"
    assert no_data.problem[0] == "frame_without_data" and no_data.event == "lonely"
    assert duplicate.problem[0] == "unreadable_event" and "Duplicate member name" in duplicate.problem[1]


def test_a_second_body_after_done_is_a_second_stream():
    body = frame(CREATED) + "data: [DONE]\n\n"
    recording = read_recording(body + body)
    assert [len(s.frames) for s in recording.streams] == [2, 2]
    assert places(recording) == [(2, 7), (4, 7), (7, 7), (9, 7)]


def test_json_lines_and_websocket_logs():
    lines = "\n".join(json.dumps(e) for e in (CREATED, DELTA)) + "\n"
    recording = read_recording(lines)
    assert recording.kind == "jsonl" and places(recording) == [(1, 1), (2, 1)]
    create = {"type": "response.create", "model": "m", "input": "hi"}
    log = "\n".join(json.dumps(e) for e in (create, CREATED, DELTA, create, CREATED)) + "\n"
    recording = read_recording(log)
    assert recording.kind == "websocket"
    assert [len(s.frames) for s in recording.streams] == [3, 2]
    assert [f.sent for f in recording.frames] == [True, False, False, True, False]
    assert recording.streams[1].request == create and recording.streams[1].label == "turn 2"


def test_har_streams_are_placed_in_the_har_text():
    body = frame(CREATED) + frame(DELTA) + "data: [DONE]\n\n"
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                {"request": {"method": "GET", "url": "http://x/"}, "response": {"content": {"text": "<html>"}}},
                {
                    "request": {
                        "method": "POST",
                        "url": "http://x/v1/responses",
                        "postData": {"text": '{"stream":true}'},
                    },
                    "response": {"content": {"mimeType": "text/event-stream", "text": body}},
                },
            ],
        }
    }
    text = json.dumps(har, indent=1)
    recording = read_recording(text)
    assert recording.kind == "har" and len(recording.streams) == 1
    stream = recording.streams[0]
    assert stream.label == "entry 1: POST http://x/v1/responses" and stream.request == {"stream": True}
    line = next(n for n, t in enumerate(text.split("\n"), 1) if '"text": "event: response.created' in t)
    first = recording.frames[0]
    assert first.line == line and text.split("\n")[line - 1][first.column - 1 :].startswith('{\\"type\\"')
    assert [f.value for f in recording.frames[:2]] == [CREATED, DELTA]


def test_har_base64_bodies_and_websocket_messages():
    body = frame(CREATED) + "data: [DONE]\n\n"
    create = {"type": "response.create", "model": "m"}
    har = {
        "log": {
            "entries": [
                {
                    "request": {"method": "POST", "url": "u"},
                    "response": {
                        "content": {
                            "mimeType": "text/event-stream",
                            "encoding": "base64",
                            "text": base64.b64encode(body.encode()).decode(),
                        }
                    },
                },
                {
                    "request": {"method": "GET", "url": "ws://x/v1/responses"},
                    "_webSocketMessages": [
                        {"type": "send", "opcode": 1, "data": json.dumps(create)},
                        {"type": "receive", "opcode": 1, "data": json.dumps(CREATED)},
                    ],
                },
            ]
        }
    }
    recording = read_recording(json.dumps(har))
    assert [s.transport for s in recording.streams] == ["sse", "websocket"]
    assert recording.frames[0].value == CREATED
    assert [f.sent for f in recording.streams[1].frames] == [True, False]


@pytest.mark.parametrize(
    "text, kind, where",
    [
        ("", "auto", (1, 1)),
        ("  \n ", "auto", (1, 1)),
        ('{"log": {"entries": [}', "har", (1, 22)),
        ('{"log": {}}', "har", (1, 1)),
        ('{"log": {"entries": [{"response": {"content": {"text": "<p>"}}}]}}', "har", (1, 1)),
        ("data: x\n\n", "xml", None),
    ],
)
def test_what_cannot_be_read_is_named_with_its_place(text, kind, where):
    with pytest.raises(RecordingError) as caught:
        read_recording(text, kind)
    assert (caught.value.line, caught.value.column) == (where or (None, None))


def test_a_files_byte_order_mark_is_dropped_whatever_its_kind():
    har = {"log": {"entries": [{"response": {"content": {"mimeType": "text/event-stream", "text": frame(CREATED)}}}]}}
    for text in (frame(CREATED), json.dumps(CREATED), json.dumps(har)):
        recording = read_recording(b"\xef\xbb\xbf" + text.encode())
        assert [f.value for f in recording.frames] == [CREATED]


def test_bytes_that_are_not_utf8_are_named():
    with pytest.raises(RecordingError) as caught:
        read_recording(b"data: {}\n\ndata: \xff\n\n")
    assert "0xFF" in caught.value.message and (caught.value.line, caught.value.column) == (3, 7)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("event: a\ndata: {}\n\n", "sse"),
        (": comment\n\ndata: {}\n\n", "sse"),
        ("HTTP/1.1 200 OK\n\n", "sse"),
        ('{"type": "a"}\n{"type": "b"}\n', "jsonl"),
        ('{"type": "response.create"}\n{"type": "b"}\n', "websocket"),
        ('{"log": {"entries": []}}', "har"),
        ('{\n  "log": {"entries": []}\n}', "har"),
    ],
)
def test_detect(text, kind):
    assert detect(text) == kind
