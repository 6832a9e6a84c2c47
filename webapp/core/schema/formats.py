"""Formats: one set of checkers shared by both engines, so they agree (JSON Schema 2020-12 validation §7).

Every checker answers true or false for any string, in time and memory linear in its length at worst: where an RFC
bounds the length (an e-mail address, a host name, an IP address) a longer value is refused before anything else
reads it, and where none does (URIs, IRIs, URI templates, JSON Pointers) the checker is a few scans of the string by
compiled character classes, never a backtracking parse (a 1 MB value is answered in milliseconds;
``benchmarks/bench_formats.py`` measures every format on such values).

The URI and IRI checkers are this module's own because no packaged checker met both needs (issue 19): rfc3987-syntax
took about a minute and 1.4 GB on a 100 KB IRI, and rfc3986-validator (like rfc3986) accepts a trailing line break
(``"http://x\\n"``) and a ``%`` that starts no percent-encoding. Host names, IDNA and e-mail stay with their
packages (fqdn, idna, email-validator), behind the RFC length limits."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address
from typing import Any

import email_validator
import fqdn
import idna
import regex
from jsonschema import FormatChecker

from webapp.core.schema.cache import PATTERNS
from webapp.core.schema.ecma import translate
from webapp.core.schema.patterns import MAX_PATTERN_LENGTH

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
# Length limits the RFCs set (a longer value is refused before any parser reads it):
# RFC 1035 §2.3.4: a name is at most 255 octets on the wire, so 253 characters as text (no trailing dot); an
# internationalized name is bounded by its A-label form, which is never shorter than the name as written (Punycode
# writes at least one character per code point, RFC 3492 §6.3).
MAX_HOSTNAME_LENGTH = 253
# RFC 5321 §4.5.3.1.1-3: a local part is at most 64 octets, and the path, "<" address ">", at most 256, so an address
# is at most 254 octets (of UTF-8 for idn-email, RFC 6531 §3.3).
MAX_EMAIL_LOCAL_OCTETS = 64
MAX_EMAIL_OCTETS = 254
# RFC 4291 §2.2: the longest text forms, eight groups of four hex digits (39) and six groups then a dotted quad (45).
MAX_IPV4_LENGTH = 15
MAX_IPV6_LENGTH = 45
# A "%" that does not start a percent-encoding (RFC 3986 §2.1); every grammar here that allows "%" allows it only so.
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# RFC 6570 §2: literals, and expressions {op varspec,...} (the op-reserve characters = , ! @ | are refused). The "%"
# of a varchar or a literal is checked by _BAD_PERCENT first; the quantifiers are possessive, so a value that does
# not match is refused in one pass instead of backtracking over every way to split it.
_VARSPEC = r"[A-Za-z0-9_%]++(?:\.[A-Za-z0-9_%]++)*+(?::[1-9][0-9]{0,3}|\*)?"
_URI_TEMPLATE = re.compile(rf"(?:[^\x00-\x20\x7f\"<>\\^`{{|}}]++|\{{[+#./;?&]?{_VARSPEC}(?:,{_VARSPEC})*+\}})*+\Z")
# IDNA label separators (RFC 3490 §3.1): a name may not end with one
_IDN_DOTS = (".", "\u3002", "\uff0e", "\uff61")
# RFC 5322 §3.2.3 atext, and RFC 6531 §3.3's UTF8-non-ascii beside it in idn-email
_ATOM = r"(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]|[^\x00-\x7f])++"
_IDN_LOCAL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*+\Z")
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


_parses_ipv4 = _accepts(IPv4Address, ValueError)
_parses_ipv6 = _accepts(IPv6Address, ValueError)


def _is_ipv4(value: str) -> bool:
    """RFC 2673 §3.2 dotted-quad (no leading zeros, as Python's ``ipaddress`` reads it)."""
    return len(value) <= MAX_IPV4_LENGTH and _parses_ipv4(value)


def _is_regex(value: str) -> bool:
    """An ECMA-262 regular expression (Unicode mode), judged by its syntax (ECMA-262's early errors, and the
    Unicode property names it may use): :func:`webapp.core.schema.ecma.translate` reads it once, nothing compiles
    it, so any value costs time linear in its length. A value longer than
    :data:`webapp.core.schema.patterns.MAX_PATTERN_LENGTH` is not a pattern this validator reads: false, as a
    schema's ``pattern`` that long is refused."""
    if value in PATTERNS:
        return True
    if len(value) > MAX_PATTERN_LENGTH:
        return False
    try:
        translate(value)
    except regex.error:
        return False
    return True


def _is_ipv6(value: str) -> bool:
    """RFC 4291 §2.2 text forms; zone ids (``%eth0``) are not part of them."""
    return len(value) <= MAX_IPV6_LENGTH and "%" not in value and _parses_ipv6(value)


def _is_hostname(value: str) -> bool:
    """RFC 1123 §2.1 host names: labels of ASCII letters, digits and hyphens, at most 253 characters (RFC 1035
    §2.3.4), no trailing dot (checked by ``fqdn``); an A-label (``xn--``) must decode to a valid IDNA 2008 U-label
    (RFC 5891 §5.4)."""
    if not value or len(value) > MAX_HOSTNAME_LENGTH or value.endswith(".") or not value.isascii():
        return False
    if not fqdn.FQDN(value, min_labels=1).is_valid:
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
    """RFC 5890 §2.3.2.3 internationalized host names: IDNA 2008, by ``idna``; at most 253 characters as A-labels
    (RFC 1035 §2.3.4), so a longer value is refused unread."""
    if not value or len(value) > MAX_HOSTNAME_LENGTH or value.endswith(_IDN_DOTS):
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


def _octets(text: str) -> int:
    """The length of ``text`` in UTF-8 (a lone surrogate, which no e-mail address holds, as three octets)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _email_validator_accepts(value: str, *, idn: bool) -> bool:
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
        return False
    return True


def _is_email(value: str, *, idn: bool) -> bool:
    """RFC 5321 §4.1.2 mailboxes (RFC 6531 for ``idn-email``), with quoted local parts and address literals, by
    ``email_validator``; never looked up. At most 254 octets, the local part at most 64 (RFC 5321 §4.5.3.1), checked
    first, so a long value costs nothing."""
    if len(value) > MAX_EMAIL_OCTETS or _octets(value) > MAX_EMAIL_OCTETS:
        return False
    local, at, domain = value.rpartition("@")  # a domain holds no "@"; a quoted local part may
    if not at or _octets(local) > MAX_EMAIL_LOCAL_OCTETS:
        return False
    if _email_validator_accepts(value, idn=idn):
        return True
    # RFC 6531 §3.3 lets any non-ASCII character into an atom (email_validator refuses controls among them): such a
    # local part is checked here, and its domain by email_validator behind a plain local part.
    return idn and bool(_IDN_LOCAL.match(local)) and _email_validator_accepts("a@" + domain, idn=True)


def _is_uuid(value: str) -> bool:
    return bool(_UUID.match(value))  # RFC 4122 §3, the hyphenated form only


def _is_json_pointer(value: str) -> bool:
    """RFC 6901 §3: empty, or ``/`` reference tokens in which every ``~`` is ``~0`` or ``~1`` (any other character
    stands for itself)."""
    return value == "" or (value.startswith("/") and _BAD_TILDE.search(value) is None)


_BAD_TILDE = re.compile(r"~(?![01])")


def _is_relative_json_pointer(value: str) -> bool:
    """draft-handrews-relative-json-pointer-01 §3: a non-negative integer, then ``#`` or a JSON Pointer."""
    m = _RELATIVE_POINTER.match(value)
    return m is not None and (m.group(3) is None or _is_json_pointer(m.group(3)))


def _is_uri_template(value: str) -> bool:
    """RFC 6570 §2 (the grammar; the uri-template package takes ``{a..b}``, ``{var=def}`` and ``{,+var}``)."""
    return _BAD_PERCENT.search(value) is None and _URI_TEMPLATE.match(value) is not None


class _Grammar:
    """The character sets of RFC 3986 Appendix A (``iri=False``) or RFC 3987 §2.2 (``iri=True``: ``ucschar``
    beside the unreserved characters of the user, host name, path, query and fragment, and ``iprivate`` in the
    query), each component as one compiled class read with ``fullmatch`` (``%`` is checked apart, once)."""

    # unreserved / sub-delims (RFC 3986 §2.2-2.3)
    PLAIN = r"A-Za-z0-9\-._~!$&'()*+,;="
    # RFC 3987 §2.2 ucschar and iprivate, exactly
    UCSCHAR = (
        r"\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
        + "".join(rf"\U{plane:04x}0000-\U{plane:04x}fffd" for plane in range(0x1, 0xE))
        + r"\U000e1000-\U000efffd"
    )
    IPRIVATE = r"\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"

    def __init__(self, iri: bool) -> None:
        extra = self.UCSCHAR if iri else ""
        self.userinfo = re.compile(rf"[{self.PLAIN}:%{extra}]*")
        self.reg_name = re.compile(rf"[{self.PLAIN}%{extra}]*")
        self.path = re.compile(rf"[{self.PLAIN}:@/%{extra}]*")
        self.query = re.compile(rf"[{self.PLAIN}:@/?%{extra}{self.IPRIVATE if iri else ''}]*")
        self.fragment = re.compile(rf"[{self.PLAIN}:@/?%{extra}]*")


_URI_GRAMMAR = _Grammar(iri=False)
_IRI_GRAMMAR = _Grammar(iri=True)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_FIRST_DELIMITER = re.compile(r"[:/?#]")
_PORT = re.compile(r"[0-9]*")
# RFC 3986 §3.2.2 IPvFuture ("v" is case-insensitive, RFC 5234 §2.3)
_IPV_FUTURE = re.compile(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+")


def _authority_ok(value: str, start: int, end: int, grammar: _Grammar) -> bool:
    """``value[start:end]`` is an RFC 3986 §3.2 authority: ``[userinfo "@"] host [":" port]``, the host an
    IP-literal (a real IPv6 address, or IPvFuture), or a reg-name (which IPv4 addresses are too)."""
    at = value.rfind("@", start, end)  # "@" is in neither host nor port
    if at >= 0:
        if grammar.userinfo.fullmatch(value, start, at) is None:
            return False
        start = at + 1
    if value.startswith("[", start):
        close = value.find("]", start, end)
        if close < 0:
            return False
        literal = value[start + 1 : close]
        if not (_IPV_FUTURE.fullmatch(literal) or _is_ipv6(literal)):
            return False
        port_at = close + 1
        if port_at < end and value[port_at] != ":":
            return False
    else:
        colon = value.find(":", start, end)
        port_at = end if colon < 0 else colon
        if grammar.reg_name.fullmatch(value, start, port_at) is None:
            return False
    return port_at >= end or _PORT.fullmatch(value, port_at + 1, end) is not None


def _is_uri(value: str, *, reference: bool, iri: bool = False) -> bool:
    """RFC 3986 §3 ``URI`` (§4.1 ``URI-reference`` when ``reference``), or with ``iri`` RFC 3987 §2.2 ``IRI`` /
    ``IRI-reference``: the value is cut into its components as RFC 3986 Appendix B does (first ``:``, ``//``,
    ``?``, ``#``), and each component is checked against its character set. Linear in the length."""
    if _BAD_PERCENT.search(value) is not None:
        return False
    grammar = _IRI_GRAMMAR if iri else _URI_GRAMMAR
    first = _FIRST_DELIMITER.search(value)
    if first is not None and first.group() == ":":
        # a scheme; a relative reference cannot have a ":" in its first segment (path-noscheme) either
        if _SCHEME.fullmatch(value, 0, first.start()) is None:
            return False
        start = first.end()
    elif reference:
        start = 0
    else:
        return False
    end = len(value)
    fragment = value.find("#", start)
    if fragment >= 0:
        if grammar.fragment.fullmatch(value, fragment + 1) is None:
            return False
        end = fragment
    query = value.find("?", start, end)
    if query >= 0:
        if grammar.query.fullmatch(value, query + 1, end) is None:
            return False
        end = query
    if value.startswith("//", start):
        slash = value.find("/", start + 2, end)
        authority_end = end if slash < 0 else slash
        if not _authority_ok(value, start + 2, authority_end, grammar):
            return False
        start = authority_end
    return grammar.path.fullmatch(value, start, end) is not None


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
    # RFC 3986 §3 / §4.1; RFC 3987 §2.2
    "uri": lambda v: _is_uri(v, reference=False),
    "uri-reference": lambda v: _is_uri(v, reference=True),
    "iri": lambda v: _is_uri(v, reference=False, iri=True),
    "iri-reference": lambda v: _is_uri(v, reference=True, iri=True),
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
