"""Format a generated ~45 MB document through the JSON Format endpoint vs orjson and ``python -m json.tool``,
same run.

Run: ``.venv/bin/python benchmarks/bench_format.py [--mb 45] [--repeat 3]``

Prints the best time of each: the endpoint through Flask's test client (multipart POST as a browser sends it; the
page is the htmx partial, the download the whole formatted text), orjson in this process (read the file,
``orjson.loads``, ``orjson.dumps(option=OPT_INDENT_2)``: a Rust parser and writer, the fastest well-kept one) and
``json.tool`` (a subprocess on the same file). Targets: the page and the download at most 2x orjson's time, and no
slower than ``json.tool``. It checks that every token came back exactly as written (``1.10``, ``1e2``, ``-0``,
30-digit integers), which neither orjson nor ``json.tool`` does. A breakdown line times the download's two core
steps outside Flask (the parse for the verdict, the formatter), after the timed runs.
"""

from __future__ import annotations

import argparse
import html
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402  (the baseline)
from bench_diff import multipart  # noqa: E402  (the same form body a browser sends)

from webapp import create_app  # noqa: E402
from webapp.core.format import format_bytes, minify  # noqa: E402
from webapp.core.json import parse, paused_gc  # noqa: E402

# Spellings json.tool rewrites (1.10 -> 1.1, 1e2 -> 100.0, -0 -> 0, 1E-7 -> 1e-07, the long decimal -> 0.1).
SPELLINGS = ["1.10", "1e2", "-0", "1E-7", "0.1000000000000000055511151231257827", "-0.0", "2.50E+3"]
#: The page's and the download's time at most this many times orjson's (issue 11, §5).
ORJSON_TARGET = 2.0
OUTPUT = re.compile(r'<pre id="format-output"[^>]*>(.*?)</pre>', re.S)


def generate(target_bytes: int, seed: int = 7) -> str:
    """A journal-like document: items with nested objects, arrays, escapes, non-ASCII text and odd numbers."""
    rnd = random.Random(seed)
    chunks: list[str] = []
    size = 0
    index = 0
    while size < target_bytes:
        big = "".join(rnd.choice("123456789") for _ in range(30))
        item = (
            f'{{"type": "function_call", "id": "fc_{index:07d}", "call_id": "call_{index:07d}", '
            f'"name": "get_latest_sales_report", "status": "completed", '
            f'"arguments": "{{\\"region\\":\\"apac\\",\\"limit\\":{rnd.randrange(100)}}}", '
            f'"metrics": {{"price": {rnd.choice(SPELLINGS)}, "ratio": {rnd.random()!r}, '
            f'"count": {rnd.randrange(10**6)}, '
            f'"ledger": {big}, "flags": [true, false, null], "empty": {{}}, "none": []}}, '
            f'"note": "line\\nbreak, tab\\t, quote \\" and \\\\ backslash, caf\\u00e9, Zürich, 東京", '
            f'"path": ["a", "b/c", "~d", {index % 97}]}}'
        )
        chunks.append(item)
        size += len(item) + 2
        index += 1
    return '{"object": "journal", "items": [\n  ' + ",\n  ".join(chunks) + "\n]}\n"


def best(runs: list[float]) -> float:
    return min(runs)


