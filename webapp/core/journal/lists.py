"""The Responses API's list objects read as the conversation they hold: a ``/v1/sessions/{key}/items`` page and a
``/v1/responses/{id}/input_items`` page.

* A **session page** (``{"object": "list", "session_key", "data": [{"response_id", "source", "index", "item",
  "previous_response_id", "inspect_url"}], "has_more"}``, or its ``data`` array alone) wraps each stored item. It is
  read turn by turn (a turn is one response: its input items, then its output items, as the page lists them) and
  unwrapped. An agent that keeps no state on the server sends the whole conversation again on every turn (no
  ``previous_response_id``): the leading input items of such a turn that repeat the conversation so far are that
  replay, not new items, and are read once, where they first appeared (:func:`replayed`). A turn that continues a
  response (``previous_response_id``) holds only new input (Open Responses spec, ``previous_response_id``: the
  server prepends the earlier input and output).
* An **input_items page** (``{"object": "list", "data": [items], "first_id", "last_id", "has_more"}``) lists a
  response's input newest first by default (``order=desc``). Its order is read from its ``order`` member (this
  app's endpoint writes it), else from the calls and outputs it holds (an output listed before the call it answers:
  newest first), else the API's default (``desc``) is assumed, and said; the items are read oldest first.

A page with ``has_more: true`` is part of a list: :attr:`ListReading.partial` says so, and the gate makes it a
``partial_journal`` finding. What the reading changed (replays read once, the order turned) is a
:class:`ReadingNote` each. Pure: parsed JSON in, no text read here.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.journal.text import JournalError

__all__ = [
    "READING_NOTES",
    "ListReading",
    "ReadingNote",
    "is_list_object",
    "is_session_data",
    "place_of",
    "read_list",
    "replayed",
    "same_item",
]

#: The notes a list reading writes -> what each means.
READING_NOTES = {
    "replayed_items": "items an agent sent again on a later turn (the whole history each turn) were read once",
    "input_items_order": "an input_items page listed newest first was read oldest first (conversation order)",
    "input_items_order_assumed": "an input_items page without an order was read as the API's default, newest first",
}


@dataclass(frozen=True)
class ReadingNote:
    """What reading a list object changed. :ivar code: one of :data:`READING_NOTES`; :ivar message: one sentence;
    :ivar pointer: RFC 6901 pointer of the place in the document (``""``: the whole)."""

    code: str
    message: str
    pointer: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, as a conversion's notes are: ``{"index": null, "path", "pointer", "code", "message"}``."""
        path = place_of(self.pointer)
        return {"index": None, "path": path, "pointer": self.pointer, "code": self.code, "message": self.message}


@dataclass
class ListReading:
    """A list object read as a conversation.

    :ivar shape: ``"session"`` or ``"input_items"``.
    :ivar items: the items, in conversation order, each once.
    :ivar origins: the RFC 6901 pointer of each item in the document (``/data/3/item``, ``/data/7``).
    :ivar partial: for a page with ``has_more: true``, the sentence saying what is missing; else ``None``.
    :ivar notes: what the reading changed.
    :ivar replays: for a session, the index (in ``data``) of each entry read as a replay -> the index in
        :attr:`items` of the item it repeats.
    """

    shape: str
    items: list[Any] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    partial: str | None = None
    notes: list[ReadingNote] = field(default_factory=list)
    replays: dict[int, int] = field(default_factory=dict)


def place_of(pointer: str) -> str:
    """A pointer as a place in words: ``/data/3/item`` -> ``data[3].item``; ``""`` -> ``(document)``."""
    shown = ""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        shown += f"[{token}]" if token.isdigit() else f".{token}" if shown else token
    return shown or "(document)"


def is_list_object(value: Any) -> bool:
    """``value`` is a list object of the Responses API: ``{"object": "list", "data": [...]}``."""
    return isinstance(value, dict) and value.get("object") == "list" and isinstance(value.get("data"), list)


