"""A session's stored items as the sessions page shows them and ``/v1/sessions/{key}/items`` links to them.

Pure: the store's rows come in (``webapp.web.store.SessionItem``: ``response_id``, ``source``, ``index``, ``item``,
``previous_response_id``) with a callable giving the tools a stored response offered. Each item becomes an
:class:`Entry`: its JSON text, which the page sends to the JSON Format step, and for a function call the tool it
names, which the JSON Schema step checks it against (so that step shows the gate's verdict too). The entries are
grouped in :class:`Turn` s, one per response, each saying what it continues (``previous_response_id``) and which of
its input items repeat earlier ones (a client that sends the whole conversation each turn), as the journal step reads
the session (:mod:`webapp.core.journal.lists`); :func:`journal_text` is the session as that step reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from webapp.core.journal.lists import read_list

#: The most items the page shows; the rest are paged through ``/v1/sessions/{key}/items``.
PAGE_ITEMS = 1000
#: The most lines the index of stored sessions shows (the newest).
INDEX_LINES = 100
#: The most characters of an item's text the page shows at once (the whole item is in its JSON).
TEXT_CHARS = 2000


class SessionRow(Protocol):
    """One stored item of a session, in conversation order (``webapp.web.store.SessionItem``)."""

    @property
    def response_id(self) -> str: ...

    @property
    def source(self) -> str: ...  # "input" or "output"

    @property
    def index(self) -> int: ...  # its position in that response's input or output

    @property
    def item(self) -> dict[str, Any]: ...

    @property
    def previous_response_id(self) -> str | None: ...


@dataclass(frozen=True)
class Entry:
    """One item of the page.

    :param anchor: its fragment id on the page (:func:`anchor`).
    :param row: the stored row.
    :param document: the item as indented JSON text.
    :param tool: the tool a function call names, as indented JSON text, or ``None`` (no call, or no such tool).
    :param is_call: the item is a ``function_call``.
    :param replay_of: for an input item that repeats an earlier one (sent again with the whole conversation), the
        anchor of that earlier entry; else ``None``.
    :param text: what the item says (:func:`item_text`), or ``None``.
    """

    anchor: str
    row: SessionRow
    document: str
    tool: str | None
    is_call: bool
    replay_of: str | None = None
    text: str | None = None


@dataclass
class Turn:
    """One response of the session with its entries (its input, then its output), in order.

    :ivar response_id: the response; :ivar previous_response_id: what it continues, or ``None``.
    :ivar continues: the anchor of the turn it continues when that turn is on the page (``turn-<response id>``).
    """

    response_id: str
    previous_response_id: str | None
    entries: list[Entry] = field(default_factory=list)
    continues: str | None = None

    @property
    def anchor(self) -> str:
        """The turn's fragment id on the page: ``turn-<response id>``."""
        return f"turn-{self.response_id}"

    @property
    def replayed(self) -> int:
        """How many of its input items repeat earlier ones."""
        return sum(entry.replay_of is not None for entry in self.entries)


def anchor(response_id: str, source: str, index: int) -> str:
    """The fragment id of a stored item on the sessions page: ``<response id>-<source>-<index>``."""
    return f"{response_id}-{source}-{index}"


def journal_text(rows: Sequence[SessionRow], *, truncated: bool = False) -> str:
    """The session as ``GET /v1/sessions/{key}/items`` lists it (its entries' ``response_id``, ``source``, ``index``,
    ``previous_response_id``, ``item``; ``has_more`` when the page shows only the first rows): what the page carries
    to the journal step, which reads it as the conversation it holds."""
    data = [_wrapper(row) for row in rows]
    return json.dumps({"object": "list", "data": data, "has_more": truncated}, indent=2, ensure_ascii=False)


def tools_text(rows: Sequence[SessionRow], tools_of: Callable[[str], list[Any] | None]) -> str:
    """The tools the session's responses offered, each name once (the latest response's definition), as indented
    JSON text: what the page carries to the journal step beside the session (``""`` when none is known)."""
    by_name: dict[Any, Any] = {}
    for response_id in dict.fromkeys(row.response_id for row in rows):
        for tool in tools_of(response_id) or ():
            if isinstance(tool, dict):
                by_name[tool.get("name")] = tool
    return json.dumps(list(by_name.values()), indent=2, ensure_ascii=False) if by_name else ""


