"""The error diagnosis: a JSON text that cannot be used, its mistake named in plain words at its line:column.

Python's own messages mislead (a trailing comma and a comment both read "Expecting property name enclosed in
double quotes"), so they are never shown as they are. :class:`Diagnosis` holds the words: the
:class:`~webapp.core.json.scan.Scanner` finds *where* the grammar of RFC 8259 breaks and asks it *what* the
mistake is (trailing comma, comment, single quotes, ``NaN``, BOM, unquoted key, truncated input, leading zero, bad
escape, raw control character, extra data, ...). :class:`JSONTextError` carries the answer with a caret excerpt.

Error codes: ``bom``, ``comment``, ``control_character``, ``empty``, ``extra_data``, ``invalid_escape``,
``invalid_literal``, ``invalid_number``, ``invalid_utf8``, ``invalid_whitespace``, ``leading_zero``,
``mismatched_bracket``, ``missing_colon``, ``missing_comma``, ``missing_value``, ``nan_literal``, ``not_utf8``,
``number_too_long``, ``single_quote``, ``smart_quote``, ``too_deep``, ``too_large``, ``trailing_comma``,
``truncated``, ``unexpected_token``, ``unquoted_key``, ``unquoted_string``, and the I-JSON ones (RFC 7493 §2,
errors with ``ijson``): ``duplicate_key``, ``lone_surrogate``, ``noncharacter``, ``number_overflow``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Protocol

from webapp.core.json.positions import Lines, line_col
from webapp.core.json.show import describe, quote, shorten

__all__ = ["EXCERPT_WIDTH", "Diagnosis", "JSONTextError", "OpenContainer", "content_end"]

#: Width of the excerpt line around the column when the offending line is long (a minified document).
EXCERPT_WIDTH = 100


class JSONTextError(ValueError):
    """A JSON text that cannot be used, with the place and the mistake named in plain words.

    Attributes: ``code`` (stable, e.g. ``"trailing_comma"``; see the module for the list), ``message`` (plain
    words), ``line`` and ``column`` (1-based, column in characters), ``offset`` (0-based character offset) and
    ``excerpt`` (the offending line, trimmed around the column when long, and a caret line under the column).
    ``str(err) == f"line {line}, column {column}: {message}"``.
    """

    def __init__(self, code: str, message: str, text: str, offset: int, *, excerpt: bool = True) -> None:
        offset = max(0, min(offset, len(text)))
        line, column = line_col(text, offset)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.excerpt = _excerpt(text, offset) if excerpt else ""
        super().__init__(f"line {line}, column {column}: {message}")

    def shifted(self, lines: int, offset: int) -> JSONTextError:
        """The same error moved down by ``lines`` lines and ``offset`` characters (a record of JSON Lines)."""
        self.line += lines
        self.offset += offset
        self.args = (f"line {self.line}, column {self.column}: {self.message}",)
        return self


def _visible(ch: str) -> str:
    """A control character as its Unicode "control picture" (one column wide), so the caret stays aligned."""
    code = ord(ch)
    if ch == "\t":
        return ch
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be sent as UTF-8
        return "\ufffd"
    return ch


def _excerpt(text: str, offset: int) -> str:
    """The line of ``text`` holding ``offset`` (trimmed to :data:`EXCERPT_WIDTH` characters around it when
    longer, ``…`` marking the cuts; control characters as their one-column control pictures) and, below it, a
    caret line with ``^`` under the column: two lines joined by ``\\n``."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    if end == -1:
        end = len(text)
    line = text[start:end]
    if line.endswith("\r"):
        line = line[:-1]
    column = offset - start
    prefix = suffix = ""
    if len(line) > EXCERPT_WIDTH:
        left = max(0, min(column - EXCERPT_WIDTH // 2, len(line) - EXCERPT_WIDTH))
        right = left + EXCERPT_WIDTH
        prefix = "…" if left > 0 else ""
        suffix = "…" if right < len(line) else ""
        line = line[left:right]
        column -= left
    shown = prefix + "".join(map(_visible, line)) + suffix
    pad = " " * len(prefix) + "".join("\t" if ch == "\t" else " " for ch in line[:column])
    return f"{shown}\n{pad}^"


def content_end(text: str) -> int:
    """Where the content ends (before trailing whitespace): a truncation is shown right after the last character."""
    return len(text.rstrip(" \t\r\n"))


class OpenContainer(Protocol):
    """What a diagnosis needs of an open array or object (the scanner's frames)."""

    is_object: bool
    opened: int  # the offset of its '[' or '{'


_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_DIGITS = re.compile(r"[0-9]*")
# Characters that look like whitespace or quotes to a person but are not JSON's.
_FAKE_SPACE = set(
    "\u00a0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b"
    "\u2028\u2029\u202f\u205f\u3000\ufeff\x0b\x0c\x85"
)
_SMART_QUOTES = set("\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u00ab\u00bb\u2033")
_LITERALS = ("true", "false", "null")
_WRONG_LITERALS = {
    "True": "true",
    "False": "false",
    "None": "null",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
    "Null": "null",
    "nil": "null",
    "undefined": "null",
}
_NON_FINITE = ("NaN", "Infinity", "-Infinity", "+Infinity", "inf", "-inf", "nan")
_CONTROL_NAMES = {
    "\n": ("line break", "\\n"),
    "\r": ("carriage return", "\\r"),
    "\t": ("tab", "\\t"),
    "\b": ("backspace", "\\b"),
    "\f": ("form feed", "\\f"),
}


class Diagnosis:
    """The words for each mistake in one text: every method returns the :class:`JSONTextError` to raise.

    :param text: the whole text; offsets are 0-based character offsets into it.
    :param lines: its line table, shared with the scanner (``None``: one of its own).
    """

    def __init__(self, text: str, lines: Lines | None = None) -> None:
        self.text = text
        self.lines = Lines(text) if lines is None else lines

    def error(self, code: str, message: str, offset: int) -> JSONTextError:
        """The error ``code`` with ``message`` at ``offset``."""
        return JSONTextError(code, message, self.text, offset)

    def _opened(self, frame: OpenContainer) -> str:
        line, col = self.lines.line_col(frame.opened)
        return f"line {line}, column {col}"

    # -- the text as a whole ------------------------------------------------------------------------------
    def bom(self) -> JSONTextError:
        return self.error(
            "bom",
            "The text starts with a byte order mark (U+FEFF), which is not JSON: remove it (a "
            "file read as UTF-8 with BOM must be decoded as utf-8-sig).",
            0,
        )

    def empty(self) -> JSONTextError:
        return self.error("empty", "The text is empty: paste a JSON value.", 0)

    def too_deep(self, limit: int, depth: int, pos: int) -> JSONTextError:
        """``text[pos]`` opens nesting level ``depth``, beyond ``limit``."""
        return self.error(
            "too_deep",
            f"Nesting deeper than the limit of {limit} levels: this '{self.text[pos]}' opens level {depth}.",
            pos,
        )

    def truncated(self, stack: Sequence[OpenContainer]) -> JSONTextError:
        """The text ends while ``stack`` (outermost first) is open, or before any value when it is empty."""
        end = content_end(self.text)
        if not stack:
            return self.error("truncated", "The text ends where a value is expected.", end)
        frame = stack[-1]
        kind, want = ("object", "}") if frame.is_object else ("array", "]")
        more = (
            f" ({len(stack) - 1} more enclosing level{'s' if len(stack) > 2 else ''} also unclosed)"
            if len(stack) > 1
            else ""
        )
        tail = self.text[:end].rstrip()[-1:]
        if tail == ":":
            detail = "after ':' — the member's value is missing"
        elif tail == ",":
            detail = "after ',' — the next " + ("member" if frame.is_object else "element") + " is missing"
        else:
            detail = f"before the {kind} opened at {self._opened(frame)} is closed (expected '{want}')"
        return self.error("truncated", f"The text ends {detail}{more}: it looks cut off.", end)

    def after_document(self, pos: int) -> JSONTextError:
        """Something at ``pos`` after the one value of the text."""
        known = self.common(pos)
        if known:
            return known
        end_line, end_col = self.lines.line_col(content_end(self.text[:pos]))
        return self.error(
            "extra_data",
            f"Extra data after the JSON value, which ended at line {end_line}, column "
            f"{end_col}: a JSON text holds one value. For several, put them in an array (or use JSON "
            "Lines, one per line).",
            pos,
        )

    # -- structure ----------------------------------------------------------------------------------------
    def trailing_comma(self, comma: int, closer: str) -> JSONTextError:
        """The comma at ``comma`` is followed by ``closer`` (``}`` or ``]``)."""
        kind, what = ("object", "member") if closer == "}" else ("array", "element")
        return self.error(
            "trailing_comma",
            f"Trailing comma before the end of the {kind}: JSON allows no comma after the last {what}; remove it.",
            comma,
        )

    def mismatched_bracket(self, pos: int, frame: OpenContainer) -> JSONTextError:
        """``text[pos]`` closes the other kind of container than ``frame``."""
        kind, want = ("object", "}") if frame.is_object else ("array", "]")
        return self.error(
            "mismatched_bracket",
            f"'{self.text[pos]}' does not close the {kind} opened at "
            f"{self._opened(frame)}: expected '{want}' (or ',' before the next "
            f"{'member' if frame.is_object else 'element'}).",
            pos,
        )

    def after_child(self, pos: int, frame: OpenContainer) -> JSONTextError:
        """Explain what follows a member value or array element when it is neither ',' nor the closing bracket."""
        known = self.common(pos)
        if known:
            return known
        want, what = ("}", "member") if frame.is_object else ("]", "element")
        kind = "object" if frame.is_object else "array"
        return self.error(
            "missing_comma",
            f"Expected ',' or '{want}' after the {what}, found "
            f"{describe(self.text[pos])}: is a comma missing? (the {kind} opened at "
            f"{self._opened(frame)})",
            pos,
        )

    def bad_name(self, pos: int) -> JSONTextError:
        """Explain the character at ``pos`` where a member name should start."""
        text = self.text
        known = self.common(pos)
        if known:
            return known
        c = text[pos]
        if c == "'":
            return self.error(
                "single_quote", 'Single-quoted member name: JSON member names use double quotes (").', pos
            )
        word = _WORD.match(text, pos) or re.compile(r"[0-9A-Za-z_$-]+").match(text, pos)
        if word:
            return self.error(
                "unquoted_key",
                f'Unquoted member name {word.group()}: JSON member names are double-quoted strings ("{word.group()}").',
                pos,
            )
        return self.error(
            "unexpected_token", f"Unexpected {describe(c)}: expected a member name in double quotes.", pos
        )

    def after_name(self, name: str, colon: int) -> JSONTextError:
        """The member name ``name`` is followed by something other than ':' at ``colon`` (or by the end)."""
        if colon >= len(self.text):
            return self.error(
                "truncated",
                f"The text ends after the member name {quote(name)}: expected ':' and its value.",
                content_end(self.text),
            )
        ch = self.text[colon]
        hint = " (JSON uses ':', not '=')" if ch == "=" else ""
        return self.error(
            "missing_colon", f"Expected ':' after the member name {quote(name)}, found {describe(ch)}{hint}.", colon
        )

    def bad_value(self, pos: int, stack: Sequence[OpenContainer]) -> JSONTextError:
        """Explain the character at ``pos`` where a value should start (``stack``: the open containers)."""
        text = self.text
        known = self.common(pos)
        if known:
            return known
        c = text[pos]
        context = _value_context(text, pos, bool(stack))
        if c == "'":
            return self.error("single_quote", 'Single-quoted string: JSON strings use double quotes (").', pos)
        word = _WORD.match(text, pos) or re.compile(r"[+-]?[A-Za-z]+").match(text, pos)
        if word:
            w = word.group()
            if w in _NON_FINITE or (c in "+-" and w[1:] in _NON_FINITE):
                return self.non_finite(w, pos)
            if w in _WRONG_LITERALS:
                return self.error("invalid_literal", f"{w} is not a JSON value: write {_WRONG_LITERALS[w]}.", pos)
            if w.lower() in _LITERALS:
                return self.error(
                    "invalid_literal", f"{w} is not a JSON value: literals are lower-case ({w.lower()}).", pos
                )
            return self.error(
                "unquoted_string", f"Unquoted text {quote(shorten(w))}: JSON strings need double quotes.", pos
            )
        if c == "+":
            return self.error("invalid_number", "A number can't start with '+': JSON numbers have no plus sign.", pos)
        if c == ".":
            return self.error("invalid_number", "A number can't start with '.': write 0.5, not .5.", pos)
        if c in ",}]":
            return self.error("missing_value", f"Expected a value {context}, found {describe(c)}.", pos)
        return self.error(
            "unexpected_token",
            f"Unexpected {describe(c)} {context}: expected a value (object, "
            "array, string, number, true, false or null).",
            pos,
        )

    def common(self, pos: int) -> JSONTextError | None:
        """Mistakes that read the same wherever they appear: comments, smart quotes, fake whitespace."""
        text = self.text
        c = text[pos]
        if c == "/" and text[pos + 1 : pos + 2] in ("/", "*"):
            style = "//" if text[pos + 1] == "/" else "/* */"
            return self.error(
                "comment",
                f"Comment ({style}): JSON has no comments; remove it (JSONC and JSON5 allow comments, JSON does not).",
                pos,
            )
        if c in _SMART_QUOTES:
            return self.error(
                "smart_quote",
                f"Typographic quote {describe(c)}: JSON strings use the plain "
                'double quote ("); a word processor or chat app may have replaced it.',
                pos,
            )
        if c in _FAKE_SPACE:
            if c == "\ufeff":
                return self.error("bom", "A byte order mark (U+FEFF) in the middle of the text: remove it.", pos)
            return self.error(
                "invalid_whitespace",
                f"{describe(c)} looks like whitespace but is not JSON "
                "whitespace (only space, tab, line feed and carriage return are); remove it.",
                pos,
            )
        return None

    # -- scalars ------------------------------------------------------------------------------------------
    def non_finite(self, word: str, pos: int) -> JSONTextError:
        """``NaN``, ``Infinity`` and their spellings at ``pos`` (RFC 8259 §6)."""
        return self.error(
            "nan_literal",
            f"{word} is not a JSON number: RFC 8259 §6 allows no NaN or Infinity. "
            'Write null, or a string such as "NaN".',
            pos,
        )

    def lone_minus(self, pos: int) -> JSONTextError:
        return self.error("invalid_number", "A '-' must be followed by a digit.", pos)

    def leading_zero(self, pos: int, token: str, end: int) -> JSONTextError:
        """The number ``token`` at ``pos`` (``0`` or ``-0``) is followed by more digits at ``end``."""
        whole = token + _DIGITS.match(self.text, end).group()  # type: ignore[union-attr]  # [0-9]* always matches
        return self.error(
            "leading_zero",
            f"Number {whole} starts with a leading zero: JSON numbers don't (write "
            "it without the zero, or as a string if the zeros matter).",
            pos,
        )

    def number_too_long(self, pos: int, digits: int, limit: int) -> JSONTextError:
        return self.error(
            "number_too_long",
            f"An integer of {digits:,} digits is longer than this parser reads ({limit:,} digits).",
            pos,
        )

    def bad_number_tail(self, pos: int, end: int, token: str) -> JSONTextError:
        """The number ``token`` read from ``pos`` to ``end`` is followed by a character no number has there."""
        text = self.text
        nxt = text[end]
        after = text[end + 1] if end + 1 < len(text) else ""
        if nxt == "." and not after.isdigit():
            return self.error(
                "invalid_number",
                f"Number '{token}.' needs digits after the decimal point (write {token}.0 or {token}).",
                end,
            )
        if nxt in "eE" and not (after.isdigit() or (after in "+-" and text[end + 2 : end + 3].isdigit())):
            return self.error("invalid_number", f"The exponent of '{token}{nxt}' needs digits (e.g. {token}e3).", end)
        if token in ("0", "-0") and nxt in "xX":
            return self.error("invalid_number", "Hexadecimal numbers are not JSON: write the number in decimal.", pos)
        tail = _WORD.match(text, end)
        shown = token + (tail.group() if tail else nxt)
        return self.error(
            "invalid_number",
            f"'{shorten(shown)}' is not a JSON number (unexpected {describe(nxt)} after the digits).",
            end,
        )

    def bad_string(self, exc: json.JSONDecodeError, start: int) -> JSONTextError:
        """Explain why the C string scanner refused the string opening at ``start`` (``exc``: its error)."""
        text, where = self.text, exc.pos
        line, col = self.lines.line_col(start)
        opened = f"the string that starts at line {line}, column {col}"
        if exc.msg.startswith("Unterminated string"):
            return self.error(
                "truncated", f'The text ends inside {opened}: the closing quote (") is missing.', content_end(text)
            )
        if exc.msg.startswith("Invalid control character"):
            ch = text[where]
            name, escape = _CONTROL_NAMES.get(ch, ("control character", f"\\u{ord(ch):04x}"))
            extra = " (or is the closing quote missing?)" if ch in "\r\n" else ""
            return self.error(
                "control_character",
                f"Raw {name} (U+{ord(ch):04X}) inside {opened}: JSON strings must escape it as {escape}{extra}.",
                where,
            )
        if exc.msg.startswith("Invalid \\uXXXX"):
            backslash = where - 1 if where and text[where - 1] == "\\" else where
            digits = text[backslash + 2 : backslash + 6]
            if backslash + 2 + len(digits.rstrip()) >= len(text) and all(d in "0123456789abcdefABCDEF" for d in digits):
                return self.error("truncated", f"The text ends inside a \\u escape of {opened}.", content_end(text))
            return self.error(
                "invalid_escape",
                f"Invalid escape '\\u{digits}' in {opened}: \\u must be followed by exactly 4 hexadecimal digits.",
                backslash,
            )
        if exc.msg.startswith("Invalid \\escape"):
            if where + 1 >= len(text):
                return self.error(
                    "truncated", f"The text ends inside {opened}, right after a backslash.", content_end(text)
                )
            after = text[where + 1]
            hint = (
                " (a single quote needs no escape in JSON)"
                if after == "'"
                else " (a Windows path? write each backslash as \\\\)"
            )
            return self.error(
                "invalid_escape",
                f"Invalid escape {_escape_shown(after)} in {opened}: JSON allows "
                '\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX only' + hint + ".",
                where,
            )
        return self.error("unexpected_token", f"This string could not be read: {exc.msg}.", where)


def _escape_shown(after: str) -> str:
    """The invalid escape of a backslash and the character ``after`` it, for a message: ``'\\x'``, or
    ``'\\' followed by a tab (U+0009)`` when that character is invisible (a control character, an odd space, a lone
    surrogate). :func:`describe` names one character, never the pair."""
    if after in _CONTROL_NAMES:
        return f"'\\' followed by a {_CONTROL_NAMES[after][0]} (U+{ord(after):04X})"
    shown = describe(after)
    return f"'\\{after}'" if shown == f"'{after}'" else f"'\\' followed by {shown}"


def _value_context(text: str, pos: int, nested: bool) -> str:
    before = text[:pos].rstrip(" \t\r\n")[-1:]
    if before == ":":
        return "after ':'"
    if before == ",":
        return "after ','"
    if before == "[":
        return "after '['"
    return "here" if nested else "at the start"
