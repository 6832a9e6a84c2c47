"""Reading a recorded stream into its events, each with the place in the recording it came from.

Four kinds of recording (``KINDS``), told apart by :func:`detect` when not named:

``sse``        the body of a streamed ``POST /v1/responses`` as ``curl -N`` prints it (``curl -i``'s status line and
               headers before it are read too: the ``Content-Type`` is then checked). Framing is WHATWG HTML's
               "Server-sent events" (lines end in CRLF, LF or CR; ``field: value``; a blank line dispatches; ``:``
               starts a comment; ``data:`` lines joined with LF). Several bodies pasted one after another are
               several streams: a ``response.created`` after ``data: [DONE]`` starts the next one.
``har``        an HTTP Archive (HAR 1.2, as browsers export it): each entry whose response is an event stream is a
               stream (its ``response.content.text``, base64 or not), and each entry with Chrome's
               ``_webSocketMessages`` a WebSocket log. Places are line:column in the HAR text itself (the escapes
               of the JSON string are counted) and the JSON Pointer of the string.
``jsonl``      JSON Lines: one event object per line (what a client logs as it receives them).
``websocket``  a WebSocket-mode message log: one JSON message per line, both directions; a ``response.create``
               is the client's and starts a turn (a stream of its own), every other message is the server's.

Each event's data is parsed strictly (I-JSON, RFC 7493: duplicate member names, ``NaN`` and lone surrogates are
refused, with line:column). What cannot be read at all (an empty text, a HAR that is not JSON or holds no stream)
raises :class:`RecordingError` naming the place; what can be read is never dropped silently: each frame that is not
an event becomes a :class:`Frame` whose :attr:`Frame.problem` says why.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.json import (
    NOT_IJSON,
    Document,
    JSONTextError,
    line_col,
    loads_ijson,
    parse,
    paused_gc,
    pointer,
    string_locator,
    try_loads_ijson,
)
from webapp.core.responses.sse import DONE_DATA
from webapp.core.stream import vocabulary as v

__all__ = [
    "KINDS",
    "Frame",
    "Stream",
    "Recording",
    "RecordingError",
    "detect",
    "read_recording",
    "websocket_turn",
]

#: The kinds of recording, as the page's select and ``lint-stream --kind`` name them.
KINDS: dict[str, str] = {
    "sse": "SSE text (curl -N)",
    "har": "HAR file",
    "jsonl": "JSON Lines of events",
    "websocket": "WebSocket message log",
}
_SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":")
_UNPARSED = object()  # Frame.value of a frame whose data is no JSON (see Frame.problem)


class RecordingError(ValueError):
    """A recording that cannot be read at all.

    :ivar message: plain words; :ivar line: :ivar column: the place (1-based), when there is one;
    :ivar pointer: the JSON Pointer of the place in a HAR file, when there is one.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None, at: str | None = None):
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(where + message)
        self.message = message
        self.line = line
        self.column = column
        self.pointer = at


@dataclass(slots=True)
class Frame:
    """One message of a recording.

    :ivar data: the event's text as sent (the ``data:`` lines joined; a JSON Lines line; a WebSocket message).
    :ivar line: :ivar column: where it starts in the pasted text (1-based; the column in characters).
    :ivar value: the parsed JSON; see :attr:`parsed` and :attr:`problem`.
    :ivar event: the SSE ``event:`` field (``None``: none was sent, or the transport has no such field).
    :ivar ids: the SSE ``id:`` values of the frame (servers SHOULD NOT send any).
    :ivar sent: a WebSocket message the client sent (``response.create``).
    :ivar problem: why this frame is no event: ``None`` for an event, else ``(code, message, line, column)`` with
        ``code`` one of ``unreadable_event`` (not I-JSON), ``not_an_event`` (no object with a string ``type``),
        ``frame_without_data`` (an SSE frame with fields but no ``data``); ``done`` frames have no problem.
    :ivar done: this frame is the ``[DONE]`` terminal marker.
    """

    data: str
    line: int
    column: int = 1
    value: Any = _UNPARSED
    event: str | None = None
    ids: tuple[str, ...] = ()
    sent: bool = False
    problem: tuple[str, str, int, int] | None = None
    done: bool = False

    @property
    def parsed(self) -> bool:
        """Whether :attr:`value` is an event object with a string ``type``."""
        return self.problem is None and not self.done


