"""Byte-level tricks on UTF-8 JSON text: the strings told apart from the structure at C speed.

Inside strings, ``\\\\`` and ``\\"`` become same-length placeholders, so splitting at '"' separates the string
bodies (odd parts) from the rest (even parts). The work is on UTF-8 bytes: ``bytes`` operations are C loops over
one byte per character, and the placeholders come back with one ``translate``. Control characters are safe
placeholders: valid JSON holds none raw. The parse layer measures the nesting of big texts this way and looks for
numbers outside strings; the formatter (:mod:`webapp.core.format`) re-lays the structure and keeps every string
as written.
"""

from __future__ import annotations

from itertools import accumulate

__all__ = ["STRING_MARK", "join_pieces", "join_strings", "nesting_depth", "outside_strings", "split_strings"]

_BACKSLASHES, _ESCAPED_QUOTE = b"\x01\x01", b"\x01\x02"
_RESTORE = bytes.maketrans(b"\x01\x02", b'\\"')
#: Where each string was, in the bytes outside strings (the even parts of :func:`split_strings` joined with it).
STRING_MARK = b"\x03"
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_CHUNK = 8192


def split_strings(data: bytes) -> list[bytes]:
    """Split a JSON text (UTF-8) at the quotes that delimit its strings, at C speed (no Python loop per token).

    Even items are the bytes between strings (structure, numbers, literals, whitespace), odd items the string
    bodies, where ``\\\\`` and ``\\"`` are replaced by same-length placeholders (control characters, which valid
    JSON never holds raw), so offsets are kept. :func:`join_strings` undoes it. Exact for valid JSON only.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", _BACKSLASHES).replace(b'\\"', _ESCAPED_QUOTE)
    return data.split(b'"')


def join_strings(parts: list[bytes]) -> bytes:
    """Inverse of :func:`split_strings` (after the even items were changed, e.g. reformatted)."""
    return join_pieces(b'"', parts).translate(_RESTORE)


def outside_strings(parts: list[bytes]) -> bytes:
    """The bytes between strings of :func:`split_strings` ``parts`` (its even items), joined with
    :data:`STRING_MARK`: the structure, numbers and literals, one mark where each string was."""
    return join_pieces(STRING_MARK, parts[0::2])


def join_pieces(separator: bytes, pieces: list[bytes]) -> bytes:
    """``separator.join(pieces)``, about twice as fast for millions of small pieces: joined a few thousand at a
    time (``join`` keeps a buffer record per piece; a chunk's records stay in the CPU cache), then the chunks."""
    if len(pieces) <= _CHUNK:
        return separator.join(pieces)
    return separator.join([separator.join(pieces[i:i + _CHUNK]) for i in range(0, len(pieces), _CHUNK)])


def nesting_depth(outside: bytes) -> int:
    """The deepest nesting of arrays and objects (``[]`` is 1, ``0`` for a scalar) in ``outside``, the bytes
    between strings (see :func:`split_strings`): the brackets are kept by one ``translate`` and counted at C
    speed. Exact when the brackets balance; an unbalanced text is measured as far as it goes."""
    brackets = outside.translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0)
