"""Every ``format`` checker on 1 MB strings made to hurt it, against one scan of the same string.

Run: ``.venv/bin/python benchmarks/bench_formats.py [--size BYTES] [--repeat R]``

For each format the schema layer asserts (``webapp.core.schema.formats.FORMAT_CHECKERS``) it runs the checker on
every value of :func:`values` (about ``--size`` characters each: long local parts, long host names, long paths of
every URI component, percent-encodings, non-ASCII, IRI private-use characters, nested braces, tildes, deep
parentheses, alternations), and prints, for the worst value:

* its time (best of ``--repeat``), and that time against ``str.count`` over the same value (one C scan: the
  floor any checker that reads the value pays);
* the peak memory the check allocated (``tracemalloc``, a run of its own) per input character.

The target: every format answers within 100 ms on any value, with memory at most a few bytes per character (the
RFC-bounded formats — e-mail, host names, IP addresses — refuse a long value before reading it).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp.core.schema.formats import FORMAT_CHECKERS  # noqa: E402

TARGET_SECONDS = 0.1


def values(size: int) -> dict[str, str]:
    """The hurtful values, each about ``size`` characters."""
    half, third = size // 2, size // 3
    return {
        "letters": "a" * size,
        "digits": "1" * size,
        "labels": "a." * half,
        "local part": "a" * size + "@example.com",
        "domain": "a@" + "a." * half + "com",
        "bad domain": "a@-" + "x" * size + ".com",
        "uri path": "http://example.com/" + "a/" * half,
        "uri query": "http://example.com/?" + "a=1&" * (size // 4),
        "authority": "//" + "a" * size,
        "userinfo": "http://" + "u:" * half + "@host/",
        "percent": "http://x/" + "%41" * third,
        "bad percent": "http://x/" + "%4" * half,
        "non-ASCII": "http://x/" + "é" * size,
        "private use": "http://x/" + "\ue000" * size,
        "slashes": "/" * size,
        "colons": ":" * size,
        "at signs": "@" * size,
        "tildes": "/" + "~0~1" * (size // 4),
        "bad tilde": "/" + "~" * size,
        "expressions": "{a}" * third,
        "open brace": "{" + "a" * size,
        "varspec dots": "{" + "a." * half + "}",
        "parentheses": "(" * half + ")" * half,
        "alternation": "|" * size,
        "class": "[" + "a" * size + "]",
        "duration": "P" + "1" * size,
        "time": "12:00:00." + "1" * size + "Z",
        "ipv6": "1:" * half,
        "newline": "http://x/" + "a" * size + "\n",
    }


def best_time(check, value: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        check(value)
        best = min(best, time.perf_counter() - start)
    return best


def peak_bytes(check, value: str) -> int:
    tracemalloc.start()
    try:
        check(value)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per value (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per value, the best counts (default 3)")
    options = parser.parse_args()
    cases = values(options.size)
    print(f"{len(cases)} values of about {options.size:,} characters; target: every format under {TARGET_SECONDS:g} s")
    print(f"{'format':22} {'worst value':14} {'time':>9} {'× str.count':>12} {'peak B/char':>12}")
    failures = 0
    for name, check in FORMAT_CHECKERS.items():
        timed = {label: best_time(check, value, options.repeat) for label, value in cases.items()}
        label = max(timed, key=timed.__getitem__)
        value = cases[label]
        floor = best_time(lambda v: v.count("%"), value, options.repeat)
        peak = max(peak_bytes(check, v) / max(len(v), 1) for v in cases.values())
        ok = timed[label] <= TARGET_SECONDS
        failures += not ok
        print(
            f"{name:22} {label:14} {timed[label] * 1000:7.1f} ms {timed[label] / floor:11.0f}× {peak:12.2f}"
            + ("" if ok else "   over the target")
        )
    print("all formats within the target" if not failures else f"{failures} formats over the target")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
