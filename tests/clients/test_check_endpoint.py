"""The endpoint check (``webapp/check_endpoint.py``, ``python -m webapp check-endpoint``): the official suite's 17
cases pass against this app's own ``/v1`` under the dev server and under gunicorn, and fail, naming the case and
the check, against a deliberately broken server written here; the guard, the deadline and the key hold."""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from support.server import ServerThread
from test_responses_gunicorn import Gunicorn
from werkzeug.serving import make_server

from webapp import create_app
from webapp.__main__ import main
from webapp.check_endpoint import check_endpoint
from webapp.core.conformance import OFFICIAL, TargetRefused

KEY = "sk-endpoint-check-7f3a9c"


@pytest.fixture(scope="module")
def own_server(tmp_path_factory) -> Iterator[str]:
    """This app, with :data:`KEY` as its token, under the dev server (threaded Werkzeug) on 127.0.0.1."""
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": KEY,
            "RESPONSES_DATABASE": str(tmp_path_factory.mktemp("own") / "responses.sqlite3"),
        }
    )
    server = ServerThread(app)
    server.start()
    yield server.url
    server.stop()


def test_this_apps_own_v1_passes_17_of_17_and_every_extra_check(own_server):
    report = check_endpoint(own_server + "/v1", KEY, timeout=60)
    failed = {case.id: [(c.name, c.detail) for c in case.checks if not c.passed] for case in report.cases}
    assert [case.id for case in report.official] == list(OFFICIAL) and len(OFFICIAL) == 17
    assert report.official_passed == 17, failed
    assert report.strict, failed
    streams = [e.stream for case in report.cases for e in case.exchanges if e.stream is not None]
    assert len(streams) >= 10 and all(stream.findings == [] for stream in streams)


def test_the_cli_says_17_of_17_and_never_prints_the_key(own_server, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    out = io.StringIO()
    code = main(["check-endpoint", own_server + "/v1", "--key", KEY, "--case", "streaming-response"], out=out)
    assert code == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"{own_server}/v1 (model openresponses-test)"
    assert lines[1].startswith("PASS  streaming-response ")
    assert lines[-1] == (
        "official suite (openresponses/openresponses src/lib/compliance-tests.ts, release 2026-04-24): 1/1 passed; "
        "this app's extra cases: 0/0 passed; every check the suite skips too: 1/1 cases"
    )
    out = io.StringIO()
    assert main(["check-endpoint", own_server + "/v1", "--key", KEY, "--json", "--strict"], out=out) == 0
    assert json.loads(out.getvalue())["official"] == "17/17"
    seen = out.getvalue() + caplog.text + "".join(capsys.readouterr())
    assert KEY not in seen


@pytest.fixture(scope="module")
def one_letter_server(tmp_path_factory) -> Iterator[str]:
    """This app with the one-letter token ``e`` (a dummy key that occurs in nearly every event it streams)."""
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": "e",
            "RESPONSES_DATABASE": str(tmp_path_factory.mktemp("one-letter") / "responses.sqlite3"),
        }
    )
    server = ServerThread(app)
    server.start()
    yield server.url
    server.stop()


def test_a_one_letter_key_is_linted_as_received_and_redacted_only_where_shown(one_letter_server):
    report = check_endpoint(one_letter_server + "/v1", "e", timeout=60)
    failed = {case.id: [(c.name, c.detail) for c in case.checks if not c.passed] or case.error for case in report.cases}
    assert report.official_passed == 17, failed
    streams = [e.stream for case in report.cases for e in case.exchanges if e.stream is not None]
    assert streams and all(stream.findings == [] for stream in streams)
    # What is shown has the key redacted: every "e" of the server's texts, but not the event types it works by.
    (case,) = [c for c in report.cases if c.id == "streaming-response"]
    (exchange,) = case.exchanges
    types = [frame.value["type"] for frame in exchange.stream.frames if frame.parsed]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert all("e" not in frame.data.replace("[the key]", "") for frame in exchange.stream.frames)


