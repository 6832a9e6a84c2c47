"""The CLI and the files it is named, in process: an abbreviated option is refused (never taken for one that
writes), an output is never an input, ``convert --tools``, an empty or binary file said to be one, and the report's
columns as wide as their entries. Stdout redirected onto an input, as a process: ``tests/cli/test_cli_processes.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.cli import WEATHER_TOOL, call, run

from webapp.__main__ import build_parser
from webapp.core.json import JSONTextError, parse

CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
ANTHROPIC = CONVERSATIONS / "anthropic-messages.json"
TOOLS = TESTS / "data" / "samples" / "tools.json"

#: get_latest_sales_report as an Anthropic tool whose enum leaves out the "apac" the conversation's call asks for.
EMEA_ONLY = {
    "name": "get_latest_sales_report",
    "description": "EMEA only",
    "input_schema": {
        "type": "object",
        "required": ["region"],
        "additionalProperties": False,
        "properties": {"region": {"type": "string", "enum": ["emea"]}},
    },
}
WEATHER_ANTHROPIC = {"name": "get_weather", "input_schema": {"type": "object", "required": ["location"]}}


def write(path: Path, content) -> str:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


# -- abbreviations ----------------------------------------------------------------------------------------------


def test_no_parser_expands_a_prefix():
    parser = build_parser()
    assert parser.allow_abbrev is False
    (commands,) = [action for action in parser._actions if action.choices and action.dest == "command"]
    assert set(commands.choices) == {"gate", "convert", "lint-stream", "check-endpoint", "serve"}
    assert all(sub.allow_abbrev is False for sub in commands.choices.values())


#: command -> (its arguments, with one long option abbreviated; the option's full name)
ABBREVIATED = {
    "gate": (["gate", "{journal}", "--too", "{out}"], "--tools"),
    "convert": (["convert", "{conversation}", "--tools-o", "{out}"], "--tools-out"),
    "lint-stream": (["lint-stream", "{journal}", "--ki", "sse"], "--kind"),
    "check-endpoint": (["check-endpoint", "http://127.0.0.1:9/v1", "--ke", "k", "--mod", "{out}"], "--model"),
    "serve": (["serve", "--po", "0"], "--port"),
}


@pytest.mark.parametrize("command", sorted(ABBREVIATED))
def test_an_abbreviated_long_option_is_refused(tmp_path: Path, capsys, command: str):
    """Exit 2 from argparse before anything runs; the file given to the abbreviation is as it was."""
    out = tmp_path / "t.json"
    mine = json.dumps([WEATHER_TOOL]) + "\n"
    out.write_text(mine, encoding="utf-8")
    names = {"journal": write(tmp_path / "j.json", [call("c1")]), "conversation": str(ANTHROPIC), "out": str(out)}
    arguments, full = ABBREVIATED[command]
    with pytest.raises(SystemExit) as exited:
        run(*(argument.format(**names) for argument in arguments))
    assert exited.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == mine and sorted(p.name for p in tmp_path.iterdir()) == [
        "j.json",
        "t.json",
    ]
    assert full.startswith(arguments[-2]) and full != arguments[-2]  # it was a prefix of a real option


def test_convert_tools_reads_the_file_and_leaves_it_as_it_was(tmp_path: Path):
    """The trial's command: once taken as --tools-out, it overwrote the user's tools with the conversation's."""
    tools = tmp_path / "t.json"
    mine = json.dumps([EMEA_ONLY, WEATHER_ANTHROPIC], indent=1)
    tools.write_text(mine, encoding="utf-8")
    code, out, err = run("convert", str(ANTHROPIC), "--tools", str(tools))
    assert code == 0 and len(out.splitlines()) == 9
    assert tools.read_text(encoding="utf-8") == mine
    assert f"{tools}: its 2 tools are not in the JSON Lines" in err


# -- convert --tools ----------------------------------------------------------------------------------------------


def test_convert_to_a_target_checks_and_writes_the_tools_given(tmp_path: Path):
    tools = write(tmp_path / "t.json", {"tools": [EMEA_ONLY, WEATHER_ANTHROPIC]})  # a request's tools
    code, out, err = run("convert", str(ANTHROPIC), "--to", "anthropic", "--tools", tools)
    body = json.loads(out)
    assert code == 1 and "anthropic: left out /4: refused" in err  # the "apac" call fails the file's schema
    assert "left out /6: output_of_left_out_call" in err and "7 written for anthropic" in err
    assert [tool["name"] for tool in body["tools"]] == ["get_latest_sales_report", "get_weather"]
    assert body["tools"][0]["input_schema"]["properties"]["region"]["enum"] == ["emea"]
    assert "toolu_01AbCdEfGhIjKlMnOpQrStUv" not in out  # the refused call is not in the body
    # Without --tools the conversation's own tools are used: its call passes.
    code, out, _ = run("convert", str(ANTHROPIC), "--to", "anthropic")
    assert code == 0 and json.loads(out)["tools"][0]["input_schema"]["properties"]["region"]["enum"] == [
        "apac",
        "emea",
        "amer",
    ]


