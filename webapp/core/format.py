"""JSON Format (step 1), pure: pretty-print, minify and sort keys keeping every token as written; a lazy tree model
with the RFC 6901 pointer of each node; Open Responses item inspection (type badge, the ``arguments`` string, the
gate's verdict).

Formatting works on the *text*, not on parsed values, so numbers stay exactly as written (``1.10``, ``1e2``,
``-0``, 30-digit integers) and strings keep their escapes. The text must be valid JSON (what
:func:`webapp.core.json.text.parse` accepted): only whitespace outside strings changes. The work is done by C-speed
operations on the UTF-8 bytes (split at the quotes, ``translate``, ``replace``, ``join``), not by a Python loop per
token: the Format endpoint reads, checks and formats a 45 MB document in about the time ``python -m json.tool``
takes (``benchmarks/bench_format.py`` measures both in one run).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from typing import Any

from webapp.core import gate
from webapp.core.json import pointer as jpointer
from webapp.core.json.text import (
    displayable,
    BIG_TEXT,
    STRING_MARK,
    Document,
    JSONLine,
    JSONTextError,
    JSONWarning,
    join_strings,
    parse,
    paused_gc,
    split_strings,
)

__all__ = [
    "ACTIONS", "INDENTS", "ArgumentsCheck", "Inspection", "ItemReport", "Num", "TreeNode", "TypeBadge",
    "arguments_check", "build_tree", "count_nodes", "displayable", "format_lines", "format_text", "inspect",
    "minify", "pretty", "sort_keys", "tree_value", "type_badge",
]

#: Form value → indent string.
INDENTS = {"2": "  ", "4": "    ", "tab": "\t"}
ACTIONS = ("pretty", "minify", "sort")

# ---------------------------------------------------------------------------------------------------------------
# Formatting on the text

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
_LITERAL = {True: "true", False: "false", None: "null"}
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


# ---------------------------------------------------------------------------------------------------------------
# Display helpers

def _a(kind: str) -> str:
    """The kind with its article, for sentences: ``an array``, ``a number``, ``null``."""
    return kind if kind == "null" else ("an " if kind[0] in "aeiou" else "a ") + kind


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float, Num)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# ---------------------------------------------------------------------------------------------------------------
# Tree model

class Num:
    """A number as written in the text (the tree shows ``1.10``, not ``1.1``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Num({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Num) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def tree_value(text: str) -> Any:
    """Parse a valid JSON text for the tree: plain values, except numbers, which are :class:`Num`."""
    return json.loads(text, parse_int=Num, parse_float=Num)


def count_nodes(value: Any, limit: int) -> int:
    """Number of values in ``value`` (containers and scalars), counting stops above ``limit`` (so it is cheap)."""
    count = 0
    todo = [value]
    while todo and count <= limit:
        item = todo.pop()
        count += 1
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return count


@dataclass
class TreeNode:
    """One node of the tree view.

    :ivar pointer: RFC 6901 pointer of the node (``""`` for the root).
    :ivar label: member name or array index as shown; ``None`` for the root.
    :ivar kind: ``object``, ``array``, ``string``, ``number``, ``boolean`` or ``null``.
    :ivar text: for scalars, the value as shown (numbers as written, strings decoded and cut at
        :data:`STRING_PREVIEW` characters); ``""`` for containers.
    :ivar count: number of children (containers), or characters (strings).
    :ivar children: the loaded children, or ``None`` when they are fetched on expand.
    :ivar start: index of the first loaded child; ``next_start``: of the first child not loaded (``None``: all).
    :ivar hint: for strings holding JSON (``arguments``), what is inside: ``"JSON object"``, ``"JSON array"``.
    """

    pointer: str
    label: str | None
    kind: str
    text: str = ""
    count: int = 0
    children: list[TreeNode] | None = None
    start: int = 0
    next_start: int | None = None
    hint: str = ""
    in_array: bool = False

    @property
    def container(self) -> bool:
        return self.kind in ("object", "array")

    @property
    def depth(self) -> int:
        return self.pointer.count("/")

    @property
    def truncated(self) -> bool:
        """A string longer than the preview."""
        return self.kind == "string" and self.count > STRING_PREVIEW


#: Children loaded per container per request ("show more" loads the next page).
TREE_PAGE = 100
#: Nodes built per request (the first render, or one expansion).
TREE_BUDGET = 400
#: Levels below the root whose children come with the first render.
TREE_OPEN_DEPTH = 2
#: Characters of a string shown in the tree (the text view has all of them).
STRING_PREVIEW = 300


def build_tree(value: Any, pointer: str = "", *, start: int = 0, page: int = TREE_PAGE,
               budget: int = TREE_BUDGET, open_depth: int = TREE_OPEN_DEPTH) -> TreeNode:
    """The tree node at ``pointer`` in ``value`` (from :func:`tree_value`) with its children ``start`` …
    ``start + page``; children of those are loaded down to ``open_depth`` levels while ``budget`` nodes last,
    deeper containers come with ``children=None`` (the page fetches them on expand).

    :raises KeyError: when the pointer names nothing; :raises ValueError: on a malformed pointer.
    """
    node_value = jpointer.resolve(value, pointer)
    tokens = jpointer.split(pointer)
    label = displayable(tokens[-1]) if tokens else None
    in_array = bool(tokens) and isinstance(jpointer.resolve(value, jpointer.join(tokens[:-1])), list)
    left = [budget]
    return _node(node_value, pointer, label, 0, open_depth, start, page, left, in_array)


def _node(value: Any, pointer: str, label: str | None, depth: int, open_depth: int, start: int, page: int,
          left: list[int], in_array: bool = False) -> TreeNode:
    kind = _kind(value)
    left[0] -= 1
    if kind == "string":
        return TreeNode(pointer, label, kind, displayable(value[:STRING_PREVIEW]), len(value),
                        hint=_json_inside(value), in_array=in_array)
    if kind == "number":
        return TreeNode(pointer, label, kind, value.text if isinstance(value, Num) else repr(value),
                        in_array=in_array)
    if kind in ("boolean", "null"):
        return TreeNode(pointer, label, kind, _LITERAL[value], in_array=in_array)
    node = TreeNode(pointer, label, kind, count=len(value), start=start, in_array=in_array)
    if depth > open_depth or left[0] <= 0:
        return node  # children fetched on expand
    pairs: Iterator[tuple[str, Any]] = (
        iter(value.items()) if isinstance(value, dict) else ((str(i), v) for i, v in enumerate(value)))
    children: list[TreeNode] = []
    for index, (name, child) in enumerate(pairs):
        if index < start:
            continue
        if index >= start + page or (left[0] <= 0 and index > start):
            node.next_start = index
            break
        children.append(_node(child, jpointer.child(pointer, name), displayable(name), depth + 1, open_depth,
                              0, page, left, kind == "array"))
    node.children = children
    return node


def _json_inside(text: str) -> str:
    stripped = text.strip()
    if len(stripped) < 2 or stripped[0] not in "{[" or len(stripped) > 1_000_000:
        return ""
    try:
        inner = json.loads(stripped)
    except (ValueError, RecursionError):
        return "looks like JSON, but does not parse"
    return "JSON object" if isinstance(inner, dict) else "JSON array" if isinstance(inner, list) else ""


# ---------------------------------------------------------------------------------------------------------------
# Open Responses items

#: Portable core item types (Open Responses spec, Items: ``ItemParam``/``ItemField``).
CORE_TYPES = ("message", "function_call", "function_call_output")
#: Other item types the spec defines; their payloads may be provider-bound (``encrypted_content``).
SPEC_TYPES = ("reasoning", "item_reference", "compaction")


@dataclass(frozen=True)
class TypeBadge:
    """What an item's ``type`` says about portability.

    :ivar kind: ``core`` (portable core item), ``spec`` (other spec item), ``extension`` (provider-namespaced:
        ``slug:name``), ``unknown`` (not a spec type and not namespaced), ``missing`` (no ``type``) or
        ``invalid`` (``type`` is not a string).
    :ivar label: text of the badge; ``tone``: ``ok``, ``info``, ``warn`` or ``bad`` (CSS class).
    :ivar note: one sentence for people.
    """

    kind: str
    label: str
    tone: str
    note: str


def type_badge(item: Any) -> TypeBadge:
    """Classify an item by its ``type`` (Open Responses spec, Items and "Provider extensions")."""
    if not isinstance(item, dict):
        return TypeBadge("invalid", f"not an item ({_kind(item)})", "bad", "An item is a JSON object with a type.")
    item_type = item.get("type")
    if item_type is None:
        if "tool_calls" in item:
            return TypeBadge("missing", "Chat Completions message", "bad",
                             "A Chat Completions message with tool_calls: not an Open Responses item (those use "
                             "function_call items with call_id and an arguments string).")
        if "role" in item and "content" in item:
            return TypeBadge("missing", "no type (a message?)", "warn",
                             "role and content but no type: Open Responses message items carry "
                             "\"type\": \"message\"; the gate reads a missing type as not portable.")
        return TypeBadge("missing", "no type", "bad", "No type member: not an Open Responses item.")
    if not isinstance(item_type, str):
        return TypeBadge("invalid", f"type is {_kind(item_type)}", "bad", "type must be a string.")
    shown = displayable(item_type)
    if ":" in item_type:
        slug = displayable(item_type.split(":", 1)[0])
        return TypeBadge("extension", shown, "bad",
                         f"Provider extension (namespaced by \"{slug}\"): specific to that provider, not portable "
                         "to another Open Responses server; the gate answers namespaced.")
    if item_type in CORE_TYPES:
        return TypeBadge("core", shown, "ok", "Portable core item (Open Responses spec, Items).")
    if item_type in SPEC_TYPES:
        extra = " Its encrypted_content is provider-sealed: drop it when the provider changes." \
            if item_type in ("reasoning", "compaction") else ""
        return TypeBadge("spec", shown, "info", f"Core spec item, nothing to execute.{extra}")
    return TypeBadge("unknown", shown, "warn",
                     "Not an Open Responses item type, and not namespaced: provider types must be prefixed with "
                     "the provider's slug (acme:search_result).")


@dataclass(frozen=True)
class ArgumentsCheck:
    """What a ``function_call``'s ``arguments`` holds (Open Responses: a JSON *string* with the tool's arguments).

    :ivar state: ``json_object`` (good), ``json_other`` (a JSON string holding an array/number/…),
        ``double_encoded`` (a JSON string whose content is again a JSON string), ``empty``, ``truncated``,
        ``invalid`` (not I-JSON), ``object`` (an object, not a string), ``not_string`` (number, array, …) or
        ``missing``.
    :ivar reason: the gate reason this state alone implies (``arguments_type``, ``arguments_parse``) or ``None``.
    :ivar tone: CSS tone of the badge; ``label``: its text; ``message``: one sentence for people.
    :ivar text: the arguments as pretty JSON (numbers as written) when they parse, for display and for carrying to
        the Schema page; ``None`` otherwise.
    :ivar error: why the string is not I-JSON (line:column inside the string), for ``invalid``/``truncated``/
        ``empty``.
    :ivar layers: how many times the string had to be decoded (2 for double-encoded).
    """

    state: str
    reason: str | None
    tone: str
    label: str
    message: str
    text: str | None = None
    error: JSONTextError | None = None
    warnings: tuple[JSONWarning, ...] = ()
    layers: int = 1


def arguments_check(item: dict, raw: str | None = None, indent: str = "  ") -> ArgumentsCheck:
    """Inspect ``item["arguments"]`` the way the gate reads it (I-JSON, RFC 7493), with more detail.

    :param raw: the arguments' text as written in the document, used when ``arguments`` is not a string.
    """
    if "arguments" not in item:
        return ArgumentsCheck("missing", "arguments_type", "bad", "arguments missing",
                              "This function_call has no arguments: Open Responses requires the JSON string.")
    arguments = item["arguments"]
    if isinstance(arguments, dict):
        shown = pretty(raw, indent) if raw else json.dumps(arguments, indent=indent, ensure_ascii=False)
        return ArgumentsCheck("object", "arguments_type", "bad", "object, not a string",
                              "arguments is an object: Open Responses stores it as a JSON-encoded string, so another "
                              "provider will refuse this item (gate: arguments_type). Encode it with "
                              "json.dumps before storing.", displayable(shown))
    if not isinstance(arguments, str):
        return ArgumentsCheck("not_string", "arguments_type", "bad", f"{_kind(arguments)}, not a string",
                              f"arguments is {_a(_kind(arguments))}: it must be a JSON string holding an object "
                              "(gate: arguments_type).")
    if not arguments.strip():
        error = None
        try:
            parse(arguments)
        except JSONTextError as err:
            error = err
        return ArgumentsCheck("empty", "arguments_parse", "bad", "empty string",
                              "arguments is an empty string: not valid JSON. A call without arguments is \"{}\" "
                              "(gate: arguments_parse).", error=error)
    try:
        document = parse(arguments, ijson=True)
    except JSONTextError as err:
        if err.code == "truncated":
            return ArgumentsCheck("truncated", "arguments_parse", "bad", "truncated JSON",
                                  f"arguments is cut off (line {err.line}, column {err.column} of the string): "
                                  "never execute it; an incomplete call's arguments may be partial "
                                  "(gate: arguments_parse).", error=err)
        return ArgumentsCheck("invalid", "arguments_parse", "bad", "not valid JSON",
                              f"arguments is a string but not valid I-JSON: {err.message} (line {err.line}, "
                              f"column {err.column} of the string; gate: arguments_parse).", error=err)
    value, layers, text = document.value, 1, arguments
    while isinstance(value, str) and layers < 5:
        try:
            inner = parse(value, ijson=True)
        except JSONTextError:
            break
        value, layers, text = inner.value, layers + 1, value
    warnings = tuple(document.warnings)
    shown = displayable(pretty(text, indent))
    if layers > 1:
        return ArgumentsCheck("double_encoded", None, "bad", "double-encoded",
                              f"arguments is a JSON string whose content is itself a JSON string (encoded {layers} "
                              "times): decoded once, it is not an object, so a tool schema with type object refuses "
                              "it (gate: arguments_schema). Encode the arguments once.", shown,
                              warnings=warnings, layers=layers)
    if isinstance(value, dict):
        return ArgumentsCheck("json_object", None, "ok", "JSON string → object",
                              "arguments is a JSON string holding an object, as Open Responses stores it. Next: "
                              "check it against the tool's schema (step 2).", shown, warnings=warnings)
    return ArgumentsCheck("json_other", None, "warn", f"JSON string → {_kind(value)}",
                          f"arguments parses, but to {_a(_kind(value))}, not an object: tool parameters are objects, "
                          "so the schema check will refuse it (gate: arguments_schema).", shown, warnings=warnings)


@dataclass(frozen=True)
class ItemReport:
    """One item of the document as the page shows it.

    :ivar index: position in the journal (``None`` for a lone item); ``pointer``: RFC 6901 pointer of the item
        in the document (``""`` for a lone item, ``/output/2`` in a response); ``line``: its line for JSON Lines.
    :ivar badge: the :class:`TypeBadge`; ``fields``: ``id``, ``call_id``, ``name``, ``status`` when present
        (display strings).
    :ivar arguments: the :class:`ArgumentsCheck` of a ``function_call`` (``None`` for other items).
    :ivar verdict: the gate's :class:`webapp.core.gate.Verdict` with no schema (``check_item(item, None)``).
    :ivar text: the item's JSON as written, pretty-printed, for carrying to the Diff page.
    """

    index: int | None
    pointer: str
    badge: TypeBadge
    fields: dict[str, str]
    arguments: ArgumentsCheck | None
    verdict: gate.Verdict
    text: str
    line: int | None = None

    @property
    def gate_label(self) -> str:
        """The badge: the gate's reason, or :data:`SCHEMA_NEXT` when only the tool's schema is left to check."""
        return gate_label(self.verdict)

    @property
    def gate_summary(self) -> tuple[str, str]:
        """(tone, sentence) for the gate's verdict without a schema."""
        if self.gate_label == SCHEMA_NEXT:
            return "info", "passes every check that needs no schema; the tool's schema decides (step 2)."
        return ("info" if self.verdict.reason == "not_function_call" else "bad"), displayable(self.verdict.message)


#: Badge of a function_call that passes every gate check before the schema one (with no schema, the gate's reason
#: is ``arguments_schema``, which would read as a failure on a page that has not seen the schema yet).
SCHEMA_NEXT = "schema next"


def gate_verdict(item: Any) -> gate.Verdict:
    """The gate's verdict for ``item`` before any schema is known (the one place the page calls the gate)."""
    return gate.check_item(item, None)


def gate_label(verdict: gate.Verdict) -> str:
    """:data:`SCHEMA_NEXT` for a call that only its tool's schema can still refuse, else the gate's reason."""
    if verdict.reason == "arguments_schema" and verdict.schema_problem is None and not verdict.errors:
        return SCHEMA_NEXT
    return verdict.reason


@dataclass
class Inspection:
    """The Open Responses view of a document.

    :ivar shape: ``item``, ``array``, ``jsonl``, ``response`` (a ``ResponseResource``: its ``output``) or
        ``request`` (a ``CreateResponseBody``: its ``input``).
    :ivar items: reports of the first :data:`MAX_ITEMS` items; ``total``: the number of items.
    :ivar kinds / reasons / states: counts over *all* items of badge kinds, gate reasons and arguments states.
    """

    shape: str
    items: list[ItemReport]
    total: int
    kinds: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    states: dict[str, int] = field(default_factory=dict)


#: Item reports rendered per document (the counts cover every item).
MAX_ITEMS = 50


def inspect(source: Document | Sequence[JSONLine], *, indent: str = "  ", limit: int = MAX_ITEMS) -> Inspection | None:
    """Find Open Responses items in a document (or JSON Lines) and inspect them.

    :returns: ``None`` when the document is not item-like (e.g. a tool schema or any other JSON).
    """
    if isinstance(source, Document):
        located = _locate_items(source.value)
        if located is None:
            return None
        shape, base, items = located
        sources: list[tuple[Document, str, int | None]] = [
            (source, jpointer.child(base, i) if shape != "item" else "", None) for i in range(len(items))]
    else:
        items = [record.document.value for record in source]
        if not items or not all(isinstance(item, dict) for item in items) or not any(_item_like(i) for i in items):
            return None
        shape = "jsonl"
        sources = [(record.document, "", record.line) for record in source]
    inspection = Inspection(shape, [], len(items))
    for index, (item, (document, pointer, line)) in enumerate(zip(items, sources, strict=True)):
        badge = type_badge(item)
        verdict = gate_verdict(item)
        check = None
        if isinstance(item, dict) and item.get("type") == "function_call":
            need_raw = index < limit and isinstance(item.get("arguments"), dict)
            raw = document.raw(jpointer.child(pointer, "arguments")) if need_raw else None
            check = arguments_check(item, raw, indent)
            inspection.states[check.state] = inspection.states.get(check.state, 0) + 1
        inspection.kinds[badge.kind] = inspection.kinds.get(badge.kind, 0) + 1
        label = gate_label(verdict)
        inspection.reasons[label] = inspection.reasons.get(label, 0) + 1
        if index < limit:
            raw_item = document.raw(pointer) or json.dumps(item, ensure_ascii=False)
            fields = {name: displayable(str(item[name])) for name in ("id", "call_id", "name", "status")
                      if isinstance(item, dict) and name in item}
            inspection.items.append(ItemReport(None if shape == "item" else index,
                                               pointer if shape != "jsonl" else "", badge, fields, check, verdict,
                                               displayable(pretty(raw_item, indent)), line))
    return inspection


def _item_like(value: Any) -> bool:
    return isinstance(value, dict) and ("type" in value or ("role" in value and "content" in value))


def _locate_items(value: Any) -> tuple[str, str, list[Any]] | None:
    """(shape, pointer of the item list, items) for the shapes a journal comes in, else ``None``."""
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value) and any(_item_like(v) for v in value):
            return "array", "", value
        return None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("output"), list) and (value.get("object") == "response" or "input" not in value):
        return "response", "/output", value["output"]
    if isinstance(value.get("input"), list) and value["input"] and all(isinstance(v, dict) for v in value["input"]):
        return "request", "/input", value["input"]
    if _item_like(value):
        return "item", "", [value]
    return None