@dataclass
class Stream:
    """One response's stream inside a recording (a recording may hold several: HAR entries, WebSocket turns).

    :ivar transport: ``sse``, ``jsonl`` or ``websocket`` (what the framing rules are).
    :ivar frames: its frames in order.
    :ivar label: how the page names it (``entry 3: POST /v1/responses``, ``turn 2``).
    :ivar content_type: the ``Content-Type`` the recording shows for it (``curl -i``, HAR), else ``None``.
    :ivar request: the request that started it, when the recording holds it (a HAR entry's body, a WebSocket
        ``response.create``), else ``None``.
    :ivar unterminated: an SSE body that ends inside a frame (no blank line after its last field): a browser
        drops that frame; it is read here all the same.
    """

    transport: str
    frames: list[Frame] = field(default_factory=list)
    label: str = ""
    content_type: str | None = None
    request: Any = None
    unterminated: bool = False


@dataclass
class Recording:
    """A recording read: its ``kind`` (one of :data:`KINDS`), its ``streams`` in order, and ``detected`` (whether
    the kind was found by :func:`detect` rather than named)."""

    kind: str
    streams: list[Stream]
    detected: bool = False

    @property
    def frames(self) -> list[Frame]:
        """Every frame of every stream, in order."""
        return [frame for stream in self.streams for frame in stream.frames]


# ------------------------------------------------------------------------------------------------- events


def _event(frame: Frame) -> Frame:
    """Parse ``frame.data`` (I-JSON) into ``frame.value`` or name why it is no event in ``frame.problem``."""
    data = frame.data
    value = try_loads_ijson(data)
    if value.__class__ is dict and value.get("type").__class__ is str:  # an event: most frames
        frame.value = value
        return frame
    if data == DONE_DATA:
        frame.done = True
        return frame
    if value is NOT_IJSON:
        try:
            loads_ijson(data)
            message, line, column = "not JSON", 1, 1
        except JSONTextError as err:
            message, line, column = err.message, err.line, err.column
        frame.problem = (
            "unreadable_event",
            f"the data is not JSON: {message}",
            frame.line + line - 1,
            column if line > 1 else frame.column + column - 1,
        )
        return frame
    frame.value = value
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        frame.problem = ("not_an_event", "the data is not an object with a string type", frame.line, frame.column)
    return frame


# ------------------------------------------------------------------------------------------------- SSE


def _lines(text: str) -> list[str]:
    # WHATWG: CRLF, LF and CR each end a line; str.splitlines would also split on U+2028 and others, which JSON
    # strings may hold raw.
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _sse_streams(text: str, *, place: Callable[[int, int], tuple[int, int]] | None = None) -> list[Stream]:
    """The streams of an SSE body (``curl -i``'s status line and headers read first). ``place`` maps (line,
    column) in ``text`` to the pasted text's (a HAR string's).

    The body is cut at its blank lines (``"\n\n"``) into one block per frame, at C speed; a block that is the
    usual ``event: <type>`` line and one ``data: <json>`` line (or the ``data:`` line alone) is read as it is, any
    other block line by line by the WHATWG rules.
    """
    body = text.removeprefix("\ufeff")
    if "\r" in body:  # WHATWG: CRLF, LF and CR each end a line
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    line = 1
    content_type = None
    if body.startswith("HTTP/"):
        head, blank, rest = body.partition("\n\n")
        for header in head.split("\n")[1:]:
            name, _, value = header.partition(":")
            if name.strip().lower() == "content-type":
                content_type = value.strip()
        line += head.count("\n") + (2 if blank else 0)
        body = rest if blank else ""
    reader = _SSEReader(place, content_type)
    blocks = body.split("\n\n")
    frame = reader.frame
    for block in blocks[:-1]:
        if block.startswith("event: "):
            cut = block.find("\n")
            if cut > 0 and block.startswith("data: ", cut + 1) and block.find("\n", cut + 1) < 0:
                frame(block[cut + 7 :], line + 1, 7, block[7:cut], ())
                line += 3
                continue
        elif block.startswith("data: ") and "\n" not in block:
            frame(block[6:], line, 7, None, ())
            line += 2
            continue
        reader.lines(block, line)
        line += block.count("\n") + 2
    reader.lines(blocks[-1].removesuffix("\n"), line, final=True)  # that break ends its last line
    return reader.streams


