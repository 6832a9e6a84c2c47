"""What every writer shares: the answer (:class:`Written`), its notes, and the reading of ``<provider>:`` members.

A writer is the inverse of one converter (:mod:`webapp.core.convert`): it takes Open Responses items and writes the
body a provider's API takes, restoring its own provider's ``"<provider>:<member>"`` members on the block or part
they came from (docs/targets.md, "How items carry provider state"). It decides no replay policy — which items and
members may go to a target is the gate's (``webapp/core/gate/targets.py``) — but what it cannot write it leaves out
with an :class:`ExportNote`, never silently (docs/targets.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.convert.gemini import BOOKKEEPING
from webapp.core.items import provider_of
from webapp.core.json import pointer as jp

#: Note codes, each with what it means for the body.
EXPORT_NOTE_CODES = {
    "member_left_out": "a member of another provider (or one no field of this target holds) was left out",
    "item_left_out": "an item this target's body cannot carry was left out",
    "part_left_out": "a content part this target's body cannot carry was left out",
    "system_moved": "a system or developer message was written where this target keeps its instructions",
    "arguments_not_object": "the call's arguments are not a JSON object, which this target's calls must be",
    "text_joined": "several text parts were written as one text, as this target's shape holds one",
    "tool_left_out": "a tool definition this target cannot take was left out",
    "name_unknown": "an output whose call is not among the items: the call's name is not known",
    "results_first": "tool results were put before the other blocks of their user message, as this target requires",
    "setting_left_out": "a setting of the request (or one asked beside it) was left out: this target's body has no "
    "member certain to mean the same, or it is another provider's model",
    "setting_added": "a setting the target's rules require was added to the body",
    "setting_required": "a member the target's request requires is not in the body: no one gave it",
}


@dataclass(frozen=True)
class ExportNote:
    """Something a writer could not write as it was.

    :ivar code: one of :data:`EXPORT_NOTE_CODES`.
    :ivar message: one sentence naming the value.
    :ivar index: the item (of those handed to the writer) it concerns, or ``None`` (a tool definition, or a
        message of the body as a whole).
    :ivar pointer: RFC 6901 pointer inside that item (or, when ``index`` is ``None``, inside ``tools``; for a
        ``setting_…`` code, the request's member: ``/model``).
    """

    code: str
    message: str
    index: int | None
    pointer: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The note as JSON: ``{index, pointer, code, message}``."""
        return {"index": self.index, "pointer": self.pointer, "code": self.code, "message": self.message}


@dataclass
class Written:
    """A target's request body and what the writer could not put in it.

    :ivar body: the JSON body the target's API takes (``{"input": [...]}``, ``{"system", "messages", "tools"}``, …).
    :ivar notes: :class:`ExportNote` s in item order.
    """

    body: dict[str, Any]
    notes: list[ExportNote] = field(default_factory=list)

    def note(self, code: str, message: str, index: int | None, pointer: str = "") -> None:
        """Record an :class:`ExportNote` (``code`` one of :data:`EXPORT_NOTE_CODES`)."""
        assert code in EXPORT_NOTE_CODES, code
        self.notes.append(ExportNote(code, message, index, pointer))


def own_members(value: dict, provider: str) -> dict[str, Any]:
    """``value``'s ``"<provider>:<name>"`` members as ``{name: value}``, in their order."""
    prefix = f"{provider}:"
    return {k[len(prefix) :]: v for k, v in value.items() if isinstance(k, str) and k.startswith(prefix)}


def leave_out_foreign(written: Written, value: dict, provider: str | None, index: int, where: str) -> None:
    """Note each member of ``value`` that belongs to another provider than ``provider`` (``None``: to any
    provider), as left out (:func:`webapp.core.items.provider_of` says whose a member is); the Gemini converter's
    bookkeeping (:data:`webapp.core.convert.gemini.BOOKKEEPING`) is no provider data and needs no note."""
    for key in value:
        owner = provider_of(key) if ":" in str(key) else None
        if owner is not None and owner != provider and key not in BOOKKEEPING:
            written.note(
                "member_left_out",
                f"{key!r} is {owner}'s own: left out",
                index,
                jp.child(where, key),
            )


def without_members(value: dict) -> dict[str, Any]:
    """``value`` without its ``<provider>:`` members (names with a colon are never Open Responses fields)."""
    return {k: v for k, v in value.items() if not (isinstance(k, str) and ":" in k)}


def parts_of(item: dict) -> list[Any]:
    """A message item's content parts (a string content is one ``input_text`` part)."""
    content = item.get("content")
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return content if isinstance(content, list) else []


def reasoning_text(item: dict) -> str | None:
    """The text of a reasoning item's ``reasoning_text`` parts, joined, or ``None`` when it has none."""
    texts = [
        p["text"]
        for p in item.get("content") or ()
        if isinstance(p, dict) and p.get("type") == "reasoning_text" and isinstance(p.get("text"), str)
    ]
    return "".join(texts) if texts else None


def arguments_object(written: Written, item: dict, index: int) -> dict | None:
    """A call's ``arguments`` string parsed, when it is a JSON object; else ``None``, with a note."""
    arguments = item.get("arguments")
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        written.note(
            "arguments_not_object",
            f"the arguments of call {json.dumps(item.get('call_id'))} are not a JSON object: the call is left out",
            index,
            "/arguments",
        )
        return None
    return value


def call_names(items: list[Any]) -> dict[Any, Any]:
    """Each ``function_call``'s ``call_id`` and its ``name`` (what an output needs where the target names it)."""
    return {
        item.get("call_id"): item.get("name")
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call"
    }


def data_url(url: Any) -> tuple[str, str] | None:
    """``(media_type, base64 data)`` of a ``data:<type>;base64,<data>`` URL, else ``None``."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, comma, data = url[5:].partition(",")
    if not comma or not head.endswith(";base64"):
        return None
    return head[: -len(";base64")] or "application/octet-stream", data


def function_tools(written: Written, tools: list[Any] | None) -> list[dict]:
    """The flat function tools of ``tools`` (the converters' shape); any other tool left out with a note."""
    out = []
    for i, tool in enumerate(tools or ()):
        if isinstance(tool, dict) and tool.get("type") == "function" and isinstance(tool.get("name"), str):
            out.append(tool)
        else:
            kind = tool.get("type") if isinstance(tool, dict) else None
            written.note(
                "tool_left_out", f"tool {i} ({json.dumps(kind)}) is not a function tool: left out", None, f"/{i}"
            )
    return out
