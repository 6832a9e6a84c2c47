"""JSON Schema (draft-04 … 2020-12) on top of python-jsonschema, with the library's traps fixed in our layer.

python-jsonschema is the reference semantics and gives the detailed errors; ``jsonschema_rs`` (compiled Rust)
answers ``is_valid`` on the hot path. Where the two could differ they are made to agree: ``multipleOf`` and the
asserted formats run our own checks in both, patterns are ECMA-262 in both (``tests/test_schema.py`` runs every
case through each engine). What this layer adds (each item is a trap of jsonschema 4.26 listed in
``shared/docs/json-tools-anchors.md`` §4):

* the dialect comes from ``$schema`` (default 2020-12); an unknown ``$schema`` is a :class:`SchemaInvalid`, with a
  "did you mean" hint for near misses such as ``…/draft-07/schema/#`` — never a silent guess or a DeprecationWarning;
* the schema is checked against its metaschema before use (a bad schema is not a bad instance);
* ``$ref`` to anything outside the pasted document is refused before anything is compiled — nothing is ever
  fetched (no SSRF from a pasted schema) — and so is an unresolvable ``$ref`` or a ``$ref`` cycle that never
  reaches a concrete schema (python-jsonschema would die with ``RecursionError``);
* ``multipleOf`` is exact on decimals (``19.99`` is a multiple of ``0.01``);
* ``pattern`` follows ECMA-262 (``\\d`` is ASCII, ``$`` is the very end, ``(?<name>…)`` and ``\\p{L}`` work) and runs
  with a time budget, so a catastrophic pattern gives a clear error in bounded time;
* every error points at the offending member itself (``/extra``, ``/missing``), not at its parent, and carries a
  plain message that shows values as JSON.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid as _uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Context, Decimal, DivisionByZero, InvalidOperation
from fractions import Fraction
from ipaddress import IPv4Address, IPv6Address
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

import jsonschema_rs
import referencing
import referencing.exceptions
import referencing.jsonschema
import regex
from jsonschema import FormatChecker, ValidationError, validators
from jsonschema import exceptions as js_exceptions
from jsonschema_specifications import REGISTRY as METASCHEMAS

from . import pointer as jp
from .jsontext import json_type

__all__ = [
    "DIALECTS", "DEFAULT_DIALECT", "MAX_SCHEMA_DEPTH", "MAX_INSTANCE_DEPTH", "PATTERN_BUDGET_SECONDS",
    "SchemaInvalid", "PatternTimeout", "InstanceTooDeep", "SchemaError", "json_type", "CompiledSchema",
    "compile_schema", "ecma_pattern",
]

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Nesting limit for a schema document (JSON levels). python-jsonschema checks a schema against its metaschema
# recursively and runs out of stack near 200 levels; 100 is the app's JSON_MAX_DEPTH too.
MAX_SCHEMA_DEPTH = 100
# Nesting limit for a validated value, far above the app's JSON_MAX_DEPTH (100): a guard for direct callers, as
# the Rust engine overflows its stack (a crash, not an exception) near tens of thousands of levels.
MAX_INSTANCE_DEPTH = 1000
# Time one validation may spend in ``pattern`` matching (seconds) before the pattern is declared catastrophic.
PATTERN_BUDGET_SECONDS = 1.0
# Distinct compiled schemas kept (least recently used are dropped).
CACHE_SIZE = 512

# Base URI of a schema without $id (RFC 3986 §5.1.4 lets the application choose one); nothing is ever fetched.
_ROOT_BASE = "https://schema.invalid/root.json"


@dataclass(frozen=True)
class _Dialect:
    uri: str
    name: str
    python: Any          # python-jsonschema validator class of the dialect (extended below)
    rust: Any            # jsonschema_rs validator class
    id_keyword: str      # "id" (draft-04) or "$id"


class SchemaInvalid(Exception):
    """The schema itself is unusable: not a schema, unknown ``$schema``, fails its metaschema, remote or dangling
    ``$ref``, a ``$ref`` cycle, a bad or catastrophic ``pattern``, too deep.

    :ivar message: plain words naming the problem.
    :ivar pointer: RFC 6901 pointer into the *schema* where the problem is (``""`` = the whole schema).
    :ivar keyword: the schema keyword at fault (``"$ref"``, ``"$schema"``, ``"pattern"``, …) or ``None``.
    """

    def __init__(self, message: str, pointer: str = "", keyword: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.keyword = keyword

    def __str__(self) -> str:
        where = self.pointer or "(root)"
        return f"schema {where}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"message", "pointer", "keyword"}``."""
        return {"message": self.message, "pointer": self.pointer, "keyword": self.keyword}


class InstanceTooDeep(ValueError):
    """A value nested deeper than :data:`MAX_INSTANCE_DEPTH` (the engines recurse; the Rust one would crash)."""


class PatternTimeout(SchemaInvalid):
    """A ``pattern`` needed more than :data:`PATTERN_BUDGET_SECONDS` on one validation (catastrophic backtracking)."""


@dataclass(frozen=True)
class SchemaError:
    """One validation error of an instance, as data.

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
        return {"pointer": self.pointer, "keyword": self.keyword, "schema_path": self.schema_path,
                "message": self.message}


# --------------------------------------------------------------------------------------------------------------
# JSON rendering for messages


def _show(value: Any, limit: int = 80) -> str:
    """A value as JSON text for a message, shortened to about ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


# --------------------------------------------------------------------------------------------------------------
# ECMA-262 patterns on the `regex` module

_ECMA_SPACE = "\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_HEX = re.compile(r"[0-9A-Fa-f]+")


