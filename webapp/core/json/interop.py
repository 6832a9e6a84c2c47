"""Valid JSON that will still bite: the warnings, and what I-JSON (RFC 7493 §2) makes errors of them.

RFC 8259 leaves some texts to the parser's mercy (§4 duplicate names, §6 numbers beyond what a 64-bit double
holds, §8.2 unpaired surrogates); I-JSON forbids them and Unicode noncharacters. :class:`Warnings` is what the
:class:`~webapp.core.json.scan.Scanner` hands each member name, non-ASCII string and long number to; with
``ijson`` it raises instead of warning. :func:`may_warn` is the cheap look that decides whether a text needs that
scan at all, and :func:`bounded_warnings` keeps a big document's warnings to bounded time: located exactly in its
first part, counted in the rest from C-speed scans of its bytes.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial
from itertools import islice

from webapp.core.json import pointer as jpointer
from webapp.core.json.bytes import neutral_escapes, outside_strings, outside_test
from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.positions import Lines
from webapp.core.json.scan import Scanner
from webapp.core.json.show import quote, shorten

__all__ = [
    "ESCAPE_SUSPECT",
    "MAX_COUNTED",
    "MAX_SAFE_INTEGER",
    "MAX_WARNINGS",
    "PRECISE_WARNINGS_LIMIT",
    "RAW_SUSPECT",
    "JSONWarning",
    "Warnings",
    "bounded_warnings",
    "integer_tokens",
    "may_warn",
    "number_nines",
]

#: JavaScript's ``Number.MAX_SAFE_INTEGER`` (2^53 - 1): larger integers lose digits in ``JSON.parse``.
MAX_SAFE_INTEGER = 2**53 - 1
#: Warnings listed per document; the rest are counted in one last warning.
MAX_WARNINGS = 200
#: Documents longer than this (characters) get their warnings located exactly in the first eighth of this length
#: and counted after it, so a 45 MB document is not read token by token in Python.
PRECISE_WARNINGS_LIMIT = 2_000_000
#: Cases counted per warning code in a big document (each costs a little Python); beyond: "at least".
MAX_COUNTED = 10_000


@dataclass(frozen=True)
class JSONWarning:
    """Valid JSON that will still bite: the text is kept, the reader is told.

    ``code``: ``duplicate_key``, ``big_integer`` (outside ±(2^53 - 1)), ``number_overflow`` (beyond a 64-bit
    double), ``number_underflow`` (a non-zero number that reads as 0), ``lone_surrogate``, ``noncharacter``,
    ``lookalike_keys`` (member names equal after Unicode normalisation), ``bom_stripped``, ``more_warnings``.
    ``pointer`` is the RFC 6901 pointer of the value concerned; ``line``/``column`` are 1-based.
    """

    code: str
    message: str
    pointer: str
    line: int
    column: int


_NONCHARS = "\ufdd0-\ufdef\ufffe\uffff" + "".join(
    f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(1, 17)
)
_NONCHAR = re.compile(f"[{_NONCHARS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPES = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)|[\ud800-\udfff]", re.S)


class Warnings:
    """The warnings of one text, found by one scan (``Scanner(text, checks=Warnings(text, ...))``).

    :param ijson: what I-JSON forbids (duplicate names, unpaired surrogates, noncharacters, numbers beyond a
        double) raises :class:`JSONTextError` instead of warning (RFC 7493 §2).

    After the scan, :meth:`result` lists the warnings (at most :data:`MAX_WARNINGS`, then one ``more_warnings``)
    and :attr:`counts` tells how many of each code were found, listed or not.
    """

    def __init__(self, text: str, *, ijson: bool = False, first_line: int = 1) -> None:
        self.text = text
        self.ijson = ijson
        self.found: list[JSONWarning] = []
        self.counts: dict[str, int] = {}
        self.dropped = 0
        self.lines = Lines(text, first_line)  # places in the messages too: a JSON Lines record's in the whole text
        #: Called once when :data:`MAX_WARNINGS` are listed (a bounded scan may stop there: the rest is counted).
        self.when_full: Callable[[], None] | None = None

    def result(self) -> list[JSONWarning]:
        """The warnings in text order, and one ``more_warnings`` for those beyond :data:`MAX_WARNINGS`."""
        if self.dropped:
            return [
                *self.found,
                JSONWarning("more_warnings", f"{self.dropped:,} more warnings are not listed.", "", 1, 1),
            ]
        return list(self.found)

    def warn(self, code: str, message: str, pointer: str, offset: int) -> None:
        """Note warning ``code`` for the value at ``pointer`` found at character ``offset``."""
        self.counts[code] = self.counts.get(code, 0) + 1
        if len(self.found) >= MAX_WARNINGS:
            self.dropped += 1
            return
        line, col = self.lines.line_col(offset)
        self.found.append(JSONWarning(code, message, pointer, line, col))
        if len(self.found) == MAX_WARNINGS and self.when_full is not None:
            self.when_full()

    def forbidden(self, code: str, error: str, warning: str, pointer: str | None, offset: int) -> None:
        """What I-JSON forbids (RFC 7493 §2) is an error with ``ijson``, else a warning: the same place."""
        if self.ijson:
            raise JSONTextError(code, error, self.text, offset)
        self.warn(code, warning, pointer if pointer is not None else "", offset)

    def _where(self, offset: int) -> str:
        line, col = self.lines.line_col(offset)
        return f"line {line}, column {col}"

    # -- what the scanner hands over ----------------------------------------------------------------------
    def member(self, name: str, pos: int, names: dict[str, int], parent: str) -> None:
        """The member ``name`` starts at ``pos`` in the object ``parent``, whose names so far are ``names`` (name →
        offset; updated here)."""
        first = names.get(name)
        if first is not None:
            where = f"{self._where(first)} and {self._where(pos)}"
            self.forbidden(
                "duplicate_key",
                f"Duplicate member name {quote(name)} ({where}): I-JSON forbids "
                "duplicate names (RFC 7493 §2.3); which value counts depends on the parser.",
                f"Duplicate member name {quote(name)} at {where}: parsers keep the last value, so "
                "schema validation and diff see only the second one; other parsers may keep the first.",
                f"{parent}/{jpointer.escape(name)}",
                pos,
            )
        elif names and not name.isascii():
            self.lookalike(name, names, pos, parent)
        names[name] = pos

    def lookalike(self, name: str, names: dict[str, int], pos: int, parent: str) -> None:
        folded = unicodedata.normalize("NFC", name)
        for other, where in names.items():
            if other != name and unicodedata.normalize("NFC", other) == folded:
                self.warn(
                    "lookalike_keys",
                    f"Member names {quote(other)} ({self._where(where)}) and "
                    f"{quote(name)} ({self._where(pos)}) look identical but differ in Unicode "
                    "normalisation (NFC vs NFD): JSON treats them as two different names.",
                    f"{parent}/{jpointer.escape(name)}",
                    pos,
                )
                return

    def string(self, value: str, start: int, end: int, pointer: str | None) -> None:
        """The non-ASCII string ``value`` was read from ``text[start:end]`` (quotes included); ``pointer``:
        ``None`` for a member name."""
        if _SURROGATE.search(value):
            offset, code = _find_lone_surrogate(self.text, start + 1, end - 1)
            what = f"U+{code:04X}"
            self.forbidden(
                "lone_surrogate",
                f"Unpaired surrogate {what}: not a Unicode character, so I-JSON "
                "forbids it (RFC 7493 §2.1) and UTF-8 cannot encode it.",
                f"Unpaired surrogate {what}: not a Unicode character; UTF-8 cannot encode it and I-JSON "
                "forbids it (RFC 7493 §2.1). OpenAI and Anthropic reject requests holding one.",
                pointer,
                offset,
            )
        nonchar = _NONCHAR.search(value)
        if nonchar:
            ch = nonchar.group()
            offset = self.text.find(ch, start, end)
            if offset < 0:
                hit = (
                    re.compile(rf"\\u{ord(ch):04x}", re.I).search(self.text, start, end) if ord(ch) <= 0xFFFF else None
                )
                offset = hit.start() if hit else start
            what = f"U+{ord(ch):04X}"
            self.forbidden(
                "noncharacter",
                f"Unicode noncharacter {what}: I-JSON forbids noncharacters in strings (RFC 7493 §2.1).",
                f"Unicode noncharacter {what} in a string: I-JSON forbids it (RFC 7493 §2.1).",
                pointer,
                offset,
            )

    def integer(self, token: str, pos: int, pointer: str) -> None:
        """The integer ``token`` (16 digits or more) is at ``pos``."""
        if abs(int(token)) > MAX_SAFE_INTEGER:
            self.warn(
                "big_integer",
                f"Integer {shorten(token)} is beyond 2^53 (JavaScript's safe range is "
                f"±{MAX_SAFE_INTEGER:,}): a JavaScript client reads it as {_as_double(token)}. "
                "It is kept exactly as written here.",
                pointer,
                pos,
            )

    def real(self, token: str, pos: int, pointer: str) -> None:
        """The number ``token`` with an exponent, or of more than 17 characters, is at ``pos``."""
        number = float(token)
        if math.isinf(number):
            self.forbidden(
                "number_overflow",
                f"Number {shorten(token)} is beyond the range of a 64-bit double "
                "(±1.8e308): I-JSON forbids it (RFC 7493 §2.2), and parsers read it as Infinity or fail.",
                f"Number {shorten(token)} is beyond the range of a 64-bit double (±1.8e308): most "
                "parsers read it as Infinity, which JSON cannot write back. It is kept exactly as "
                "written here.",
                pointer,
                pos,
            )
        elif number == 0 and any(d in "123456789" for d in token.split("e")[0].split("E")[0]):
            self.warn(
                "number_underflow",
                f"Number {shorten(token)} is too small for a 64-bit double: most parsers "
                "read it as 0. It is kept exactly as written here.",
                pointer,
                pos,
            )


def _find_lone_surrogate(text: str, start: int, end: int) -> tuple[int, int]:
    """Offset and code point of the first unpaired surrogate in the raw string body ``text[start:end]``."""
    pending: tuple[int, int, int] | None = None  # (offset, code, end of the escape) of an unmatched high half
    for match in _ESCAPES.finditer(text, start, end):
        hexa = match.group(1)
        code = int(hexa, 16) if hexa else (ord(match.group()) if len(match.group()) == 1 else -1)
        if 0xDC00 <= code <= 0xDFFF and hexa and pending and pending[2] == match.start():
            pending = None  # a proper pair
            continue
        if pending:
            return pending[0], pending[1]
        if 0xD800 <= code <= 0xDBFF and hexa:
            pending = (match.start(), code, match.end())
        elif 0xD800 <= code <= 0xDFFF:
            return match.start(), code
    if pending:
        return pending[0], pending[1]
    return start, 0xD800  # not reached for a string that holds one


def _as_double(token: str) -> str:
    try:
        number = float(int(token))
    except OverflowError:
        return "Infinity"
    return f"{int(number)}"


# --------------------------------------------------------------------------------------------------------------
# The cheap look: hints that a scan has warnings to find (false positives only cost time)

#: Raw characters that may be what I-JSON forbids (surrogates, noncharacters). One range for the astral
#: noncharacters keeps this scan fast; a rare false hint only costs a closer look.
RAW_SUSPECT = re.compile("[\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff\U0001fffe-\U0010ffff]")
#: ``\u`` escapes that may be what I-JSON forbids.
ESCAPE_SUSPECT = re.compile(r"\\u(?:[dD][89a-fA-F]|[fF][dD][d-eD-E]|[fF]{3}[eEfF])")
_NUMBER_SUSPECT = re.compile(r"(?:^|[\[:,])[ \t\r\n]*-?(?:[0-9]{16}|[0-9][0-9.]*[eE][-+]?[0-9]{3})")
_COMBINING = re.compile("[\u0300-\u036f]")

# The same hints on the UTF-8 bytes, each with the bytes a match must start with (or, for the 4-byte forms, the lead
# bytes a match needs before it): a pattern runs only when one of them is present, found by a memchr-speed ``find``,
# so a big text without them costs a few finds instead of a pattern search each.
_FOUR_BYTE_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
_SURROGATE_BYTES = (re.compile(rb"\xed[\xa0-\xbf]"), (b"\xed",))  # a surrogate (UTF-8 written with surrogatepass)
_NONCHARACTER_BYTES = [
    (re.compile(rb"\xef\xb7[\x90-\xaf]"), (b"\xef",)),  # U+FDD0..U+FDEF
    (re.compile(rb"\xef\xbf[\xbe\xbf]"), (b"\xef",)),  # U+FFFE, U+FFFF
    (re.compile(rb"\xbf\xbf[\xbe\xbf]"), _FOUR_BYTE_LEADS),  # U+nFFFE, U+nFFFF (tail of the 4-byte form)
]
_COMBINING_BYTES = [
    (re.compile(rb"\xcc[\x80-\xbf]"), (b"\xcc",)),  # NFD member names
    (re.compile(rb"\xcd[\x80-\xaf]"), (b"\xcd",)),
]
_ESCAPE_BYTES = (re.compile(rb"\\u(?:[dD][89a-fA-F]|[fF][dD][d-eD-E]|[fF]{3}[eEfF])"), (b"\\u",))
_BYTE_HINTS = [_SURROGATE_BYTES, *_NONCHARACTER_BYTES, *_COMBINING_BYTES, _ESCAPE_BYTES]
_NUMBER_HINT = re.compile(rb"[0-9]{16}|[0-9][eE][-+]?[0-9]{3}")


def _holds(data: bytes, hints: Sequence[tuple[re.Pattern[bytes], tuple[bytes, ...]]]) -> bool:
    """Whether one of the ``(pattern, lead bytes)`` hints matches ``data``."""
    return any(any(lead in data for lead in leads) and pattern.search(data) is not None for pattern, leads in hints)


def may_warn(text: str, data: bytes | None = None) -> bool:
    """Whether ``text`` may hold something to warn about (long numbers, surrogates, noncharacters, NFD names):
    C-speed pattern searches; ``False`` means a :class:`Warnings` scan would find nothing.

    :param data: ``text`` as UTF-8 (``surrogatepass``) when already encoded.
    """
    if data is None and len(text) < 4096:  # small: the str patterns, no encoding
        if not text.isascii() and (RAW_SUSPECT.search(text) or _COMBINING.search(text)):
            return True
        if "\\u" in text and ESCAPE_SUSPECT.search(text):
            return True
        return _NUMBER_SUSPECT.search(text) is not None
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    return _holds(data, _BYTE_HINTS) or _NUMBER_HINT.search(data) is not None


# --------------------------------------------------------------------------------------------------------------
# A big document's warnings: located exactly in its first part, counted in the rest (bounded time). Each scan
# is a C loop over bytes: a literal-led pattern, or digits outside strings.

_NINE_DIGITS = bytes.maketrans(b"0123456789E", b"9999999999e")
_NINES = re.compile(rb"9+")
_LONG_EXPONENT = re.compile(rb"e[-+]?999")
_MANY_ZEROS = b"9" * 300
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_TOKEN = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|\\u[dD][c-fC-F][0-9a-fA-F]{2}|\xed[\xa0-\xbf][\x80-\xbf]"
)
_NUMBER_BYTES = frozenset(b"0123456789.-+eE")
# What may come just before a value outside strings (valid JSON): a number led by anything else is in a string.
_VALUE_BOUNDARY = frozenset(b"[,: \t\r\n")


def integer_tokens(
    source: bytes, digits: int, outside: Callable[[int], bool] | None = None, *, nines: bytes | None = None
) -> Iterator[str]:
    """The integer tokens of at least ``digits`` digits outside strings: in ``source``, the bytes between strings,
    or the whole text with ``outside`` telling which offsets lie outside strings
    (:func:`~webapp.core.json.bytes.outside_test`). Digits are mapped to ``9`` first (``nines``: that mapping of
    ``source``, when already made), so runs are found by a literal search (C speed) instead of a pattern tried at
    every byte; a run not led by what may come before a value is a string's, without counting quotes."""
    nines, run = number_nines(source) if nines is None else nines, b"9" * digits
    start = nines.find(run)
    while start != -1:
        end = _NINES.match(nines, start).end()  # type: ignore[union-attr]  # a run of 9s starts there
        before, after = source[start - 1 : start], source[end : end + 1]
        lead = start - (before == b"-")
        if (
            before not in (b".", b"e", b"E", b"+")
            and after not in (b".", b"e", b"E")
            and (lead == 0 or source[lead - 1] in _VALUE_BOUNDARY)
            and (outside is None or outside(start))
        ):  # else a float's digits, or a string's
            yield source[lead:end].decode("ascii")
        start = nines.find(run, end)


