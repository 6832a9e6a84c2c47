"""A big text (over :data:`BIG_TEXT` characters) checked at C speed, never token by token in Python.

Its nesting is measured on its bytes (:mod:`~webapp.core.json.bytes`: on a skeleton of the brackets, or on the
strings split from the structure when the formatter asks for that split), its numbers are looked for outside
strings by byte scans, and it is parsed with the cyclic garbage collector paused (:func:`paused_gc`).
:class:`BigText` computes each of these once, when first needed; :func:`surely_valid` tells a valid text without
building its values (a download of the formatted text needs only the verdict).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager

import orjson

from webapp.core.json.bytes import (
    STRING_MARK,
    nesting_depth,
    neutral_escapes,
    outside_strings,
    outside_test,
    skeleton,
)
from webapp.core.json.interop import integer_tokens, number_nines
from webapp.core.json.precise import warnings_of

__all__ = ["BIG_TEXT", "BigText", "paused_gc", "surely_valid"]

#: Texts longer than this (characters) are parsed with the cyclic garbage collector paused.
BIG_TEXT = 1_000_000


@contextmanager
def paused_gc(pause: bool = True) -> Iterator[None]:
    """Pause Python's cyclic garbage collector while millions of containers are built (it would rescan them
    again and again: about 60% of ``json.loads`` time on 45 MB); JSON values hold no reference cycles. The
    collector runs again afterwards if it was running before (it is process-wide, so a concurrent pause by
    another thread only delays a collection)."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_U_ESCAPE = re.compile(rb"\\u")  # a regex finds these two bytes faster than bytes.find


class BigText:
    """What the checks of a big text share, each computed once at C speed when first needed: :attr:`data` (the
    text as UTF-8), its quotes made plain (:attr:`neutral`, :func:`~webapp.core.json.bytes.neutral_escapes`) and,
    asked for by ``string_parts`` (for the formatter), its strings split from the structure (:attr:`parts`,
    :attr:`outside`)."""

    def __init__(self, text: str, data: bytes | None, string_parts: bool) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass") if data is None else data
        self._neutral: bytes | None = None
        self.parts: list[bytes] | None = None
        self.outside: bytes | None = None
        if string_parts:
            self.parts = self.neutral.split(b'"')  # = split_strings(self.data), the neutral bytes kept
            self.outside = outside_strings(self.parts)
        self._structure: bytes | None = self.outside
        self._nines: bytes | None = None
        self._u_escapes: bool | None = None
        self._depth_checked = False

    @property
    def neutral(self) -> bytes:
        """:func:`~webapp.core.json.bytes.neutral_escapes` of :attr:`data`."""
        return self.neutral_of()

    def neutral_of(self) -> bytes:
        """:attr:`neutral`, as a function (for the checks that need it only now and then)."""
        if self._neutral is None:
            self._neutral = neutral_escapes(self.data)
        return self._neutral

    @property
    def structure(self) -> bytes:
        """Brackets and colons outside strings, in order (the bytes between strings, or a skeleton of them)."""
        if self._structure is None:
            self._structure = skeleton(self.neutral)
        return self._structure

    @property
    def nines(self) -> bytes:
        """:func:`~webapp.core.json.interop.number_nines` of :attr:`data` (what the number scans search)."""
        if self._nines is None:
            self._nines = number_nines(self.data)
        return self._nines

    @property
    def u_escapes(self) -> bool:
        """Whether :attr:`data` holds ``\\u`` (an escape, or a string's backslash followed by ``u``): without one,
        no escaped colon or surrogate needs looking for. A text without backslashes (one C-speed ``memchr``) holds
        none."""
        if self._u_escapes is None:
            self._u_escapes = b"\\" in self.data and _U_ESCAPE.search(self.data) is not None
        return self._u_escapes

    def check_depth(self, max_depth: int, ijson: bool) -> None:
        """Refuse nesting deeper than ``max_depth`` (measured on :attr:`structure`) before the recursive C parser
        reads the text: the precise path names the first problem, maybe an earlier one. Once is enough.

        :raises JSONTextError: ``too_deep``, or an earlier mistake of the text.
        """
        if not self._depth_checked:
            self._depth_checked = True
            if nesting_depth(self.structure) > max_depth:
                warnings_of(self.text, max_depth, ijson)

    def integers(self, digits: int) -> Iterator[str]:
        """The integer tokens of at least ``digits`` digits (outside strings)."""
        if self.outside is not None:
            return integer_tokens(self.outside, digits)
        return integer_tokens(self.data, digits, outside_test(self.neutral_of), nines=self.nines)


_NOT_CONTROLS = bytes(range(0x20, 0x100))
_NOT_LINE_SPACE = bytes(c for c in range(256) if c not in b"\t\n\r")
#: In :func:`~webapp.core.json.bytes.neutral_escapes` of a text (``\\`` and ``\"`` made placeholders), a backslash
#: that starts no JSON escape (RFC 8259 §7).
_ODD_ESCAPE = re.compile(rb"\\(?:[^/bfnrtu]|u(?![0-9a-fA-F]{4})|\Z)")


def surely_valid(big: BigText) -> bool:
    """Whether a big text split at its strings (``string_parts``) is certainly what the json module accepts,
    found at C speed without building its values (about half the json module's time on a 45 MB journal).

    The text is its structure with strings in it; it is valid when (1) its quotes pair up, (2) the structure
    with each string written ``""`` is valid JSON (orjson reads it: a Rust parser as strict as RFC 8259, which
    refuses what the json module refuses there, ``NaN`` included, and more: ``1e400``, a BOM, nesting beyond
    1024), and (3) each string's body is valid: no raw control character (RFC 8259 §7: not even a tab or a line
    break) and no backslash that starts no escape. ``False`` means "not shown": the json module decides, and
    names the mistake, so the verdict is always the json module's."""
    parts, outside = big.parts, big.outside
    if parts is None or outside is None or not len(parts) & 1:  # an odd number of quotes: a string is not closed
        return False
    controls = big.data.translate(None, _NOT_CONTROLS)
    # Only tabs and line breaks, and all of them outside strings (the marks of the strings are not counted).
    if controls.translate(None, b"\t\n\r") or len(controls) != len(outside.translate(None, _NOT_LINE_SPACE)):
        return False
    if b"\\" in big.neutral and _ODD_ESCAPE.search(big.neutral):
        return False
    try:
        orjson.loads(outside.replace(STRING_MARK, b'""'))
    except orjson.JSONDecodeError:
        return False
    return True