def is_session_data(data: Any) -> bool:
    """``data`` is a session page's entries: a non-empty array of objects, each with ``response_id`` and ``item``
    and no ``type`` (an item has a type; a wrapper holds one)."""
    return isinstance(data, list) and bool(data) and all(_wrapper(entry) for entry in data)


def _wrapper(entry: Any) -> bool:
    return isinstance(entry, dict) and "response_id" in entry and "item" in entry and "type" not in entry


def read_list(value: Any) -> ListReading:
    """A session page (the list object or its ``data`` array) or an input_items page read as its conversation
    (see the module docstring).

    :raises JournalError: a session entry that is not a wrapper, naming its pointer (``/data/<i>``).
    """
    if isinstance(value, list):
        return _session(value, "")
    data = value["data"]
    if "session_key" in value or any(_wrapper(entry) for entry in data):
        reading = _session(data, "/data")
        if value.get("has_more") is True:
            reading.partial = (
                f"this is one page of the session's items (has_more: true): the items after its {len(data)} "
                f"entries are not here; ask for the next page (a larger offset) and check the pages together"
            )
        return reading
    return _input_items(value)


def _session(data: list[Any], base: str) -> ListReading:
    reading = ListReading("session")
    context = _Context()  # the items read so far, each once
    turns: list[tuple[Any, list[int], list[int]]] = []  # (response id, input entries, output entries)
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or "item" not in entry:
            raise JournalError(
                f"{base}/{i}: not a session entry: expected an object {{response_id, source, index, item}}",
                pointer=f"{base}/{i}",
            )
        response = entry.get("response_id")
        if not turns or turns[-1][0] != response:
            turns.append((response, [], []))
        turns[-1][2 if entry.get("source") == "output" else 1].append(i)
    repeated = 0
    last_turn = 0  # where the previous turn's items begin in `context`
    for _, inputs, outputs in turns:
        first = data[inputs[0]] if inputs else None
        continues = first is not None and first.get("previous_response_id") is not None
        items = [data[i]["item"] for i in inputs]
        matches = [] if continues else replayed(items, context, last_turn)
        last_turn = len(context)
        for position, i in enumerate(inputs):
            if position < len(matches):
                reading.replays[i] = matches[position]
                continue
            _add(reading, context, data[i]["item"], f"{base}/{i}/item")
        repeated += len(matches)
        for i in outputs:
            _add(reading, context, data[i]["item"], f"{base}/{i}/item")
    if repeated:
        reading.notes.append(
            ReadingNote(
                "replayed_items",
                f"{repeated} input item{'s' if repeated != 1 else ''} of later turns repeat the conversation before "
                "them (the agent sent the whole history again, without previous_response_id): each is read once, "
                "where it first appeared",
                base,
            )
        )
    return reading


def _add(reading: ListReading, context: _Context, item: Any, origin: str) -> None:
    reading.items.append(item)
    reading.origins.append(origin)
    context.add(item)


