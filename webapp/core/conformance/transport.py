"""What the conformance cases need from the network, as protocols: the cases are pure, the caller hands them a
:class:`Transport` (``webapp/check_endpoint.py`` is the real one: HTTP and WebSocket behind the target guard, a
deadline per case, the key held in memory only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Answer", "Socket", "Transport", "TransportError"]


class TransportError(Exception):
    """The server could not be asked or did not answer in time (refused connection, timeout, target refused by the
    guard, an answer over the size limit). ``message`` is plain words and never holds the key."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: ``status``, ``content_type`` (``None`` when absent) and the body as text (UTF-8; a byte that
    is not UTF-8 is U+FFFD), cut at the transport's size limit (``cut`` then says so)."""

    status: int
    content_type: str | None
    text: str
    cut: bool = False


class Socket(Protocol):
    """A WebSocket connection to ``{base}/responses``."""

    def send(self, text: str) -> None:
        """Send one text message. :raises TransportError: closed, or out of time."""

    def receive(self, timeout: float | None = None) -> str:
        """The next text message, waiting at most ``timeout`` seconds (``None``: what is left of the case's time).

        :raises TransportError: closed, or out of time."""

    def close(self) -> None:
        """Close the connection (no error if it is closed already)."""


class Transport(Protocol):
    """The server under test, at its base URL (``http://host:port/v1``)."""

    def post(self, path: str, body: dict[str, Any]) -> Answer:
        """``POST {base}{path}`` with ``body`` as JSON and the key as a Bearer token.

        :raises TransportError: the request could not be made or answered in time.
        """

    def connect(self) -> Socket:
        """Open a WebSocket to ``{base}/responses`` (``ws://``/``wss://``), the key as a Bearer token.

        :raises TransportError: the handshake failed or timed out.
        """
