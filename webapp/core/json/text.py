"""The strict JSON parse layer shared by every page and by the gate (RFC 8259, I-JSON RFC 7493).

Two speeds, one verdict:

* the **fast path** is CPython's C parser (``json.JSONDecoder``) with an ``object_pairs_hook`` that notices
  duplicate member names and a ``parse_constant`` that refuses ``NaN``/``Infinity``; cheap C-speed checks on the
  text (bracket counts, ``str.isascii``, small regexes) decide whether anything else needs a closer look;
* the **precise path** (:class:`_Analyser`, an iterative scanner: no recursion, so no ``RecursionError`` at any
  depth) runs only when the fast path failed or a cheap check fired. It names the real mistake (trailing comma,
  comment, single quotes, ``NaN``, BOM, unquoted key, truncated input, leading zero, bad escape, raw control
  character, extra data, ...) at its line:column with a caret excerpt, and finds the warnings with their places.

Python's own messages mislead (a trailing comma and a comment both read "Expecting property name enclosed in
double quotes"), so they are never shown as they are.

Big texts (over :data:`BIG_TEXT` characters) are parsed with the garbage collector paused, their nesting is
measured on the bytes between strings (:func:`split_strings`, reused by the formatter), and beyond
:data:`PRECISE_WARNINGS_LIMIT` characters their warnings are located in the first part and counted in the rest,
so a 45 MB document is never read token by token in Python.
"""

from __future__ import annotations

import codecs
import gc
import json
import math
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, islice
from typing import Any

from webapp.core.json import pointer as jpointer

__all__ = [
    "DEFAULT_MAX_DEPTH", "MAX_SAFE_INTEGER", "Document", "JSONTextError", "JSONWarning", "JSONLine",
    "STRING_MARK", "join_strings", "loads_ijson", "parse", "parse_lines", "paused_gc", "split_strings",
]

DEFAULT_MAX_DEPTH = 100
#: JavaScript's ``Number.MAX_SAFE_INTEGER`` (2^53 - 1): larger integers lose digits in ``JSON.parse``.
MAX_SAFE_INTEGER = 2**53 - 1
#: CPython refuses to convert longer digit strings to ``int`` (``sys.get_int_max_str_digits``).
MAX_INT_DIGITS = 4300
#: Warnings listed per document; the rest are counted in one last warning.
MAX_WARNINGS = 200
#: Documents up to this many characters get a full pointer → position map on the first ``position`` call;
#: bigger ones keep only the pointers asked for, found by one scan per batch (:meth:`Document.positions`) that
#: stops at the last one found and skips subtrees holding none at C speed.
POSITION_MAP_LIMIT = 256_000
#: Documents longer than this (characters) get their warnings located exactly in the first eighth of this length
#: and counted after it, so a 45 MB document is not read token by token in Python.
PRECISE_WARNINGS_LIMIT = 2_000_000
#: Width of the excerpt line around the column when the offending line is long (a minified document).
EXCERPT_WIDTH = 100


class JSONTextError(ValueError):
    """A JSON text that cannot be used, with the place and the mistake named in plain words.

    Attributes: ``code`` (stable, e.g. ``"trailing_comma"``; see the module for the list), ``message`` (plain
    words), ``line`` and ``column`` (1-based, column in characters), ``offset`` (0-based character offset) and
    ``excerpt`` (the offending line, trimmed around the column when long, and a caret line under the column).
    ``str(err) == f"line {line}, column {column}: {message}"``.
    """

    def __init__(self, code: str, message: str, text: str, offset: int, *, excerpt: bool = True) -> None:
        offset = max(0, min(offset, len(text)))
        line, column = _line_col(text, offset)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.excerpt = _excerpt(text, offset) if excerpt else ""
        super().__init__(f"line {line}, column {column}: {message}")

    def shifted(self, lines: int, offset: int) -> JSONTextError:
        """The same error moved down by ``lines`` lines and ``offset`` characters (a record of JSON Lines)."""
        self.line += lines
        self.offset += offset
        self.args = (f"line {self.line}, column {self.column}: {self.message}",)
        return self


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


