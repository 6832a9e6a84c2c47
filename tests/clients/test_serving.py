"""Slow clients cannot starve the production server (``scripts/gunicorn.conf.py``: gevent workers; docs/security.md,
"Serving many clients").

Under gunicorn's threaded workers, 64 connections sending their headers a byte a second, or 24 idle WebSocket
connections, left normal requests unanswered: each held one thread of a small pool for as long as it lasted. Here
300 such connections and 100 idle WebSocket connections are open, and a page and a ``/v1/responses`` call must
still be answered within 2 s; a connection that has not sent its request head within ``keepalive`` seconds is
closed by the server.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest
from test_responses_gunicorn import Gunicorn
from websockets.sync.client import connect

SLOW_HEADERS = 300
IDLE_WEBSOCKETS = 100
ANSWER_WITHIN = 2.0  # seconds
KEEPALIVE = 5  # scripts/gunicorn.conf.py: the seconds a request head may take


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Gunicorn(tmp_path_factory.mktemp("gunicorn-slow-clients"), backlog=512)
    try:
        running.wait_ready(2)
        yield running
    finally:
        running.stop()


def _open_slow_headers(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that have sent the start of a request head and go on sending one byte a second."""
    sockets = []
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.sendall(b"GET /format HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(conn)
    return sockets


def _trickle(sockets: list[socket.socket], stop: threading.Event) -> None:
    # one byte a second on every connection, until told to stop (bounded by the test's own timeout)
    deadline = time.monotonic() + 30
    while not stop.wait(1.0) and time.monotonic() < deadline:
        for conn in sockets:
            try:
                conn.send(b"x")
            except OSError:
                pass  # closed by the server: what the header timeout does


def _still_open(conn: socket.socket) -> bool:
    """The server has not closed ``conn`` (nothing to read yet, no end of stream)."""
    conn.setblocking(False)
    try:
        return conn.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        conn.setblocking(True)


def _answer_time(port: int, method: str, path: str, body: dict | None, token: str) -> tuple[int, float]:
    """A normal request on a new connection: its status and seconds to the whole answer (at most ANSWER_WITHIN:
    the client gives up then, and the test fails)."""
    start = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_WITHIN)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        answer = connection.getresponse()
        answer.read()
        return answer.status, time.monotonic() - start
    finally:
        connection.close()


def test_normal_requests_are_answered_while_slow_clients_hold_connections(server):
    url = f"ws://127.0.0.1:{server.port}/v1/responses"
    headers = {"Authorization": f"Bearer {server.token}"}
    websockets = [connect(url, additional_headers=headers, open_timeout=10) for _ in range(IDLE_WEBSOCKETS)]
    stop = threading.Event()
    slow: list[socket.socket] = []
    try:
        slow = _open_slow_headers(server.port, SLOW_HEADERS)
        trickler = threading.Thread(target=_trickle, args=(slow, stop), daemon=True)
        trickler.start()
        page = _answer_time(server.port, "GET", "/format", None, server.token)
        create = _answer_time(
            server.port, "POST", "/v1/responses", {"model": "m", "input": "Hello while others wait."}, server.token
        )
        assert page[0] == 200 and create[0] == 200
        assert page[1] < ANSWER_WITHIN and create[1] < ANSWER_WITHIN
        # the slow clients and the WebSockets were really being held while those were answered
        assert sum(_still_open(conn) for conn in slow) == SLOW_HEADERS
        for ws in websockets[:: IDLE_WEBSOCKETS // 10]:
            ws.ping().wait(ANSWER_WITHIN)
        # and an idle WebSocket still serves a turn
        websockets[0].send(json.dumps({"type": "response.create", "model": "m", "input": "Still there?"}))
        events = []
        while not events or events[-1]["type"] not in ("response.completed", "error"):
            events.append(json.loads(websockets[0].recv(timeout=10)))
        assert events[-1]["type"] == "response.completed"
    finally:
        stop.set()
        for ws in websockets:
            ws.close()
        for conn in slow:
            conn.close()


@pytest.fixture
def lone_slow_client(server):
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=KEEPALIVE * 4)
    conn.sendall(b"GET /format HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    yield conn
    conn.close()


def test_the_server_closes_a_request_head_that_stalls(lone_slow_client):
    start = time.monotonic()
    # recv blocks until the server closes the connection (b"") or the socket's own timeout fails the test
    assert lone_slow_client.recv(1024) == b""
    assert time.monotonic() - start < KEEPALIVE * 3
