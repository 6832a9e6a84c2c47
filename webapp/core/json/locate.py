"""Where a pointer into the *used part* of a pasted text is in that text: line and column for the pages.

A page validates or compares a part of what was pasted (a tool definition's ``parameters``, an item's
``arguments``). Errors carry RFC 6901 pointers into that part; :class:`Locator` turns them into (line, column) in
the pasted text. When the part is JSON text inside a JSON string (an ``arguments`` string), it was parsed as a
document of its own, and :func:`string_locator` moves positions inside that string back into the pasted text.

Pure: positions come from :meth:`webapp.core.json.document.Document.positions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from webapp.core.json.document import Document

#: (line, column), both 1-based, the column counted in characters.
Position = tuple[int, int]
#: Maps a (line, column) inside one text to a position in another, or ``None`` when there is none.
Move = Callable[[int, int], "Position | None"]

__all__ = ["Locator", "Move", "Position", "in_string", "string_locator"]


@dataclass(frozen=True)
class Locator:
    """Where pointers into the used part start in the pasted text.

    :ivar document: holds the used part under ``prefix`` (a pasted item's ``/arguments`` stored as an object, a
        tool definition's ``/parameters``); for ``arguments`` parsed from a JSON string, it is that string's own
        document, and ``move`` maps its (line, column) into the pasted text (see :func:`string_locator`).
    :ivar prefix: RFC 6901 pointer of the used part inside ``document`` (``""``: all of it).
    :ivar move: ``None`` when ``document`` is the pasted text itself.
    :ivar values: place an object member at its value (past its name and colon), not at its name: for a validated
        instance, whose errors are about the value at their pointer (an ``enum`` refusing ``"global"``); inside an
        ``arguments`` string a mark on the member would sit at the string's start.

    Call it with one pointer (``locator("/region")``), or use :meth:`many` for a list: both answer ``None`` for a
    pointer that names nothing in the text.
    """

    document: Document
    prefix: str = ""
    move: Move | None = None
    values: bool = False

    def many(self, pointers: Iterable[str]) -> dict[str, Position | None]:
        """Positions of many pointers (relative to the used part), found in one scan of the document.

        The parse layer keeps what it found, so a later single lookup of one of them is free.

        :raises ValueError: on a malformed pointer.
        """
        wanted = list(dict.fromkeys(pointers))
        found = self.document.positions([self.prefix + p for p in wanted], values=self.values)
        move = self.move
        placed: dict[str, Position | None] = {}
        for p in wanted:
            inside = found[self.prefix + p]
            placed[p] = inside if inside is None or move is None else move(*inside)
        return placed

    def __call__(self, at: str) -> Position | None:
        """The position of one pointer; see :meth:`many`."""
        return self.many([at])[at]


def string_locator(document: Document, at: str, decoded: str) -> Move:
    """A map from (line, column) inside the string ``decoded``, the value at pointer ``at`` of ``document``, to
    (line, column) in ``document.text``.

    A JSON string literal sits on one line of the text (RFC 8259 §7: no raw control characters), so only the
    column moves: each decoded character is 1 raw character, 2 for a ``\\n``-style escape, 6 for ``\\uXXXX`` and
    12 for an escaped surrogate pair. A position past the end of the string lands on its closing quote (where an
    "unexpected end" of a truncated ``arguments`` is). The map answers ``None`` for a position outside the string,
    and always when the literal cannot be found (no position beats a wrong one).

    :param document: the parsed pasted text; :param at: RFC 6901 pointer to a member whose value is the string.
    :param decoded: that string's value, as parsed.
    """
    text = document.text
    key = document.position(at)
    start = None if key is None else _value_start(text, _offset(text, *key))
    if start is None:
        return _nowhere
    raw: list[int] = []  # raw offset of each decoded character
    i = start + 1
    while i < len(text) and text[i] != '"':
        raw.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1 : i + 2] != "u":
            i += 2
        elif _is_high(text[i + 2 : i + 6]) and text[i + 6 : i + 8] == "\\u" and _is_low(text[i + 8 : i + 12]):
            i += 12
        else:
            i += 6
    raw.append(i)  # one past the end: "unexpected end" errors of a truncated string land on its closing quote
    if len(raw) != len(decoded) + 1:  # not the literal that was decoded (should not happen)
        return _nowhere
    line_start = text.rfind("\n", 0, start) + 1
    outer_line = text.count("\n", 0, start) + 1
    decoded_starts = [0] + [k + 1 for k, ch in enumerate(decoded) if ch == "\n"]

    def locate(line: int, column: int) -> Position | None:
        if not 1 <= line <= len(decoded_starts) or column < 1:
            return None
        index = min(decoded_starts[line - 1] + column - 1, len(raw) - 1)
        return outer_line, raw[index] - line_start + 1

    return locate


def in_string(
    document: Document, at: str, decoded: str, line: int, column: int, *, first_line: int = 1
) -> Position | None:
    """Where (``line``, ``column``) inside the string at pointer ``at`` of ``document`` (an item's ``arguments``,
    whose parse error is placed in the string's own text) is in the pasted text; :func:`string_locator` for one
    position. ``first_line``: the line ``document`` starts on in the pasted text (a JSON Lines record's), else 1.
    ``None`` when there is no such place (see :func:`string_locator`)."""
    place = string_locator(document, at, decoded)(line, column)
    return None if place is None else (place[0] + first_line - 1, place[1])


def _nowhere(line: int, column: int) -> Position | None:
    return None


def _value_start(text: str, key_offset: int) -> int | None:
    """Offset of the value's first character after the member name starting at ``key_offset``, when it is a
    string (``None`` otherwise)."""
    if text[key_offset : key_offset + 1] != '"':
        return None
    i = key_offset + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    i += 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if text[i : i + 1] != ":":
        return None
    i += 1
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i if text[i : i + 1] == '"' else None


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def _is_high(hex4: str) -> bool:
    return len(hex4) == 4 and hex4[:2].lower() in ("d8", "d9", "da", "db")


def _is_low(hex4: str) -> bool:
    return len(hex4) == 4 and hex4[:2].lower() in ("dc", "dd", "de", "df")