def ecma_pattern(pattern: str) -> str:
    """Translate an ECMA-262 (Unicode mode) regular expression to the ``regex`` module's syntax.

    JSON Schema says ``pattern`` is ECMA-262 (2020-12 core §6.4). The differences that change answers:
    ``\\d``/``\\w``/``\\b`` are ASCII-only, ``.`` does not match line terminators, ``$`` matches only at the
    very end (Python also matches before a final ``\\n``), ``\\s`` includes Unicode spaces, ``\\u{1F600}`` is a
    code point escape. ``(?<name>…)`` and ``\\p{L}`` are native to ``regex``. Inside a character class,
    ``\\D``/``\\W``/``\\S`` keep their Unicode meaning (a rare corner this translation does not cover).

    :param pattern: the pattern as written in the schema.
    :return: an equivalent pattern for ``regex.compile``.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "u" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                digits = pattern[i + 3:end] if end > 0 else ""
                if end > 0 and _HEX.fullmatch(digits) and int(digits, 16) <= 0x10FFFF:
                    out.append(f"\\U{int(digits, 16):08x}")
                    i = end + 1
                    continue
            replacement = (_ECMA_IN_CLASS if in_class else _ECMA_ESCAPES).get(nxt)
            out.append(replacement if replacement is not None else pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
        elif ch == "$":
            out.append("\\Z")
        elif ch == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


# ECMA escapes whose meaning differs from Python's, outside and inside a character class
_ECMA_ESCAPES = {
    "d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]", "b": "(?a:\\b)", "B": "(?a:\\B)",
    "s": f"[\\s{_ECMA_SPACE}]", "S": f"[^\\s{_ECMA_SPACE}]", "/": "/",
}
_ECMA_IN_CLASS = {"d": "0-9", "w": "A-Za-z0-9_", "s": f"\\s{_ECMA_SPACE}", "/": "/"}


_pattern_cache: dict[str, Any] = {}
_pattern_lock = threading.Lock()


def _compile_pattern(pattern: str) -> Any:
    """The compiled ``regex`` for an ECMA pattern (cached). :raises regex.error: on a bad pattern."""
    compiled = _pattern_cache.get(pattern)
    if compiled is None:
        compiled = regex.compile(ecma_pattern(pattern))
        with _pattern_lock:
            if len(_pattern_cache) > 4096:
                _pattern_cache.clear()
            _pattern_cache[pattern] = compiled
    return compiled


class _Budget(threading.local):
    deadline: float = 0.0


_budget = _Budget()


def _search(pattern: str, text: str, where: Callable[[], str]) -> bool:
    """``pattern`` (ECMA) found in ``text``, within the current validation's time budget.

    :raises PatternTimeout: when the budget runs out (catastrophic backtracking); ``where()`` names the place.
    """
    compiled = _compile_pattern(pattern)
    remaining = _budget.deadline - time.monotonic() if _budget.deadline else PATTERN_BUDGET_SECONDS
    try:
        return compiled.search(text, timeout=max(remaining, 0.001)) is not None
    except TimeoutError:
        raise PatternTimeout(
            f"pattern {_show(pattern)} needs more than {PATTERN_BUDGET_SECONDS:g} s on a value of "
            f"{len(text)} characters (catastrophic backtracking); rewrite it without nested or overlapping "
            f"repetition such as (a+)+", where(), "pattern") from None


# --------------------------------------------------------------------------------------------------------------
# Formats: one set of checkers shared by both engines, so they agree


_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z", re.ASCII)
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))\Z", re.ASCII)
_DURATION = re.compile(r"P(?!\Z)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?!\Z)(\d+H)?(\d+M)?(\d+S)?)?\Z", re.ASCII)
_HOSTNAME_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)\Z", re.ASCII)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+\Z")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*\Z")


def _is_date(value: str) -> bool:
    m = _DATE.match(value)
    if not m:
        return False
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return 1 <= day <= days


def _is_time(value: str) -> bool:
    m = _TIME.match(value)
    if not m:
        return False
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if m.group(6) is not None and (int(m.group(6)) > 23 or int(m.group(7)) > 59):
        return False
    return hour <= 23 and minute <= 59 and second <= 60  # 60: leap second (RFC 3339 §5.7)


def _is_date_time(value: str) -> bool:
    date, sep, time_ = value.partition("T") if "T" in value else value.partition("t")
    return bool(sep) and _is_date(date) and _is_time(time_)


def _accepts(parse: Callable[[str], Any], error: type[Exception]) -> Callable[[str], bool]:
    """A format check that is "``parse`` takes the value without raising ``error``"."""
    def check(value: str) -> bool:
        try:
            parse(value)
        except error:
            return False
        return True
    return check


_is_ipv4 = _accepts(IPv4Address, ValueError)
_parses_ipv6 = _accepts(IPv6Address, ValueError)
_parses_uuid = _accepts(_uuid.UUID, ValueError)
_is_regex = _accepts(_compile_pattern, regex.error)


def _is_ipv6(value: str) -> bool:
    return "%" not in value and _parses_ipv6(value)  # zone ids are not part of RFC 4291 text


def _is_hostname(value: str) -> bool:
    name = value[:-1] if value.endswith(".") else value
    return 0 < len(name) <= 253 and all(_HOSTNAME_LABEL.match(label) for label in name.split("."))


def _is_uuid(value: str) -> bool:
    return len(value) == 36 and value.count("-") == 4 and _parses_uuid(value)  # the hyphenated form only


def _is_json_pointer(value: str) -> bool:
    return (value == "" or value.startswith("/")) and re.search(r"~(?![01])", value) is None


# Formats asserted when format assertion is on (JSON Schema 2020-12 validation §7.3). Every other format name is
# an annotation only, in both engines.
FORMAT_CHECKERS: dict[str, Callable[[str], bool]] = {
    "date": _is_date,
    "time": _is_time,
    "date-time": _is_date_time,
    "duration": lambda v: bool(_DURATION.match(v)),
    "email": lambda v: bool(_EMAIL.match(v)),
    "hostname": _is_hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    "uri": lambda v: bool(_URI.match(v)),
    "uuid": _is_uuid,
    "regex": _is_regex,
    "json-pointer": _is_json_pointer,
}
# jsonschema_rs knows these names natively; each is overridden so the Rust engine checks exactly what we do.
_RUST_NATIVE_FORMATS = (
    "date", "date-time", "duration", "email", "hostname", "idn-email", "idn-hostname", "ipv4", "ipv6", "iri",
    "iri-reference", "json-pointer", "regex", "relative-json-pointer", "time", "uri", "uri-reference",
    "uri-template", "uuid",
)


def _strings_only(check: Callable[[str], bool]) -> Callable[[Any], bool]:
    """Formats apply to strings only (2020-12 validation §7.1): anything else passes."""
    return lambda value: not isinstance(value, str) or check(value)


def _format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    for name, func in FORMAT_CHECKERS.items():
        checker.checks(name)(_strings_only(func))
    return checker


_FORMAT_CHECKER = _format_checker()
# The metaschemas say `pattern` has format "regex": check it as ECMA (our engine), not with Python's `re`.
_METASCHEMA_FORMATS = FormatChecker(formats=())
_METASCHEMA_FORMATS.checks("regex")(_strings_only(_is_regex))


def _rust_formats() -> dict[str, Callable[[Any], bool]]:
    formats: dict[str, Callable[[Any], bool]] = {name: (lambda _v: True) for name in _RUST_NATIVE_FORMATS}
    for name, func in FORMAT_CHECKERS.items():
        formats[name] = _strings_only(func)
    return formats


# --------------------------------------------------------------------------------------------------------------
# python-jsonschema keywords, fixed


def _is_multiple(value: int | float, divisor: int | float) -> bool:
    """Exact ``multipleOf``: numbers are taken as the decimals they print as (``19.99`` / ``0.01`` = 1999)."""
    if isinstance(value, int) and isinstance(divisor, int):
        return value % divisor == 0
    try:
        exact_value = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        exact_divisor = Decimal(repr(divisor)) if isinstance(divisor, float) else Decimal(divisor)
        try:
            return _DECIMALS.remainder(exact_value, exact_divisor) == 0
        except InvalidOperation:  # the quotient needs more digits than the context keeps: exact fractions
            return (Fraction(exact_value) / Fraction(exact_divisor)).denominator == 1
    except (InvalidOperation, ValueError, OverflowError, ZeroDivisionError):
        return False  # inf / nan never come from I-JSON; a zero divisor is refused by the metaschema


# Enough digits for any quotient of two doubles' shortest decimals short of extreme exponents.
_DECIMALS = Context(prec=60, traps=[InvalidOperation, DivisionByZero])


def _kw_multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "number") and not _is_multiple(instance, divisor):
        yield ValidationError(f"{_show(instance)} is not a multiple of {_show(divisor)}")


def _kw_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance, _where(schema, "pattern")):
        yield ValidationError(f"{_show(instance)} does not match the pattern {_show(pattern)}")


def _kw_pattern_properties(validator: Any, patterns: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key, _where(schema, "patternProperties", pattern)):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_keys(instance: dict, schema: dict) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [key for key in instance
            if key not in properties
            and not any(_search(p, key, _where(schema, "patternProperties", p)) for p in patterns)]


def _kw_additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for key in _additional_keys(instance, schema):
        if extra is False:
            # one error per member, pointing at the member itself (python-jsonschema #119)
            yield ValidationError(f"unexpected property {_show(key)}: additionalProperties is false",
                                  path=[key], instance=instance[key])
        elif extra is not True:
            yield from validator.descend(instance[key], extra, path=key)


def _kw_required(validator: Any, required: list, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for name in required:
        if name not in instance:
            yield ValidationError(f"missing required property {_show(name)}", path=[name], instance=None)


def _kw_dependent_required(validator: Any, dependent: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for present, needed in dependent.items():
        if present in instance:
            for name in needed:
                if name not in instance:
                    yield ValidationError(f"missing property {_show(name)}, required when {_show(present)} is "
                                          f"present", path=[name], instance=None)


def _kw_dependencies(validator: Any, dependencies: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for present, dependency in dependencies.items():
        if present not in instance:
            continue
        if validator.is_type(dependency, "array"):
            yield from _kw_dependent_required(validator, {present: dependency}, instance, schema)
        else:
            yield from validator.descend(instance, dependency, schema_path=present)


def _lookup(validator: Any, ref: str) -> tuple[Any, Any]:
    resolved = validator._resolver.lookup(ref)  # the same lookup python-jsonschema's own `$ref` does
    return validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), resolved.contents


def _evaluated(validator: Any, instance: Any, schema: Any, local: Callable[[Any, Any, dict], set]) -> set:
    """What ``schema`` evaluates successfully in ``instance`` — member names or item indexes, as ``local`` finds
    them in one schema object — gathered through the in-place applicators that pass: ``$ref`` and its kin,
    allOf/anyOf/oneOf, if/then/else, dependentSchemas (JSON Schema 2020-12 core §11.2, §11.3)."""
    if not isinstance(schema, dict):
        return set()
    found = local(validator, instance, schema)
    for ref_keyword in _REF_KEYWORDS:
        ref = schema.get(ref_keyword)
        if isinstance(ref, str):
            sub_validator, target = _lookup(validator, ref)
            found |= _evaluated(sub_validator, instance, target, local)
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict) and isinstance(instance, dict):
        for name, sub in dependent.items():
            if name in instance:
                found |= _evaluated(validator, instance, sub, local)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(keyword, ()):
            if validator.evolve(schema=sub).is_valid(instance):
                found |= _evaluated(validator, instance, sub, local)
    if "if" in schema:
        passed = validator.evolve(schema=schema["if"]).is_valid(instance)
        for keyword in ("if", "then") if passed else ("else",):
            found |= _evaluated(validator, instance, schema.get(keyword, True), local)
    return found


def _local_keys(validator: Any, instance: dict, schema: dict) -> set[str]:
    """Member names one schema object evaluates: properties, patternProperties, additionalProperties,
    unevaluatedProperties."""
    keys: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys |= properties.keys() & instance.keys()
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys |= {k for k in instance for p in patterns if _search(p, k, _where(schema, "patternProperties", p))}
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if keyword in schema:
            sub = validator.evolve(schema=schema[keyword])
            keys |= {k for k, v in instance.items() if sub.is_valid(v)}
    return keys


def _local_indexes(validator: Any, instance: list, schema: dict) -> set[int]:
    """Item indexes one schema object evaluates: prefixItems, items (2019-09's array form with
    additionalItems too), contains, unevaluatedItems."""
    everything = set(range(len(instance)))
    items = schema.get("items")
    if isinstance(items, list):  # 2019-09 tuple form
        if "additionalItems" in schema:
            return everything
        indexes = set(range(min(len(items), len(instance))))
    elif "items" in schema:
        return everything
    else:
        indexes = set()
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        indexes |= set(range(min(len(prefix), len(instance))))
    for keyword in ("contains", "unevaluatedItems"):
        if keyword in schema:
            sub = validator.evolve(schema=schema[keyword])
            indexes |= {i for i, v in enumerate(instance) if sub.is_valid(v)}
    return indexes


def _unevaluated(json_kind: str, local: Callable[[Any, Any, dict], set],
                 unexpected: Callable[[Any], str]) -> Callable[..., Iterator[ValidationError]]:
    """The ``unevaluatedProperties`` (``json_kind`` "object") or ``unevaluatedItems`` ("array") keyword: the
    rule applies to each member / item no other keyword evaluated; with ``false`` each one is its own error,
    at its own pointer."""
    def keyword(validator: Any, rule: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if not validator.is_type(instance, json_kind):
            return
        evaluated = _evaluated(validator, instance, schema, local)
        for where, value in (instance.items() if json_kind == "object" else enumerate(instance)):
            if where in evaluated:
                continue
            if rule is False:
                yield ValidationError(unexpected(where), path=[where], instance=value)
            else:
                yield from validator.descend(value, rule, path=where)
    return keyword


_kw_unevaluated_properties = _unevaluated(
    "object", _local_keys, lambda key: f"unexpected property {_show(key)}: unevaluatedProperties is false")
_kw_unevaluated_items = _unevaluated(
    "array", _local_indexes, lambda index: f"unexpected item at index {index}: unevaluatedItems is false")


_OVERRIDES: dict[str, Callable[..., Iterator[ValidationError]]] = {
    "multipleOf": _kw_multiple_of,
    "pattern": _kw_pattern,
    "patternProperties": _kw_pattern_properties,
    "additionalProperties": _kw_additional_properties,
    "required": _kw_required,
    "dependentRequired": _kw_dependent_required,
    "dependencies": _kw_dependencies,
    "unevaluatedProperties": _kw_unevaluated_properties,
    "unevaluatedItems": _kw_unevaluated_items,
}


def _extend(cls: Any) -> Any:
    keywords = {k: v for k, v in _OVERRIDES.items() if k in cls.VALIDATORS}
    if "dependencies" in cls.VALIDATORS and "required" in keywords:
        keywords["dependencies"] = _kw_dependencies
    return validators.extend(cls, keywords)


DIALECTS: dict[str, _Dialect] = {
    d.uri: d for d in (
        _Dialect("https://json-schema.org/draft/2020-12/schema", "2020-12",
                 _extend(validators.Draft202012Validator), jsonschema_rs.Draft202012Validator, "$id"),
        _Dialect("https://json-schema.org/draft/2019-09/schema", "2019-09",
                 _extend(validators.Draft201909Validator), jsonschema_rs.Draft201909Validator, "$id"),
        _Dialect("http://json-schema.org/draft-07/schema", "draft-07",
                 _extend(validators.Draft7Validator), jsonschema_rs.Draft7Validator, "$id"),
        _Dialect("http://json-schema.org/draft-06/schema", "draft-06",
                 _extend(validators.Draft6Validator), jsonschema_rs.Draft6Validator, "$id"),
        _Dialect("http://json-schema.org/draft-04/schema", "draft-04",
                 _extend(validators.Draft4Validator), jsonschema_rs.Draft4Validator, "id"),
    )
}


def _dialect_of(schema: Any) -> _Dialect:
    """The dialect ``$schema`` names (JSON Schema 2020-12 core §8.1.1), default 2020-12.

    :raises SchemaInvalid: for a ``$schema`` that is not a string or names no dialect we know; a near miss
        (trailing slash, ``https`` for ``http``, letter case) gets a "did you mean" hint.
    """
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DIALECTS[DEFAULT_DIALECT]
    uri = schema["$schema"]
    if not isinstance(uri, str):
        raise SchemaInvalid(f"$schema must be a string URI, not {json_type(uri)}", "/$schema", "$schema")
    exact = uri[:-1] if uri.endswith("#") else uri
    if exact in DIALECTS:
        return DIALECTS[exact]
    known = ", ".join(d.name for d in DIALECTS.values())
    if uri == "http://json-schema.org/draft-03/schema#" or uri.rstrip("#/") == "http://json-schema.org/draft-03/schema":
        raise SchemaInvalid(f"draft-03 is not supported; use one of: {known}", "/$schema", "$schema")

    def loose(text: str) -> str:
        return text.strip().lower().replace("https://", "http://").rstrip("#/").rstrip()

    for candidate in DIALECTS:
        if loose(candidate) == loose(uri):
            hint = candidate + ("#" if candidate.startswith("http://") else "")
            raise SchemaInvalid(f"unknown $schema {_show(uri)}; did you mean {_show(hint)}?", "/$schema", "$schema")
    raise SchemaInvalid(f"unknown $schema {_show(uri)}: it names no dialect this validator knows ({known}); "
                        f"remove it to use 2020-12", "/$schema", "$schema")


# --------------------------------------------------------------------------------------------------------------
# Static analysis: every schema node, its base URI, $ref targets (local only), in-place cycles

# keyword -> how its value holds subschemas: "one" schema, a "list" of schemas, a "map" of name -> schema
_SUBSCHEMAS = {
    "additionalItems": "one", "additionalProperties": "one", "contains": "one", "contentSchema": "one",
    "else": "one", "if": "one", "items": "one_or_list", "not": "one", "propertyNames": "one", "then": "one",
    "unevaluatedItems": "one", "unevaluatedProperties": "one",
    "allOf": "list", "anyOf": "list", "oneOf": "list", "prefixItems": "list",
    "$defs": "map", "definitions": "map", "dependentSchemas": "map", "patternProperties": "map",
    "properties": "map", "dependencies": "map",
}
# keywords that apply their subschemas to the *same* instance: a cycle through only these never ends
_IN_PLACE = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


@dataclass
class _Node:
    pointer: str
    base: str                      # URI of the schema resource this node belongs to
    value: Any


class _Analysis:
    """One pass over a schema document: nodes, resources, anchors, references (JSON Schema 2020-12 core §8.2, §9)."""

    def __init__(self, schema: Any, dialect: _Dialect) -> None:
        self.schema = schema
        self.dialect = dialect
        self.nodes: dict[str, _Node] = {}
        self.node_by_id: dict[int, str] = {}      # id(dict subschema) -> pointer, for error schema paths
        self.resources: dict[str, str] = {}       # resource URI -> pointer of its root
        self.anchors: dict[tuple[str, str], str] = {}
        self.refs: list[tuple[str, str, str, str]] = []  # (node pointer, keyword, ref value, base URI)
        self.false_nodes: list[str] = []
        self.edges: dict[str, list[tuple[str, str]]] = {}  # pointer -> [(target pointer, via keyword)]
        self.has_multiple_of = False
        self._walk(schema, "", _ROOT_BASE, 0)

    def _walk(self, node: Any, where: str, base: str, depth: int) -> None:
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels", where)
        if where in self.nodes:
            return
        if node is False:
            self.false_nodes.append(where)
        if not isinstance(node, dict):
            self.nodes[where] = _Node(where, base, node)
            return
        new_id = node.get(self.dialect.id_keyword)
        if isinstance(new_id, str) and not ("$ref" in node and self.dialect.name in ("draft-04", "draft-06",
                                                                                    "draft-07")):
            target, fragment = urldefrag(urljoin(base, new_id))
            if target:
                base = target
                self.resources.setdefault(base, where)
            if fragment and not fragment.startswith("/"):  # draft-06/07 plain-name fragment = an anchor
                self.anchors.setdefault((base, fragment), where)
        elif where == "":
            self.resources.setdefault(base, "")
        for anchor_keyword in ("$anchor", "$dynamicAnchor"):
            anchor = node.get(anchor_keyword)
            if isinstance(anchor, str):
                self.anchors.setdefault((base, anchor), where)
        self.nodes[where] = _Node(where, base, node)
        self.node_by_id[id(node)] = where
        if "multipleOf" in node:
            self.has_multiple_of = True
        for keyword in _REF_KEYWORDS:
            ref = node.get(keyword)
            if isinstance(ref, str):
                self.refs.append((where, keyword, ref, base))
        edges = self.edges.setdefault(where, [])
        for keyword, value in node.items():
            shape = _SUBSCHEMAS.get(keyword)
            if shape is None:
                continue
            here = jp.child(where, keyword)
            children: list[tuple[str, Any]] = []
            step = 2  # JSON levels from this schema to a subschema: keyword, then member or index
            if shape == "map" and isinstance(value, dict):
                children = [(jp.child(here, k), v) for k, v in value.items()]
            elif shape in ("list", "one_or_list") and isinstance(value, list):
                children = [(jp.child(here, i), v) for i, v in enumerate(value)]
            elif shape in ("one", "one_or_list"):
                children, step = [(here, value)], 1
            for child_pointer, child in children:
                if isinstance(child, (dict, bool)):
                    self._walk(child, child_pointer, base, depth + step)
                    if keyword in _IN_PLACE:
                        edges.append((child_pointer, keyword))

    def resolve(self, ref: str, base: str, where: str, keyword: str) -> str | None:
        """Pointer of the node ``ref`` names, ``None`` for a bundled metaschema.

        :raises SchemaInvalid: remote (outside this document) or dangling reference.
        """
        place = jp.child(where, keyword)
        target, fragment = urldefrag(urljoin(base, ref))
        if target not in self.resources:
            if target in METASCHEMAS or target.rstrip("#") in METASCHEMAS:
                return None  # a bundled official metaschema: available offline
            raise SchemaInvalid(f"remote references are disabled: {keyword} {_show(ref)} points outside this "
                                f"schema and is never fetched; paste the referenced schema under $defs and "
                                f"refer to it as \"#/$defs/…\"", place, keyword)
        root = self.resources[target]
        if fragment == "" or fragment.startswith("/"):
            pointer = root + unquote(fragment)
            try:
                value = jp.resolve(self.schema, pointer)
            except (KeyError, ValueError):
                raise SchemaInvalid(f"{keyword} {_show(ref)} points at {pointer or '(root)'}, which does not "
                                    f"exist in this schema", place, keyword) from None
            if pointer not in self.nodes:
                self._walk(value, pointer, target, 0)
            return pointer
        found = self.anchors.get((target, fragment))
        if found is None:
            raise SchemaInvalid(f"{keyword} {_show(ref)}: no $anchor named {_show(fragment)} in this schema",
                                place, keyword)
        return found

    def check_references(self) -> None:
        """Resolve every reference; refuse remote and dangling ones and in-place cycles (a ``$ref`` loop that
        never reaches a concrete schema — JSON Schema 2020-12 core §9.4.1 leaves such schemas undefined)."""
        index = 0
        while index < len(self.refs):  # resolve() may walk new nodes, which may add references
            where, keyword, ref, base = self.refs[index]
            index += 1
            target = self.resolve(ref, base, where, keyword)
            if target is not None:
                self.edges.setdefault(where, []).append((target, keyword))
        self._find_cycle()

    def _find_cycle(self) -> None:
        state: dict[str, int] = {}  # 1 = on the stack, 2 = done
        for start in list(self.edges):
            if state.get(start):
                continue
            stack: list[tuple[str, Iterator[tuple[str, str]]]] = [(start, iter(self.edges.get(start, ())))]
            path = [start]
            state[start] = 1
            while stack:
                node, children = stack[-1]
                for target, _keyword in children:
                    if state.get(target) == 1:
                        loop = path[path.index(target):] + [target]
                        shown = " → ".join("#" + p for p in loop)
                        raise SchemaInvalid(f"$ref cycle {shown} never reaches a concrete schema (every step "
                                            f"applies to the same value, so validation would never end)",
                                            jp.child(loop[-2], _ref_keyword_of(self.edges, loop)), "$ref")
                    if not state.get(target):
                        state[target] = 1
                        path.append(target)
                        stack.append((target, iter(self.edges.get(target, ()))))
                        break
                else:
                    state[node] = 2
                    stack.pop()
                    path.pop()


def _ref_keyword_of(edges: dict[str, list[tuple[str, str]]], loop: list[str]) -> str:
    for target, keyword in edges.get(loop[-2], ()):
        if target == loop[-1]:
            return keyword
    return "$ref"


def _where(owner: Any, *tokens: str) -> Callable[[], str]:
    """A lazy "where in the schema" (``owner`` subschema + tokens) for pattern errors."""
    def find() -> str:
        analysis = _current.analysis
        base = analysis.node_by_id.get(id(owner)) if analysis is not None else None
        return "" if base is None else base + jp.join(tokens)
    return find


class _Current(threading.local):
    analysis: _Analysis | None = None


_current = _Current()


def _refuse_retrieval(uri: str) -> Any:
    """Retriever for both engines: nothing is ever fetched."""
    raise LookupError(f"remote references are disabled: {uri}")


# The reference engine's registry: the official metaschemas (bundled, offline) and a retriever that refuses.
_PY_REGISTRY: referencing.Registry = referencing.Registry(
    retrieve=_refuse_retrieval).with_resources(list(METASCHEMAS.items()))  # type: ignore[call-arg]


# --------------------------------------------------------------------------------------------------------------
# Error conversion


def _keyword_of(error: ValidationError) -> str:
    if error.validator is None:  # a `false` subschema
        return "false"
    return str(error.validator)


def _message(error: ValidationError, keyword: str) -> str:
    """Plain words for one error, values shown as JSON (python-jsonschema's messages use Python ``repr``)."""
    value = error.validator_value
    instance = error.instance
    if keyword in ("required", "dependentRequired", "dependencies", "additionalProperties", "pattern",
                   "multipleOf", "unevaluatedProperties", "unevaluatedItems") and not error.context:
        return error.message
    if keyword == "false":
        return f"not allowed here: the schema is false (value {_show(instance)})"
    if keyword == "type":
        expected = " or ".join(value) if isinstance(value, list) else str(value)
        return f"expected {expected}, got {json_type(instance)} {_show(instance)}"
    if keyword == "enum":
        options = ", ".join(_show(v, 40) for v in value[:12]) + (", …" if len(value) > 12 else "")
        return f"{_show(instance)} is not one of: {options}"
    if keyword == "const":
        return f"{_show(instance)} is not the constant {_show(value)}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {"minimum": "less than the minimum", "maximum": "greater than the maximum",
                 "exclusiveMinimum": "not greater than the exclusive minimum",
                 "exclusiveMaximum": "not less than the exclusive maximum"}[keyword]
        if isinstance(value, bool):  # draft-04 boolean exclusive* flags
            return error.message
        return f"{_show(instance)} is {words} {_show(value)}"
    if keyword in ("minLength", "maxLength"):
        return f"{_show(instance)} has {len(instance)} characters; {keyword} is {value}"
    if keyword in ("minItems", "maxItems"):
        return f"array has {len(instance)} items; {keyword} is {value}"
    if keyword in ("minProperties", "maxProperties"):
        return f"object has {len(instance)} properties; {keyword} is {value}"
    if keyword == "uniqueItems":
        return "array items are not unique"
    if keyword == "format":
        return f"{_show(instance)} is not a valid {value}"
    if keyword in ("anyOf", "oneOf"):
        if keyword == "oneOf" and not error.context:
            return f"{_show(instance)} is valid under more than one of the oneOf alternatives"
        best = js_exceptions.best_match(error.context) if error.context else None
        detail = f"; closest: {_message(best, _keyword_of(best))}" if best is not None else ""
        return f"{_show(instance)} matches none of the {len(value)} {keyword} alternatives{detail}"
    if keyword == "not":
        return f"{_show(instance)} must not match the schema {_show(value)}"
    if keyword == "contains":
        return "no array item matches the contains schema"
    return error.message


