"""``python -m webapp`` as a process: stdin, the real module entry point, a pipe between two commands, the peak
memory of ``gate --stream``. The same commands in process are the unit tests (``tests/unit/test_cli*.py``)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.cli import WEATHER_TOOL, call

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = str(SAMPLES / "tools.json")


@pytest.fixture
def files(tmp_path):
    def write(name: str, content) -> str:
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    return write


def clean_stream(app) -> str:
    answer = app.test_client().post(
        "/v1/responses",
        json={"model": "m", "input": "Count from 1 to 5.", "stream": True},
        headers={"Authorization": f"Bearer {app.config['API_TOKEN']}"},
    )
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_gate_stdin_and_the_real_module_entry_point(files):
    tools = files("tools.json", [WEATHER_TOOL])
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "gate", "-", "--tools", tools],
        input=json.dumps(call("c1", '{"location":"Paris"}')),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split() == ["0", "fc_c1", "get_weather", "ok"]
    bad = subprocess.run(
        [sys.executable, "-m", "webapp", "gate", "-"], input="[1,", capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert bad.returncode == 2 and bad.stderr.startswith("-: line 1")


def test_lint_stream_stdin_and_the_real_module_entry_point(app):
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "lint-stream", "-", "--kind", "sse"],
        input=clean_stream(app),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(": clean\n")


@pytest.mark.slow
def test_convert_then_gate_round_trip_through_stdin(tmp_path: Path):
    converted = subprocess.run(
        [sys.executable, "-m", "webapp", "convert", str(CONVERSATIONS / "gemini-contents.json")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=True,
    ).stdout
    gated = subprocess.run(
        [sys.executable, "-m", "webapp", "gate", "-", "--stream", "--tools", TOOLS],
        input=converted,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    lines = [json.loads(line) for line in gated.stdout.splitlines()]
    assert gated.returncode == 0 and lines[-1] == {
        "replayable": True,
        "answer": "replayable",
        "says": "replayable",
        "unchecked": {},
        "counts": {"not_function_call": 5, "ok": 2},
        "items": 7,
    }


@pytest.mark.slow
def test_stream_memory_does_not_grow_with_the_journal(tmp_path: Path):
    line = json.dumps({"type": "message", "role": "assistant", "content": "x" * 2000}) + "\n"

    def peak(count: int) -> int:
        path = tmp_path / f"{count}.jsonl"
        with path.open("w") as out:
            for _ in range(count):
                out.write(line)
        probe = (
            "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
        )
        result = subprocess.run(
            [sys.executable, "-c", probe, sys.executable, "-m", "webapp", "gate", str(path), "--stream"],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=300,
            check=True,
        )
        return int(result.stdout)

    small, big = peak(2_000), peak(40_000)  # 4 MB and 80 MB of JSON Lines
    assert big < small * 1.3 + 10_000, (small, big)  # KiB: the same process size, not 20x
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


@pytest.mark.parametrize("command", ["gate", "convert", "lint-stream"])
@pytest.mark.parametrize("mode", ["ab", "wb"], ids=[">>", ">"])
def test_stdout_redirected_onto_the_input_is_refused(tmp_path: Path, command: str, mode: str):
    """``>> FILE``: the file is left as it was; ``> FILE`` has emptied it before the CLI runs, and the message says
    so rather than calling the file empty."""
    journal = tmp_path / "journal.json"
    journal.write_text(json.dumps([call("c1")]), encoding="utf-8")
    before = journal.read_bytes()
    with journal.open(mode) as redirected:
        result = subprocess.run(
            [sys.executable, "-m", "webapp", command, str(journal)],
            stdout=redirected,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    name = "JOURNAL" if command == "gate" else "FILE"
    emptied = " (a redirection with > emptied it before this ran)" if mode == "wb" else ""
    assert result.returncode == 2
    assert result.stderr == (
        f"stdout is redirected to {journal}, the {name} this reads{emptied}: redirect the output to another file\n"
    )
    assert journal.read_bytes() == (before if mode == "ab" else b"")