@dataclass
class Document:
    """A parsed JSON text: the text itself, plain Python values (ints exact) and the warnings.

    ``value`` uses dict/list/str/int/float/bool/None; of duplicate member names the last value is kept, as
    every mainstream parser does.
    """

    text: str
    value: Any
    warnings: list[JSONWarning] = field(default_factory=list)
    _positions: dict[str, int] | None = field(default=None, repr=False, compare=False)
    # Beyond POSITION_MAP_LIMIT: the offsets of the pointers asked for so far (None: names nothing), so memory
    # grows with the questions, not with the text.
    _known: dict[str, int | None] = field(default_factory=dict, repr=False, compare=False)
    # True when the parse saw no duplicate member name: a targeted scan may then stop at its last find (with
    # duplicates a later member may replace one already found, so the scan goes on to the end).
    _unique_names: bool = field(default=False, repr=False, compare=False)
    _lines: _Lines | None = field(default=None, repr=False, compare=False)
    _split: tuple[list[bytes], bytes] | None = field(default=None, repr=False, compare=False)

    def take_string_parts(self) -> tuple[list[bytes], bytes | None]:
        """:func:`split_strings` of :attr:`text` (as UTF-8), and the bytes outside strings joined with
        :data:`STRING_MARK` (``None`` when not computed). What the parse already computed for a big document is
        handed over once (the caller may change the list); later calls compute the parts again."""
        split, self._split = self._split, None
        if split is not None:
            return split
        return split_strings(self.text.encode("utf-8", "surrogatepass")), None

    def position(self, pointer: str) -> tuple[int, int] | None:
        """(line, column), 1-based, where the value at ``pointer`` starts in :attr:`text`.

        For an object member it is where the member's *name* starts, so a mark lands on the whole member; for the
        root and array elements, where the value starts. With duplicate names, the last member (the one kept).

        :returns: ``None`` when the pointer names nothing in the document.
        :raises ValueError: when ``pointer`` is not an RFC 6901 pointer.
        """
        offset = self.offset(pointer)
        return None if offset is None else self.line_col(offset)

    def positions(self, pointers: Iterable[str]) -> dict[str, tuple[int, int] | None]:
        """:meth:`position` for many pointers at once, keyed by the pointers as given: at most one scan of the text.

        A text up to :data:`POSITION_MAP_LIMIT` characters gets its full pointer map (once). A bigger one is
        scanned once for the pointers not asked before; the scan records only those, stops when the last is found
        and skips the subtrees that hold none at C speed. The answers, misses included, are kept on the document,
        so later :meth:`position`/:meth:`offset` calls for these pointers cost no scan.

        :raises ValueError: when a pointer is not an RFC 6901 pointer (before any scan).
        """
        given = {p: jpointer.join(jpointer.split(p)) for p in pointers}
        offsets = self._offsets(set(given.values()))
        found: dict[str, tuple[int, int] | None] = {}
        for given_pointer, canonical in given.items():
            at = offsets[canonical]
            found[given_pointer] = None if at is None else self.line_col(at)
        return found

    def offset(self, pointer: str) -> int | None:
        """0-based character offset where :meth:`position` points (a member's name, else the value)."""
        canonical = jpointer.join(jpointer.split(pointer))
        return self._offsets({canonical})[canonical]

    def _offsets(self, canonical: set[str]) -> dict[str, int | None]:
        """Offsets of canonical pointers: the root without a scan, the rest from the full map (small texts) or
        from what is known, after one targeted scan for the pointers not yet known (big texts)."""
        answers: dict[str, int | None] = {}
        if "" in canonical:
            answers[""] = _WS.match(self.text).end()
            canonical = canonical - {""}
        if not canonical:
            return answers
        if self._positions is None and len(self.text) <= POSITION_MAP_LIMIT:
            positions: dict[str, int] = {}
            _Analyser(self.text, max_depth=10**9, ijson=False, positions=positions).run()
            self._positions = positions
        if self._positions is not None:
            table: dict[str, int] | dict[str, int | None] = self._positions
        else:
            table = self._known
            wanted = canonical - table.keys()
            if wanted:
                found: dict[str, int] = {}
                _Analyser(self.text, max_depth=10**9, ijson=False, positions=found, targets=wanted,
                          stop_when_found=self._unique_names).run()
                table.update((p, found.get(p)) for p in wanted)
        answers.update((p, table.get(p)) for p in canonical)
        return answers

    def raw(self, pointer: str) -> str | None:
        """The text of the value at ``pointer`` exactly as written (numbers, escapes and spacing kept).

        :returns: ``None`` when the pointer names nothing. :raises ValueError: on a malformed pointer.
        """
        start = self.offset(pointer)
        if start is None:
            return None
        text = self.text
        if pointer and text[start] == '"' and _is_member(self.value, pointer):
            start = json.decoder.scanstring(text, start + 1, True)[1]  # skip the name, then ':'
            start = _WS.match(text, start).end() + 1
            start = _WS.match(text, start).end()
        end = _RAW_DECODER.raw_decode(text, start)[1]
        return text[start:end]

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of a 0-based character offset into :attr:`text`."""
        if self._lines is None:
            self._lines = _Lines(self.text)
        return self._lines.line_col(offset)


@dataclass(frozen=True)
class JSONLine:
    """One record of a JSON Lines text: its 1-based line number, its character offset and its document."""

    line: int
    offset: int
    document: Document


# --------------------------------------------------------------------------------------------------------------
# Public functions

def parse(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int | None = None,
          ijson: bool = False) -> Document:
    """Parse one JSON text strictly (RFC 8259) and collect warnings.

    :param text: a ``str``, or UTF-8 ``bytes`` (a UTF-8 BOM is stripped with a ``bom_stripped`` warning; a BOM
        at the start of a ``str`` is an error, code ``bom``: it means the bytes were decoded the wrong way).
    :param max_depth: most nested arrays/objects allowed (``[]`` is depth 1); deeper → ``too_deep``.
    :param max_bytes: most UTF-8 bytes allowed; more → ``too_large``. ``None``: no limit.
    :param ijson: I-JSON (RFC 7493 §2): duplicate member names, unpaired surrogates, Unicode noncharacters and
        non-integer numbers beyond a 64-bit double are errors instead of warnings (integers beyond 2^53 stay
        warnings: Python reads them exactly).
    :returns: a :class:`Document`.
    :raises JSONTextError: on the first mistake in the text, naming it and its line:column. ``NaN`` and
        ``Infinity`` are always errors (RFC 8259 §6).
    """
    warnings: list[JSONWarning] = []
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if max_bytes is not None and len(data) > max_bytes:
            raise _too_large(len(data), max_bytes)
        text, bom = _decode_utf8(data)
        if bom:
            warnings.append(JSONWarning("bom_stripped", "The file starts with a UTF-8 byte order mark; it was "
                                        "ignored (RFC 8259 §8.1 lets parsers ignore it; writers must not add it).",
                                        "", 1, 1))
    elif max_bytes is not None and len(text) * 4 > max_bytes:  # only encode when the limit could be crossed
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise _too_large(size, max_bytes)

    with paused_gc(len(text) > BIG_TEXT):
        return _parse_text(text, max_depth, ijson, warnings)


def _parse_text(text: str, max_depth: int, ijson: bool, warnings: list[JSONWarning]) -> Document:
    data = text.encode("utf-8", "surrogatepass") if len(text) > BIG_TEXT else None
    parts, outside = _check_depth(text, max_depth, ijson, data)
    duplicates: list[str] | None = None
    try:
        value = _STRICT_DECODER.decode(text)
    except _Duplicate:
        duplicates = []
        value = _dup_tolerant_decode(text, max_depth, ijson, duplicates)
    except (ValueError, RecursionError, _NonFinite) as exc:
        raise _diagnose(text, max_depth, ijson, exc) from None

    if len(text) > PRECISE_WARNINGS_LIMIT and not ijson:
        warnings.extend(_bounded_warnings(text, max_depth, duplicates or [], parts, outside, data))
    elif duplicates is not None or _needs_close_look(text, data):
        warnings.extend(_Analyser(text, max_depth=max_depth, ijson=ijson).run())
    return Document(text, value, warnings, _split=(parts, outside) if parts is not None and outside else None,
                    _unique_names=duplicates is None)


def loads_ijson(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse I-JSON (RFC 7493) at about ``json.loads`` speed; the gate's hot path for ``arguments``.

    Valid input costs one C-speed parse plus a few C-speed scans of the text. Any violation — RFC 8259 syntax,
    ``NaN``/``Infinity``, duplicate member names, unpaired surrogates, Unicode noncharacters, a number beyond a
    64-bit double (``1e400``), nesting beyond ``max_depth`` — re-reads the text slowly to name the mistake and its
    line:column.

    :returns: plain Python values (ints exact).
    :raises JSONTextError: see :func:`parse` with ``ijson=True``.
    """
    if not isinstance(text, str):
        return parse(text, max_depth=max_depth, ijson=True).value
    if text.count("{") + text.count("[") > max_depth:
        _check_depth(text, max_depth, True)
    try:
        value = _IJSON_DECODER.decode(text)
    except (_Duplicate, _NonFinite, ValueError, RecursionError) as exc:
        raise _diagnose(text, max_depth, True, exc) from None
    if (not text.isascii() and _RAW_SUSPECT.search(text)) or ("\\u" in text and _ESCAPE_SUSPECT.search(text)):
        _Analyser(text, max_depth=max_depth, ijson=True).run()  # raises on what I-JSON forbids
    return value


NOT_IJSON = object()
"""What :func:`try_loads_ijson` returns for text that is not I-JSON."""


def try_loads_ijson(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """:func:`loads_ijson` without the diagnosis: the parsed value, or :data:`NOT_IJSON` exactly when
    :func:`loads_ijson` would raise. For callers that need only the verdict (the replay gate over a journal of
    100,000 items), so a bad item costs no more than a good one."""
    if text.count("{") + text.count("[") > max_depth:
        try:
            _check_depth(text, max_depth, True)
        except JSONTextError:
            return NOT_IJSON
    try:
        value = _IJSON_DECODER.decode(text)
    except (_Duplicate, _NonFinite, ValueError, RecursionError):
        return NOT_IJSON
    if (not text.isascii() and _RAW_SUSPECT.search(text)) or ("\\u" in text and _ESCAPE_SUSPECT.search(text)):
        try:
            _Analyser(text, max_depth=max_depth, ijson=True).run()
        except JSONTextError:
            return NOT_IJSON
    return value


def parse_lines(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int | None = None,
                ijson: bool = False) -> list[JSONLine]:
    """Parse JSON Lines (one JSON text per line; blank lines are skipped).

    :returns: one :class:`JSONLine` per non-blank line, in order. Warnings keep their pointers relative to the
        record; their line numbers are the record's line in the whole text.
    :raises JSONTextError: for the first bad record, with the line and offset in the whole text.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if max_bytes is not None and len(data) > max_bytes:
            raise _too_large(len(data), max_bytes)
        text, _ = _decode_utf8(data)
    elif max_bytes is not None and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise _too_large(len(text.encode("utf-8", "surrogatepass")), max_bytes)
    records: list[JSONLine] = []
    offset = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip(" \t\r"):
            try:
                doc = parse(raw, max_depth=max_depth, ijson=ijson)
            except JSONTextError as err:
                raise err.shifted(number - 1, offset) from None
            doc.warnings = [JSONWarning(w.code, w.message, w.pointer, w.line + number - 1, w.column)
                            for w in doc.warnings]
            records.append(JSONLine(number, offset, doc))
        offset += len(raw) + 1
    if not records:
        raise JSONTextError("empty", "The text is empty: paste a JSON value (or JSON Lines, one per line).", text, 0)
    return records


# --------------------------------------------------------------------------------------------------------------
# Fast path

#: Texts longer than this (characters) are parsed with the cyclic garbage collector paused.
BIG_TEXT = 1_000_000


@contextmanager
def paused_gc(pause: bool = True) -> Iterator[None]:
    """Pause Python's cyclic garbage collector while millions of containers are built (it would rescan them
    again and again: about 60% of ``json.loads`` time on 45 MB); JSON values hold no reference cycles. The
    collector runs again afterwards if it was running before (it is process-wide, so a concurrent pause by
    another thread only delays a collection)."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Duplicate(Exception):
    """Raised by the pairs hook at the first duplicate member name (the fast path then looks closer)."""


