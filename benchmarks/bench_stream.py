"""The stream linter's throughput on a generated 50 MB recording, against ``json.loads`` of the same events.

Run: ``.venv/bin/python benchmarks/bench_stream.py [--events N] [--repeat R]``

It builds one response of many output items (messages whose text streams in ``output_text`` deltas, calls whose
arguments stream in ``function_call_arguments`` deltas), turns it into the built-in endpoint's own stream
(``webapp.core.responses.events.stream_events``, framed by ``webapp.core.responses.sse.encode_events``, ``data:
[DONE]`` last): about N events (default 200,000), about 50 MB of SSE text. Then, in the same run:

* ``json.loads``   — the baseline: ``json.loads`` of every event's data, already cut out of the text (what any
  linter must at least do);
* ``lint``         — :func:`webapp.core.stream.lint_text` on the whole text: reading the SSE frames with their
  lines, the strict parse, every event's schema, the sequence rules, the built items against the final response,
  the replay gate on each call.

Each figure is the best of ``--repeat`` runs. The goal: lint within 5x of ``json.loads``. The recording must lint
clean (it is the endpoint's own stream): the benchmark says so, or fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp.core.responses.events import stream_events  # noqa: E402
from webapp.core.responses.sse import DONE, encode_events  # noqa: E402
from webapp.core.responses.tokens import delta_chunks  # noqa: E402
from webapp.core.stream import lint_text  # noqa: E402

GOAL = 5.0
TOOL = {
    "type": "function",
    "name": "record_reading",
    "description": "Store one sensor reading",
    "parameters": {
        "type": "object",
        "required": ["sensor", "values"],
        "properties": {"sensor": {"type": "string"}, "values": {"type": "array", "items": {"type": "number"}}},
    },
    "strict": None,
}
WORDS = "the tidal range rises and falls twice daily as gravitational pull draws oceans toward the moon".split()


def response(status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    """A ResponseResource with every required member (spec notes §4)."""
    return {
        "id": "resp_bench",
        "object": "response",
        "created_at": 1767225600,
        "completed_at": 1767225700 if status == "completed" else None,
        "status": status,
        "incomplete_details": None,
        "model": "openresponses-test",
        "previous_response_id": None,
        "instructions": None,
        "output": output,
        "error": None,
        "tools": [TOOL],
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
        "usage": None
        if status == "in_progress"
        else {
            "input_tokens": 10,
            "output_tokens": 10,
            "total_tokens": 20,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": True,
        "background": False,
        "service_tier": "default",
        "metadata": {},
        "safety_identifier": None,
        "prompt_cache_key": None,
    }


def recording(events: int) -> str:
    """The endpoint's own SSE text for a response of about ``events`` events."""
    output: list[dict[str, Any]] = []
    count = 3  # response.created, .in_progress, .completed
    number = 0
    while count < events:
        # As the endpoint's ids are (new_id): 24 hex digits, mostly not all decimal ones.
        item_id = hashlib.sha256(str(number).encode()).hexdigest()[:24]
        if number % 2:
            values = [round(number + k / 7, 3) for k in range(400)]
            arguments = json.dumps({"sensor": f"s{number}", "values": values}, separators=(",", ":"))
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{item_id}",
                    "call_id": f"call_{item_id}",
                    "name": TOOL["name"],
                    "arguments": arguments,
                    "status": "completed",
                }
            )
            count += len(delta_chunks(arguments)) + 3
        else:
            text = " ".join(WORDS[(number + k) % len(WORDS)] for k in range(2000))
            output.append(
                {
                    "type": "message",
                    "id": f"msg_{item_id}",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
            count += len(delta_chunks(text)) + 5
        number += 1
    return "".join([*encode_events(stream_events(response("in_progress", []), response("completed", output))), DONE])


def best_of(repeat: int, run: Any) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000, help="about this many events (default 200000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    options = parser.parse_args(argv)

    text = recording(options.events)
    datas = [line[6:] for line in text.split("\n") if line.startswith("data: {")]

    def loads() -> int:
        for data in datas:
            json.loads(data)
        return len(datas)

    lint_text(text[: text.index("\n\n", 200_000) + 2])  # compile the event schemas once: a one-off cost
    t_loads, count = best_of(options.repeat, loads)
    t_lint, report = best_of(options.repeat, lambda: lint_text(text))
    if not report.clean:
        print("the recording did not lint clean:", *report.findings[:5], sep="\n  ")
        return 1
    size = len(text.encode("utf-8"))
    print(f"recording: {count:,} events, {size / 1e6:,.1f} MB of SSE text, {len(report.streams[0].items):,} items")
    print(f"{'step':<36}{'events/s':>14}{'x json.loads':>14}")
    print(f"{'json.loads of each event':<36}{count / t_loads:>14,.0f}{1.0:>14.2f}")
    print(f"{'lint_text (read, parse, check)':<36}{count / t_lint:>14,.0f}{t_lint / t_loads:>14.2f}")
    met = t_lint / t_loads <= GOAL
    print(f"goal: lint within {GOAL:g}x of json.loads -> {'MET' if met else 'NOT MET'} ({t_lint / t_loads:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
