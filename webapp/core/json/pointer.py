"""RFC 6901 JSON Pointer: build, split and resolve pointers; the one path notation shown to users."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def escape(token: str | int) -> str:
    """Escape one reference token (RFC 6901 §3: ``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo :func:`escape` (``~1`` first, then ``~0``, as RFC 6901 §4 says)."""
    return token.replace("~1", "/").replace("~0", "~")


def join(tokens: Iterable[str | int]) -> str:
    """Pointer for a path of object keys and array indexes: ``["a", 0, "b/c"]`` → ``/a/0/b~1c``.

    The empty path is ``""``, the whole document.
    """
    return "".join("/" + escape(token) for token in tokens)


def child(pointer: str, token: str | int) -> str:
    """The pointer one level below ``pointer``."""
    return f"{pointer}/{escape(token)}"


def split(pointer: str) -> list[str]:
    """Reference tokens of ``pointer`` (unescaped).

    :raises ValueError: when ``pointer`` is neither ``""`` nor starts with ``/`` (RFC 6901 §3).
    """
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must be empty or start with '/': {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """The value ``pointer`` names inside ``document``.

    :raises KeyError: when a member or index does not exist (the message names the pointer).
    :raises ValueError: on a malformed pointer.
    """
    value = document
    for token in split(pointer):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif (
            isinstance(value, list)
            and token.isascii()
            and token.isdigit()
            and (token == "0" or token[0] != "0")
            and len(token) <= len(str(len(value)))
            and int(token) < len(value)
        ):
            value = value[int(token)]
        else:
            raise KeyError(f"{pointer!r} does not exist in the document")
    return value
