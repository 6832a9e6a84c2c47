"""Benchmark (b) of issue 3: diff two generated ~3 MB journals through the Diff endpoint vs jsondiffpatch on Node.

Run from the repository root::

    .venv/bin/python benchmarks/bench_diff.py [--items 24000] [--edits 248] [--runs 3]

Both journals are generated here (24,000 Open Responses items, one insert near the front, a few hundred edits:
status, arguments content, outputs, added members). Ours: ``POST /diff`` through Flask's test client as the page's
form sends it (multipart; strict parse of both texts, diff, HTML partial), best of ``--runs``. Baseline, same run:
jsondiffpatch with an ``objectHash`` that keys items the way our default does (``call_id`` + whether it is an
output, else ``id``), ``JSON.parse`` + diff + RFC 6902 formatting timed inside Node, best of ``--runs``; installed
from the npm registry into ``benchmarks/.cache/node`` (gitignored). Without ``node``/``npm`` the baseline is skipped
with a message.

Prints both numbers of reported changes (ours: the page's count and the JSON Patch length; jsondiffpatch: its JSON
Patch length), both times and the ratio, and where our time goes outside Flask (parse, diff, the gate's verdicts).
Target: the same number of changes and at most jsondiffpatch's time (issue 11).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "benchmarks" / ".cache"
NODE_DIR = CACHE / "node"
JSONDIFFPATCH = "jsondiffpatch@0.7"
sys.path.insert(0, str(ROOT))

NODE_SCRIPT = r"""
import { create } from 'jsondiffpatch';
import * as jsonpatch from 'jsondiffpatch/formatters/jsonpatch';
import { readFileSync } from 'node:fs';
const [leftFile, rightFile, runs] = process.argv.slice(2);
const leftText = readFileSync(leftFile, 'utf8'), rightText = readFileSync(rightFile, 'utf8');
// The same identity as the inspector's default: call_id (a call and its output share it), else id.
const objectHash = (o, index) => o.call_id != null
  ? `c:${o.call_id}:${String(o.type).endsWith('_output')}`
  : (o.id != null ? `i:${o.id}` : JSON.stringify(o));
const differ = create({ objectHash });
let best = Infinity, ops = 0;
for (let k = 0; k < Number(runs); k++) {
  const t0 = process.hrtime.bigint();
  const delta = differ.diff(JSON.parse(leftText), JSON.parse(rightText));
  ops = jsonpatch.format(delta).length;
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
}
console.log(JSON.stringify({ ops, seconds: best }));
"""


def journal(n: int, rng: random.Random) -> list[dict[str, Any]]:
    """A conversation journal: user messages, function calls, their outputs and reasoning items, in turn."""
    items: list[dict[str, Any]] = []
    for k in range(n):
        turn = k % 4
        if turn == 0:
            items.append(
                {
                    "type": "message",
                    "id": f"msg_{k:06d}",
                    "role": "user",
                    "status": "completed",
                    "content": [
                        {
                            "type": "input_text",
                            "text": f"Latest sales for region {rng.choice(['apac', 'emea', 'amer'])}, "
                            f"and the weather in city {k}?",
                        }
                    ],
                }
            )
        elif turn == 1:
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{k:06d}",
                    "call_id": f"call_{k:06d}",
                    "name": "get_weather",
                    "status": "completed",
                    "arguments": json.dumps({"location": f"city {k}", "unit": "celsius"}),
                }
            )
        elif turn == 2:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": f"call_{k - 1:06d}",
                    "output": f"{rng.randrange(-10, 40)}°C, humid, light rain",
                }
            )
        else:
            items.append(
                {
                    "type": "reasoning",
                    "id": f"rs_{k:06d}",
                    "summary": [],
                    "encrypted_content": "gAAAAB" + "".join(rng.choices("abcdefXYZ0123456789", k=40)),
                }
            )
    return items


def edited(left: list[dict[str, Any]], edits: int, rng: random.Random) -> list[dict[str, Any]]:
    """A copy of ``left`` with one item inserted near the front and ``edits`` one-change edits after it."""
    right = json.loads(json.dumps(left))
    right.insert(
        3,
        {
            "type": "message",
            "id": "msg_inserted",
            "role": "user",
            "status": "completed",
            "content": [{"type": "input_text", "text": "One more question."}],
        },
    )
    for k in rng.sample(range(10, len(right)), edits):
        item = right[k]
        if item["type"] == "message":
            item["status"] = "incomplete"
        elif item["type"] == "function_call":
            item["arguments"] = json.dumps({"location": "Lyon", "unit": "celsius"})
        elif item["type"] == "function_call_output":
            item["output"] = "tool failed: timeout"
        else:
            item["summary"] = [{"type": "summary_text", "text": "Checked the sales table first."}]
    return right


def multipart(fields: dict[str, str]) -> tuple[bytes, str]:
    """The body and content type a browser sends for the page's form (``multipart/form-data``)."""
    boundary = "----inspector-bench-" + uuid.uuid4().hex
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value.encode() + b"\r\n"
        for name, value in fields.items()
    )
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def run_ours(left_text: str, right_text: str, runs: int) -> tuple[int, int, float]:
    """(changes on the page, JSON Patch operations, best seconds of POST /diff as htmx sends it)."""
    from webapp import create_app

    app = create_app({"TESTING": True, "API_TOKEN": "bench"})
    client = app.test_client()
    body, content_type = multipart({"left": left_text, "right": right_text})
    best = float("inf")
    page = ""
    for _ in range(runs):
        start = time.perf_counter()
        response = client.post("/diff", data=body, content_type=content_type, headers={"HX-Request": "true"})
        best = min(best, time.perf_counter() - start)
        page = response.get_data(as_text=True)
        assert response.status_code == 200, response.status_code
    found = re.search(r"<strong>([\d,]+) changes?</strong>", page)
    changes = int(found.group(1).replace(",", "")) if found else 0
    patch = client.post("/diff/patch", data=body, content_type=content_type)
    return changes, len(json.loads(patch.data)), best


