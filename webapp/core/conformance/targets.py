"""Which servers the endpoint check may reach: loopback, and the host names of ``ALLOWED_TARGETS`` — nothing else,
so the page cannot be made to send requests into the network it runs in (server-side request forgery, OWASP
SSRF Prevention Cheat Sheet: an allow-list, the resolved addresses checked, no redirect followed outside it).

Pure: the caller resolves the name (``socket.getaddrinfo``) and hands the addresses in; :func:`judge_target` says
which address to connect to, so the connection goes to an address that was checked, not to whatever a second
lookup of the name answers (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Target", "TargetRefused", "allowed_targets", "split_target", "judge_target", "is_loopback"]

_SCHEMES = {"http": 80, "https": 443}


class TargetRefused(ValueError):
    """A URL the endpoint check will not reach; ``message`` says why and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Target:
    """A server the check may reach.

    :ivar scheme: ``http`` or ``https``; :ivar host: the name as written (lower case, no brackets);
    :ivar port: the port; :ivar path: the base path (``/v1``, no trailing slash); :ivar address: the checked IP
        address to connect to; :ivar allowed: reached because ``ALLOWED_TARGETS`` names it (else: loopback).
    """

    scheme: str
    host: str
    port: int
    path: str
    address: str
    allowed: bool

    @property
    def url(self) -> str:
        """The base URL as the user wrote it (the name, not the address)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = _SCHEMES[self.scheme] == self.port
        return f"{self.scheme}://{host}{'' if default else f':{self.port}'}{self.path}"


def allowed_targets(value: Any) -> frozenset[str]:
    """``ALLOWED_TARGETS`` as a set of lower-case host names: a list, or names separated by commas. There is no
    wildcard: each name is one the administrator chose to let the page reach."""
    if isinstance(value, str):
        value = value.split(",")
    return frozenset(str(name).strip().lower().strip("[]") for name in value or () if str(name).strip())


def split_target(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path)`` of a base URL such as ``http://127.0.0.1:5000/v1``.

    :raises TargetRefused: not http(s), no host, credentials or a query in it, a bad port.
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as err:
        raise TargetRefused(f"{text!r} is not a URL the check can use ({err})") from None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        raise TargetRefused(f"{text!r}: give an http:// or https:// base URL, such as http://127.0.0.1:5000/v1")
    if not parts.hostname:
        raise TargetRefused(f"{text!r} names no host")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("the URL holds credentials: give the key in its own field, never in the URL")
    if parts.query or parts.fragment:
        raise TargetRefused(f"{text!r}: the base URL takes no query or fragment")
    return scheme, parts.hostname.lower(), port or _SCHEMES[scheme], parts.path.rstrip("/")


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP address as text) is a loopback address, an IPv4-mapped IPv6 one included."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def judge_target(url: str, addresses: Iterable[str], allowed: Iterable[str]) -> Target:
    """The :class:`Target` of ``url`` when the check may reach it, given the addresses its host name resolved to.

    A host named by ``allowed`` (``ALLOWED_TARGETS``) may be reached at the first address it resolved to; any
    other host only when every address it resolved to is a loopback address (a name that also resolves elsewhere
    is refused: which one a connection gets is not ours to choose).

    :raises TargetRefused: the URL is unusable (:func:`split_target`), the name resolved to nothing, or it is not
        allowed; the message names the setting that would allow it.
    """
    scheme, host, port, path = split_target(url)
    found = list(dict.fromkeys(addresses))
    if not found:
        raise TargetRefused(f"{host!r} does not resolve to any address")
    names = allowed_targets(allowed)
    if host in names:
        return Target(scheme, host, port, path, found[0], True)
    if all(is_loopback(address) for address in found):
        return Target(scheme, host, port, path, found[0], False)
    elsewhere = next(address for address in found if not is_loopback(address))
    raise TargetRefused(
        f"{host!r} resolves to {elsewhere}, which is not this machine: the endpoint check reaches only loopback "
        "addresses and the hosts named in ALLOWED_TARGETS (FLASK_ALLOWED_TARGETS, or --allow on the command line)"
    )
