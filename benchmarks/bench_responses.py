"""Throughput of ``/v1/responses`` against a trivial Flask endpoint on the same server, in the same run, on both
servers: the dev server (``bash scripts/serve``) and gunicorn's evented workers (``bash scripts/serve-gunicorn``).

One command (from the repository root)::

    .venv/bin/python benchmarks/bench_responses.py            # --requests 400 --threads 8 --rounds 3
    .venv/bin/python benchmarks/bench_responses.py --chain    # a turn's cost against its chain's depth

What it does:

* serves the real app (``create_app``, default settings: responses stored in a temporary SQLite file) on
  127.0.0.1 in child processes, so the load generator does not share the server's interpreter lock: first with
  Werkzeug's multi-threaded server (what ``flask run`` uses), then with gunicorn as ``scripts/gunicorn.conf.py``
  configures it (``gevent``, ``--workers 2`` unless ``--workers`` says otherwise); a trivial endpoint
  (``POST /bench/trivial``: parse a small JSON body, answer a small JSON object) is added to the same app as the
  baseline of each server;
* drives each scenario with ``--threads`` client threads sending ``--requests`` requests in all (a bounded
  loop: no timing-dependent stop), one new connection per request for every scenario alike, and repeats
  the rounds interleaved, keeping each scenario's best round;
* measures the time to the first SSE event (the first body byte of a stream) with sequential requests,
  against the time to the first body byte of the trivial endpoint.

It prints, per server, requests per second and the ratio to that server's trivial endpoint (target: at least 0.5
for non-streamed and streamed replies; the SSE ratio on gunicorn is the production figure, printed last), and the
time-to-first-event percentiles. Every answer is checked (status 200, and for streams the final ``data: [DONE]``),
so a broken endpoint cannot look fast.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = "sk-bench"
TARGET_RATIO = 0.5
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "object",
        "required": ["city", "unit"],
        "additionalProperties": False,
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    },
}


@dataclass(frozen=True)
class Scenario:
    """One kind of request: ``path`` and JSON ``body``; ``stream`` bodies must end with ``data: [DONE]``."""

    name: str
    path: str
    body: dict
    stream: bool = False


SCENARIOS = [
    Scenario("trivial Flask endpoint (baseline)", "/bench/trivial", {"model": "m", "input": "Say hello."}),
    Scenario(
        "/v1/responses JSON, text reply", "/v1/responses", {"model": "m", "input": "Say hello in exactly 3 words."}
    ),
    Scenario(
        "/v1/responses JSON, tool call",
        "/v1/responses",
        {"model": "m", "input": "What is the weather in Paris?", "tools": [WEATHER]},
    ),
    Scenario(
        "/v1/responses SSE, text reply",
        "/v1/responses",
        {"model": "m", "input": "Say hello in exactly 3 words.", "stream": True},
        stream=True,
    ),
    Scenario(
        "/v1/responses SSE, tool call",
        "/v1/responses",
        {"model": "m", "input": "What is the weather in Paris?", "tools": [WEATHER], "stream": True},
        stream=True,
    ),
]


# ------------------------------------------------------------------------------------------------ server


def bench_app(database: str | None = None):
    """The app plus the trivial endpoint (the WSGI app both servers run; gunicorn calls it with no argument and
    the database from ``BENCH_DATABASE``)."""
    from flask import jsonify, request

    from webapp import create_app

    app = create_app({"API_TOKEN": TOKEN, "RESPONSES_DATABASE": database or os.environ["BENCH_DATABASE"]})

    @app.post("/bench/trivial")
    def trivial():  # the baseline: what any JSON endpoint of this Flask app costs at least
        body = request.get_json()
        return jsonify({"ok": True, "model": body.get("model")})

    return app


def serve(port_queue: multiprocessing.Queue, database: str) -> None:
    """Child process: :func:`bench_app` under Werkzeug's threaded server, until killed."""
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log: it would be measured too
    server = make_server("127.0.0.1", 0, bench_app(database), threaded=True)
    port_queue.put(server.server_port)
    server.serve_forever()


