"""A short string a regular expression matches, and the length of the shortest, read from its parse tree.

Pure. The test model builds a ``pattern``'s example without compiling it (so ``^a{10000000}$`` costs nothing) from
the parse tree of Python's ``re``: ECMA-262 patterns of tool schemas are almost always valid Python patterns, and
whatever is built is checked afterwards by ``webapp.core.schema``, which reads them as ECMA-262.
"""

from __future__ import annotations

import re
from typing import Any


def _parse_tree(pattern: str) -> Any:
    """The parse tree of Python's ``re`` for ``pattern`` (``re._parser``, the compiler's own parser, without
    compiling: cheap even for ``a{10000000}``), or ``None``."""
    try:
        from re import _parser

        return _parser.parse(pattern)
    except Exception:  # noqa: BLE001 - any parse failure just means "cannot tell"
        return None


def shortest_match(pattern: str) -> int | None:
    """The length of the shortest string ``pattern`` can match (``None`` when it cannot tell); lookarounds and
    anchors count nothing. ``^a{10000000}$`` → 10,000,000, read from the parse tree without compiling."""
    from re import _constants as c

    tree = _parse_tree(pattern)
    if tree is None:
        return None

    def least(items: Any) -> int:
        total = 0
        for op, arg in items:
            if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
                total += 1
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                total += arg[0] * least(arg[2])
            elif op is c.SUBPATTERN:
                total += least(arg[-1])
            elif op is c.ATOMIC_GROUP:
                total += least(arg)
            elif op is c.BRANCH:
                total += min(least(branch) for branch in arg[1])
        return total

    try:
        return least(tree)
    except Exception:  # noqa: BLE001 - an odd tree: cannot tell
        return None


def example_for_pattern(pattern: str, *, limit: int | None = None) -> str | None:
    """A short string matching the regular expression ``pattern``, or ``None`` when it cannot tell (or the example
    would be longer than ``limit`` characters).

    Walks the parse tree of Python's ``re`` (see :func:`_parse_tree`; ECMA patterns of tool schemas are almost
    always valid Python patterns): literals as written, a class's first member, the first branch of an
    alternation, the least repeat count (at least one for ``+``).
    """
    from re import _constants as c

    tree = _parse_tree(pattern)
    if tree is None:
        return None
    if limit is not None and (shortest_match(pattern) or 0) > limit:
        return None
    categories = {
        c.CATEGORY_DIGIT: "0",
        c.CATEGORY_NOT_DIGIT: "a",
        c.CATEGORY_SPACE: " ",
        c.CATEGORY_NOT_SPACE: "a",
        c.CATEGORY_WORD: "a",
        c.CATEGORY_NOT_WORD: "-",
    }

    def one_of(items: Any) -> str | None:
        negate = False
        for op, arg in items:
            if op is c.NEGATE:
                negate = True
            elif negate:
                continue
            elif op is c.LITERAL:
                return chr(arg)
            elif op is c.RANGE:
                return chr(arg[0])
            elif op is c.CATEGORY:
                return categories.get(arg)
        if negate:  # the first of a few printable characters the class does not exclude
            source = _class_source(items)
            return next((ch for ch in "a0A_-. " if re.fullmatch(source, ch)), None)
        return None

    def walk(items: Any) -> str | None:
        out: list[str] = []
        size = 0
        for op, arg in items:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op is c.NOT_LITERAL:
                out.append("a" if chr(arg) != "a" else "b")
            elif op is c.ANY:
                out.append("a")
            elif op is c.IN:
                ch = one_of(arg)
                if ch is None:
                    return None
                out.append(ch)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, _high, sub = arg
                piece = walk(sub)
                if piece is None or (limit is not None and len(piece) * low > limit):
                    return None
                out.append(piece * low)
            elif op is c.SUBPATTERN:
                piece = walk(arg[-1])
                if piece is None:
                    return None
                out.append(piece)
            elif op is c.BRANCH:
                piece = walk(arg[1][0])
                if piece is None:
                    return None
                out.append(piece)
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                return None
            size += len(out[-1]) if out else 0
            if limit is not None and size > limit:  # never more than the budget, even in pieces
                return None
        return "".join(out)

    try:
        return walk(tree)
    except Exception:  # noqa: BLE001 - an odd tree: no example
        return None


def _class_source(items: Any) -> str:
    """Rebuild a character class from its parse-tree items, to test candidates for a negated class."""
    from re import _constants as c

    escape = {
        c.CATEGORY_DIGIT: r"\d",
        c.CATEGORY_NOT_DIGIT: r"\D",
        c.CATEGORY_SPACE: r"\s",
        c.CATEGORY_NOT_SPACE: r"\S",
        c.CATEGORY_WORD: r"\w",
        c.CATEGORY_NOT_WORD: r"\W",
    }
    body = []
    for op, arg in items:
        if op is c.NEGATE:
            body.append("^")
        elif op is c.LITERAL:
            body.append(re.escape(chr(arg)))
        elif op is c.RANGE:
            body.append(f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}")
        elif op is c.CATEGORY:
            body.append(escape.get(arg, ""))
    return "[" + "".join(body) + "]"
