"""The CLI on whole conversations: other providers' journals, ``convert``, ``--stream`` and a corpus (Dask too)."""

from __future__ import annotations

import io
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO, TESTS

from webapp.__main__ import main

pytestmark = pytest.mark.slow  # generated journals in subprocesses, and a Dask cluster

REPO = REPO
SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = str(SAMPLES / "tools.json")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_convert_writes_open_responses_json_lines_and_notes():
    code, out, err = run("convert", str(CONVERSATIONS / "anthropic-messages.json"))
    items = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [i["type"] for i in items].count("function_call") == 2
    assert "messages[1].content[0]: sealed_reasoning" in err and "anthropic (request), 9 items" in err
    code, out, err = run("convert", str(CONVERSATIONS / "chat-completions.json"), "--from", "gemini")
    assert code == 2 and out == "" and "not a Gemini request" in err


def test_convert_to_a_target_writes_the_body_its_api_takes():
    source = json.loads((CONVERSATIONS / "anthropic-messages.json").read_text())
    code, out, err = run("convert", str(CONVERSATIONS / "anthropic-messages.json"), "--to", "anthropic")
    body = json.loads(out)
    assert code == 0 and set(body) == {"system", "messages", "tools"}
    assert body["messages"][1] == source["messages"][1]  # the signed thinking block, in its place
    assert err.rstrip().endswith("written for anthropic before the target policy")
    code, out, err = run("convert", str(CONVERSATIONS / "anthropic-messages.json"), "--to", "gemini")
    body = json.loads(out)
    assert code == 0 and set(body) == {"systemInstruction", "contents", "tools"}
    assert "gemini: item 2/anthropic:signature: member_left_out" in err
    with pytest.raises(SystemExit) as exited:  # argparse's own refusal, on stderr
        run("convert", str(CONVERSATIONS / "anthropic-messages.json"), "--to", "bedrock")
    assert exited.value.code == 2


def test_gate_converts_another_providers_journal_and_names_the_places():
    code, out, _ = run("gate", str(CONVERSATIONS / "chat-completions-truncated.json"), "--tools", TOOLS)
    assert code == 1
    assert 'choices[0].message.tool_calls[0]: status is "incomplete"' in out
    assert "note     cut_off" in out and out.rstrip().endswith("[chat_completions]")
    code, out, _ = run("gate", str(CONVERSATIONS / "gemini-contents.json"), "--json")
    answer = json.loads(out)
    assert code == 0 and answer["source"] == "gemini" and answer["items"][2]["origin"].startswith("contents[1]")


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
        "counts": {"not_function_call": 5, "ok": 2},
        "items": 7,
    }


def test_stream_writes_verdicts_and_findings_as_they_come(tmp_path: Path):
    journal = tmp_path / "j.jsonl"
    journal.write_text(
        "\n".join(
            json.dumps(i)
            for i in [
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "get_weather",
                    "status": "completed",
                    "arguments": '{"location":"Paris"}',
                },
                {"type": "function_call_output", "call_id": "c1", "output": "a"},
                {"type": "function_call_output", "call_id": "c1", "output": "again"},
                {"type": "openai:web_search_call", "id": "ws", "status": "completed"},
            ]
        )
        + "\n\n"
    )
    code, out, _ = run("gate", str(journal), "--stream", "--tools", TOOLS)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(x.get("line"), x.get("reason")) for x in lines if "reason" in x] == [
        (1, "ok"),
        (2, "not_function_call"),
        (3, "not_function_call"),
        (4, "namespaced"),
    ]
    assert lines[3] == {"finding": lines[3]["finding"]} and lines[3]["finding"]["code"] == "duplicate_output"
    assert lines[1]["refused_by"] == [] and lines[2]["refused_by"] == ["duplicate_output"] and not lines[2]["ok"]
    # The second output is refused (duplicate_output), counted so as gate --json counts it.
    counts = {"ok": 1, "not_function_call": 1, "refused": 1, "namespaced": 1}
    assert lines[-1] == {"replayable": False, "counts": counts, "items": 4}


def test_stream_names_a_bad_line_and_refuses_other_sources(tmp_path: Path):
    journal = tmp_path / "j.jsonl"
    journal.write_text('{"type": "message", "role": "user", "content": "x"}\n{"a": tru}\n')
    code, out, err = run("gate", str(journal), "--stream")
    assert code == 2 and "line 2, column 7" in err and len(out.splitlines()) == 1
    code, _, err = run("gate", str(journal), "--stream", "--from", "anthropic")
    assert code == 2 and "convert first" in err


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


def test_a_corpus_here_and_on_dask(tmp_path: Path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in ("chat-completions.json", "anthropic-messages.json", "chat-completions-truncated.json"):
        (folder / name).write_text((CONVERSATIONS / name).read_text())
    code, out, _ = run("gate", str(folder), "--tools", TOOLS)
    assert code == 1 and len(out.splitlines()) == 3
    assert any(line.startswith("no") and "chat-completions-truncated.json" in line for line in out.splitlines())
    code, here, _ = run("gate", str(folder / "*.json"), "--tools", TOOLS, "--json")
    code_dask, on_dask, _ = run("gate", str(folder), "--tools", TOOLS, "--json", "--dask")
    assert (code, code_dask) == (1, 1) and here == on_dask
    assert [json.loads(line)["source"] for line in here.splitlines()] == [
        "anthropic",
        "chat_completions",
        "chat_completions",
    ]
    code, _, err = run("gate", str(tmp_path / "none-*.jsonl"))
    assert code == 2 and "no journal files there" in err


def test_convert_says_where_the_tools_go_and_writes_them_on_request(tmp_path: Path):
    source = str(CONVERSATIONS / "gemini-contents.json")
    code, _, err = run("convert", source)
    assert code == 0 and "its 2 tools are not in the JSON Lines; write them with --tools-out" in err
    tools = tmp_path / "tools.json"
    items = tmp_path / "items.jsonl"
    code, out, err = run("convert", source, "--tools-out", str(tools))
    items.write_text(out)
    assert code == 0 and [t["name"] for t in json.loads(tools.read_text())] == [
        "get_latest_sales_report",
        "get_weather",
    ]
    code, out, _ = run("gate", str(items), "--tools", str(tools), "--stream")
    assert code == 0 and json.loads(out.splitlines()[-1])["replayable"] is True


def test_stream_counts_as_the_report_does(tmp_path: Path):
    journal = tmp_path / "j.jsonl"
    call = {"type": "function_call", "call_id": "c", "name": "nope", "arguments": "{}", "status": "completed"}
    orphan = {"type": "function_call_output", "call_id": "nobody", "output": "x"}  # refused, though nothing to run
    journal.write_text(json.dumps(call) + "\n" + json.dumps(orphan) + "\n")
    _, out, _ = run("gate", str(journal), "--stream")
    _, plain, _ = run("gate", str(journal), "--json")
    counts = json.loads(out.splitlines()[-1])["counts"]
    assert counts == json.loads(plain)["counts"] and counts["refused"] == 1