def _wrapper(row: SessionRow) -> dict[str, Any]:
    return {
        "response_id": row.response_id,
        "source": row.source,
        "index": row.index,
        "previous_response_id": row.previous_response_id,
        "item": row.item,
    }


def turns(page_entries: Sequence[Entry]) -> list[Turn]:
    """The entries grouped by response, in order, each input item that repeats an earlier one marked as the journal
    step reads it (:func:`webapp.core.journal.lists.read_list`), and each turn linked to the one it continues."""
    result: list[Turn] = []
    for entry in page_entries:
        row = entry.row
        if not result or result[-1].response_id != row.response_id:
            result.append(Turn(row.response_id, row.previous_response_id))
        result[-1].entries.append(entry)
    if not page_entries:
        return result
    reading = read_list([_wrapper(entry.row) for entry in page_entries])
    first_of = {origin: int(origin.split("/")[1]) for origin in reading.origins}  # item's pointer -> its entry
    number = 0  # each entry's position on the page: its index in the session page's data
    for turn in result:
        for position, entry in enumerate(turn.entries):
            repeated = reading.replays.get(number)
            if repeated is not None:
                earlier = page_entries[first_of[reading.origins[repeated]]]
                turn.entries[position] = _replay(entry, earlier.anchor)
            number += 1
    on_page = {turn.response_id for turn in result}
    for turn in result:
        if turn.previous_response_id in on_page:
            turn.continues = f"turn-{turn.previous_response_id}"
    return result


def _replay(entry: Entry, earlier: str) -> Entry:
    return replace(entry, replay_of=earlier)


def item_text(item: dict[str, Any]) -> str | None:
    """What an item says, to read without opening its JSON: a message's text parts (``text``, or a refusal's
    ``refusal``), one a paragraph; a call's name and arguments, ``name(arguments)`` (a custom tool call's
    ``input`` in their place); an output's ``output`` (its text parts when it is a list); a reasoning item's
    summary. ``None`` when it holds none of these. At most :data:`TEXT_CHARS` characters, then ``…``.

    Item shapes: the Open Responses specification, Items (``Message``, ``FunctionCall``, ``FunctionCallOutput``,
    ``Reasoning``), /work/shared/reference/openresponses-openapi.json.
    """
    kind = item.get("type")
    text: str | None
    if kind in ("function_call", "custom_tool_call"):
        said = item.get("arguments") if kind == "function_call" else item.get("input")
        text = f"{item.get('name')}({said if isinstance(said, str) else json.dumps(said, ensure_ascii=False)})"
    elif kind in ("function_call_output", "custom_tool_call_output"):
        text = _parts(item.get("output"))
    elif kind == "reasoning":
        text = _parts(item.get("summary"))
    else:
        text = _parts(item.get("content"))
    if not text:
        return None
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + "…"


def _parts(value: Any) -> str | None:
    """A string as it is; a list of content parts as their texts, one a paragraph; else ``None``."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    texts = []
    for part in value:
        said = part.get("text", part.get("refusal")) if isinstance(part, dict) else None
        if isinstance(said, str) and said:
            texts.append(said)
    return "\n\n".join(texts) or None


def entries(rows: Sequence[SessionRow], tools_of: Callable[[str], list[Any] | None]) -> list[Entry]:
    """The page's entries for ``rows``, in order.

    :param tools_of: the ``tools`` of a stored response (its ``ResponseResource``'s), or ``None`` when it is no
        longer stored; asked once per response that has a function call among ``rows``.
    """
    tools_by_response: dict[str, dict[str, Any]] = {}  # response id -> its tools by name, read once
    result = []
    for row in rows:
        is_call = row.item.get("type") == "function_call"
        tool = None
        if is_call:
            if row.response_id not in tools_by_response:
                offered = tools_of(row.response_id) or []
                tools_by_response[row.response_id] = {
                    t["name"]: t for t in offered if isinstance(t, dict) and isinstance(t.get("name"), str)
                }
            name = row.item.get("name")
            tool = tools_by_response[row.response_id].get(name) if isinstance(name, str) else None
        result.append(
            Entry(
                anchor(row.response_id, row.source, row.index),
                row,
                json.dumps(row.item, indent=2, ensure_ascii=False),
                json.dumps(tool, indent=2, ensure_ascii=False) if tool is not None else None,
                is_call,
                text=item_text(row.item),
            )
        )
    return result
