"""Formats: one set of checkers shared by both engines, so they agree (JSON Schema 2020-12 validation §7)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address
from typing import Any
from urllib.parse import quote

import email_validator
import fqdn
import idna
import jsonpointer
import regex
import rfc3986_validator
import rfc3987_syntax
from jsonschema import FormatChecker

from webapp.core.schema.cache import PATTERNS
from webapp.core.schema.ecma import translate
from webapp.core.schema.patterns import MAX_PATTERN_COST, compile_pattern

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z", re.ASCII)
# RFC 3339 §5.6 partial-time + time-offset; seconds 60 only as a leap second (checked below)
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))\Z", re.ASCII)
# ISO 8601 durations as RFC 3339 Appendix A writes them: weeks alone, or a date part then a time part
# (dur-date = day / month [day] / year [month [day]]; dur-time = T (hour [minute [second]] / minute [second] /
# second))
_DUR_TIME = r"T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)"
_DUR_DATE = r"(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)"
_DURATION = re.compile(rf"P(?:\d+W|{_DUR_DATE}(?:{_DUR_TIME})?|{_DUR_TIME})\Z", re.ASCII)
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z", re.ASCII)
# RFC 1123 §2.1 labels
_HOSTNAME_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)\Z", re.ASCII)
# RFC 6570 §2: literals, and expressions {op varspec,...} (the op-reserve characters = , ! @ | are refused)
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = rf"{_VARCHAR}(?:\.?{_VARCHAR})*(?::[1-9][0-9]{{0,3}}|\*)?"
_URI_TEMPLATE = re.compile(
    rf"(?:[^\x00-\x20\x7f\"%<>\\^`{{|}}]|%[0-9A-Fa-f]{{2}}"
    rf"|\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*\}})*\Z"
)
# IDNA label separators (RFC 3490 §3.1): a name may not end with one
_IDN_DOTS = (".", "\u3002", "\uff0e", "\uff61")
# RFC 5322 §3.2.3 atext, and RFC 6531 §3.3's UTF8-non-ascii beside it in idn-email
_ATOM = r"(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\x00-\x7f])+"
_IDN_LOCAL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*\Z")
_IP_LITERAL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?//(?:[^@/?#\[]*@)?\[([^\]]*)\]")
_RELATIVE_POINTER = re.compile(r"(0|[1-9][0-9]*)(#|(/.*))?\Z", re.ASCII | re.DOTALL)


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
    """RFC 3339 §5.6 full-time; a leap second (``:60``) only at 23:59 UTC (§5.7), the offset applied."""
    m = _TIME.match(value)
    if not m:
        return False
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3))
    offset_hour, offset_minute = (int(m.group(7)), int(m.group(8))) if m.group(6) else (0, 0)
    if hour > 23 or minute > 59 or second > 60 or offset_hour > 23 or offset_minute > 59:
        return False
    if second == 60:
        sign = -1 if m.group(6) == "+" else 1
        utc = (hour * 60 + minute + sign * (offset_hour * 60 + offset_minute)) % (24 * 60)
        return utc == 23 * 60 + 59
    return True


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
_parses_json_pointer = _accepts(jsonpointer.JsonPointer, jsonpointer.JsonPointerException)


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
    """RFC 1123 §2.1 host names: labels of ASCII letters, digits and hyphens, at most 253 characters, no trailing
    dot (checked by ``fqdn``); an A-label (``xn--``) must decode to a valid IDNA 2008 U-label (RFC 5891 §5.4)."""
    if not value or value.endswith(".") or not value.isascii() or not fqdn.FQDN(value, min_labels=1).is_valid:
        return False
    for label in value.split("."):
        if label[:4].lower() == "xn--":
            try:
                idna.decode(label)
            except (idna.IDNAError, UnicodeError, ValueError):
                return False
        elif not _HOSTNAME_LABEL.match(label):
            return False
    return True


def _is_idn_hostname(value: str) -> bool:
    """RFC 5890 §2.3.2.3 internationalized host names: IDNA 2008, by ``idna``."""
    if not value or value.endswith(_IDN_DOTS):
        return False
    try:
        idna.encode(value)
    except (idna.IDNAError, UnicodeError, ValueError):
        return False
    # RFC 5893 §2 rule 1 holds for every label of a Bidi domain name (idna checks labels one at a time)
    if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in value):
        labels = re.split("[" + "".join(_IDN_DOTS) + "]", value)
        return all(unicodedata.bidirectional(label[0]) in ("L", "R", "AL") for label in labels if label)
    return True


def _is_email(value: str, *, idn: bool) -> bool:
    """RFC 5321 §4.1.2 mailboxes (RFC 6531 for ``idn-email``), with quoted local parts and address literals, by
    ``email_validator``; never looked up."""
    try:
        email_validator.validate_email(
            value,
            check_deliverability=False,
            allow_quoted_local=True,
            allow_domain_literal=True,
            allow_smtputf8=idn,
            allow_display_name=False,
            globally_deliverable=False,
        )
    except (email_validator.EmailNotValidError, ValueError):
        # RFC 6531 §3.3 lets any non-ASCII character into an atom (email_validator refuses controls among them)
        local, at, domain = value.rpartition("@")
        return idn and bool(at) and bool(_IDN_LOCAL.match(local)) and _is_email("a@" + domain, idn=True)
    return True


def _is_uuid(value: str) -> bool:
    return bool(_UUID.match(value))  # RFC 4122 §3, the hyphenated form only


def _is_json_pointer(value: str) -> bool:
    """RFC 6901 §3."""
    return (value == "" or value.startswith("/")) and _parses_json_pointer(value)


def _is_relative_json_pointer(value: str) -> bool:
    """draft-handrews-relative-json-pointer-01 §3: a non-negative integer, then ``#`` or a JSON Pointer."""
    m = _RELATIVE_POINTER.match(value)
    return bool(m) and (m.group(3) is None or _is_json_pointer(m.group(3)))


