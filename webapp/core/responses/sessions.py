"""A session's stored items as the sessions page shows them and ``/v1/sessions/{key}/items`` links to them.

Pure: the store's rows come in (``webapp.web.store.SessionItem``: ``response_id``, ``source``, ``index``, ``item``)
with a callable giving the tools a stored response offered. Each item becomes an :class:`Entry`: its JSON text,
which the page sends to the JSON Format step, and for a function call the tool it names, which the JSON Schema step
checks it against (so that step shows the gate's verdict too).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The most items the page shows; the rest are paged through ``/v1/sessions/{key}/items``.
PAGE_ITEMS = 1000


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


@dataclass(frozen=True)
class Entry:
    """One item of the page.

    :param anchor: its fragment id on the page (:func:`anchor`).
    :param row: the stored row.
    :param document: the item as indented JSON text.
    :param tool: the tool a function call names, as indented JSON text, or ``None`` (no call, or no such tool).
    :param is_call: the item is a ``function_call``.
    """

    anchor: str
    row: SessionRow
    document: str
    tool: str | None
    is_call: bool


def anchor(response_id: str, source: str, index: int) -> str:
    """The fragment id of a stored item on the sessions page: ``<response id>-<source>-<index>``."""
    return f"{response_id}-{source}-{index}"


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
            )
        )
    return result
