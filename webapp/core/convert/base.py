"""What every provider converter shares: the result (:class:`Conversion`), its notes, and the item builders.

A converter reads one provider's envelope and appends Open Responses items to a :class:`Builder`, each with the
RFC 6901 pointer of the place it came from, and a :class:`Note` for everything it could not carry over as it was
(what cannot be carried over is reported, never dropped silently; each provider's rules and their sources:
``docs/targets.md``). Nothing here reads text: the converters take parsed JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.core.journal.lists import READING_NOTES
from webapp.core.journal.settings import SETTING_NOTES, RequestSettings
from webapp.core.json import pointer as jp

#: The sources a conversation can come from (``"from"`` of ``/api/convert``, ``--from`` of the CLI).
SOURCES = ("open_responses", "openai", "chat_completions", "anthropic", "gemini")

#: Note codes, each with what it means for the replay. A note is information, not a verdict: the gate decides.
NOTE_CODES = {
    "ambiguous_source": "the shape fits more than one provider; the one named was used (override with 'from')",
    "cut_off": "the provider says the output was cut: its calls are incomplete and must never run",
    "sealed_reasoning": "provider-sealed reasoning is kept for its own provider only (a '<provider>:' member): "
    "every other target leaves it out",
    "provider_field": "a field only this provider has rides along as a '<provider>:<field>' member: kept for that "
    "provider only, left out for every other target",
    "server_tool": "a tool the provider ran itself is kept as a namespaced item: never replayable elsewhere",
    "unknown_part": "a part this converter does not know is kept as a namespaced item",
    "generated_call_id": "the source has no call id: a stable one was generated from the call's position",
    "paired_by_position": "id-less calls of one name were answered by id-less results: paired by position, "
    "which the provider does not promise",
    "unpaired_result": "a result that answers no call before it",
    "arguments_not_string": "Chat Completions arguments must be a JSON string; kept as given for the gate to refuse",
    "arguments_serialised": "an object of arguments was written as a JSON string (Open Responses arguments)",
    "output_serialised": "a result that is not text was written as a JSON string",
    "result_is_error": "the tool reported an error; the output is kept as the tool's text",
    "dropped_content": "content Open Responses items cannot carry here was dropped",
    "hosted_tool": "a tool definition that is not a function tool was left out of the tools",
    "legacy_function_call": "a legacy single function_call was read as a tool call",
    "schema_adjusted": "a tool schema in the provider's dialect was rewritten as JSON Schema",
    **READING_NOTES,  # what reading a Responses API list object (a session page, input_items) changed
    **SETTING_NOTES,  # a request setting the rules read, unreadable
}


class ConvertError(ValueError):
    """The input is not a conversation of the source named (or of any source, for ``auto``).

    :ivar message: plain words naming the place.
    :ivar pointer: RFC 6901 pointer of the offending value (``""`` for the document or a text problem).
    :ivar line: 1-based line of a text problem (bad JSON / JSON Lines), else ``None``; :ivar column: likewise.
    :ivar detail: the message without its line:column (shown beside a link to the place); ``message`` if not given.
    :ivar excerpt: for a syntax problem, the offending line and a caret line under the column; else ``""``.
    """

    def __init__(
        self,
        message: str,
        pointer: str = "",
        *,
        line: int | None = None,
        column: int | None = None,
        detail: str | None = None,
        excerpt: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.line = line
        self.column = column
        self.detail = message if detail is None else detail
        self.excerpt = excerpt

    @classmethod
    def from_journal(cls, error: Any) -> ConvertError:
        """The same problem as a :class:`webapp.core.journal.JournalError` (its place, detail and excerpt)."""
        return cls(
            error.message,
            error.pointer or "",
            line=error.line,
            column=error.column,
            detail=error.detail,
            excerpt=error.excerpt,
        )

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Note:
    """Something the conversion changed, dropped or could not decide.

    :ivar code: one of :data:`NOTE_CODES`.
    :ivar message: one sentence naming the value.
    :ivar pointer: RFC 6901 pointer of the place in the source document.
    :ivar index: the converted item it concerns, or ``None`` (a dropped part, a tool definition).
    """

    code: str
    message: str
    pointer: str
    index: int | None = None

    def as_dict(self, lines: list[int] | None = None) -> dict[str, Any]:
        """The note as JSON; ``lines``: the records' lines when the source was JSON Lines."""
        return {
            "index": self.index,
            "path": display_path(self.pointer, lines),
            "pointer": self.pointer,
            "code": self.code,
            "message": self.message,
        }


