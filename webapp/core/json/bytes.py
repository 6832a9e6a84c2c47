"""Byte-level tricks on UTF-8 JSON text: the strings told apart from the structure at C speed.

Inside strings, ``\\\\`` and ``\\"`` become same-length placeholders, so splitting at '"' separates the string
bodies (odd parts) from the rest (even parts). The work is on UTF-8 bytes: ``bytes`` operations are C loops over
one byte per character, and the placeholders come back with one ``translate``. Control characters are safe
placeholders: valid JSON holds none raw. The formatter (:mod:`webapp.core.format`) re-lays the structure of the
split text and keeps every string as written, and the parse layer reuses the split to measure its nesting and look
for numbers outside strings. When nothing needs the strings themselves, :func:`skeleton` and :func:`outside_test`
answer the same questions without a Python object per string (a journal has hundreds of thousands of strings).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from itertools import accumulate

__all__ = [
    "STRING_MARK",
    "join_pieces",
    "join_strings",
    "nesting_depth",
    "neutral_escapes",
    "outside_strings",
    "outside_test",
    "skeleton",
    "split_strings",
]

_BACKSLASHES, _ESCAPED_QUOTE = b"\x01\x01", b"\x01\x02"
_RESTORE = bytes.maketrans(b"\x01\x02", b'\\"')
#: Where each string was, in the bytes outside strings (the even parts of :func:`split_strings` joined with it).
STRING_MARK = b"\x03"
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_DEPTH_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # read as signed bytes: +1 and -1
_NOT_STRUCTURE = bytes(c for c in range(256) if c not in b'"[]{}:')
_QUOTED = re.compile(rb'"[^"]*"')
_CHUNK = 8192


def neutral_escapes(data: bytes) -> bytes:
    """``data`` (a JSON text, UTF-8) with ``\\\\`` and ``\\"`` replaced by same-length placeholders (control
    characters, which valid JSON never holds raw): every ``"`` left delimits a string, and offsets are kept."""
    if b"\\" in data:
        data = data.replace(b"\\\\", _BACKSLASHES).replace(b'\\"', _ESCAPED_QUOTE)
    return data


def split_strings(data: bytes) -> list[bytes]:
    """Split a JSON text (UTF-8) at the quotes that delimit its strings, at C speed (no Python loop per token).

    Even items are the bytes between strings (structure, numbers, literals, whitespace), odd items the string
    bodies, with the placeholders of :func:`neutral_escapes`, so offsets are kept. :func:`join_strings` undoes it.
    Exact for valid JSON only.
    """
    return neutral_escapes(data).split(b'"')


def skeleton(neutral: bytes) -> bytes:
    """The brackets and colons of a JSON text outside its strings, in order (for :func:`nesting_depth`, and one
    colon per object member), from its :func:`neutral_escapes`: C-speed steps making a Python object only per
    string that holds a bracket or a colon, not per string as :func:`split_strings` does.

    Only quotes, brackets and colons are kept; two adjacent quotes then enclose nothing kept, and dropping them
    keeps every other quote's parity (opening or closing), so what is left pairs up as before and the few strings
    that hold something are cut out by one pattern. Exact for valid JSON; for other text, as far as it goes.
    """
    kept = neutral.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    return _QUOTED.sub(b"", kept) if b'"' in kept else kept


def outside_test(neutral: bytes | Callable[[], bytes]) -> Callable[[int], bool]:
    """A test of whether offsets into ``neutral`` (:func:`neutral_escapes` of a valid JSON text) lie outside its
    strings, for offsets asked in ascending order: the quotes since the previous offset are counted (C speed).

    ``neutral`` may be a function that makes it, called at the first question only: most big texts never ask one,
    and then their escapes are never made plain."""
    seen = [0, 0]  # the offset asked last, and the quotes before it
    made: list[bytes] = []

    def outside(offset: int) -> bool:
        if not made:
            made.append(neutral() if callable(neutral) else neutral)
        seen[1] += made[0].count(b'"', seen[0], offset)
        seen[0] = offset
        return not seen[1] & 1

    return outside


def join_strings(parts: list[bytes]) -> bytes:
    """Inverse of :func:`split_strings` (after the even items were changed, e.g. reformatted)."""
    return join_pieces(b'"', parts).translate(_RESTORE)


def outside_strings(parts: list[bytes]) -> bytes:
    """The bytes between strings of :func:`split_strings` ``parts`` (its even items), joined with
    :data:`STRING_MARK`: the structure, numbers and literals, one mark where each string was."""
    return join_pieces(STRING_MARK, parts[0::2])


def join_pieces(separator: bytes, pieces: list[bytes], table: bytes | None = None) -> bytes:
    """``separator.join(pieces)``, about twice as fast for millions of small pieces: joined a few thousand at a
    time (``join`` keeps a buffer record per piece; a chunk's records stay in the CPU cache), then the chunks.

    :param table: a ``bytes.translate`` table for the result (``separator`` must be one it keeps): each chunk is
        translated while it is in the cache, which saves a pass over the whole result and a copy of it.
    """
    if len(pieces) <= _CHUNK:
        joined = separator.join(pieces)
        return joined if table is None else joined.translate(table)
    starts = range(0, len(pieces), _CHUNK)
    if table is None:
        return separator.join([separator.join(pieces[i : i + _CHUNK]) for i in starts])
    return separator.join([separator.join(pieces[i : i + _CHUNK]).translate(table) for i in starts])


def nesting_depth(outside: bytes) -> int:
    """The deepest nesting of arrays and objects (``[]`` is 1, ``0`` for a scalar) in ``outside``, the bytes
    between strings (see :func:`split_strings`) or a :func:`skeleton`: the brackets are kept by one ``translate``
    and counted at C speed. Exact when the brackets balance; an unbalanced text is measured as far as it goes."""
    steps = array("b", outside.translate(_DEPTH_STEPS, _NOT_BRACKETS))
    return max(accumulate(steps), default=0)