class _Context:
    """The conversation read so far, indexed by what makes two items the same (:func:`same_item`), so that finding
    an earlier item costs a lookup, not a walk of the conversation (a session of thousands of turns stays linear)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._by_key: dict[Any, list[int]] = {}

    def __len__(self) -> int:
        return len(self.items)

    def add(self, item: Any) -> None:
        for key in _keys(item):
            self._by_key.setdefault(key, []).append(len(self.items))
        self.items.append(item)

    def find(self, item: Any, start: int) -> int | None:
        """The first position from ``start`` of an item that ``item`` is sent again, or ``None``."""
        found = None
        for key in _keys(item):
            positions = self._by_key.get(key, ())
            at = bisect.bisect_left(positions, start)
            if at < len(positions) and (found is None or positions[at] < found):
                found = positions[at]
        return found


def _keys(item: Any) -> list[Any]:
    """What :func:`same_item` compares, as hashable keys: the id, the type with the call_id, the body but its id."""
    if not isinstance(item, dict):
        return [("value", json.dumps(item, sort_keys=True))]
    keys: list[Any] = []
    known = item.get("id")
    if isinstance(known, str) and known:
        keys.append(("id", known))
    call_id = item.get("call_id")
    if isinstance(call_id, str) and call_id:
        keys.append(("call", json.dumps(item.get("type")), call_id))
    keys.append(("body", json.dumps({k: v for k, v in item.items() if k != "id"}, sort_keys=True)))
    return keys


def replayed(items: list[Any], context: list[Any] | _Context, last_turn: int = 0) -> list[int]:
    """How the leading ``items`` of a turn's input repeat ``context`` (the conversation read so far): for each
    leading item that is an earlier item sent again, the index in ``context`` of that item; the first item that is
    not ends the replay (it and what follows are the turn's new input).

    An agent that replays the history may leave items out (reasoning it cannot send back), so a replayed item may
    skip over earlier ones, but never goes back; and a replay of the whole conversation reaches the previous turn
    (whose items begin at ``last_turn`` in ``context``): a run that stops short of it is no replay, but a new
    conversation that begins as an earlier one did (``[]``). Items are the same as :func:`same_item` says.
    """
    if not isinstance(context, _Context):
        indexed = _Context()
        for earlier in context:
            indexed.add(earlier)
        context = indexed
    matches: list[int] = []
    start = 0
    for item in items:
        found = context.find(item, start)
        if found is None:
            break
        matches.append(found)
        start = found + 1
    return matches if matches and matches[-1] >= last_turn else []


def same_item(earlier: Any, later: Any) -> bool:
    """Whether ``later`` is ``earlier`` sent again: the same ``id``; or of one type with the same ``call_id`` (a
    call and its output are sent back as they were); or equal but for their ``id`` (the server gives an input item
    sent without an id a fresh one each turn)."""
    return bool(set(_keys(earlier)) & set(_keys(later)))


def _input_items(value: dict[str, Any]) -> ListReading:
    data = value["data"]
    reading = ListReading("input_items")
    order = value.get("order")
    assumed = False
    if order not in ("asc", "desc"):
        order = _order_of(data)
        assumed = order is None
        order = order or "desc"
    indices = list(range(len(data)))
    if order == "desc":
        indices.reverse()
    reading.items = [data[i] for i in indices]
    reading.origins = [f"/data/{i}" for i in indices]
    if assumed and len(data) > 1:
        reading.notes.append(
            ReadingNote(
                "input_items_order_assumed",
                "this input_items page does not say its order and holds no call with its output to tell it: read "
                "as the API's default, newest first (order=desc), and put oldest first; ask with order=asc to be "
                "sure",
                "/data",
            )
        )
    elif order == "desc" and len(data) > 1:
        how = "its order member says so" if value.get("order") == "desc" else "an output comes before its call"
        reading.notes.append(
            ReadingNote(
                "input_items_order",
                f"this input_items page lists newest first ({how}): read oldest first, in conversation order",
                "/data",
            )
        )
    if value.get("has_more") is True:
        after = value.get("last_id")
        ask = f"after={after}" if isinstance(after, str) else "after=<its last_id>"
        newest = " (newest first: the older ones)" if order == "desc" else ""
        reading.partial = (
            f"this is one page of the response's input items (has_more: true): the items beyond its {len(data)}"
            f"{newest} are not here; ask for the next page ({ask}) and check the pages together"
        )
    return reading


def _order_of(data: list[Any]) -> str | None:
    """``"asc"`` or ``"desc"`` as the calls and outputs of ``data`` tell it (an output listed after its call:
    oldest first), or ``None`` when they do not."""
    calls: dict[str, int] = {}
    outputs: dict[str, int] = {}
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("call_id"), str):
            continue
        kind = item.get("type")
        if kind == "function_call" or (isinstance(kind, str) and kind.endswith("_call")):
            calls.setdefault(item["call_id"], i)
        elif isinstance(kind, str) and kind.endswith("_output"):
            outputs.setdefault(item["call_id"], i)
    votes = [outputs[c] > calls[c] for c in calls.keys() & outputs.keys()]
    if not votes or votes.count(True) == votes.count(False):
        return None
    return "asc" if votes.count(True) > votes.count(False) else "desc"
