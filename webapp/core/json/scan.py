"""The precise path: an iterative RFC 8259 scanner that reads a text token by token in Python.

It runs only when the fast path (CPython's C parser, :mod:`webapp.core.json.fast`) failed or a cheap check fired,
or to find where values are. No recursion, so no ``RecursionError`` at any depth. It knows the grammar only; what
it is asked to do besides refusing the first mistake is handed in, one concern each:

* ``checks`` (a :class:`Checks`; :class:`~webapp.core.json.interop.Warnings` is the one the parse layer hands
  in) looks at member names, strings and numbers for what parses but will still bite (duplicate names, unpaired
  surrogates, integers beyond 2^53, ...);
* ``recorder`` (a :class:`Recorder`; :class:`~webapp.core.json.positions.PositionRecorder`) notes where values
  start;
* the words of each mistake come from :class:`~webapp.core.json.diagnose.Diagnosis`.

The scanner knows the checks and the recorder only by these two protocols, so the rules that use it (the interop
rules run it over a big document's first part) depend on it, never the other way round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import Protocol, cast

from webapp.core.json import pointer as jpointer
from webapp.core.json.diagnose import Diagnosis, JSONTextError
from webapp.core.json.positions import Lines

__all__ = ["MAX_INT_DIGITS", "Checks", "Frame", "Recorder", "Scanner", "first_error", "match_ws", "scanstring"]

#: CPython refuses to convert longer digit strings to ``int`` (``sys.get_int_max_str_digits``).
MAX_INT_DIGITS = 4300

_WS = re.compile(r"[ \t\n\r]*")
#: ``match_ws(text, pos).end()``: where the JSON whitespace at ``pos`` ends. The pattern matches (maybe empty) at
#: every position, past the end too, so the match is never ``None``: typed so, at no cost per call.
match_ws = cast("Callable[[str, int], re.Match[str]]", _WS.match)
#: ``scanstring(text, pos, True)``: decode the JSON string whose body starts at ``pos`` (after its quote); returns
#: (value, position after the closing quote), raises :class:`json.JSONDecodeError`. The json module's own scanner
#: (C when built).
scanstring: Callable[[str, int, bool], tuple[str, int]]
scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # undocumented, so the stubs leave it out
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_LITERALS = frozenset(("true", "false", "null"))


class Checks(Protocol):
    """What the scanner hands the values it reads to, besides the grammar (the warnings, and what I-JSON forbids).

    Each method may raise :class:`JSONTextError` to refuse the text at that place.
    """

    def member(self, name: str, pos: int, names: dict[str, int], parent: str) -> None:
        """The member ``name`` starts at ``pos`` in the object ``parent``, whose names so far are ``names`` (name
        → offset; the method records ``name`` there)."""

    def string(self, value: str, start: int, end: int, pointer: str | None) -> None:
        """The non-ASCII string ``value`` was read from ``text[start:end]`` (quotes included); ``pointer``:
        ``None`` for a member name."""

    def integer(self, token: str, pos: int, pointer: str) -> None:
        """The integer ``token`` of 16 digits or more is at ``pos``."""

    def real(self, token: str, pos: int, pointer: str) -> None:
        """The number ``token``, with an exponent or of more than 17 characters, is at ``pos``."""


class Recorder(Protocol):
    """What notes where values start while the scanner reads (a text parsed already), and may let it skip.

    :ivar through: the containers that may hold a value to record (their pointers), or ``None`` when every value
        is recorded: then :meth:`skip_container` and :meth:`skip_elements` are never asked.
    """

    @property
    def through(self) -> Collection[str] | None: ...  # read only: a recorder may keep it as any collection

    def record(self, pointer: str, offset: int) -> bool:
        """The value at ``pointer`` starts at ``offset`` (an object member's: its name). :returns: True when the
        scan may stop."""

    def skip_container(self, text: str, pos: int, pointer: str) -> int | None:
        """Where the container at ``pos`` ends when it need not be read, else ``None``."""

    def skip_elements(self, text: str, pos: int, parent: str, index: int) -> tuple[int, int]:
        """Where the next element of the array ``parent`` to read starts (from element ``index`` at ``pos``), and
        its index."""


class Frame:
    """One open container: where it opened, its pointer, the names seen so far (objects, when checked) and the
    current child (an element's index, a member's name offset)."""

    __slots__ = ("is_object", "opened", "pointer", "names", "index", "name_offset")

    def __init__(self, is_object: bool, opened: int, pointer: str) -> None:
        self.is_object = is_object
        self.opened = opened
        self.pointer = pointer
        self.names: dict[str, int] | None = {} if is_object else None
        self.index = 0
        self.name_offset = opened


class Scanner:
    """Reads one text; :meth:`run` raises the first :class:`JSONTextError` (RFC 8259 grammar, nesting beyond
    ``max_depth``, an integer longer than :data:`MAX_INT_DIGITS`, and what ``checks`` refuses).

    :param max_depth: most nested arrays/objects allowed (``[]`` is depth 1).
    :param checks: looks for warnings (and, for I-JSON, raises on them); ``None``: no warnings.
    :param recorder: notes where values start; ``None``: nothing recorded.
    :param stop_at: stop after the first value that ends past this character offset (a big document's warnings
        are located only up to there); :attr:`stopped_at` then tells where. ``None``: read to the end.
    """

    def __init__(
        self,
        text: str,
        *,
        max_depth: int,
        checks: Checks | None = None,
        recorder: Recorder | None = None,
        stop_at: int | None = None,
    ) -> None:
        self.text = text
        self.n = len(text)
        self.max_depth = max_depth
        self.checks = checks
        self.recorder = recorder
        self.stop_at = self.n + 1 if stop_at is None else stop_at
        self.stopped_at: int | None = None
        self.lines = Lines(text)
        self.diagnosis = Diagnosis(text, self.lines)

    def run(self) -> None:
        """Read the text (up to ``stop_at``). :raises JSONTextError: at the first mistake."""
        text, n, ws = self.text, self.n, match_ws
        explain, recorder = self.diagnosis, self.recorder
        through = recorder.through if recorder is not None else None
        if text.startswith("\ufeff"):
            raise explain.bom()
        pos = ws(text, 0).end()
        if pos >= n:
            raise explain.empty()
        stack: list[Frame] = []
        pointer = ""
        expect_value = True
        while True:
            if expect_value:
                pos = ws(text, pos).end()
                if pos >= n:
                    raise explain.truncated(stack)
                if recorder is not None and recorder.record(
                    pointer, stack[-1].name_offset if stack and stack[-1].is_object else pos
                ):
                    return
                c = text[pos]
                if c == "{" or c == "[":
                    if through is not None and recorder is not None:  # through is set only with a recorder
                        skipped = recorder.skip_container(text, pos, pointer)
                        if skipped is not None:
                            pos, expect_value = skipped, False
                            continue
                    if len(stack) >= self.max_depth:
                        raise explain.too_deep(self.max_depth, len(stack) + 1, pos)
                    frame = Frame(c == "{", pos, pointer)
                    stack.append(frame)
                    pos = ws(text, pos + 1).end()
                    if pos < n and text[pos] == ("}" if frame.is_object else "]"):
                        stack.pop()
                        pos += 1
                        expect_value = False
                    elif frame.is_object:
                        pos, pointer = self.member_name(pos, frame, stack)
                    else:
                        pointer = frame.pointer + "/0"
                    continue
                if c == '"':
                    pos = self.string(pos, pointer)[1]
                elif c in "-0123456789":
                    pos = self.number(pos, pointer)
                else:
                    word = _WORD.match(text, pos)
                    if word and word.group() in _LITERALS:
                        pos = word.end()
                    else:
                        raise explain.bad_value(pos, stack)
                expect_value = False
                continue

            # After a value: a comma, the closing bracket, or (at the top) the end of the text.
            if pos > self.stop_at:
                self.stopped_at = pos
                return
            pos = ws(text, pos).end()
            if not stack:
                if pos < n:
                    raise explain.after_document(pos)
                return
            frame = stack[-1]
            if pos >= n:
                raise explain.truncated(stack)
            c = text[pos]
            if c == ",":
                comma = pos
                pos = ws(text, pos + 1).end()
                if pos < n and text[pos] in "}]":
                    raise explain.trailing_comma(comma, text[pos])
                if frame.is_object:
                    pos, pointer = self.member_name(pos, frame, stack)
                else:
                    frame.index += 1
                    if through is not None and recorder is not None:  # through is set only with a recorder
                        pos, frame.index = recorder.skip_elements(text, pos, frame.pointer, frame.index)
                    pointer = f"{frame.pointer}/{frame.index}"
                expect_value = True
            elif c == ("}" if frame.is_object else "]"):
                stack.pop()
                pos += 1
            elif c in "}]":
                raise explain.mismatched_bracket(pos, frame)
            else:
                raise explain.after_child(pos, frame)

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of a character offset into the text."""
        return self.lines.line_col(offset)

    def stop(self) -> None:
        """Stop a :meth:`run` under way after the value being read, as ``stop_at`` does (:attr:`stopped_at` tells
        where)."""
        self.stop_at = -1

    # -- members ------------------------------------------------------------------------------------------
    def member_name(self, pos: int, frame: Frame, stack: list[Frame]) -> tuple[int, str]:
        """Read ``"name"`` and ``:`` at ``pos``; returns the position after the colon and the member's pointer."""
        text, n = self.text, self.n
        pos = match_ws(text, pos).end()
        if pos >= n:
            raise self.diagnosis.truncated(stack)
        if text[pos] != '"':
            raise self.diagnosis.bad_name(pos)
        name, end = self.string(pos, None)
        member = f"{frame.pointer}/{jpointer.escape(name)}"
        if self.checks is not None:
            assert frame.names is not None  # an object's frame (the only kind with member names) has its dict
            self.checks.member(name, pos, frame.names, frame.pointer)
        frame.name_offset = pos
        colon = match_ws(text, end).end()
        if colon >= n or text[colon] != ":":
            raise self.diagnosis.after_name(name, colon)
        return colon + 1, member

    # -- scalars ------------------------------------------------------------------------------------------
    def string(self, pos: int, pointer: str | None) -> tuple[str, int]:
        """Read the string opening at ``pos``; returns (decoded, position after the closing quote)."""
        try:
            value, end = scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError as exc:
            raise self.diagnosis.bad_string(exc, pos) from None
        if self.checks is not None and not value.isascii():
            self.checks.string(value, pos, end, pointer)
        return value, end

    def number(self, pos: int, pointer: str) -> int:
        """Read the number at ``pos``; returns the position after it."""
        text, n = self.text, self.n
        if text.startswith("-Infinity", pos):
            raise self.diagnosis.non_finite("-Infinity", pos)
        match = _NUMBER.match(text, pos)
        if match is None:  # '-' not followed by a digit
            raise self.diagnosis.lone_minus(pos)
        end = match.end()
        token = match.group()
        nxt = text[end] if end < n else ""
        integer = match.group(1) is None and match.group(2) is None
        if nxt:
            if nxt.isdigit() and integer and token in ("0", "-0"):
                raise self.diagnosis.leading_zero(pos, token, end)
            if nxt in ".eE" or nxt.isalnum() or nxt == "_":
                raise self.diagnosis.bad_number_tail(pos, end, token)
        if integer:
            digits = len(token) - (token[0] == "-")
            if digits > MAX_INT_DIGITS:
                raise self.diagnosis.number_too_long(pos, digits, MAX_INT_DIGITS)
            if digits >= 16 and self.checks is not None:
                self.checks.integer(token, pos, pointer)
        elif self.checks is not None and (match.group(2) is not None or len(token) > 17):
            self.checks.real(token, pos, pointer)
        return end


def first_error(text: str, *, max_depth: int, checks: Checks | None = None) -> JSONTextError | None:
    """The first mistake of ``text`` as the :class:`Scanner` names it (with ``checks``, what they refuse too),
    or ``None`` when it finds none."""
    try:
        Scanner(text, max_depth=max_depth, checks=checks).run()
    except JSONTextError as err:
        return err
    return None
