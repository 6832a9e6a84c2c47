"""The Format page's tree (step 1), pure: a lazy tree of a JSON document with the RFC 6901 pointer of each node.

The first render loads a few levels while a node budget lasts; deeper containers are fetched on expand
(:func:`subtree`: the page sends the document again with the pointer, nothing is stored). Numbers are shown as
written (:class:`Num`), strings cut at :data:`STRING_PREVIEW` characters, and a string holding JSON
(``arguments``) says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from webapp.core.json import DEFAULT_MAX_DEPTH, displayable, json_type, parse
from webapp.core.json import pointer as jpointer

__all__ = [
    "STRING_PREVIEW",
    "TREE_BUDGET",
    "TREE_NODE_LIMIT",
    "TREE_OPEN_DEPTH",
    "TREE_PAGE",
    "Num",
    "TreeNode",
    "build_tree",
    "count_nodes",
    "subtree",
    "tree_value",
    "value_kind",
]

#: Documents with more values than this get the text view only (no tree): the tree re-reads the document on every
#: expansion, which stays quick below this size.
TREE_NODE_LIMIT = 20_000

_LITERAL = {True: "true", False: "false", None: "null"}


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


def value_kind(value: Any) -> str:
    """The JSON kind of a parsed value as the tree shows it: :func:`webapp.core.json.show.json_type`, except that
    integers, floats and :class:`Num` are all ``number``."""
    if isinstance(value, Num):
        return "number"
    kind = json_type(value)
    return "number" if kind == "integer" else kind


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
    :ivar in_array: the node is an array element (its label is an index).
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
        """An object or an array."""
        return self.kind in ("object", "array")

    @property
    def depth(self) -> int:
        """Levels below the root (the root is 0)."""
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


def build_tree(
    value: Any,
    pointer: str = "",
    *,
    start: int = 0,
    page: int = TREE_PAGE,
    budget: int = TREE_BUDGET,
    open_depth: int = TREE_OPEN_DEPTH,
) -> TreeNode:
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


def _node(
    value: Any,
    pointer: str,
    label: str | None,
    depth: int,
    open_depth: int,
    start: int,
    page: int,
    left: list[int],
    in_array: bool = False,
) -> TreeNode:
    kind = value_kind(value)
    left[0] -= 1
    if kind == "string":
        return TreeNode(
            pointer,
            label,
            kind,
            displayable(value[:STRING_PREVIEW]),
            len(value),
            hint=_json_inside(value),
            in_array=in_array,
        )
    if kind == "number":
        return TreeNode(pointer, label, kind, value.text if isinstance(value, Num) else repr(value), in_array=in_array)
    if kind in ("boolean", "null"):
        return TreeNode(pointer, label, kind, _LITERAL[value], in_array=in_array)
    node = TreeNode(pointer, label, kind, count=len(value), start=start, in_array=in_array)
    if depth > open_depth or left[0] <= 0:
        return node  # children fetched on expand
    pairs: Iterator[tuple[str, Any]] = (
        iter(value.items()) if isinstance(value, dict) else ((str(i), v) for i, v in enumerate(value))
    )
    children: list[TreeNode] = []
    for index, (name, child) in enumerate(pairs):
        if index < start:
            continue
        if index >= start + page or (left[0] <= 0 and index > start):
            node.next_start = index
            break
        children.append(
            _node(
                child,
                jpointer.child(pointer, name),
                displayable(name),
                depth + 1,
                open_depth,
                0,
                page,
                left,
                kind == "array",
            )
        )
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


def subtree(text: str, pointer: str, *, start: int = 0, max_depth: int = DEFAULT_MAX_DEPTH) -> TreeNode:
    """The tree node at ``pointer`` of a document, children from ``start`` (the page's lazy expansion).

    :raises JSONTextError: when the text is not valid JSON; :raises KeyError: when the pointer names nothing;
        :raises ValueError: on a malformed pointer.
    """
    document = parse(text, max_depth=max_depth)
    return build_tree(tree_value(document.text), pointer, start=start, open_depth=1)
