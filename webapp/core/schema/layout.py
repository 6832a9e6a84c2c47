"""Validation errors laid out for reading: grouped by the instance location they are about (the best match first),
each placed at its line:column in the pasted texts, with the instance's value there and what the failing keyword
allows, read from the schema (shown beside the value, never applied to it).

Pure, about any :class:`ValidationError` list of :meth:`CompiledSchema.errors
<webapp.core.schema.compiled.CompiledSchema.errors>`; places come from the parse layer's locators
(:class:`webapp.core.json.Locator`). The Schema page (:mod:`webapp.core.pages.schema`) shows them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.core.json import Locator, Position, pointer
from webapp.core.schema.errors import ValidationError

__all__ = ["MAX_VALUE_CHARS", "ErrorGroup", "ErrorRow", "lay_out", "short_json"]

#: Instance values and expected values are shown as JSON text cut to this many characters.
MAX_VALUE_CHARS = 160

_ENCODER = json.JSONEncoder(ensure_ascii=False)


@dataclass(frozen=True)
class ErrorRow:
    """One validation error as shown.

    :ivar best: it is the best match (the first of all errors).
    :ivar schema_position: where the failing keyword is in the pasted schema text.
    :ivar expected_label: ``"allowed values"``, ``"expected type"``, ``"allowed members"``, ...; ``expected``: those
        values as JSON texts (cut to :data:`MAX_VALUE_CHARS`).
    """

    error: ValidationError
    best: bool
    schema_position: Position | None
    expected_label: str | None
    expected: list[str]


@dataclass
class ErrorGroup:
    """All errors at one instance location, in best-match order.

    :ivar value: the instance value there as JSON text; ``None`` when the member is missing.
    """

    pointer: str
    position: Position | None
    value: str | None
    rows: list[ErrorRow] = field(default_factory=list)


def lay_out(
    errors: list[ValidationError], instance: Any, schema: Any, locate_instance: Locator, locate_schema: Locator
) -> list[ErrorGroup]:
    """``errors`` (in best-match order) grouped by instance pointer, the groups ordered by their best error.

    :param instance: the validated value; ``schema``: the schema document it was validated against.
    :param locate_instance: places instance pointers in the pasted text (with ``values``: inside an ``arguments``
        string); ``locate_schema``: places schema locations in the pasted schema text.
    """
    # One scan per pasted text for all the places (the parse layer skips what holds none), not one per error.
    instance_at = _instance_places(locate_instance, errors, schema)
    schema_at = locate_schema.many(error.schema_path for error in errors)
    return _group(errors, instance, schema, instance_at, schema_at)


#: Keywords whose ``false`` subschema refuses a member for its name: such an error is about the name, not the value.
_NAME_KEYWORDS = ("additionalProperties", "unevaluatedProperties")


def _instance_places(locate: Locator, errors: list[ValidationError], schema: Any) -> dict[str, Position | None]:
    """Where each error's instance pointer is in the pasted text. With a locator placing values (the Schema page's
    instance) an unexpected member is still placed at its name: the name is what is refused. A
    missing member (``required``) is placed at the object that lacks it."""
    at = locate.many(error.pointer for error in errors)
    if locate.values:
        names = [
            error.pointer
            for error in errors
            if error.keyword in _NAME_KEYWORDS and _value_or_none(schema, error.schema_path) is False
        ]
        if names:
            at.update(replace(locate, values=False).many(names))
    missing = {p: p.rsplit("/", 1)[0] for p, place in at.items() if place is None and p}
    if missing:
        holders = locate.many(missing.values())
        at.update((p, holders[holder]) for p, holder in missing.items())
    return at


def _group(
    errors: list[ValidationError],
    instance: Any,
    schema: Any,
    instance_at: dict[str, Position | None],
    schema_at: dict[str, Position | None],
) -> list[ErrorGroup]:
    """Group errors by instance pointer; groups ordered by their best error, the best match first.
    ``instance_at``/``schema_at``: where each error's pointer and schema location are in the pasted texts."""
    groups: dict[str, ErrorGroup] = {}
    for index, error in enumerate(errors):
        group = groups.get(error.pointer)
        if group is None:
            group = groups[error.pointer] = ErrorGroup(
                error.pointer, instance_at[error.pointer], _value_at(instance, error.pointer)
            )
        label, expected = _expected(schema, error)
        group.rows.append(ErrorRow(error, index == 0, schema_at[error.schema_path], label, expected))
    return list(groups.values())


def _expected(schema: Any, error: ValidationError) -> tuple[str | None, list[str]]:
    """What the failing keyword allows, read from the schema (shown beside the value, never applied to it)."""
    try:
        value = pointer.resolve(schema, error.schema_path)
    except (KeyError, ValueError):  # a location through $ref is not a place in the pasted text
        return None, []
    if error.keyword == "enum" and isinstance(value, list):
        return "allowed values", [short_json(v) for v in value]
    if error.keyword == "const":
        return "required value", [short_json(value)]
    if error.keyword == "type":
        return "expected type", [short_json(v) for v in (value if isinstance(value, list) else [value])]
    if error.keyword in ("additionalProperties", "unevaluatedProperties"):
        parent = _value_or_none(schema, error.schema_path.rsplit("/", 1)[0])
        names = parent.get("properties") if isinstance(parent, dict) else None
        if isinstance(names, dict):
            return "allowed members", [short_json(n) for n in names]
    return None, []


def _value_or_none(document: Any, at: str) -> Any:
    try:
        return pointer.resolve(document, at)
    except (KeyError, ValueError):
        return None


def _value_at(instance: Any, at: str) -> str | None:
    """The instance value at ``at`` as short JSON text; None when there is no such member (``required``)."""
    try:
        return short_json(pointer.resolve(instance, at))
    except (KeyError, ValueError):
        return None


def short_json(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """``value`` as JSON text cut to ``limit`` characters (the last one ``…`` when cut).

    Encoded lazily, so a huge value (an error at the root of a 20 MB array) costs no more than its first
    characters.
    """
    parts: list[str] = []
    size = 0
    for chunk in _ENCODER.iterencode(value):  # not one-shot: the pure-Python encoder yields as it goes
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return "".join(parts)[: limit - 1] + "…"
    return "".join(parts)
