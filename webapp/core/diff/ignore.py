"""Ignore patterns: the members a diff never compares nor patches, named by RFC 6901 pointers with wildcards.

A token ``*`` matches any one token, ``**`` any run of tokens (``/*/id``, ``/created_at``, ``/**/created_at``).
Patterns name object members: array elements are never ignored by position.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from webapp.core.diff.result import DiffError
from webapp.core.json import pointer as jp

__all__ = ["compile_patterns", "parse_ignore_paths", "pattern_matches"]


def parse_ignore_paths(text: str | Iterable[str]) -> tuple[str, ...]:
    """Split and check ignore patterns: one per line or comma-separated; blank entries dropped.

    :param text: the form field as typed, or already split patterns.
    :return: the patterns, each an RFC 6901 pointer whose tokens may be ``*`` or ``**``.
    :raises DiffError: (param ``ignore_paths``) for a pattern not starting with ``/`` or naming the whole document.
    """
    raw = text.replace(",", "\n").splitlines() if isinstance(text, str) else list(text)
    patterns = []
    for entry in raw:
        entry = entry.strip()
        if not entry:
            continue
        if not entry.startswith("/"):
            raise DiffError(
                f"ignore pattern {entry!r} must be a JSON Pointer starting with '/', such as /*/id", "ignore_paths"
            )
        if entry.strip("/*") == "" and "**" in entry:
            raise DiffError(f"ignore pattern {entry!r} would ignore every member of the document", "ignore_paths")
        patterns.append(entry)
    return tuple(patterns)


def compile_patterns(patterns: Sequence[str]) -> list[tuple[str, ...]]:
    """:func:`parse_ignore_paths` of ``patterns``, each split into its tokens (for :func:`pattern_matches`).

    :raises DiffError: as :func:`parse_ignore_paths` does.
    """
    return [tuple(jp.split(p)) for p in parse_ignore_paths(patterns)]


def pattern_matches(pattern: tuple[str, ...], tokens: tuple[str, ...]) -> bool:
    """Does ``pattern`` (tokens, ``*`` one token, ``**`` any run) match the whole token path?"""
    if "**" not in pattern:
        return len(pattern) == len(tokens) and all(p == "*" or p == t for p, t in zip(pattern, tokens, strict=False))
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(pattern_matches(rest, tokens[k:]) for k in range(len(tokens) + 1))
    return bool(tokens) and (head == "*" or head == tokens[0]) and pattern_matches(rest, tokens[1:])
