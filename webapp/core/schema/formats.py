"""Formats: one set of checkers shared by both engines, so they agree (JSON Schema 2020-12 validation §7)."""

from __future__ import annotations

import re
import uuid as _uuid
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address
from typing import Any

import regex
from jsonschema import FormatChecker

from webapp.core.schema.cache import PATTERNS
from webapp.core.schema.ecma import translate
from webapp.core.schema.patterns import MAX_PATTERN_COST, compile_pattern

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


def _is_regex(value: str) -> bool:
    """An ECMA-262 regular expression (Unicode mode) this validator can run. A pattern too costly to compile
    (:data:`webapp.core.schema.patterns.MAX_PATTERN_COST`) is judged by its syntax alone: it is never compiled."""
    if value in PATTERNS:
        return True
    try:
        if translate(value).cost > MAX_PATTERN_COST:
            return True
        compile_pattern(value)
    except regex.error:
        return False
    return True


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


#: The checker the reference engine asserts formats with.
FORMAT_CHECKER = _format_checker()
# The metaschemas say `pattern` has format "regex": check it as ECMA (our engine), not with Python's `re`.
METASCHEMA_FORMATS = FormatChecker(formats=())
METASCHEMA_FORMATS.checks("regex")(_strings_only(_is_regex))


def rust_formats() -> dict[str, Callable[[Any], bool]]:
    """The ``formats`` option of ``jsonschema_rs``: our checkers for the asserted formats, every other format it
    knows natively accepted (an annotation, as for the reference engine)."""
    formats: dict[str, Callable[[Any], bool]] = {name: (lambda _v: True) for name in _RUST_NATIVE_FORMATS}
    for name, func in FORMAT_CHECKERS.items():
        formats[name] = _strings_only(func)
    return formats