# --------------------------------------------------------------------------------------------------------------
# The compiled schema


class _RustMultipleOf:
    """``multipleOf`` for the Rust engine (a custom keyword replacing its own): our exact decimal rule."""

    def __init__(self, parent_schema: dict, value: Any, schema_path: list) -> None:
        self.divisor = value

    def validate(self, instance: Any) -> None:
        if isinstance(instance, (int, float)) and not isinstance(instance, bool) \
                and not _is_multiple(instance, self.divisor):
            raise ValueError(f"{_show(instance)} is not a multiple of {_show(self.divisor)}")


# `false` kept as is: our additionalProperties / unevaluated* keywords report these per member themselves
_KEEP_FALSE = ("additionalProperties", "unevaluatedProperties", "unevaluatedItems")


class CompiledSchema:
    """A schema checked, analysed and compiled once; validate many instances.

    :ivar schema: the (copied) schema document.
    :ivar dialect: the dialect URI, e.g. ``https://json-schema.org/draft/2020-12/schema``.
    :ivar dialect_name: e.g. ``2020-12``.
    :ivar format_assertion: whether ``format`` is asserted.
    :ivar checked_formats: the format names really checked when ``format_assertion`` is on.
    :ivar fast_path: whether ``is_valid`` uses the Rust engine (``fast_path_note`` says why not, if not).
    """

    def __init__(self, schema: Any, *, format_assertion: bool = False) -> None:
        self.schema = schema
        dialect = _dialect_of(schema)
        self._dialect = dialect
        self.dialect = dialect.uri
        self.dialect_name = dialect.name
        self.format_assertion = format_assertion
        self.checked_formats: tuple[str, ...] = tuple(sorted(FORMAT_CHECKERS)) if format_assertion else ()
        # The reference engine works on its own copy, in which `false` subschemas below a member or an item
        # become {"not": {}}: python-jsonschema drops the member from the error path of a bare `false`.
        working = json.loads(json.dumps(schema))
        self._analysis = _Analysis(working, dialect)  # first: it enforces the depth limit
        self._check_metaschema()
        self._analysis.check_references()
        self._false_markers = self._mark_false_subschemas(working)
        # python-jsonschema re-picks the validator class from `$schema` whenever it descends into a (sub)schema
        # carrying one (e.g. a `$ref` back to the root), which would drop our fixed keywords there: the dialect is
        # decided once, for the whole document.
        for node in self._analysis.nodes.values():
            if isinstance(node.value, dict):
                node.value.pop("$schema", None)
        self._python = dialect.python(
            working, registry=_PY_REGISTRY, format_checker=_FORMAT_CHECKER if format_assertion else None)
        self._rust: Any = None
        self.fast_path_note = ""
        try:
            options: dict[str, Any] = {"retriever": _refuse_retrieval,
                                       "pattern_options": jsonschema_rs.FancyRegexOptions(backtrack_limit=100_000)}
            if format_assertion:
                options.update(validate_formats=True, formats=_rust_formats())
            else:
                options["validate_formats"] = False
            if self._analysis.has_multiple_of:
                # the Rust engine divides binary floats (1e308 / 2.5 fails); use our exact rule there too
                options["keywords"] = {"multipleOf": _RustMultipleOf}
            self._rust = dialect.rust(schema, **options)
            self.quick_is_valid = self._rust.is_valid  # type: ignore[method-assign]
        except Exception as exc:  # noqa: BLE001 - any refusal by the fast engine just disables it
            self.fast_path_note = (f"the Rust engine refused this schema ({exc.__class__.__name__}); "
                                   f"python-jsonschema validates it alone")

    def _mark_false_subschemas(self, working: Any) -> dict[int, str]:
        """Replace every `false` subschema (but the root and those our own keywords read as a literal) by a
        marker ``{"not": {}}`` — the same meaning — and return ``id(marker) -> pointer of the false``."""
        markers: dict[int, str] = {}
        for where in self._analysis.false_nodes:
            tokens = jp.split(where)
            if not tokens or tokens[-1] in _KEEP_FALSE:
                continue
            parent = jp.resolve(working, jp.join(tokens[:-1]))
            last: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
            if parent[last] is False:
                marker: dict[str, Any] = {"not": {}}
                parent[last] = marker
                markers[id(marker)] = where
        return markers

    @property
    def fast_path(self) -> bool:
        """Whether the Rust engine answers :meth:`is_valid` for this schema."""
        return self._rust is not None

    def quick_is_valid(self, instance: Any) -> bool:
        """:meth:`is_valid` without its guards, for values parsed with a depth limit (the gate's hot path). On a
        schema the Rust engine compiled, this is the engine's own ``is_valid``; it may raise on values that engine
        cannot take — callers then fall back to :meth:`is_valid`."""
        return self.is_valid(instance)

    def _check_metaschema(self) -> None:
        validator = self._dialect.python(self._dialect.python.META_SCHEMA, registry=_PY_REGISTRY,
                                         format_checker=_METASCHEMA_FORMATS)
        try:
            errors = list(validator.iter_errors(self.schema))
        except RecursionError:
            raise SchemaInvalid("the schema is nested too deeply to check", "") from None
        if errors:
            best = js_exceptions.best_match(errors)
            place = jp.join(best.absolute_path)
            keyword = best.path[-1] if best.path and isinstance(best.path[-1], str) else None
            raise SchemaInvalid(f"not a valid {self.dialect_name} schema: {_message(best, _keyword_of(best))}",
                                place, keyword)

    # -- validation ------------------------------------------------------------------------------------------

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` (plain JSON values) is valid.

        :raises PatternTimeout: only when the Rust engine cannot answer and a pattern is catastrophic.
        :raises InstanceTooDeep: for a value nested deeper than :data:`MAX_INSTANCE_DEPTH`.
        """
        _check_instance_depth(instance)
        rust = self._rust
        if rust is not None:
            try:
                return bool(rust.is_valid(instance))
            except Exception:  # noqa: BLE001 - values the Rust side cannot take: ask the reference engine
                pass
        try:
            return next(self._iter_python(instance), None) is None
        except RecursionError:
            raise InstanceTooDeep("the value is nested too deeply for this schema") from None

    def reference_is_valid(self, instance: Any) -> bool:
        """python-jsonschema's answer alone (the reference semantics, with our fixes).

        :raises PatternTimeout: when a ``pattern`` backtracks catastrophically on this instance.
        """
        return next(self._iter_python(instance), None) is None

    def fast_is_valid(self, instance: Any) -> bool | None:
        """The Rust engine's answer alone; ``None`` when it is not used for this schema."""
        return None if self._rust is None else bool(self._rust.is_valid(instance))

    def _iter_python(self, instance: Any) -> Iterator[ValidationError]:
        previous = (_budget.deadline, _current.analysis)
        _budget.deadline = time.monotonic() + PATTERN_BUDGET_SECONDS
        _current.analysis = self._analysis
        try:
            yield from self._python.iter_errors(instance)
        finally:
            _budget.deadline, _current.analysis = previous

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        """Every error, lazily, in python-jsonschema's order.

        :raises PatternTimeout: when a ``pattern`` backtracks catastrophically on this instance.
        """
        try:
            for error in self._iter_python(instance):
                yield self._convert(error)
        except RecursionError:
            yield SchemaError("", "depth", "", "the value is nested too deeply to explain the errors")

    def errors(self, instance: Any) -> list[SchemaError]:
        """All errors, the most relevant first (python-jsonschema's ``best_match`` preferences; ties keep the
        schema's and the document's order). When the reference engine gives up on a catastrophic ``pattern``,
        the Rust engine (linear-time matching) explains the errors instead.

        :raises PatternTimeout: when no engine can evaluate a ``pattern`` on this instance.
        :raises InstanceTooDeep: for a value nested deeper than :data:`MAX_INSTANCE_DEPTH`.
        """
        _check_instance_depth(instance)
        try:
            raw = list(self._iter_python(instance))
        except RecursionError:
            return [SchemaError("", "depth", "", "the value is nested too deeply to explain the errors")]
        except PatternTimeout:
            if self._rust is None:
                raise
            # The reference engine backtracks catastrophically; the Rust engine matches patterns in linear
            # time, so its answer stands and its errors explain it.
            return self._rust_errors(instance)
        if not raw:
            return []
        return [self._convert(e) for e in sorted(raw, key=_relevance, reverse=True)]

    def _rust_errors(self, instance: Any) -> list[SchemaError]:
        """Errors as the Rust engine reports them, one per offending member like ours."""
        found: list[SchemaError] = []
        for error in self._rust.iter_errors(instance):
            where = jp.join(error.instance_path)
            schema_path = jp.join(error.schema_path)
            kind = error.kind
            if error.message.startswith("Error executing regex"):  # lookaround/backreferences: it backtracks too
                raise PatternTimeout("this pattern backtracks catastrophically on the value at "
                                     f"{where or '(root)'} in both engines, so no answer can be given; rewrite "
                                     "it without nested or overlapping repetition", schema_path, "pattern")
            keyword = {"falseSchema": "false"}.get(kind.name, kind.name)
            if keyword in ("additionalProperties", "unevaluatedProperties") and getattr(kind, "unexpected", None):
                for key in kind.unexpected:
                    found.append(SchemaError(jp.child(where, key), keyword, schema_path,
                                             f"unexpected property {_show(key)}: {keyword} is false"))
            elif keyword == "required" and isinstance(getattr(kind, "property", None), str):
                found.append(SchemaError(jp.child(where, kind.property), keyword, schema_path,
                                         f"missing required property {_show(kind.property)}"))
            else:
                found.append(SchemaError(where, keyword, schema_path, error.message))
        return found

    def _convert(self, error: ValidationError) -> SchemaError:
        keyword = _keyword_of(error)
        false_at = self._false_markers.get(id(error.schema)) if keyword == "not" else None
        if false_at is not None:
            keyword = "false"
            schema_path = false_at
            message = f"not allowed here: the schema is false (value {_show(error.instance)})"
        else:
            owner = self._analysis.node_by_id.get(id(error.schema)) if isinstance(error.schema, dict) else None
            if owner is not None and keyword != "false":
                schema_path = jp.child(owner, keyword)
            else:
                schema_path = jp.join(error.absolute_schema_path)
            message = _message(error, keyword)
        return SchemaError(jp.join(error.absolute_path), keyword, schema_path, message)


def _check_instance_depth(instance: Any) -> None:
    """:raises InstanceTooDeep: when ``instance`` nests arrays/objects deeper than :data:`MAX_INSTANCE_DEPTH`."""
    if not isinstance(instance, (dict, list)):
        return
    stack: list[tuple[Any, int]] = [(instance, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_INSTANCE_DEPTH:
            raise InstanceTooDeep(f"the value is nested deeper than {MAX_INSTANCE_DEPTH} levels")
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def _relevance(error: ValidationError) -> tuple[Any, ...]:
    """python-jsonschema's ``best_match`` preferences (deeper, not anyOf/oneOf, matching the type) without its
    tie-break on the path, so equally relevant errors keep the order of the schema and the document."""
    return (len(error.path), error.validator not in js_exceptions.WEAK_MATCHES,
            error.validator in js_exceptions.STRONG_MATCHES, not error._matches_type())


# --------------------------------------------------------------------------------------------------------------
# Compile once


_cache: OrderedDict[tuple[str, bool], CompiledSchema | SchemaInvalid] = OrderedDict()
_by_identity: OrderedDict[tuple[int, bool], tuple[Any, CompiledSchema | SchemaInvalid]] = OrderedDict()
# id(schema) -> (schema, compiled) for good schemas without format assertion: the gate's per-item lookup
_IDENTITY: dict[int, tuple[Any, CompiledSchema]] = {}
_cache_lock = threading.Lock()


def _canonical(schema: Any) -> str:
    """Canonical JSON text of a schema (the cache key). :raises SchemaInvalid: when it is not JSON."""
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels") from None
    except (TypeError, ValueError) as exc:
        raise SchemaInvalid(f"the schema is not JSON: {exc}") from None


def compile_schema(schema: dict | bool, *, format_assertion: bool = False) -> CompiledSchema:
    """Check and compile ``schema`` once; later calls with an equal schema return the same object.

    Equal means the same canonical JSON (keys sorted), so two tools sharing a schema share one compilation; the
    same dict object is recognised by identity first (schemas are treated as immutable once compiled).

    :param schema: a JSON Schema document: an object, or ``true``/``false``.
    :param format_assertion: assert ``format`` (the formats in :data:`FORMAT_CHECKERS`); off by default, as
        2020-12 makes ``format`` an annotation (validation §7.2).
    :raises SchemaInvalid: when the schema is unusable (the exception is cached too).
    """
    identity = (id(schema), format_assertion)
    hit = _by_identity.get(identity)
    if hit is not None and hit[0] is schema:
        result = hit[1]
    else:
        result = _compile_uncached_identity(schema, format_assertion)
        with _cache_lock:
            _by_identity[identity] = (schema, result)
            while len(_by_identity) > CACHE_SIZE:
                _by_identity.popitem(last=False)
            if not format_assertion and isinstance(result, CompiledSchema):
                if len(_IDENTITY) >= CACHE_SIZE:
                    _IDENTITY.clear()
                _IDENTITY[id(schema)] = (schema, result)
    if isinstance(result, SchemaInvalid):
        raise result
    return result


def _compile_uncached_identity(schema: Any, format_assertion: bool) -> CompiledSchema | SchemaInvalid:
    if not isinstance(schema, (dict, bool)):
        return SchemaInvalid(f"a schema must be a JSON object or a boolean, not {json_type(schema)}")
    try:
        key = (_canonical(schema), format_assertion)
    except SchemaInvalid as exc:
        return exc
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    try:
        # a private copy: the caller may go on mutating its dict
        result: CompiledSchema | SchemaInvalid = CompiledSchema(json.loads(json.dumps(schema)),
                                                                format_assertion=format_assertion)
    except SchemaInvalid as exc:
        result = exc
    except RecursionError:
        result = SchemaInvalid(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels")
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return result