@dataclass
class Conversion:
    """A conversation as Open Responses items.

    :ivar source: one of :data:`SOURCES`.
    :ivar shape: what the document was: ``request``, ``response``, ``messages``, ``message``, ``part``, ``call``,
        ``items``, ``item``, ``session``.
    :ivar items: Open Responses items (``function_call.arguments`` always a string when the source gave a value).
    :ivar origins: for each item, the RFC 6901 pointer of the place it came from (``""``: the whole document).
    :ivar tools: the tool definitions, as flat Open Responses function tools, or ``None`` when it had none.
    :ivar tool_choice: the document's ``tool_choice`` when it is in Open Responses form, else ``None``.
    :ivar notes: what was changed, dropped or undecided, in document order.
    :ivar lines: for JSON Lines, the 1-based line of each record (pointers then start with the record's index).
    :ivar duplicates: member names given twice in an Open Responses text (:class:`webapp.core.journal.Duplicate`),
        which make an item ambiguous for the gate.
    :ivar partial: for one page of a longer list (``has_more: true``), the sentence saying so
        (:attr:`webapp.core.journal.Journal.partial`), else ``None``.
    :ivar settings: the request's own settings (model, output limit, thinking, store, include, …), read from a
        request or echoed by a response (:class:`webapp.core.journal.settings.RequestSettings`); empty otherwise.
    """

    source: str
    shape: str
    items: list[dict] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    tools: list[dict] | None = None
    tool_choice: Any = None
    notes: list[Note] = field(default_factory=list)
    lines: list[int] | None = None
    duplicates: list[Any] = field(default_factory=list)
    partial: str | None = None
    settings: RequestSettings = field(default_factory=RequestSettings)

    def where(self, index: int) -> str:
        """Where item ``index`` came from: ``messages[2].tool_calls[0]``, ``line 4``, ``line 3, tool_calls[1]``."""
        return display_path(self.origins[index], self.lines) if 0 <= index < len(self.origins) else f"[{index}]"

    def as_dict(self) -> dict[str, Any]:
        """``{source, shape, items, origins (paths), tools, notes}``: the answer of ``POST /api/convert``."""
        return {
            "source": self.source,
            "shape": self.shape,
            "items": self.items,
            "origins": [display_path(o, self.lines) for o in self.origins],
            "tools": self.tools,
            "notes": [n.as_dict(self.lines) for n in self.notes],
        }


def display_path(pointer: str, lines: list[int] | None = None) -> str:
    """A pointer as a provider's docs write the place: ``/messages/2/tool_calls/0`` → ``messages[2].tool_calls[0]``,
    ``""`` → ``(document)``; with ``lines`` (JSON Lines records), ``/3/tool_calls/0`` → ``line 7, tool_calls[0]``."""
    tokens = jp.split(pointer) if pointer else []
    head = ""
    if lines is not None and tokens and tokens[0].isdigit() and int(tokens[0]) < len(lines):
        head, tokens = f"line {lines[int(tokens[0])]}", tokens[1:]
    if not tokens:
        return head or "(document)"
    out = ""
    for token in tokens:
        if token.isdigit():
            out += f"[{token}]"
        elif token.isidentifier():
            out += f".{token}" if out else token
        else:
            out += f"[{json.dumps(token, ensure_ascii=False)}]"
    return f"{head}, {out}" if head else out