def breakdown(left_text: str, right_text: str) -> dict[str, float]:
    """Where our time goes, outside Flask: the strict parse of both texts and the diff itself."""
    from webapp.core.diff import diff
    from webapp.core.json import parse

    start = time.perf_counter()
    left, right = parse(left_text).value, parse(right_text).value
    parsed = time.perf_counter()
    diff(left, right)
    done = time.perf_counter()
    return {"parse both": parsed - start, "diff": done - parsed}


def verdicts_breakdown(left_text: str, right_text: str) -> dict[str, float]:
    """The gate's verdicts on both journals, outside Flask: as the page asks for them (no tools given, so ``schema
    next`` with ``tools_later``; one :class:`~webapp.core.gate.VerdictMemo`, so the right side reuses the left
    side's calls), and as ``python -m webapp gate`` and ``/api/gate`` ask (``unknown_tool`` findings, no memo).
    The collector is paused, as the page pauses it for texts this big."""
    from webapp.core.gate import VerdictMemo, check_journal
    from webapp.core.json import paused_gc

    left, right = json.loads(left_text), json.loads(right_text)
    with paused_gc():
        start = time.perf_counter()
        memo = VerdictMemo()
        check_journal(left, tools_later=True, memo=memo)
        check_journal(right, tools_later=True, memo=memo)
        paged = time.perf_counter()
        check_journal(left)
        check_journal(right)
        done = time.perf_counter()
    return {"gate verdicts of both as the page asks": paged - start, "as the CLI and /api/gate ask": done - paged}


def run_jsondiffpatch(left_file: Path, right_file: Path, runs: int) -> tuple[int, float] | None:
    """(JSON Patch operations, best seconds) from jsondiffpatch, or None (with a message) without Node."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        print("jsondiffpatch baseline skipped: node and npm are needed (apt-get install nodejs npm)")
        return None
    NODE_DIR.mkdir(parents=True, exist_ok=True)
    if not (NODE_DIR / "node_modules" / "jsondiffpatch").is_dir():
        (NODE_DIR / "package.json").write_text('{"private": true}\n')
        print(f"installing {JSONDIFFPATCH} from the npm registry into {NODE_DIR.relative_to(ROOT)} ...")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", JSONDIFFPATCH],
            cwd=NODE_DIR,
            check=True,
            timeout=600,
        )
    script = NODE_DIR / "bench_jsondiffpatch.mjs"
    script.write_text(NODE_SCRIPT)
    out = subprocess.run(
        [node, str(script), str(left_file), str(right_file), str(runs)],
        cwd=NODE_DIR,
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return int(result["ops"]), float(result["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=24_000)
    parser.add_argument("--edits", type=int, default=248)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    left = journal(args.items, rng)
    right = edited(left, args.edits, rng)
    left_text, right_text = json.dumps(left, ensure_ascii=False), json.dumps(right, ensure_ascii=False)
    CACHE.mkdir(parents=True, exist_ok=True)
    left_file, right_file = CACHE / "diff-left.json", CACHE / "diff-right.json"
    left_file.write_text(left_text, encoding="utf-8")
    right_file.write_text(right_text, encoding="utf-8")
    expected = 1 + args.edits
    print(
        f"journals: {len(left):,} / {len(right):,} items, {len(left_text.encode()) / 1e6:.1f} MB / "
        f"{len(right_text.encode()) / 1e6:.1f} MB; made: 1 insert + {args.edits} edits = {expected} changes"
    )

    changes, ops, ours = run_ours(left_text, right_text, args.runs)
    print(
        f"ours (POST /diff, best of {args.runs}): {changes} changes reported, {ops} JSON Patch operations, {ours:.3f} s"
    )
    print(
        "  of which, outside Flask: " + ", ".join(f"{k} {v:.3f} s" for k, v in breakdown(left_text, right_text).items())
    )
    print(
        "  and, outside Flask: "
        + ", ".join(f"{k} {v:.3f} s" for k, v in verdicts_breakdown(left_text, right_text).items())
    )
    baseline = run_jsondiffpatch(left_file, right_file, args.runs)
    if baseline is None:
        return 0
    their_ops, theirs = baseline
    ratio = ours / theirs
    print(
        f"jsondiffpatch + objectHash (Node, JSON.parse + diff + JSON Patch, best of {args.runs}): "
        f"{their_ops} JSON Patch operations, {theirs:.3f} s"
    )
    same = changes == their_ops == expected
    print(
        f"changes: ours {changes} vs jsondiffpatch {their_ops} ({'same' if same else 'DIFFERENT'}); "
        f"time ratio ours/jsondiffpatch = {ratio:.2f}x (target <= 1x: {'met' if ratio <= 1 else 'NOT met'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