# ---------------------------------------------------------------------------------------------------------------
# The whole step: read, format, inspect

#: Documents with more values than this get the text view only (no tree): the tree re-reads the document on every
#: expansion, which stays quick below this size.
TREE_NODE_LIMIT = 20_000


@dataclass
class Outcome:
    """Everything the Format page shows for one submission.

    :ivar text: the input as text (an upload decoded as UTF-8, BOM dropped): the form shows it again.
    :ivar ok: the text was read and formatted.
    :ivar output: the whole formatted text; ``None`` on an error, or when only a part was asked for (``preview``)
        and the whole was not built.
    :ivar shown: the part of the formatted text the page shows; ``cut``: it is not all of it; ``output_size``: UTF-8
        bytes of the whole formatted text.
    :ivar data: the whole formatted text as UTF-8, instead of ``output``, when asked for (a download).
    :ivar error: the parse error (line:column, caret excerpt); ``as_lines``: it is the error of a JSON Lines record.
    :ivar document: the parsed document; ``records``: the records instead, for JSON Lines.
    :ivar warnings: the warnings of the document or of every record (line numbers in the whole text).
    :ivar inspection: the Open Responses view, or ``None`` when the document holds no items.
    :ivar tree: the tree's root (``None`` with ``tree_note`` saying why); ``nodes``: values counted (capped).
    :ivar digest: a fingerprint of ``text`` (newlines normalised) that tree requests send back.
    """

    text: str
    action: str
    indent: str
    ok: bool = False
    output: str | None = None
    shown: str = ""
    cut: bool = False
    known_size: int | None = None
    data: bytes | None = None
    error: JSONTextError | None = None
    as_lines: bool = False
    document: Document | None = None
    records: list[JSONLine] | None = None
    warnings: list[JSONWarning] = field(default_factory=list)
    inspection: Inspection | None = None
    tree: TreeNode | None = None
    tree_note: str = ""
    nodes: int = 0

    @property
    def digest(self) -> str:
        return text_digest(self.text)

    @property
    def output_size(self) -> int:
        if self.known_size is None:
            self.known_size = len(_encode(self.output or ""))
        return self.known_size

    def set_output(self, output: str, preview: int | None) -> None:
        """Keep the whole formatted text, and the part shown (``preview`` characters at most, cut at a line end)."""
        self.ok, self.output = True, output
        self.shown, self.cut = output, False
        if preview is not None and len(output) > preview:
            end = output.rfind("\n", 0, preview)
            self.shown, self.cut = output[:end if end > 0 else preview], True

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8", "surrogatepass"))


