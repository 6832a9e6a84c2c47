"""What a diff is asked and what it answers: :class:`DiffOptions`, :class:`Change`, :class:`DiffResult`.

A change names its place in both documents (RFC 6901 pointers: they differ once array items before it were added,
removed or moved) and its kind (:data:`KINDS`); :data:`ABSENT` stands for the side that has no value. The result
also carries the JSON strings that differ only in formatting (:class:`Reformatted`), the replay blockers
(:mod:`webapp.core.diff.blockers`) and the RFC 6902 patch from left to right.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from webapp.core.diff.blockers import Blocker
from webapp.core.json import json_type  # JSON Schema's type names: integer, number apart

__all__ = [
    "ABSENT",
    "JSON_STRING_KEYS",
    "KINDS",
    "Change",
    "DiffError",
    "DiffOptions",
    "DiffResult",
    "Reformatted",
]

KINDS = ("added", "removed", "changed", "type_changed", "moved")
"""Kinds of :class:`Change`, in the order the summary lists them."""

# Object members whose string value is JSON text compared by content (Open Responses spec: ``arguments`` is a
# JSON string; Chat Completions' ``function.arguments`` too).
JSON_STRING_KEYS = ("arguments",)


class _Absent:
    """Marker for "no value on this side" (an added or removed member); distinct from JSON ``null``."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()


class DiffError(ValueError):
    """An unusable diff option (a malformed ignore pattern), or documents nesting beyond what can be compared.

    :ivar param: the option at fault (``"ignore_paths"``), or ``"depth"``.
    """

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass(frozen=True)
class DiffOptions:
    """What the diff treats as equal.

    :ivar ignore_order: match array items regardless of position (as multisets); no ``moved`` changes.
    :ivar match_key: match array items (objects) by this member name, or by a JSON Pointer inside the item
        (``/function/name``), instead of the default identity (``call_id``, else ``id``).
    :ivar ignore_paths: RFC 6901 pointer patterns of object members never compared nor patched; a token ``*``
        matches any one token, ``**`` any run of tokens (``/*/id``, ``/created_at``, ``/**/created_at``).
        Patterns name object members: array elements are never ignored by position.
    :ivar json_string_keys: members whose string values are JSON text compared by parsed content.
    """

    ignore_order: bool = False
    match_key: str | None = None
    ignore_paths: tuple[str, ...] = ()
    json_string_keys: tuple[str, ...] = JSON_STRING_KEYS


@dataclass(frozen=True)
class Change:
    """One difference.

    :ivar kind: one of :data:`KINDS`. ``type_changed`` is a change of JSON type (RFC 8259: null, boolean, number,
        string, array, object); ``2`` and ``2.0`` are the same number (:attr:`DiffResult.same_numbers`), ``2`` and
        ``true`` are of different types.
    :ivar left: RFC 6901 pointer of the value in the left document (``None`` for ``added``).
    :ivar right: pointer in the right document (``None`` for ``removed``); differs from ``left`` when array items
        before it were added, removed or moved.
    :ivar old: the left value (:data:`ABSENT` for ``added``); ``new``: the right value (:data:`ABSENT` for removed).
    :ivar inner: for a JSON string (``arguments``) whose parsed contents differ: the changes inside the parsed
        values, with pointers relative to them; ``old``/``new`` stay the raw strings.
    :ivar note: a plain remark (e.g. which side's ``arguments`` is not valid JSON).
    """

    kind: str
    left: str | None
    right: str | None
    old: Any = ABSENT
    new: Any = ABSENT
    inner: tuple[Change, ...] = ()
    note: str = ""

    @property
    def pointer(self) -> str:
        """The pointer shown first: the right one, or the left one for a removal."""
        return self.right if self.right is not None else (self.left or "")

    @property
    def old_type(self) -> str | None:
        """JSON type name of ``old`` (``None`` when absent)."""
        return None if self.old is ABSENT else json_type(self.old)

    @property
    def new_type(self) -> str | None:
        """JSON type name of ``new`` (``None`` when absent)."""
        return None if self.new is ABSENT else json_type(self.new)


@dataclass(frozen=True)
class Reformatted:
    """A JSON string (``arguments``) whose text differs but whose parsed content is equal: not a change.

    :ivar left: pointer in the left document; ``right``: in the right one; ``old``/``new``: the raw strings.
    """

    left: str
    right: str
    old: str
    new: str


@dataclass
class DiffResult:
    """The outcome of :func:`diff`.

    :ivar changes: every difference, in document order.
    :ivar reformatted: JSON strings that differ only in formatting (not changes).
    :ivar blockers: replay blockers (see :data:`~webapp.core.diff.blockers.BLOCKERS`).
    :ivar patch: RFC 6902 operations that turn the left document into the right one (see module docstring).
    :ivar ignored: how many member comparisons were skipped by ``ignore_paths``.
    :ivar same_numbers: ``(left, right)`` pointers of numbers written differently with the same value (``1`` and
        ``1.0``, ``1e2`` and ``100``): not changes (JSON has one number type); the patch still writes the right's.
    :ivar notes: plain remarks on the options (a ``match_key`` that no array item has).
    """

    changes: list[Change]
    reformatted: list[Reformatted]
    blockers: list[Blocker]
    patch: list[dict[str, Any]]
    ignored: int
    options: DiffOptions = field(default_factory=DiffOptions)
    same_numbers: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """True when no change is reported (reformatted strings and ignored paths aside)."""
        return not self.changes

    @property
    def counts(self) -> dict[str, int]:
        """Number of changes per kind, every kind of :data:`KINDS` present (zero included)."""
        counted = Counter(change.kind for change in self.changes)
        return {kind: counted.get(kind, 0) for kind in KINDS}
