"""Where things are in a JSON text: offsets as line:column, and where the value at each JSON Pointer starts.

:class:`Lines` turns a 0-based character offset into a 1-based (line, column). :class:`PositionRecorder` is what
a :class:`~webapp.core.json.scan.Scanner` fills while it reads a text that was parsed already: the offset where
each value starts (for an object member, where its *name* starts, so a mark lands on the whole member), for every
value or only for some pointers (``targets``). A targeted recording lets the scanner skip, at C speed, every array
or object that can hold no target and, with ``stop_when_found``, stop once each target is recorded.
:meth:`webapp.core.json.document.Document.positions` decides when to record what.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right

__all__ = ["Lines", "PositionRecorder", "line_col"]


class Lines:
    """Where the lines of a text start, found as far as asked: offset → (line, column) by bisection.

    Lines end at ``\\n`` (a ``\\r`` before it counts as a character of its line); columns count characters. The
    table grows on demand (at least doubling what was read), so a scan that stops early in a 45 MB text, or a
    question about its first lines, does not index all of it. ``first_line``: the number of the text's first line
    (a JSON Lines record's line in the whole text), else 1.
    """

    __slots__ = ("text", "starts", "read", "first")

    def __init__(self, text: str, first_line: int = 1) -> None:
        self.text = text
        self.first = first_line - 1
        self.starts: list[int] = []  # where each line after the first starts, for the newlines before ``read``
        self.read = 0

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of the 0-based character ``offset``."""
        if offset >= self.read and self.read < len(self.text):
            end = min(len(self.text), max(offset + 1, 2 * self.read, _FIRST_READ))
            self.starts.extend(m.end() for m in _NEWLINE.finditer(self.text, self.read, end))
            self.read = end
        line = bisect_right(self.starts, offset)
        start = self.starts[line - 1] if line else 0
        return line + 1 + self.first, offset - start + 1


_NEWLINE = re.compile("\n")
_FIRST_READ = 1 << 16


def line_col(text: str, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of one 0-based character ``offset`` into ``text`` (no table kept: for one
    question; :class:`Lines` answers many)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


# An array element that is a plain scalar, the comma after it and the space before the next (targeted scans).
_SCALAR_ELEMENT = re.compile(
    r"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null"
    r'|"[^"\\]*(?:\\.[^"\\]*)*")[ \t\n\r]*,[ \t\n\r]*'
)
_RAW_DECODER = json.JSONDecoder()


class PositionRecorder:
    """The offsets where values start, recorded during one scan into :attr:`offsets` (canonical pointer → offset).

    :param targets: canonical RFC 6901 pointers to record (the root excluded: it needs no scan); ``None``: every
        value's.
    :param stop_when_found: stop the scan once every target is recorded. Only right when the text has no
        duplicate member names: else a later member may replace one already found (the one kept is the last).
    """

    __slots__ = ("offsets", "targets", "through", "left")

    def __init__(self, targets: set[str] | None = None, *, stop_when_found: bool = False) -> None:
        self.offsets: dict[str, int] = {}
        self.targets = None if targets is None else frozenset(targets)
        #: Containers that may hold a target: the targets' ancestors (in a canonical pointer '/' only separates).
        #: ``None`` when every value is recorded.
        self.through = (
            None if targets is None else frozenset(t[:i] for t in targets for i, ch in enumerate(t) if ch == "/")
        )
        self.left = set(targets) if targets is not None and stop_when_found else None

    def record(self, pointer: str, offset: int) -> bool:
        """Note that the value at ``pointer`` starts at ``offset``; a later duplicate member overwrites (the one kept
        is the last). :returns: True when the scan may stop (every target is recorded)."""
        if self.targets is not None and pointer not in self.targets:
            return False
        self.offsets[pointer] = offset
        if self.left is not None:
            self.left.discard(pointer)
            return not self.left
        return False

    def skip_container(self, text: str, pos: int, pointer: str) -> int | None:
        """Where the array or object at ``pos`` (named ``pointer``) ends when it can hold no target, read by the C
        decoder; ``None`` when it must be read (it may hold a target, or the decoder refuses a text that was never
        parsed, so the scanner reads on token by token and names the mistake)."""
        if self.through is None or pointer in self.through:
            return None
        try:
            return _RAW_DECODER.raw_decode(text, pos)[1]
        except (ValueError, RecursionError):
            return None

    def skip_elements(self, text: str, pos: int, parent: str, index: int) -> tuple[int, int]:
        """Step over the elements of the array ``parent`` from ``pos`` (element ``index``) on that are plain
        scalars followed by a comma and can hold no target, one C regex match each (a long flat array costs no
        token-by-token reading). :returns: where the next element to read starts, and its index."""
        targets, through, match = self.targets, self.through, _SCALAR_ELEMENT.match
        if targets is None or through is None:
            return pos, index
        pointer = f"{parent}/{index}"
        while pointer not in targets and pointer not in through:
            element = match(text, pos)
            if element is None:  # a container, or the last element: read on as usual
                break
            pos = element.end()
            index += 1
            pointer = f"{parent}/{index}"
        return pos, index
