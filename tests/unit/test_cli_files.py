"""The CLI and the files it is named, in process: an abbreviated option is refused (never taken for one that
writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO
from support.cli import WEATHER_TOOL, call, run

from webapp.__main__ import build_parser

CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
ANTHROPIC = CONVERSATIONS / "anthropic-messages.json"


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