def _is_uri_template(value: str) -> bool:
    """RFC 6570 §2 (the grammar; the uri-template package takes ``{a..b}``, ``{var=def}`` and ``{,+var}``)."""
    return bool(_URI_TEMPLATE.match(value))


def _ip_literal_ok(value: str) -> bool:
    """An IPv6 host (RFC 3986 §3.2.2 IP-literal) is a real IPv6 address (no leading zero in an embedded IPv4)."""
    m = _IP_LITERAL.match(value)
    if not m or m.group(1)[:1] in ("v", "V"):
        return True
    return _is_ipv6(m.group(1))


def _is_uri(value: str, rule: str) -> bool:
    """RFC 3986 §3 (``URI``) / §4.1 (``URI_reference``), by rfc3986-validator."""
    return bool(rfc3986_validator.validate_rfc3986(value, rule=rule)) and _ip_literal_ok(value)


def _is_iri(value: str, rule: str) -> bool:
    """RFC 3987 §2.2, by rfc3987-syntax; where it refuses, the IRI mapped to a URI (§3.1: its ucschar and iprivate
    characters percent-encoded as UTF-8) is checked as a URI (rfc3987-syntax misses compressed IPv6, IPvFuture's
    ``V`` and characters beyond the BMP)."""
    if not _ip_literal_ok(value):
        return False
    check = rfc3987_syntax.is_valid_syntax_iri if rule == "URI" else rfc3987_syntax.is_valid_syntax_iri_reference
    if check(value):
        return True
    if any(not _is_ucschar(c) for c in value if ord(c) > 0x7F) or any(c <= " " or c == "\x7f" for c in value):
        return False
    mapped = quote(value, safe="".join(chr(i) for i in range(0x21, 0x7F)))
    return _is_uri(mapped.replace("[V", "[v", 1), rule)  # ABNF literals are case-insensitive (RFC 5234 §2.3)