def number_nines(source: bytes) -> bytes:
    """``source`` with every digit mapped to ``9`` and ``E`` to ``e`` (what the number scans search)."""
    return source.translate(_NINE_DIGITS)


def _big_integers(
    source: bytes, outside: Callable[[int], bool] | None = None, *, nines: bytes | None = None
) -> Iterator[str]:
    """Integers beyond 2^53 outside strings (``source``, ``outside``, ``nines``: see :func:`integer_tokens`)."""
    return (token for token in integer_tokens(source, 16, outside, nines=nines) if abs(int(token)) > MAX_SAFE_INTEGER)


def _extreme_exponents(
    source: bytes, outside: Callable[[int], bool] | None = None, *, nines: bytes | None = None, finite: bool = False
) -> Iterator[tuple[str, str]]:
    """(code, token) of the numbers outside strings that overflow or underflow a double (exponent of 3 digits
    or more; found by a literal-led pattern once digits are mapped to ``9``). ``source``, ``outside``, ``nines``:
    as for :func:`integer_tokens`.

    :param finite: no number of the text overflows (orjson read it: it refuses those), so only underflows are
        looked for, and only when there may be one: a negative exponent of 3 digits or more, or hundreds of zeros
        (with an exponent of 0 or more, a number reads as 0 only with over 322 zeros after its point, as the
        smallest double is about 4.9e-324). Two literal searches then spare the pattern, which stops at every
        ``e`` of the text."""
    nines = number_nines(source) if nines is None else nines
    if finite and b"e-999" not in nines and _MANY_ZEROS not in nines:
        return
    for match in _LONG_EXPONENT.finditer(nines):
        start = match.start()
        while start > 0 and source[start - 1] in _NUMBER_BYTES:
            start -= 1
        if start > 0 and source[start - 1] not in _VALUE_BOUNDARY or outside is not None and not outside(start):
            continue  # a string's
        end = match.end()
        if nines[end : end + 1] == b"9":
            end = _NINES.match(nines, end).end()  # type: ignore[union-attr]  # a 9 is there, so the pattern matches
        token = source[start:end].decode("ascii")
        number = float(token)
        if math.isinf(number):
            yield "number_overflow", token
        elif number == 0 and any(d in "123456789" for d in token.split("e")[0].split("E")[0]):
            yield "number_underflow", token


