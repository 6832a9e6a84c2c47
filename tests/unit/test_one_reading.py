"""One way through for a pasted text: it is parsed once (``webapp.core.json``), its shape and provider are found once
(``webapp.core.journal``, ``webapp.core.convert``), then the gate, then the page model. Counted on the parse layer's
one entry for a text, with the real parser running."""

from __future__ import annotations

import json

import pytest
from support import REPO, TESTS

import webapp.core.json.parser as parser
from webapp.core.convert import convert_text, read_journal
from webapp.core.corpus import check_file
from webapp.core.pages import journal as journal_page

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
LINES = (SAMPLES / "journal-openai-responses.jsonl").read_text()
TEXTS = {
    "chat completions": (CONVERSATIONS / "chat-completions.json").read_text(),
    "anthropic": (CONVERSATIONS / "anthropic-messages.json").read_text(),
    "open responses array": json.dumps([json.loads(line) for line in LINES.splitlines()], indent=2),
    "open responses lines": LINES,
}


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """Every text the parse layer reads, in order (its own function, wrapped: the parse still runs)."""
    texts: list[str] = []
    real = parser._parse_text

    def reading(text, *args, **kwargs):
        texts.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(parser, "_parse_text", reading)
    return texts


def readings(texts: list[str], pasted: str) -> tuple[int, int]:
    """How often the whole pasted text was parsed, and its most parsed JSON Lines record."""
    records = [line for line in pasted.split("\n") if line.strip()]
    whole = sum(1 for text in texts if text == pasted)
    record = max((sum(1 for text in texts if text == line) for line in records), default=0) if len(records) > 1 else 0
    return whole, record


@pytest.mark.parametrize("name", TEXTS)
def test_the_journal_page_parses_the_pasted_text_once(parsed, name):
    text = TEXTS[name]
    page = journal_page.build(text, tools=(SAMPLES / "tools.json").read_text())
    assert page.error is None and page.rows
    whole, record = readings(parsed, text)
    # JSON Lines: one attempt as one value (it stops at the second record), then each record once.
    assert (whole, record) == ((1, 1) if name == "open responses lines" else (1, 0))


@pytest.mark.parametrize("name", TEXTS)
def test_the_converters_and_the_cli_reading_parse_the_text_once(parsed, name, tmp_path):
    text = TEXTS[name]
    expected = (1, 1) if name == "open responses lines" else (1, 0)
    convert_text(text)
    assert readings(parsed, text) == expected, "convert_text"
    parsed.clear()
    read_journal(text)
    assert readings(parsed, text) == expected, "read_journal"
    parsed.clear()
    path = tmp_path / "journal.json"
    path.write_text(text)
    assert check_file(str(path))["error"] is None
    assert readings(parsed, text) == expected, "corpus check_file"
