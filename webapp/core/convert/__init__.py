"""Conversations from any provider as Open Responses items: detect the source, convert, say what changed.

    >>> conversion = convert(value)            # source detected; or convert(value, "anthropic")
    >>> conversion.items, conversion.notes     # Open Responses items; what was dropped or changed, and where

Sources (:data:`SOURCES`): ``open_responses`` (a JSON array or JSON Lines of items, a ``ResponseResource``, a
``CreateResponseBody``, a ``/v1/sessions`` page, one item), ``chat_completions``, ``anthropic``, ``gemini`` (see
each module). The mapping (the providers' rules and their sources: ``docs/targets.md``): calls become
``function_call`` with string ``arguments``, results ``function_call_output`` with the same ``call_id``, text becomes
messages, a cut-off response makes its calls ``incomplete``, sealed reasoning and provider-only fields are kept as
``"<provider>:<member>"`` members (for that provider only: :mod:`webapp.core.export` restores them) and server tools
kept namespaced — each with a :class:`Note`, never silently. The gate then judges the items like any journal.
"""

from __future__ import annotations

from typing import Any

from webapp.core import journal as journals
from webapp.core.convert import anthropic, chat_completions, gemini
from webapp.core.convert.base import (
    NOTE_CODES,
    SOURCES,
    Conversion,
    ConvertError,
    Note,
    display_path,
)
from webapp.core.items import native_openai, tool_shape
from webapp.core.journal.settings import read_settings
from webapp.core.json import DEFAULT_MAX_DEPTH, kind_of

__all__ = [
    "SOURCES",
    "NOTE_CODES",
    "Conversion",
    "ConvertError",
    "Note",
    "convert",
    "convert_text",
    "detect",
    "display_path",
    "is_other_provider_tool",
    "is_tool_definition",
    "tools_from",
    "as_journal",
    "read_journal",
    "placed",
    "record_kind",
]

_CONVERTERS = {"chat_completions": chat_completions, "anthropic": anthropic, "gemini": gemini}


def detect(value: Any) -> tuple[str, bool]:
    """Which provider wrote ``value``.

    :param value: a parsed JSON document.
    :return: ``(source, ambiguous)``: one of :data:`SOURCES`, and ``True`` when another source reads the same
        document too (plain ``{role, content}`` messages are read alike by every provider).
    :raises ConvertError: when no source reads it.
    """
    if not isinstance(value, (list, dict)):
        raise ConvertError(f"a conversation is a JSON array or object, not {kind_of(value)}")
    if _is_open_responses(value):
        return ("openai" if _native_openai(value) else "open_responses"), False
    if gemini.looks_like(value):
        return "gemini", False
    chat, claude = chat_completions.looks_like(value), anthropic.looks_like(value)
    if chat and claude:
        if anthropic.specific(value) and not chat_completions.specific(value):
            return "anthropic", False
        return "chat_completions", not chat_completions.specific(value)
    if chat:
        return "chat_completions", False
    if claude:
        return "anthropic", False
    raise ConvertError(
        "not a conversation this tool knows: expected Open Responses items (an array, JSON Lines, a "
        "response or a request), a Chat Completions request/response/messages, an Anthropic "
        "Messages request/response/messages or a Gemini request/response/contents"
    )


def convert(value: Any, source: str = "auto") -> Conversion:
    """Convert a parsed conversation to Open Responses items.

    :param value: the parsed JSON document (a list or an object).
    :param source: ``"auto"`` or one of :data:`SOURCES`.
    :return: the :class:`Conversion`; for ``open_responses`` the items are the document's own, unchanged.
    :raises ConvertError: when ``source`` is unknown, or the document is not of that source (naming the pointer).
    """
    return _convert(value, source, None)