@pytest.fixture(scope="module")
def gunicorn_server(tmp_path_factory):
    server = Gunicorn(tmp_path_factory.mktemp("gunicorn-check"))
    try:
        server.wait_ready(2)
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_this_app_under_gunicorn_passes_17_of_17(gunicorn_server):
    report = check_endpoint(f"http://127.0.0.1:{gunicorn_server.port}/v1", gunicorn_server.token, timeout=60)
    failed = {case.id: [(c.name, c.detail) for c in case.checks if not c.passed] or case.error for case in report.cases}
    assert report.official_passed == 17 and report.strict, failed


@pytest.mark.slow
def test_the_page_under_gunicorn_checks_its_own_v1_17_of_17(gunicorn_server):
    # The page's request runs the cases against the same server (gevent workers: the page's own connections to it
    # wait without holding the worker), and the answer never holds the key.
    url = f"http://127.0.0.1:{gunicorn_server.port}"
    answer = httpx.post(
        url + "/stream/check",
        data={"url": url + "/v1", "key": gunicorn_server.token, "model": "openresponses-test", "timeout": "60"},
        headers={"HX-Request": "true"},
        timeout=240,
    )
    assert answer.status_code == 200
    assert 'id="check-official">17/17</span>' in answer.text and "every check the suite skips holds too" in answer.text
    assert gunicorn_server.token not in answer.text


# ------------------------------------------------------------------------------------------ a broken server


def resource(status: str, output: list, **extra) -> dict:
    """A ResponseResource with every required member (spec notes §4)."""
    return {
        "id": "resp_broken",
        "object": "response",
        "created_at": 1767225600,
        "completed_at": 1767225601 if status == "completed" else None,
        "status": status,
        "incomplete_details": None,
        "model": "m",
        "previous_response_id": None,
        "instructions": None,
        "output": output,
        "error": None,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": True,
        "text": {"format": {"type": "text"}},
        "top_p": 1,
        "presence_penalty": 0,
        "frequency_penalty": 0,
        "top_logprobs": 0,
        "temperature": 1,
        "reasoning": None,
        "usage": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": True,
        "background": False,
        "service_tier": "default",
        "metadata": {},
        "safety_identifier": None,
        "prompt_cache_key": None,
        **extra,
    }


MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Ahoy there friend", "annotations": []}],
}


EMPTY_PART = {"type": "output_text", "text": "", "annotations": []}