_COUNTED = {
    "big_integer": "integers beyond 2^53",
    "number_overflow": "numbers beyond a 64-bit double",
    "number_underflow": "non-zero numbers that read as 0",
    "lone_surrogate": "unpaired surrogates",
    "noncharacter": "Unicode noncharacters",
}


def bounded_warnings(
    text: str,
    max_depth: int,
    duplicates: list[str],
    parts: list[bytes] | None = None,
    outside: bytes | None = None,
    data: bytes | None = None,
    limit: int = PRECISE_WARNINGS_LIMIT,
    neutral: bytes | Callable[[], bytes] | None = None,
    nines: bytes | None = None,
    first_line: int = 1,
    u_escapes: bool | None = None,
    finite: bool = False,
) -> list[JSONWarning]:
    """The warnings of a document longer than ``limit`` characters, in bounded time: C-speed scans of its bytes
    find what there is; when there is something, a :class:`Warnings` scan locates it in the first ``limit // 8``
    characters (or until :data:`MAX_WARNINGS` are listed), and what lies after is counted in one warning per code,
    at the line where the scan stopped.

    :param duplicates: the duplicate member names the fast path saw (each repetition once).
    :param parts: :func:`~webapp.core.json.bytes.split_strings` of ``data``, and ``outside`` its even parts joined
        with :data:`~webapp.core.json.bytes.STRING_MARK`, when already computed.
    :param data: ``text`` as UTF-8 (``surrogatepass``) when already encoded; ``neutral``: its
        :func:`~webapp.core.json.bytes.neutral_escapes` (when no parts are given), or a function that makes it
        when a number must be told apart from a string's (most texts never need it), and ``nines`` its
        :func:`number_nines`.
    :param first_line: the number of the text's first line (a JSON Lines record's), for the warnings' places.
    :param u_escapes: whether ``data`` holds a ``\\u`` escape, when the caller knows (``None``: looked for here);
        without one, no escaped surrogate needs looking for.
    :param finite: every number of the text is finite as a double (orjson read it), so none overflows.
    """
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    if outside is None and parts is not None:
        outside = outside_strings(parts)
    found: dict[str, list[str]] = {}
    # Numbers are looked for outside strings: in the bytes between strings when they were split already, else in
    # the whole text, the few candidates that a string might hold told apart by counting the quotes before them.
    if outside is not None:
        nines = number_nines(outside)
        big = list(islice(_big_integers(outside, nines=nines), MAX_COUNTED))
        extreme = list(islice(_extreme_exponents(outside, nines=nines, finite=finite), MAX_COUNTED))
    else:
        if neutral is None:
            neutral = cache(partial(neutral_escapes, data))  # made once, if a candidate needs it
        nines = number_nines(data) if nines is None else nines
        big = list(islice(_big_integers(data, outside_test(neutral), nines=nines), MAX_COUNTED))
        extreme = list(islice(_extreme_exponents(data, outside_test(neutral), nines=nines, finite=finite), MAX_COUNTED))
    if big:
        found["big_integer"] = big
    for code, token in extreme:
        found.setdefault(code, []).append(token)
    escaped_surrogates = (b"\\u" in data if u_escapes is None else u_escapes) and _ESCAPED_SURROGATE.search(
        data
    ) is not None
    if escaped_surrogates or _holds(data, [_SURROGATE_BYTES]):
        lone = [m.group() for m in islice(_SURROGATE_TOKEN.finditer(data), MAX_COUNTED * 2) if len(m.group()) != 12]
        if lone:
            found["lone_surrogate"] = ["" for _ in lone]
    if _holds(data, _NONCHARACTER_BYTES):
        found["noncharacter"] = [""]
    if not found and not duplicates and not _holds(data, _COMBINING_BYTES):
        return []
    checks = Warnings(text, first_line=first_line)
    scanner = Scanner(text, max_depth=max_depth, checks=checks, stop_at=limit // 8)
    checks.when_full = scanner.stop  # no more are listed: what follows is only counted
    scanner.run()
    warnings = checks.result()
    start = scanner.stopped_at
    if start is None:
        return warnings
    line = scanner.line_col(start)[0] + first_line - 1
    located = checks.counts
    for code, tokens in found.items():
        more = len(tokens) - located.get(code, 0)
        if code == "noncharacter" and not located.get(code):
            more = 1
        example = f" (e.g. {shorten(tokens[-1])})" if tokens[-1] else ""
        if more > 0:
            amount = (
                "Some"
                if code == "noncharacter"
                else f"At least {more:,}"
                if len(tokens) >= MAX_COUNTED
                else f"About {more:,}"
            )
            warnings.append(
                JSONWarning(
                    code,
                    f"{amount} more {_COUNTED[code]} after line {line:,}{example}: a "
                    f"document over {limit:,} characters is checked place by place only up to "
                    "there; the rest is counted.",
                    "",
                    line,
                    1,
                )
            )
    if len(duplicates) > located.get("duplicate_key", 0):
        names = ", ".join(quote(name) for name in list(dict.fromkeys(duplicates))[:20])
        warnings.append(
            JSONWarning(
                "duplicate_key",
                f"{len(duplicates):,} duplicate member names in all ({names}"
                f"{', …' if len(set(duplicates)) > 20 else ''}); those after line {line:,} are "
                "not located (a document this big is checked place by place only up to there). "
                "Parsers keep the last value of each.",
                "",
                line,
                1,
            )
        )
    return warnings
