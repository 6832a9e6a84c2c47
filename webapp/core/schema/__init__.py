"""JSON Schema (draft-04 … 2020-12) on top of python-jsonschema, with the library's traps fixed in our layer.

python-jsonschema is the reference semantics and gives the detailed errors; ``jsonschema_rs`` (compiled Rust)
answers ``is_valid`` on the hot path. Where the two could differ they are made to agree: ``multipleOf`` and the
asserted formats run our own checks in both, patterns are ECMA-262 in both — and a schema whose patterns use a
construct the Rust engine reads otherwise (``\\b``, lookaround, backreferences, Unicode properties) is validated
by the reference engine alone (``tests/test_schema.py`` runs every case, and a differential set of patterns and
strings, through each engine). What this layer adds (each item is a trap of jsonschema 4.26 listed in
``shared/docs/json-tools-anchors.md`` §4):

* the dialect comes from ``$schema`` (default 2020-12); an unknown ``$schema`` is a :class:`SchemaInvalid`, with a
  "did you mean" hint for near misses such as ``…/draft-07/schema/#`` — never a silent guess or a DeprecationWarning;
* the schema is checked against its metaschema before use (a bad schema is not a bad instance);
* ``$ref`` to anything outside the pasted document is refused before anything is compiled — nothing is ever
  fetched (no SSRF from a pasted schema) — and so is an unresolvable ``$ref``, one whose target is no schema
  (``#/title``), or a ``$ref`` cycle that never reaches a concrete schema (python-jsonschema would die with
  ``RecursionError``, ``AttributeError`` or ``TypeError``);
* ``multipleOf`` is exact on decimals (``19.99`` is a multiple of ``0.01``);
* ``pattern`` follows ECMA-262 (``\\d`` and ``\\b`` are ASCII, ``$`` is the very end, ``(?<name>…)`` and ``\\p{L}``
  work, what ECMA-262 refuses is refused) and runs with a wall-clock time budget, so a catastrophic pattern
  gives a clear error in bounded time — once per compiled schema, not once per value;
* every error points at the offending member itself (``/extra``, ``/missing``), not at its parent, and carries a
  plain message that shows values as JSON;
* a value as deep as the parse layer allows (100 levels) is validated however many recursion steps the
  reference engine needs per level; any exception the engines should not raise becomes a :class:`SchemaInvalid`
  ("this schema cannot be used …") instead of an error page.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import threading
import time
import uuid as _uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Context, Decimal, DivisionByZero, InvalidOperation
from fractions import Fraction
from ipaddress import IPv4Address, IPv6Address
from typing import Any, TypeVar
from urllib.parse import unquote, urldefrag, urljoin

import jsonschema_rs
import referencing
import referencing.exceptions
import referencing.jsonschema
import regex
from jsonschema import FormatChecker, ValidationError, validators
from jsonschema import exceptions as js_exceptions
from jsonschema_specifications import REGISTRY as METASCHEMAS

from webapp.core.json import pointer as jp
from webapp.core.json.text import json_type, quote

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
    """A value nested deeper than :data:`MAX_INSTANCE_DEPTH` (the engines recurse; the Rust one would crash)."""


class PatternTimeout(SchemaInvalid):
    """A ``pattern`` needed more than :data:`PATTERN_BUDGET_SECONDS` (wall clock) on one validation (catastrophic
    backtracking). The compiled schema remembers the pattern: later validations that reach it raise this at once
    (:attr:`CompiledSchema.catastrophic_patterns`)."""


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
    return quote(value, limit)


# --------------------------------------------------------------------------------------------------------------
# ECMA-262 patterns on the `regex` module

_HEX = re.compile(r"[0-9A-Fa-f]+")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_DIGITS = re.compile(r"[0-9]+")
_QUANTIFIER = re.compile(r"\{([0-9]+)(,([0-9]*))?\}")
_MAX_CODE_POINT = 0x10FFFF
# ECMA-262's class escapes (Unicode mode, no `i` flag; ECMA-262 §22.2.2.9) as code point ranges: \d and \w are
# ASCII; \s is WhiteSpace (TAB VT FF SP NBSP ZWNBSP and Zs) plus LineTerminator (LF CR LS PS) — not U+0085,
# which Python's \s includes.
_DIGIT_RANGES = ((0x30, 0x39),)
_WORD_RANGES = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE_RANGES = ((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
                 (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return tuple(out)


_CLASS_ESCAPES = {"d": _DIGIT_RANGES, "w": _WORD_RANGES, "s": _SPACE_RANGES, "D": _complement(_DIGIT_RANGES),
                  "W": _complement(_WORD_RANGES), "S": _complement(_SPACE_RANGES)}


def _aliases(table: str) -> dict[str, str]:
    """``"Long Short alias; …"`` -> every name mapped to the first (the name the ``regex`` module is given)."""
    names: dict[str, str] = {}
    for entry in table.split(";"):
        spellings = entry.split()
        names.update((name, spellings[0]) for name in spellings)
    return names


# Unicode property names ECMA-262 accepts in \p{…} (§22.2.2.9.1, tables "Non-binary Unicode property aliases"
# (General_Category values) and "Binary Unicode property aliases"), checked against V8. The `regex` module reads
# some short names otherwise (its IDC and VS are not ID_Continue and Variation_Selector), so it gets the first.
_GENERAL_CATEGORIES = _aliases(
    "C Other; Cc Control cntrl; Cf Format; Cn Unassigned; Co Private_Use; Cs Surrogate; L Letter; LC Cased_Letter; "
    "Ll Lowercase_Letter; Lm Modifier_Letter; Lo Other_Letter; Lt Titlecase_Letter; Lu Uppercase_Letter; "
    "M Mark Combining_Mark; Mc Spacing_Mark; Me Enclosing_Mark; Mn Nonspacing_Mark; N Number; Nd Decimal_Number "
    "digit; Nl Letter_Number; No Other_Number; P Punctuation punct; Pc Connector_Punctuation; Pd Dash_Punctuation; "
    "Pe Close_Punctuation; Pf Final_Punctuation; Pi Initial_Punctuation; Po Other_Punctuation; Ps "
    "Open_Punctuation; S Symbol; Sc Currency_Symbol; Sk Modifier_Symbol; Sm Math_Symbol; So Other_Symbol; "
    "Z Separator; Zl Line_Separator; Zp Paragraph_Separator; Zs Space_Separator")
_BINARY_PROPERTIES = _aliases(
    "ASCII; ASCII_Hex_Digit AHex; Alphabetic Alpha; Any; Assigned; Bidi_Control Bidi_C; Bidi_Mirrored Bidi_M; "
    "Case_Ignorable CI; Cased; Changes_When_Casefolded CWCF; Changes_When_Casemapped CWCM; Changes_When_Lowercased "
    "CWL; Changes_When_NFKC_Casefolded CWKCF; Changes_When_Titlecased CWT; Changes_When_Uppercased CWU; Dash; "
    "Default_Ignorable_Code_Point DI; Deprecated Dep; Diacritic Dia; Emoji; Emoji_Component EComp; Emoji_Modifier "
    "EMod; Emoji_Modifier_Base EBase; Emoji_Presentation EPres; Extended_Pictographic ExtPict; Extender Ext; "
    "Grapheme_Base Gr_Base; Grapheme_Extend Gr_Ext; Hex_Digit Hex; IDS_Binary_Operator IDSB; IDS_Trinary_Operator "
    "IDST; ID_Continue IDC; ID_Start IDS; Ideographic Ideo; Join_Control Join_C; Logical_Order_Exception LOE; "
    "Lowercase Lower; Math; Noncharacter_Code_Point NChar; Pattern_Syntax Pat_Syn; Pattern_White_Space Pat_WS; "
    "Quotation_Mark QMark; Radical; Regional_Indicator RI; Sentence_Terminal STerm; Soft_Dotted SD; "
    "Terminal_Punctuation Term; Unified_Ideograph UIdeo; Uppercase Upper; Variation_Selector VS; White_Space space; "
    "XID_Continue XIDC; XID_Start XIDS")
_PROPERTY_KEYS = {"General_Category": "gc", "gc": "gc", "Script": "sc", "sc": "sc", "Script_Extensions": "scx",
                  "scx": "scx"}
_SCRIPT_VALUE = re.compile(r"[A-Z][A-Za-z_]*\Z")  # Script values are capitalised (Latin, Latn, Old_Italic)
_SYNTAX_CHARACTERS = frozenset("^$\\.*+?()[]{}|/")
_CONTROL_ESCAPES = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}


def _char(code: int) -> str:
    """One code point as a literal for the ``regex`` module, inside or outside a character class."""
    if code < 0x80 and chr(code).isalnum():
        return chr(code)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _class_body(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges)


@dataclass(frozen=True)
class _EcmaRegex:
    """An ECMA-262 pattern, translated.

    :ivar source: the equivalent pattern for the ``regex`` module.
    :ivar rust_differs: the constructs on which ``jsonschema_rs`` answers differently from ECMA-262 (``\\b``,
        lookaround, backreference, Unicode property), comma-separated; ``""`` when it agrees.
    """

    source: str
    rust_differs: str


class _Translator:
    """ECMA-262 ``Pattern`` (Unicode mode, no flags) to the ``regex`` module's syntax, refusing what ECMA-262
    refuses (its early errors, §22.2.1.1): a pattern that is not ECMA-262 is a bad schema, never guessed at."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.i = 0
        self.out: list[str] = []
        self.differs: list[str] = []
        self.names: dict[str, int] = {}
        self.open_groups: list[int] = []   # numbers of the capturing groups being read
        self.opened = 0
        self.groups = self._count_groups()

    def fail(self, what: str, at: int) -> regex.error:
        return regex.error(f"{what} (at position {at})")

    def _count_groups(self) -> int:
        """Capturing groups and their names, read ahead (a backreference may come before its group)."""
        text, count, i, in_class = self.text, 0, 0, False
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                in_class = True
            elif ch == "(" and (not text.startswith("?", i + 1) or text.startswith("?<", i + 1)
                                and not text.startswith(("?<=", "?<!"), i + 1)):
                count += 1
                end = text.find(">", i + 3)
                if text.startswith("?<", i + 1) and end > 0:
                    name = self._group_name(text[i + 3:end], i + 3)
                    if name in self.names:
                        raise self.fail(f"duplicate group name {_show(name)}", i)
                    self.names[name] = count
            i += 1
        return count

    def _group_name(self, raw: str, at: int) -> str:
        """A RegExpIdentifierName (ID_Start, $ or _, then ID_Continue, $, ZWNJ, ZWJ; \\u escapes allowed)."""
        name = re.sub(r"\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})",
                      lambda m: chr(min(int(m.group(1) or m.group(2), 16), _MAX_CODE_POINT)), raw)
        plain = name.replace("$", "_")
        plain = plain[:1] + plain[1:].replace("\u200c", "_").replace("\u200d", "_")
        if not plain.isidentifier() or "\\" in name:
            raise self.fail(f"invalid group name {_show(raw)}", at)
        return name

    def translate(self) -> _EcmaRegex:
        text = self.text
        stack: list[str] = []       # what each open parenthesis is: "group", "capture", "lookaround"
        quantifiable = False        # whether a quantifier may follow what was just read
        while self.i < len(text):
            ch, at = text[self.i], self.i
            if ch == "\\":
                quantifiable = self._atom_escape()
            elif ch == "[":
                self._class()
                quantifiable = True
            elif ch == "(":
                stack.append(self._group())
                quantifiable = False
            elif ch == ")":
                if not stack:
                    raise self.fail("unmatched ')'", at)
                kind = stack.pop()
                if kind == "capture":
                    self.open_groups.pop()
                self.i += 1
                self.out.append(")")
                quantifiable = kind != "lookaround"  # Unicode mode: a lookaround cannot be repeated
            elif ch in "*+?{":
                quantifier = ch
                if ch == "{":
                    m = _QUANTIFIER.match(text, at)
                    if m is None:
                        raise self.fail("lone '{' (write \\{ for the character)", at)
                    low, high = int(m.group(1)), m.group(3)
                    if high and int(high) < low:
                        raise self.fail("numbers out of order in a {} quantifier", at)
                    quantifier = m.group()
                    self.i = m.end() - 1
                if not quantifiable:
                    raise self.fail(f"nothing to repeat before {_show(ch)}", at)
                self.i += 1
                if text.startswith("?", self.i):  # lazy
                    self.i += 1
                    quantifier += "?"
                self.out.append(quantifier)
                quantifiable = False
            elif ch in "}]":
                raise self.fail(f"lone {_show(ch)} (write \\{ch} for the character)", at)
            else:
                self.i += 1
                # no flags: ^ and $ are the ends of the string (Python's $ also matches before a final "\n"),
                # . is anything but a line terminator
                self.out.append({"^": "^", "$": "\\Z", ".": "[^\\n\\r\\u2028\\u2029]"}.get(ch, ch))
                quantifiable = ch not in "^$|"
        if stack:
            raise self.fail("missing ')'", len(text))
        return _EcmaRegex("".join(self.out), ", ".join(dict.fromkeys(self.differs)))

    def _group(self) -> str:
        text, at = self.text, self.i
        for opener in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if text.startswith(opener, at):
                self.i += len(opener)
                self.out.append(opener)
                if opener == "(?:":
                    return "group"
                self.differs.append("lookaround")
                return "lookaround"
        if text.startswith("(?<", at):
            end = text.find(">", at)
            if end < 0:
                raise self.fail("unterminated group name, as in (?<name>…)", at)
            self.i = end + 1  # the name was checked when groups were counted
        elif text.startswith("(?", at):
            raise self.fail("'(?' starts no ECMA-262 group (flags and other extensions are not ECMA-262)", at)
        else:
            self.i += 1
        self.opened += 1
        self.open_groups.append(self.opened)
        self.out.append("(")  # a named group is numbered like the others; \k<name> refers to it by number
        return "capture"

    def _atom_escape(self) -> bool:
        """An escape outside a character class; returns whether a quantifier may follow it."""
        text, at = self.text, self.i
        self.i += 1
        if self.i >= len(text):
            raise self.fail("'\\' at the end of the pattern", at)
        ch = text[self.i]
        if ch in "bB":
            self.i += 1
            self.out.append(f"(?a:\\{ch})")  # a word boundary of ASCII word characters, as \w
            self.differs.append(f"\\{ch}")
            return False
        if ch in _CLASS_ESCAPES:
            self.i += 1
            self.out.append(f"[{_class_body(_CLASS_ESCAPES[ch])}]")
            return True
        if ch in "pP":
            self.out.append(self._property())
            return True
        if ch in "123456789":
            m = _DIGITS.match(text, self.i)
            assert m is not None
            if int(m.group()) > self.groups:
                raise self.fail(f"backreference \\{m.group()} to a group the pattern does not have", at)
            self.i = m.end()
            self._backreference(int(m.group()))
            return True
        if ch == "k":
            end = text.find(">", self.i) if text.startswith("<", self.i + 1) else -1
            name = self._group_name(text[self.i + 2:end], self.i + 2) if end > 0 else None
            if name not in self.names:
                raise self.fail("\\k must name a group of the pattern, as in \\k<name>", at)
            self.i = end + 1
            self._backreference(self.names[name])
            return True
        code = self._character_escape()
        if code is None:
            raise self.fail(f"\\{ch} is not an ECMA-262 escape", at)
        self.out.append(_char(code))
        return True

    def _backreference(self, number: int) -> None:
        # ECMA-262 §22.2.2.7.2: a group that has not matched (or is still open) matches the empty string;
        # Python's backreference would fail, so it is made conditional.
        self.out.append("(?:)" if number in self.open_groups else f"(?({number})\\{number})")
        self.differs.append("backreference")

    def _character_escape(self) -> int | None:
        """A CharacterEscape just after a backslash, as a code point (``None`` if it is none); moves past it."""
        text, i = self.text, self.i
        ch = text[i]
        if ch in _CONTROL_ESCAPES:
            self.i += 1
            return _CONTROL_ESCAPES[ch]
        if ch == "c":
            if not (text[i + 1:i + 2].isascii() and text[i + 1:i + 2].isalpha()):
                raise self.fail("\\c must be followed by a letter A-Z", i - 1)
            self.i += 2
            return ord(text[i + 1]) % 32
        if ch == "0":
            if i + 1 < len(text) and text[i + 1] in "0123456789":
                raise self.fail("\\0 followed by a digit (octal escapes are not ECMA-262 Unicode mode)", i - 1)
            self.i += 1
            return 0
        if ch == "x":
            if not _HEX2.match(text, i + 1):
                raise self.fail("\\x needs two hexadecimal digits", i - 1)
            self.i += 3
            return int(text[i + 1:i + 3], 16)
        if ch == "u":
            return self._unicode_escape(i)
        if ch in _SYNTAX_CHARACTERS:
            self.i += 1
            return ord(ch)
        return None

    def _unicode_escape(self, i: int) -> int:
        text = self.text
        if text.startswith("{", i + 1):
            end = text.find("}", i + 2)
            digits = text[i + 2:end] if end > 0 else ""
            if not _HEX.fullmatch(digits) or int(digits, 16) > _MAX_CODE_POINT:
                raise self.fail("\\u{…} needs a code point up to 10FFFF in hexadecimal", i - 1)
            self.i = end + 1
            return int(digits, 16)
        if not _HEX4.match(text, i + 1):
            raise self.fail("\\u needs four hexadecimal digits, or a code point as \\u{…}", i - 1)
        code = int(text[i + 1:i + 5], 16)
        self.i = i + 5
        low = text[self.i + 2:self.i + 6] if text.startswith("\\u", self.i) else ""
        if 0xD800 <= code <= 0xDBFF and _HEX4.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
            self.i += 6  # a surrogate pair written as two escapes is one code point in Unicode mode
            return 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        return code

    def _property(self) -> str:
        """``\\p{…}``/``\\P{…}`` (``self.i`` on the letter), checked against ECMA-262's names."""
        text, i = self.text, self.i
        end = text.find("}", i + 2) if text.startswith("{", i + 1) else -1
        if end < 0:
            raise self.fail(f"\\{text[i]} must be followed by a property in braces, as in \\p{{L}}", i - 1)
        body = text[i + 2:end]
        key, equals, value = body.partition("=")
        kind = _PROPERTY_KEYS.get(key) if equals else None
        if kind == "gc" and value in _GENERAL_CATEGORIES:
            name = f"gc={_GENERAL_CATEGORIES[value]}"
        elif kind in ("sc", "scx") and _SCRIPT_VALUE.match(value):
            name = f"{kind}={value}"
        elif not equals and key in _GENERAL_CATEGORIES:
            name = f"gc={_GENERAL_CATEGORIES[key]}"
        elif not equals and key in _BINARY_PROPERTIES:
            name = _BINARY_PROPERTIES[key]
        else:
            raise self.fail(f"unknown Unicode property \\{text[i]}{{{body}}}", i - 1)
        self.i = end + 1
        # the engines' Unicode versions differ (the `regex` module's is newer), so they disagree on newly
        # assigned characters
        self.differs.append("Unicode property")
        return f"\\{text[i]}{{{name}}}"

    def _class(self) -> None:
        """A character class (``self.i`` on ``[``), class escapes expanded to ranges."""
        text, at = self.text, self.i
        self.i += 1
        negated = text.startswith("^", self.i)
        self.i += negated
        parts: list[str] = []
        while True:
            if self.i >= len(text):
                raise self.fail("missing ']'", at)
            if text[self.i] == "]":
                self.i += 1
                break
            low, low_text = self._class_atom()
            if text.startswith("-", self.i) and not text.startswith("-]", self.i) and self.i + 1 < len(text):
                self.i += 1
                high, _ = self._class_atom()
                if low is None or high is None:
                    raise self.fail("a class escape such as \\d cannot end a range", at)
                if high < low:
                    raise self.fail("range out of order in a character class", at)
                parts.append(f"{_char(low)}-{_char(high)}")
            else:
                parts.append(low_text)
        if not parts:  # [] matches nothing, [^] any code point
            self.out.append(f"[\\x00-{_char(_MAX_CODE_POINT)}]" if negated else "(?!)")
        else:
            self.out.append("[" + "^" * negated + "".join(parts) + "]")

    def _class_atom(self) -> tuple[int | None, str]:
        """One ClassAtom: its code point (``None`` for a class escape) and its text for ``regex``."""
        text = self.text
        ch = text[self.i]
        self.i += 1
        if ch != "\\":
            return ord(ch), _char(ord(ch))
        if self.i >= len(text):
            raise self.fail("'\\' at the end of the pattern", self.i - 1)
        ch = text[self.i]
        if ch in "b-":
            self.i += 1
            return (0x08, _char(0x08)) if ch == "b" else (0x2D, _char(0x2D))
        if ch in _CLASS_ESCAPES:
            self.i += 1
            return None, _class_body(_CLASS_ESCAPES[ch])
        if ch in "pP":
            return None, self._property()
        code = self._character_escape()
        if code is None:
            raise self.fail(f"\\{ch} is not an ECMA-262 escape in a character class", self.i - 1)
        return code, _char(code)


