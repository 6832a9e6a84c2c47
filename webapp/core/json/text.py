"""The strict JSON parse layer shared by every page and by the gate (RFC 8259, I-JSON RFC 7493): the parse API.

Two speeds, one verdict:

* the **fast path** is CPython's C parser (``json.JSONDecoder``) with an ``object_pairs_hook`` that notices
  duplicate member names and a ``parse_constant`` that refuses ``NaN``/``Infinity``; cheap C-speed checks on the
  text (bracket counts, ``str.isascii``, small regexes) decide whether anything else needs a closer look. A big
  text is read by orjson instead whenever its value is certainly the same (:func:`_fast_decode`);
* the **precise path** (:class:`~webapp.core.json.scan.Scanner`, iterative: no ``RecursionError`` at any depth)
  runs only when the fast path failed or a cheap check fired. It names the real mistake at its line:column with a
  caret excerpt (:mod:`~webapp.core.json.diagnose`), and finds the warnings with their places
  (:mod:`~webapp.core.json.interop`).

Big texts (over :data:`BIG_TEXT` characters) are parsed with the garbage collector paused, their nesting is
measured on their bytes at C speed (:mod:`~webapp.core.json.bytes`: on a skeleton of the brackets, or on the
strings split from the structure when the formatter asks for that split, ``string_parts``), and beyond
:data:`PRECISE_WARNINGS_LIMIT` characters their warnings are located in the first part and counted in the rest,
so a 45 MB document is never read token by token in Python. Where the value at a JSON Pointer starts is found on
demand (:meth:`Document.positions`, :mod:`~webapp.core.json.positions`).

Every public name of the package is importable from here (the other modules define them).
"""

from __future__ import annotations

import codecs
import gc
import json
import math
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from webapp.core.json import pointer as jpointer
from webapp.core.json.bytes import (
    STRING_MARK,
    join_strings,
    nesting_depth,
    neutral_escapes,
    outside_strings,
    outside_test,
    skeleton,
    split_strings,
)
from webapp.core.json.diagnose import EXCERPT_WIDTH, JSONTextError
from webapp.core.json.interop import (
    ESCAPE_SUSPECT,
    MAX_COUNTED,
    MAX_SAFE_INTEGER,
    MAX_WARNINGS,
    PRECISE_WARNINGS_LIMIT,
    RAW_SUSPECT,
    JSONWarning,
    Warnings,
    bounded_warnings,
    integer_tokens,
    may_warn,
    number_nines,
)
from webapp.core.json.positions import Lines, PositionRecorder
from webapp.core.json.scan import MAX_INT_DIGITS, Scanner, first_error
from webapp.core.json.show import describe, displayable, json_type, kind_of, quote, shorten

__all__ = [
    "BIG_TEXT",
    "DEFAULT_MAX_DEPTH",
    "EXCERPT_WIDTH",
    "MAX_COUNTED",
    "MAX_INT_DIGITS",
    "MAX_SAFE_INTEGER",
    "MAX_WARNINGS",
    "NOT_IJSON",
    "POSITION_MAP_LIMIT",
    "PRECISE_WARNINGS_LIMIT",
    "STRING_MARK",
    "Document",
    "JSONLine",
    "JSONTextError",
    "JSONWarning",
    "describe",
    "displayable",
    "join_strings",
    "json_type",
    "kind_of",
    "line_records",
    "loads_ijson",
    "looks_like_lines",
    "parse",
    "parse_lines",
    "paused_gc",
    "quote",
    "shorten",
    "split_strings",
    "try_loads_ijson",
]

DEFAULT_MAX_DEPTH = 100
#: Documents up to this many characters get a full pointer → position map on the first ``position`` call;
#: bigger ones keep only the pointers asked for, found by one scan per batch (:meth:`Document.positions`) that
#: stops at the last one found and skips subtrees holding none at C speed.
POSITION_MAP_LIMIT = 256_000
#: Texts longer than this (characters) are parsed with the cyclic garbage collector paused.
BIG_TEXT = 1_000_000
_WS = re.compile(r"[ \t\n\r]*")


