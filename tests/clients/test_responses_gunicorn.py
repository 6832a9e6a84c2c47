"""The production server: gunicorn with evented workers (``scripts/gunicorn.conf.py``), 2 workers on a free port.

What must hold across workers (docs/responses-api.md, "Serving many clients"): one API token (it used to be one
random token per worker, so a request failed with 401 whenever it reached another worker than the one whose token
the client had), one SQLite store, one secret for compaction items, and WebSocket mode.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support import REPO
from support.openapi_conformance import check_stream, check_websocket_turn
from websockets.sync.client import connect

pytestmark = pytest.mark.slow  # gunicorn started per module

REPO = REPO
GUNICORN = Path(sys.executable).with_name("gunicorn")


class Gunicorn:
    """gunicorn on a listening socket this process made (``--bind fd://N``: no port race), stopped by its pid."""

    def __init__(self, folder: Path, workers: int = 2, backlog: int = 64) -> None:
        self.folder = folder
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(backlog)
        self.port = self.listener.getsockname()[1]
        self.access_log = folder / "access.log"
        self.token_file = folder / "api-token"
        env = {key: value for key, value in os.environ.items() if not key.startswith("FLASK_")}
        env.update(
            API_TOKEN_FILE=str(self.token_file),
            FLASK_RESPONSES_DATABASE=str(folder / "responses.sqlite3"),
            PYTHONUNBUFFERED="1",
        )
        fd = self.listener.fileno()
        self.output = open(folder / "gunicorn.out", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [
                str(GUNICORN),
                "--config",
                "scripts/gunicorn.conf.py",
                "--bind",
                f"fd://{fd}",
                "--workers",
                str(workers),
                "--access-logfile",
                str(self.access_log),
                "--access-logformat",
                "%(p)s %(s)s %(U)s",
            ],
            cwd=REPO,
            env=env,
            pass_fds=(fd,),
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, workers: int) -> None:
        """Until every worker has answered a request with the token (a worker still importing the app would
        leave all the load to the others); bounded by 90 s."""
        deadline = time.monotonic() + 90
        body = {"model": "m", "input": "ready?"}
        with ThreadPoolExecutor(8) as pool:
            while time.monotonic() < deadline:
                assert self.process.poll() is None, self.log()
                if self.token_file.exists() and self.log().count("Booting worker") >= workers:
                    try:
                        list(pool.map(lambda _: self.request("POST", "/v1/responses", body), range(16)))
                    except OSError:
                        pass
                    if len(self.worker_pids()) >= workers:
                        return
                time.sleep(0.1)
        raise AssertionError(f"not every worker answered:\n{self.log()}")

    @property
    def token(self) -> str:
        return self.token_file.read_text().strip()

    def log(self) -> str:
        return (self.folder / "gunicorn.out").read_text(errors="replace")

    def request(
        self, method: str, path: str, body: dict | None = None, token: str | None = None
    ) -> tuple[int, bytes, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"Authorization": f"Bearer {token or self.token}", "Content-Type": "application/json"}
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            answer = connection.getresponse()
            return answer.status, answer.read(), answer.getheader("Content-Type") or ""
        finally:
            connection.close()

    def worker_pids(self) -> set[str]:
        lines = self.access_log.read_text().splitlines() if self.access_log.exists() else []
        return {line.split()[0] for line in lines if line.split()[1:2] == ["200"]}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.output.close()
        self.listener.close()


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    server = Gunicorn(tmp_path_factory.mktemp("gunicorn"))
    try:
        server.wait_ready(2)
        yield server
    finally:
        server.stop()


def test_one_token_printed_once_and_kept_in_the_token_file(gunicorn):
    token = gunicorn.token
    assert token.startswith("sk-local-") and oct(gunicorn.token_file.stat().st_mode & 0o777) == "0o600"
    printed = [line for line in gunicorn.log().splitlines() if "/v1 API token" in line]
    assert len(printed) == 1 and token in printed[0]  # the master prints it, not each worker


def test_the_token_works_on_every_worker(gunicorn):
    # Both workers have answered with the token (the fixture waits for that); now a burst, every answer a 200.
    body = {"model": "m", "input": "Say hello."}
    with ThreadPoolExecutor(8) as pool:
        statuses = [
            status for status, _, _ in pool.map(lambda _: gunicorn.request("POST", "/v1/responses", body), range(40))
        ]
    assert statuses == [200] * 40
    assert len(gunicorn.worker_pids()) == 2  # two workers, both answered 200 with the one token
    assert gunicorn.request("POST", "/v1/responses", body, token="sk-wrong")[0] == 401


def test_the_store_is_shared_by_the_workers(gunicorn):
    status, raw, _ = gunicorn.request("POST", "/v1/responses", {"model": "m", "input": "Remember: papaya."})
    first = json.loads(raw)
    with ThreadPoolExecutor(4) as pool:
        reads = list(pool.map(lambda _: gunicorn.request("GET", f"/v1/responses/{first['id']}"), range(20)))
        chained = list(
            pool.map(
                lambda n: gunicorn.request(
                    "POST",
                    "/v1/responses",
                    {"model": "m", "previous_response_id": first["id"], "input": f"question {n}"},
                ),
                range(20),
            )
        )
    assert status == 200 and {r[0] for r in reads} == {200} and {c[0] for c in chained} == {200}
    assert all(json.loads(r[1])["id"] == first["id"] for r in reads)


def test_sse_under_gunicorn(gunicorn):
    status, raw, content_type = gunicorn.request(
        "POST", "/v1/responses", {"model": "m", "input": "Count to 5.", "stream": True}
    )
    assert status == 200
    check_stream(raw, content_type).assert_ok()


def test_compaction_items_are_taken_back_by_any_worker(gunicorn):
    status, raw, _ = gunicorn.request("POST", "/v1/responses/compact", {"model": "m", "input": "Launch on Tuesday."})
    output = json.loads(raw)["output"]
    results = [gunicorn.request("POST", "/v1/responses", {"model": "m", "input": output})[0] for _ in range(10)]
    assert status == 200 and set(results) == {200}


def test_websocket_under_gunicorn(gunicorn):
    url = f"ws://127.0.0.1:{gunicorn.port}/v1/responses"
    headers = {"Authorization": f"Bearer {gunicorn.token}"}

    def turn(ws, **body) -> dict:
        ws.send(json.dumps({"type": "response.create", "model": "m", **body}))
        messages = []
        while not messages or json.loads(messages[-1])["type"] not in ("response.completed", "error"):
            messages.append(ws.recv(timeout=10))
        report = check_websocket_turn(messages)
        report.assert_ok()
        return report.response

    with connect(url, additional_headers=headers, open_timeout=10) as ws:
        first = turn(ws, store=False, input="Remember the code word: cobalt.")
        second = turn(ws, store=False, previous_response_id=first["id"], input="What was it?")
        stored = turn(ws, input="Remember: stored.")
    assert second["previous_response_id"] == first["id"]
    with connect(url, additional_headers=headers, open_timeout=10) as ws:  # maybe another worker: the store
        again = turn(ws, previous_response_id=stored["id"], input="And now?")
    assert again["previous_response_id"] == stored["id"]