@pytest.mark.parametrize(
    "given",
    [
        [EMEA_ONLY, WEATHER_ANTHROPIC],
        {"functionDeclarations": [{"name": "get_latest_sales_report", "parameters": EMEA_ONLY["input_schema"]}]},
        [
            {
                "type": "function",
                "function": {"name": "get_latest_sales_report", "parameters": EMEA_ONLY["input_schema"]},
            }
        ],
    ],
    ids=["anthropic", "one gemini tool", "chat completions"],
)
def test_gate_and_convert_read_tools_of_any_provider_alike(tmp_path: Path, given):
    """One reader for both commands: the call asking for "apac" fails the file's schema, whatever its shape."""
    tools = write(tmp_path / "t.json", given)
    code, out, _ = run("gate", str(ANTHROPIC), "--tools", tools, "--json")
    verdicts = {item["name"]: item["reason"] for item in json.loads(out)["items"] if item.get("name")}
    assert code == 1 and verdicts["get_latest_sales_report"] == "arguments_schema"
    code, out, err = run("convert", str(ANTHROPIC), "--to", "openai", "--tools", tools)
    assert code == 1 and "refused" in err
    assert json.loads(out)["tools"][0]["parameters"]["properties"]["region"]["enum"] == ["emea"]


def test_convert_tools_out_writes_the_tools_given_as_open_responses(tmp_path: Path):
    written = tmp_path / "out.json"
    tools = write(tmp_path / "t.json", [EMEA_ONLY])
    code, _, err = run("convert", str(ANTHROPIC), "--tools", tools, "--tools-out", str(written))
    assert code == 0 and f"{tools}: 1 tools written to {written}" in err
    (tool,) = json.loads(written.read_text())
    assert tool["type"] == "function" and tool["name"] == "get_latest_sales_report"
    assert tool["parameters"]["properties"]["region"]["enum"] == ["emea"]


def test_convert_to_with_tools_out_is_refused_not_ignored(tmp_path: Path):
    written = tmp_path / "out.json"
    code, out, err = run("convert", str(ANTHROPIC), "--to", "openai", "--tools-out", str(written))
    assert code == 2 and out == "" and "with --to they are in the body" in err and not written.exists()


# -- an output is never an input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["same path", "relative path", "symlink", "hard link"])
@pytest.mark.parametrize("which", ["FILE", "--tools"])
def test_tools_out_naming_an_input_is_refused_and_writes_nothing(tmp_path: Path, monkeypatch, which, how):
    conversation = tmp_path / "conversation.json"
    conversation.write_bytes(ANTHROPIC.read_bytes())
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER_ANTHROPIC]), encoding="utf-8")
    target = conversation if which == "FILE" else tools
    before = {path: path.read_bytes() for path in (conversation, tools)}
    monkeypatch.chdir(tmp_path)
    output = str(target)
    if how == "relative path":
        output = os.path.join(".", target.name)
    elif how == "symlink":
        (tmp_path / "link.json").symlink_to(target)
        output = str(tmp_path / "link.json")
    elif how == "hard link":
        os.link(target, tmp_path / "hard.json")
        output = str(tmp_path / "hard.json")
    code, out, err = run("convert", str(conversation), "--tools", str(tools), "--tools-out", output)
    assert code == 2 and out == ""
    assert err == f"--tools-out {output} is {target}, the {which} this reads: write to another file\n"
    assert {path: path.read_bytes() for path in before} == before


def test_tools_out_of_another_file_is_written(tmp_path: Path):
    written = tmp_path / "new.json"
    code, _, _ = run("convert", str(CONVERSATIONS / "gemini-contents.json"), "--tools-out", str(written))
    assert code == 0 and len(json.loads(written.read_text())) == 2


def test_tools_out_that_cannot_be_written_says_so_before_any_output(tmp_path: Path):
    code, out, err = run("convert", str(CONVERSATIONS / "gemini-contents.json"), "--tools-out", str(tmp_path))
    assert code == 2 and out == "" and err == f"--tools-out {tmp_path}: cannot write it (Is a directory)\n"