class Broken:
    """A server that gets several things wrong: it answers every request with a text message (tools or not), its
    streams leave ``output_index`` out of the deltas and end without ``[DONE]``, it has neither WebSocket mode nor
    ``/responses/compact``, it quotes the Authorization header it was sent, under ``/slow/`` it never answers,
    under ``/moved/`` it redirects to another network, and under ``/nostream/`` it answers JSON to a stream."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.requests: list[str] = []

    def __call__(self, environ, start_response):
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        self.requests.append(f"{method} {path}")
        if path.startswith("/slow/"):
            self.release.wait(30)
        if path.startswith("/moved/"):
            start_response("307 Temporary Redirect", [("Location", "http://10.0.0.1/v1/responses")])
            return [b""]
        if method != "POST" or path not in ("/v1/responses", "/nostream/v1/responses"):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [f"no such route; you sent {environ.get('HTTP_AUTHORIZATION')}".encode()]
        body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        final = resource("completed", [MESSAGE], instructions=environ.get("HTTP_AUTHORIZATION"))
        if not body.get("stream") or path.startswith("/nostream/"):
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps(final).encode()]
        where = {"item_id": "msg_1", "content_index": 0}  # no output_index
        events = [
            {"type": "response.created", "response": resource("in_progress", [])},
            {"type": "response.in_progress", "response": resource("in_progress", [])},
            {"type": "response.output_item.added", "output_index": 0, "item": {**MESSAGE, "status": "in_progress"}},
            {"type": "response.content_part.added", **where, "output_index": 0, "part": EMPTY_PART},
            {"type": "response.output_text.delta", **where, "delta": "Ahoy there friend"},
            {"type": "response.output_text.done", **where, "output_index": 0, "text": "Ahoy there friend"},
            {"type": "response.content_part.done", **where, "output_index": 0, "part": MESSAGE["content"][0]},
            {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE},
            {"type": "response.completed", "response": final},
        ]  # fmt: skip
        text = "".join(
            f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n" for n, e in enumerate(events)
        )
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return [text.encode()]


@pytest.fixture(scope="module")
def broken() -> Iterator[tuple[str, Broken]]:
    app = Broken()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    app.release.set()
    server.shutdown()
    thread.join(timeout=5)


def test_a_broken_server_fails_naming_the_case_and_the_check(broken):
    url, _ = broken
    report = check_endpoint(url + "/v1", KEY, timeout=20)
    cases = {case.id: case for case in report.cases}
    failed = {name: [c.name for c in case.checks if not c.passed] for name, case in cases.items()}
    assert cases["basic-response"].passed and cases["multi-turn"].passed
    assert not cases["tool-calling"].passed and failed["tool-calling"] == ["hasOutputType(function_call)"]
    assert not cases["streaming-response"].passed
    assert failed["streaming-response"] == ["streamingSchema", "every stream rule"]
    (exchange,) = cases["streaming-response"].exchanges
    assert {(f.code, f.index, f.pointer) for f in exchange.stream.findings} >= {
        ("schema_invalid", 4, "/output_index"),
        ("missing_done", 8, ""),
    }
    assert "output_item.added (function_call)" in failed["tool-calling-streaming"]
    for name in OFFICIAL:
        if name.startswith("websocket-") and name != "websocket-compact-new-chain":
            assert cases[name].error.startswith("the WebSocket handshake with ws://127.0.0.1:"), cases[name].error
            assert cases[name].error.endswith("/v1/responses was answered HTTP 404")
    assert cases["websocket-compact-new-chain"].error.startswith("HTTP 2xx: HTTP 404")
    passed = {case.id for case in report.official if case.passed}
    assert passed == {
        "basic-response",
        "assistant-phase",
        "response-output-phase-schema",
        "system-prompt",
        "image-input",
        "multi-turn",
    }
    assert failed["compact-response"] == ["HTTP 2xx"] and failed["compact-missing-model"] == ["HTTP 400 or 422"]
    assert {case.id for case in report.extra if case.passed} == {"file-input", "previous-response-id"}
    out = io.StringIO()
    assert main(["check-endpoint", url + "/v1", "--key", KEY, "--case", "tool-calling"], out=out) == 1
    assert out.getvalue().splitlines()[1].startswith("FAIL  tool-calling ")
    assert "      hasOutputType(function_call): output holds message" in out.getvalue().splitlines()
    out = io.StringIO()
    main(["check-endpoint", url + "/v1", "--key", KEY, "--case", "multi-turn", "--case", "file-input"], out=out)
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("PASS  multi-turn ") and lines[3].startswith("PASS  file-input ")
    assert lines[2] == "this app's extra cases (not the suite's, not counted in it):"


def test_what_the_server_echoes_is_shown_with_the_key_redacted(broken):
    url, _ = broken
    cases = ["basic-response", "websocket-compact-new-chain", "streaming-response"]
    report = check_endpoint(url + "/v1", KEY, cases=cases, timeout=20)
    shown = json.dumps([e.body for case in report.cases for e in case.exchanges], default=str)
    assert "Bearer [the key]" in shown and KEY not in shown
    frames = [f.data for case in report.cases for e in case.exchanges if e.stream for f in e.stream.frames]
    assert KEY not in json.dumps(frames) and "Bearer [the key]" in json.dumps(frames)
    detail = [c.detail for c in report.cases[1].checks if c.name == "HTTP 2xx"][0]
    assert detail == "HTTP 404: no such route; you sent Bearer [the key]"
    assert KEY not in json.dumps(report.as_dict())


def test_each_case_has_its_deadline(broken):
    url, _ = broken
    report = check_endpoint(url + "/slow/v1", KEY, cases=["basic-response", "system-prompt"], timeout=1)
    assert [case.passed for case in report.cases] == [False, False]
    assert all(case.error == f"no answer in time from {url}/slow/v1/responses (1 s)" for case in report.cases)
    assert all(case.seconds < 10 for case in report.cases)


def test_a_json_answer_to_a_streamed_request_fails_the_case_saying_so(broken):
    url, _ = broken
    (case,) = check_endpoint(url + "/nostream/v1", KEY, cases=["streaming-response"], timeout=10).cases
    assert not case.passed
    assert case.error.startswith("streamingEvents: the answer is no event stream (line 1, column 1: no event")


def test_no_redirect_is_followed(broken):
    url, app = broken
    before = len(app.requests)
    (case,) = check_endpoint(url + "/moved/v1", KEY, cases=["basic-response"], timeout=10).cases
    assert (
        case.error == "HTTP 2xx: HTTP 307: redirected to 'http://10.0.0.1/v1/responses' (the check follows no redirect)"
    )
    assert app.requests[before:] == ["POST /moved/v1/responses"]


def test_only_loopback_and_allowed_targets_are_reached(broken):
    url, app = broken
    before = len(app.requests)
    port = url.rsplit(":", 1)[1]
    with pytest.raises(TargetRefused):
        check_endpoint(f"http://rebound.test:{port}/v1", KEY, resolve=lambda host, port: ["10.9.8.7", "127.0.0.1"])
    with pytest.raises(TargetRefused):
        check_endpoint("http://10.9.8.7/v1", KEY)
    assert len(app.requests) == before  # nothing was sent
    # A name the administrator allowed is reached, at the address it resolved to.
    (case,) = check_endpoint(
        f"http://inspector-target.test:{port}/v1",
        KEY,
        allowed=["inspector-target.test"],
        resolve=lambda host, port: ["127.0.0.1"],
        cases=["basic-response"],
    ).cases
    assert case.passed and app.requests[before:] == ["POST /v1/responses"]


def test_the_cli_refuses_what_it_may_not_reach_and_needs_a_key(monkeypatch):
    err = io.StringIO()
    assert main(["check-endpoint", "http://10.0.0.1/v1", "--key", KEY], out=io.StringIO(), err=err) == 2
    assert "only loopback addresses and the hosts named in ALLOWED_TARGETS" in err.getvalue()
    monkeypatch.delenv("OPENRESPONSES_API_KEY", raising=False)
    err = io.StringIO()
    assert main(["check-endpoint", "http://127.0.0.1:1/v1"], out=io.StringIO(), err=err) == 2
    assert "--key" in err.getvalue()
    err = io.StringIO()
    assert main(["check-endpoint", "http://127.0.0.1:1/v1", "--key", "k", "--case", "nope"], err=err) == 2
    assert "no case 'nope'" in err.getvalue()


def test_a_closed_port_is_a_failed_case_not_a_crash():
    (case,) = check_endpoint("http://127.0.0.1:1/v1", KEY, cases=["basic-response"], timeout=5).cases
    assert not case.passed and case.error.startswith("cannot connect to http://127.0.0.1:1/v1")


@pytest.fixture
def silent_after_error():
    """A WebSocket server that answers every turn with a stream's error event and then nothing at all."""
    from websockets.sync.server import serve

    def handler(connection):
        for _ in connection:
            error = {"type": "server_error", "code": "boom", "message": "it broke", "param": None}
            connection.send(json.dumps({"type": "error", "sequence_number": 0, "error": error}))

    server = serve(handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.socket.getsockname()[1]}"
    server.shutdown()
    thread.join(timeout=5)