def _convert(value: Any, source: str, journal: journals.Journal | None) -> Conversion:
    """:func:`convert`; ``journal``: the Open Responses journal ``value`` was shaped from, when it was (its shape
    is then not looked for again)."""
    ambiguous = False
    if source == "auto":
        source, ambiguous = detect(value)
    elif source not in SOURCES:
        raise ConvertError(f"unknown source {source!r}: one of auto, {', '.join(SOURCES)}")
    if source in _AS_THEY_ARE:
        conversion = _open_responses(value) if journal is None else _from_journal(journal)
        conversion.source = source
    else:
        conversion = _CONVERTERS[source].convert(value)
        conversion.settings = read_settings(value, source, conversion.shape)
        conversion.notes += [Note("setting_unread", words, pointer) for pointer, words in conversion.settings.unread]
    if ambiguous:
        conversion.notes.insert(
            0,
            Note(
                "ambiguous_source",
                "these messages read the same in Chat Completions, "
                "Anthropic and Open Responses: read as Chat Completions",
                "",
            ),
        )
    return conversion


def convert_text(
    text: str | bytes | journals.JournalText, source: str = "auto", *, max_depth: int = DEFAULT_MAX_DEPTH
) -> Conversion:
    """Read ``text`` (JSON, or JSON Lines of items or of messages) and :func:`convert` it.

    The text is read once (:func:`webapp.core.journal.read_text`; or pass what that answered), shaped as an Open
    Responses journal once (:func:`webapp.core.journal.from_text`) when it is one, and its source detected once.
    For JSON Lines, :attr:`Conversion.lines` gives each record's line, so places read ``line 4, tool_calls[0]``;
    for Open Responses text, member names given twice are kept in :attr:`Conversion.duplicates` for the gate.

    :param max_depth: the nesting limit of the text (unused for a text already read).
    :raises ConvertError: for text that is not JSON / JSON Lines (line and column named) or of no known source.
    """
    read = text if isinstance(text, journals.JournalText) else _read(text, max_depth)
    try:
        journal = journals.from_text(read)
    except journals.JournalError as error:
        if read.records is not None:  # JSON Lines with a record that is not an object
            raise ConvertError.from_journal(error) from None
        return convert(read.value, source)  # JSON, but not an Open Responses journal: another provider's document
    return _convert_journal(journal, source)


def _read(text: str | bytes, max_depth: int) -> journals.JournalText:
    """:func:`webapp.core.journal.read_text`, its error as a :class:`ConvertError` (the same place and words)."""
    try:
        return journals.read_text(text, max_depth=max_depth)
    except journals.JournalError as error:
        raise ConvertError.from_journal(error) from None


def _convert_journal(journal: journals.Journal, source: str) -> Conversion:
    """An Open Responses journal read from a text, converted (from ``source``: another one may read it too)."""
    conversion = _convert(_journal_value(journal), source, journal)
    if conversion.source in _AS_THEY_ARE:
        conversion.duplicates = list(journal.duplicates)
    if journal.shape == "jsonl" or journal.lines:  # a session's entries one per line: pointers start with the record
        conversion.lines = list(journal.lines)
    return conversion


