"""ECMA-262 regular expressions (Unicode mode, no flags) translated to the ``regex`` module's syntax.

JSON Schema says ``pattern`` and ``patternProperties`` are ECMA-262 (2020-12 core §6.4). The translator refuses
what ECMA-262 refuses (its early errors, §22.2.1.1), says which constructs the Rust engine reads otherwise, and
measures what the pattern costs to compile (:attr:`EcmaRegex.cost`) before anything compiles it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import regex

from webapp.core.schema.errors import show

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
_SPACE_RANGES = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


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


_CLASS_ESCAPES = {
    "d": _DIGIT_RANGES,
    "w": _WORD_RANGES,
    "s": _SPACE_RANGES,
    "D": _complement(_DIGIT_RANGES),
    "W": _complement(_WORD_RANGES),
    "S": _complement(_SPACE_RANGES),
}


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
    "Z Separator; Zl Line_Separator; Zp Paragraph_Separator; Zs Space_Separator"
)
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
    "XID_Continue XIDC; XID_Start XIDS"
)
_PROPERTY_KEYS = {
    "General_Category": "gc",
    "gc": "gc",
    "Script": "sc",
    "sc": "sc",
    "Script_Extensions": "scx",
    "scx": "scx",
}
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
class EcmaRegex:
    """An ECMA-262 pattern, translated.

    :ivar source: the equivalent pattern for the ``regex`` module.
    :ivar rust_differs: the constructs on which ``jsonschema_rs`` answers differently from ECMA-262 (``\\b``,
        lookaround, backreference, Unicode property), comma-separated; ``""`` when it agrees.
    :ivar cost: the atoms (characters, classes, escapes, assertions, groups) the pattern expands to when every
        repetition is written out as many times as its lower bound says — ``(?:a{3000}){3000}`` is over 9 million.
        Regex compilers unroll counted repetitions (the ``regex`` module takes about 1 KiB and 5 µs per atom),
        so this is what compiling costs in memory and time; ``a*``, ``a?`` and ``a{0,9}`` count once.
    """

    source: str
    rust_differs: str
    cost: int


class _Translator:
    """ECMA-262 ``Pattern`` (Unicode mode, no flags) to the ``regex`` module's syntax, refusing what ECMA-262
    refuses (its early errors, §22.2.1.1): a pattern that is not ECMA-262 is a bad schema, never guessed at."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.i = 0
        self.out: list[str] = []
        self.differs: list[str] = []
        self.names: dict[str, int] = {}
        self.open_groups: list[int] = []  # numbers of the capturing groups being read
        self.opened = 0
        self.groups = self._count_groups()
        # cost (see EcmaRegex.cost): the atoms of each open group so far (the whole pattern first), and of the
        # last atom or group read, which a quantifier repeats
        self.costs: list[int] = [0]
        self.last_cost = 0

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
            elif ch == "(" and (
                not text.startswith("?", i + 1)
                or text.startswith("?<", i + 1)
                and not text.startswith(("?<=", "?<!"), i + 1)
            ):
                count += 1
                end = text.find(">", i + 3)
                if text.startswith("?<", i + 1) and end > 0:
                    name = self._group_name(text[i + 3 : end], i + 3)
                    if name in self.names:
                        raise self.fail(f"duplicate group name {show(name)}", i)
                    self.names[name] = count
            i += 1
        return count

    def _group_name(self, raw: str, at: int) -> str:
        """A RegExpIdentifierName (ID_Start, $ or _, then ID_Continue, $, ZWNJ, ZWJ; \\u escapes allowed)."""
        name = re.sub(
            r"\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})",
            lambda m: chr(min(int(m.group(1) or m.group(2), 16), _MAX_CODE_POINT)),
            raw,
        )
        plain = name.replace("$", "_")
        plain = plain[:1] + plain[1:].replace("\u200c", "_").replace("\u200d", "_")
        if not plain.isidentifier() or "\\" in name:
            raise self.fail(f"invalid group name {show(raw)}", at)
        return name

    def _atom(self, cost: int = 1) -> None:
        self.costs[-1] += cost
        self.last_cost = cost

    def translate(self) -> EcmaRegex:
        """The whole pattern, read once. :raises regex.error: at the first thing ECMA-262 refuses."""
        text = self.text
        stack: list[str] = []  # what each open parenthesis is: "group", "capture", "lookaround"
        quantifiable = False  # whether a quantifier may follow what was just read
        while self.i < len(text):
            ch, at = text[self.i], self.i
            if ch == "\\":
                quantifiable = self._atom_escape()
                self._atom()
            elif ch == "[":
                self._class()
                self._atom()
                quantifiable = True
            elif ch == "(":
                stack.append(self._group())
                self.costs.append(0)
                quantifiable = False
            elif ch == ")":
                if not stack:
                    raise self.fail("unmatched ')'", at)
                kind = stack.pop()
                if kind == "capture":
                    self.open_groups.pop()
                self.i += 1
                self.out.append(")")
                self._atom(self.costs.pop() + 1)
                quantifiable = kind != "lookaround"  # Unicode mode: a lookaround cannot be repeated
            elif ch in "*+?{":
                quantifier, low = ch, int(ch == "+")
                if ch == "{":
                    m = _QUANTIFIER.match(text, at)
                    if m is None:
                        raise self.fail("lone '{' (write \\{ for the character)", at)
                    low, high = _count(m.group(1)), m.group(3)
                    if high and _count(high) < low:
                        raise self.fail("numbers out of order in a {} quantifier", at)
                    quantifier = m.group()
                    self.i = m.end() - 1
                if not quantifiable:
                    raise self.fail(f"nothing to repeat before {show(ch)}", at)
                self.costs[-1] += self.last_cost * (max(low, 1) - 1)  # written out `low` times in all
                self.i += 1
                if text.startswith("?", self.i):  # lazy
                    self.i += 1
                    quantifier += "?"
                self.out.append(quantifier)
                quantifiable = False
            elif ch in "}]":
                raise self.fail(f"lone {show(ch)} (write \\{ch} for the character)", at)
            else:
                self.i += 1
                # no flags: ^ and $ are the ends of the string (Python's $ also matches before a final "\n"),
                # . is anything but a line terminator
                self.out.append({"^": "^", "$": "\\Z", ".": "[^\\n\\r\\u2028\\u2029]"}.get(ch, ch))
                quantifiable = ch not in "^$|"
                if ch != "|":
                    self._atom()
        if stack:
            raise self.fail("missing ')'", len(text))
        return EcmaRegex("".join(self.out), ", ".join(dict.fromkeys(self.differs)), self.costs[0])

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
            name = self._group_name(text[self.i + 2 : end], self.i + 2) if end > 0 else None
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
            if not (text[i + 1 : i + 2].isascii() and text[i + 1 : i + 2].isalpha()):
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
            return int(text[i + 1 : i + 3], 16)
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
            digits = text[i + 2 : end] if end > 0 else ""
            if not _HEX.fullmatch(digits) or int(digits, 16) > _MAX_CODE_POINT:
                raise self.fail("\\u{…} needs a code point up to 10FFFF in hexadecimal", i - 1)
            self.i = end + 1
            return int(digits, 16)
        if not _HEX4.match(text, i + 1):
            raise self.fail("\\u needs four hexadecimal digits, or a code point as \\u{…}", i - 1)
        code = int(text[i + 1 : i + 5], 16)
        self.i = i + 5
        low = text[self.i + 2 : self.i + 6] if text.startswith("\\u", self.i) else ""
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
        body = text[i + 2 : end]
        key, equals, value = body.partition("=")
        kind = _PROPERTY_KEYS.get(key) if equals else None
        if kind == "gc" and value in _GENERAL_CATEGORIES:
            name = f"gc={_GENERAL_CATEGORIES[value]}"
        elif kind in ("sc", "scx") and _SCRIPT_VALUE.match(value) and _known_script(kind, value):
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


