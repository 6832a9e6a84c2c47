"""Compaction items of the test model: a conversation sealed into one ``encrypted_content`` string.

``POST /v1/responses/compact`` (Open Responses 2026-04-24, ``CompactResource``; spec notes §1.8) answers a
``compaction`` item that a client passes back, as is, as the base input of a new chain. A real provider encrypts a
summary only it can read; this server seals the compacted items themselves so that it can take them back:

    orc1.<payload>.<tag>

``payload`` is the base64url (no padding) of the zlib-compressed JSON ``{"v": 1, "model": ..., "items": [...]}``;
``tag`` the base64url of HMAC-SHA256(key, ``"orc1." + payload``) (RFC 2104). It is *sealed*, not secret: anyone can
read the items, nobody without the key can change them. That is what matters here: the items were gated when they
were compacted, and a forged or edited compaction item would smuggle ungated items (an unfinished call, say) past the
gate. The tag is checked before anything is decompressed, so only this server's own output is ever inflated.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import zlib
from typing import Any

PREFIX = "orc1."
VERSION = 1
#: ``CompactionSummaryItemParam.encrypted_content`` has ``maxLength`` 10485760 in the spec.
MAX_SEALED = 10 * 1024 * 1024
#: A sealed payload never inflates beyond this (it was at most the request body cap when sealed).
MAX_INFLATED = 64 * 1024 * 1024

__all__ = ["SealError", "derive_key", "seal", "unseal", "compaction_item", "PREFIX", "MAX_SEALED"]


class SealError(ValueError):
    """``encrypted_content`` that this server did not seal, or that was changed since (the message says which)."""


def derive_key(secret: bytes) -> bytes:
    """The sealing key for compaction items, derived from the server's secret (HMAC-SHA256 with a fixed label),
    so the same secret can sign other things without the two ever being confused.

    :param secret: the server's secret bytes (at least 16 bytes of randomness).
    """
    return hmac.new(secret, b"openresponses-inspector compaction v1", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _tag(key: bytes, payload: str) -> str:
    return _b64(hmac.new(key, (PREFIX + payload).encode("ascii"), hashlib.sha256).digest())


def seal(items: list[dict[str, Any]], key: bytes, *, model: str) -> str:
    """Seal ``items`` (JSON-serialisable item objects, in order) into an ``encrypted_content`` string.

    :param key: from :func:`derive_key`.
    :param model: the model that compacted them (kept for the record).
    :raises SealError: the sealed text would exceed :data:`MAX_SEALED` characters (the spec's ``maxLength``).
    """
    document = json.dumps(
        {"v": VERSION, "model": model, "items": items}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    payload = _b64(zlib.compress(document, 6))
    sealed = f"{PREFIX}{payload}.{_tag(key, payload)}"
    if len(sealed) > MAX_SEALED:
        raise SealError(
            f"the compacted conversation is {len(sealed)} characters sealed, more than the "
            f"{MAX_SEALED} an encrypted_content may hold"
        )
    return sealed


def unseal(sealed: str, key: bytes) -> list[dict[str, Any]]:
    """The items sealed in ``sealed`` by :func:`seal` with the same ``key``.

    :raises SealError: not in this server's format, or the tag does not match (another key, or changed).
    """
    if not sealed.startswith(PREFIX) or sealed.count(".") != 2:
        raise SealError(
            "not a compaction item of this server (expected 'orc1.<payload>.<tag>'): compaction items "
            "are sealed by the provider that made them, and only it can take them back"
        )
    payload, _, tag = sealed[len(PREFIX) :].partition(".")
    if not hmac.compare_digest(tag.encode("ascii", "replace"), _tag(key, payload).encode("ascii")):
        raise SealError(
            "the seal does not match: the content was changed, or sealed by another server (or with another secret)"
        )
    try:
        inflater = zlib.decompressobj()
        document = inflater.decompress(_unb64(payload), MAX_INFLATED)
        if inflater.unconsumed_tail:
            raise SealError("the sealed payload inflates beyond the limit")
        value = json.loads(document)
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as err:
        # Only reachable with the right key and a broken payload: a bug of the sealing side, still not a 500.
        raise SealError(f"the sealed payload cannot be read: {err}") from None
    items = value.get("items") if isinstance(value, dict) and value.get("v") == VERSION else None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise SealError("the sealed payload is not a list of items of version 1")
    return items


def compaction_item(item_id: str, encrypted_content: str) -> dict[str, Any]:
    """A ``compaction`` output item (``CompactionBody``: ``type``, ``id``, ``encrypted_content``)."""
    return {"type": "compaction", "id": item_id, "encrypted_content": encrypted_content}