def record_kind(value: Any) -> str | None:
    """What one entry of an Open Responses array or JSON Lines journal is: ``"typed"`` (an object with a string
    ``type`` that is not another provider's piece), ``"easy"`` (an EasyInputMessage: ``{role, content}``, no
    type), or ``None`` (another provider's, or no item). A list is Open Responses when every entry has a kind and,
    unless it is empty, one is typed (plain messages alone read alike in every provider's shape): the rule the
    whole-text reading (:func:`read_journal`) and the line-by-line one (``gate --stream``) share."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("type"), str):
        return None if _provider_piece(value) else "typed"
    return "easy" if _easy_message(value) else None


#: The sources whose items are Open Responses-shaped and read as they are: any Open Responses server, and a native
#: OpenAI Responses journal (its hosted items unprefixed, its reasoning sealed: docs/targets.md O9, O3).
_AS_THEY_ARE = ("open_responses", "openai")


def _native_openai(value: Any) -> bool:
    """An Open Responses-shaped document whose items are a native OpenAI Responses journal
    (:func:`webapp.core.items.native_openai`): an array of items, or a response's ``output`` / a request's ``input``."""
    if isinstance(value, dict):
        value = value.get("output", value.get("input", value.get("data")))
    return native_openai(value)


def _is_open_responses(value: Any) -> bool:
    if isinstance(value, list):
        # typed items, possibly with EasyInputMessages ({role, content} without type), none another provider's
        kinds = [record_kind(v) for v in value]
        return None not in kinds and (not kinds or "typed" in kinds)
    if not isinstance(value, dict) or _provider_piece(value):
        return False
    if value.get("object") == "response" or ("output" in value and "choices" not in value):
        return True
    if value.get("object") == "list" and isinstance(value.get("data"), list):  # a /v1/sessions or input_items page
        return True
    if "input" in value and "messages" not in value and "contents" not in value:
        return True
    return isinstance(value.get("type"), str) and not _provider_piece(value)


def _easy_message(value: dict) -> bool:
    """An Open Responses EasyInputMessage: ``{role, content}`` with text content (no provider-only members)."""
    return (
        value.get("role") in ("user", "assistant", "system", "developer")
        and isinstance(value.get("content"), str)
        and not {"tool_calls", "function_call", "tool_call_id", "parts"} & value.keys()
    )


def _provider_piece(value: dict) -> bool:
    """A typed object that is another provider's (an Anthropic block, a Chat Completions tool call, a message)."""
    return (
        anthropic.is_block(value)
        or chat_completions.is_tool_call(value)
        or (value.get("type") == "message" and "stop_reason" in value)
    )


def _open_responses(value: Any) -> Conversion:
    try:
        journal = journals.from_value(value)
    except journals.JournalError as error:
        raise ConvertError(error.message, error.pointer or "") from None
    return _from_journal(journal)


def _from_journal(journal: journals.Journal) -> Conversion:
    """The items of an Open Responses journal as they are, each with the pointer of its place in the document."""
    base = {"response": "/output", "request": "/input", "item": None}.get(journal.shape, "")
    shape = {"array": "items", "jsonl": "items"}.get(journal.shape, journal.shape)
    origins = journal.origins or [("" if base is None else f"{base}/{i}") for i in range(len(journal.items))]
    conversion = Conversion(
        "open_responses", shape, list(journal.items), list(origins), journal.tools, journal.tool_choice
    )
    conversion.notes = [Note(note.code, note.message, note.pointer) for note in journal.notes]
    conversion.partial = journal.partial
    conversion.settings = journal.settings
    return conversion


def _journal_value(journal: journals.Journal) -> Any:
    """The parsed document a loaded journal came from, enough to convert it again."""
    if journal.shape in ("array", "jsonl", "session", "input_items"):
        return journal.items
    if journal.shape == "item":
        return journal.items[0]
    key = "output" if journal.shape == "response" else "input"
    value: dict[str, Any] = {**journal.settings.members} if journal.shape == "request" else {}
    value[key] = journal.items
    if journal.shape == "response":
        value["object"] = "response"
    if journal.tools is not None:
        value["tools"] = journal.tools
    if journal.tool_choice is not None:
        value["tool_choice"] = journal.tool_choice
    return value


def is_other_provider_tool(value: Any) -> bool:
    """One Anthropic (``{name, input_schema}``) or Gemini (``{functionDeclarations}``) tool definition."""
    return isinstance(value, dict) and (
        "input_schema" in value or "functionDeclarations" in value or "function_declarations" in value
    )


def is_tool_definition(value: Any) -> bool:
    """One function tool definition in a shape :func:`tools_from` reads: Open Responses or Chat Completions
    (:func:`webapp.core.items.tool_shape`, which a Chat Completions tool *call* has too), Anthropic or Gemini."""
    return tool_shape(value) is not None or is_other_provider_tool(value)