class _SSEReader:
    """The frames of one SSE body as its blocks are read (see :func:`_sse_streams`)."""

    def __init__(self, place: Callable[[int, int], tuple[int, int]] | None, content_type: str | None) -> None:
        self.place = place
        self.content_type = content_type
        self.current = Stream("sse", content_type=content_type)
        self.streams = [self.current]
        self.done = False  # the current stream has had its [DONE]

    def frame(self, data: str, line: int, column: int, event: str | None, ids: tuple[str, ...]) -> None:
        if self.place is not None:
            line, column = self.place(line, column)
        frame = _event(Frame(data, line, column, _UNPARSED, event, ids))
        if frame.done:
            self.done = True
        elif self.done and frame.problem is None and frame.value["type"] == v.RESPONSE_CREATED:
            self.current = Stream("sse", content_type=self.content_type)  # the next body pasted after this one
            self.streams.append(self.current)
            self.done = False
        self.current.frames.append(frame)

    def lines(self, block: str, first: int, *, final: bool = False) -> None:
        """The lines of ``block`` (starting at line ``first``), then the blank line after it unless ``final``."""
        event: str | None = None
        data: list[str] = []
        ids: list[str] = []
        at = 0  # the line where the pending frame starts (0: no frame pending)
        data_at = data_column = 0  # where the first data: line's value starts: the event's place
        for number, line in enumerate(block.split("\n") if block else (), start=first):
            if not line:  # a blank line inside the block: "\n\n\n" in the body
                if at:
                    self._dispatch(event, data, ids, data_at or at, data_column or 1)
                event, data, ids, at, data_at, data_column = None, [], [], 0, 0, 0
                continue
            if line[0] == ":":
                continue  # a comment
            if not at:
                at = number
            if line.startswith("data:"):
                value = line[6:] if line.startswith("data: ") else line[5:]
                if not data:
                    data_at, data_column = number, len(line) - len(value) + 1
                data.append(value)
            elif line.startswith("event:"):
                event = line[7:] if line.startswith("event: ") else line[6:]
            elif line.startswith("id:"):
                ids.append(line[4:] if line.startswith("id: ") else line[3:])
            elif line == "data":
                if not data:
                    data_at, data_column = number, 5
                data.append("")
        if at and (data or event is not None or ids):
            self._dispatch(event, data, ids, data_at or at, data_column or 1)
            if final:
                # The body ends inside a frame: WHATWG discards it, upstream's newer parser dispatches it. Read it,
                # and say so.
                self.current.unterminated = True

    def _dispatch(self, event: str | None, data: list[str], ids: list[str], line: int, column: int) -> None:
        if data:
            self.frame("\n".join(data), line, column, event, tuple(ids))
            return
        if event is None and not ids:
            return  # only retry: or unknown fields: nothing to dispatch
        if self.place is not None:
            line, column = self.place(line, column)
        problem = ("frame_without_data", "an SSE frame without a data: line", line, column)
        self.current.frames.append(Frame("", line, column, _UNPARSED, event, tuple(ids), problem=problem))


# ------------------------------------------------------------------------------------------------- lines