def start_gunicorn(database: str, workers: int) -> tuple[int, subprocess.Popen]:
    """gunicorn with ``scripts/gunicorn.conf.py`` serving :func:`bench_app` on a socket made here (``fd://``);
    returns the port once every worker answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    env = {**os.environ, "BENCH_DATABASE": database, "FLASK_API_TOKEN": TOKEN}
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "--config",
            "scripts/gunicorn.conf.py",
            "--bind",
            f"fd://{listener.fileno()}",
            "--workers",
            str(workers),
            "--pythonpath",
            "benchmarks",
            "--log-level",
            "warning",
            "bench_responses:bench_app()",
        ],
        cwd=ROOT,
        env=env,
        pass_fds=(listener.fileno(),),
        stdout=subprocess.DEVNULL,
    )
    listener.close()  # the child holds it now
    trivial = SCENARIOS[0]
    deadline = time.monotonic() + 120
    while True:
        try:
            request_once(port, trivial, json.dumps(trivial.body).encode())
            return port, process
        except (OSError, RuntimeError):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("gunicorn did not start") from None
            time.sleep(0.2)


# ------------------------------------------------------------------------------------------------ client


def send(port: int, scenario: Scenario, payload: bytes) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """POST ``payload`` on a new connection; the caller reads the answer and closes the connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(
        "POST",
        scenario.path,
        body=payload,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
    )
    return connection, connection.getresponse()


def request_once(port: int, scenario: Scenario, payload: bytes) -> float:
    """Send one request on a new connection and read the whole answer; return the seconds it took.

    :raises RuntimeError: a status other than 200, or a stream that does not end with ``data: [DONE]``.
    """
    start = time.perf_counter()
    connection, answer = send(port, scenario, payload)
    try:
        data = answer.read()
    finally:
        connection.close()
    if answer.status != 200:
        raise RuntimeError(f"{scenario.name}: HTTP {answer.status}: {data[:200]!r}")
    if scenario.stream and not data.rstrip().endswith(b"data: [DONE]"):
        raise RuntimeError(f"{scenario.name}: the stream does not end with data: [DONE]")
    return time.perf_counter() - start


def throughput(port: int, scenario: Scenario, requests: int, threads: int) -> float:
    """Requests per second for ``requests`` requests shared by ``threads`` client threads."""
    payload = json.dumps(scenario.body).encode()
    counter = iter(range(requests))
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker() -> None:
        while True:
            with lock:
                if next(counter, None) is None:
                    return
            try:
                request_once(port, scenario, payload)
            except BaseException as err:  # noqa: BLE001 - reported after the round
                errors.append(err)
                return

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - start
    if errors:
        raise RuntimeError(f"{scenario.name}: {errors[0]}")
    return requests / elapsed


