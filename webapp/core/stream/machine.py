"""The sequence rules of one stream: the response's, each item's and each content part's state machine, fed one
event at a time, building the items the stream describes as it goes.

After upstream's state-machine validator (spec notes §1.4: response ``idle -> created -> queued -> in_progress ->
completed | failed | incomplete``; an item ``added -> done``; a content part ``added -> done``; deltas only for what
is added and not finished) plus what the official suite skips (spec notes §3.8): deltas concatenate to their done
events, the done items to the final response's output, item and response statuses agree. Each broken rule is
reported through the ``report`` callable the linter hands in, with one of the codes of
:data:`webapp.core.stream.rules.RULES`.

An event that lacks what its rule needs (an ``item_id`` no item has, no ``output_index``) is reported once, and the
event is then attached to the item it can only mean (the one at its ``output_index``, else the last one added), so
one missing field is not a finding on every delta that follows it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from webapp.core.items import FUNCTION_CALL, MESSAGE, is_namespaced, tools_in
from webapp.core.json import quote
from webapp.core.stream import vocabulary as v
from webapp.core.stream.built import Item, Part, Report, check_final, first_difference

__all__ = ["StreamMachine", "looks_like_tool_call"]


_ALLOWED_FROM = {
    v.RESPONSE_CREATED: ("idle",),
    v.RESPONSE_QUEUED: ("idle", "created"),
    v.RESPONSE_IN_PROGRESS: ("idle", "created", "queued"),
    v.RESPONSE_COMPLETED: ("in_progress",),
    v.RESPONSE_INCOMPLETE: ("in_progress",),
    v.RESPONSE_FAILED: ("idle", "created", "queued", "in_progress"),
}
_STATE_OF = {kind: kind.removeprefix("response.") for kind in _ALLOWED_FROM}
_TERMINAL_STATES = tuple(v.TERMINAL_EVENTS.values())
# Text events: event type -> (part kind, index member, is it the done event, the done event's text member).
_TEXT_EVENTS: dict[str, tuple[str, str, bool, str]] = {}
for _delta, (_done, _member) in v.PART_TEXT_EVENTS.items():
    _TEXT_EVENTS[_delta] = ("content", "content_index", False, _member)
    _TEXT_EVENTS[_done] = ("content", "content_index", True, _member)
for _delta, (_done, _member) in v.SUMMARY_TEXT_EVENTS.items():
    _TEXT_EVENTS[_delta] = ("summary", "summary_index", False, _member)
    _TEXT_EVENTS[_done] = ("summary", "summary_index", True, _member)
# The deltas :meth:`StreamMachine._delta` takes on its fast path (a text delta into a content part, or arguments).
_DELTAS = frozenset((*v.PART_TEXT_EVENTS, v.FUNCTION_CALL_ARGUMENTS_DELTA))
# Tool-call markup that servers leak into text when their parser does not catch the model's call (vLLM #29725:
# Hermes-style tags; also Qwen's <function=...>, Mistral's [TOOL_CALLS] and the <|tool_call|> family).
_CALL_MARKUP = ("<tool_call>", "<function=", "[TOOL_CALLS]", "<|tool_call", "<｜tool▁call")


def looks_like_tool_call(text: str, tool_names: set[str]) -> str | None:
    """What in a message's ``text`` is a tool call the server should have streamed as a ``function_call`` item:
    tool-call markup (``<tool_call>``…), or the whole text a JSON object naming one of ``tool_names`` with
    ``arguments``/``parameters``. ``None`` when there is none."""
    for mark in _CALL_MARKUP:
        if mark in text:
            return f"tool-call markup {quote(mark)}"
    stripped = text.strip()
    if tool_names and stripped.startswith("{") and stripped.endswith("}"):
        try:
            value = json.loads(stripped)
        except ValueError:
            return None
        if (
            isinstance(value, dict)
            and value.get("name") in tool_names
            and ("arguments" in value or "parameters" in value)
        ):
            return f"a JSON call of the tool {quote(value['name'])}"
    return None


def _hashable(value: Any) -> Any:
    """``value`` as a key: itself when it is a JSON scalar, else its JSON text (an index or id that is an object
    is wrong, and must still be counted once, not crash the count)."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, tuple):
        return tuple(_hashable(part) for part in value)
    return json.dumps(value, sort_keys=True, default=str)


