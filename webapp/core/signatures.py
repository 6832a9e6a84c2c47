"""File signatures ("magic numbers"): which binary format a file's first bytes name; a file that holds no text.

One table for the two places that look: an inline attachment's bytes must match its declared media type
(:mod:`webapp.core.responses.attachments`), and a file named where JSON text was expected (the command line, a
corpus) that is binary data is called so, its format named (``FILE looks like binary data (PNG), not JSON text``),
as an empty file is called empty (:func:`file_problem`). No JSON text starts with any of these signatures (a JSON
text starts with whitespace or a value: RFC 8259 §2), so none is read as binary by mistake.

Sources, one per row: PNG https://www.w3.org/TR/png-3/#5PNG-file-signature; JPEG ITU-T T.81 Annex B (SOI, then a
marker); GIF https://www.w3.org/Graphics/GIF/spec-gif89a.txt (Header); WebP
https://developers.google.com/speed/webp/docs/riff_container; PDF ISO 32000-1 §7.5.2 (the header line "%PDF-");
gzip RFC 1952 §2.3.1; ZIP https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT §4.3.7 and §4.3.16 (local
file header, or the end record of an empty archive); Parquet https://parquet.apache.org/docs/file-format/ ("PAR1");
SQLite https://www.sqlite.org/fileformat.html §1.3.1; bzip2 https://sourceware.org/bzip2/ (its format:
"BZh", the block size digit, the block magic); xz https://tukaani.org/xz/xz-file-format.txt §2.1.1.1; Zstandard
RFC 8878 §3.1.1.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SIGNATURES", "Signature", "binary_problem", "file_problem", "matches", "sniff"]


@dataclass(frozen=True)
class Signature:
    """A binary format known by its first bytes.

    :ivar name: what the format is called in a message (``PNG``).
    :ivar media_type: its media type (``image/png``).
    :ivar test: whether bytes (the whole file, or at least its first 16 bytes) start as this format does.
    """

    name: str
    media_type: str
    test: Callable[[bytes], bool]


#: The formats, in the order they are tried (none's signature is a prefix of another's).
SIGNATURES: tuple[Signature, ...] = (
    Signature("PNG", "image/png", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n")),
    Signature("JPEG", "image/jpeg", lambda b: b.startswith(b"\xff\xd8\xff")),
    Signature("GIF", "image/gif", lambda b: b[:6] in (b"GIF87a", b"GIF89a")),
    Signature("WebP", "image/webp", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP"),
    Signature("PDF", "application/pdf", lambda b: b.startswith(b"%PDF-")),
    Signature("gzip", "application/gzip", lambda b: b.startswith(b"\x1f\x8b")),
    Signature("ZIP", "application/zip", lambda b: b[:4] in (b"PK\x03\x04", b"PK\x05\x06")),
    Signature("Parquet", "application/vnd.apache.parquet", lambda b: b.startswith(b"PAR1")),
    Signature("SQLite", "application/vnd.sqlite3", lambda b: b.startswith(b"SQLite format 3\x00")),
    Signature(
        "bzip2",
        "application/x-bzip2",
        lambda b: b[:3] == b"BZh" and b[3:4] in b"123456789" and b[4:10] in (b"1AY&SY", b"\x17rE8P\x90"),
    ),
    Signature("xz", "application/x-xz", lambda b: b.startswith(b"\xfd7zXZ\x00")),
    Signature("Zstandard", "application/zstd", lambda b: b.startswith(b"\x28\xb5\x2f\xfd")),
)

#: A UTF-8 byte order mark and JSON's whitespace (RFC 8259 §2) alone.
_BLANK = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*")

_BY_MEDIA_TYPE = {signature.media_type: signature for signature in SIGNATURES}


def sniff(data: bytes) -> Signature | None:
    """The format whose signature ``data`` starts with, or ``None`` (text, or a format not in the table).

    :param data: the file's bytes, or at least its first 16.
    """
    return next((signature for signature in SIGNATURES if signature.test(data)), None)


def matches(media_type: str, data: bytes) -> bool:
    """Whether ``data`` starts as ``media_type`` does; ``True`` for a media type with no signature here (text)."""
    signature = _BY_MEDIA_TYPE.get(media_type)
    return signature is None or signature.test(data)


def binary_problem(data: bytes, expected: str = "JSON text") -> str | None:
    """Words saying that a file's ``data`` is binary data of a known format, following the file's name
    (``looks like binary data (PNG), not JSON text``), or ``None``.

    :param expected: what the file should have held.
    """
    found = sniff(data)
    return None if found is None else f"looks like binary data ({found.name}), not {expected}"


def file_problem(data: bytes) -> str | None:
    """What makes a file's bytes no JSON text at all, in words following the file's name, or ``None``: it is empty
    (``is empty: ...``; a UTF-8 byte order mark and JSON whitespace alone count as empty) or binary data
    (:func:`binary_problem`). The words speak of a file; a pasted text's are the parser's own
    (:class:`webapp.core.json.JSONTextError`).
    """
    if _BLANK.fullmatch(data):  # looks no further than the first byte that is not whitespace (no copy)
        return f"is empty{'' if not data else ' (only whitespace)'}: there is no JSON value in it"
    return binary_problem(data)