def text_digest(text: str) -> str:
    """A short fingerprint of a document, blind to CRLF vs LF (browsers send textareas with CRLF)."""
    import hashlib

    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8", "surrogatepass")).hexdigest()[:20]


def format_document(source: str | bytes, *, action: str = "pretty", indent: str = "2", max_depth: int = 100,
                    max_bytes: int | None = None, tree_limit: int = TREE_NODE_LIMIT,
                    preview: int | None = None, as_bytes: bool = False) -> Outcome:
    """Read ``source`` (JSON, or JSON Lines when the text holds one value per line), format it with ``action``
    (one of :data:`ACTIONS`) and ``indent`` (a key of :data:`INDENTS`), inspect its items and build the tree.

    Bad input is never an exception: the :class:`Outcome` carries the error with its line:column.

    :param preview: characters of the formatted text the caller will show; a longer answer is not built whole
        (``Outcome.output`` is then ``None``; ``Outcome.shown`` has the part). ``None``: the whole text.
    :param as_bytes: the whole formatted text as UTF-8 in ``Outcome.data`` (not in ``output``), for a download.
    :raises ValueError: for an unknown ``action`` or ``indent`` (a programming error, not user input).
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    with paused_gc(len(source) > BIG_TEXT):  # millions of values are alive while the text is formatted
        return _format_document(source, action, indent, max_depth, max_bytes, tree_limit, preview, as_bytes)


def _format_document(source: str | bytes, action: str, indent: str, max_depth: int, max_bytes: int | None,
                     tree_limit: int, preview: int | None, as_bytes: bool) -> Outcome:
    spaces = INDENTS[indent]
    outcome = Outcome("", action, indent)
    try:
        document = parse(source, max_depth=max_depth, max_bytes=max_bytes)
    except JSONTextError as err:
        outcome.text = source.decode("utf-8", "replace").removeprefix("\ufeff") \
            if isinstance(source, (bytes, bytearray)) else source
        outcome.error = err
        if err.code == "extra_data" and _looks_like_lines(outcome.text, max_depth):
            _read_lines(outcome, max_depth, spaces, preview)
        return outcome
    outcome.text, outcome.document, outcome.warnings = document.text, document, list(document.warnings)
    if as_bytes:
        outcome.ok = True
        outcome.data = format_bytes(document.text, action, spaces, split=document.take_string_parts())
        return outcome  # a download: nothing else is shown
    if preview is None:
        outcome.set_output(format_text(document.text, action, spaces, split=document.take_string_parts()), None)
    else:
        outcome.ok = True
        outcome.shown, outcome.cut, outcome.known_size = formatted_part(
            document.text, action, spaces, preview, split=document.take_string_parts())
        outcome.output = None if outcome.cut else outcome.shown
    outcome.inspection = inspect(document, indent=spaces)
    outcome.nodes = count_nodes(document.value, tree_limit)
    if outcome.nodes > tree_limit:
        outcome.tree_note = (f"Tree view is off for documents of more than {tree_limit:,} values; the text view "
                             "shows everything.")
    else:
        outcome.tree = build_tree(tree_value(document.text))
    return outcome


def _looks_like_lines(text: str, max_depth: int) -> bool:
    """JSON Lines, probably: at least two non-blank lines, and the first one is a JSON value on its own."""
    lines = [line for line in text.split("\n") if line.strip(" \t\r")]
    if len(lines) < 2:
        return False
    try:
        parse(lines[0], max_depth=max_depth)
    except JSONTextError:
        return False
    return True


def _read_lines(outcome: Outcome, max_depth: int, spaces: str, preview: int | None) -> None:
    from webapp.core.json.text import parse_lines

    try:
        records = parse_lines(outcome.text, max_depth=max_depth)
    except JSONTextError as err:
        outcome.error, outcome.as_lines = err, True
        return
    outcome.error = None
    outcome.records = records
    outcome.warnings = [w for record in records for w in record.document.warnings]
    outcome.set_output(format_lines(records, outcome.action, spaces), preview)
    outcome.inspection = inspect(records, indent=spaces)
    outcome.tree_note = ("JSON Lines: the tree view shows one document; paste a single record (or the records as "
                         "a JSON array) to browse it as a tree.")


def subtree(text: str, pointer: str, *, start: int = 0, max_depth: int = 100) -> TreeNode:
    """The tree node at ``pointer`` of a document, children from ``start`` (the page's lazy expansion).

    :raises JSONTextError: when the text is not valid JSON; :raises KeyError: when the pointer names nothing;
        :raises ValueError: on a malformed pointer.
    """
    document = parse(text, max_depth=max_depth)
    return build_tree(tree_value(document.text), pointer, start=start, open_depth=1)