class _NonFinite(Exception):
    """Raised by ``parse_constant``: NaN, Infinity and -Infinity are not JSON (RFC 8259 §6)."""


def _pairs_strict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate
    return result


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def _finite(token: str) -> float:
    number = float(token)
    if math.isinf(number):  # 1e400: beyond a 64-bit double (I-JSON, RFC 7493 §2.2)
        raise _NonFinite(token)
    return number


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=_refuse_constant)
# The gate's: arguments hold few floats, so a check per float costs little.
_IJSON_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=_refuse_constant,
                                  parse_float=_finite)
_RAW_DECODER = json.JSONDecoder()
_PLAIN_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _dup_tolerant_decode(text: str, max_depth: int, ijson: bool, names: list[str]) -> Any:
    """Decode a text with duplicate member names, last value winning (like every mainstream parser); the
    duplicate names are appended to ``names``."""
    if ijson:  # duplicates are errors: let the precise path name the first one
        _Analyser(text, max_depth=max_depth, ijson=True).run()

    def pairs(members: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(members)
        if len(result) != len(members):
            seen: set[str] = set()
            names.extend(name for name, _ in members if name in seen or seen.add(name))  # type: ignore[func-returns-value]
        return result

    try:
        return json.JSONDecoder(object_pairs_hook=pairs, parse_constant=_refuse_constant).decode(text)
    except (ValueError, RecursionError, _NonFinite) as exc:
        raise _diagnose(text, max_depth, ijson, exc) from None


# A big document's warnings: located exactly in its first part, counted in the rest (bounded time). Each scan
# is a C loop over bytes: a literal-led pattern, or digits outside strings.
_NINE_DIGITS = bytes.maketrans(b"0123456789E", b"9999999999e")
_SIXTEEN_NINES = b"9" * 16
_NINES = re.compile(rb"9+")
_LONG_EXPONENT = re.compile(rb"e[-+]?999")
_SURROGATE_HINTS = (re.compile(rb"\xed[\xa0-\xbf]"), re.compile(rb"\\u[dD][89a-fA-F]"))
_SURROGATE_TOKEN = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
                              rb"|\\u[dD][c-fC-F][0-9a-fA-F]{2}|\xed[\xa0-\xbf][\x80-\xbf]")
_NUMBER_BYTES = frozenset(b"0123456789.-+eE")


#: Cases counted per warning code in a big document (each costs a little Python); beyond: "at least".
MAX_COUNTED = 10_000


def _big_integers(outside: bytes) -> Iterator[str]:
    """Integers beyond 2^53 outside strings (``outside``: the bytes between strings). Digits are mapped to ``9``
    first, so runs of 16 are found by a literal search (C speed) instead of a pattern tried at every byte."""
    nines = outside.translate(_NINE_DIGITS)
    start = nines.find(_SIXTEEN_NINES)
    while start != -1:
        end = _NINES.match(nines, start).end()  # type: ignore[union-attr]
        before, after = outside[start - 1:start], outside[end:end + 1]
        if before not in (b".", b"e", b"E", b"+") and after not in (b".", b"e", b"E"):  # else a float's digits
            token = outside[start - (before == b"-"):end].decode("ascii")
            if abs(int(token)) > MAX_SAFE_INTEGER:
                yield token
        start = nines.find(_SIXTEEN_NINES, end)


def _extreme_exponents(outside: bytes) -> Iterator[tuple[str, str]]:
    """(code, token) of the numbers outside strings that overflow or underflow a double (exponent of 3 digits
    or more; found by a literal-led pattern once digits are mapped to ``9``)."""
    nines = outside.translate(_NINE_DIGITS)
    for match in _LONG_EXPONENT.finditer(nines):
        start = match.start()
        while start > 0 and outside[start - 1] in _NUMBER_BYTES:
            start -= 1
        end = _NINES.match(nines, match.end()).end() if nines[match.end():match.end() + 1] == b"9" \
            else match.end()  # type: ignore[union-attr]
        token = outside[start:end].decode("ascii")
        number = float(token)
        if math.isinf(number):
            yield "number_overflow", token
        elif number == 0 and any(d in "123456789" for d in token.split("e")[0].split("E")[0]):
            yield "number_underflow", token


