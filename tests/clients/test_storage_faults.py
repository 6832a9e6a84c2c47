"""Storage faults have names: a full disk is 507 ``storage_full``, a database that cannot be used is 503
``storage_unavailable`` (one JSON error shape, ``webapp/web/errors.py``), a WebSocket turn gets an ``error`` event and
its connection lives on, and a server that starts on a garbage or read-only database says what to do and exits,
instead of a 500 ``server_error`` (the cause only in the log), a socket dying 20 s later, or "Worker failed to boot"
under a traceback.

A full disk is simulated by SQLite's own page limit (``RESPONSES_DATABASE_MAX_BYTES``: ``PRAGMA max_page_count``);
a read-only file by the immutable attribute (``chattr +i``), which binds root too (tests run as root, which file modes
do not bind); tests that need it are skipped where the file system has none.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, TEST_TOKEN
from support.server import ServerThread
from test_responses_gunicorn import GUNICORN
from websockets.sync.client import connect

from webapp import create_app
from webapp.web.store import StorageFull, StorageUnavailable, storage_error

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SMALL = 64 * 1024  # bytes: the schema's pages and a few responses


def full_app(tmp_path: Path):
    return create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "RESPONSES_DATABASE": str(tmp_path / "small.sqlite3"),
            "RESPONSES_DATABASE_MAX_BYTES": SMALL,
        }
    )


def test_a_full_store_answers_507_storage_full(tmp_path):
    client = full_app(tmp_path).test_client()
    statuses = []
    for n in range(40):  # each stores about 8 KB: the limit is reached within a few
        answer = client.post("/v1/responses", json={"model": "m", "input": f"{n} " + "x" * 8000}, headers=AUTH)
        statuses.append(answer.status_code)
        if answer.status_code != 200:
            break
    assert statuses[0] == 200 and statuses[-1] == 507, statuses
    error = answer.get_json()["error"]
    assert (error["code"], error["type"], error["param"]) == ("storage_full", "server_error", None)
    assert "small.sqlite3" in error["message"] and "full" in error["message"]
    assert "Content-Security-Policy" in answer.headers


def test_a_websocket_turn_that_cannot_be_stored_gets_an_error_event_and_the_connection_lives(tmp_path):
    server = ServerThread(full_app(tmp_path))
    server.start()
    try:
        url = server.url.replace("http://", "ws://") + "/v1/responses"
        with connect(url, additional_headers=AUTH, open_timeout=10) as ws:
            events = []
            for n in range(40):
                ws.send(json.dumps({"type": "response.create", "model": "m", "input": f"{n} " + "y" * 8000}))
                event = json.loads(ws.recv(timeout=10))
                while event["type"] not in ("response.completed", "error"):
                    event = json.loads(ws.recv(timeout=10))
                events.append(event)
                if event["type"] == "error":
                    break
            assert events[0]["type"] == "response.completed" and events[-1]["type"] == "error"
            assert events[-1]["status"] == 507 and events[-1]["error"]["code"] == "storage_full"
            # the connection is still served: a turn that stores nothing completes
            ws.send(json.dumps({"type": "response.create", "model": "m", "input": "hi", "store": False}))
            kinds = []
            while not kinds or kinds[-1] not in ("response.completed", "error"):
                kinds.append(json.loads(ws.recv(timeout=10))["type"])
            assert kinds[-1] == "response.completed"
    finally:
        server.stop()


def test_sqlite_errors_are_named_by_what_the_machine_can_do(tmp_path):
    path = tmp_path / "r.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.Error) as caught:
        readonly.execute("INSERT INTO t VALUES (1)")
    problem = storage_error(caught.value, str(path))
    assert isinstance(problem, StorageUnavailable) and (problem.status, problem.code) == (503, "storage_unavailable")
    assert "writable" in problem.message and str(path) in problem.message
    with pytest.raises(sqlite3.Error) as caught:
        readonly.execute("SELECT * FROM no_such_table")
    assert storage_error(caught.value, str(path)) is None  # a bug of ours stays one
    assert StorageFull("x").status == 507


@pytest.fixture
def garbage_database(tmp_path) -> Path:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(os.urandom(8192))
    return path


@pytest.fixture
def read_only_database(tmp_path):
    path = tmp_path / "read-only.sqlite3"
    create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": str(path)})
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("no immutable attribute on this file system (chattr +i)")
    yield path
    subprocess.run(["chattr", "-i", str(path)], check=True)


def test_the_app_refuses_to_start_on_a_garbage_database_saying_what_to_do(garbage_database):
    with pytest.raises(StorageUnavailable) as caught:
        create_app({"TESTING": True, "RESPONSES_DATABASE": str(garbage_database)})
    assert "not an SQLite database" in caught.value.message and "move it away" in caught.value.message


def test_the_app_refuses_to_start_on_a_read_only_database_saying_what_to_do(read_only_database):
    with pytest.raises(StorageUnavailable) as caught:
        create_app({"TESTING": True, "RESPONSES_DATABASE": str(read_only_database)})
    assert "cannot be written" in caught.value.message and "writable" in caught.value.message


def _start(command: list[str], database: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("FLASK_")}
    env.update(FLASK_RESPONSES_DATABASE=str(database), API_TOKEN_FILE=str(tmp_path / "token"))
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("server", ["serve", "gunicorn"])
def test_a_server_started_on_a_garbage_database_says_what_to_do_without_a_traceback(server, garbage_database, tmp_path):
    if server == "serve":
        command = [sys.executable, "-m", "webapp", "serve", "--port", "0"]
    else:
        command = [str(GUNICORN), "--config", "scripts/gunicorn.conf.py", "--bind", "127.0.0.1:0"]
    finished = _start(command, garbage_database, tmp_path)
    output = finished.stdout + finished.stderr
    assert finished.returncode != 0
    assert "not an SQLite database" in output and "RESPONSES_DATABASE" in output
    assert "Traceback" not in output and "Worker failed to boot" not in output