def _json_lines(text: str, *, websocket: bool) -> list[Stream]:
    """JSON Lines of events, or a WebSocket log (a ``response.create`` line starts a turn)."""
    current = Stream("websocket" if websocket else "jsonl", label="turn 1" if websocket else "")
    streams = [current]
    for number, line in enumerate(_lines(text.removeprefix("\ufeff")), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        column = len(line) - len(line.lstrip()) + 1
        frame = _event(Frame(stripped, number, column))
        if websocket and frame.parsed and frame.value.get("type") == v.RESPONSE_CREATE:
            frame.sent = True
            if current.frames:
                current = Stream("websocket", label=f"turn {len(streams) + 1}")
                streams.append(current)
            current.request = frame.value
        current.frames.append(frame)
    return streams


# ------------------------------------------------------------------------------------------------- HAR


def _har_streams(text: str, *, max_depth: int) -> list[Stream]:
    try:
        document = parse(text, max_depth=max_depth, warn=False)
    except JSONTextError as err:
        raise RecordingError(f"this HAR file is not JSON: {err.message}", err.line, err.column) from None
    entries = document.value.get("log", {}).get("entries") if isinstance(document.value, dict) else None
    if not isinstance(entries, list):
        raise RecordingError('this JSON is no HAR file: it has no "log": {"entries": [...]}', 1, 1, "/log/entries")
    streams: list[Stream] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        request = entry["request"] if isinstance(entry.get("request"), dict) else {}
        label = f"entry {index}: {request.get('method', '?')} {request.get('url', '?')}"
        messages = entry.get("_webSocketMessages")
        if isinstance(messages, list):
            streams.extend(_har_websocket(document, index, messages, label))
            continue
        response = entry["response"] if isinstance(entry.get("response"), dict) else {}
        content = response["content"] if isinstance(response.get("content"), dict) else {}
        body = content.get("text")
        mime = content.get("mimeType")
        if not isinstance(body, str) or not (
            (isinstance(mime, str) and "event-stream" in mime) or body.lstrip().startswith(("event:", "data:"))
        ):
            continue
        at = f"/log/entries/{index}/response/content/text"
        if content.get("encoding") == "base64":
            try:
                body = base64.b64decode(body, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError) as exc:
                line, column = document.position(at) or (1, 1)
                raise RecordingError(
                    f"{label}: the base64 response text cannot be decoded ({exc})", line, column, at
                ) from None
            line, column = document.position(at) or (1, 1)
            found = _sse_streams(body, place=_fixed_place((line, column)))
        else:
            found = _sse_streams(body, place=_placer(document, at, body))
        posted = request.get("postData", {}).get("text") if isinstance(request.get("postData"), dict) else None
        for number, stream in enumerate(found):
            stream.label = label if len(found) == 1 else f"{label} (stream {number + 1})"
            stream.content_type = mime if isinstance(mime, str) else None
            stream.request = _json_or_none(posted)
        streams.extend(found)
    if not streams:
        raise RecordingError(
            "this HAR file holds no event stream: no entry's response is text/event-stream "
            "and none has _webSocketMessages",
            1,
            1,
            "/log/entries",
        )
    return streams


def _fixed_place(where: tuple[int, int]) -> Callable[[int, int], tuple[int, int]]:
    """A place mapping that answers ``where`` for every (line, column): a decoded base64 text has no places of its
    own in the pasted one."""
    return lambda _line, _column: where


def _placer(document: Document, at: str, body: str) -> Callable[[int, int], tuple[int, int]]:
    move = string_locator(document, at, body)
    start = document.position(at) or (1, 1)

    def place(line: int, column: int) -> tuple[int, int]:
        return move(line, column) or start

    return place


def _har_websocket(document: Document, index: int, messages: list[Any], label: str) -> list[Stream]:
    current = Stream("websocket", label=f"{label}, turn 1")
    streams = [current]
    for number, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("data"), str):
            continue
        at = pointer.join(["log", "entries", index, "_webSocketMessages", number, "data"])
        line, column = document.position(at) or (1, 1)
        frame = _event(Frame(message["data"], line, column))
        frame.sent = message.get("type") == "send"
        if frame.sent and frame.parsed and frame.value.get("type") == v.RESPONSE_CREATE:
            if current.frames:
                current = Stream("websocket", label=f"{label}, turn {len(streams) + 1}")
                streams.append(current)
            current.request = frame.value
        current.frames.append(frame)
    return streams