def server_cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, seconds) used so far by the server process ``pid`` and its child processes
    (gunicorn's workers), from Linux's ``/proc/<pid>/stat``; ``None`` where there is no ``/proc``.

    On a machine shared with other work, requests per second measure the other work too; the server's own CPU
    per request does not, so it is printed beside them (its ratio is the capacity ratio).
    """
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def stat(process: str) -> list[str] | None:
        try:
            with open(f"/proc/{process}/stat", encoding="ascii", errors="replace") as handle:
                return handle.read().rpartition(")")[2].split()  # after the command name, which may hold spaces
        except OSError:
            return None

    own = stat(str(pid))
    if own is None:
        return None
    fields = [own]
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(pid):
            other = stat(entry)
            if other is not None and other[1] == str(pid):  # field 4, ppid
                fields.append(other)
    return sum(int(f[11]) + int(f[12]) for f in fields) / ticks  # fields 14 and 15: utime, stime


def first_byte_latency(port: int, scenario: Scenario) -> float:
    """Seconds from sending a request to receiving the first byte of its body, then read the rest.

    For a stream that byte opens the first SSE event (``event: response.created``); for the trivial
    endpoint it is its whole (tiny) answer: the same measure for both.
    """
    payload = json.dumps(scenario.body).encode()
    start = time.perf_counter()
    connection, answer = send(port, scenario, payload)
    try:
        first = answer.read(1)
        elapsed = time.perf_counter() - start
        rest = answer.read()
    finally:
        connection.close()
    if answer.status != 200 or not first:
        raise RuntimeError(f"{scenario.name}: HTTP {answer.status}, body {first + rest[:100]!r}")
    if scenario.stream and not (first + rest).startswith(b"event: response.created"):
        raise RuntimeError(f"{scenario.name}: the stream does not open with response.created")
    return elapsed


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timed(function: Callable[[], float], count: int) -> list[float]:
    return [function() for _ in range(count)]


# ------------------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per scenario and round (400)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (8)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best is kept (3)")
    parser.add_argument("--latency-samples", type=int, default=100, help="sequential first-event samples (100)")
    parser.add_argument(
        "--server", choices=("werkzeug", "gunicorn", "both"), default="both", help="which servers to measure (both)"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a ratio is below the target")
    parser.add_argument(
        "--chain",
        action="store_true",
        help="measure only a turn's cost against the depth of its previous_response_id chain (see chain_depth)",
    )
    parser.add_argument("--chain-samples", type=int, default=5, help="turns timed at each chain depth (5)")
    args = parser.parse_args(argv)
    if args.chain:
        return chain_depth(args)

    below: list[str] = []
    sse_ratios: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        if args.server in ("werkzeug", "both"):
            context = multiprocessing.get_context("spawn")  # a clean interpreter: no state shared with this one
            ports: multiprocessing.Queue = context.Queue()
            server = context.Process(target=serve, args=(ports, os.path.join(folder, "werkzeug.sqlite3")), daemon=True)
            server.start()
            try:
                port = ports.get(timeout=60)
                name = "werkzeug threaded (flask run / scripts/serve)"
                below += run(port, args, name, sse_ratios, server.pid)
            finally:
                server.terminate()
                server.join(timeout=10)
        if args.server in ("gunicorn", "both"):
            port, process = start_gunicorn(os.path.join(folder, "gunicorn.sqlite3"), args.workers)
            try:
                name = f"gunicorn gevent, {args.workers} workers"
                below += run(port, args, name, sse_ratios, process.pid)
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)

    print(
        "\nSSE ratio (/v1/responses SSE, text reply / trivial endpoint, same server; req/s, and server CPU per "
        "request):"
    )
    for name, (ratio, cpu_ratio) in sse_ratios.items():
        cpu = f"{cpu_ratio:.2f}x" if cpu_ratio is not None else "n/a"
        print(f"  {name:<52} {ratio:.2f}x req/s, {cpu} CPU  (target {TARGET_RATIO}x)")
    if below:
        print(f"\nbelow the target ratio {TARGET_RATIO}: {', '.join(below)}")
        return 1 if args.strict else 0
    print(f"\nevery /v1/responses scenario is at least {TARGET_RATIO} x the trivial endpoint's rate")
    return 0


def run(
    port: int, args: argparse.Namespace, name: str, sse_ratios: dict[str, tuple[float, float | None]], pid: int
) -> list[str]:
    """Measure every scenario on one server (process ``pid``); print its table; return the scenarios below the
    target (judged on requests per second)."""
    print(
        f"\nserver: {name} on 127.0.0.1:{port} (child process); {args.threads} client threads, "
        f"{args.requests} requests per scenario, best of {args.rounds} interleaved rounds; cpus: {os.cpu_count()}"
    )
    for scenario in SCENARIOS:  # warm-up: imports, schema compilation, SQLite file creation (every worker)
        for _ in range(20):
            request_once(port, scenario, json.dumps(scenario.body).encode())

    best = {scenario.name: 0.0 for scenario in SCENARIOS}
    cpu: dict[str, float | None] = {scenario.name: None for scenario in SCENARIOS}  # least server CPU s/request
    for _ in range(args.rounds):
        for scenario in SCENARIOS:
            before = server_cpu_seconds(pid)
            best[scenario.name] = max(best[scenario.name], throughput(port, scenario, args.requests, args.threads))
            after = server_cpu_seconds(pid)
            if before is not None and after is not None:
                spent = (after - before) / args.requests
                cpu[scenario.name] = spent if cpu[scenario.name] is None else min(cpu[scenario.name], spent)

    baseline = best[SCENARIOS[0].name]
    baseline_cpu = cpu[SCENARIOS[0].name]
    print(f"\n{'scenario':<38} {'req/s':>9} {'ratio':>7}  {'target':<8} {'CPU ms/req':>10} {'CPU ratio':>9}")
    below = []
    for scenario in SCENARIOS:
        rate = best[scenario.name]
        ratio = rate / baseline
        verdict = "baseline" if scenario is SCENARIOS[0] else ("ok" if ratio >= TARGET_RATIO else "BELOW")
        if verdict == "BELOW":
            below.append(f"{scenario.name} ({name})")
        spent = cpu[scenario.name]
        cpu_text = f"{spent * 1e3:>10.2f} {baseline_cpu / spent:>9.2f}" if spent and baseline_cpu else f"{'n/a':>10}"
        print(f"{scenario.name:<38} {rate:>9.1f} {ratio:>7.2f}  {verdict:<8} {cpu_text}")
    sse = "/v1/responses SSE, text reply"
    sse_ratios[name] = (best[sse] / baseline, baseline_cpu / cpu[sse] if cpu[sse] and baseline_cpu else None)

    trivial = SCENARIOS[0]
    baseline_ms = [t * 1e3 for t in timed(lambda: first_byte_latency(port, trivial), args.latency_samples)]
    print(
        f"\ntime to the first byte of the answer ({args.latency_samples} sequential requests each; "
        "for a stream: its first SSE event):"
    )
    print(f"{'':<38} {'median ms':>9} {'p95 ms':>7}  ratio of medians")
    print(f"{trivial.name:<38} {statistics.median(baseline_ms):>9.2f} {percentile(baseline_ms, 0.95):>7.2f}  1.00")
    for scenario in (s for s in SCENARIOS if s.stream):
        samples = [
            t * 1e3 for t in timed(lambda scenario=scenario: first_byte_latency(port, scenario), args.latency_samples)
        ]
        print(
            f"{scenario.name:<38} {statistics.median(samples):>9.2f} {percentile(samples, 0.95):>7.2f}  "
            f"{statistics.median(samples) / statistics.median(baseline_ms):.2f}"
        )
    return below


# ------------------------------------------------------------------------------------------------ chain depth

CHAIN_DEPTHS = (1, 200, 600)
CHAIN_TARGET = 1.5  # the cost of one more link at depth 200-600, against at depth 1-200: 1.0 is linear


def chain_depth(args: argparse.Namespace) -> int:
    """The time of one turn continuing a ``previous_response_id`` chain, at each of :data:`CHAIN_DEPTHS`
    (in-process, Flask's test client, a temporary SQLite file), and of reading the chain alone.

    A turn replays its whole conversation (spec: previous input + previous output + new input), so it can only be
    linear in the depth: the cost of one more link must stay the same from shallow to deep chains (ratio
    ``CHAIN_TARGET`` at most; a quadratic build shows as a ratio near the depth ratio).
    """
    from webapp import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"TESTING": True, "API_TOKEN": TOKEN, "RESPONSES_DATABASE": os.path.join(folder, "c.db")})
        client = app.test_client()
        store = app.extensions["openresponses_store"]
        headers = {"Authorization": f"Bearer {TOKEN}"}
        turn_ms: dict[int, float] = {}
        read_ms: dict[int, float] = {}
        tip, depth = None, 0
        for target in CHAIN_DEPTHS:
            while depth < target:
                body = {"model": "m", "input": f"turn {depth}", **({"previous_response_id": tip} if tip else {})}
                tip = client.post("/v1/responses", json=body, headers=headers).get_json()["id"]
                depth += 1
            samples, reads = [], []
            for _ in range(args.chain_samples):  # store: false, so the chain stays at this depth
                started = time.perf_counter()
                answer = client.post(
                    "/v1/responses",
                    headers=headers,
                    json={"model": "m", "input": "again", "previous_response_id": tip, "store": False},
                )
                samples.append(time.perf_counter() - started)
                assert answer.status_code == 200, answer.get_json()
                started = time.perf_counter()
                assert len(store.chain(tip)) == target
                reads.append(time.perf_counter() - started)
            turn_ms[target] = statistics.median(samples) * 1e3
            read_ms[target] = statistics.median(reads) * 1e3
        store.close()
    print(f"\none turn continuing a chain (median of {args.chain_samples}):")
    print(f"{'depth':>6} {'turn ms':>9} {'chain read ms':>14}")
    for target in CHAIN_DEPTHS:
        print(f"{target:>6} {turn_ms[target]:>9.2f} {read_ms[target]:>14.2f}")
    (a, b, c) = CHAIN_DEPTHS
    shallow = (turn_ms[b] - turn_ms[a]) / (b - a)
    deep = (turn_ms[c] - turn_ms[b]) / (c - b)
    ratio = deep / shallow if shallow > 0 else float("inf")
    verdict = "ok (linear)" if ratio <= CHAIN_TARGET else "BELOW (superlinear)"
    print(
        f"ms per link: {shallow:.3f} at depth {a}-{b}, {deep:.3f} at {b}-{c}; ratio {ratio:.2f} "
        f"(target <= {CHAIN_TARGET}): {verdict}"
    )
    return 1 if args.strict and ratio > CHAIN_TARGET else 0


if __name__ == "__main__":
    raise SystemExit(main())
