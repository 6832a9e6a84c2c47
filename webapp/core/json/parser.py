"""The parse API: :func:`parse` reads one JSON text strictly (RFC 8259, I-JSON RFC 7493), two speeds, one verdict.

* the **fast path** is CPython's C parser (:mod:`~webapp.core.json.fast`) with an ``object_pairs_hook`` that
  notices duplicate member names and a ``parse_constant`` that refuses ``NaN``/``Infinity``; cheap C-speed checks
  on the text (bracket counts, ``str.isascii``, small regexes) decide whether anything else needs a closer look. A
  big text is read by orjson instead whenever its value is certainly the same
  (:mod:`~webapp.core.json.orjson_read`);
* the **precise path** (:class:`~webapp.core.json.scan.Scanner`, iterative: no ``RecursionError`` at any depth)
  runs only when the fast path failed or a cheap check fired (:mod:`~webapp.core.json.precise`). It names the real
  mistake at its line:column with a caret excerpt (:mod:`~webapp.core.json.diagnose`), and finds the warnings with
  their places (:mod:`~webapp.core.json.interop`).

Big texts (over :data:`~webapp.core.json.bigtext.BIG_TEXT` characters) are checked at C speed on their bytes
(:mod:`~webapp.core.json.bigtext`), and beyond :data:`~webapp.core.json.interop.PRECISE_WARNINGS_LIMIT` characters
their warnings are located in the first part and counted in the rest, so a 45 MB document is never read token by
token in Python. Where the value at a JSON Pointer starts is found on demand (:meth:`Document.positions
<webapp.core.json.document.Document.positions>`).
"""

from __future__ import annotations

import codecs
import json

from webapp.core.json.bigtext import BIG_TEXT, BigText, paused_gc, surely_valid
from webapp.core.json.diagnose import JSONTextError
from webapp.core.json.document import Document
from webapp.core.json.fast import (
    PLAIN_DECODER,
    STRICT_DECODER,
    DuplicateName,
    MemberCount,
    NonFinite,
    dup_tolerant_decode,
    refuse_constant,
)
from webapp.core.json.interop import PRECISE_WARNINGS_LIMIT, JSONWarning, bounded_warnings, may_warn
from webapp.core.json.limits import DEFAULT_MAX_DEPTH, check_depth, too_large
from webapp.core.json.orjson_read import UNDECODED, orjson_big_value
from webapp.core.json.precise import refusal, warnings_of
from webapp.core.json.utf8 import decode_utf8

__all__ = ["parse"]


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
    :param string_parts: a big text's strings are split from its structure
        (:func:`~webapp.core.json.bytes.split_strings`) for
        :meth:`Document.take_string_parts` to hand over (the formatter's first step), and its nesting and numbers
        are checked on the parts. Otherwise they are checked without a Python object per string
        (:func:`~webapp.core.json.bytes.skeleton`), which is what a caller that needs only the values wants.
    :param values: ``False`` when the caller needs only the verdict and the text (a download of the formatted
        text), with ``warn=False``: a big text split with ``string_parts`` is then not decoded when C-speed checks
        show it valid (:func:`~webapp.core.json.bigtext.surely_valid`), and :attr:`Document.value` is ``None``.
        The verdict is the same.
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
            raise too_large(len(data), max_bytes)
        text, bom = decode_utf8(data)
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
            raise too_large(len(data), max_bytes)

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
    big = BigText(text, data, string_parts) if len(text) > BIG_TEXT else None
    if big is None:
        parts, outside = check_depth(text, max_depth, ijson, data)
    else:
        data, parts, outside = big.data, big.parts, big.outside
        if not warn or ijson or big.outside is not None:  # else orjson's value is measured (orjson_big_value)
            big.check_depth(max_depth, ijson)
    duplicates: list[str] | None = None
    read_by_orjson = False  # then every number is finite (orjson refuses the others)
    try:
        if not warn:  # duplicate names are only warnings: the plain parser's verdict is the same
            surely = not values and big is not None and big.parts is not None and surely_valid(big)
            value = None if surely else PLAIN_DECODER.decode(text)
            return Document(
                text,
                value,
                warnings,
                _split=(parts, outside) if parts is not None and outside else None,
                _size=None if data is None else len(data),
            )
        value = orjson_big_value(big, max_depth) if big is not None and not ijson else UNDECODED
        read_by_orjson = value is not UNDECODED
        if read_by_orjson:
            pass
        elif big is None and outside is None:
            value = STRICT_DECODER.decode(text)
        else:
            if big is not None:
                big.check_depth(max_depth, ijson)  # before the recursive C parser reads it
            # The members the parser kept against those written (one colon outside strings each): fewer kept means
            # a duplicate name. Cheaper than the pairs hook, which builds a list of pairs for every object.
            members = MemberCount()
            value = json.JSONDecoder(object_hook=members, parse_constant=refuse_constant).decode(text)
            if members.kept != (outside if big is None else big.structure).count(b":"):  # type: ignore[union-attr]  # outside is set when big is not
                raise DuplicateName
    except JSONTextError:  # too deep (a big text's depth is measured late when orjson reads it)
        raise
    except DuplicateName:
        duplicates = []
        value = dup_tolerant_decode(text, max_depth, ijson, duplicates)
    except (ValueError, RecursionError, NonFinite) as exc:
        raise refusal(text, max_depth, ijson, exc) from None

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
        warnings.extend(warnings_of(text, max_depth, ijson, first_line))
    return Document(
        text,
        value,
        warnings,
        _split=(parts, outside) if parts is not None and outside else None,
        _unique_names=duplicates is None,
        _size=None if data is None else len(data),
    )
