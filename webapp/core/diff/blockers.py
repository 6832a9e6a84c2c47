"""Replay blockers, pure: the differences between two items that must stop a replay, shown above the change list.

The replay-gate article, step 3: "if ``type`` became a colon extension or ``call_id`` does not match, do not send
the next request". Items are compared pairwise as the diff (:mod:`webapp.core.diff`) matched them: the documents
themselves when both are objects, and the items of a root array or of a root ``input``/``output``/``items``. The
right side's ``arguments`` are read as the gate reads them (:func:`webapp.core.gate.check_item`), and item types
come from :mod:`webapp.core.items`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from webapp.core import gate
from webapp.core.items import RUNNABLE_STATUS, is_namespaced
from webapp.core.json import pointer as jp
from webapp.core.json import quote

__all__ = ["BLOCKERS", "ITEM_ARRAYS", "Blocker", "item_blockers", "replay_blockers"]

BLOCKERS = (
    "namespaced",
    "type_changed",
    "call_id",
    "name",
    "status",
    "arguments_type",
    "arguments_parse",
    "chat_completions",
)
"""Codes of :class:`Blocker` (``arguments_type``/``arguments_parse``: the gate refuses the right side's
``arguments`` before any schema is involved; ``chat_completions``: a Chat Completions message where an Open
Responses item belongs)."""

#: Items in arrays at these root members (or in a root array) are Open Responses items: blockers are checked there.
ITEM_ARRAYS = ("input", "output", "items")

_MISSING = object()  # a member one side does not have (not JSON null)


@dataclass(frozen=True)
class Blocker:
    """A difference that must stop the replay.

    :ivar code: one of :data:`BLOCKERS`.
    :ivar pointer: RFC 6901 pointer to where (in the right document, or the left one when the item exists only
        there).
    :ivar message: plain words naming the rule.
    """

    code: str
    pointer: str
    message: str


def replay_blockers(
    left: Any, right: Any, pairs: Iterable[tuple[str, Any, Any]], added: Iterable[tuple[str, Any]]
) -> list[Blocker]:
    """Every blocker between two documents, in the order the diff found the items.

    :param left: the document from the source provider; ``right``: the one about to be replayed (parsed JSON).
        Two objects are compared as items themselves unless one holds items (an array at one of
        :data:`ITEM_ARRAYS`: a response or a request, whose ``status`` is not an item's).
    :param pairs: ``(pointer in the right document, left item, right item)`` for each matched pair of items that
        differ. :param added: ``(pointer, item)`` for each item only the right side has.
    """
    found = []
    if isinstance(left, dict) and isinstance(right, dict) and not (_holds_items(left) or _holds_items(right)):
        found.extend(item_blockers(left, right, ""))
    for where, a, b in pairs:
        found.extend(item_blockers(a, b, where))
    for where, b in added:
        if isinstance(b, dict) and is_namespaced(b.get("type")):
            found.append(
                Blocker(
                    "namespaced",
                    where,
                    f"added item has type {_show(b['type'])}: a provider-"
                    "namespaced extension, not portable to another provider",
                )
            )
        elif isinstance(b, dict) and "tool_calls" in b:
            found.append(
                Blocker(
                    "chat_completions",
                    where,
                    "added item is a Chat Completions message with a tool_calls envelope, not an Open Responses item",
                )
            )
        elif isinstance(b, dict):
            found.extend(_unrunnable(b, where, "on the added item"))
    return found


def item_blockers(a: Any, b: Any, where: str) -> list[Blocker]:
    """Blockers for one matched pair of items: ``a`` from the left document, ``b`` from the right one, at pointer
    ``where`` (in the right document). Not two objects: none."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return []
    found = []
    envelope = [side for side, item in (("left", a), ("right", b)) if "tool_calls" in item]
    if envelope:
        sides = " and ".join(envelope)
        return [
            Blocker(
                "chat_completions",
                where,
                f"the {sides} side {'is' if len(envelope) == 1 else 'are'} a Chat Completions message with "
                "a tool_calls envelope, not an Open Responses item: do not mix them in one journal; "
                "an Open Responses call is a function_call item with type, call_id and a string arguments",
            )
        ]
    # _MISSING, not None: an item without a type reads "(missing)", one with "type": null reads null.
    old_type, new_type = a.get("type", _MISSING), b.get("type", _MISSING)
    if old_type != new_type:
        if is_namespaced(new_type):
            found.append(
                Blocker(
                    "namespaced",
                    where,
                    f"type changed from {_show(old_type)} to {_show(new_type)}: a provider-namespaced "
                    "extension (colon in type), not a portable function_call; it may not be replayed on "
                    "another provider",
                )
            )
        else:
            found.append(
                Blocker(
                    "type_changed",
                    where,
                    f"type changed from {_show(old_type)} to {_show(new_type)}: not the same kind of item",
                )
            )
    elif is_namespaced(new_type):
        # The same extension on both sides is still an extension: the gate's first reason (namespaced).
        found.append(
            Blocker(
                "namespaced",
                where,
                f"the item is {_show(new_type)} on both sides: a provider-namespaced extension (colon in "
                "type), not a portable function_call; it may not be replayed on another provider",
            )
        )
    for member in ("call_id", "name"):
        if a.get(member, _MISSING) != b.get(member, _MISSING) and (member in a or member in b):
            found.append(
                Blocker(
                    member,
                    where,
                    f"{member} changed from {_show(a.get(member, _MISSING))} to "
                    f"{_show(b.get(member, _MISSING))}: not the same call",
                )
            )
    found.extend(_unrunnable(b, where, "on the right", f" (left: {_show(a.get('status', _MISSING))})"))
    return found


def _unrunnable(b: dict, where: str, side: str, was: str = "") -> list[Blocker]:
    """What stops the replay of the right side's item ``b`` whatever the left one was: a status other than
    ``completed``, and for a function_call the gate up to its schema step (any schema passes: an object or a
    cut-off string in ``arguments`` stops it whatever the tool's schema says). ``side``: which item, for the
    messages (``was``: the left item's status, when there is one)."""
    found = []
    if "status" in b and b["status"] != RUNNABLE_STATUS:
        found.append(
            Blocker(
                "status",
                where,
                f"status is {_show(b['status'])} {side}{was}: only a completed call "
                "may be replayed and given a function_call_output",
            )
        )
    if b.get("type") == "function_call":
        verdict = gate.check_item({**b, "status": RUNNABLE_STATUS}, True)
        if verdict.reason in ("arguments_type", "arguments_parse"):
            found.append(Blocker(verdict.reason, jp.child(where, "arguments"), f"{side}, {verdict.message}"))
    return found


def _holds_items(document: dict) -> bool:
    """The document is an envelope of items (a response's ``output``, a request's ``input``), not an item."""
    return any(isinstance(document.get(member), list) for member in ITEM_ARRAYS)


def _show(value: Any) -> str:
    """A member's value for a message: JSON text, or ``(missing)``."""
    return "(missing)" if value is _MISSING else quote(value)
