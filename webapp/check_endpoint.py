"""The endpoint check's network side, shared by the ``/stream`` page and ``python -m webapp check-endpoint``: run
the conformance cases (:data:`webapp.core.conformance.CASES`) against a server the user names, over HTTP (``httpx``)
and WebSocket (``websockets``).

What holds, whoever asks:

* **Only loopback and ``ALLOWED_TARGETS``** are reached (:func:`webapp.core.conformance.judge_target`): the name is
  resolved once, every address it resolved to is checked, and the connections go to the checked addresses (a
  second lookup could answer another: DNS rebinding). No redirect is followed.
* **One deadline per case** (``timeout`` seconds) over every connect, header, body and WebSocket frame, that no
  server behaviour can extend: every wait gets what is left of it, and a watchdog shuts every connection of the
  case down when it runs out (a per-read timeout alone restarts on every byte, so a server dripping its answer
  could hold a case for ever). A case that runs out ends with a timeout in its result. Answers are read up to
  ``max_bytes``.
* **The key is never stored, logged or echoed**: it lives in the transport of one run and goes out only in the
  ``Authorization`` header. The server's bytes are checked and linted as they came; then every text of the case's
  result (the checks, the bodies, the streams' events and findings, the errors) has the key replaced by
  ``[the key]`` before anything shows, stores or logs it (:func:`redact`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from webapp.core.conformance import (
    CASE_IDS,
    CASES,
    Answer,
    Case,
    EndpointReport,
    Target,
    TargetRefused,
    TransportError,
    judge_target,
    run_case,
    split_target,
)
from webapp.core.responses.testmodel import MODEL_NAME

__all__ = ["DEFAULT_TIMEOUT", "MAX_ANSWER_BYTES", "PARALLEL", "check_endpoint", "resolve_target"]

#: Seconds each case may take, from its first request to its last answer.
DEFAULT_TIMEOUT = 60.0
#: The most bytes of one answer (or one WebSocket message) read; more is cut and said so.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
#: Cases run at once (the suite runs them all at once; a few are enough and spare the server).
PARALLEL = 4
_REDACTED = "[the key]"
# websockets logs every handshake header at DEBUG, the Authorization header with the key among them: its logger for
# the check never goes below WARNING, whatever the root logger's level.
_WEBSOCKET_LOG = logging.getLogger(f"{__name__}.websocket")
_WEBSOCKET_LOG.setLevel(logging.WARNING)

Resolver = Callable[[str, int], Iterable[str]]


def _resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, IPv4 first (a loopback server often listens on 127.0.0.1 alone)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as err:
        raise TargetRefused(f"{host!r} cannot be resolved ({err.strerror or err})") from None
    found = list(dict.fromkeys(str(info[4][0]) for info in infos))
    return sorted(found, key=lambda address: ":" in address)


def resolve_target(url: str, allowed: Iterable[str], resolve: Resolver = _resolve) -> tuple[Target, list[str]]:
    """The target ``url`` names, judged with the addresses its host resolves to, and those addresses (every one
    checked) in the order to try them.

    :raises TargetRefused: the URL is unusable, or not loopback and not in ``allowed``.
    """
    _, host, port, _ = split_target(url)
    addresses = list(resolve(host, port))
    target = judge_target(url, addresses, allowed)
    return target, [target.address, *(a for a in addresses if a != target.address)]


class _Transport:
    """One case's :class:`~webapp.core.conformance.Transport`: its deadline, its connections, the key.

    The deadline is kept by a watchdog (a timer) that shuts down every socket the case opened when it runs out:
    a read blocked on a server that sends a byte now and then ends there, whatever the per-read timeouts.
    """

    def __init__(self, target: Target, addresses: list[str], key: str, timeout: float, max_bytes: int) -> None:
        self.target = target
        self.addresses = addresses
        self._key = key
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.client = httpx.Client(follow_redirects=False, trust_env=False, verify=True)
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._watchdog = threading.Timer(timeout, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()

    # -- the deadline
    def _out_of_time(self) -> TransportError:
        return TransportError(f"the case ran out of time ({self.timeout:g} s)")

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.expired:
            raise self._out_of_time()
        return left

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _shut(sock)

    def _watch(self, sock: socket.socket | None) -> None:
        """Shut ``sock`` down when the case runs out of time (at once if it has)."""
        if sock is None:
            return
        with self._lock:
            if not self.expired:
                self._sockets.append(sock)
                return
        _shut(sock)

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        # httpcore's trace hook hands over each new connection's stream: its socket is watched from the start.
        if event == "connection.connect_tcp.complete" and info.get("return_value") is not None:
            self._watch(info["return_value"].get_extra_info("socket"))

    def _url(self, address: str, path: str, scheme: str | None = None) -> str:
        host = f"[{address}]" if ":" in address else address
        return f"{scheme or self.target.scheme}://{host}:{self.target.port}{self.target.path}{path}"

    def _host_header(self) -> str:
        host = f"[{self.target.host}]" if ":" in self.target.host else self.target.host
        default = {"http": 80, "https": 443}[self.target.scheme] == self.target.port
        return host if default else f"{host}:{self.target.port}"

    # -- HTTP
    def post(self, path: str, body: dict[str, Any]) -> Answer:
        data = json.dumps(body).encode("utf-8")
        headers = {
            "Host": self._host_header(),
            "Content-Type": "application/json",
            "Authorization": f"Bearer {self._key}",
            "Accept": "text/event-stream, application/json",
        }
        extensions: dict[str, Any] = {"trace": self._trace}
        if self.target.scheme == "https":
            extensions["sni_hostname"] = self.target.host
        last: Exception | None = None
        for address in list(self.addresses):
            try:
                answer = self._post(self._url(address, path), data, headers, extensions)
            except httpx.TimeoutException:
                raise TransportError(f"no answer in time from {self.target.url}{path} ({self.timeout:g} s)") from None
            except httpx.HTTPError as err:
                if self.expired:
                    raise TransportError(
                        f"no answer in time from {self.target.url}{path} ({self.timeout:g} s)"
                    ) from None
                if isinstance(err, httpx.ConnectError):
                    last = err
                    continue
                raise TransportError(f"POST {self.target.url}{path} failed: {err}") from None
            self.addresses = [address, *(a for a in self.addresses if a != address)]  # the one that answers first
            return answer
        raise TransportError(f"cannot connect to {self.target.url} ({last})")

    def _post(self, url: str, data: bytes, headers: dict[str, str], extensions: dict[str, Any]) -> Answer:
        timeout = httpx.Timeout(self._left())
        with self.client.stream(
            "POST", url, content=data, headers=headers, timeout=timeout, extensions=extensions
        ) as response:
            chunks: list[bytes] = []
            size = 0
            cut = False
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    cut = True
                    chunks.append(chunk[: len(chunk) - (size - self.max_bytes)])
                    break
                chunks.append(chunk)
                self._left()
            if self.expired:  # the watchdog's shutdown can read as the answer's end: it is no answer
                raise httpx.ReadTimeout("the case ran out of time")
            text = b"".join(chunks).decode("utf-8", "replace")
            if response.is_redirect:
                text = f"redirected to {response.headers.get('location')!r} (the check follows no redirect)"
            return Answer(response.status_code, response.headers.get("content-type"), text, cut)

    # -- WebSocket
    def connect(self) -> _Socket:
        scheme = "wss" if self.target.scheme == "https" else "ws"
        host = f"[{self.target.host}]" if ":" in self.target.host else self.target.host
        uri = f"{scheme}://{host}:{self.target.port}{self.target.path}/responses"
        last: Exception | None = None
        for address in list(self.addresses):
            try:
                raw = socket.create_connection((address, self.target.port), timeout=self._left())
            except OSError as err:
                last = err
                continue
            self._watch(raw)
            try:
                connection = ws_connect(
                    uri,
                    sock=raw,
                    ssl=ssl.create_default_context() if scheme == "wss" else None,
                    server_hostname=self.target.host if scheme == "wss" else None,
                    additional_headers={"Authorization": f"Bearer {self._key}"},
                    open_timeout=self._left(),
                    close_timeout=2,
                    max_size=self.max_bytes,
                    logger=_WEBSOCKET_LOG,
                )
            except InvalidStatus as err:
                raw.close()
                raise TransportError(
                    f"the WebSocket handshake with {uri} was answered HTTP {err.response.status_code}"
                ) from None
            except (InvalidHandshake, OSError, TimeoutError) as err:
                raw.close()
                if self.expired:
                    raise self._out_of_time() from None
                raise TransportError(f"the WebSocket handshake with {uri} failed: {err}") from None
            return _Socket(connection, self)
        raise TransportError(f"cannot connect to {uri} ({last})")

    def close(self) -> None:
        self._watchdog.cancel()
        self.client.close()


def _shut(sock: socket.socket) -> None:
    """Shut ``sock`` down both ways: a read blocked on it in another thread ends at once (a close alone may not
    wake it)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