def as_json_string(value: Any) -> str:
    """``value`` as compact JSON text (the form providers write ``arguments`` in; non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Builder:
    """Collects items, their origins and notes while a converter walks a document."""

    def __init__(self, conversion: Conversion) -> None:
        self.conversion = conversion
        # calls without a provider id, by name, oldest first: a result without an id answers the oldest
        self._unanswered: dict[Any, list[Any]] = {}

    def expect(self, name: Any, call_id: Any) -> None:
        """Remember a call that has no provider id, so a result naming the same function can pair with it."""
        self._unanswered.setdefault(name, []).append(call_id)

    def answer(self, name: Any) -> Any:
        """The call id of the oldest unanswered id-less call of ``name`` (by order and name), or ``None``."""
        waiting = self._unanswered.get(name)
        return waiting.pop(0) if waiting else None

    def waiting(self, name: Any) -> int:
        """How many id-less calls of ``name`` wait for a result (more than one: pairing is by position only)."""
        return len(self._unanswered.get(name, ()))

    def add(self, item: dict, pointer: str) -> int:
        """Append ``item`` (from ``pointer``); returns its index."""
        self.conversion.items.append(item)
        self.conversion.origins.append(pointer)
        return len(self.conversion.items) - 1

    def note(self, code: str, message: str, pointer: str, index: int | None = None) -> None:
        """Record a :class:`Note` (``code`` one of :data:`NOTE_CODES`) at ``pointer``, about item ``index``."""
        assert code in NOTE_CODES, code
        self.conversion.notes.append(Note(code, message, pointer, index))

    def message(self, role: str, texts: list[str], pointer: str) -> int | None:
        """A ``message`` item of ``texts`` (``input_text`` parts, ``output_text`` for the assistant)."""
        texts = [t for t in texts if isinstance(t, str)]
        if not texts:
            return None
        if role == "assistant":
            content = [{"type": "output_text", "text": t, "annotations": []} for t in texts]
            return self.add({"type": "message", "role": role, "status": "completed", "content": content}, pointer)
        return self.add(
            {"type": "message", "role": role, "content": [{"type": "input_text", "text": t} for t in texts]}, pointer
        )

    def call(self, call_id: Any, name: Any, arguments: Any, pointer: str, *, cut: bool) -> int:
        """A ``function_call`` item; ``cut`` (the provider says the output was cut) makes it ``incomplete``."""
        item = {
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
            "status": "incomplete" if cut else "completed",
        }
        index = self.add(item, pointer)
        if cut:
            self.note(
                "cut_off",
                f"the call {json.dumps(name, ensure_ascii=False)} was cut off by the provider's "
                "output limit: incomplete, it must never run",
                pointer,
                index,
            )
        return index

    def output(self, call_id: Any, output: Any, pointer: str) -> int:
        """A ``function_call_output`` item; a non-string ``output`` is written as JSON (with a note)."""
        index = self.add({"type": "function_call_output", "call_id": call_id, "output": ""}, pointer)
        if not isinstance(output, str):
            self.note("output_serialised", "the result was not text: written as a JSON string", pointer, index)
            output = as_json_string(output)
        self.conversion.items[index]["output"] = output
        return index

    def namespaced(self, provider: str, kind: str, value: Any, pointer: str, code: str) -> int:
        """Keep ``value`` as a provider-namespaced item ``provider:kind`` (never replayable elsewhere)."""
        item = {"type": f"{provider}:{kind}"}
        if isinstance(value, dict):
            item.update({k: v for k, v in value.items() if k != "type"})
        else:
            item["value"] = value
        index = self.add(item, pointer)
        self.note(code, f"{kind} is {provider}'s own: kept as the namespaced item {provider}:{kind}", pointer, index)
        return index


def provider_members(provider: str, value: dict, known: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    """The members of a provider's block or part that no Open Responses field holds, each renamed
    ``"<provider>:<member>"`` (docs/targets.md, "How items carry provider state"; Open Responses spec, "Extending
    Items": the ``slug:name`` spelling marks what is one provider's). ``known``: the members the converter maps itself.

    >>> provider_members("anthropic", {"type": "text", "text": "t", "cache_control": {}}, ("type", "text"))
    {'anthropic:cache_control': {}}
    """
    return {f"{provider}:{k}": v for k, v in value.items() if k not in known}


def function_tool(name: Any, description: Any, parameters: Any, strict: Any = None) -> dict:
    """A flat Open Responses function tool (``{type: "function", name, description?, parameters, strict?}``)."""
    tool: dict[str, Any] = {"type": "function", "name": name}
    if isinstance(description, str):
        tool["description"] = description
    tool["parameters"] = parameters if parameters is not None else {"type": "object", "properties": {}}
    if isinstance(strict, bool):
        tool["strict"] = strict
    return tool


def text_of(content: Any) -> list[str]:
    """The texts of a content value: a string, or a list of parts with ``text`` (other parts skipped)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return []
