"""A diff laid out for reading: both documents pretty-printed side by side with the lines of each change marked
(:func:`side_by_side`), and the part of two strings that differs (:func:`string_hunks`).

Pure, and about any :class:`webapp.core.diff.DiffResult`: the Diff page (:mod:`webapp.core.pages.diff`) shows them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webapp.core.diff.result import DiffResult
from webapp.core.json import pointer as jp

__all__ = ["SideLine", "side_by_side", "string_hunks"]


def string_hunks(old: str, new: str) -> tuple[str, str, str, str]:
    """Split two strings into ``(prefix, old_middle, new_middle, suffix)`` around the part that differs, so a page
    can highlight only the changed characters while showing both values in full."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return old[:start], old[start : len(old) - end], new[start : len(new) - end], old[len(old) - end :]


@dataclass(frozen=True)
class SideLine:
    """One line of a pretty-printed side: ``text`` (2-space indent), ``mark`` (``""``, ``"removed"``,
    ``"added"``, ``"changed"``, ``"moved"``, ``"reformatted"``) and ``gap`` (>0: this row stands for that many
    hidden unchanged lines)."""

    text: str
    mark: str = ""
    gap: int = 0


def _pretty_lines(
    value: Any, marks: dict[str, str], limit: int, written: Callable[[str], str | None] | None = None
) -> tuple[list[SideLine], bool]:
    """Pretty-print ``value`` as lines, marking the lines of every subtree whose pointer is in ``marks``; a
    number is printed as ``written(pointer)`` gives it when that is not None. Stops after ``limit`` lines;
    returns (lines, truncated)."""
    out: list[SideLine] = []

    def emit(text: str, mark: str) -> None:
        if len(out) >= limit:
            raise _Full
        out.append(SideLine(text, mark))

    def walk(node: Any, ptr: str, indent: str, prefix: str, comma: str, inherited: str) -> None:
        mark = marks.get(ptr, inherited)
        if isinstance(node, dict) and node:
            emit(f"{indent}{prefix}{{", mark)
            last = len(node) - 1
            for n, (key, child) in enumerate(node.items()):
                walk(
                    child,
                    jp.child(ptr, key),
                    indent + "  ",
                    json.dumps(key, ensure_ascii=False) + ": ",
                    "," if n < last else "",
                    mark,
                )
            emit(f"{indent}}}{comma}", mark)
        elif isinstance(node, list) and node:
            emit(f"{indent}{prefix}[", mark)
            last = len(node) - 1
            for n, child in enumerate(node):
                walk(child, jp.child(ptr, n), indent + "  ", "", "," if n < last else "", mark)
            emit(f"{indent}]{comma}", mark)
        else:
            text = written(ptr) if written is not None and node.__class__ in (int, float) else None
            emit(f"{indent}{prefix}{text if text is not None else json.dumps(node, ensure_ascii=False)}{comma}", mark)

    try:
        walk(value, "", "", "", "", "")
    except _Full:
        return out, True
    return out, False


class _Full(Exception):
    pass


def side_by_side(
    left: Any,
    right: Any,
    result: DiffResult,
    *,
    hide_unchanged: bool = False,
    context: int = 2,
    limit: int = 4000,
    left_written: Callable[[str], str | None] | None = None,
    right_written: Callable[[str], str | None] | None = None,
) -> tuple[list[SideLine], list[SideLine], bool]:
    """Both documents pretty-printed (2 spaces), the lines of changed values marked, for a side-by-side view.

    :param left_written: pointer -> the number there as written in the left text (``1e2``), or None to print
        the parsed value; ``right_written`` the same for the right side.
    :param hide_unchanged: collapse runs of unmarked lines, keeping ``context`` lines around each marked one;
        a collapsed run is one :class:`SideLine` with ``gap`` = its length.
    :param limit: most lines printed per side (the rest is cut; the third return value says so).
    :return: ``(left_lines, right_lines, truncated)``.
    """
    left_marks: dict[str, str] = {}
    right_marks: dict[str, str] = {}
    for change in result.changes:
        if change.left is not None:
            left_marks[change.left] = change.kind if change.kind != "type_changed" else "changed"
        if change.right is not None:
            right_marks[change.right] = change.kind if change.kind != "type_changed" else "changed"
    for item in result.reformatted:
        left_marks.setdefault(item.left, "reformatted")
        right_marks.setdefault(item.right, "reformatted")
    lines_l, cut_l = _pretty_lines(left, left_marks, limit, left_written)
    lines_r, cut_r = _pretty_lines(right, right_marks, limit, right_written)
    if hide_unchanged:
        lines_l, lines_r = _collapse(lines_l, context), _collapse(lines_r, context)
    return lines_l, lines_r, cut_l or cut_r


def _collapse(lines: list[SideLine], context: int) -> list[SideLine]:
    keep = [False] * len(lines)
    for n, line in enumerate(lines):
        if line.mark:
            for k in range(max(0, n - context), min(len(lines), n + context + 1)):
                keep[k] = True
    out: list[SideLine] = []
    hidden = 0
    for line, kept in zip(lines, keep, strict=False):
        if kept:
            if hidden:
                out.append(SideLine("", "", hidden))
                hidden = 0
            out.append(line)
        else:
            hidden += 1
    if hidden:
        out.append(SideLine("", "", hidden))
    return out
