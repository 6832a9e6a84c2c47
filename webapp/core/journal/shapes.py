"""The shapes a stored conversation ("journal") of Open Responses items is kept in, read into a :class:`Journal`.

Accepted, detected automatically (Open Responses spec, ``CreateResponseBody`` and ``ResponseResource``):

* a JSON array of items;
* JSON Lines, one item per line (blank lines skipped);
* a ``ResponseResource`` (``{"object": "response", "output": [...], "tools": [...], "tool_choice": ...}``): its
  ``output`` is the journal;
* a ``CreateResponseBody`` (``{"input": ..., "tools": [...]}``): its ``input``; a string ``input`` is one user
  message;
* a single item (an object with ``type``): a journal of one;
* a ``/v1/sessions/{key}/items`` page (or its ``data`` array) and a ``/v1/responses/{id}/input_items`` page: the
  conversation they hold, unwrapped, each item once, oldest first (:mod:`webapp.core.journal.lists`); a page with
  ``has_more: true`` says it is partial (:attr:`Journal.partial`).

A text is read once (:func:`webapp.core.journal.text.read_text`: plain JSON, not I-JSON, so that a journal holding a
lone surrogate or a duplicate member name is still answered about rather than refused) and shaped by
:func:`from_text`; a parsed value by :func:`from_value`. A member name given twice is kept as a
:class:`Duplicate` (the gate reports it: a parser that keeps the first value may see another item, e.g. a
namespaced or unfinished call, so an ambiguous item must never run).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.journal.lists import ReadingNote, is_list_object, is_session_data, place_of, read_list
from webapp.core.journal.settings import RequestSettings, read_settings
from webapp.core.journal.text import JournalError, JournalText, read_text
from webapp.core.json import DEFAULT_MAX_DEPTH, JSONWarning, kind_of
from webapp.core.json import pointer as jp

__all__ = ["Journal", "Duplicate", "load_journal", "from_text", "from_value", "one_item", "record_problem", "SHAPES"]

# shape -> where its items live, for messages ("output[2]", "line 3")
SHAPES = ("array", "jsonl", "response", "request", "item", "session", "input_items")


@dataclass(frozen=True)
class Duplicate:
    """A member name given twice in the journal's JSON text (the parse layer's warning ``duplicate_key``).

    :ivar index: the item holding it (its position in :attr:`Journal.items`), or ``None`` when it is outside
        the items (the response's envelope, its tools) or was counted but not located in a very big text.
    :ivar pointer: RFC 6901 pointer of the member in the text it was read from (for JSON Lines, in its line's
        record); ``""`` when not located.
    :ivar line: 1-based line of the second occurrence in that text.
    :ivar column: 1-based column of the second occurrence.
    :ivar message: the parser's words (both places; which value is kept).
    """

    index: int | None
    pointer: str
    line: int
    column: int
    message: str


@dataclass
class Journal:
    """Items to gate, with the tools and ``tool_choice`` the journal carries (if any).

    :ivar items: the items, in order (``index`` in reports = position here).
    :ivar tools: the tool definitions found in the document, or ``None`` when it has none.
    :ivar tool_choice: the document's ``tool_choice``, or ``None``.
    :ivar shape: one of :data:`SHAPES`.
    :ivar lines: for JSON Lines, the 1-based line of each item (of each record, for a session's entries given one
        per line: :attr:`origins` then start with the record's index).
    :ivar duplicates: member names given twice in the text the journal was read from, in text order.
    :ivar origins: the RFC 6901 pointer of each item in the document, when an item's place is not its position
        (a session page's ``/data/3/item``); else ``None``.
    :ivar partial: the sentence saying that the document is one page of a longer list (``has_more: true``), else
        ``None``; the gate makes it a ``partial_journal`` finding.
    :ivar notes: what reading the document changed (:class:`webapp.core.journal.lists.ReadingNote`), and each
        setting of its request the rules cannot read (``setting_unread``:
        :data:`webapp.core.journal.settings.SETTING_NOTES`).
    :ivar settings: the request's own settings (a ``CreateResponseBody``'s members besides ``input`` and
        ``tools``; a response's ``model``, ``store``, ``reasoning``, …): :class:`RequestSettings`, empty for the
        other shapes.
    """

    items: list[Any]
    tools: list[Any] | None = None
    tool_choice: Any = None
    shape: str = "array"
    lines: list[int] = field(default_factory=list)
    duplicates: list[Duplicate] = field(default_factory=list)
    origins: list[str] | None = None
    partial: str | None = None
    notes: list[ReadingNote] = field(default_factory=list)
    settings: RequestSettings = field(default_factory=RequestSettings)

    @property
    def store(self) -> bool | None:
        """The settings' ``store`` (``False``: the provider keeps nothing, so reasoning goes back by its
        ``encrypted_content`` only: docs/targets.md O3)."""
        return self.settings.store

    def where(self, index: int) -> str:
        """Where item ``index`` is in the source: ``line 4``, ``output[2]``, ``input[0]``, ``data[3].item`` or
        ``[3]``."""
        if self.shape == "jsonl" and index < len(self.lines):
            return f"line {self.lines[index]}"
        if self.origins is not None and 0 <= index < len(self.origins):
            tokens = jp.split(self.origins[index])
            if self.lines and tokens and tokens[0].isdigit() and int(tokens[0]) < len(self.lines):
                return f"line {self.lines[int(tokens[0])]}, {'.'.join(tokens[1:])}"  # a record of JSON Lines
            return place_of(self.origins[index])
        prefix = {"response": "output", "request": "input"}.get(self.shape, "")
        return f"{prefix}[{index}]"


def load_journal(source: str | bytes | list | dict, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Journal:
    """Read a journal from text (JSON or JSON Lines) or from an already parsed value.

    :param source: JSON text or bytes (UTF-8, a BOM is tolerated), or a parsed list/dict.
    :param max_depth: nesting limit for the text.
    :raises JournalError: bad JSON (line:column; for JSON Lines, the line number of the bad record) or an
        unknown shape (naming the pointer).
    """
    if isinstance(source, (str, bytes, bytearray)):
        return from_text(read_text(source, max_depth=max_depth))
    return from_value(source)


def from_text(text: JournalText) -> Journal:
    """The journal a text read once holds (:func:`webapp.core.journal.text.read_text`): JSON Lines are one item per
    record, the member names each record gives twice kept; one JSON value is shaped by :func:`from_value`, with
    its text's duplicate member names.

    :raises JournalError: a JSON Lines record that is not an object, or a value of no shape this module knows
        (naming the line or the pointer); ``code`` is ``"shape"``.
    """
    if text.document is not None:
        return from_value(text.value, text.document.warnings)
    records = text.records or []
    for record in records:
        problem = record_problem(record.document.value, record.line)
        if problem is not None:
            raise problem
    if is_session_data(text.value):  # a session page's entries, one per line (jq -c '.data[]')
        journal = _listed(text.value)
        journal.lines = text.lines  # each record's line: the origins' first token is the record
        kept = {int(jp.split(origin)[0]): index for index, origin in enumerate(journal.origins or ())}
    else:
        journal = Journal(text.value, None, None, "jsonl", text.lines)
        kept = None
    journal.duplicates = [
        Duplicate(index if kept is None else kept.get(index), w.pointer, w.line, w.column, w.message)
        for index, record in enumerate(records)
        for w in record.document.warnings
        if w.code == "duplicate_key"
    ]
    return journal


def record_problem(value: Any, line: int) -> JournalError | None:
    """Why the JSON Lines record at ``line`` (1-based) holding ``value`` is no journal entry (each line is one item,
    a JSON object), or ``None``: the one rule of the whole-text reading and of ``gate --stream``."""
    if isinstance(value, dict):
        return None
    detail = f"each line must be one item (a JSON object), not {kind_of(value)}"
    return JournalError(f"JSON Lines, line {line}: {detail}", line=line, column=1, detail=detail)


def from_value(value: Any, warnings: Iterable[JSONWarning] = (), base: str = "") -> Journal:
    """A journal from a parsed JSON value (see the module docstring for the shapes).

    :param warnings: the warnings of the text ``value`` was parsed from (``parse``); its
        ``duplicate_key`` warnings under ``base`` become :attr:`Journal.duplicates`, with their pointers and
        line:column in that text.
    :param base: RFC 6901 pointer of ``value`` in that text (``"/journal"`` for a request member).
    :raises JournalError: for any other shape, naming the pointer.
    """
    journal = _from_value(value)
    items_at = {"array": [], "response": ["output"], "request": ["input"], "item": None}.get(journal.shape, [])
    prefix = jp.split(base)
    placed = {tuple(jp.split(origin)): i for i, origin in enumerate(journal.origins or ())}
    for warning in warnings:
        if warning.code != "duplicate_key":
            continue
        tokens = jp.split(warning.pointer) if warning.pointer else None  # None: counted, not located
        if tokens is not None and tokens[: len(prefix)] != prefix:
            continue  # another member of the request, not this journal
        index = (
            _placed_index(tokens, len(prefix), placed)
            if journal.origins is not None
            else _item_index(tokens, len(prefix), items_at, len(journal.items))
        )
        journal.duplicates.append(
            Duplicate(
                index,
                warning.pointer,
                warning.line,
                warning.column,
                warning.message,
            )
        )
    return journal


def one_item(value: Any, warnings: Iterable[JSONWarning] = ()) -> Journal | None:
    """The journal of one item read from its text (:func:`from_value`: the member names it gives twice kept, for
    ``duplicate_member``), or ``None`` when ``value`` is not one item."""
    try:
        journal = from_value(value, warnings)
    except JournalError:
        return None
    return journal if journal.shape == "item" else None


def _item_index(tokens: list[str] | None, start: int, items_at: list[str] | None, count: int) -> int | None:
    """Which item a member pointer (split) falls in: ``None`` outside the items or when not located."""
    if tokens is None:
        return None
    inner = tokens[start:]
    if items_at is None:  # the document is the one item
        return 0 if inner else None
    if inner[: len(items_at)] != items_at or len(inner) <= len(items_at):
        return None
    token = inner[len(items_at)]
    return int(token) if token.isascii() and token.isdigit() and len(token) < 20 and int(token) < count else None


def _placed_index(tokens: list[str] | None, start: int, placed: dict[tuple[str, ...], int]) -> int | None:
    """Which item a member pointer (split) falls in, by the items' own pointers (:attr:`Journal.origins`)."""
    if tokens is None:
        return None
    inner = tokens[start:]
    for depth in range(len(inner), 0, -1):
        found = placed.get(tuple(inner[:depth]))
        if found is not None:
            return found
    return None


def _listed(value: Any) -> Journal:
    """A session page or an input_items page as its conversation (:func:`webapp.core.journal.lists.read_list`)."""
    reading = read_list(value)
    return Journal(
        reading.items, None, None, reading.shape, origins=reading.origins, partial=reading.partial, notes=reading.notes
    )


def _from_value(value: Any) -> Journal:
    if is_session_data(value) or is_list_object(value):
        return _listed(value)
    if isinstance(value, list):
        return Journal(value, None, None, "array")
    if not isinstance(value, dict):
        raise JournalError(
            f"a journal is a JSON array of items, JSON Lines, a response or a request, not {kind_of(value)}", pointer=""
        )
    if "messages" in value and "input" not in value and "output" not in value:
        raise JournalError(
            "this is a Chat Completions request (it has messages); the gate reads Open Responses "
            "items: send its input items, a response (output) or a JSON array of items",
            pointer="/messages",
        )
    if (
        isinstance(value.get("type"), str)
        and value.get("object") != "response"
        and not isinstance(value.get("output"), list)
        and not isinstance(value.get("input"), list)
    ):
        return Journal([value], None, None, "item")  # a function_call_output's "output" is its result, a string
    if "output" in value and (value.get("object") == "response" or "input" not in value):
        items = value["output"]
        if not isinstance(items, list):
            raise JournalError(f"/output must be an array of items, not {kind_of(items)}", pointer="/output")
        return _with_settings(Journal(items, _tools(value), value.get("tool_choice"), "response"), value)
    if "input" in value:
        raw = value["input"]
        if isinstance(raw, str):  # CreateResponseBody: a string input is one user message
            items = [{"type": "message", "role": "user", "content": raw}]
        elif raw is None:
            items = []
        elif isinstance(raw, list):
            items = raw
        else:
            raise JournalError(f"/input must be a string or an array of items, not {kind_of(raw)}", pointer="/input")
        return _with_settings(Journal(items, _tools(value), value.get("tool_choice"), "request"), value)
    if isinstance(value.get("type"), str):
        return Journal([value], None, None, "item")
    raise JournalError(
        "this JSON object is not a journal: expected a response (with output), a request "
        "(with input) or one item (with type)",
        pointer="",
    )


def _with_settings(journal: Journal, value: dict) -> Journal:
    """``journal`` with the settings of the request or response ``value`` it was read from
    (:func:`webapp.core.journal.settings.read_settings`), and a ``setting_unread`` note for each it cannot read."""
    journal.settings = read_settings(value, "open_responses", journal.shape)
    journal.notes += [ReadingNote("setting_unread", words, pointer) for pointer, words in journal.settings.unread]
    return journal


def _tools(value: dict) -> list[Any] | None:
    tools = value.get("tools")
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise JournalError(f"/tools must be an array of tool definitions, not {kind_of(tools)}", pointer="/tools")
    return tools