@dataclass
class Document:
    """A parsed JSON text: the text itself, plain Python values (ints exact) and the warnings.

    ``value`` uses dict/list/str/int/float/bool/None; of duplicate member names the last value is kept, as
    every mainstream parser does. A text parsed for its verdict only (``parse(values=False)``) may hold ``None``.
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
    _lines: Lines | None = field(default=None, repr=False, compare=False)
    _split: tuple[list[bytes], bytes] | None = field(default=None, repr=False, compare=False)
    _size: int | None = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> int:
        """UTF-8 bytes of :attr:`text` (lone surrogates, legal in escapes, as 3 bytes each); the parse of a big
        text knows it already."""
        if self._size is None:
            self._size = len(self.text.encode("utf-8", "surrogatepass"))
        return self._size

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

    def positions(self, pointers: Iterable[str], *, values: bool = False) -> dict[str, tuple[int, int] | None]:
        """:meth:`position` for many pointers at once, keyed by the pointers as given: at most one scan of the text.

        A text up to :data:`POSITION_MAP_LIMIT` characters gets its full pointer map (once). A bigger one is
        scanned once for the pointers not asked before; the scan records only those, stops when the last is found
        and skips the subtrees that hold none at C speed. The answers, misses included, are kept on the document,
        so later :meth:`position`/:meth:`offset` calls for these pointers cost no scan.

        :param values: where each *value* starts, past an object member's name and colon (:meth:`value_offset`),
            instead of where the member starts: the spot to select when the value itself is at fault.
        :raises ValueError: when a pointer is not an RFC 6901 pointer (before any scan).
        """
        given = {p: jpointer.join(jpointer.split(p)) for p in pointers}
        offsets = self._offsets(set(given.values()))
        found: dict[str, tuple[int, int] | None] = {}
        for given_pointer, canonical in given.items():
            at = offsets[canonical]
            if at is not None and values:
                at = self._past_name(canonical, at)
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
            recorder = PositionRecorder()
            Scanner(self.text, max_depth=10**9, recorder=recorder).run()
            self._positions = recorder.offsets
        if self._positions is not None:
            table: dict[str, int] | dict[str, int | None] = self._positions
        else:
            table = self._known
            wanted = canonical - table.keys()
            if wanted:
                recorder = PositionRecorder(targets=wanted, stop_when_found=self._unique_names)
                Scanner(self.text, max_depth=10**9, recorder=recorder).run()
                table.update((p, recorder.offsets.get(p)) for p in wanted)
        answers.update((p, table.get(p)) for p in canonical)
        return answers

    def value_offset(self, pointer: str) -> int | None:
        """0-based character offset where the value at ``pointer`` itself starts: for an object member, past its
        name and the colon (:meth:`offset` gives the name's); otherwise the same as :meth:`offset`.

        :returns: ``None`` when the pointer names nothing. :raises ValueError: on a malformed pointer.
        """
        start = self.offset(pointer)
        return None if start is None else self._past_name(pointer, start)

    def _past_name(self, pointer: str, start: int) -> int:
        """From a member's start (its name) to its value's start; any other value's start is kept."""
        text = self.text
        if pointer and text[start] == '"' and _is_member(self.value, pointer):
            start = json.decoder.scanstring(text, start + 1, True)[1]  # skip the name, then ':'
            start = _WS.match(text, start).end() + 1
            start = _WS.match(text, start).end()
        return start

    def raw(self, pointer: str) -> str | None:
        """The text of the value at ``pointer`` exactly as written (numbers, escapes and spacing kept).

        :returns: ``None`` when the pointer names nothing. :raises ValueError: on a malformed pointer.
        """
        start = self.value_offset(pointer)
        if start is None:
            return None
        end = _RAW_DECODER.raw_decode(self.text, start)[1]
        return self.text[start:end]

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of a 0-based character offset into :attr:`text`."""
        if self._lines is None:
            self._lines = Lines(self.text)
        return self._lines.line_col(offset)


@dataclass(frozen=True)
class JSONLine:
    """One record of a JSON Lines text: its 1-based line number, its character offset and its document."""

    line: int
    offset: int
    document: Document


# --------------------------------------------------------------------------------------------------------------
# Public functions


def parse(
    text: str | bytes,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_bytes: int | None = None,
    ijson: bool = False,
    warn: bool = True,
    string_parts: bool = False,
    values: bool = True,
    first_line: int = 1,
) -> Document:
    """Parse one JSON text strictly (RFC 8259) and collect warnings.

    :param text: a ``str``, or UTF-8 ``bytes`` (a UTF-8 BOM is stripped with a ``bom_stripped`` warning; a BOM
        at the start of a ``str`` is an error, code ``bom``: it means the bytes were decoded the wrong way).
    :param max_depth: most nested arrays/objects allowed (``[]`` is depth 1); deeper → ``too_deep``.
    :param max_bytes: most UTF-8 bytes allowed; more → ``too_large``. ``None``: no limit.
    :param ijson: I-JSON (RFC 7493 §2): duplicate member names, unpaired surrogates, Unicode noncharacters and
        non-integer numbers beyond a 64-bit double are errors instead of warnings (integers beyond 2^53 stay
        warnings: Python reads them exactly).
    :param warn: look for warnings; ``False`` when the caller shows none (a download of the formatted text): the
        verdict, valid or the first mistake, is the same, and a big text costs about a fifth less. Ignored with
        ``ijson`` (its errors are warnings made errors).
    :param string_parts: a big text's strings are split from its structure (:func:`split_strings`) for
        :meth:`Document.take_string_parts` to hand over (the formatter's first step), and its nesting and numbers
        are checked on the parts. Otherwise they are checked without a Python object per string
        (:func:`~webapp.core.json.bytes.skeleton`), which is what a caller that needs only the values wants.
    :param values: ``False`` when the caller needs only the verdict and the text (a download of the formatted
        text), with ``warn=False``: a big text split with ``string_parts`` is then not decoded when C-speed checks
        show it valid (:func:`_surely_valid`), and :attr:`Document.value` is ``None``. The verdict is the same.
    :param first_line: the number of the text's first line in a bigger text (a JSON Lines record's line): the
        warnings' lines, and the places their messages name, count from it. Errors keep the text's own lines.
    :returns: a :class:`Document`.
    :raises JSONTextError: on the first mistake in the text, naming it and its line:column. ``NaN`` and
        ``Infinity`` are always errors (RFC 8259 §6).
    """
    warnings: list[JSONWarning] = []
    data: bytes | None = None
    if isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if max_bytes is not None and len(data) > max_bytes:
            raise _too_large(len(data), max_bytes)
        text, bom = _decode_utf8(data)
        if bom:
            data = data[len(codecs.BOM_UTF8) :]
            warnings.append(
                JSONWarning(
                    "bom_stripped",
                    "The file starts with a UTF-8 byte order mark; it was "
                    "ignored (RFC 8259 §8.1 lets parsers ignore it; writers must not add it).",
                    "",
                    1,
                    1,
                )
            )
    elif max_bytes is not None and len(text) * 4 > max_bytes:  # only encode when the limit could be crossed
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > max_bytes:
            raise _too_large(len(data), max_bytes)

    with paused_gc(len(text) > BIG_TEXT):
        return _parse_text(
            text, max_depth, ijson, warnings, data, warn or ijson, string_parts, values or ijson, first_line
        )


def _parse_text(
    text: str,
    max_depth: int,
    ijson: bool,
    warnings: list[JSONWarning],
    data: bytes | None = None,
    warn: bool = True,
    string_parts: bool = False,
    values: bool = True,
    first_line: int = 1,
) -> Document:
    """:func:`parse` of a decoded text; ``data``: the text as UTF-8 when already encoded."""
    big = _BigText(text, data, string_parts) if len(text) > BIG_TEXT else None
    if big is None:
        parts, outside = _check_depth(text, max_depth, ijson, data)
    else:
        data, parts, outside = big.data, big.parts, big.outside
        if not warn or ijson or big.outside is not None:  # else orjson's value is measured (_fast_decode)
            big.check_depth(max_depth, ijson)
    duplicates: list[str] | None = None
    read_by_orjson = False  # then every number is finite (orjson refuses the others)
    try:
        if not warn:  # duplicate names are only warnings: the plain parser's verdict is the same
            surely = not values and big is not None and big.parts is not None and _surely_valid(big)
            value = None if surely else _PLAIN_DECODER.decode(text)
            return Document(
                text,
                value,
                warnings,
                _split=(parts, outside) if parts is not None and outside else None,
                _size=None if data is None else len(data),
            )
        value = _fast_decode(big, max_depth) if big is not None and not ijson else _UNDECODED
        read_by_orjson = value is not _UNDECODED
        if read_by_orjson:
            pass
        elif big is None and outside is None:
            value = _STRICT_DECODER.decode(text)
        else:
            if big is not None:
                big.check_depth(max_depth, ijson)  # before the recursive C parser reads it
            # The members the parser kept against those written (one colon outside strings each): fewer kept means
            # a duplicate name. Cheaper than the pairs hook, which builds a list of pairs for every object.
            members = _MemberCount()
            value = json.JSONDecoder(object_hook=members, parse_constant=_refuse_constant).decode(text)
            if members.kept != (outside if big is None else big.structure).count(b":"):  # type: ignore[union-attr]
                raise _Duplicate
    except JSONTextError:  # too deep (a big text's depth is measured late when orjson reads it)
        raise
    except _Duplicate:
        duplicates = []
        value = _dup_tolerant_decode(text, max_depth, ijson, duplicates)
    except (ValueError, RecursionError, _NonFinite) as exc:
        raise _diagnose(text, max_depth, ijson, exc) from None

    if big is not None and len(text) > PRECISE_WARNINGS_LIMIT and not ijson:
        warnings.extend(
            bounded_warnings(
                text,
                max_depth,
                duplicates or [],
                parts,
                outside,
                data,
                limit=PRECISE_WARNINGS_LIMIT,
                neutral=big.neutral_of,
                nines=big.nines if big.outside is None else None,
                first_line=first_line,
                u_escapes=big.u_escapes,
                finite=read_by_orjson,
            )
        )
    elif duplicates is not None or may_warn(text, data):
        warnings.extend(_warnings(text, max_depth, ijson, first_line))
    return Document(
        text,
        value,
        warnings,
        _split=(parts, outside) if parts is not None and outside else None,
        _unique_names=duplicates is None,
        _size=None if data is None else len(data),
    )


class _BigText:
    """What the checks of a big text share, each computed once at C speed when first needed: :attr:`data` (the
    text as UTF-8), its quotes made plain (:attr:`neutral`, :func:`~webapp.core.json.bytes.neutral_escapes`) and,
    asked for by ``string_parts`` (for the formatter), its strings split from the structure (:attr:`parts`,
    :attr:`outside`)."""

    def __init__(self, text: str, data: bytes | None, string_parts: bool) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass") if data is None else data
        self._neutral: bytes | None = None
        self.parts: list[bytes] | None = None
        self.outside: bytes | None = None
        if string_parts:
            self.parts = self.neutral.split(b'"')  # = split_strings(self.data), the neutral bytes kept
            self.outside = outside_strings(self.parts)
        self._structure: bytes | None = self.outside
        self._nines: bytes | None = None
        self._u_escapes: bool | None = None
        self._depth_checked = False

    @property
    def neutral(self) -> bytes:
        """:func:`~webapp.core.json.bytes.neutral_escapes` of :attr:`data`."""
        return self.neutral_of()

    def neutral_of(self) -> bytes:
        """:attr:`neutral`, as a function (for the checks that need it only now and then)."""
        if self._neutral is None:
            self._neutral = neutral_escapes(self.data)
        return self._neutral

    @property
    def structure(self) -> bytes:
        """Brackets and colons outside strings, in order (the bytes between strings, or a skeleton of them)."""
        if self._structure is None:
            self._structure = skeleton(self.neutral)
        return self._structure

    @property
    def nines(self) -> bytes:
        """:func:`~webapp.core.json.interop.number_nines` of :attr:`data` (what the number scans search)."""
        if self._nines is None:
            self._nines = number_nines(self.data)
        return self._nines

    @property
    def u_escapes(self) -> bool:
        """Whether :attr:`data` holds ``\\u`` (an escape, or a string's backslash followed by ``u``): without one,
        no escaped colon or surrogate needs looking for. A text without backslashes (one C-speed ``memchr``) holds
        none."""
        if self._u_escapes is None:
            self._u_escapes = b"\\" in self.data and _U_ESCAPE.search(self.data) is not None
        return self._u_escapes

    def check_depth(self, max_depth: int, ijson: bool) -> None:
        """Refuse nesting deeper than ``max_depth`` (measured on :attr:`structure`) before the recursive C parser
        reads the text: the precise path names the first problem, maybe an earlier one. Once is enough."""
        if not self._depth_checked:
            self._depth_checked = True
            if nesting_depth(self.structure) > max_depth:
                _warnings(self.text, max_depth, ijson)

    def integers(self, digits: int) -> Iterator[str]:
        """The integer tokens of at least ``digits`` digits (outside strings)."""
        if self.outside is not None:
            return integer_tokens(self.outside, digits)
        return integer_tokens(self.data, digits, outside_test(self.neutral_of), nines=self.nines)


_NOT_CONTROLS = bytes(range(0x20, 0x100))
_NOT_LINE_SPACE = bytes(c for c in range(256) if c not in b"\t\n\r")
#: In :func:`~webapp.core.json.bytes.neutral_escapes` of a text (``\\`` and ``\"`` made placeholders), a backslash
#: that starts no JSON escape (RFC 8259 §7).
_ODD_ESCAPE = re.compile(rb"\\(?:[^/bfnrtu]|u(?![0-9a-fA-F]{4})|\Z)")


def _surely_valid(big: _BigText) -> bool:
    """Whether a big text split at its strings (``string_parts``) is certainly what the json module accepts,
    found at C speed without building its values (about half the json module's time on a 45 MB journal).

    The text is its structure with strings in it; it is valid when (1) its quotes pair up, (2) the structure
    with each string written ``""`` is valid JSON (orjson reads it: a Rust parser as strict as RFC 8259, which
    refuses what the json module refuses there, ``NaN`` included, and more: ``1e400``, a BOM, nesting beyond
    1024), and (3) each string's body is valid: no raw control character (RFC 8259 §7: not even a tab or a line
    break) and no backslash that starts no escape. ``False`` means "not shown": the json module decides, and
    names the mistake, so the verdict is always the json module's."""
    parts, outside = big.parts, big.outside
    if parts is None or outside is None or not len(parts) & 1:  # an odd number of quotes: a string is not closed
        return False
    controls = big.data.translate(None, _NOT_CONTROLS)
    # Only tabs and line breaks, and all of them outside strings (the marks of the strings are not counted).
    if controls.translate(None, b"\t\n\r") or len(controls) != len(outside.translate(None, _NOT_LINE_SPACE)):
        return False
    if b"\\" in big.neutral and _ODD_ESCAPE.search(big.neutral):
        return False
    try:
        orjson.loads(outside.replace(STRING_MARK, b'""'))
    except orjson.JSONDecodeError:
        return False
    return True


_UNDECODED = object()
#: Integers of this many digits or more may be wider than 64 bits, which orjson reads as floats.
_WIDE_INTEGER_DIGITS = 19
_ESCAPED_COLON = re.compile(rb"\\u003[aA]")  # orjson writes it back as ":"
_U_ESCAPE = re.compile(rb"\\u")  # a regex finds these two bytes faster than bytes.find


def _dumps_depth_limit() -> int | None:
    """The deepest nesting ``orjson.dumps`` writes (``[]`` is 1; it refuses deeper values with "Recursion limit
    reached", 254 in orjson 3), found once by trying nested arrays and objects; ``None`` when they disagree."""
    limits = []
    for wrap in (lambda v: [v], lambda v: {"": v}):
        lo, hi = 0, 4096  # the limit is in [lo, hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            value: Any = 0
            for _ in range(mid):
                value = wrap(value)
            try:
                orjson.dumps(value)
                lo = mid
            except orjson.JSONEncodeError:
                hi = mid
        limits.append(lo)
    return limits[0] if limits[0] == limits[1] and 0 < limits[0] < 4095 else None


_DUMPS_DEPTH = _dumps_depth_limit()


def _fast_decode(big: _BigText, max_depth: int) -> Any:
    """The value of a big text read by orjson, several times faster than the json module (a journal is mostly
    strings, which it builds faster), or :data:`_UNDECODED` when its value could differ from the json module's or
    the text may nest deeper than ``max_depth``: orjson refuses the text (the json module then reads it, or names
    the mistake), an integer may be wider than 64 bits (orjson would read it as a float), or a member name is
    repeated in an object (orjson keeps the last value without a trace, so its value written again is missing that
    member's colon, at least).

    The value is written again anyway (for the colons), so its nesting is measured there too, instead of on the
    text's brackets outside strings (which needs its escapes made plain: the costliest scan of a big text). orjson
    refuses to write values nested deeper than :data:`_DUMPS_DEPTH`: wrapped in that many arrays less
    ``max_depth``, the value is written exactly when it nests at most ``max_depth`` deep, as the text does when
    no member name is repeated (each array or object of the text is one of the value)."""
    if next(big.integers(_WIDE_INTEGER_DIGITS), None) is not None:
        return _UNDECODED
    wraps = -1 if _DUMPS_DEPTH is None else _DUMPS_DEPTH - max_depth
    if wraps < 0:  # deeper than orjson writes: measured on the text
        big.check_depth(max_depth, False)
    try:
        value = orjson.loads(big.data)
        wrapped = value
        for _ in range(max(wraps, 0)):
            wrapped = [wrapped]
        again = orjson.dumps(wrapped)  # the wrapping adds brackets only, no colon
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return _UNDECODED  # refused, or nested too deep: the text is measured, then read by the json module
    if not big.u_escapes or _ESCAPED_COLON.search(big.data) is None:
        # Written again, the value has the text's colons (one per member, the rest in strings), as none is escaped.
        unchanged = again.count(b":") == big.data.count(b":")
    else:
        unchanged = _member_count(again) == big.structure.count(b":")
    return value if unchanged else _UNDECODED


def _member_count(compact: bytes) -> int:
    """How many members the objects of a compact JSON text hold, all told: one unescaped ``":`` per member (a quote
    inside a string is escaped, so an odd run of backslashes comes before it): the ``":`` preceded by an even
    number of backslashes, counted by inclusion and exclusion of ever longer runs (C-speed counts)."""
    count, run, sign = 0, b'":', 1
    while found := compact.count(run):
        count += sign * found
        run, sign = b"\\" + run, -sign
    return count


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
    if (not text.isascii() and RAW_SUSPECT.search(text)) or ("\\u" in text and ESCAPE_SUSPECT.search(text)):
        _warnings(text, max_depth, True)  # raises on what I-JSON forbids
    return value


NOT_IJSON = object()
"""What :func:`try_loads_ijson` returns for text that is not I-JSON."""

_LONG_DIGITS = re.compile(f"[0-9]{{{_WIDE_INTEGER_DIGITS}}}")  # an integer that may be wider than 64 bits
_ESCAPED_COLON_TEXT = re.compile(r"\\u003[aA]")


def _orjson_exact(text: str) -> Any:
    """The value of a small JSON text read by orjson (several times faster than the json module with the
    duplicate-name hook), or :data:`_UNDECODED` when the json module must decide: orjson refuses the text (it
    refuses ``NaN``, ``1e400`` and unpaired surrogate escapes, as I-JSON does, and all RFC 8259 errors), an integer
    may be wider than 64 bits (orjson would read it as a float), or a member name may be repeated (orjson keeps the
    last value silently).

    No name is repeated when the members kept account for every colon of the text (kept <= written <= colons), the
    usual ``arguments`` object; else when the value written again has the text's colons, one per member plus those
    in strings, which holds when no colon is written as an escape."""
    if _LONG_DIGITS.search(text):
        return _UNDECODED
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _UNDECODED
    colons = text.count(":")
    if not colons or (value.__class__ is dict and len(value) == colons):
        return value
    if "\\u003" in text and _ESCAPED_COLON_TEXT.search(text):
        return _UNDECODED
    try:
        again = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nesting deeper than orjson writes
        return _UNDECODED
    return value if again.count(b":") == colons else _UNDECODED


def try_loads_ijson(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """:func:`loads_ijson` without the diagnosis: the parsed value, or :data:`NOT_IJSON` exactly when
    :func:`loads_ijson` would raise. For callers that need only the verdict (the replay gate over a journal of
    100,000 items), so a bad item costs no more than a good one."""
    if text.count("{") + text.count("[") > max_depth:
        try:
            _check_depth(text, max_depth, True)
        except JSONTextError:
            return NOT_IJSON
    value = _orjson_exact(text)
    if value is _UNDECODED:
        try:
            value = _IJSON_DECODER.decode(text)
        except (_Duplicate, _NonFinite, ValueError, RecursionError):
            return NOT_IJSON
    if (not text.isascii() and RAW_SUSPECT.search(text)) or ("\\u" in text and ESCAPE_SUSPECT.search(text)):
        try:
            _warnings(text, max_depth, True)
        except JSONTextError:
            return NOT_IJSON
    return value


def parse_lines(
    text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int | None = None, ijson: bool = False
) -> list[JSONLine]:
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
    for number, offset, raw in line_records(text):
        try:
            doc = parse(raw, max_depth=max_depth, ijson=ijson, first_line=number)
        except JSONTextError as err:
            raise err.shifted(number - 1, offset) from None
        records.append(JSONLine(number, offset, doc))
    if not records:
        raise JSONTextError("empty", "The text is empty: paste a JSON value (or JSON Lines, one per line).", text, 0)
    return records


def line_records(text: str) -> Iterator[tuple[int, int, str]]:
    """The records of a JSON Lines text, unparsed: ``(line, offset, record text)`` for each non-blank line (the
    1-based line number, the 0-based character offset of its start in ``text``). A record is one line without its
    ``\\n``; a line of only spaces, tabs and ``\\r`` is blank. The one reading of the format that
    :func:`parse_lines` and the pages that check record by record share (JSON Lines, jsonlines.org)."""
    offset = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip(" \t\r"):
            yield number, offset, raw
        offset += len(raw) + 1


def looks_like_lines(text: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> bool:
    """Whether a text that failed to parse as one JSON value (``extra_data``) is meant as JSON Lines: at least two
    non-blank lines, the first of them a JSON value on its own. The pages read such a text as records (Format,
    Schema) instead of showing the one-value error."""
    first = None
    for count, (_, _, raw) in enumerate(line_records(text), start=1):
        if count == 1:
            first = raw
        else:
            break
    else:
        return False
    try:
        parse(first, max_depth=max_depth)
    except JSONTextError:
        return False
    return True


# --------------------------------------------------------------------------------------------------------------
# Fast path


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


class _MemberCount:
    """An ``object_hook`` that counts the members of the objects the parser built (of duplicate names, one)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept = 0

    def __call__(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.kept += len(obj)
        return obj


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def _finite(token: str) -> float:
    number = float(token)
    if math.isinf(number):  # 1e400: beyond a 64-bit double (I-JSON, RFC 7493 §2.2)
        raise _NonFinite(token)
    return number


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=_refuse_constant)
# The gate's: arguments hold few floats, so a check per float costs little.
_IJSON_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_strict, parse_constant=_refuse_constant, parse_float=_finite)
_PLAIN_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_RAW_DECODER = json.JSONDecoder()


def _dup_tolerant_decode(text: str, max_depth: int, ijson: bool, names: list[str]) -> Any:
    """Decode a text with duplicate member names, last value winning (like every mainstream parser); the
    duplicate names are appended to ``names``."""
    if ijson:  # duplicates are errors: let the precise path name the first one
        _warnings(text, max_depth, True)

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


def _check_depth(
    text: str, max_depth: int, ijson: bool, data: bytes | None = None
) -> tuple[list[bytes] | None, bytes | None]:
    """Refuse nesting deeper than ``max_depth`` before the recursive C parser sees it (C speed).

    :param data: ``text`` as UTF-8 when already encoded.
    :returns: the :func:`split_strings` parts and the bytes outside strings (joined with :data:`STRING_MARK`),
        when they were computed (the warnings and the formatter reuse them), else ``(None, None)``.
    """
    if text.count("{") + text.count("[") <= max_depth:
        return None, None
    parts = split_strings(text.encode("utf-8", "surrogatepass") if data is None else data)
    outside = outside_strings(parts)
    if nesting_depth(outside) > max_depth:
        _warnings(text, max_depth, ijson)  # names the first problem, maybe an earlier one
    return parts, outside


def _diagnose(text: str, max_depth: int, ijson: bool, exc: BaseException) -> JSONTextError:
    """The precise error for a text the fast path refused."""
    err = first_error(text, max_depth=max_depth, checks=Warnings(text, ijson=True) if ijson else None)
    if err is not None:
        return err
    # The precise path found nothing: say what the C parser said, at its place (never expected).
    position = getattr(exc, "pos", 0) or 0
    if isinstance(exc, RecursionError):
        return JSONTextError("too_deep", "The nesting is too deep for this parser.", text, 0)
    return JSONTextError("unexpected_token", f"This text could not be read: {exc}.", text, position)


def _too_large(size: int, limit: int) -> JSONTextError:
    human = f" ({_human_size(limit)})" if limit >= 1024 else ""
    return JSONTextError(
        "too_large", f"The document is {size:,} bytes; the limit is {limit:,} bytes{human}.", "", 0, excerpt=False
    )


def _human_size(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} bytes"


def _decode_utf8(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 strictly; a UTF-8 BOM is dropped (returned flag), UTF-16/32 and bad bytes are errors."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) and len(data) % 4 == 0:
        raise JSONTextError(
            "not_utf8",
            "The file is UTF-32 (it starts with a UTF-32 byte order mark); JSON "
            "exchanged between systems must be UTF-8 (RFC 8259 §8.1). Save it as UTF-8.",
            "",
            0,
        )
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise JSONTextError(
            "not_utf8",
            "The file is UTF-16 (it starts with a UTF-16 byte order mark); JSON "
            "exchanged between systems must be UTF-8 (RFC 8259 §8.1). Save it as UTF-8.",
            "",
            0,
        )
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8"), bom
    except UnicodeDecodeError as err:
        shown = data.decode("utf-8", "replace")
        offset = len(data[: err.start].decode("utf-8", "replace"))
        raise JSONTextError(
            "invalid_utf8",
            f"Byte 0x{data[err.start]:02X} (byte offset {err.start:,}) is not "
            "valid UTF-8: the file is in another encoding. Save it as UTF-8 (RFC 8259 §8.1).",
            shown,
            offset,
        ) from None


def _warnings(text: str, max_depth: int, ijson: bool, first_line: int = 1) -> list[JSONWarning]:
    """The precise path: the warnings of ``text`` (its first line numbered ``first_line``). :raises JSONTextError:
    at its first mistake (with ``ijson``, also at the first thing I-JSON forbids)."""
    checks = Warnings(text, ijson=ijson, first_line=first_line)
    Scanner(text, max_depth=max_depth, checks=checks).run()
    return checks.result()


def _is_member(value: Any, pointer: str) -> bool:
    """True when ``pointer`` names an object member (its parent is an object), not an array element."""
    parent = jpointer.split(pointer)[:-1]
    try:
        return isinstance(jpointer.resolve(value, jpointer.join(parent)), dict)
    except (KeyError, ValueError):
        return False
