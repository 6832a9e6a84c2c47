"""JSON Format (step 1), pure: pretty-print, minify and sort keys keeping every token as written.

Formatting works on the *text*, not on parsed values, so numbers stay exactly as written (``1.10``, ``1e2``,
``-0``, 30-digit integers) and strings keep their escapes. The text must be valid JSON (what
:func:`webapp.core.json.parse` accepted): only whitespace outside strings changes. The work is done by C-speed
operations on the UTF-8 bytes (split at the quotes, ``translate``, ``replace``, ``join``, and one ``bytes %`` that
puts the strings back), not by a Python loop per token. A page shows only the start of a big answer:
:func:`formatted_part` formats the first parts of the text and counts the size of the rest
(``benchmarks/bench_format.py`` measures the page and the download against orjson and ``python -m json.tool`` in
one run).

The Format page's model (what one submission shows) is :mod:`webapp.core.pages.format`; its tree
:mod:`webapp.core.tree`, its item reports :mod:`webapp.core.inspection`.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from itertools import accumulate, chain, islice, repeat
from operator import mul
from typing import Any

from webapp.core.json import (
    BIG_TEXT,
    STRING_MARK,
    JSONLine,
    join_pieces,
    outside_strings,
    paused_gc,
    scanstring,
    split_strings,
)

__all__ = [
    "ACTIONS",
    "INDENTS",
    "Split",
    "format_bytes",
    "format_lines",
    "format_text",
    "formatted_part",
    "minify",
    "pretty",
    "sort_keys",
    "utf8_size",
]

#: Form value → indent string.
INDENTS = {"2": "  ", "4": "    ", "tab": "\t"}
ACTIONS = ("pretty", "minify", "sort")

# Formatting works on :func:`webapp.core.json.split_strings` parts (UTF-8 bytes): even items (outside strings) are
# rewritten, string bodies are untouched. The marks below are control characters, which valid JSON never holds raw.
# An empty ``{}``/``[]`` is written as two marks of its own (no bracket: it stays on one line), the same length, so
# the translate that ends the work restores them with the placeholders (no pass of their own over the output).
_STRING_MARK, _EMPTY_OBJECT, _EMPTY_ARRAY, _BRACKET = STRING_MARK, b"\x0e\x0f", b"\x10\x11", b"\x06"
_WHITESPACE = b" \t\n\r"
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_NOT_MARKS = bytes(c for c in range(256) if c not in b"[]{},")
_MARK_BRACKETS = bytes.maketrans(b"[]{}", _BRACKET * 4)
_RESTORE = bytes.maketrans(b"\x01\x02", b'\\"')  # the placeholders split_strings writes
_FINISH = bytes.maketrans(b"\x01\x02" + _EMPTY_OBJECT + _EMPTY_ARRAY, b'\\"{}[]')  # and the empty containers
_DEPTH_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # read as signed bytes: +1 and -1


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


Split = tuple[list[bytes], "bytes | None"]


def _split(text: str, split: Split | None) -> Split:
    return (split_strings(_encode(text)), None) if split is None else split


def _skeleton(parts: list[bytes], outside: bytes | None = None) -> bytes:
    """Everything outside strings, whitespace removed, one mark where each string was."""
    return (outside_strings(parts) if outside is None else outside).translate(None, _WHITESPACE)


def _joined(parts: list[bytes], skeleton: bytes) -> bytes:
    """Put the string bodies (the odd ``parts``) back into the rewritten ``skeleton``, one where each mark is.

    The skeleton becomes a ``bytes %`` template, each mark a ``"%s"``, and the bodies fill it in order: one C pass
    that makes no object per piece (splitting the skeleton at its marks and joining the pieces again makes one
    per string, and a 45 MB journal has 2.5 million). Sound because JSON has no ``%`` outside strings: a ``%``
    there is not JSON (garbage in, garbage out), and is doubled to be written as itself.
    """
    if b"%" in skeleton:
        skeleton = skeleton.replace(b"%", b"%%")
    template = skeleton.replace(_STRING_MARK, b'"%s"')
    bodies = tuple(islice(parts, 1, None, 2))  # (``%`` takes a tuple: made in one step, not from a slice)
    return (template % bodies).translate(_FINISH)  # the placeholders and empty containers restored


def minify(text: str, *, split: Split | None = None) -> str:
    """The JSON text with no whitespace outside strings; every token as written.

    :param text: valid JSON (as :func:`webapp.core.json.parse` accepted). Invalid text gives garbage, not an error.
    :param split: what ``Document.take_string_parts()`` handed over, to skip splitting again; consumed.
    """
    parts, outside = _split(text, split)
    return _decode(_joined(parts, _skeleton(parts, outside)))


def pretty(text: str, indent: str = "  ", *, split: Split | None = None) -> str:
    """Pretty-print: one member or element per line, ``indent`` per level, ``": "`` after names, ``{}``/``[]``
    for empty containers (the layout of ``json.dumps(indent=...)``); every token as written.

    :param text: valid JSON (see :func:`minify`).
    :param indent: the string for one level, e.g. ``"  "``, ``"    "`` or ``"\\t"``.
    :param split: see :func:`minify`.
    """
    parts, outside = _split(text, split)
    return _decode(_pretty(parts, _encode(indent), outside))


def _pretty(parts: list[bytes], indent: bytes, outside: bytes | None = None) -> bytes:
    """:func:`pretty` on split parts, as UTF-8."""
    layout = _Layout(_skeleton(parts, outside))
    skeleton = layout.skeleton.replace(b":", b": ")
    if layout.brackets:
        # Between two brackets the depth is constant: each segment's commas get one newline + indent at once.
        brackets, depths = layout.brackets, layout.depths
        newline = [b"\n" + indent * level for level in range(max(depths) + 2)]
        comma = [b"," + line for line in newline]
        shapes = {
            ord("{"): [b"{" + line for line in newline],
            ord("["): [b"[" + line for line in newline],
            ord("}"): [line + b"}" for line in newline],
            ord("]"): [line + b"]" for line in newline],
        }
        segments = skeleton.translate(_MARK_BRACKETS).split(_BRACKET)
        # The pieces in order: the first segment, then each bracket's mark and the segment after it. Filled by
        # slice assignment from C-level maps: zip/chain would allocate a pair per bracket (a 45 MB journal has
        # about 800,000 brackets).
        pieces: list[bytes] = [segments[0]] * (2 * len(depths) + 1)
        pieces[1::2] = map(list.__getitem__, map(shapes.__getitem__, brackets), depths)
        pieces[2::2] = map(bytes.replace, segments[1:], repeat(b","), map(comma.__getitem__, depths))
        skeleton = join_pieces(b"", pieces)
    return _joined(parts, skeleton)


class _Layout:
    """What pretty-printing a skeleton (:func:`_skeleton`) needs: the skeleton with each empty ``{}``/``[]`` as its
    marks (it stays on one line), its other brackets in order and the depth after each of them."""

    __slots__ = ("skeleton", "brackets", "depths")

    def __init__(self, skeleton: bytes) -> None:
        self.skeleton = skeleton.replace(b"{}", _EMPTY_OBJECT).replace(b"[]", _EMPTY_ARRAY)
        self.brackets = self.skeleton.translate(None, _NOT_BRACKETS)
        self.depths = list(accumulate(array("b", self.brackets.translate(_DEPTH_STEPS))))

    def pretty_size(self, indent: int) -> int:
        """Bytes :func:`_pretty` adds to the minified skeleton with an indent of ``indent`` bytes: a space after each
        colon, and a newline plus the indent of its depth after each bracket and each comma (a comma's depth is the
        one after the bracket before it), counted without building the text."""
        marks = self.skeleton.translate(None, _NOT_MARKS)  # the brackets and the commas, in order
        added = self.skeleton.count(b":") + len(marks)
        if self.depths:  # (valid JSON has no comma outside a container)
            # Between two brackets only commas are left: each run's length is its count, at the depth before it.
            runs = map(len, marks.translate(_MARK_BRACKETS).split(_BRACKET)[1:])
            added += indent * (sum(self.depths) + sum(map(mul, self.depths, runs)))
        return added


class _Raw(str):
    """A number token as written (``parse_int``/``parse_float`` of the skeleton parse)."""

    __slots__ = ()


class _Pairs(list[tuple[str, Any]]):
    """An object as its (name label, value) pairs, duplicates and order kept."""

    __slots__ = ()


class _Token(bytes):
    """Output already in its final form (punctuation, a member name with its colon)."""

    __slots__ = ()


_OPEN_OBJECT, _CLOSE_OBJECT, _OPEN_ARRAY, _CLOSE_ARRAY, _COMMA = map(_Token, (b"{", b"}", b"[", b"]", b","))
_LITERAL_BYTES = {True: b"true", False: b"false", None: b"null"}


def sort_keys(text: str, indent: str | None = "  ", *, split: Split | None = None) -> str:
    """Sort object members by name at every level (code point order, stable for duplicate names); arrays keep
    their order; every token as written.

    :param text: valid JSON (see :func:`minify`).
    :param indent: pretty-print with this indent, or ``None`` for minified output.
    :param split: see :func:`minify`.
    """
    parts, outside = _split(text, split)
    bodies = parts[1::2]
    pieces = _skeleton(parts, outside).split(_STRING_MARK)
    # The same document with string i written as "i": the C parser builds the structure, bodies stay aside.
    labels = (b'"%d"' % i for i in range(len(bodies)))
    # one piece more than labels: the last piece follows the last string
    labelled = b"".join(chain.from_iterable(zip(pieces, labels, strict=False))) + pieces[-1]
    with paused_gc(len(labelled) > BIG_TEXT):
        tree = json.loads(labelled, object_pairs_hook=_Pairs, parse_int=_Raw, parse_float=_Raw)
        output = _sorted_output(tree, bodies)
    if indent is None:
        return _decode(output)
    return _decode(_pretty(split_strings(output), _encode(indent)))


def _sorted_output(tree: Any, bodies: list[bytes]) -> bytes:
    names: dict[str, str] = {}

    def name_of(label: str) -> str:
        name = names.get(label)
        if name is None:
            body = _decode(bodies[int(label)].translate(_RESTORE))
            name = names[label] = scanstring(body + '"', 0, True)[0]
        return name

    out: list[bytes] = []
    write = out.append
    todo: list[Any] = [tree]  # values and ready-made tokens, last one next (no recursion: any depth)
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is _Token:
            write(item)
        elif kind is _Raw:
            write(item.encode("ascii"))
        elif kind is str:
            write(b'"%s"' % bodies[int(item)])
        elif kind is _Pairs:
            members = sorted(item, key=lambda pair: name_of(pair[0]))
            todo.append(_CLOSE_OBJECT)
            for position, (label, value) in enumerate(reversed(members)):
                if position:
                    todo.append(_COMMA)
                todo.append(value)
                todo.append(_Token(b'"%s":' % bodies[int(label)]))
            todo.append(_OPEN_OBJECT)
        elif kind is list:
            todo.append(_CLOSE_ARRAY)
            for position, value in enumerate(reversed(item)):
                if position:
                    todo.append(_COMMA)
                todo.append(value)
            todo.append(_OPEN_ARRAY)
        else:
            write(_LITERAL_BYTES[item])
    return join_pieces(b"", out).translate(_RESTORE)


def formatted_part(
    text: str, action: str, indent: str, limit: int, *, split: Split | None = None, size: int | None = None
) -> tuple[str, bool, int]:
    """The start of :func:`format_text`'s answer, for a page: (at most ``limit`` characters of it, cut at a line
    end; whether it was cut; the size of the whole answer in UTF-8 bytes).

    Pretty and minify format only the first parts of the text, a little more than ``limit`` characters of output
    (:func:`_leading`), and count the size of the whole answer from the skeleton (C-speed counts, nothing built).
    Sort needs the whole text.

    :param split: see :func:`minify` (not consumed: the list is not changed).
    :param size: UTF-8 bytes of ``text``, when known (else it is encoded to count them).
    """
    if action == "sort":
        whole = _encode(sort_keys(text, indent, split=split))
        data, total = whole[: limit * 4], len(whole)
    else:
        parts, outside = _split(text, split)
        if outside is None:
            outside = outside_strings(parts)
        skeleton = _skeleton(parts, outside)
        strings = len(parts) // 2
        # The input's bytes are its strings (quotes included) and what lies between them (``outside`` less one mark
        # per string); the output keeps the strings and the skeleton less its marks, and pretty adds its layout.
        string_bytes = (utf8_size(text) if size is None else size) - (len(outside) - strings)
        total = string_bytes + len(skeleton) - strings
        if action == "pretty":
            total += _Layout(skeleton).pretty_size(len(_encode(indent)))
        data = _leading(parts, action, _encode(indent), limit)
    shown = _decode(data)
    if len(shown) <= limit and len(data) == total:
        return shown, False, total
    end = shown.rfind("\n", 0, limit)
    return shown[: end if end > 0 else limit], True, total


def _leading(parts: list[bytes], action: str, indent: bytes, limit: int) -> bytes:
    """The first bytes of the pretty or minified text, more than ``limit`` characters of it (or all of it).

    The formatted first parts of a text are the first bytes of the whole formatted text when the parts taken end
    right before a string (an even number of them, plus one): nothing after a string's opening quote changes the
    layout before it. Parts are taken for ``limit`` input bytes first, then twice as many while the output is
    shorter than ``limit`` characters (the input may be mostly whitespace).
    """
    budget = limit
    while True:
        count = len(parts)
        if budget < count:  # each part is at least one byte with its quote: budget bytes are at most budget parts
            for count, end in enumerate(accumulate(map(len, islice(parts, budget))), start=1):
                if end + count > budget:
                    break
            count = min(count | 1, len(parts))  # odd: the parts taken end before a string's quote
        first = parts[:count]
        data = _pretty(first, indent) if action == "pretty" else _joined(first, _skeleton(first))
        if count == len(parts) or len(data) > 4 * limit or len(_decode(data)) > limit:
            return data
        budget *= 2


def format_bytes(text: str, action: str = "pretty", indent: str = "  ", *, split: Split | None = None) -> bytes:
    """:func:`format_text` as UTF-8 bytes (a download skips decoding and encoding megabytes again)."""
    if action == "sort":
        return _encode(sort_keys(text, indent, split=split))
    parts, outside = _split(text, split)
    if action == "pretty":
        return _pretty(parts, _encode(indent), outside)
    if action == "minify":
        return _joined(parts, _skeleton(parts, outside))
    raise ValueError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")


def format_text(text: str, action: str = "pretty", indent: str = "  ", *, split: Split | None = None) -> str:
    """Apply one of :data:`ACTIONS` to a valid JSON text (``split``: see :func:`minify`).

    :raises ValueError: for an unknown action.
    """
    if action == "pretty":
        return pretty(text, indent, split=split)
    if action == "minify":
        return minify(text, split=split)
    if action == "sort":
        return sort_keys(text, indent, split=split)
    raise ValueError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")


def format_lines(records: Sequence[JSONLine], action: str = "pretty", indent: str = "  ") -> str:
    """JSON Lines formatted record by record: ``minify`` gives JSON Lines back (one record per line); ``pretty``
    and ``sort`` print the records one after another, as ``jq`` does (that output is no longer JSON Lines).
    """
    if action == "minify":
        return "\n".join(minify(r.document.text) for r in records) + "\n"
    return "\n".join(format_text(r.document.text, action, indent) for r in records) + "\n"


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8, lone surrogates (legal in JSON escapes) counted as 3 bytes each."""
    return len(_encode(text))
