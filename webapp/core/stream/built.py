"""The items a stream builds, as a client accumulating the events holds them, and the final response against them.

An :class:`Item` starts as its ``output_item.added`` item; its ``function_call_arguments`` deltas, content parts and
text deltas build it; its ``output_item.done`` item replaces it (what clients do). :func:`check_final` compares the
terminal event's response with what was built (spec notes §3.8: "``output_item.done.item`` deep-equals the matching
item in the final ``response.output``") and checks that item and response statuses agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webapp.core.items import FUNCTION_CALL, is_namespaced
from webapp.core.json import quote
from webapp.core.stream import vocabulary as v

__all__ = ["Item", "Part", "Report", "check_final", "first_difference"]

#: ``report(code, index, pointer, message)``: index is the frame's (``None``: the stream's last frame).
Report = Callable[[str, "int | None", str, str], None]


class Part:
    """One content (or summary) part: its state, the text its deltas built, and the part as done."""

    __slots__ = ("kind", "index", "state", "deltas", "text_done", "done_part", "added_at")

    def __init__(self, kind: str, index: Any, added_at: int) -> None:
        self.kind = kind
        self.index = index
        self.state = "active"
        self.deltas: list[str] = []
        self.text_done: str | None = None
        self.done_part: dict[str, Any] | None = None
        self.added_at = added_at

    def text(self) -> str:
        """The text the stream built for this part (its done text when it came)."""
        return self.text_done if self.text_done is not None else "".join(self.deltas)


class Item:
    """One output item: its state, where its events are, and the item as the stream built it."""

    __slots__ = (
        "key",
        "id",
        "output_index",
        "type",
        "state",
        "added_at",
        "done_at",
        "added",
        "done_item",
        "arguments",
        "arguments_done",
        "parts",
        "next_index",
    )

    def __init__(self, key: Any, item: dict[str, Any], output_index: Any, added_at: int) -> None:
        self.key = key
        self.id = item.get("id")
        self.output_index = output_index
        self.type = item.get("type")
        self.state = "active"
        self.added_at = added_at
        self.done_at: int | None = None
        self.added = item
        self.done_item: dict[str, Any] | None = None
        self.arguments: list[str] = []
        self.arguments_done: str | None = None
        self.parts: dict[tuple[str, Any], Part] = {}
        self.next_index = {"content": 0, "summary": 0}

    def built(self) -> dict[str, Any]:
        """The item as a client holds it: the done item, else the added one with what its deltas built."""
        if self.done_item is not None:
            return self.done_item
        item = dict(self.added)
        if self.type == FUNCTION_CALL:
            item["arguments"] = self.arguments_done if self.arguments_done is not None else "".join(self.arguments)
        for (kind, index), part in self.parts.items():
            holder = "summary" if kind == "summary" else "content"
            parts = list(item.get(holder) or [])
            shown = part.done_part if part.done_part is not None else {"type": "output_text", "text": part.text()}
            if isinstance(index, int) and 0 <= index < len(parts):
                parts[index] = shown
            else:
                parts.append(shown)
            item[holder] = parts
        return item


def first_difference(left: Any, right: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``<pointer>: <left> != <right>`` (for messages)."""
    while True:
        if isinstance(left, dict) and isinstance(right, dict):
            key = next(
                (k for k in [*left, *(k for k in right if k not in left)] if left.get(k, ...) != right.get(k, ...)),
                None,
            )
            if key is None:
                break
            left, right, path = left.get(key, "(absent)"), right.get(key, "(absent)"), f"{path}/{key}"
            continue
        if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
            index = next((i for i, (a, b) in enumerate(zip(left, right, strict=True)) if a != b), None)
            if index is None:
                break
            left, right, path = left[index], right[index], f"{path}/{index}"
            continue
        break
    return f"{path or '(the whole value)'}: {quote(left, 60)} != {quote(right, 60)}"


def check_final(final: dict[str, Any], items: list[Item], at: int, report: Report) -> None:
    """The final response (the terminal event's, at frame ``at``) against the ``items`` the stream built: the same
    items in the same order, and statuses that agree (Open Responses spec, Items: state machine; spec notes §3.8)."""
    output = final.get("output")
    if not isinstance(output, list):
        return  # the schema says what it is
    built = [item.built() for item in items]
    if len(output) != len(built):
        report(
            "output_mismatch",
            at,
            "/response/output",
            f"the final response has {len(output)} output item(s); the stream built {len(built)}",
        )
    for position, (mine, theirs) in enumerate(zip(built, output, strict=False)):
        if mine != theirs:
            report(
                "output_mismatch",
                at,
                f"/response/output/{position}",
                f"output[{position}] differs from the item the stream built (added at event "
                f"{items[position].added_at}): {first_difference(theirs, mine)}",
            )
    status = final.get("status")
    for position, item in enumerate(output):
        if not isinstance(item, dict) or is_namespaced(item.get("type")):
            continue
        item_status = item.get("status")
        if item_status == v.INCOMPLETE and position != len(output) - 1:
            report(
                "incomplete_not_last",
                at,
                f"/response/output/{position}/status",
                f"output[{position}] is incomplete but {len(output) - 1 - position} item(s) follow it",
            )
        elif status == "completed" and item_status not in (None, "completed"):
            report(
                "status_inconsistent",
                at,
                f"/response/output/{position}/status",
                f"the response is completed but output[{position}] says {quote(item_status)}",
            )
    if status == v.INCOMPLETE:
        if not (final.get("incomplete_details") or {}).get("reason"):
            report(
                "incomplete_details",
                at,
                "/response/incomplete_details",
                "the response is incomplete without a reason",
            )
        last = output[-1] if output else None
        if isinstance(last, dict) and last.get("status") == "completed":
            report(
                "status_inconsistent",
                at,
                f"/response/output/{len(output) - 1}/status",
                f"the response is incomplete but its last item, output[{len(output) - 1}] (the one being made "
                "when it was cut), says completed: only items that finished before the cut are completed, so it "
                "must say incomplete",
            )
