"""``gate FILE --stream`` and ``gate FILE`` are one reader: on every input both read they give the same verdicts,
counts (a ``refused`` bucket in both), findings and exit status; what ``--stream`` cannot read (one JSON document,
another provider's conversation) it says, with exit 2, naming what the file is, while the whole-file check reads it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support import REPO, TESTS

from webapp.__main__ import main

SAMPLES = TESTS / "data" / "samples"
TOOLS = str(SAMPLES / "tools.json")
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"


def line(value) -> str:
    return json.dumps(value) + "\n"


def call(call_id, arguments='{"location":"Paris"}', status="completed", name="get_weather", **more):
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, "status": status, **more}


def output(call_id):
    return {"type": "function_call_output", "call_id": call_id, "output": "18C"}


USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}

#: name -> the file's text: inputs both readings read.
BOTH = {
    "sample journal": (SAMPLES / "journal-openai-responses.jsonl").read_text(encoding="utf-8"),
    "orphan output": line(output("c9")) + line(USER),
    "missing output": line(USER) + line(call("c1")) + line(USER),
    "reused call_id": line(call("c1")) + line(output("c1")) + line(call("c1")) + line(output("c1")),
    "answered twice": line(call("c1")) + line(output("c1")) + line(output("c1")),
    "unfinished call answered": line(call("c1", status="in_progress")) + line(output("c1")),
    "bad arguments": line(call("c1", arguments="{not json")) + line(output("c1")),
    "name given twice": '{"type": "message", "role": "user", "role": "system", "content": "x"}\n' + line(USER),
    "blank lines and CR LF": "\r\n"
    + line(USER).replace("\n", "\r\n")
    + "  \n\n"
    + line(call("c1"))
    + line(output("c1")),
    "namespaced": line(USER) + line({"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}),
    "one item alone": line(output("c1")),
    "one call alone": line(call("c1")),
    "chat envelope": line(USER) + line({"type": "message", "role": "tool", "content": "x", "tool_call_id": "c"}),
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def both_ways(path: Path) -> tuple[tuple, tuple]:
    code, out, err = run("gate", str(path), "--tools", TOOLS, "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    whole = (
        code,
        report["replayable"],
        report["counts"],
        [(item["index"], item["reason"]) for item in report["items"]],
        {item["index"]: set(item["refused_by"]) for item in report["items"]},
        sorted(f["code"] for f in report["findings"]),
    )
    code, out, err = run("gate", str(path), "--tools", TOOLS, "--stream")
    assert code in (0, 1), err
    lines = [json.loads(text) for text in out.splitlines()]
    summary = lines[-1]
    verdicts = [entry for entry in lines[:-1] if "finding" not in entry]
    findings = [entry["finding"] for entry in lines[:-1] if "finding" in entry]
    refused = {entry["index"]: set(entry["refused_by"]) for entry in verdicts}
    for finding in findings:  # a finding made after its item's line names it in a line of its own
        if finding["severity"] == "error" and finding["index"] is not None:
            refused[finding["index"]].add(finding["code"])
    streamed = (
        code,
        summary["replayable"],
        summary["counts"],
        [(entry["index"], entry["reason"]) for entry in verdicts],
        refused,
        sorted(f["code"] for f in findings),
    )
    assert summary["items"] == len(verdicts)
    return whole, streamed


@pytest.mark.parametrize("name", sorted(BOTH))
def test_stream_and_whole_file_give_the_same_answers(tmp_path: Path, name: str):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(BOTH[name].encode("utf-8"))
    whole, streamed = both_ways(path)
    assert streamed == whole


def test_refused_outputs_are_counted_refused_both_ways(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    path.write_text(BOTH["orphan output"] + BOTH["answered twice"], encoding="utf-8")
    whole, streamed = both_ways(path)
    assert whole == streamed and whole[2]["refused"] == 2


def _response(count: int) -> dict:
    items = []
    for i in range(count // 2):
        items += [call(f"c{i}"), output(f"c{i}")]
    return {"object": "response", "output": items}


#: name -> (the file's text, what --stream's message names)
STREAM_CANNOT = {
    "a response on one line": (json.dumps(_response(5000)), "a response whose output holds 5,000 items"),
    "an array on one line": (json.dumps([USER, call("c1"), output("c1")]), "a JSON array of 3 items"),
    "a pretty-printed array": (json.dumps([USER, call("c1")], indent=2), "line 1 opens a JSON array"),
    "a pretty-printed request": (
        (CONVERSATIONS / "anthropic-messages.json").read_text(encoding="utf-8"),
        "line 1 opens a JSON object",
    ),
    "an Anthropic request on one line": (
        json.dumps(json.loads((CONVERSATIONS / "anthropic-messages.json").read_text(encoding="utf-8"))),
        "request of anthropic (--from anthropic: ",
    ),
    "Chat Completions lines": (
        line(USER) + line({"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {}}]}),
        "JSON Lines, line 2: not an Open Responses item",
    ),
    "plain messages first": (
        line({"role": "user", "content": "hi"}) + line(USER),
        "JSON Lines, line 1: a message without a type",
    ),
}


@pytest.mark.parametrize("name", sorted(STREAM_CANNOT))
def test_what_stream_cannot_read_it_says_with_exit_2(tmp_path: Path, name: str):
    text, named = STREAM_CANNOT[name]
    path = tmp_path / "journal.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = run("gate", str(path), "--stream")
    assert code == 2 and named in err, err
    assert "without --stream" in err
    whole, _, whole_err = run("gate", str(path), "--tools", TOOLS)
    assert whole in (0, 1), whole_err  # the whole-file check reads it