def compile_uncached(source: str) -> Any:
    """``regex.compile(source)``, leaving nothing behind in the ``regex`` module: the app's own caches
    (``webapp.core.schema.cache``) are the ones bounded by bytes. The module keeps up to 500 compiled patterns of its
    own unless told not to (``cache_pattern=False``; 3 costly patterns held 1.4 GB there after the app's cache had
    dropped them), and remembers the source of every pattern it compiled, cached or not, until :func:`regex.purge`
    (no other code of the app compiles with the module, so purging costs nothing).

    :raises regex.error: when ``source`` is not a pattern of the ``regex`` module.
    """
    try:
        return regex.compile(source, cache_pattern=False)
    finally:
        regex.purge()


@functools.lru_cache(maxsize=1024)
def _known_script(kind: str, value: str) -> bool:
    """Whether the ``regex`` module knows this ``Script``/``Script_Extensions`` value (``kind`` ``sc``/``scx``): the
    one table of script names here, read while the pattern is, so that a pattern read without error compiles."""
    try:
        compile_uncached(f"\\p{{{kind}={value}}}")
    except regex.error:
        return False
    return True


def translate(pattern: str) -> EcmaRegex:
    """``pattern`` read as ECMA-262 (see :func:`ecma_pattern`): its ``regex`` source, where the Rust engine differs,
    and its compile cost. Linear in the pattern's length; compiles nothing.

    :raises regex.error: when ``pattern`` is not an ECMA-262 regular expression (Unicode mode); the message names
        the position.
    """
    return _Translator(pattern).translate()


def _count(digits: str) -> int:
    """A quantifier's count; beyond 18 digits (ECMA-262 allows any) it stands for "more than any engine takes"
    (``int`` refuses strings of more than 4,300 digits)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


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
    return translate(pattern).source
