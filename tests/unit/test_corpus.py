"""A corpus of journals (``webapp/core/corpus.py``), file by file in process; on a local Dask cluster:
``tests/cli/test_dask.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.corpus import write_corpus

from webapp.core.corpus import check_corpus, check_file, expand

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = json.loads((SAMPLES / "tools.json").read_text())


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Twelve generated journals of three sources, one cut off, one refused, one unreadable."""
    return write_corpus(tmp_path / "corpus")


def test_expand_walks_folders_and_globs(corpus: Path):
    files = expand([str(corpus)])
    assert len(files) == 12 and not any(f.endswith(".txt") for f in files)
    assert expand([str(corpus / "day2" / "*.jsonl")]) == sorted(str(p) for p in (corpus / "day2").glob("*.jsonl"))
    with pytest.raises(FileNotFoundError, match="no journal files"):
        expand([str(corpus / "nothing-*.jsonl")])


def test_each_file_is_answered_on_its_own(corpus: Path):
    answers = {Path(a["path"]).name: a for a in check_corpus(expand([str(corpus)]), TOOLS)}
    assert answers["journal-0.jsonl"]["replayable"] and answers["journal-0.jsonl"]["counts"] == {
        "not_function_call": 2,
        "ok": 1,
    }
    assert answers["journal-5.jsonl"]["counts"]["arguments_schema"] == 1
    assert answers["chat-completions.json"]["source"] == "chat_completions"
    assert answers["chat-completions.json"]["replayable"] and answers["anthropic-messages.json"]["replayable"]
    truncated = answers["chat-completions-truncated.json"]
    assert not truncated["replayable"] and truncated["counts"] == {"status": 1}
    assert answers["broken.jsonl"]["error"].startswith("line 1, column") and answers["broken.jsonl"]["items"] == 0


def test_a_file_with_its_own_tools_needs_none():
    answer = check_file(str(CONVERSATIONS / "gemini-contents.json"))
    assert answer["source"] == "gemini" and answer["replayable"] and answer["error"] is None