@functools.lru_cache(maxsize=4096)
def _translate(pattern: str) -> _EcmaRegex:
    """:raises regex.error: when ``pattern`` is not an ECMA-262 regular expression (Unicode mode)."""
    return _Translator(pattern).translate()


def ecma_pattern(pattern: str) -> str:
    """Translate an ECMA-262 regular expression (Unicode mode, no flags) to the ``regex`` module's syntax.

    JSON Schema says ``pattern`` is ECMA-262 (2020-12 core §6.4); read as Unicode mode, as ``\\p{L}`` needs. The
    differences from Python that change answers: ``\\d``, ``\\w`` and ``\\b`` are ASCII; ``\\s`` is ECMA's set (with
    U+FEFF, without U+0085), also inside a class, as are ``\\D``, ``\\W``, ``\\S``; ``.`` does not match line
    terminators; ``$`` matches only at the very end; a backreference to a group that has not matched matches the
    empty string; ``\\u{1F600}`` and ``\\uD83D\\uDE00`` are one code point; ``\\cJ``, ``[^]``, ``[]``, ``\\k<name>``.
    What ECMA-262 refuses is refused (``\\Z``, ``\\-`` outside a class, ``(?i)``, a lone ``{``, ``a{2,1}`` …).

    Known limits: a backreference to a group captured in an earlier iteration of a repetition keeps that capture
    (ECMA-262 resets it); ``Script=`` values are checked by the ``regex`` module's looser spelling rules.

    :param pattern: the pattern as written in the schema.
    :return: an equivalent pattern for ``regex.compile``.
    :raises regex.error: when ``pattern`` is not an ECMA-262 regular expression; the message names the position.
    """
    return _translate(pattern).source


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
# How long (seconds of CPU) a search runs in the calling thread before it moves to a watched thread.
_INLINE_SEARCH_SECONDS = 0.02