def test_a_turn_whose_error_event_is_never_followed_by_response_failed_ends_and_says_so(silent_after_error):
    (case,) = check_endpoint(silent_after_error + "/v1", KEY, cases=["websocket-response"], timeout=30).cases
    assert not case.passed and case.error is None
    (exchange,) = case.exchanges
    codes = {f.code for f in exchange.stream.findings}
    assert {"error_without_failed", "first_event", "no_terminal"} <= codes
    assert case.seconds < 25  # it waited for response.failed a few seconds, not the case's whole time


@pytest.fixture
def drip():
    """A server on 127.0.0.1 that reads a request and then sends its answer's status line one byte a second (a
    per-read timeout restarts on every byte); ``stop`` ends it."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}" * 10:
                    if stop.is_set():
                        break
                    try:
                        connection.sendall(bytes([byte]))
                    except OSError:
                        break  # the client gave up: the next request may come
                    time.sleep(1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(timeout=5)
    listener.close()


def test_a_server_dripping_its_headers_cannot_hold_a_case_past_its_deadline(drip):
    started = time.monotonic()
    (case,) = check_endpoint(drip + "/v1", KEY, cases=["basic-response"], timeout=5).cases
    assert time.monotonic() - started < 12 and case.seconds < 12
    assert not case.passed and case.error == f"no answer in time from {drip}/v1/responses (5 s)"
