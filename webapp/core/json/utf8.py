"""A JSON text's bytes read as text: strict UTF-8 (RFC 8259 §8.1), a UTF-8 byte order mark dropped.

JSON exchanged between systems must be UTF-8; a file in UTF-16 or UTF-32, or with a byte that is not UTF-8, is
refused with the byte named, never decoded with replacement characters in silence.
"""

from __future__ import annotations

import codecs

from webapp.core.json.diagnose import JSONTextError

__all__ = ["decode_utf8", "shown_text"]


def decode_utf8(data: bytes) -> tuple[str, bool]:
    """Decode UTF-8 strictly; a UTF-8 BOM is dropped (returned flag), UTF-16/32 and bad bytes are errors.

    :returns: ``(text, whether a BOM was dropped)``.
    :raises JSONTextError: ``not_utf8`` (a UTF-16 or UTF-32 byte order mark), ``invalid_utf8`` (naming the first
        bad byte and its byte offset; the excerpt shows the text decoded with replacement characters).
    """
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
            "valid UTF-8: the text was sent in another encoding. Save it as UTF-8 (RFC 8259 §8.1).",
            shown,
            offset,
        ) from None


def shown_text(data: str | bytes) -> str:
    """Bytes as a text box shows them: UTF-8, a UTF-8 BOM dropped, each byte that is not UTF-8 as U+FFFD (what is
    checked is the bytes themselves, through :func:`decode_utf8`, whose error names the first such byte); a ``str``
    is given back as it is.

    :returns: the text (never raises).
    """
    if isinstance(data, str):
        return data
    return data.decode("utf-8", "replace").removeprefix("\ufeff")
