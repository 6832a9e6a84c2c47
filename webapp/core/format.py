"""JSON Format (step 1), pure: pretty-print, minify and sort keys keeping every token as written.

Formatting works on the *text*, not on parsed values, so numbers stay exactly as written (``1.10``, ``1e2``,
``-0``, 30-digit integers) and strings keep their escapes. The text must be valid JSON (what
:func:`webapp.core.json.text.parse` accepted): only whitespace outside strings changes. The work is done by C-speed
operations on the UTF-8 bytes (split at the quotes, ``translate``, ``replace``, ``join``), not by a Python loop per
token: the Format endpoint reads, checks and formats a 45 MB document in about the time ``python -m json.tool``
takes (``benchmarks/bench_format.py`` measures both in one run).

The Format page's model (what one submission shows) is :mod:`webapp.core.format_page`; its tree
:mod:`webapp.core.tree`, its item reports :mod:`webapp.core.inspection`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import accumulate, chain, repeat
from typing import Any

from webapp.core.json.text import BIG_TEXT, STRING_MARK, JSONLine, join_strings, paused_gc, split_strings

__all__ = [
    "ACTIONS", "INDENTS", "Split", "format_bytes", "format_lines", "format_text", "formatted_part", "minify",
    "pretty", "sort_keys", "utf8_size",
]

#: Form value → indent string.
INDENTS = {"2": "  ", "4": "    ", "tab": "\t"}
ACTIONS = ("pretty", "minify", "sort")

# Formatting works on :func:`webapp.core.json.text.split_strings` parts (UTF-8 bytes): even items (outside strings) are
# rewritten, string bodies are untouched. The marks below are control characters, which valid JSON never holds raw.
_STRING_MARK, _EMPTY_OBJECT, _EMPTY_ARRAY, _BRACKET = STRING_MARK, b"\x04", b"\x05", b"\x06"
_WHITESPACE = b" \t\n\r"
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_MARK_BRACKETS = bytes.maketrans(b"[]{}", _BRACKET * 4)
_RESTORE = bytes.maketrans(b"\x01\x02", b'\\"')  # the placeholders split_strings writes
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


Split = tuple[list[bytes], "bytes | None"]


def _split(text: str, split: Split | None) -> Split:
    return (split_strings(_encode(text)), None) if split is None else split


def _skeleton(parts: list[bytes], outside: bytes | None = None) -> bytes:
    """Everything outside strings, whitespace removed, one mark where each string was."""
    return (_STRING_MARK.join(parts[0::2]) if outside is None else outside).translate(None, _WHITESPACE)


def _joined(parts: list[bytes], skeleton: bytes, limit: int | None) -> tuple[bytes, int]:
    """Put the rewritten ``skeleton`` back between the string bodies: (the output, or its first ``limit`` bytes and
    a little more; the size of the whole output in bytes). With a limit, the rest is never joined."""
    parts[0::2] = skeleton.split(_STRING_MARK)
    if limit is None:
        joined = join_strings(parts)
        return joined, len(joined)
    total = sum(map(len, parts)) + len(parts) - 1
    if total > limit:
        for count, size in enumerate(accumulate(map(len, parts)), start=1):
            if size + count > limit:
                del parts[count:]
                break
    return join_strings(parts), total


def minify(text: str, *, split: Split | None = None) -> str:
    """The JSON text with no whitespace outside strings; every token as written.

    :param text: valid JSON (as :func:`webapp.core.json.text.parse` accepted). Invalid text gives garbage, not an error.
    :param split: what ``Document.take_string_parts()`` handed over, to skip splitting again; consumed.
    """
    parts, outside = _split(text, split)
    return _decode(_joined(parts, _skeleton(parts, outside), None)[0])


def pretty(text: str, indent: str = "  ", *, split: Split | None = None) -> str:
    """Pretty-print: one member or element per line, ``indent`` per level, ``": "`` after names, ``{}``/``[]``
    for empty containers (the layout of ``json.dumps(indent=...)``); every token as written.

    :param text: valid JSON (see :func:`minify`).
    :param indent: the string for one level, e.g. ``"  "``, ``"    "`` or ``"\\t"``.
    :param split: see :func:`minify`.
    """
    parts, outside = _split(text, split)
    return _decode(_pretty(parts, _encode(indent), outside)[0])


def _pretty(parts: list[bytes], indent: bytes, outside: bytes | None = None,
            limit: int | None = None) -> tuple[bytes, int]:
    """:func:`pretty` on split parts: see :func:`_joined` for ``limit`` and the answer."""
    skeleton = (_skeleton(parts, outside).replace(b"{}", _EMPTY_OBJECT).replace(b"[]", _EMPTY_ARRAY)
                .replace(b":", b": "))
    brackets = skeleton.translate(None, _NOT_BRACKETS)
    if brackets:
        # Between two brackets the depth is constant: each segment's commas get one newline + indent at once.
        segments = skeleton.translate(_MARK_BRACKETS).split(_BRACKET)
        depths = list(accumulate(map(_STEP.__getitem__, brackets)))
        newline = [b"\n" + indent * level for level in range(max(depths) + 2)]
        comma = [b"," + line for line in newline]
        shapes = {ord("{"): [b"{" + line for line in newline], ord("["): [b"[" + line for line in newline],
                  ord("}"): [line + b"}" for line in newline], ord("]"): [line + b"]" for line in newline]}
        marks = map(list.__getitem__, map(shapes.__getitem__, brackets), depths)
        tails = map(bytes.replace, segments[1:], repeat(b","), map(comma.__getitem__, depths))
        skeleton = segments[0] + b"".join(chain.from_iterable(zip(marks, tails, strict=True)))
    skeleton = skeleton.replace(_EMPTY_OBJECT, b"{}").replace(_EMPTY_ARRAY, b"[]")
    return _joined(parts, skeleton, limit)


class _Raw(str):
    """A number token as written (``parse_int``/``parse_float`` of the skeleton parse)."""

    __slots__ = ()


class _Pairs(list):  # type: ignore[type-arg]
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
    return _decode(_pretty(split_strings(output), _encode(indent))[0])


def _sorted_output(tree: Any, bodies: list[bytes]) -> bytes:
    names: dict[str, str] = {}

    def name_of(label: str) -> str:
        name = names.get(label)
        if name is None:
            body = _decode(bodies[int(label)].translate(_RESTORE))
            name = names[label] = json.decoder.scanstring(body + '"', 0, True)[0]
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
    return b"".join(out).translate(_RESTORE)


def formatted_part(text: str, action: str, indent: str, limit: int, *,
                   split: Split | None = None) -> tuple[str, bool, int]:
    """The start of :func:`format_text`'s answer for a page: (at most ``limit`` characters of it, cut at a line
    end; whether it was cut; the size of the whole answer in UTF-8 bytes). Pretty and minify never build the rest.
    """
    if action == "sort":
        whole = _encode(sort_keys(text, indent, split=split))
        data, size = whole[:limit * 4], len(whole)
    else:
        parts, outside = _split(text, split)
        if action == "pretty":
            data, size = _pretty(parts, _encode(indent), outside, limit * 4)
        else:
            data, size = _joined(parts, _skeleton(parts, outside), limit * 4)
    shown = _decode(data)
    if len(shown) <= limit and len(data) == size:
        return shown, False, size
    end = shown.rfind("\n", 0, limit)
    return shown[:end if end > 0 else limit], True, size


def format_bytes(text: str, action: str = "pretty", indent: str = "  ", *, split: Split | None = None) -> bytes:
    """:func:`format_text` as UTF-8 bytes (a download skips decoding and encoding megabytes again)."""
    if action == "sort":
        return _encode(sort_keys(text, indent, split=split))
    parts, outside = _split(text, split)
    if action == "pretty":
        return _pretty(parts, _encode(indent), outside)[0]
    if action == "minify":
        return _joined(parts, _skeleton(parts, outside), None)[0]
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