def breakdown(text: str, limit: int, repeat: int) -> tuple[float, float]:
    """Best seconds of the download's two core steps as the endpoint runs them (collector paused): the parse for
    the verdict only and the formatter on the parts it split (``webapp.core.format_page.format_document``)."""
    parse_runs, format_runs = [], []
    for _ in range(repeat):
        with paused_gc():
            start = time.perf_counter()
            document = parse(text, max_bytes=limit, warn=False, values=False, string_parts=True)
            parse_runs.append(time.perf_counter() - start)
            start = time.perf_counter()
            format_bytes(document.text, "pretty", "  ", split=document.take_string_parts())
            format_runs.append(time.perf_counter() - start)
    return best(parse_runs), best(format_runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=45.0, help="document size in MB (default 45)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best time kept (default 3)")
    args = parser.parse_args()

    text = generate(int(args.mb * 1_000_000))
    body = text.encode("utf-8")
    limit = len(body) * 2 + (1 << 20)
    app = create_app(
        {"TESTING": True, "API_TOKEN": "sk-bench", "MAX_CONTENT_LENGTH": limit, "MAX_FORM_MEMORY_SIZE": limit}
    )
    client = app.test_client()
    print(f"document: {len(body) / 1e6:.1f} MB, {text.count('function_call'):,} items; best of {args.repeat} runs")

    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "document.json", Path(tmp) / "json-tool.json"
        source.write_bytes(body)

        tool_runs, orjson_runs, page_runs, download_runs = [], [], [], []
        # The request's bytes, as a browser sends them, are made once: the time is the server's (reading the
        # multipart body is in it), not the benchmark's client writing 45 MB of form data each run.
        form, content_type = multipart({"document": text, "action": "pretty", "indent": "2"})
        for _ in range(args.repeat):
            # Timed: reading the file, parsing and writing it indented; the parsed values are freed inside the
            # timing too (as the endpoint frees its own before answering).
            start = time.perf_counter()
            orjson_output = orjson.dumps(orjson.loads(source.read_bytes()), option=orjson.OPT_INDENT_2)
            orjson_runs.append(time.perf_counter() - start)

            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "json.tool", str(source), str(target)], check=True)
            tool_runs.append(time.perf_counter() - start)

            # Timed: the endpoint (from the request's bytes) and the answer's bytes. Not timed: the benchmark
            # decoding the answer to check it.
            start = time.perf_counter()
            response = client.post("/format/download", data=form, content_type=content_type)
            download_runs.append(time.perf_counter() - start)
            assert response.status_code == 200, response.status_code
            output = response.get_data(as_text=True)

            start = time.perf_counter()
            response = client.post("/format", data=form, content_type=content_type, headers={"HX-Request": "true"})
            page_runs.append(time.perf_counter() - start)
            assert response.status_code == 200, response.status_code
            page = response.get_data(as_text=True)
            match = OUTPUT.search(page)
            assert match and output.startswith(html.unescape(match.group(1))), "the page shows another output"

        tool_output = target.read_text(encoding="utf-8")
    orjson_text = orjson_output.decode("utf-8")

    tool, fast = best(tool_runs), best(orjson_runs)
    print(f"orjson loads + dumps(OPT_INDENT_2), in process   {fast:6.2f} s  ({len(body) / 1e6 / fast:5.1f} MB/s)")
    print(f"python -m json.tool (same file)                  {tool:6.2f} s  ({len(body) / 1e6 / tool:5.1f} MB/s)")
    for name, runs, answered in (
        ("POST /format/download (whole formatted text)", download_runs, len(output)),
        ("POST /format (the page, htmx partial)        ", page_runs, len(page)),
    ):
        took = best(runs)
        print(f"{name}     {took:6.2f} s  ({len(body) / 1e6 / took:5.1f} MB/s, {answered / 1e6:.1f} MB answered)")
        print(
            f"    ratio to orjson {took / fast:.2f} (target <= {ORJSON_TARGET:.2f}: "
            f"{'met' if took <= ORJSON_TARGET * fast else 'NOT met'}),  "
            f"ratio to json.tool {took / tool:.2f} (target <= 1.00: {'met' if took <= tool else 'NOT met'})"
        )

    parse_time, format_time = breakdown(text, limit, args.repeat)
    print(
        f"    the download's core, outside Flask (best of {args.repeat}): parse for the verdict {parse_time:.2f} s, "
        f"format {format_time:.2f} s (its parts freed)"
    )

    exact = minify(output) == minify(text)
    print(f"every token kept as written (minify(output) == minify(input)): {'yes' if exact else 'NO'}")
    for spelling in SPELLINGS:
        ours, theirs = output.count(f": {spelling},"), tool_output.count(f": {spelling},")
        fastest = orjson_text.count(f": {spelling},")
        print(f"  'price': {spelling:<38} endpoint {ours:>7,}   orjson {fastest:>7,}   json.tool {theirs:>7,}")
    return 0 if exact else 1


if __name__ == "__main__":
    raise SystemExit(main())
