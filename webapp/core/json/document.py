"""A parsed JSON text (:class:`Document`): the text itself, its value, its warnings, and where its values are.

Where the value at a JSON Pointer starts is found on demand, by the scanner with a
:class:`~webapp.core.json.positions.PositionRecorder`: a text up to :data:`POSITION_MAP_LIMIT` characters gets
its whole pointer map once; a bigger one is scanned only for the pointers asked, so memory grows with the
questions, not with the text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webapp.core.json import pointer as jpointer
from webapp.core.json.bytes import split_strings
from webapp.core.json.interop import JSONWarning
from webapp.core.json.positions import Lines, PositionRecorder
from webapp.core.json.scan import Scanner, match_ws, scanstring

__all__ = ["POSITION_MAP_LIMIT", "Document"]

#: Documents up to this many characters get a full pointer → position map on the first ``position`` call;
#: bigger ones keep only the pointers asked for, found by one scan per batch (:meth:`Document.positions`) that
#: stops at the last one found and skips subtrees holding none at C speed.
POSITION_MAP_LIMIT = 256_000
_RAW_DECODER = json.JSONDecoder()


@dataclass
class Document:
    """A parsed JSON text: the text itself, plain Python values (ints exact) and the warnings.

    ``value`` uses dict/list/str/int/float/bool/None; of duplicate member names the last value is kept, as
    every mainstream parser does. A text parsed for its verdict only (``parse(values=False)``) may hold ``None``.
    """

    text: str
    value: Any
    warnings: list[JSONWarning] = field(default_factory=list)
    _positions: dict[str, int] | None = field(default=None, repr=False, compare=False)
    # Beyond POSITION_MAP_LIMIT: the offsets of the pointers asked for so far (None: names nothing), so memory
    # grows with the questions, not with the text.
    _known: dict[str, int | None] = field(default_factory=dict, repr=False, compare=False)
    # True when the parse saw no duplicate member name: a targeted scan may then stop at its last find (with
    # duplicates a later member may replace one already found, so the scan goes on to the end).
    _unique_names: bool = field(default=False, repr=False, compare=False)
    _lines: Lines | None = field(default=None, repr=False, compare=False)
    _split: tuple[list[bytes], bytes] | None = field(default=None, repr=False, compare=False)
    _size: int | None = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> int:
        """UTF-8 bytes of :attr:`text` (lone surrogates, legal in escapes, as 3 bytes each); the parse of a big
        text knows it already."""
        if self._size is None:
            self._size = len(self.text.encode("utf-8", "surrogatepass"))
        return self._size

    def take_string_parts(self) -> tuple[list[bytes], bytes | None]:
        """:func:`split_strings` of :attr:`text` (as UTF-8), and the bytes outside strings joined with
        :data:`STRING_MARK` (``None`` when not computed). What the parse already computed for a big document is
        handed over once (the caller may change the list); later calls compute the parts again."""
        split, self._split = self._split, None
        if split is not None:
            return split
        return split_strings(self.text.encode("utf-8", "surrogatepass")), None

    def position(self, pointer: str) -> tuple[int, int] | None:
        """(line, column), 1-based, where the value at ``pointer`` starts in :attr:`text`.

        For an object member it is where the member's *name* starts, so a mark lands on the whole member; for the
        root and array elements, where the value starts. With duplicate names, the last member (the one kept).

        :returns: ``None`` when the pointer names nothing in the document.
        :raises ValueError: when ``pointer`` is not an RFC 6901 pointer.
        """
        offset = self.offset(pointer)
        return None if offset is None else self.line_col(offset)

    def positions(self, pointers: Iterable[str], *, values: bool = False) -> dict[str, tuple[int, int] | None]:
        """:meth:`position` for many pointers at once, keyed by the pointers as given: at most one scan of the text.

        A text up to :data:`POSITION_MAP_LIMIT` characters gets its full pointer map (once). A bigger one is
        scanned once for the pointers not asked before; the scan records only those, stops when the last is found
        and skips the subtrees that hold none at C speed. The answers, misses included, are kept on the document,
        so later :meth:`position`/:meth:`offset` calls for these pointers cost no scan.

        :param values: where each *value* starts, past an object member's name and colon (:meth:`value_offset`),
            instead of where the member starts: the spot to select when the value itself is at fault.
        :raises ValueError: when a pointer is not an RFC 6901 pointer (before any scan).
        """
        given = {p: jpointer.join(jpointer.split(p)) for p in pointers}
        offsets = self._offsets(set(given.values()))
        found: dict[str, tuple[int, int] | None] = {}
        for given_pointer, canonical in given.items():
            at = offsets[canonical]
            if at is not None and values:
                at = self._past_name(canonical, at)
            found[given_pointer] = None if at is None else self.line_col(at)
        return found

    def offset(self, pointer: str) -> int | None:
        """0-based character offset where :meth:`position` points (a member's name, else the value)."""
        canonical = jpointer.join(jpointer.split(pointer))
        return self._offsets({canonical})[canonical]

    def _offsets(self, canonical: set[str]) -> dict[str, int | None]:
        """Offsets of canonical pointers: the root without a scan, the rest from the full map (small texts) or
        from what is known, after one targeted scan for the pointers not yet known (big texts)."""
        answers: dict[str, int | None] = {}
        if "" in canonical:
            answers[""] = match_ws(self.text, 0).end()
            canonical = canonical - {""}
        if not canonical:
            return answers
        if self._positions is None and len(self.text) <= POSITION_MAP_LIMIT:
            recorder = PositionRecorder()
            Scanner(self.text, max_depth=10**9, recorder=recorder).run()
            self._positions = recorder.offsets
        if self._positions is not None:
            table: dict[str, int] | dict[str, int | None] = self._positions
        else:
            table = self._known
            wanted = canonical - table.keys()
            if wanted:
                recorder = PositionRecorder(targets=wanted, stop_when_found=self._unique_names)
                Scanner(self.text, max_depth=10**9, recorder=recorder).run()
                table.update((p, recorder.offsets.get(p)) for p in wanted)
        answers.update((p, table.get(p)) for p in canonical)
        return answers

    def value_offset(self, pointer: str) -> int | None:
        """0-based character offset where the value at ``pointer`` itself starts: for an object member, past its
        name and the colon (:meth:`offset` gives the name's); otherwise the same as :meth:`offset`.

        :returns: ``None`` when the pointer names nothing. :raises ValueError: on a malformed pointer.
        """
        start = self.offset(pointer)
        return None if start is None else self._past_name(pointer, start)

    def _past_name(self, pointer: str, start: int) -> int:
        """From a member's start (its name) to its value's start; any other value's start is kept."""
        text = self.text
        if pointer and text[start] == '"' and _is_member(self.value, pointer):
            start = scanstring(text, start + 1, True)[1]  # skip the name, then ':'
            start = match_ws(text, start).end() + 1
            start = match_ws(text, start).end()
        return start

    def raw(self, pointer: str) -> str | None:
        """The text of the value at ``pointer`` exactly as written (numbers, escapes and spacing kept).

        :returns: ``None`` when the pointer names nothing. :raises ValueError: on a malformed pointer.
        """
        start = self.value_offset(pointer)
        if start is None:
            return None
        end = _RAW_DECODER.raw_decode(self.text, start)[1]
        return self.text[start:end]

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of a 0-based character offset into :attr:`text`."""
        if self._lines is None:
            self._lines = Lines(self.text)
        return self._lines.line_col(offset)


def _is_member(value: Any, pointer: str) -> bool:
    """True when ``pointer`` names an object member (its parent is an object), not an array element."""
    parent = jpointer.split(pointer)[:-1]
    try:
        return isinstance(jpointer.resolve(value, jpointer.join(parent)), dict)
    except (KeyError, ValueError):
        return False
