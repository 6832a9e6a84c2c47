"""The CLI on whole conversations, in process: other providers' journals, ``convert``, ``--stream``; as processes
and on a Dask cluster: ``tests/cli/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.cli import run

REPO = REPO
SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = str(SAMPLES / "tools.json")


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
    assert code == 0 and set(body) == {"model", "system", "messages", "tools"}  # the request's model, carried
    assert body["messages"][1] == source["messages"][1]  # the signed thinking block, in its place
    assert "anthropic: request/max_tokens: setting_required" in err  # the source had none
    assert err.rstrip().endswith("9 written for anthropic; replayable")
    code, out, err = run("convert", str(CONVERSATIONS / "anthropic-messages.json"), "--to", "openai")
    body = json.loads(out)
    assert code == 0 and set(body) == {"input", "tools"}
    assert "openai: left out /2: foreign_reasoning" in err and "signature" not in out
    assert "openai: request/model: setting_left_out" in err
    code, out, err = run("convert", str(CONVERSATIONS / "anthropic-messages.json"), "--to", "gemini")
    body = json.loads(out)
    assert code == 1 and set(body) == {"systemInstruction", "contents", "tools"}  # a call without its signature
    assert "gemini: repaired /4/gemini:thought_signature: thought_signature_placeholder" in err  # repaired, not refused
    assert body["contents"][1]["parts"][1]["thoughtSignature"] == "skip_thought_signature_validator"
    assert err.rstrip().endswith("lists why)")
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
    assert lines[-1] == {
        "replayable": False,
        "answer": "not replayable",
        "says": "not replayable (1 namespaced; 1 error: duplicate_output)",
        "unchecked": {},
        "counts": counts,
        "items": 4,
    }


def test_stream_names_a_bad_line_and_refuses_other_sources(tmp_path: Path):
    journal = tmp_path / "j.jsonl"
    journal.write_text('{"type": "message", "role": "user", "content": "x"}\n{"a": tru}\n')
    code, out, err = run("gate", str(journal), "--stream")
    assert code == 2 and "line 2, column 7" in err and len(out.splitlines()) == 1
    code, _, err = run("gate", str(journal), "--stream", "--from", "anthropic")
    assert code == 2 and "convert first" in err


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


def anthropic_thinking_request(tmp_path: Path, thinking: dict) -> str:
    """An Anthropic request file with ``thinking`` whose last tool turn has no thinking block (docs/targets.md A2)."""
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "thinking": thinking,
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
        ],
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    return str(path)


def test_gate_counts_the_requests_thinking_and_the_options_override_it(tmp_path: Path):
    path = anthropic_thinking_request(tmp_path, {"type": "enabled", "budget_tokens": 1024})
    code, out, _ = run("gate", path, "--target", "anthropic", "--json")
    answer = json.loads(out)
    assert code == 1 and [f["code"] for f in answer["findings"]] == ["thinking_required"]
    assert answer["settings"] == {"thinking": True, "store": None}
    code, out, _ = run("gate", path, "--target", "anthropic", "--no-thinking")
    assert code == 0
    off = anthropic_thinking_request(tmp_path, {"type": "disabled"})
    assert run("gate", off, "--target", "anthropic")[0] == 0
    assert run("gate", off, "--target", "anthropic", "--thinking")[0] == 1


def test_convert_to_carries_the_settings_and_takes_the_options(tmp_path: Path):
    path = anthropic_thinking_request(tmp_path, {"type": "enabled", "budget_tokens": 1024})
    code, out, err = run("convert", path, "--to", "anthropic", "--no-thinking")
    body = json.loads(out)
    assert code == 0 and list(body)[:3] == ["model", "max_tokens", "thinking"]
    assert body["thinking"] == {"type": "disabled"}
    code, out, err = run("convert", path, "--to", "gemini", "--store")
    assert "gemini: request/thinking: setting_left_out" in err and "gemini: request/store: setting_left_out" in err
    assert not {"model", "max_tokens", "thinking", "store"} & set(json.loads(out))
    code, out, err = run("convert", path, "--no-store")
    assert code == 2 and "give --to" in err


def test_gate_settings_options_judge_one_journal(tmp_path: Path):
    code, _, err = run("gate", str(tmp_path), "--no-store")
    assert code == 2 and "--thinking and --store judge one journal" in err


def test_convert_to_a_target_writes_the_plans_json_patch(tmp_path):
    import copy

    import jsonpatch

    from webapp.core.convert import convert

    path = CONVERSATIONS / "chat-completions.json"
    patch_file = tmp_path / "repair.json"
    code, out, err = run("convert", str(path), "--to", "anthropic", "--patch", str(patch_file))
    patch = json.loads(patch_file.read_text())
    items = convert(json.loads(path.read_text())).items
    kept = jsonpatch.apply_patch(copy.deepcopy(items), patch)
    body = json.loads(out)
    sent = [b["id"] for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b["type"] == "tool_use"]
    assert sent == [i["call_id"] for i in kept if i["type"] == "function_call"]  # the patch gives what is sent
    assert f"written to {patch_file}" in err


def test_stream_takes_the_store_option(tmp_path: Path):
    journal = tmp_path / "j.jsonl"
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": []},
    ]
    journal.write_text("".join(json.dumps(i) + "\n" for i in items))
    code, out, _ = run("gate", str(journal), "--stream", "--from", "openai", "--target", "openai")
    assert code == 0
    code, out, _ = run("gate", str(journal), "--stream", "--from", "openai", "--target", "openai", "--no-store")
    findings = [json.loads(line)["finding"]["code"] for line in out.splitlines() if '"finding"' in line]
    assert code == 1 and findings[0] == "reasoning_not_stored"


def test_convert_patch_refuses_an_input_and_an_unwritable_file(tmp_path: Path):
    path = CONVERSATIONS / "chat-completions.json"
    before = path.read_bytes()
    code, _, err = run("convert", str(path), "--to", "gemini", "--patch", str(path))  # the journal itself
    assert code == 2 and "--patch" in err and path.read_bytes() == before  # refused, nothing written
    code, _, err = run("convert", str(path), "--to", "gemini", "--patch", str(tmp_path))  # a folder
    assert code == 2 and "--patch" in err and "cannot write it" in err
