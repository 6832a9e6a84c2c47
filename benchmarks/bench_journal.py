"""The journal step on a generated 100,000-item JSON Lines journal (~30 MB): items/s and peak memory.

Run: ``.venv/bin/python benchmarks/bench_journal.py [--items N] [--repeat R]``

Measured in the same run, best of ``--repeat``:

* ``parse only``      — ``json.loads`` of every line (the lower bound: anything that reads the journal parses it);
* ``journal page``    — :func:`webapp.core.pages.journal.build`: detect, convert, gate every item,
  pair calls and outputs, build the first page of rows and the replayable subset (what ``POST /journal`` does);
* ``CLI, streamed``   — ``python -m webapp gate --stream`` over the file, verdicts written as JSON Lines (what a
  journal of any size goes through), in a subprocess so its peak RSS is its own.

Peak memory: Python's allocations (tracemalloc) for the in-process runs, and the CLI's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webapp.core.pages import journal as journal_page  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["location"],
            "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
        },
    },
    {
        "type": "function",
        "name": "get_latest_sales_report",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["region"],
            "properties": {"region": {"enum": ["apac", "emea", "amer"]}},
        },
    },
]


def journal(items: int, seed: int = 7) -> str:
    """``items`` Open Responses items in turns of four: question, call, output, answer; a few refusals."""
    rng = random.Random(seed)
    lines = []
    for turn in range(items // 4):
        call_id = f"call_{turn:07d}"
        if rng.random() < 0.5:
            name, args = "get_weather", {"location": rng.choice(["Paris", "Lima", "Oslo"]), "unit": "celsius"}
        else:
            name, args = "get_latest_sales_report", {"region": rng.choice(["apac", "emea", "amer", "global"])}
        status = "incomplete" if rng.random() < 0.02 else "completed"
        lines += [
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"Question {turn}: " + "details " * 8}],
            },
            {
                "type": "function_call",
                "id": f"fc_{turn:07d}",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(args),
                "status": status,
            },
            {"type": "function_call_output", "call_id": call_id, "output": json.dumps({"ok": True, "n": turn})},
            {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Answer " + "words " * 30, "annotations": []}],
            },
        ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_python(run: Callable[[], object]) -> int:
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = journal(args.items)
    tools = json.dumps(TOOLS)
    lines = text.splitlines()
    print(f"journal: {len(lines):,} items, {len(text.encode()) / 1e6:.1f} MB of JSON Lines")

    parse = best(args.repeat, lambda: [json.loads(line) for line in lines])
    page = best(args.repeat, lambda: journal_page.build(text, tools=tools))
    with tempfile.TemporaryDirectory() as folder:
        path, tools_path = Path(folder) / "journal.jsonl", Path(folder) / "tools.json"
        path.write_text(text)
        tools_path.write_text(tools)
        command = [sys.executable, "-m", "webapp", "gate", str(path), "--tools", str(tools_path), "--stream"]

        def cli() -> None:
            subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)

        streamed = best(args.repeat, cli)
        measure = subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
                    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
                ),
                *command,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        cli_rss = int(measure.stdout.strip()) * 1024

    n = len(lines)
    print(f"{'implementation':<28}{'items/s':>12}{'x parse':>10}")
    for label, seconds in (("parse only (json.loads)", parse), ("journal page", page), ("CLI, streamed", streamed)):
        print(f"{label:<28}{n / seconds:>12,.0f}{seconds / parse:>10.2f}")
    page_peak = peak_python(lambda: journal_page.build(text, tools=tools))
    parse_peak = peak_python(lambda: [json.loads(line) for line in lines])
    print(
        f"peak memory: journal page {page_peak / 1e6:,.0f} MB of Python allocations "
        f"({page_peak / parse_peak:.1f}x the parsed journal's {parse_peak / 1e6:,.0f} MB); "
        f"CLI streamed {cli_rss / 1e6:,.0f} MB RSS (the whole process)"
    )
    print(f"own RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")


if __name__ == "__main__":
    main()