def _search(pattern: str, text: str, where: Callable[[], str]) -> bool:
    """``pattern`` (ECMA) found in ``text``, within the current validation's time budget (wall clock).

    The ``regex`` module's ``timeout`` counts the CPU time of the search, so on a busy machine a 1 s budget
    took 2 s and more of wall time. A search still running after :data:`_INLINE_SEARCH_SECONDS` is therefore
    run again in a helper thread (which releases the GIL) and waited for until the deadline, no longer.
    A pattern that ran out of time is remembered on the compiled schema being validated: later validations
    reaching it answer at once.

    :raises PatternTimeout: when the budget runs out (catastrophic backtracking), or the pattern ran out of time
        before on this schema; ``where()`` names the place.
    """
    compiled = _compile_pattern(pattern)
    owner = _current.owner
    if owner is not None and pattern in owner.catastrophic_patterns:
        raise _pattern_timeout(pattern, len(text), where(), again=True)
    deadline = _budget.deadline or time.monotonic() + PATTERN_BUDGET_SECONDS
    remaining = deadline - time.monotonic()
    try:
        return compiled.search(text, timeout=max(min(remaining, _INLINE_SEARCH_SECONDS), 0.001)) is not None
    except TimeoutError:
        pass
    found = _search_watched(compiled, text, deadline) if remaining > _INLINE_SEARCH_SECONDS else None
    if found is not None:
        return found
    if owner is not None:
        owner.catastrophic_patterns.add(pattern)  # at most one entry per distinct pattern of the schema
    raise _pattern_timeout(pattern, len(text), where(), again=False)