def _is_ucschar(char: str) -> bool:
    """RFC 3987 §2.2 ucschar or iprivate."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF or 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:
        return False
    return code >= 0xA0


# Formats asserted when format assertion is on (JSON Schema 2020-12 validation §7.3, and the same names in the
# older dialects). Every other format name is an annotation only, in both engines.
FORMAT_CHECKERS: dict[str, Callable[[str], bool]] = {
    "date": _is_date,
    "time": _is_time,
    "date-time": _is_date_time,
    "duration": lambda v: bool(_DURATION.match(v)),
    "email": lambda v: _is_email(v, idn=False),
    "idn-email": lambda v: _is_email(v, idn=True),
    "hostname": _is_hostname,
    "idn-hostname": _is_idn_hostname,
    "ipv4": _is_ipv4,
    "ipv6": _is_ipv6,
    # RFC 3986 §3 / §4.1, by rfc3986-validator; RFC 3987 §2.2, by rfc3987-syntax
    "uri": lambda v: _is_uri(v, "URI"),
    "uri-reference": lambda v: _is_uri(v, "URI_reference"),
    "iri": lambda v: _is_iri(v, "URI"),
    "iri-reference": lambda v: _is_iri(v, "URI_reference"),
    "uri-template": _is_uri_template,
    "uuid": _is_uuid,
    "regex": _is_regex,
    "json-pointer": _is_json_pointer,
    "relative-json-pointer": _is_relative_json_pointer,
}
# jsonschema_rs knows these names natively; each is overridden so the Rust engine checks exactly what we do.
_RUST_NATIVE_FORMATS = (
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
)


def _strings_only(check: Callable[[str], bool]) -> Callable[[Any], bool]:
    """Formats apply to strings only (2020-12 validation §7.1): anything else passes."""
    return lambda value: not isinstance(value, str) or check(value)


# The formats each dialect defines (draft-04 validation §7.3, draft-06 §8.3, draft-07 §7.3, 2019-09 §7.3,
# 2020-12 §7.3): asserted there when format assertion is on; any other name is an annotation only.
_DRAFT4_FORMATS = frozenset({"date-time", "email", "hostname", "ipv4", "ipv6", "uri"})
_DRAFT6_FORMATS = _DRAFT4_FORMATS | {"uri-reference", "uri-template", "json-pointer"}
_DRAFT7_FORMATS = _DRAFT6_FORMATS | {
    "date",
    "time",
    "idn-email",
    "idn-hostname",
    "iri",
    "iri-reference",
    "relative-json-pointer",
    "regex",
}
DIALECT_FORMATS: dict[str, frozenset[str]] = {
    "draft-04": _DRAFT4_FORMATS,
    "draft-06": _DRAFT6_FORMATS,
    "draft-07": _DRAFT7_FORMATS,
    "2019-09": _DRAFT7_FORMATS | {"duration", "uuid"},
    "2020-12": _DRAFT7_FORMATS | {"duration", "uuid"},
}


@functools.cache
def format_checker(dialect_name: str) -> FormatChecker:
    """The checker the reference engine asserts the formats of ``dialect_name`` (e.g. ``"draft-07"``) with."""
    checker = FormatChecker(formats=())
    for name in DIALECT_FORMATS[dialect_name]:
        checker.checks(name)(_strings_only(FORMAT_CHECKERS[name]))
    return checker


# The metaschemas say `pattern` has format "regex": check it as ECMA (our engine), not with Python's `re`.
METASCHEMA_FORMATS = FormatChecker(formats=())
METASCHEMA_FORMATS.checks("regex")(_strings_only(_is_regex))


def rust_formats(dialect_name: str) -> dict[str, Callable[[Any], bool]]:
    """The ``formats`` option of ``jsonschema_rs``: our checkers for the formats of ``dialect_name``, every other
    format it knows natively accepted (an annotation, as for the reference engine)."""
    formats: dict[str, Callable[[Any], bool]] = {name: (lambda _v: True) for name in _RUST_NATIVE_FORMATS}
    for name in DIALECT_FORMATS[dialect_name]:
        formats[name] = _strings_only(FORMAT_CHECKERS[name])
    return formats