def _json_or_none(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------------- detection


def detect(text: str) -> str:
    """Which of :data:`KINDS` ``text`` is: ``curl -i`` headers or SSE fields -> ``sse``; one JSON object holding
    ``log`` -> ``har``; JSON values line by line -> ``websocket`` when a line is a ``response.create``, else
    ``jsonl``. A text that is none of them is read as ``sse`` (whose reader names what is wrong)."""
    body = text.removeprefix("\ufeff").lstrip()
    if body.startswith("HTTP/") or body.startswith(_SSE_FIELDS):
        return "sse"
    if body.startswith("{"):
        head, _, rest = body.partition("\n")
        try:
            first = json.loads(head)
        except ValueError:
            first = None
        if isinstance(first, dict) and rest.strip():
            return "websocket" if _has_create(body) else "jsonl"
        if isinstance(first, dict) and not rest.strip():
            return "har" if "log" in first else "jsonl"
        return "har" if '"log"' in body[:4096] else "jsonl"
    return "sse"


def _has_create(body: str) -> bool:
    return f'"type":"{v.RESPONSE_CREATE}"' in body or f'"type": "{v.RESPONSE_CREATE}"' in body


def read_recording(text: str | bytes, kind: str = "auto", *, max_depth: int = 100) -> Recording:
    """Read ``text`` as a recording of ``kind`` (one of :data:`KINDS`, or ``auto``: :func:`detect`).

    :param text: the recording; bytes are read as UTF-8, a byte order mark dropped (a byte that is not UTF-8 is
        named with its offset).
    :param max_depth: the nesting limit for a HAR file's JSON.
    :raises RecordingError: the text cannot be read as a recording at all (empty, not UTF-8, an unknown kind, a
        HAR file that is no JSON or holds no stream); the error names the place.
    """
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")  # a file's byte order mark says UTF-8, nothing more
        except UnicodeDecodeError as err:
            before = data[: err.start].decode("utf-8", "replace")
            line, column = line_col(before, len(before))
            raise RecordingError(
                f"byte 0x{text[err.start]:02X} (offset {err.start:,}) is not UTF-8", line, column
            ) from None
    if not text.strip():
        raise RecordingError("the recording is empty", 1, 1)
    detected = kind == "auto"
    if detected:
        kind = detect(text)
    with paused_gc():  # a frame and its parsed event per event, and no reference cycle among them
        if kind == "sse":
            streams = _sse_streams(text)
        elif kind == "har":
            streams = _har_streams(text, max_depth=max_depth)
        elif kind in ("jsonl", "websocket"):
            streams = _json_lines(text, websocket=kind == "websocket")
        else:
            raise RecordingError(f"unknown kind of recording {kind!r}; use one of: auto, {', '.join(KINDS)}")
    streams = [stream for stream in streams if stream.frames] or streams[:1]
    if not any(stream.frames for stream in streams):
        raise RecordingError(f"no event in this text read as {KINDS[kind]}", 1, 1)
    return Recording(kind, streams, detected)


def websocket_turn(messages: list[tuple[str, bool]], label: str = "") -> Recording:
    """One WebSocket-mode turn as a recording: ``messages`` are ``(text, sent)`` in order (``sent``: the client's),
    as the endpoint check exchanged them; places are the message's number (line) in the turn."""
    stream = Stream("websocket", label=label)
    with paused_gc():
        for number, (text, sent) in enumerate(messages, start=1):
            frame = _event(Frame(text, number, 1))
            frame.sent = sent
            if sent and frame.parsed and frame.value.get("type") == v.RESPONSE_CREATE:
                stream.request = frame.value
            stream.frames.append(frame)
    return Recording("websocket", [stream])