def _search_watched(compiled: Any, text: str, deadline: float) -> bool | None:
    """``compiled.search(text)`` in a helper thread, waited for until ``deadline`` (``time.monotonic()``);
    ``None`` when it did not finish in time. The helper's own CPU timeout ends it soon after."""
    result: list[bool] = []
    done = threading.Event()

    def run() -> None:
        try:
            result.append(compiled.search(text, timeout=max(deadline - time.monotonic(), 0.001),
                                          concurrent=True) is not None)
        except TimeoutError:
            pass
        finally:
            done.set()

    threading.Thread(target=run, name="pattern-search", daemon=True).start()
    done.wait(max(deadline - time.monotonic(), 0.0))
    return result[0] if result else None


def _pattern_timeout(pattern: str, length: int, where: str, *, again: bool) -> PatternTimeout:
    when = ("ran out of time on an earlier value, so it is not run again for this schema"
            if again else f"needs more than {PATTERN_BUDGET_SECONDS:g} s on a value of {length} characters")
    return PatternTimeout(f"pattern {_show(pattern)} {when} (catastrophic backtracking); rewrite it without "
                          f"nested or overlapping repetition such as (a+)+", where, "pattern")


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
        # $recursiveRef is 2019-09's only (python-jsonschema and the Rust engine follow $dynamicRef in 2019-09 too)
        if isinstance(ref, str) and (ref_keyword != "$recursiveRef" or ref_keyword in validator.VALIDATORS):
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
    if isinstance(prefix, list) and "prefixItems" in validator.VALIDATORS:  # 2020-12's
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
# Keywords of older dialects the Rust engine still applies in 2019-09 and 2020-12, where they are no keywords
# (2019-09 split `dependencies` into dependentRequired and dependentSchemas): a schema using one is validated by
# python-jsonschema alone, which ignores it as the dialect says.
_RUST_APPLIES_ANYWAY = ("dependencies",)


