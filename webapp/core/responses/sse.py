"""Server-sent events: encode frames for ``text/event-stream`` and decode them back (pure, no I/O).

Framing follows WHATWG HTML, "Server-sent events" (§9.2): UTF-8 text, lines ending in CRLF, LF or CR,
``field: value`` lines, a blank line dispatching the event, ``:`` starting a comment. Open Responses adds
three rules on top (spec, HTTP Transport, streaming): the ``event:`` field equals the JSON ``type`` of the
data, servers SHOULD NOT send ``id:``, and the stream ends with the literal ``data: [DONE]``.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

#: The terminal frame of an Open Responses stream (spec: "The terminal event MUST be the literal string
#: [DONE]"); it has no ``event:`` line because ``[DONE]`` has no ``type`` to match.
DONE = "data: [DONE]\n\n"
DONE_DATA = "[DONE]"


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event.

    :param data: the ``data`` lines joined with ``"\\n"`` (``""`` when the event had none).
    :param event: the ``event`` field, or ``None`` (a browser then calls it ``"message"``).
    :param id: the ``id`` field, or ``None``.
    :param retry: the ``retry`` field in milliseconds, or ``None``.
    """

    data: str = ""
    event: str | None = None
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The data parsed as JSON.

        :raises ValueError: when the data is not JSON (``[DONE]`` included).
        """
        return json.loads(self.data)


def _check_field(name: str, value: str) -> None:
    # A line break inside a single-line field would start a new field (or dispatch the event) on the client.
    if "\n" in value or "\r" in value:
        raise ValueError(f"SSE {name} field must not contain a line break: {value!r}")


def encode(event: ServerSentEvent) -> str:
    """One event as SSE text, ending in the blank line that dispatches it.

    Multi-line data becomes one ``data:`` line per line (CRLF, CR and LF all split), so the client joins
    them back with ``\\n``. Field order: ``event``, ``id``, ``retry``, ``data``.

    :raises ValueError: when ``event``/``id`` hold a line break, ``id`` holds NUL (WHATWG: such ids are
        ignored by clients) or ``retry`` is negative.
    """
    lines: list[str] = []
    if event.event is not None:
        _check_field("event", event.event)
        lines.append(f"event: {event.event}")
    if event.id is not None:
        _check_field("id", event.id)
        if "\0" in event.id:
            raise ValueError("SSE id field must not contain NUL")
        lines.append(f"id: {event.id}")
    if event.retry is not None:
        if event.retry < 0:
            raise ValueError(f"SSE retry must be a non-negative integer, got {event.retry}")
        lines.append(f"retry: {event.retry}")
    data = event.data.replace("\r\n", "\n").replace("\r", "\n")
    lines.extend(f"data: {line}" for line in data.split("\n"))
    return "\n".join(lines) + "\n\n"


def encode_json(payload: dict[str, Any]) -> str:
    """An Open Responses streaming event as one frame: ``event: <type>`` and one ``data:`` line of JSON.

    ``json.dumps`` escapes every line break inside strings, so the data is always one line.

    :param payload: the event object; its ``type`` (a string) becomes the ``event:`` field.
    :raises ValueError: when ``payload`` has no string ``type``.
    """
    event_type = payload.get("type")
    if not isinstance(event_type, str):
        raise ValueError("a streaming event needs a string 'type' to name its SSE event field")
    _check_field("event", event_type)
    return f"event: {event_type}\ndata: {_flat_json(payload) or _ENCODER.encode(payload)}\n\n"


def encode_events(events: Iterable[dict[str, Any]]) -> Iterator[str]:
    """:func:`encode_json` for each event of one stream, encoding a top-level object or array once when
    several events carry the very same one (``response.created`` and ``response.in_progress`` share the
    snapshot). Same text as :func:`encode_json`; the objects must not change while the stream is encoded.

    :raises ValueError: as :func:`encode_json`.
    """
    memo: dict[int, tuple[Any, str]] = {}  # id -> (the object, kept so the id stays its own; its JSON)
    for payload in events:
        event_type = payload.get("type")
        if not isinstance(event_type, str):
            raise ValueError("a streaming event needs a string 'type' to name its SSE event field")
        _check_field("event", event_type)
        flat = _flat_json(payload)
        if flat is not None:
            yield f"event: {event_type}\ndata: {flat}\n\n"
            continue
        if not all(type(key) is str for key in payload):
            yield encode_json(payload)
            continue
        parts = []
        for key, value in payload.items():
            kind = type(value)
            if kind in (dict, list) and value:
                hit = memo.get(id(value))
                if hit is None or hit[0] is not value:
                    hit = memo[id(value)] = (value, _ENCODER.encode(value))
                text = hit[1]
            elif kind is str:
                text = _string(value)
            elif kind is int:  # sequence_number, output_index: json's int text, without its encoder's set-up
                text = int.__repr__(value)
            else:
                text = _ENCODER.encode(value)
            parts.append(_string(key) + ":" + text)
        yield f"event: {event_type}\ndata: {{{','.join(parts)}}}\n\n"


# One encoder for every frame: json.dumps would build a new one per call. Same settings as the fast path below.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_string = json.encoder.encode_basestring  # the C function json uses for str with ensure_ascii=False


def _flat_json(payload: dict[str, Any]) -> str | None:
    """``payload`` as ``_ENCODER`` writes it when every value is a str, an int or ``[]`` (the delta events,
    most frames of a stream), built directly; ``None`` for any other payload. Same bytes: json writes str
    with ``encode_basestring`` and int with ``int.__repr__``."""
    parts = []
    for key, value in payload.items():
        name = _KEYS.get(key)
        if name is None:
            if type(key) is not str:
                return None  # json converts other keys (int, float, None...): leave that to it
            name = _string(key) + ":"
            if len(_KEYS) < 1024:
                _KEYS[key] = name
        kind = type(value)
        if kind is str:
            parts.append(name + _string(value))
        elif kind is int:  # bool is not int here (type(), not isinstance)
            parts.append(name + int.__repr__(value))
        elif kind is list and not value:
            parts.append(name + "[]")
        else:
            return None
    return "{" + ",".join(parts) + "}"


_KEYS: dict[str, str] = {}  # key -> its JSON text and colon; bounded (the events use a dozen keys)


def coalesce(frames: Iterable[str], *, limit: int = 16384) -> Iterator[str]:
    """Join encoded frames into fewer, larger writes: runs of frames of about ``limit`` characters, each
    ending on a frame boundary.

    The bytes on the wire are the same, only cut differently: SSE framing does not depend on how the body is
    split into writes (WHATWG: chunks may split anywhere), while each write of a streamed WSGI body costs a
    chunk header and socket sends. The first write waits for ``limit`` characters of frames: use this on
    frames that are ready (as the test model's are), not on a slow producer.
    """
    iterator = iter(frames)
    first = next(iterator, None)
    if first is None:
        return
    pending: list[str] = [first]
    size = len(first)
    for frame in iterator:
        pending.append(frame)
        size += len(frame)
        if size >= limit:
            yield "".join(pending)
            pending, size = [], 0
    if pending:
        yield "".join(pending)


class Decoder:
    """Incremental SSE parser: feed text chunks as they arrive, get events as they are dispatched.

    Chunks may split lines anywhere, CRLF pairs included. Per WHATWG: a leading BOM is dropped; lines
    starting with ``:`` are comments; a field without a colon has an empty value; one space after the
    colon is removed; unknown fields are ignored; ``id`` containing NUL is ignored; ``retry`` counts only
    when all ASCII digits; an event with no ``data`` field is not dispatched; the last event id persists
    across events.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._started = False
        self._pending_cr = False
        self._data: list[str] = []
        self._has_data = False
        self._event: str | None = None
        self._retry: int | None = None
        self.last_event_id: str | None = None

    def feed(self, chunk: str) -> list[ServerSentEvent]:
        """Add text; return the events it completed (possibly none)."""
        if not self._started and chunk:
            self._started = True
            chunk = chunk.removeprefix("\ufeff")
        if not chunk:
            return []
        if self._pending_cr and chunk.startswith("\n"):
            chunk = chunk[1:]  # the LF of a CRLF split across chunks
        self._pending_cr = False
        text = self._buffer + chunk
        events: list[ServerSentEvent] = []
        start = 0
        i = 0
        n = len(text)
        while i < n:
            ch = text[i]
            if ch == "\r" or ch == "\n":
                event = self._line(text[start:i])
                if event is not None:
                    events.append(event)
                if ch == "\r":
                    if i + 1 < n and text[i + 1] == "\n":
                        i += 1
                    elif i + 1 == n:
                        self._pending_cr = True
                start = i + 1
            i += 1
        self._buffer = text[start:]
        return events

    def close(self, *, dispatch_pending: bool = False) -> list[ServerSentEvent]:
        """End of stream. WHATWG discards an event not followed by a blank line.

        :param dispatch_pending: dispatch that last event anyway (what some clients do; upstream's newer
            SSE parser test asks for it).
        """
        events: list[ServerSentEvent] = []
        if self._buffer:
            event = self._line(self._buffer)
            self._buffer = ""
            if event is not None:
                events.append(event)
        if dispatch_pending:
            event = self._line("")
            if event is not None:
                events.append(event)
        self._reset()
        return events

    def _reset(self) -> None:
        self._data = []
        self._has_data = False
        self._event = None
        self._retry = None

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            if not self._has_data:
                self._reset()  # WHATWG: no data -> nothing dispatched, the buffers are cleared
                return None
            event = ServerSentEvent("\n".join(self._data), self._event, self.last_event_id, self._retry)
            self._reset()
            return event
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
        return None


def decode(text: str | bytes, *, dispatch_pending: bool = False) -> list[ServerSentEvent]:
    """Every event of a whole SSE body, in order.

    :param text: the body; bytes are decoded as UTF-8 (invalid bytes raise ``UnicodeDecodeError``).
    :param dispatch_pending: see :meth:`Decoder.close`.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    decoder = Decoder()
    return decoder.feed(text) + decoder.close(dispatch_pending=dispatch_pending)


def iter_decode(chunks: Iterable[str | bytes]) -> Iterator[ServerSentEvent]:
    """Events from a stream of chunks (e.g. an HTTP body read piece by piece); bytes may split UTF-8."""
    decoder = Decoder()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    for chunk in chunks:
        text = utf8.decode(chunk) if isinstance(chunk, bytes) else chunk
        yield from decoder.feed(text)
    yield from decoder.feed(utf8.decode(b"", final=True))
    yield from decoder.close()
