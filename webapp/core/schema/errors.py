"""What a failure looks like: the exceptions of the schema layer, one validation error as data, and the plain
messages (values shown as JSON) python-jsonschema's errors are turned into."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonschema import exceptions as js_exceptions

from webapp.core.json import json_type, quote


class SchemaError(Exception):
    """The schema itself is unusable (the name's meaning in python-jsonschema, which this layer wraps): not a
    schema, unknown ``$schema``, fails its metaschema, remote or dangling ``$ref``, a ``$ref`` cycle, a bad or
    catastrophic ``pattern``, too deep. An instance that fails a usable schema is a :class:`ValidationError`.

    :ivar message: plain words naming the problem.
    :ivar pointer: RFC 6901 pointer into the *schema* where the problem is (``""`` = the whole schema).
    :ivar keyword: the schema keyword at fault (``"$ref"``, ``"$schema"``, ``"pattern"``, …) or ``None``.
    :ivar unexpected: ``None``, or the type name of an exception the engines should not have raised, which the
        safety net turned into this ("this schema cannot be used …").
    """

    def __init__(self, message: str, pointer: str = "", keyword: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.keyword = keyword
        self.unexpected: str | None = None

    def __str__(self) -> str:
        where = self.pointer or "(root)"
        return f"schema {where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"message", "pointer", "keyword"}``."""
        return {"message": self.message, "pointer": self.pointer, "keyword": self.keyword}


class InstanceTooDeep(ValueError):
    """A value nested deeper than :data:`webapp.core.schema.compiled.MAX_INSTANCE_DEPTH` (the engines recurse;
    the Rust one would crash)."""


class PatternTimeout(SchemaError):
    """A ``pattern`` needed more than :data:`webapp.core.schema.patterns.PATTERN_BUDGET_SECONDS` (wall clock) on
    one validation (catastrophic backtracking). The compiled schema remembers the pattern: later validations that
    reach it raise this at once
    (:attr:`webapp.core.schema.compiled.CompiledSchema.catastrophic_patterns`)."""


@dataclass(frozen=True)
class ValidationError:
    """One validation error of an instance, as data (what python-jsonschema calls a ``ValidationError``: the instance
    fails the schema; an unusable schema is :class:`SchemaError`).

    :ivar pointer: RFC 6901 pointer into the instance, at the offending member itself (``/extra``, ``/region``).
    :ivar keyword: the failing keyword (``"enum"``, ``"required"``, ``"additionalProperties"``, ``"false"``, …).
    :ivar schema_path: pointer into the schema document at that keyword, e.g. ``/properties/region/enum``
        (through ``$ref`` it names the target, e.g. ``/$defs/region/enum``).
    :ivar message: plain words; values are shown as JSON.
    """

    pointer: str
    keyword: str
    schema_path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """JSON-ready ``{"pointer", "keyword", "schema_path", "message"}``."""
        return {
            "pointer": self.pointer,
            "keyword": self.keyword,
            "schema_path": self.schema_path,
            "message": self.message,
        }


def show(value: Any, limit: int = 80) -> str:
    """A value as JSON text for a message, shortened to about ``limit`` characters."""
    return quote(value, limit)


def engine_failure(exc: Exception, where: str) -> SchemaError:
    """The safety net: an exception python-jsonschema, referencing or jsonschema_rs should not have raised, as
    the schema's problem ("this schema cannot be used …"). Nothing is logged and no traceback is shown: the
    exception's type and first words are the message. (Known failures are caught where they happen, with
    precise messages; this only keeps an unknown one from becoming a 500.) Tests that must see the engines' own
    exceptions replace this function (``tests/unit/test_schema.py``, fixture ``strict_engines``); callers therefore
    look it up on this module at call time.

    :param where: words placed after "this schema cannot be used", e.g. ``"on this value"``; ``""`` for none.
    :return: the :class:`SchemaError` to raise, with :attr:`SchemaError.unexpected` set."""
    detail = " ".join(str(exc).split())
    if len(detail) > 160:
        detail = detail[:159] + "…"
    problem = SchemaError(
        f"this schema cannot be used{' ' + where if where else ''}: the validator failed with "
        f"{exc.__class__.__name__}" + (f" ({detail})" if detail else "")
    )
    problem.unexpected = exc.__class__.__name__
    return problem


def relevance(error: js_exceptions.ValidationError) -> tuple[Any, ...]:
    """python-jsonschema's ``best_match`` preferences (deeper, not anyOf/oneOf, matching the type) without its
    tie-break on the path, so equally relevant errors keep the order of the schema and the document."""
    return (
        len(error.path),
        error.validator not in js_exceptions.WEAK_MATCHES,
        error.validator in js_exceptions.STRONG_MATCHES,
        not error._matches_type(),  # type: ignore[attr-defined]  # private: what best_match itself asks
    )


def keyword_of(error: js_exceptions.ValidationError) -> str:
    """The keyword a python-jsonschema error is about; ``"false"`` for a ``false`` subschema."""
    if error.validator is None:  # a `false` subschema
        return "false"
    return str(error.validator)


def plain_message(error: js_exceptions.ValidationError, keyword: str) -> str:
    """Plain words for one error, values shown as JSON (python-jsonschema's messages use Python ``repr``)."""
    # Set on every error a validator yields; only an error made by hand holds the Unset sentinel.
    value: Any = error.validator_value
    instance: Any = error.instance
    if (
        keyword
        in (
            "required",
            "dependentRequired",
            "dependencies",
            "additionalProperties",
            "pattern",
            "multipleOf",
            "unevaluatedProperties",
            "unevaluatedItems",
        )
        and not error.context
    ):
        return error.message
    if keyword == "false":
        return f"not allowed here: the schema is false (value {show(instance)})"
    if keyword == "type":
        expected = " or ".join(value) if isinstance(value, list) else str(value)
        got = "null" if instance is None else f"{json_type(instance)} {show(instance)}"  # not "null null"
        return f"expected {expected}, got {got}"
    if keyword == "enum":
        options = ", ".join(show(v, 40) for v in value[:12]) + (", …" if len(value) > 12 else "")
        return f"{show(instance)} is not one of: {options}"
    if keyword == "const":
        return f"{show(instance)} is not the constant {show(value)}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {
            "minimum": "less than the minimum",
            "maximum": "greater than the maximum",
            "exclusiveMinimum": "not greater than the exclusive minimum",
            "exclusiveMaximum": "not less than the exclusive maximum",
        }[keyword]
        if isinstance(value, bool):  # draft-04 boolean exclusive* flags
            return error.message
        return f"{show(instance)} is {words} {show(value)}"
    if keyword in ("minLength", "maxLength"):
        return f"{show(instance)} has {len(instance)} characters; {keyword} is {value}"
    if keyword in ("minItems", "maxItems"):
        return f"array has {len(instance)} items; {keyword} is {value}"
    if keyword in ("minProperties", "maxProperties"):
        return f"object has {len(instance)} properties; {keyword} is {value}"
    if keyword == "uniqueItems":
        return "array items are not unique"
    if keyword == "format":
        return f"{show(instance)} is not a valid {value}"
    if keyword in ("anyOf", "oneOf"):
        if keyword == "oneOf" and not error.context:
            return f"{show(instance)} is valid under more than one of the oneOf alternatives"
        best = js_exceptions.best_match(error.context) if error.context else None
        detail = f"; closest: {plain_message(best, keyword_of(best))}" if best is not None else ""
        return f"{show(instance)} matches none of the {len(value)} {keyword} alternatives{detail}"
    if keyword == "not":
        return f"{show(instance)} must not match the schema {show(value)}"
    if keyword == "contains":
        return "no array item matches the contains schema"
    return error.message