class _Socket:
    """A WebSocket of one case: every wait bounded by the case's deadline."""

    def __init__(self, connection: ClientConnection, transport: _Transport) -> None:
        self.connection = connection
        self.transport = transport

    def send(self, text: str) -> None:
        try:
            self.connection.send(text)
        except ConnectionClosed:
            if self.transport.expired:
                raise self.transport._out_of_time() from None
            raise TransportError("the server closed the WebSocket") from None

    def receive(self, timeout: float | None = None) -> str:
        left = self.transport._left()
        try:
            message = self.connection.recv(timeout=left if timeout is None else min(timeout, left))
        except TimeoutError:
            raise TransportError(f"no WebSocket message in time ({self.transport.timeout:g} s)") from None
        except ConnectionClosed as err:
            if self.transport.expired:
                raise self.transport._out_of_time() from None
            raise TransportError(
                f"the server closed the WebSocket ({err.rcvd.code if err.rcvd else 'no close frame'})"
            ) from None
        return message.decode("utf-8", "replace") if isinstance(message, bytes) else message

    def close(self) -> None:
        try:
            self.connection.close()
        except (ConnectionClosed, OSError):
            pass


#: What :func:`redact` leaves as it is: the names the check and the page work by (a rule's code, a check's name,
#: a case's id, a gate reason), never a text the server chose freely.
_NAMES = frozenset(
    ("code", "name", "id", "title", "label", "severity", "reason", "transport", "kind", "pointer", "event")
)