def test_tools_out_of_a_conversation_without_tools_says_nothing_was_written(tmp_path: Path):
    conversation = write(tmp_path / "c.jsonl", [call("c1")])
    written = tmp_path / "tools.json"
    code, _, err = run("convert", conversation, "--tools-out", str(written))
    assert code == 0 and f"{conversation}: no tools, so nothing written to {written}" in err
    assert not written.exists()


# -- empty and binary files ---------------------------------------------------------------------------------------

#: format -> a file's first bytes.
BINARY = {
    "PNG": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "PDF": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
    "ZIP": b"PK\x03\x04\x14\x00\x00\x00\x08\x00",
    "Parquet": b"PAR1\x15\x04\x15\x10\x15\x14L",
    "SQLite": b"SQLite format 3\x00\x10\x00",
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_a_binary_file_is_named_by_its_format(tmp_path: Path, name: str):
    data = BINARY[name] + bytes(range(256))
    path = write(tmp_path / "journal.json", data)
    expected = f"{path} looks like binary data ({name}), not JSON text\n"
    for argv in (["gate", path], ["gate", path, "--stream"], ["convert", path], ["convert", path, "--to", "openai"]):
        code, out, err = run(*argv)
        assert (code, out, err) == (2, "", expected), argv
    journal = write(tmp_path / "j.json", [call("c1")])
    for option in ("--tools", "--schema"):
        assert run("gate", journal, option, path) == (2, "", expected)
    assert run("convert", str(ANTHROPIC), "--tools", path) == (2, "", expected)
    code, _, err = run("lint-stream", path)
    assert code == 2 and err == f"{path} looks like binary data ({name}), not a recorded stream\n"


@pytest.mark.parametrize(
    ("content", "words"), [(b"", "is empty"), (b"\xef\xbb\xbf \r\n\t\n", "is empty (only whitespace)")]
)
def test_an_empty_file_is_said_to_be_one(tmp_path: Path, content: bytes, words: str):
    path = write(tmp_path / "journal.json", content)
    expected = f"{path} {words}: there is no JSON value in it\n"
    for argv in (["gate", path], ["convert", path], ["gate", str(ANTHROPIC), "--tools", path]):
        assert run(*argv) == (2, "", expected), argv
    code, _, err = run("gate", path, "--stream")
    assert code == 2 and err.startswith(f"{path} is empty") and "paste" not in err


def test_a_corpus_names_an_empty_or_binary_file(tmp_path: Path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    write(folder / "a.json", b"")
    write(folder / "b.json", BINARY["PNG"])
    write(folder / "c.json", [call("c1")])
    code, out, _ = run("gate", str(folder), "--tools", str(TOOLS))
    assert code == 2
    assert f"unusable    {folder / 'a.json'}: the file is empty: there is no JSON value in it" in out
    assert f"unusable    {folder / 'b.json'}: the file looks like binary data (PNG), not JSON text" in out


def test_pasted_text_keeps_the_pages_wording():
    """The file wording is the CLI's; the parser (the pages' pasted text) still says paste, and names the byte."""
    for data, words in ((b"", "The text is empty: paste a JSON value."), (BINARY["PNG"], "Byte 0x89 (byte offset 0)")):
        with pytest.raises(JSONTextError) as refused:
            parse(data)
        assert refused.value.message.startswith(words)


# -- the report's columns ------------------------------------------------------------------------------------------


def test_the_columns_are_as_wide_as_the_longest_id(tmp_path: Path):
    reasoning_id = "rs_" + "0a1b2c3d4e5f" * 2 + "a1b2c3d4e"  # 36 characters, as OpenAI's are
    items = [
        {"type": "message", "id": "msg_1", "role": "user", "content": "hi"},
        {"type": "reasoning", "id": reasoning_id, "summary": [{"type": "summary_text", "text": "think"}]},
        {**call("c1"), "name": "a_function_with_a_rather_long_name", "id": "fc_" + "9" * 40},
    ]
    journal = write(tmp_path / "j.json", items)
    _, out, _ = run("gate", journal)
    rows = out.splitlines()[:3]
    assert [row.split()[1] for row in rows] == ["msg_1", reasoning_id, "fc_" + "9" * 40]
    labels = [row.index(word) for row, word in zip(rows, ("message", "reasoning", "a_function"), strict=True)]
    assert len(set(labels)) == 1  # one column for the names
    reasons = [row.index(row.split()[3], labels[0] + 1) for row in rows]
    assert len(set(reasons)) == 1 and all(row[reasons[0] - 2 : reasons[0]] == "  " for row in rows)