def tools_from(value: Any) -> list[dict]:
    """Tool definitions in any provider's shape as flat Open Responses function tools.

    :param value: a list of definitions — Open Responses (``{type: "function", name, parameters}``), Chat
        Completions (``{type: "function", function: {…}}``), Anthropic (``{name, input_schema}``) or Gemini
        (``{functionDeclarations: [...]}``), mixed freely — or a request object holding them in ``tools``.
    :return: the function tools (hosted tools left out).
    :raises ConvertError: when ``value`` holds no tool list, naming the pointer.
    """
    where = ""
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value, where = value["tools"], "/tools"
    if not isinstance(value, list):
        raise ConvertError("expected an array of tool definitions (or a request with tools)", where)
    scratch = Conversion("open_responses", "tools")
    out: list[dict] = []
    for i, tool in enumerate(value):
        place = f"{where}/{i}"
        if not isinstance(tool, dict):
            raise ConvertError(f"tool {i} is not a tool definition (an object)", place)
        if "functionDeclarations" in tool or "function_declarations" in tool:
            out += gemini.convert_tools([tool], scratch, place) or []
        elif "input_schema" in tool:
            out += anthropic.convert_tools([tool], scratch, place) or []
        elif tool.get("type") == "function":
            out += chat_completions.convert_tools([tool], scratch, place) or []
    return out


def as_journal(conversion: Conversion) -> journals.Journal:
    """The conversion as a :class:`webapp.core.journal.Journal` for the gate (its tools, tool_choice, and the
    duplicate member names an Open Responses text had)."""
    return journals.Journal(
        conversion.items,
        conversion.tools,
        conversion.tool_choice,
        "array",
        [],
        list(conversion.duplicates),
        partial=conversion.partial,
        settings=conversion.settings,
    )


def read_journal(
    value: Any, source: str = "auto", *, max_depth: int = DEFAULT_MAX_DEPTH
) -> tuple[journals.Journal, Conversion | None]:
    """A journal of any source, for the gate: Open Responses shapes are read as they are (:mod:`webapp.core.journal`,
    keeping their own places: ``line 4``, ``output[2]``); another provider's conversation is converted first. A
    text is read once, and its shape and source found once (:func:`convert_text`).

    :param value: JSON / JSON Lines text (or what :func:`webapp.core.journal.read_text` answered), or a parsed value.
    :return: ``(journal, conversion)``; ``conversion`` is ``None`` for Open Responses input, else it maps each
        item back to its place in the source (:meth:`Conversion.where`) and holds the notes.
    :raises ConvertError: unusable input (line:column or the pointer named), or a source that does not fit.
    """
    text = None
    if isinstance(value, journals.JournalText):
        text = value
    elif isinstance(value, (str, bytes)):
        text = _read(value, max_depth)
    try:
        journal = journals.from_text(text) if text is not None else journals.from_value(value)
    except journals.JournalError as error:
        if source in _AS_THEY_ARE or (text is not None and text.records is not None):
            raise ConvertError.from_journal(error) from None
        return _converted(convert(text.value if text is not None else value, source))
    if source in ("auto", *_AS_THEY_ARE) and (
        source in _AS_THEY_ARE
        or journal.shape not in ("array", "jsonl")
        or _is_open_responses(journal.items)
        or not journal.items
    ):
        return journal, None
    return _converted(_convert_journal(journal, source) if text is not None else convert(value, source))


def _converted(conversion: Conversion) -> tuple[journals.Journal, Conversion]:
    return as_journal(conversion), conversion


def placed(finding: Any, conversion: Conversion) -> str:
    """A gate finding's message with each item it names followed by its place in the source:
    ``function_call 2 (messages[1].tool_calls[0])``."""
    return finding.describe(lambda ref: f"{ref} ({conversion.where(ref.index)})")