def redact(value: Any, key: str) -> Any:
    """``value`` with every occurrence of ``key`` in its texts replaced by ``[the key]``, deeply: strings, the
    values of dicts (not their member names, nor a ``type`` member: what an event is), lists, tuples and
    dataclasses (a case's result, its exchanges, streams, frames and findings; not the fields of :data:`_NAMES`).
    Frozen dataclasses are copied, the others changed in place; anything else is returned as it is.
    """
    if not key:
        return value
    if isinstance(value, str):
        if key not in value:
            return value
        # Around the marker only: a text redacted once (or a server's own "[the key]") is left as it is.
        return _REDACTED.join(part.replace(key, _REDACTED) for part in value.split(_REDACTED))
    if isinstance(value, dict):
        return {k: v if k == "type" else redact(v, key) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if isinstance(value, tuple):
        return tuple(redact(v, key) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: redact(getattr(value, f.name), key)
            for f in dataclasses.fields(value)
            if f.init and f.name not in _NAMES
        }
        if value.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return dataclasses.replace(value, **changes)
        for name, changed in changes.items():
            setattr(value, name, changed)
    return value


def check_endpoint(
    url: str,
    key: str,
    *,
    model: str = MODEL_NAME,
    allowed: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    cases: Iterable[str] | None = None,
    max_bytes: int = MAX_ANSWER_BYTES,
    parallel: int = PARALLEL,
    resolve: Resolver = _resolve,
) -> EndpointReport:
    """Run the conformance cases against the server whose base URL is ``url`` (``http://127.0.0.1:5000/v1``).

    :param key: sent as ``Authorization: Bearer <key>``; kept in memory for this call only.
    :param model: the ``model`` of every request (default: the built-in test model's name).
    :param allowed: host names besides loopback that may be reached (``ALLOWED_TARGETS``).
    :param timeout: seconds per case. :param cases: ids of :data:`~webapp.core.conformance.CASES` to run (default
        all, in table order). :param parallel: cases run at once.
    :raises TargetRefused: the URL is unusable or may not be reached (nothing is sent then).
    :raises KeyError: an unknown case id.
    """
    target, addresses = resolve_target(url, allowed, resolve)
    chosen: list[Case] = list(CASES) if cases is None else [CASE_IDS[name] for name in cases]

    def one(case: Case) -> Any:
        transport = _Transport(target, list(addresses), key, timeout, max_bytes)
        try:
            result = run_case(case, transport, model)
        finally:
            transport.close()
        return redact(result, key)  # linted as received; redacted before it is shown

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        results = list(pool.map(one, chosen))
    return EndpointReport(target.url, model, results)
