"""Inline attachments of a ``/v1/responses`` request: ``data:`` URLs (RFC 2397), checked and never fetched.

Pure (no Flask, no I/O). An image or a file is accepted only inline, base64-encoded, of an allowed media type whose
first bytes match it, within a size cap (:class:`Limits`); a remote URL is refused, since the server never fetches
one.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from webapp.core.responses.fields import (
    INVALID_VALUE,
    MISSING,
    UNSUPPORTED,
    MiB,
    RequestError,
    expect_enum,
    expect_string,
    path_key,
    required,
)
from webapp.core.signatures import matches

IMAGE_DETAILS = ("low", "high", "auto")
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json")
_EXTENSIONS = {
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
}


@dataclass(frozen=True)
class Limits:
    """Caps on inline attachments (decoded bytes) and the media types accepted.

    The defaults keep a base64 attachment (4/3 of its size) well inside the default 20 MiB body cap.
    """

    max_image_bytes: int = 5 * MiB
    max_file_bytes: int = 5 * MiB
    image_types: tuple[str, ...] = ("image/png", "image/jpeg", "image/gif", "image/webp")
    file_types: tuple[str, ...] = ("application/pdf",) + TEXT_TYPES


#: The caps a request is checked with unless told otherwise.
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class DataUrl:
    """An inline attachment, decoded and checked.

    :param media_type: lower-case media type, e.g. ``image/png``.
    :param size: decoded length in bytes.
    """

    media_type: str
    size: int


def parse_data_url(
    url: str, path: str, *, allowed: tuple[str, ...], max_bytes: int, default_type: str | None = None
) -> DataUrl:
    """Check an inline attachment: ``data:<media type>[;param]*;base64,<data>`` (RFC 2397).

    :param allowed: media types accepted.
    :param max_bytes: cap on the decoded size.
    :param default_type: media type to assume for bare base64 (no ``data:`` prefix); ``None`` refuses it.
    :raises RequestError: a remote URL (never fetched), not base64, malformed base64, a media type not in
        ``allowed``, bytes that do not match the declared type, an empty or an oversized attachment.
    """
    if re.match(r"(?i)[a-z][a-z0-9+.-]*://", url):
        raise RequestError(
            "remote URLs are not fetched by this server; send the content inline as a data: URL "
            "(data:<media type>;base64,<data>)",
            path,
            UNSUPPORTED,
        )
    if url[:5].lower() == "data:":
        header, comma, payload = url[5:].partition(",")
        if not comma:
            raise RequestError("malformed data: URL (no comma before the data)", path, INVALID_VALUE)
        params = [p.strip() for p in header.split(";")]
        media_type = params[0].lower() or "text/plain"
        if "base64" not in (p.lower() for p in params[1:]):
            raise RequestError(
                "the data: URL must be base64-encoded (data:<media type>;base64,<data>)", path, UNSUPPORTED
            )
    elif default_type is not None:
        media_type, payload = default_type, url
    else:
        raise RequestError("expected a data: URL (data:<media type>;base64,<data>)", path, UNSUPPORTED)
    if media_type not in allowed:
        raise RequestError(
            f"media type {media_type!r} is not accepted; allowed: {', '.join(allowed)}", path, UNSUPPORTED
        )
    if len(payload) > (max_bytes + 2) // 3 * 4 + 4:  # refuse before decoding megabytes for nothing
        raise RequestError(f"the attachment is larger than the limit of {max_bytes:,} bytes", path, INVALID_VALUE)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as err:
        reason = str(err)
        if "padding" in reason:
            reason = "its length is not a multiple of 4 (missing '=' padding?)"
        elif "Only base64 data" in reason or "Non-base64" in reason:
            reason = "characters outside the base64 alphabet (A-Z a-z 0-9 + / =, no spaces or line breaks)"
        raise RequestError(f"malformed base64 data: {reason}", path, INVALID_VALUE) from None
    if not data:
        raise RequestError("the attachment is empty", path, INVALID_VALUE)
    if len(data) > max_bytes:
        raise RequestError(f"the attachment is {len(data):,} bytes; the limit is {max_bytes:,}", path, INVALID_VALUE)
    if not matches(media_type, data):  # a PNG labelled image/jpeg is refused
        raise RequestError(
            f"the data does not look like {media_type} (its first bytes do not match)", path, INVALID_VALUE
        )
    if media_type in TEXT_TYPES:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestError(f"a {media_type} attachment must be UTF-8 text", path, INVALID_VALUE) from None
    return DataUrl(media_type, len(data))


def check_input_image(part: dict[str, Any], path: str, limits: Limits) -> None:
    """An ``input_image`` part at ``path``: ``image_url`` a ``data:`` URL of an image type within
    ``limits.max_image_bytes``, ``detail`` one of :data:`IMAGE_DETAILS`.

    :raises RequestError: a ``file_id`` (there is no file store), no ``image_url``, or what :func:`parse_data_url`
        refuses.
    """
    if part.get("file_id") is not None:
        raise RequestError(
            "file ids need a file store this server does not have; send image_url as a data: URL",
            path_key(path, "file_id"),
            UNSUPPORTED,
        )
    url = expect_string(
        required(part, "image_url", path, " (a data: URL)"),
        path_key(path, "image_url"),
        nullable=True,
        max_length=20 * MiB,
    )
    if url is None:
        raise RequestError("an image needs image_url (a data: URL)", path_key(path, "image_url"), MISSING)
    expect_enum(part.get("detail"), path_key(path, "detail"), IMAGE_DETAILS, nullable=True)
    parse_data_url(url, path_key(path, "image_url"), allowed=limits.image_types, max_bytes=limits.max_image_bytes)


def check_input_file(part: dict[str, Any], path: str, limits: Limits) -> None:
    """An ``input_file`` part at ``path``: ``file_data`` (a ``data:`` URL, or bare base64 when ``filename``'s
    extension names the type; the spec calls it "base64-encoded data") or ``file_url`` (a ``data:`` URL), not both,
    of a file type within ``limits.max_file_bytes``.

    :raises RequestError: a ``file_id``, neither or both sources, or what :func:`parse_data_url` refuses.
    """
    filename = expect_string(part.get("filename"), path_key(path, "filename"), nullable=True, max_length=255)
    if part.get("file_id") is not None:
        raise RequestError(
            "file ids need a file store this server does not have; send file_data as a data: URL",
            path_key(path, "file_id"),
            UNSUPPORTED,
        )
    file_url = expect_string(part.get("file_url"), path_key(path, "file_url"), nullable=True)
    file_data = expect_string(part.get("file_data"), path_key(path, "file_data"), nullable=True, max_length=32 * MiB)
    if file_data is None and file_url is None:
        raise RequestError("a file needs file_data (a data: URL)", path_key(path, "file_data"), MISSING)
    if file_data is not None and file_url is not None:
        raise RequestError("send either file_data or file_url, not both", path_key(path, "file_url"), INVALID_VALUE)
    if file_url is not None:
        parse_data_url(file_url, path_key(path, "file_url"), allowed=limits.file_types, max_bytes=limits.max_file_bytes)
        return
    assert file_data is not None
    # The spec calls file_data "base64-encoded data": bare base64 is accepted when the filename says the type.
    extension = re.search(r"\.[A-Za-z0-9]+$", filename or "")
    default = _EXTENSIONS.get(extension.group(0).lower()) if extension else None
    parse_data_url(
        file_data,
        path_key(path, "file_data"),
        allowed=limits.file_types,
        max_bytes=limits.max_file_bytes,
        default_type=default,
    )