class StreamMachine:
    """The state of one stream. Call :meth:`feed` with each event (an object with a string ``type``) and its frame
    index, then :meth:`finish` once.

    :ivar items: the items in the order they were added; :ivar final: the terminal event's response (``None``
        until then); :ivar snapshot: the last response an event carried; :ivar terminal_at: the terminal event's
        frame index.
    """

    def __init__(self, report: Report) -> None:
        self.report = report
        self.state = "idle"
        self.response_id: Any = None
        self.terminal_at: int | None = None
        self.error_at: int | None = None
        self.final: dict[str, Any] | None = None
        self.snapshot: dict[str, Any] | None = None
        self.items: list[Item] = []
        self.by_key: dict[Any, Item] = {}
        self.by_index: dict[Any, Item] = {}
        self.incomplete: Item | None = None
        self.tool_names: set[str] = set()
        self.last_index: int | None = None
        self._said: set[tuple[str, Any]] = set()  # what was reported once for the whole stream
        self._handlers: dict[str, Callable[[dict[str, Any], int], None]] = {
            **dict.fromkeys(_ALLOWED_FROM, self._response),
            v.OUTPUT_ITEM_ADDED: self._item_added,
            v.OUTPUT_ITEM_DONE: self._item_done,
            v.CONTENT_PART_ADDED: self._part_added,
            v.REASONING_SUMMARY_PART_ADDED: self._part_added,
            v.CONTENT_PART_DONE: self._part_done,
            v.REASONING_SUMMARY_PART_DONE: self._part_done,
            **dict.fromkeys(_TEXT_EVENTS, self._text),
            v.OUTPUT_TEXT_ANNOTATION_ADDED: self._annotation,
            v.FUNCTION_CALL_ARGUMENTS_DELTA: self._arguments,
            v.FUNCTION_CALL_ARGUMENTS_DONE: self._arguments,
            v.ERROR: self._error,
        }

    # -------------------------------------------------------------------------------------------- helpers

    def once(self, code: str, key: Any, index: int | None, pointer: str, message: str) -> None:
        """Report ``code`` the first time it is met for ``key`` in this stream (later ones say nothing new)."""
        key = _hashable(key)
        if (code, key) not in self._said:
            self._said.add((code, key))
            self.report(code, index, pointer, message)

    def _live(self, kind: str, index: int) -> None:
        if self.state == "in_progress":
            return
        self.once(
            "response_transition",
            ("live", self.state),
            index,
            "/type",
            f"{kind} while the response is {self.state!r}: items stream only while it is in_progress"
            + ("" if self.state != "idle" else " (no response.in_progress came first)"),
        )

    def _item(self, event: dict[str, Any], index: int, kind: str) -> Item | None:
        """The item an event is about, by ``item_id``, else the one it can only mean; reports what is off."""
        item_id = event.get("item_id")
        item = self.by_key.get(item_id) if isinstance(item_id, str) else None
        if item is None:
            position = event.get("output_index")
            fallback = self.by_index.get(position) if isinstance(position, int) else None
            if fallback is None and self.items:
                fallback = self.items[-1]
            # An item_id that is missing or no string is the schema's finding already: said once, not twice.
            if isinstance(item_id, str):
                self.once(
                    "unknown_item",
                    ("item", item_id),
                    index,
                    "/item_id",
                    f"{kind} names item_id {quote(item_id)}, which no output_item.added announced"
                    + (
                        f"; read as about the item at output_index {quote(fallback.output_index)} (added at event "
                        f"{fallback.added_at})"
                        if fallback is not None
                        else ""
                    ),
                )
            item = fallback
            if item is None:
                return None
        elif item.state != "active":
            self.report(
                "item_transition",
                index,
                "/item_id",
                f"{kind} for item {quote(item.id)}, which output_item.done (event {item.done_at}) already finished",
            )
        position = event.get("output_index", ...)
        if position is not ... and position != item.output_index:
            self.report(
                "output_index",
                index,
                "/output_index",
                f"{kind} says output_index {quote(position)}; its item was added at {quote(item.output_index)}",
            )
        return item

    def _part(self, item: Item, event: dict[str, Any], index: int, kind: str, member: str) -> Part | None:
        key = (kind, _hashable(event.get(member)))
        part = item.parts.get(key)
        if part is None:
            self.once(
                "unknown_part",
                (item.key, key),
                index,
                f"/{member}",
                f"{event['type']} names {member} {quote(key[1])} of item {quote(item.id)}, which no "
                f"{'content_part' if kind == 'content' else 'reasoning_summary_part'}.added announced",
            )
            if item.parts:
                part = list(item.parts.values())[-1]
        return part

    # -------------------------------------------------------------------------------------------- events

    def feed(self, event: dict[str, Any], index: int) -> None:
        """One event (a dict with a string ``type``) at frame ``index``."""
        self.last_index = index
        kind = event["type"]
        if kind in _DELTAS and self.state == "in_progress" and self._delta(kind, event):
            return  # most events of a stream: a delta of a live item and part, nothing to report
        if self.terminal_at is not None:
            self.once(
                "after_terminal",
                "after",
                index,
                "/type",
                f"{kind} after the terminal event (event {self.terminal_at}): the response was already {self.state}",
            )
            return
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(event, index)

    def _delta(self, kind: str, event: dict[str, Any]) -> bool:
        """A delta that breaks no rule, appended where it belongs; ``False`` (nothing done) for any other, which the
        full handler then reads and reports on."""
        item_id = event.get("item_id")
        item = self.by_key.get(item_id) if item_id.__class__ is str else None
        delta = event.get("delta")
        if item is None or item.state != "active" or event.get("output_index") != item.output_index:
            return False
        if delta.__class__ is not str:
            return False
        if kind == v.FUNCTION_CALL_ARGUMENTS_DELTA:
            if item.type != FUNCTION_CALL or item.arguments_done is not None:
                return False
            item.arguments.append(delta)
            return True
        index = event.get("content_index")
        part = item.parts.get(("content", index)) if index.__class__ is int else None
        if part is None or part.state != "active" or part.text_done is not None:
            return False
        part.deltas.append(delta)
        return True

    def _response(self, event: dict[str, Any], index: int) -> None:
        kind = event["type"]
        allowed = _ALLOWED_FROM[kind]
        if self.state not in allowed:
            self.report(
                "response_transition",
                index,
                "/type",
                f"{kind} while the response is {self.state!r} (allowed only from {', '.join(allowed)})",
            )
        response = event.get("response")
        response = response if isinstance(response, dict) else {}
        status = response.get("status")
        if kind in v.TERMINAL_EVENTS:
            self.terminal_at = index
            self.final = response
            if status != v.TERMINAL_EVENTS[kind]:
                self.report(
                    "terminal_status",
                    index,
                    "/response/status",
                    f"{kind} carries a response whose status is {quote(status)}, not {quote(v.TERMINAL_EVENTS[kind])}",
                )
        elif status in _TERMINAL_STATES:
            self.report(
                "terminal_status",
                index,
                "/response/status",
                f"{kind} carries a response that is already {quote(status)}",
            )
        if self.response_id is None:
            self.response_id = response.get("id")
            self.tool_names = {name for name, _ in tools_in(response.get("tools"))}
        elif response.get("id") != self.response_id:
            self.report(
                "response_id",
                index,
                "/response/id",
                f"{kind} is about response {quote(response.get('id'))}; the stream began with "
                f"{quote(self.response_id)}",
            )
        self.snapshot = response
        self.state = _STATE_OF[kind]

    def _error(self, event: dict[str, Any], index: int) -> None:
        self.error_at = index

    def _item_added(self, event: dict[str, Any], index: int) -> None:
        self._live(event["type"], index)
        item = event.get("item")
        if not isinstance(item, dict):
            return  # the schema says what it is
        key = item.get("id")
        if not isinstance(key, str):
            key = ("position", len(self.items))  # no id (the schema reports it): known by its place
        if key in self.by_key:
            self.report(
                "duplicate_item",
                index,
                "/item/id",
                f"output_item.added for item {quote(key)} a second time (first: event {self.by_key[key].added_at})",
            )
            return
        if self.incomplete is not None:
            self.report(
                "incomplete_not_last",
                index,
                "/item",
                f"an item added after item {quote(self.incomplete.id)} ended incomplete (event "
                f"{self.incomplete.done_at}): an incomplete item must be the last one",
            )
        position = event.get("output_index", ...)
        if position is not ... and position != len(self.items):
            self.report(
                "output_index",
                index,
                "/output_index",
                f"item {quote(item.get('id'))} added at output_index {quote(position)}, expected {len(self.items)} "
                "(the next free index)",
            )
        if item.get("status") in v.FINISHED_STATUSES:
            self.report(
                "item_transition",
                index,
                "/item/status",
                f"item {quote(item.get('id'))} is added already {quote(item['status'])}: it is added in_progress",
            )
        tracked = Item(key, item, len(self.items) if position is ... else position, index)
        self.items.append(tracked)
        self.by_key[key] = tracked
        if isinstance(tracked.output_index, int):
            self.by_index.setdefault(tracked.output_index, tracked)

    def _part_added(self, event: dict[str, Any], index: int) -> None:
        kind_name = event["type"]
        self._live(kind_name, index)
        item = self._item(event, index, kind_name)
        if item is None:
            return
        summary = kind_name == v.REASONING_SUMMARY_PART_ADDED
        kind, member = ("summary", "summary_index") if summary else ("content", "content_index")
        if item.type == FUNCTION_CALL:
            self.report(
                "wrong_item_kind",
                index,
                "/item_id",
                f"{kind_name} for function_call item {quote(item.id)}: a call has arguments, not content parts",
            )
        key = (kind, _hashable(event.get(member)))
        if key in item.parts:
            self.report(
                "duplicate_part",
                index,
                f"/{member}",
                f"{kind_name} for {member} {quote(key[1])} of item {quote(item.id)} a second time",
            )
            return
        if key[1] != item.next_index[kind]:
            self.report(
                "content_index",
                index,
                f"/{member}",
                f"{kind_name} at {member} {quote(key[1])}, expected {item.next_index[kind]} (the next free index)",
            )
        item.next_index[kind] += 1
        item.parts[key] = Part(kind, key[1], index)

    def _text(self, event: dict[str, Any], index: int) -> None:
        kind_name = event["type"]
        self._live(kind_name, index)
        item = self._item(event, index, kind_name)
        if item is None:
            return
        kind, member, done, text_member = _TEXT_EVENTS[kind_name]
        part = self._part(item, event, index, kind, member)
        if part is None:
            return
        if part.state != "active":
            self.report(
                "part_transition",
                index,
                f"/{member}",
                f"{kind_name} for {member} {quote(part.index)} of item {quote(item.id)}, which content_part.done "
                "already finished",
            )
            return
        if not done:
            if part.text_done is not None:
                self.report(
                    "part_transition",
                    index,
                    "/delta",
                    f"{kind_name} after the part's text was done (its done event came)",
                )
            delta = event.get("delta")
            part.deltas.append(delta if isinstance(delta, str) else "")
            return
        if part.text_done is not None:
            self.report("part_transition", index, "/type", f"{kind_name} a second time for the same part")
        text = event.get(text_member)
        built = "".join(part.deltas)
        if text != built:
            self.report(
                "text_mismatch",
                index,
                f"/{text_member}",
                f"{kind_name} says {quote(text, 60)}; its {len(part.deltas)} deltas concatenate to {quote(built, 60)}",
            )
        part.text_done = text if isinstance(text, str) else built
        if item.type == MESSAGE and kind == "content":
            found = looks_like_tool_call(part.text_done, self.tool_names)
            if found is not None:
                self.report(
                    "tool_call_as_text",
                    index,
                    f"/{text_member}",
                    f"the text of message {quote(item.id)} holds {found}: the call is streamed as text deltas, not "
                    "as a function_call item with function_call_arguments events, so no client runs it",
                )

    def _annotation(self, event: dict[str, Any], index: int) -> None:
        self._live(event["type"], index)
        item = self._item(event, index, event["type"])
        if item is not None:
            self._part(item, event, index, "content", "content_index")

    def _arguments(self, event: dict[str, Any], index: int) -> None:
        kind_name = event["type"]
        self._live(kind_name, index)
        item = self._item(event, index, kind_name)
        if item is None:
            return
        if item.type != FUNCTION_CALL:
            self.report(
                "wrong_item_kind",
                index,
                "/item_id",
                f"{kind_name} for item {quote(item.id)} of type {quote(item.type)}: arguments belong to function_call "
                "items",
            )
        if item.arguments_done is not None:
            self.report("item_transition", index, "/type", f"{kind_name} after function_call_arguments.done")
        if kind_name == v.FUNCTION_CALL_ARGUMENTS_DELTA:
            delta = event.get("delta")
            item.arguments.append(delta if isinstance(delta, str) else "")
            return
        arguments = event.get("arguments")
        built = "".join(item.arguments)
        if arguments != built:
            self.report(
                "arguments_mismatch",
                index,
                "/arguments",
                f"function_call_arguments.done says {quote(arguments, 60)}; its {len(item.arguments)} deltas "
                f"concatenate to {quote(built, 60)}",
            )
        item.arguments_done = arguments if isinstance(arguments, str) else built

    def _part_done(self, event: dict[str, Any], index: int) -> None:
        kind_name = event["type"]
        self._live(kind_name, index)
        item = self._item(event, index, kind_name)
        if item is None:
            return
        summary = kind_name == v.REASONING_SUMMARY_PART_DONE
        kind, member = ("summary", "summary_index") if summary else ("content", "content_index")
        part = self._part(item, event, index, kind, member)
        if part is None:
            return
        if part.state != "active":
            self.report(
                "part_transition", index, "/type", f"{kind_name} a second time for {member} {quote(part.index)}"
            )
            return
        part.state = "completed"
        done = event["part"] if isinstance(event.get("part"), dict) else {}
        part.done_part = done
        part_type = done.get("type")  # any JSON value: a list as a key would raise
        member_text = v.PART_TEXT_FIELD.get(part_type) if isinstance(part_type, str) else None
        if member_text is not None and (part.deltas or part.text_done is not None):
            built = part.text()
            if done.get(member_text) != built:
                self.report(
                    "text_mismatch",
                    index,
                    f"/part/{member_text}",
                    f"{kind_name}'s part has {member_text} {quote(done.get(member_text), 60)}; the stream built "
                    f"{quote(built, 60)}",
                )

    def _item_done(self, event: dict[str, Any], index: int) -> None:
        self._live(event["type"], index)
        done = event.get("item")
        if not isinstance(done, dict):
            return
        key = done.get("id")
        item = self.by_key.get(key) if isinstance(key, str) else None
        if item is None:
            position = event.get("output_index")
            item = self.by_index.get(position) if isinstance(position, int) else None
            if item is None and not isinstance(key, str) and self.items:
                item = self.items[-1]
            if isinstance(key, str):  # a missing or non-string item.id is the schema's finding already
                self.once(
                    "unknown_item",
                    ("item", key),
                    index,
                    "/item/id",
                    f"output_item.done for item {quote(key)}, which no output_item.added announced",
                )
            if item is None:
                return
        if item.state != "active":
            self.report(
                "item_transition",
                index,
                "/item",
                f"output_item.done for item {quote(item.id)} a second time (first: event {item.done_at})",
            )
            return
        position = event.get("output_index", ...)
        if position is not ... and position != item.output_index:
            self.report(
                "output_index",
                index,
                "/output_index",
                f"output_item.done says output_index {quote(position)}; the item was added at "
                f"{quote(item.output_index)}",
            )
        status = done.get("status")
        if status not in v.FINISHED_STATUSES and not is_namespaced(item.type):
            self.report(
                "status_inconsistent",
                index,
                "/item/status",
                f"output_item.done gives item {quote(item.id)} status {quote(status)}: a done item is completed or "
                "incomplete",
            )
        for part in item.parts.values():
            if part.state == "active":
                self.report(
                    "part_not_done",
                    index,
                    "/item",
                    f"{part.kind} part {quote(part.index)} of item {quote(item.id)} (added at event {part.added_at}) "
                    "was never done before its item",
                )
        if item.type == FUNCTION_CALL and (item.arguments or item.arguments_done is not None):
            built = item.arguments_done if item.arguments_done is not None else "".join(item.arguments)
            if done.get("arguments") != built:
                self.report(
                    "arguments_mismatch",
                    index,
                    "/item/arguments",
                    f"output_item.done has arguments {quote(done.get('arguments'), 60)}; the stream built "
                    f"{quote(built, 60)}",
                )
        for (kind, part_index), part in item.parts.items():
            holder = done.get("summary" if kind == "summary" else "content")
            if (
                part.done_part is not None
                and isinstance(holder, list)
                and isinstance(part_index, int)
                and 0 <= part_index < len(holder)
                and holder[part_index] != part.done_part
            ):
                where = "summary" if kind == "summary" else "content"
                self.report(
                    "part_mismatch",
                    index,
                    f"/item/{where}/{part_index}",
                    f"item {quote(item.id)} {where}[{part_index}] differs from its part as done (event "
                    f"{part.added_at}'s part): {first_difference(holder[part_index], part.done_part)}",
                )
        item.state = "incomplete" if status == v.INCOMPLETE else "completed"
        item.done_item = done
        item.done_at = index
        if status == v.INCOMPLETE:
            self.incomplete = item

    # -------------------------------------------------------------------------------------------- the end

    def finish(self) -> None:
        """The end of the stream: what never ended, and the final response against what the stream built."""
        end = self.terminal_at if self.terminal_at is not None else self.last_index
        if self.terminal_at is None:
            self.report(
                "no_terminal",
                self.last_index,
                "",
                "the stream ends without response.completed, response.incomplete or response.failed",
            )
        if self.error_at is not None and self.state != "failed":
            self.report(
                "error_without_failed",
                self.error_at,
                "",
                f"this error event is not followed by response.failed (the response ended {self.state!r})",
            )
        for item in self.items:
            if item.state == "active":
                self.report(
                    "item_not_done",
                    end,
                    "",
                    f"item {quote(item.id)} ({quote(item.type)}, added at event {item.added_at}) never got its "
                    "output_item.done" + (" before the terminal event" if self.terminal_at is not None else ""),
                )
                for part in item.parts.values():
                    if part.state == "active":
                        self.report(
                            "part_not_done",
                            end,
                            "",
                            f"{part.kind} part {quote(part.index)} of item {quote(item.id)} (added at event "
                            f"{part.added_at}) was never done",
                        )
        if self.incomplete is not None and self.state != v.INCOMPLETE and self.terminal_at is not None:
            self.report(
                "incomplete_not_last",
                self.terminal_at,
                "/response/status",
                f"item {quote(self.incomplete.id)} ended incomplete (event {self.incomplete.done_at}) but the response "
                f"ended {self.state!r}, not 'incomplete'",
            )
        if self.final is not None and self.terminal_at is not None:
            check_final(self.final, self.items, self.terminal_at, self.report)