@functools.lru_cache(maxsize=None)
def _subschema_keywords(dialect_uri: str) -> frozenset[str]:
    """The keywords of :data:`_SUBSCHEMAS` that hold subschemas in this dialect, as python-jsonschema's
    ``referencing`` sees them (draft-07 has no ``$defs``: a ``$id`` under it is no resource there, and a schema
    under it is one only when a ``$ref`` points at it)."""
    spec = referencing.jsonschema.specification_with(dialect_uri)
    probe: dict[str, Any] = {}
    known = set()
    for keyword, shape in _SUBSCHEMAS.items():
        value = {"map": {"x": probe}, "list": [probe]}.get(shape, probe)
        if any(found is probe for found in spec.subresources_of({keyword: value})):
            known.add(keyword)
    return frozenset(known)


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
        self.keywords = _subschema_keywords(dialect.uri)
        # keywords the Rust engine applies where this dialect has none of that name: (pointer, keyword)
        self.rust_differs: list[tuple[str, str]] = []
        self.patterns: list[tuple[str, str]] = []  # (pointer of the pattern, ECMA pattern)
        # $ref targets that are no subschema of the document (e.g. under "const"): (target, place of the $ref)
        self.foreign_targets: list[tuple[str, str]] = []
        self._walk(schema, "", _ROOT_BASE, 0)

    def _walk(self, node: Any, where: str, base: str, depth: int) -> None:
        dialect_keywords = self.dialect.python.VALIDATORS
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
            target, fragment = _join_uri(base, new_id, jp.child(where, self.dialect.id_keyword),
                                         self.dialect.id_keyword)
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
        for keyword in _RUST_APPLIES_ANYWAY:
            if keyword in node and keyword not in dialect_keywords:
                self.rust_differs.append((jp.child(where, keyword), keyword))
        if isinstance(node.get("pattern"), str):
            self.patterns.append((jp.child(where, "pattern"), node["pattern"]))
        if isinstance(node.get("patternProperties"), dict):
            here = jp.child(where, "patternProperties")
            self.patterns.extend((jp.child(here, key), key) for key in node["patternProperties"])
        for keyword in _REF_KEYWORDS:
            ref = node.get(keyword)
            if isinstance(ref, str):
                self.refs.append((where, keyword, ref, base))
        if "$ref" in node and not isinstance(node["$ref"], str):  # draft-04's metaschema does not say so
            raise SchemaInvalid(f"$ref must be a string (a URI reference), not {json_type(node['$ref'])}",
                                jp.child(where, "$ref"), "$ref")
        edges = self.edges.setdefault(where, [])
        for keyword, value in node.items():
            shape = _SUBSCHEMAS.get(keyword) if keyword in self.keywords else None
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

        :raises SchemaInvalid: remote (outside this document) or dangling reference, or one whose target is no
            schema (JSON Schema 2020-12 core §8.2.3.1: a reference's target is a schema — an object or a boolean).
        """
        place = jp.child(where, keyword)
        target, fragment = _join_uri(base, ref, place, keyword)
        if target not in self.resources:
            if target in METASCHEMAS:
                self._check_metaschema_target(ref, target, fragment, place, keyword)
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
            if not isinstance(value, (dict, bool)):
                raise SchemaInvalid(f"{keyword} {_show(ref)} points at {pointer or '(root)'}, which is "
                                    f"{json_type(value)} {_show(value, 40)}, not a schema (an object or a "
                                    f"boolean)", place, keyword)
            if pointer not in self.nodes:
                self.foreign_targets.append((pointer, place))
                self._walk(value, pointer, target, 0)
            return pointer
        found = self.anchors.get((target, fragment))
        if found is None:
            raise SchemaInvalid(f"{keyword} {_show(ref)}: no $anchor named {_show(fragment)} in this schema",
                                place, keyword)
        return found

    @staticmethod
    def _check_metaschema_target(ref: str, target: str, fragment: str, place: str, keyword: str) -> None:
        """A reference into a bundled metaschema must name a schema in it, as the reference engine will look it
        up (its ``referencing`` registry). :raises SchemaInvalid: otherwise."""
        try:
            found = _PY_REGISTRY.resolver().lookup(f"{target}#{fragment}" if fragment else target).contents
        except referencing.exceptions.Unresolvable:
            found = None
        if not isinstance(found, (dict, bool)):
            raise SchemaInvalid(f"{keyword} {_show(ref)} names nothing that is a schema in the official "
                                f"metaschema {_show(target)}", place, keyword)

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


def _join_uri(base: str, reference: str, place: str, keyword: str) -> tuple[str, str]:
    """``reference`` resolved against ``base`` (RFC 3986 §5), split into (URI without fragment, fragment).

    :raises SchemaInvalid: when ``reference`` is not a URI reference (e.g. ``http://[``)."""
    try:
        target, fragment = urldefrag(urljoin(base, reference))
    except ValueError as exc:
        raise SchemaInvalid(f"{keyword} {_show(reference)} is not a valid URI reference ({exc})", place,
                            keyword) from None
    return target, fragment


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
    owner: CompiledSchema | None = None   # the schema being validated (for its remembered patterns)


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
    :ivar catastrophic_patterns: the patterns that ran out of time on this schema (see :class:`PatternTimeout`).
    """

    def __init__(self, schema: Any, *, format_assertion: bool = False) -> None:
        self.schema = schema
        dialect = _dialect_of(schema)
        self._dialect = dialect
        self.dialect = dialect.uri
        self.dialect_name = dialect.name
        self.format_assertion = format_assertion
        self.checked_formats: tuple[str, ...] = tuple(sorted(FORMAT_CHECKERS)) if format_assertion else ()
        # Patterns that ran out of time on this schema (PatternTimeout): later validations reaching one answer at
        # once instead of spending the budget again. At most one entry per distinct pattern of the schema.
        self.catastrophic_patterns: set[str] = set()
        # The reference engine works on its own copy, in which `false` subschemas below a member or an item
        # become {"not": {}}: python-jsonschema drops the member from the error path of a bare `false`.
        working = json.loads(json.dumps(schema))
        self._analysis = _Analysis(working, dialect)  # first: it enforces the depth limit
        rust_differs = self._check_patterns()
        self._check_metaschema(self.schema)
        self._analysis.check_references()
        for target, place in self._analysis.foreign_targets:
            self._check_metaschema(jp.resolve(self.schema, target), target, place)
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
        if rust_differs:
            pointer, pattern, constructs = rust_differs
            self.fast_path_note = (f"the pattern {_show(pattern)} at {pointer} uses {constructs}, on which the Rust "
                                   f"engine's answers differ from ECMA-262; python-jsonschema validates it alone")
            return
        if self._analysis.rust_differs:
            pointer, keyword = self._analysis.rust_differs[0]
            self.fast_path_note = (f"{keyword} at {pointer} is no {dialect.name} keyword, but the Rust engine "
                                   f"applies it; python-jsonschema validates this schema alone")
            return
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

    def _check_patterns(self) -> tuple[str, str, str] | None:
        """Every ``pattern`` and ``patternProperties`` name must be ECMA-262 (also where the metaschema does not
        say so, as draft-04's ``patternProperties``). Returns the first (pointer, pattern, constructs) on which
        the Rust engine differs from ECMA-262, or ``None``.

        :raises SchemaInvalid: naming the pattern and what is wrong with it."""
        differs = None
        for pointer, pattern in self._analysis.patterns:
            keyword = "pattern" if pointer.endswith("/pattern") else "patternProperties"
            try:
                translated = _translate(pattern)
            except regex.error as exc:
                raise SchemaInvalid(f"{_show(pattern)} is not a valid ECMA-262 regex: {exc}", pointer,
                                    keyword) from None
            try:
                _compile_pattern(pattern)
            except regex.error as exc:  # e.g. a Unicode property the `regex` module does not know
                raise SchemaInvalid(f"the regex {_show(pattern)} cannot be run by this validator: "
                                    f"{getattr(exc, 'msg', exc)}", pointer, keyword) from None
            if translated.rust_differs and differs is None:
                differs = (pointer, pattern, translated.rust_differs)
        return differs

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

    def _check_metaschema(self, value: Any, where: str = "", referenced_from: str | None = None) -> None:
        """``value`` (the schema, or a ``$ref`` target at ``where``) against the dialect's metaschema.

        :raises SchemaInvalid: at the offending place, with the metaschema's best-matching complaint."""
        validator = self._dialect.python(self._dialect.python.META_SCHEMA, registry=_PY_REGISTRY,
                                         format_checker=_METASCHEMA_FORMATS)
        try:
            errors = list(validator.iter_errors(value))
        except RecursionError:
            raise SchemaInvalid("the schema is nested too deeply to check", where) from None
        if errors:
            best = js_exceptions.best_match(errors)
            place = where + jp.join(best.absolute_path)
            keyword = best.path[-1] if best.path and isinstance(best.path[-1], str) else None
            what = (f"{place or '(root)'}, which the $ref at {referenced_from} uses as a schema, is not a valid "
                    f"{self.dialect_name} schema" if referenced_from is not None
                    else f"not a valid {self.dialect_name} schema")
            raise SchemaInvalid(f"{what}: {_message(best, _keyword_of(best))}", place, keyword)

    # -- validation ------------------------------------------------------------------------------------------
    # The reference engine recurses (a few frames per schema step per level of the value): a value the parse
    # layer allows (100 levels) can need more than Python's default 1000 frames. Such values are validated in
    # a helper thread with a big stack and a higher recursion limit (see _deep_call). Any other failure of the
    # engines is the schema's: SchemaInvalid "this schema cannot be used …" (see _engine_failure).

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` (plain JSON values) is valid.

        :raises PatternTimeout: only when the Rust engine cannot answer and a pattern is catastrophic.
        :raises InstanceTooDeep: for a value nested deeper than :data:`MAX_INSTANCE_DEPTH` (never for a value of
            100 levels or fewer, which is what the parse layer lets through).
        :raises SchemaInvalid: when the engines fail on this schema and value in a way they should not ("this
            schema cannot be used …": a bug or limit of python-jsonschema, referencing or jsonschema_rs).
        """
        depth = _instance_depth(instance)
        rust = self._rust
        if rust is not None:
            try:
                return bool(rust.is_valid(instance))
            except Exception:  # noqa: BLE001 - values the Rust side cannot take: ask the reference engine
                pass
        return self._guarded(instance, depth, lambda deadline: next(self._iter_python(instance, deadline),
                                                                     None) is None)

    def reference_is_valid(self, instance: Any) -> bool:
        """python-jsonschema's answer alone (the reference semantics, with our fixes), guarded as
        :meth:`is_valid`.

        :raises PatternTimeout: when a ``pattern`` backtracks catastrophically on this instance.
        """
        return self._guarded(instance, _instance_depth(instance),
                             lambda deadline: next(self._iter_python(instance, deadline), None) is None)

    def fast_is_valid(self, instance: Any) -> bool | None:
        """The Rust engine's answer alone; ``None`` when it is not used for this schema."""
        return None if self._rust is None else bool(self._rust.is_valid(instance))

    def _iter_python(self, instance: Any, deadline: float | None = None) -> Iterator[ValidationError]:
        previous = (_budget.deadline, _current.analysis, _current.owner)
        _budget.deadline = time.monotonic() + PATTERN_BUDGET_SECONDS if deadline is None else deadline
        _current.analysis, _current.owner = self._analysis, self
        try:
            yield from self._python.iter_errors(instance)
        finally:
            _budget.deadline, _current.analysis, _current.owner = previous

    def _guarded(self, instance: Any, depth: int, work: Callable[[float], _T]) -> _T:
        """``work(deadline)`` — reference-engine work on ``instance`` — with enough stack for the value's
        ``depth``, and one pattern budget whichever thread runs it.

        :raises SchemaInvalid: when even the helper thread's recursion limit is not enough, or the engines fail.
        """
        deadline = time.monotonic() + PATTERN_BUDGET_SECONDS
        try:
            if depth <= _INLINE_DEPTH:
                try:
                    return work(deadline)
                except RecursionError:
                    pass
            return _deep_call(work, deadline)
        except (SchemaInvalid, InstanceTooDeep):
            raise
        except RecursionError:
            raise SchemaInvalid(f"this schema cannot be evaluated on a value nested {depth} levels deep: the "
                                f"reference engine needs more than {_DEEP_RECURSION_LIMIT} nested steps; simplify "
                                f"the $ref chains the value goes through") from None
        except Exception as exc:  # noqa: BLE001 - the documented safety net, see _engine_failure
            raise _engine_failure(exc, "on this value") from None

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        """Every error, in python-jsonschema's order (computed at once, then yielded).

        :raises PatternTimeout: when a ``pattern`` backtracks catastrophically on this instance.
        :raises InstanceTooDeep, SchemaInvalid: as :meth:`is_valid`.
        """
        raw = self._guarded(instance, _instance_depth(instance),
                            lambda deadline: [self._convert(e) for e in self._iter_python(instance, deadline)])
        yield from raw

    def errors(self, instance: Any) -> list[SchemaError]:
        """All errors, the most relevant first (python-jsonschema's ``best_match`` preferences; ties keep the
        schema's and the document's order). When the reference engine gives up on a catastrophic ``pattern``,
        the Rust engine (linear-time matching) explains the errors instead.

        :raises PatternTimeout: when no engine can evaluate a ``pattern`` on this instance.
        :raises InstanceTooDeep, SchemaInvalid: as :meth:`is_valid`.
        """
        def work(deadline: float) -> list[SchemaError]:
            raw = list(self._iter_python(instance, deadline))
            return [self._convert(e) for e in sorted(raw, key=_relevance, reverse=True)]

        try:
            return self._guarded(instance, _instance_depth(instance), work)
        except PatternTimeout:
            if self._rust is None:
                raise
            # The reference engine backtracks catastrophically; the Rust engine matches patterns in linear
            # time, so its answer stands and its errors explain it.
            try:
                return self._rust_errors(instance)
            except SchemaInvalid:
                raise
            except Exception as exc:  # noqa: BLE001 - the documented safety net, see _engine_failure
                raise _engine_failure(exc, "on this value") from None

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


def _instance_depth(instance: Any) -> int:
    """Nesting of arrays/objects in ``instance`` (a scalar is 0, ``[]`` is 1), counted without recursion.

    :raises InstanceTooDeep: beyond :data:`MAX_INSTANCE_DEPTH`."""
    if not isinstance(instance, (dict, list)):
        return 0
    deepest = 1
    stack: list[tuple[Any, int]] = [(instance, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_INSTANCE_DEPTH:
            raise InstanceTooDeep(f"the value is nested deeper than {MAX_INSTANCE_DEPTH} levels")
        deepest = max(deepest, depth)
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


_T = TypeVar("_T")
# Values nested deeper than this are validated by the reference engine in a helper thread right away.
_INLINE_DEPTH = 24
# The helper thread: a stack far bigger than it needs (virtual memory, committed as used; a frame of this
# engine takes a few hundred bytes of it), and the recursion limit raised while it runs. The limit is process-
# wide in Python 3.11: kept moderate, so that other threads (8 MB stacks) still stop at RecursionError.
_DEEP_STACK_BYTES = 128 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 20_000
_deep_lock = threading.Lock()


def _deep_call(work: Callable[[float], _T], deadline: float) -> _T:
    """``work(deadline)`` in a helper thread with a big stack and a raised recursion limit (one at a time).

    :raises: whatever ``work`` raises (``RecursionError`` when even this is not enough).
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, work(deadline)))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome.append((False, exc))

    helper = threading.Thread(target=run, name="schema-deep-value", daemon=True)
    with _deep_lock:
        previous_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous_limit, _DEEP_RECURSION_LIMIT))
        try:
            previous_stack = threading.stack_size(_DEEP_STACK_BYTES)  # read when the thread starts
            try:
                helper.start()
            finally:
                threading.stack_size(previous_stack)
            helper.join()
        finally:
            sys.setrecursionlimit(previous_limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


# Set by tests that must see the engines' own exceptions instead of the safety net's SchemaInvalid.
STRICT_ENGINE_ERRORS = False


def _engine_failure(exc: Exception, where: str) -> SchemaInvalid:
    """The safety net: an exception python-jsonschema, referencing or jsonschema_rs should not have raised, as
    the schema's problem ("this schema cannot be used …"). Nothing is logged and no traceback is shown: the
    exception's type and first words are the message. (Known failures are caught where they happen, with
    precise messages; this only keeps an unknown one from becoming a 500.)

    :raises Exception: ``exc`` itself when :data:`STRICT_ENGINE_ERRORS` is set (tests)."""
    if STRICT_ENGINE_ERRORS:
        raise exc
    detail = " ".join(str(exc).split())
    if len(detail) > 160:
        detail = detail[:159] + "…"
    problem = SchemaInvalid(f"this schema cannot be used{' ' + where if where else ''}: the validator failed with "
                            f"{exc.__class__.__name__}" + (f" ({detail})" if detail else ""))
    problem.unexpected = exc.__class__.__name__
    return problem


def _relevance(error: ValidationError) -> tuple[Any, ...]:
    """python-jsonschema's ``best_match`` preferences (deeper, not anyOf/oneOf, matching the type) without its
    tie-break on the path, so equally relevant errors keep the order of the schema and the document."""
    return (len(error.path), error.validator not in js_exceptions.WEAK_MATCHES,
            error.validator in js_exceptions.STRONG_MATCHES, not error._matches_type())


# --------------------------------------------------------------------------------------------------------------
# Compile once


_cache: OrderedDict[tuple[str, bool], CompiledSchema | SchemaInvalid] = OrderedDict()
_by_identity: OrderedDict[tuple[int, bool], tuple[Any, CompiledSchema | SchemaInvalid]] = OrderedDict()
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
    except Exception as exc:  # noqa: BLE001 - the documented safety net, see _engine_failure
        result = _engine_failure(exc, "")
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return result
