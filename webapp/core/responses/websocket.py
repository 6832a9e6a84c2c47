"""WebSocket mode's turns (Open Responses 2026-04-24 ``x-openresponses-websocket``; spec notes §1.11), pure.

A client message is a ``response.create`` event (``WebSocketResponseCreateEvent``: a ``CreateResponseBody`` with
``type``, without ``stream``, ``stream_options``, ``background``), answered with the events an SSE stream would
carry. A :class:`Connection` keeps what only that connection knows: its ``store: false`` responses, for
``previous_response_id`` (at most :data:`WS_CACHE_SIZE`; the oldest is dropped first). ``store: true`` ones are read
from the store. A ``store: true`` response continuing a ``store: false`` one is saved with the context that one
stands for (the ``base`` of ``webapp.web.store.ResponseStore.save``), so it can be continued anywhere, as its ``GET``
promises. A continuation that fails (a refusal, or a failed response) evicts its ``previous_response_id``.

The socket itself, its deadline and the error events are the route's (``webapp.web.api.websocket``).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from webapp.core.json import JSONTextError, loads_ijson
from webapp.core.responses.events import stream_events
from webapp.core.responses.fields import INVALID_TYPE, INVALID_VALUE, RequestError
from webapp.core.responses.pipeline import History, Prepared, Services, prepare, previous_not_found, run_model
from webapp.core.responses.request import CreateRequest, parse_create_request

#: Client fields that WebSocket mode refuses (``WebSocketResponseCreateEvent``: the socket is the stream).
WS_DISALLOWED = ("stream", "stream_options", "background")
#: How many ``store: false`` responses a connection keeps for continuations (the oldest is dropped first).
WS_CACHE_SIZE = 16


def parse_create_event(message: str | bytes, *, max_depth: int) -> CreateRequest:
    """Parse a client message as a ``WebSocketResponseCreateEvent``.

    :param max_depth: the nesting limit of the message (the app's ``JSON_MAX_DEPTH``).
    :raises RequestError: 400 for a message that is not I-JSON (``invalid_json``), not an object, of another
        ``type``, carrying a field WebSocket mode refuses (``unsupported_parameter``), or whose body is not a valid
        ``CreateResponseBody``.
    """
    try:
        event = loads_ijson(message, max_depth=max_depth)
    except JSONTextError as err:
        raise RequestError(
            f"The message is not valid JSON: {str(err).rstrip('.')}.", None, "invalid_json", whole=True
        ) from None
    if not isinstance(event, dict):
        raise RequestError("The message must be a JSON object (a response.create event).", None, INVALID_TYPE)
    if event.get("type") != "response.create":
        raise RequestError(
            f"expected 'response.create', got {json.dumps(event.get('type'))} (the only client "
            "event of Open Responses WebSocket mode).",
            "type",
            INVALID_VALUE,
        )
    for name in WS_DISALLOWED:
        if name in event:
            raise RequestError(
                "not allowed in WebSocket mode (the connection itself is the stream).", name, "unsupported_parameter"
            )
    return parse_create_request({key: value for key, value in event.items() if key != "type"})


@dataclass(frozen=True)
class Turn:
    """One ``response.create`` answered: the request as prepared and the model's ``(snapshot, final)``."""

    prepared: Prepared
    snapshot: dict[str, Any]
    final: dict[str, Any]

    def events(self) -> Iterator[dict[str, Any]]:
        """The events to send, in order (``webapp.core.responses.events.stream_events``)."""
        return stream_events(self.snapshot, self.final)


class Connection:
    """The state of one WebSocket connection: its ``store: false`` responses by id, oldest first.

    :param size: how many it keeps (:data:`WS_CACHE_SIZE`).
    """

    def __init__(self, size: int = WS_CACHE_SIZE) -> None:
        self.size = size
        self._kept: OrderedDict[str, History] = OrderedDict()

    def answer(self, message: str | bytes, services: Services, is_stored: Callable[[str], bool]) -> Turn:
        """Parse, prepare and run one client message; on any failure its ``previous_response_id`` is evicted.

        :param services: as for ``webapp.core.responses.pipeline.prepare``; a ``previous_response_id`` is looked up
            in this connection first, then with ``services.history_of``.
        :param is_stored: whether the store holds a response (to say why a continuation is unknown).
        :raises RequestError: the message is refused (see :func:`parse_create_event` and ``prepare``); whatever else
            the store or the model raise passes through.
        """
        previous: str | None = None
        try:
            req = parse_create_event(message, max_depth=services.max_depth)
            previous = req.previous_response_id
            stored = services.history_of
            prepared = prepare(req, replace(services, history_of=lambda rid: self._history(rid, stored, is_stored)))
            snapshot, final = run_model(prepared)
        except Exception:
            if previous is not None:
                self._kept.pop(previous, None)
            raise
        return Turn(prepared, snapshot, final)

    def settle(
        self,
        turn: Turn,
        save: Callable[[dict[str, Any], list[dict[str, Any]], str | None, list[dict[str, Any]] | None], None],
    ) -> None:
        """Keep or save what a turn made: a failed response evicts its ``previous_response_id``; a ``store: true``
        one is saved (``save(final, inputs, session_key, base)``: ``base`` is the context of the ``store: false``
        response of this connection it continues, else ``None``); a ``store: false`` one is kept here.

        :raises: whatever ``save`` raises (a storage fault), with nothing kept.
        """
        prepared, final = turn.prepared, turn.final
        previous = prepared.req.previous_response_id
        if final["status"] == "failed":
            if previous is not None:
                self._kept.pop(previous, None)
        elif prepared.req.store:
            # What a store: false response of this connection stands for is kept with it: the store has no record.
            base = self._kept[previous].items if previous is not None and previous in self._kept else None
            save(final, prepared.inputs, prepared.session_key, base)
        else:
            self._kept[final["id"]] = History(
                prepared.conversation(final["output"]), prepared.tools, prepared.session_key
            )
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def _history(self, response_id: str, stored: Callable[[str], History], is_stored: Callable[[str], bool]) -> History:
        history = self._kept.get(response_id)
        if history is not None:
            self._kept.move_to_end(response_id)
            return history
        try:
            return stored(response_id)
        except RequestError as err:
            if is_stored(response_id):
                raise  # it is stored: what is missing is a response it continues, and the message says which
            raise previous_not_found(
                f"{response_id!r} is neither stored nor a store: false response of this connection "
                "(those live only as long as the connection that made them)"
            ) from err