def _bounded_warnings(text: str, max_depth: int, duplicates: list[str], parts: list[bytes] | None,
                      outside: bytes | None, data: bytes | None) -> list[JSONWarning]:
    """Warnings of a document over :data:`PRECISE_WARNINGS_LIMIT`: C-speed scans find what there is; when there
    is something, the precise scan locates it in the first eighth of that length and the rest is counted."""
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    if outside is None:
        outside = STRING_MARK.join((parts if parts is not None else split_strings(data))[0::2])
    found: dict[str, list[str]] = {}
    big = list(islice(_big_integers(outside), MAX_COUNTED))
    if big:
        found["big_integer"] = big
    for code, token in islice(_extreme_exponents(outside), MAX_COUNTED):
        found.setdefault(code, []).append(token)
    if any(hint.search(data) for hint in _SURROGATE_HINTS):
        lone = [m.group() for m in islice(_SURROGATE_TOKEN.finditer(data), MAX_COUNTED * 2)
                if len(m.group()) != 12]
        if lone:
            found["lone_surrogate"] = ["" for _ in lone]
    if any(hint.search(data) for hint in _BYTE_HINTS[1:4]):  # noncharacters
        found["noncharacter"] = [""]
    if not found and not duplicates and not any(hint.search(data) for hint in _BYTE_HINTS[4:6]):  # NFD names
        return []
    analyser = _Analyser(text, max_depth=max_depth, ijson=False, stop_at=PRECISE_WARNINGS_LIMIT // 8)
    warnings = analyser.run()
    start = analyser.stopped_at
    if start is None:
        return warnings
    line = analyser.line_col(start)[0]
    located = analyser.counts
    what = {"big_integer": "integers beyond 2^53", "number_overflow": "numbers beyond a 64-bit double",
            "number_underflow": "non-zero numbers that read as 0", "lone_surrogate": "unpaired surrogates",
            "noncharacter": "Unicode noncharacters"}
    for code, tokens in found.items():
        more = len(tokens) - located.get(code, 0)
        if code == "noncharacter" and not located.get(code):
            more = 1
        example = f" (e.g. {_shorten(tokens[-1])})" if tokens[-1] else ""
        if more > 0:
            amount = ("Some" if code == "noncharacter" else
                      f"At least {more:,}" if len(tokens) >= MAX_COUNTED else f"About {more:,}")
            warnings.append(JSONWarning(code, f"{amount} more {what[code]} after line {line:,}{example}: a document "
                                        f"over {PRECISE_WARNINGS_LIMIT:,} characters is checked place by place only "
                                        "up to there; the rest is counted.", "", line, 1))
    if len(duplicates) > located.get("duplicate_key", 0):
        names = ", ".join(_quote(name) for name in list(dict.fromkeys(duplicates))[:20])
        warnings.append(JSONWarning("duplicate_key", f"{len(duplicates):,} duplicate member names in all ({names}"
                                    f"{', …' if len(set(duplicates)) > 20 else ''}); those after line {line:,} are "
                                    "not located (a document this big is checked place by place only up to there). "
                                    "Parsers keep the last value of each.", "", line, 1))
    return warnings


# Inside strings, ``\\`` and ``\"`` become same-length placeholders, so splitting at '"' separates the string
# bodies (odd parts) from the rest (even parts). The work is on UTF-8 bytes: bytes operations are C loops over one
# byte per character, and the placeholders come back with one ``translate``. Control characters are safe
# placeholders: valid JSON holds none raw.
_BACKSLASHES, _ESCAPED_QUOTE = b"\x01\x01", b"\x01\x02"
_RESTORE = bytes.maketrans(b"\x01\x02", b'\\"')
#: Where each string was, in the bytes outside strings that :meth:`Document.take_string_parts` hands over.
STRING_MARK = b"\x03"
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def split_strings(data: bytes) -> list[bytes]:
    """Split a JSON text (UTF-8) at the quotes that delimit its strings, at C speed (no Python loop per token).

    Even items are the bytes between strings (structure, numbers, literals, whitespace), odd items the string
    bodies, where ``\\`` and ``\"`` are replaced by same-length placeholders (control characters, which valid
    JSON never holds raw), so offsets are kept. :func:`join_strings` undoes it. Exact for valid JSON only.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", _BACKSLASHES).replace(b'\\"', _ESCAPED_QUOTE)
    return data.split(b'"')


def join_strings(parts: list[bytes]) -> bytes:
    """Inverse of :func:`split_strings` (after the even items were changed, e.g. reformatted)."""
    return b'"'.join(parts).translate(_RESTORE)


def _check_depth(text: str, max_depth: int, ijson: bool,
                 data: bytes | None = None) -> tuple[list[bytes] | None, bytes | None]:
    """Refuse nesting deeper than ``max_depth`` before the recursive C parser sees it (C speed).

    :param data: ``text`` as UTF-8 when already encoded.
    :returns: the :func:`split_strings` parts and the bytes outside strings (joined with :data:`STRING_MARK`),
        when they were computed (the warnings and the formatter reuse them), else ``(None, None)``.
    """
    if text.count("{") + text.count("[") <= max_depth:
        return None, None
    parts = split_strings(text.encode("utf-8", "surrogatepass") if data is None else data)
    outside = STRING_MARK.join(parts[0::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > max_depth:
        _Analyser(text, max_depth=max_depth, ijson=ijson).run()  # names the first problem, maybe an earlier one
    return parts, outside


# Cheap hints that the precise path has warnings to find (false positives only cost time).
_NONCHARS = "\ufdd0-\ufdef\ufffe\uffff" + "".join(
    f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(1, 17))
# One range for the astral noncharacters keeps this scan fast; a rare false hint only costs a closer look.
_RAW_SUSPECT = re.compile("[\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff\U0001fffe-\U0010ffff]")
_ESCAPE_SUSPECT = re.compile(r"\\u(?:[dD][89a-fA-F]|[fF][dD][d-eD-E]|[fF]{3}[eEfF])")
_NUMBER_SUSPECT = re.compile(r"(?:^|[\[:,])[ \t\r\n]*-?(?:[0-9]{16}|[0-9][0-9.]*[eE][-+]?[0-9]{3})")
_COMBINING = re.compile("[\u0300-\u036f]")


# The same hints on the UTF-8 bytes (each pattern starts with a literal byte: a fast scan, even on 45 MB).
_BYTE_HINTS = [re.compile(pattern) for pattern in (
    rb"\xed[\xa0-\xbf]",           # a surrogate (UTF-8 written with surrogatepass)
    rb"\xef\xb7[\x90-\xaf]",       # U+FDD0..U+FDEF
    rb"\xef\xbf[\xbe\xbf]",        # U+FFFE, U+FFFF
    rb"\xbf\xbf[\xbe\xbf]",        # U+nFFFE, U+nFFFF (tail of the 4-byte form)
    rb"\xcc[\x80-\xbf]", rb"\xcd[\x80-\xaf]",  # combining marks (NFD member names)
    rb"\\u(?:[dD][89a-fA-F]|[fF][dD][d-eD-E]|[fF]{3}[eEfF])",
)]
_NUMBER_HINT = re.compile(rb"[0-9]{16}|[0-9][eE][-+]?[0-9]{3}")


def _needs_close_look(text: str, data: bytes | None = None) -> bool:
    """Whether the text may hold something to warn about (numbers, surrogates, noncharacters, NFD names).

    :param data: ``text`` as UTF-8 when already encoded.
    """
    if data is None and len(text) < 4096:  # small: the str patterns, no encoding
        if not text.isascii() and (_RAW_SUSPECT.search(text) or _COMBINING.search(text)):
            return True
        if "\\u" in text and _ESCAPE_SUSPECT.search(text):
            return True
        return _NUMBER_SUSPECT.search(text) is not None
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    return any(hint.search(data) for hint in _BYTE_HINTS) or _NUMBER_HINT.search(data) is not None


def _diagnose(text: str, max_depth: int, ijson: bool, exc: BaseException) -> JSONTextError:
    """The precise error for a text the fast path refused."""
    try:
        _Analyser(text, max_depth=max_depth, ijson=ijson).run()
    except JSONTextError as err:
        return err
    # The precise path found nothing: say what the C parser said, at its place (never expected).
    position = getattr(exc, "pos", 0) or 0
    if isinstance(exc, RecursionError):
        return JSONTextError("too_deep", "The nesting is too deep for this parser.", text, 0)
    return JSONTextError("unexpected_token", f"This text could not be read: {exc}.", text, position)


def _too_large(size: int, limit: int) -> JSONTextError:
    human = f" ({_human_size(limit)})" if limit >= 1024 else ""
    return JSONTextError("too_large", f"The document is {size:,} bytes; the limit is {limit:,} bytes{human}.",
                         "", 0, excerpt=False)


def _human_size(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"


def _decode_utf8(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 strictly; a UTF-8 BOM is dropped (returned flag), UTF-16/32 and bad bytes are errors."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) and len(data) % 4 == 0:
        raise JSONTextError("not_utf8", "The file is UTF-32 (it starts with a UTF-32 byte order mark); JSON "
                            "exchanged between systems must be UTF-8 (RFC 8259 §8.1). Save it as UTF-8.", "", 0)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise JSONTextError("not_utf8", "The file is UTF-16 (it starts with a UTF-16 byte order mark); JSON "
                            "exchanged between systems must be UTF-8 (RFC 8259 §8.1). Save it as UTF-8.", "", 0)
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8"), bom
    except UnicodeDecodeError as err:
        shown = data.decode("utf-8", "replace")
        offset = len(data[:err.start].decode("utf-8", "replace"))
        raise JSONTextError("invalid_utf8", f"Byte 0x{data[err.start]:02X} (byte offset {err.start:,}) is not "
                            "valid UTF-8: the file is in another encoding. Save it as UTF-8 (RFC 8259 §8.1).",
                            shown, offset) from None


# --------------------------------------------------------------------------------------------------------------
# Positions and excerpts

class _Lines:
    """Where the lines of a text start, found on first use: offset → (line, column) by bisection."""

    __slots__ = ("text", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] | None = None

    def line_col(self, offset: int) -> tuple[int, int]:
        if self.starts is None:
            self.starts = [m.end() for m in re.finditer("\n", self.text)]
        line = bisect_right(self.starts, offset)
        start = self.starts[line - 1] if line else 0
        return line + 1, offset - start + 1


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _visible(ch: str) -> str:
    """A control character as its Unicode "control picture" (one column wide), so the caret stays aligned."""
    code = ord(ch)
    if ch == "\t":
        return ch
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be sent as UTF-8
        return "\ufffd"
    return ch


def _excerpt(text: str, offset: int) -> str:
    """The line holding ``offset`` (trimmed around it when long) and a caret line under the column."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    if end == -1:
        end = len(text)
    line = text[start:end]
    if line.endswith("\r"):
        line = line[:-1]
    column = offset - start
    prefix = suffix = ""
    if len(line) > EXCERPT_WIDTH:
        left = max(0, min(column - EXCERPT_WIDTH // 2, len(line) - EXCERPT_WIDTH))
        right = left + EXCERPT_WIDTH
        prefix = "…" if left > 0 else ""
        suffix = "…" if right < len(line) else ""
        line = line[left:right]
        column -= left
    shown = prefix + "".join(map(_visible, line)) + suffix
    pad = " " * len(prefix) + "".join("\t" if ch == "\t" else " " for ch in line[:column])
    return f"{shown}\n{pad}^"


def _describe(ch: str) -> str:
    """A character named for a message: ``'x'``, or ``U+00A0 (NO-BREAK SPACE)`` for the invisible ones."""
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


# --------------------------------------------------------------------------------------------------------------
# Precise path

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
# An array element that is a plain scalar, the comma after it and the space before the next (targeted scans).
_SCALAR_ELEMENT = re.compile(r'(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null'
                             r'|"[^"\\]*(?:\\.[^"\\]*)*")[ \t\n\r]*,[ \t\n\r]*')
_DIGITS = re.compile(r"[0-9]*")
_ESCAPES = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)|[\ud800-\udfff]", re.S)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NONCHAR = re.compile(f"[{_NONCHARS}]")
# Characters that look like whitespace or quotes to a person but are not JSON's.
_FAKE_SPACE = set("\u00a0\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b"
                  "\u2028\u2029\u202f\u205f\u3000\ufeff\x0b\x0c\x85")
_SMART_QUOTES = set("\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b\u00ab\u00bb\u2033")
_LITERALS = {"true": True, "false": False, "null": None}
_WRONG_LITERALS = {
    "True": "true", "False": "false", "None": "null", "TRUE": "true", "FALSE": "false", "NULL": "null",
    "Null": "null", "nil": "null", "undefined": "null",
}
_NON_FINITE = ("NaN", "Infinity", "-Infinity", "+Infinity", "inf", "-inf", "nan")
_CONTROL_NAMES = {"\n": ("line break", "\\n"), "\r": ("carriage return", "\\r"), "\t": ("tab", "\\t"),
                  "\b": ("backspace", "\\b"), "\f": ("form feed", "\\f")}


class _Frame:
    """One open container: where it opened, its pointer, the names seen so far (objects) and the current child."""

    __slots__ = ("is_object", "opened", "pointer", "names", "index", "name_offset")

    def __init__(self, is_object: bool, opened: int, pointer: str) -> None:
        self.is_object = is_object
        self.opened = opened
        self.pointer = pointer
        self.names: dict[str, int] | None = {} if is_object else None
        self.index = 0
        self.name_offset = opened


class _Found(Exception):
    """Stops a scan early: every wanted pointer is recorded, or the warnings' limit (``stop_at``) is passed."""


class _Analyser:
    """Iterative RFC 8259 scanner: raises the first :class:`JSONTextError`, returns the warnings.

    With ``positions`` it records instead where values start (members: where the name starts), for
    :meth:`Document.position`: every value's, or with ``targets`` (canonical pointers, not the root) only theirs.
    A targeted scan skips each array or object that can hold no target at C speed (``json`` reads past it; the
    text was parsed already) and, with ``stop_when_found``, stops once every target is recorded.
    """

    def __init__(self, text: str, *, max_depth: int, ijson: bool, positions: dict[str, int] | None = None,
                 targets: set[str] | None = None, stop_when_found: bool = False,
                 stop_at: int | None = None) -> None:
        self.text = text
        self.n = len(text)
        self.max_depth = max_depth
        self.ijson = ijson
        self.positions = positions
        self.targets = None if targets is None else frozenset(targets)
        # Containers that may hold a target: the targets' ancestors (in a canonical pointer a '/' only separates).
        self.through = None if targets is None else frozenset(
            t[:i] for t in targets for i, ch in enumerate(t) if ch == "/")
        self.left = set(targets) if targets is not None and stop_when_found else None
        self.stop_at = len(text) + 1 if stop_at is None else stop_at  # warnings only up to this offset
        self.stopped_at: int | None = None
        self.warnings: list[JSONWarning] = []
        self.counts: dict[str, int] = {}  # warnings found per code, listed or not
        self.dropped = 0
        self._lines = _Lines(text)

    # -- driver -------------------------------------------------------------------------------------------
    def run(self) -> list[JSONWarning]:
        try:
            self._run()
        except _Found:
            pass
        if self.dropped:
            self.warnings.append(JSONWarning("more_warnings", f"{self.dropped:,} more warnings are not listed.",
                                             "", 1, 1))
        return self.warnings

    def _run(self) -> None:
        text, n, ws = self.text, self.n, _WS.match
        if text.startswith("\ufeff"):
            raise self.error("bom", "The text starts with a byte order mark (U+FEFF), which is not JSON: remove "
                             "it (a file read as UTF-8 with BOM must be decoded as utf-8-sig).", 0)
        pos = ws(text, 0).end()
        if pos >= n:
            raise self.error("empty", "The text is empty: paste a JSON value.", 0)
        stack: list[_Frame] = []
        pointer = ""
        expect_value = True
        while True:
            if expect_value:
                pos = ws(text, pos).end()
                if pos >= n:
                    raise self.truncated(stack)
                if self.positions is not None:
                    self.record(pointer, stack[-1].name_offset if stack and stack[-1].is_object else pos)
                c = text[pos]
                if c == "{" or c == "[":
                    if self.through is not None and pointer not in self.through:
                        skipped = self.skip(pos)
                        if skipped is not None:
                            pos, expect_value = skipped, False
                            continue
                    if len(stack) >= self.max_depth:
                        raise self.error("too_deep", f"Nesting deeper than the limit of {self.max_depth} levels: "
                                         f"this '{c}' opens level {len(stack) + 1}.", pos)
                    frame = _Frame(c == "{", pos, pointer)
                    stack.append(frame)
                    pos = ws(text, pos + 1).end()
                    if pos < n and text[pos] == ("}" if frame.is_object else "]"):
                        stack.pop()
                        pos += 1
                        expect_value = False
                    elif frame.is_object:
                        pos, pointer = self.member_name(pos, frame, stack)
                    else:
                        pointer = frame.pointer + "/0"
                    continue
                if c == '"':
                    pos = self.string(pos, pointer)[1]
                elif c in "-0123456789":
                    pos = self.number(pos, pointer)
                else:
                    word = _WORD.match(text, pos)
                    if word and word.group() in _LITERALS:
                        pos = word.end()
                    else:
                        raise self.bad_value(pos, stack)
                expect_value = False
                continue

            # After a value: a comma, the closing bracket, or (at the top) the end of the text.
            if pos > self.stop_at:
                self.stopped_at = pos
                raise _Found
            pos = ws(text, pos).end()
            if not stack:
                if pos < n:
                    raise self.after_document(pos)
                return
            frame = stack[-1]
            if pos >= n:
                raise self.truncated(stack)
            c = text[pos]
            if c == ",":
                comma = pos
                pos = ws(text, pos + 1).end()
                if pos < n and text[pos] in "}]":
                    closer = "object" if text[pos] == "}" else "array"
                    raise self.error("trailing_comma", f"Trailing comma before the end of the {closer}: JSON allows "
                                     "no comma after the last "
                                     f"{'member' if closer == 'object' else 'element'}; remove it.", comma)
                if frame.is_object:
                    pos, pointer = self.member_name(pos, frame, stack)
                else:
                    frame.index += 1
                    pointer = f"{frame.pointer}/{frame.index}"
                    if self.through is not None:
                        pos, pointer = self.skip_elements(pos, frame, pointer)
                expect_value = True
            elif c == ("}" if frame.is_object else "]"):
                stack.pop()
                pos += 1
            elif c in "}]":
                kind, want = ("object", "}") if frame.is_object else ("array", "]")
                line, col = self.line_col(frame.opened)
                raise self.error("mismatched_bracket", f"'{c}' does not close the {kind} opened at line {line}, "
                                 f"column {col}: expected '{want}' (or ',' before the next "
                                 f"{'member' if frame.is_object else 'element'}).", pos)
            else:
                raise self.after_child(pos, frame)

    # -- positions and warnings ---------------------------------------------------------------------------
    def record(self, pointer: str, offset: int) -> None:
        assert self.positions is not None
        if self.targets is not None and pointer not in self.targets:
            return
        self.positions[pointer] = offset  # a later duplicate member overwrites: the one kept is the last
        if self.left is not None:
            self.left.discard(pointer)
            if not self.left:
                raise _Found

    def skip_elements(self, pos: int, frame: _Frame, pointer: str) -> tuple[int, str]:
        """Step over the array elements from ``pos`` on that are plain scalars followed by a comma and can hold no
        target, one C regex match each (a long flat array costs no token-by-token reading); returns where the next
        element starts and its pointer."""
        text, targets, through, match = self.text, self.targets, self.through, _SCALAR_ELEMENT.match
        assert targets is not None and through is not None
        while pointer not in targets and pointer not in through:
            element = match(text, pos)
            if element is None:  # a container, or the last element: read on as usual
                break
            pos = element.end()
            frame.index += 1
            pointer = f"{frame.pointer}/{frame.index}"
        return pos, pointer

    def skip(self, pos: int) -> int | None:
        """The end of the array or object opening at ``pos``, read by the C decoder; None if it refuses (a text
        that was never parsed), so the caller reads on token by token."""
        try:
            return _RAW_DECODER.raw_decode(self.text, pos)[1]
        except (ValueError, RecursionError):
            return None

    def line_col(self, offset: int) -> tuple[int, int]:
        return self._lines.line_col(offset)

    def warn(self, code: str, message: str, pointer: str, offset: int) -> None:
        if self.positions is not None:
            return  # a position scan of an already-parsed document
        self.counts[code] = self.counts.get(code, 0) + 1
        if len(self.warnings) >= MAX_WARNINGS:
            self.dropped += 1
            return
        line, col = self.line_col(offset)
        self.warnings.append(JSONWarning(code, message, pointer, line, col))

    def error(self, code: str, message: str, offset: int) -> JSONTextError:
        return JSONTextError(code, message, self.text, offset)

    # -- members ------------------------------------------------------------------------------------------
    def member_name(self, pos: int, frame: _Frame, stack: list[_Frame]) -> tuple[int, str]:
        """Read ``"name"`` and ``:`` at ``pos``; returns the position after the colon and the member's pointer."""
        text, n = self.text, self.n
        pos = _WS.match(text, pos).end()
        if pos >= n:
            raise self.truncated(stack)
        c = text[pos]
        if c != '"':
            raise self.bad_name(pos)
        name, end = self.string(pos, None)
        member = f"{frame.pointer}/{jpointer.escape(name)}"
        names = frame.names
        assert names is not None
        if self.positions is None:
            first = names.get(name)
            if first is not None:
                self.duplicate(name, first, pos, member)
            elif names and not name.isascii():
                self.lookalike(name, names, pos, frame.pointer)
            names[name] = pos
        frame.name_offset = pos
        colon = _WS.match(text, end).end()
        if colon >= n:
            raise self.error("truncated", f"The text ends after the member name {_quote(name)}: expected ':' and "
                             "its value.", _content_end(text))
        if text[colon] != ":":
            ch = text[colon]
            hint = " (JSON uses ':', not '=')" if ch == "=" else ""
            raise self.error("missing_colon", f"Expected ':' after the member name {_quote(name)}, found "
                             f"{_describe(ch)}{hint}.", colon)
        return colon + 1, member

    def duplicate(self, name: str, first: int, second: int, member: str) -> None:
        l1, c1 = self.line_col(first)
        l2, c2 = self.line_col(second)
        where = f"line {l1}, column {c1} and line {l2}, column {c2}"
        self.ijson_problem("duplicate_key", f"Duplicate member name {_quote(name)} ({where}): I-JSON forbids "
                           "duplicate names (RFC 7493 §2.3); which value counts depends on the parser.",
                           f"Duplicate member name {_quote(name)} at {where}: parsers keep the last value, so "
                           "schema validation and diff see only the second one; other parsers may keep the first.",
                           member, second)

    def ijson_problem(self, code: str, error: str, warning: str, pointer: str | None, offset: int) -> None:
        """What I-JSON forbids (RFC 7493 §2) is an error with ``ijson``, else a warning: the same place."""
        if self.ijson:
            raise self.error(code, error, offset)
        self.warn(code, warning, pointer if pointer is not None else "", offset)

    def lookalike(self, name: str, names: dict[str, int], pos: int, parent: str) -> None:
        folded = unicodedata.normalize("NFC", name)
        for other, where in names.items():
            if other != name and unicodedata.normalize("NFC", other) == folded:
                l1, c1 = self.line_col(where)
                l2, c2 = self.line_col(pos)
                self.warn("lookalike_keys", f"Member names {_quote(other)} (line {l1}, column {c1}) and "
                          f"{_quote(name)} (line {l2}, column {c2}) look identical but differ in Unicode "
                          "normalisation (NFC vs NFD): JSON treats them as two different names.",
                          f"{parent}/{jpointer.escape(name)}", pos)
                return

    # -- scalars ------------------------------------------------------------------------------------------
    def string(self, pos: int, pointer: str | None) -> tuple[str, int]:
        """Read the string opening at ``pos``; returns (decoded, position after the closing quote)."""
        text = self.text
        try:
            value, end = json.decoder.scanstring(text, pos + 1, True)
        except json.JSONDecodeError as exc:
            raise self.string_error(exc, pos) from None
        if not value.isascii():
            if _SURROGATE.search(value):
                self.lone_surrogate(pos, end, pointer)
            nonchar = _NONCHAR.search(value)
            if nonchar:
                self.noncharacter(nonchar.group(), pos, end, pointer)
        return value, end

    def string_error(self, exc: json.JSONDecodeError, start: int) -> JSONTextError:
        text, where = self.text, exc.pos
        line, col = self.line_col(start)
        opened = f"the string that starts at line {line}, column {col}"
        if exc.msg.startswith("Unterminated string"):
            return self.error("truncated", f"The text ends inside {opened}: the closing quote (\") is missing.",
                              _content_end(text))
        if exc.msg.startswith("Invalid control character"):
            ch = text[where]
            name, escape = _CONTROL_NAMES.get(ch, ("control character", f"\\u{ord(ch):04x}"))
            extra = " (or is the closing quote missing?)" if ch in "\r\n" else ""
            return self.error("control_character", f"Raw {name} (U+{ord(ch):04X}) inside {opened}: JSON "
                              f"strings must escape it as {escape}{extra}.", where)
        if exc.msg.startswith("Invalid \\uXXXX"):
            backslash = where - 1 if where and text[where - 1] == "\\" else where
            digits = text[backslash + 2:backslash + 6]
            if backslash + 2 + len(digits.rstrip()) >= self.n and all(d in "0123456789abcdefABCDEF" for d in digits):
                return self.error("truncated", f"The text ends inside a \\u escape of {opened}.", _content_end(text))
            return self.error("invalid_escape", f"Invalid escape '\\u{digits}' in {opened}: \\u must be followed "
                              "by exactly 4 hexadecimal digits.", backslash)
        if exc.msg.startswith("Invalid \\escape"):
            if where + 1 >= self.n:
                return self.error("truncated", f"The text ends inside {opened}, right after a backslash.",
                                  _content_end(text))
            bad = text[where:where + 2]
            hint = " (a Windows path? write each backslash as \\\\)" if bad[1:] not in "'" else \
                " (a single quote needs no escape in JSON)"
            return self.error("invalid_escape", f"Invalid escape {_describe(bad)} in {opened}: JSON allows "
                              "\\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX only" + hint + ".", where)
        return self.error("unexpected_token", f"This string could not be read: {exc.msg}.", where)

    def lone_surrogate(self, start: int, end: int, pointer: str | None) -> None:
        offset, code = _find_lone_surrogate(self.text, start + 1, end - 1)
        what = f"U+{code:04X}"
        self.ijson_problem("lone_surrogate", f"Unpaired surrogate {what}: not a Unicode character, so I-JSON "
                           "forbids it (RFC 7493 §2.1) and UTF-8 cannot encode it.",
                           f"Unpaired surrogate {what}: not a Unicode character; UTF-8 cannot encode it and I-JSON "
                           "forbids it (RFC 7493 §2.1). OpenAI and Anthropic reject requests holding one.",
                           pointer, offset)

    def noncharacter(self, ch: str, start: int, end: int, pointer: str | None) -> None:
        offset = self.text.find(ch, start, end)
        if offset < 0:
            hit = re.compile(rf"\\u{ord(ch):04x}", re.I).search(self.text, start, end) if ord(ch) <= 0xFFFF \
                else None
            offset = hit.start() if hit else start
        what = f"U+{ord(ch):04X}"
        self.ijson_problem("noncharacter", f"Unicode noncharacter {what}: I-JSON forbids noncharacters in strings "
                           "(RFC 7493 §2.1).", f"Unicode noncharacter {what} in a string: I-JSON forbids it (RFC "
                           "7493 §2.1).", pointer, offset)

    def number(self, pos: int, pointer: str) -> int:
        text, n = self.text, self.n
        if text.startswith("-Infinity", pos):
            raise self.non_finite("-Infinity", pos)
        match = _NUMBER.match(text, pos)
        if match is None:  # '-' not followed by a digit
            raise self.error("invalid_number", "A '-' must be followed by a digit.", pos)
        end = match.end()
        token = match.group()
        nxt = text[end] if end < n else ""
        integer = match.group(1) is None and match.group(2) is None
        if nxt:
            if nxt.isdigit() and integer and token in ("0", "-0"):
                whole = token + _DIGITS.match(text, end).group()
                raise self.error("leading_zero", f"Number {whole} starts with a leading zero: JSON numbers don't "
                                 "(write it without the zero, or as a string if the zeros matter).", pos)
            if nxt in ".eE" or nxt.isalnum() or nxt == "_":
                raise self.bad_number_tail(pos, end, token, nxt)
        if integer:
            digits = len(token) - (token[0] == "-")
            if digits > MAX_INT_DIGITS:
                raise self.error("number_too_long", f"An integer of {digits:,} digits is longer than this parser "
                                 f"reads ({MAX_INT_DIGITS:,} digits).", pos)
            if digits >= 16 and abs(int(token)) > MAX_SAFE_INTEGER:
                self.warn("big_integer", f"Integer {_shorten(token)} is beyond 2^53 (JavaScript's safe range is "
                          f"±{MAX_SAFE_INTEGER:,}): a JavaScript client reads it as {_as_double(token)}. "
                          "It is kept exactly as written here.", pointer, pos)
        elif match.group(2) is not None or len(token) > 17:
            number = float(token)
            if math.isinf(number):
                self.ijson_problem("number_overflow", f"Number {_shorten(token)} is beyond the range of a 64-bit "
                                   "double (±1.8e308): I-JSON forbids it (RFC 7493 §2.2), and parsers read it as "
                                   "Infinity or fail.", f"Number {_shorten(token)} is beyond the range of a 64-bit "
                                   "double (±1.8e308): most parsers read it as Infinity, which JSON cannot write "
                                   "back. It is kept exactly as written here.", pointer, pos)
            elif number == 0 and any(d in "123456789" for d in token.split("e")[0].split("E")[0]):
                self.warn("number_underflow", f"Number {_shorten(token)} is too small for a 64-bit double: most "
                          "parsers read it as 0. It is kept exactly as written here.", pointer, pos)
        return end

    def bad_number_tail(self, pos: int, end: int, token: str, nxt: str) -> JSONTextError:
        text = self.text
        after = text[end + 1] if end + 1 < self.n else ""
        if nxt == "." and not after.isdigit():
            return self.error("invalid_number", f"Number '{token}.' needs digits after the decimal point (write "
                              f"{token}.0 or {token}).", end)
        if nxt in "eE" and not (after.isdigit() or (after in "+-" and text[end + 2:end + 3].isdigit())):
            return self.error("invalid_number", f"The exponent of '{token}{nxt}' needs digits (e.g. {token}e3).",
                              end)
        if token in ("0", "-0") and nxt in "xX":
            return self.error("invalid_number", "Hexadecimal numbers are not JSON: write the number in decimal.",
                              pos)
        tail = _WORD.match(text, end)
        shown = token + (tail.group() if tail else nxt)
        return self.error("invalid_number", f"'{_shorten(shown)}' is not a JSON number (unexpected {_describe(nxt)} "
                          "after the digits).", end)

    # -- classifying the unexpected -------------------------------------------------------------------------
    def non_finite(self, word: str, pos: int) -> JSONTextError:
        return self.error("nan_literal", f"{word} is not a JSON number: RFC 8259 §6 allows no NaN or Infinity. "
                          "Write null, or a string such as \"NaN\".", pos)

    def common(self, pos: int) -> JSONTextError | None:
        """Mistakes that read the same wherever they appear: comments, smart quotes, fake whitespace."""
        text = self.text
        c = text[pos]
        if c == "/" and text[pos + 1:pos + 2] in ("/", "*"):
            style = "//" if text[pos + 1] == "/" else "/* */"
            return self.error("comment", f"Comment ({style}): JSON has no comments; remove it (JSONC and JSON5 "
                              "allow comments, JSON does not).", pos)
        if c in _SMART_QUOTES:
            return self.error("smart_quote", f"Typographic quote {_describe(c)}: JSON strings use the plain "
                              "double quote (\"); a word processor or chat app may have replaced it.", pos)
        if c in _FAKE_SPACE:
            if c == "\ufeff":
                return self.error("bom", "A byte order mark (U+FEFF) in the middle of the text: remove it.", pos)
            return self.error("invalid_whitespace", f"{_describe(c)} looks like whitespace but is not JSON "
                              "whitespace (only space, tab, line feed and carriage return are); remove it.", pos)
        return None

    def bad_value(self, pos: int, stack: list[_Frame]) -> JSONTextError:
        """Explain the character at ``pos`` where a value should start."""
        text = self.text
        known = self.common(pos)
        if known:
            return known
        c = text[pos]
        context = _value_context(text, pos, stack)
        if c == "'":
            return self.error("single_quote", "Single-quoted string: JSON strings use double quotes (\").", pos)
        word = _WORD.match(text, pos) or re.compile(r"[+-]?[A-Za-z]+").match(text, pos)
        if word:
            w = word.group()
            if w in _NON_FINITE or (c in "+-" and w[1:] in _NON_FINITE):
                return self.non_finite(w, pos)
            if w in _WRONG_LITERALS:
                return self.error("invalid_literal", f"{w} is not a JSON value: write {_WRONG_LITERALS[w]}.", pos)
            if w.lower() in _LITERALS:
                return self.error("invalid_literal", f"{w} is not a JSON value: literals are lower-case "
                                  f"({w.lower()}).", pos)
            return self.error("unquoted_string", f"Unquoted text {_quote(_shorten(w))}: JSON strings need "
                              "double quotes.", pos)
        if c == "+":
            return self.error("invalid_number", "A number can't start with '+': JSON numbers have no plus sign.",
                              pos)
        if c == ".":
            return self.error("invalid_number", "A number can't start with '.': write 0.5, not .5.", pos)
        if c in ",}]":
            return self.error("missing_value", f"Expected a value {context}, found {_describe(c)}.", pos)
        return self.error("unexpected_token", f"Unexpected {_describe(c)} {context}: expected a value (object, "
                          "array, string, number, true, false or null).", pos)

    def bad_name(self, pos: int) -> JSONTextError:
        """Explain the character at ``pos`` where a member name should start."""
        text = self.text
        known = self.common(pos)
        if known:
            return known
        c = text[pos]
        if c == "'":
            return self.error("single_quote", "Single-quoted member name: JSON member names use double quotes "
                              "(\").", pos)
        word = _WORD.match(text, pos) or re.compile(r"[0-9A-Za-z_$-]+").match(text, pos)
        if word:
            return self.error("unquoted_key", f"Unquoted member name {word.group()}: JSON member names are "
                              f"double-quoted strings (\"{word.group()}\").", pos)
        if c in "}]":
            return self.error("unexpected_token", f"Unexpected {_describe(c)}: expected a member name in double "
                              "quotes.", pos)
        return self.error("unexpected_token", f"Unexpected {_describe(c)}: expected a member name in double "
                          "quotes.", pos)

    def after_child(self, pos: int, frame: _Frame) -> JSONTextError:
        """Explain what follows a member value or array element when it is neither ',' nor the closing bracket."""
        known = self.common(pos)
        if known:
            return known
        want, what = ("}", "member") if frame.is_object else ("]", "element")
        line, col = self.line_col(frame.opened)
        kind = "object" if frame.is_object else "array"
        return self.error("missing_comma", f"Expected ',' or '{want}' after the {what}, found "
                          f"{_describe(self.text[pos])}: is a comma missing? (the {kind} opened at line {line}, "
                          f"column {col})", pos)

    def after_document(self, pos: int) -> JSONTextError:
        known = self.common(pos)
        if known:
            return known
        end_line, end_col = self.line_col(_content_end(self.text[:pos]))
        return self.error("extra_data", f"Extra data after the JSON value, which ended at line {end_line}, column "
                          f"{end_col}: a JSON text holds one value. For several, put them in an array (or use JSON "
                          "Lines, one per line).", pos)

    def truncated(self, stack: list[_Frame]) -> JSONTextError:
        end = _content_end(self.text)
        if not stack:
            return self.error("truncated", "The text ends where a value is expected.", end)
        frame = stack[-1]
        line, col = self.line_col(frame.opened)
        kind, want = ("object", "}") if frame.is_object else ("array", "]")
        more = f" ({len(stack) - 1} more enclosing level{'s' if len(stack) > 2 else ''} also unclosed)" \
            if len(stack) > 1 else ""
        tail = self.text[:end].rstrip()[-1:]
        if tail == ":":
            detail = "after ':' — the member's value is missing"
        elif tail == ",":
            detail = "after ',' — the next " + ("member" if frame.is_object else "element") + " is missing"
        else:
            detail = f"before the {kind} opened at line {line}, column {col} is closed (expected '{want}')"
        return self.error("truncated", f"The text ends {detail}{more}: it looks cut off.", end)


def _value_context(text: str, pos: int, stack: list[_Frame]) -> str:
    before = text[:pos].rstrip(" \t\r\n")[-1:]
    if before == ":":
        return "after ':'"
    if before == ",":
        return "after ','"
    if before == "[":
        return "after '['"
    return "here" if stack else "at the start"


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


def _is_member(value: Any, pointer: str) -> bool:
    """True when ``pointer`` names an object member (its parent is an object), not an array element."""
    parent = jpointer.split(pointer)[:-1]
    try:
        return isinstance(jpointer.resolve(value, jpointer.join(parent)), dict)
    except (KeyError, ValueError):
        return False


def _content_end(text: str) -> int:
    """Where the content ends (before trailing whitespace): a truncation is shown right after the last character."""
    return len(text.rstrip(" \t\r\n"))


def _quote(name: str) -> str:
    """A name as a JSON string for messages; lone surrogates stay escapes (a message must encode as UTF-8)."""
    quoted = json.dumps(name, ensure_ascii=False)
    if not quoted.isascii() and _SURROGATE.search(quoted):
        quoted = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
    return quoted


def _shorten(token: str, width: int = 40) -> str:
    return token if len(token) <= width else f"{token[:20]}…{token[-12:]} ({len(token):,} characters)"


def _as_double(token: str) -> str:
    try:
        number = float(int(token))
    except OverflowError:
        return "Infinity"
    return f"{int(number)}"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def displayable(text: str) -> str:
    """``text`` safe to encode as UTF-8: each unpaired surrogate (legal in a JSON string, ``"\\ud800"``, but not
    encodable) is shown as its ``\\uXXXX`` escape, so the page names it instead of failing with a 500."""
    if text.isascii() or not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def json_type(value: Any) -> str:
    """The JSON Schema type name of a parsed value: ``null``, ``boolean``, ``integer``, ``number``, ``string``,
    ``array``, ``object`` (any other Python type: its class name). ``1`` is an integer, ``1.0`` a number."""
    if value is None:
        return "null"
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
               (dict, "object"))  # bool before int: True is an int in Python


def kind_of(value: Any) -> str:
    """A JSON value's kind for messages: ``null``, ``a string``, ``a number``, ``an object``…"""
    name = json_type(value)
    return _KINDS.get(name, name)


_KINDS = {"boolean": "a boolean", "integer": "a number", "number": "a number", "string": "a string",
          "array": "an array", "object": "an object"}

