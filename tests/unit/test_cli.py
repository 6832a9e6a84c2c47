"""``python -m webapp gate``: one line per item, the findings, exit 0 / 1 / 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.cli import WEATHER_TOOL, call, run

from webapp import create_app

REPO = REPO


@pytest.fixture
def files(tmp_path):
    def write(name: str, content) -> str:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    return write


def test_replayable_journal_exits_0(files):
    journal = files(
        "j.jsonl",
        "\n".join(
            json.dumps(x)
            for x in (
                {"type": "message", "role": "user", "content": "hi"},
                call("c1"),
                {"type": "function_call_output", "call_id": "c1", "output": "31C"},
            )
        ),
    )
    code, out, err = run("gate", journal, "--tools", files("tools.json", [WEATHER_TOOL]))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["0", "-", "message", "not_function_call"]
    assert lines[1].split() == ["1", "fc_c1", "get_weather", "ok"]
    assert lines[-1] == "replayable  [not_function_call 2, ok 1]"


def test_a_journal_without_tools_cannot_be_told_and_exits_3(files):
    """No tool definitions: the calls are not checked, the answer says so in the API's words, and the exit status
    is 3 (neither 0, which would vouch for arguments nothing checked, nor 1, which would refuse what nothing
    refused)."""
    items = [{"type": "message", "role": "user", "content": "hi"}, call("c1")]
    items.append({"type": "function_call_output", "call_id": "c1", "output": "31C"})
    journal = files("j.jsonl", "\n".join(json.dumps(x) for x in items))
    code, out, _ = run("gate", journal)
    assert code == 3
    lines = out.splitlines()
    assert lines[1].split() == ["1", "fc_c1", "get_weather", "not", "checked"]
    assert "notice   not_checked" in out and "unknown_tool" not in out
    assert lines[-1] == (
        'cannot tell until the tools are given (1 call of tool "get_weather" not checked)  '
        "[not_function_call 2, not checked 1]"
    )
    code, out, _ = run("gate", journal, "--json")
    answer = json.loads(out)
    assert code == 3 and (answer["replayable"], answer["answer"]) == (None, "cannot tell")
    assert answer["says"] == lines[-1].split("  [")[0] and answer["unchecked"] == {"get_weather": 1}
    code, out, _ = run("gate", journal, "--stream")
    summary = json.loads(out.splitlines()[-1])
    assert code == 3 and summary["says"] == answer["says"] and summary["counts"] == answer["counts"]


def test_not_replayable_journal_exits_1_with_details_and_findings(files):
    journal = files(
        "j.json",
        [
            call("c1", '{"location":"Paris","x":1}'),
            call("c2", '{"loc', "incomplete"),
            {"type": "function_call_output", "call_id": "c9", "output": "x"},
        ],
    )
    code, out, _ = run("gate", journal, "--tools", files("tools.json", {"tools": [WEATHER_TOOL]}))
    assert code == 1
    assert "    0  fc_c1" in out and out.splitlines()[0].endswith("arguments_schema")
    assert '[0]: arguments do not match the schema of "get_weather" (1 error; /x: unexpected property "x"' in out
    assert out.splitlines()[2].endswith("status")
    assert "error    orphan_output               item 2:" in out
    assert out.splitlines()[-1].startswith("not replayable (")


def test_json_output_is_the_api_report(files):
    journal = files("r.json", {"object": "response", "output": [call("c1")], "tools": [WEATHER_TOOL]})
    code, out, _ = run("gate", journal, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["replayable"] is True and report["shape"] == "response"
    assert report["items"][0]["reason"] == "ok" and report["findings"] == []


def test_one_schema_for_every_call(files):
    journal = files("j.json", [call("c1", '{"anything":1}')])
    schema = files("s.json", {"type": "object", "required": ["anything"]})
    assert run("gate", journal, "--schema", schema)[0] == 0
    assert run("gate", journal, "--tools", files("t.json", [WEATHER_TOOL]))[0] == 1


@pytest.mark.parametrize("given", [WEATHER_TOOL, [WEATHER_TOOL]], ids=["a tool", "a list of tools"])
def test_a_schema_file_of_tool_definitions_is_read_as_the_tools(files, given):
    """As every page reads a schema field (webapp.core.gate.read_schema_field): a call of the tool's name is checked
    against its parameters, a call of another name has none (unknown_tool)."""
    schema = files("s.json", given)
    code, out, _ = run("gate", files("j.json", [call("c1")]), "--schema", schema)
    assert code == 0 and out.splitlines()[0].split()[-1] == "ok"
    code, out, _ = run("gate", files("k.json", [call("c1", '{"location": 3}')]), "--schema", schema)
    assert code == 1 and out.splitlines()[0].split()[-1] == "arguments_schema"
    other = {**call("c2"), "name": "get_time"}
    code, out, _ = run("gate", files("o.json", [other]), "--schema", schema)
    assert code == 1 and "unknown_tool" in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('[{"type": "message",}]', "line 1, column 20"),
        ('{"type":"message"}\n{"a": tru}\n', "JSON Lines, line 2, column 7"),
        ('[{"type": "message", "content": "\\\t"}]', "line 1, column 34: Invalid escape '\\' followed by a tab"),
        ("42", "not a number"),
    ],
)
def test_unusable_journal_exits_2_naming_the_place(files, content, words):
    path = files("bad.json", content)
    code, out, err = run("gate", path)
    assert code == 2 and out == ""
    assert err.startswith(path + ": ") and words in err


def test_unusable_tools_or_schema_exit_2(files):
    journal = files("j.json", [call("c1")])
    code, _, err = run("gate", journal, "--tools", files("t.json", '{"tools": 5}'))
    assert code == 2 and "expected a JSON array of tool definitions" in err
    code, _, err = run("gate", journal, "--schema", files("s.json", {"$ref": "http://example.com/s.json"}))
    assert code == 2 and "s.json: schema /$ref: remote references are disabled" in err
    code, _, err = run("gate", journal, "--schema", files("s2.json", "{'a': 1}"))
    assert code == 2 and "line 1, column 2" in err
    code, _, err = run("gate", str(Path(journal).with_name("missing.json")))
    assert code == 2 and "cannot read it" in err


def test_a_lone_surrogate_does_not_crash_printing(files):
    journal = files("j.json", '[{"type": "x\\ud800:y", "id": "a\\udc00"}]')
    code, out, _ = run("gate", journal)
    assert code == 1 and "namespaced" in out


AMBIGUOUS = (
    '{"type":"openai:x","type":"function_call","id":"fc_c1","call_id":"c1","name":"get_weather",'
    '"arguments":"{\\"location\\":\\"Paris\\"}","status":"in_progress","status":"completed"}'
)


def test_duplicate_envelope_members_exit_1_naming_item_pointer_and_place(files):
    # Read leniently the item looked ok (exit 0); a parser keeping the first values sees a namespaced call.
    code, out, _ = run("gate", files("j.json", "[" + AMBIGUOUS + "]"), "--tools", files("t.json", [WEATHER_TOOL]))
    assert code == 1
    column = AMBIGUOUS.index('"status":"completed"') + 2  # 1-based, after the "["
    assert "error    duplicate_member" in out
    assert (
        f'item 0: item 0 gives the member name "status" twice, at /0/status (the second at line 1, column '
        f"{column})" in out
    )
    assert out.splitlines()[0].endswith("refused")  # the item itself is not shown as ok
    assert out.splitlines()[-1] == "not replayable (2 errors: duplicate_member)  [refused 1]"


def test_duplicate_members_in_tools_or_schema_files_are_unusable(files):
    journal = files("j.json", [call("c1")])
    text = '[{"type": "function", "name": "get_weather", "name": "other"}]'
    tools = files("t.json", text)
    code, out, err = run("gate", journal, "--tools", tools)
    assert code == 2 and out == ""
    column = text.index('"name": "other"') + 1
    assert err.startswith(f'{tools}: line 1, column {column}: Duplicate member name "name"') and "(at /0/name;" in err
    schema = files("s.json", '{"type": "object", "type": "string"}')
    code, _, err = run("gate", journal, "--schema", schema)
    assert code == 2 and "(at /type;" in err


def test_serve_on_an_unusable_database_says_so_and_prints_no_token(tmp_path, monkeypatch, capsys):
    """The server will not start: the storage error is all it says (a token printed first would read as a server
    that is up). The CLI exits 2 before any socket is opened."""
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"\x00not a database\xff" * 512)
    monkeypatch.delenv("FLASK_API_TOKEN", raising=False)
    monkeypatch.setenv("FLASK_RESPONSES_DATABASE", str(garbage))
    code, _, _ = run("serve", "--port", "0")
    printed = capsys.readouterr()
    assert code == 2 and printed.err.startswith("webapp serve: ") and "not an SQLite database" in printed.err
    assert "API token" not in printed.out + printed.err and "sk-local-" not in printed.out + printed.err


def test_an_app_that_starts_prints_the_token_it_made(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("FLASK_API_TOKEN", raising=False)
    app = create_app({"RESPONSES_DATABASE": str(tmp_path / "r.sqlite3")})
    assert f"/v1 API token (Authorization: Bearer ...): {app.config['API_TOKEN']}" in capsys.readouterr().out


def test_gate_judges_for_the_target_given(tmp_path):
    """Issue 18: the sample journal (OpenAI's own, its web search an openai: item) is replayable to OpenAI only."""
    journal = str(TESTS / "data" / "samples" / "journal-openai-responses.jsonl")
    tools = str(TESTS / "data" / "samples" / "tools.json")
    code, out, _ = run("gate", journal, "--tools", tools, "--target", "openai")
    assert code == 0 and out.endswith("[target openai]\n")
    code, out, _ = run("gate", journal, "--tools", tools)
    # The sealed reasoning item (no summary) is left out whole; the ids OpenAI issued are left out of their items.
    assert code == 1 and "left out for portable:" in out and "/2/encrypted_content" not in out
    assert "foreign_reasoning         /2: reasoning made by openai" in out
    assert "provider_id               /3/id: id 'fc_0a1b2c3d4e60'" in out
    code, out, _ = run("gate", journal, "--tools", tools, "--target", "anthropic", "--json")
    answer = json.loads(out)
    assert code == 1 and answer["target"] == "anthropic" and answer["source"] == "openai"
    assert answer["items"][2]["disposition"] == "leave_out"
    native = tmp_path / "native.jsonl"
    native.write_text(json.dumps({"type": "web_search_call", "id": "ws_1", "status": "completed"}) + "\n")
    code, out, _ = run("gate", str(native), "--stream", "--target", "openai")
    assert code == 0 and json.loads(out.splitlines()[-1])["replayable"] is True
    code, out, _ = run("gate", str(native), "--stream")
    assert code == 1 and '"provider_item"' in out


def readme_gate_examples() -> list[tuple[list[str], str, int]]:
    """The README's ``gate`` examples that say their answer: ``(arguments, the answer's words, exit status)``."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    examples = []
    for command, comment in zip(lines, lines[1:], strict=False):
        if command.startswith(".venv/bin/python -m webapp gate ") and comment.startswith("# "):
            said, _, status = comment[2:].rpartition("(exit ")
            examples.append((command.split()[3:], said.strip(), int(status.rstrip(")"))))
    return examples


@pytest.mark.parametrize(("arguments", "said", "status"), readme_gate_examples())
def test_the_readme_shows_the_three_answers_as_the_cli_gives_them(arguments, said, status, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, _ = run(*arguments)
    assert code == status and out.splitlines()[-1].startswith(said)


def test_the_readme_shows_each_of_the_three_answers():
    assert sorted(status for _, _, status in readme_gate_examples()) == [0, 1, 3]
