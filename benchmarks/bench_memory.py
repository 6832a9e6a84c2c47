"""Peak memory per input byte of every route that reads a body, against ``json.loads`` of the same JSON.

Run: ``.venv/bin/python benchmarks/bench_memory.py [--sizes 1,10] [--routes /format,/api/gate] [--kinds keys,calls]``

For each route (``/format``, ``/schema``, ``/diff``, ``/journal``, ``/stream``, ``/api/gate``, ``/api/convert``,
``/api/tools``, ``/v1/responses``), each kind of body and each size (MB of JSON), a fresh subprocess builds the
real app (Flask's test client, ``MAX_CONTENT_LENGTH`` raised above the body), reads the body from a file, warms the
route up with a small request, then posts the body once. Measured there:

* ``peak/body`` — the process's peak RSS growth during that request (its peak ``VmHWM``, reset just before, less
  the resident size then; Linux only) per byte of the request body;
* ``loads/json`` — the same, in a subprocess of its own, for ``json.loads`` of the JSON text in the body (of each
  event's data for ``/stream``), per byte of that JSON (the baseline: anything that reads the body parses it; on
  small keys it is about 13);
* ``x loads`` — the two ratios divided; ``answer`` — the answer's size in bytes.

The kinds of body: ``keys`` — one JSON object of many small keys (``{"k0000001": 1, …}``: ~11 bytes a key);
``calls`` — a journal of many small ``function_call`` items, each with its ``function_call_output``. A page
route gets its JSON in the form field it reads (urlencoded, as a browser sends a form), an API route in its JSON
body. The target (issue 19, point 3): ``peak/body`` at most about 10 on every route, the answer paged or streamed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
ROUTES = (
    "/format",
    "/schema",
    "/diff",
    "/journal",
    "/stream",
    "/api/gate",
    "/api/convert",
    "/api/tools",
    "/v1/responses",
)
KINDS = ("keys", "calls")
TOKEN = "sk-bench-memory"
TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "required": ["location"],
        "properties": {"location": {"type": "string"}},
    },
}


# -- bodies -------------------------------------------------------------------------------------------------------


def keys_value(size: int) -> dict[str, int]:
    """A JSON object of about ``size`` bytes of small keys."""
    return {f"k{i:07d}": i % 10 for i in range(max(1, size // 15))}


def calls_value(size: int) -> list[dict[str, str]]:
    """About ``size`` bytes of items: a ``function_call`` and its ``function_call_output``, again and again."""
    items = []
    for i in range(max(1, size // 190)):
        call = f"c{i}"
        items.append(
            {
                "type": "function_call",
                "call_id": call,
                "name": "get_weather",
                "arguments": '{"location":"Paris"}',
                "status": "completed",
            }
        )
        items.append({"type": "function_call_output", "call_id": call, "output": "sunny"})
    return items


def sse(items: list) -> str:
    """A recorded stream (SSE) whose events carry these values (one ``response.output_item.done`` each)."""
    frames = [
        "event: response.output_item.done\ndata: "
        + json.dumps({"type": "response.output_item.done", "sequence_number": n, "output_index": n, "item": item})
        + "\n\n"
        for n, item in enumerate(items)
    ]
    return "".join(frames)


def body(route: str, kind: str, size: int) -> tuple[bytes, str, str]:
    """``(body, content type, the JSON text in it)`` for one case."""
    value = keys_value(size) if kind == "keys" else calls_value(size)
    text = json.dumps(value)
    form: dict[str, str] | None = None
    api: dict | None = None
    if route == "/format":
        form = {"document": text}
    elif route == "/schema":
        form = {"instance": text, "schema": json.dumps(TOOL if kind == "calls" else {"type": "object"})}
    elif route == "/diff":
        changed = dict(value, extra=1) if isinstance(value, dict) else [*value, {"type": "message"}]
        form = {"left": text, "right": json.dumps(changed)}
    elif route == "/journal":
        form = {"journal": text if kind == "calls" else json.dumps([value])}
    elif route == "/stream":
        text = sse([value] if kind == "keys" else value)
        form = {"stream": text}
    elif route == "/api/gate":
        api = {"items": value, "tools": [TOOL]} if kind == "calls" else {"item": value}
    elif route == "/api/convert":
        api = {"journal": value}
    elif route == "/api/tools":
        api = {"texts": [text]}
    elif route == "/v1/responses":
        call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": text, "status": "completed"}
        items = value if kind == "calls" else [call, {"type": "function_call_output", "call_id": "c", "output": "x"}]
        api = {"model": "openresponses-test", "input": items, "tools": [TOOL], "store": False}
    if form is not None:
        return urlencode(form).encode(), "application/x-www-form-urlencoded", text
    data = json.dumps(api)
    return data.encode(), "application/json", data


# -- one measurement, in a fresh process --------------------------------------------------------------------------


def _resident() -> int:
    """The process's resident size now, after its peak is reset (Linux: ``/proc/self/clear_refs``), so that
    :func:`_peak` is the peak of what runs next, not of the imports or of reading the body before it."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak() -> int:
    """The peak resident size since :func:`_resident` (``VmHWM``)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def child(mode: str, route: str, path: str, content_type: str) -> None:
    """Print ``peak growth, answer bytes, status`` for one request (or for ``json.loads`` of the file)."""
    data = Path(path).read_bytes()
    if mode == "loads":
        text = data.decode()
        before = _resident()
        if route == "/stream":  # a stream's JSON is its events' data
            value = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
        else:
            value = json.loads(text)
        print(json.dumps({"growth": max(0, _peak() - before), "answer": 0, "status": 0, "kept": value is not None}))
        return
    sys.path.insert(0, str(ROOT))
    from webapp import create_app

    folder = tempfile.mkdtemp()
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TOKEN,
            "MAX_CONTENT_LENGTH": len(data) + (1 << 20),
            "MAX_FORM_MEMORY_SIZE": len(data) + (1 << 20),
            "RESPONSES_DATABASE": os.path.join(folder, "bench.sqlite3"),
        }
    )
    client = app.test_client()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    small, small_type, _ = body(route, "calls", 400)
    client.post(route, data=small, content_type=small_type, headers=headers)  # modules loaded, caches warm
    before = _resident()
    response = client.post(route, data=data, content_type=content_type, headers=headers)
    answer = len(response.get_data())
    growth = _peak() - before
    print(json.dumps({"growth": max(0, growth), "answer": answer, "status": response.status_code, "kept": True}))


def measure(mode: str, route: str, path: Path, content_type: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", mode, route, str(path), content_type],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="MB of JSON per case, comma-separated")
    parser.add_argument("--routes", default=",".join(ROUTES))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sizes = [int(float(s) * 1_000_000) for s in args.sizes.split(",")]
    print(
        f"{'route':<15}{'kind':<7}{'body MB':>9}{'status':>7}{'peak MB':>9}{'peak/body':>10}"
        f"{'loads/json':>11}{'x loads':>9}{'answer MB':>11}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for route in args.routes.split(","):
            for kind in args.kinds.split(","):
                for size in sizes:
                    data, content_type, text = body(route, kind, size)
                    request_path, json_path = Path(folder) / "body", Path(folder) / "json"
                    request_path.write_bytes(data)
                    json_path.write_text(text)
                    del data
                    got = measure("request", route, request_path, content_type)
                    base = measure("loads", route, json_path, "")
                    body_bytes, json_bytes = request_path.stat().st_size, json_path.stat().st_size
                    per_body = got["growth"] / body_bytes
                    per_json = base["growth"] / json_bytes
                    print(
                        f"{route:<15}{kind:<7}{body_bytes / 1e6:>9.1f}{got['status']:>7}{got['growth'] / 1e6:>9.0f}"
                        f"{per_body:>10.1f}{per_json:>11.1f}{per_body / per_json:>9.1f}{got['answer'] / 1e6:>11.2f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
