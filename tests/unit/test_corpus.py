"""A corpus of journals (``webapp/core/corpus.py``): here and on a local Dask cluster, the same answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, TESTS

from webapp.core.corpus import check_corpus, check_file, expand

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = json.loads((SAMPLES / "tools.json").read_text())


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Twelve generated journals of three sources, one cut off, one refused, one unreadable."""
    folder = tmp_path / "corpus"
    (folder / "day2").mkdir(parents=True)
    for n in range(8):
        items = [
            {"type": "message", "role": "user", "content": f"q{n}"},
            {
                "type": "function_call",
                "call_id": f"c{n}",
                "name": "get_weather",
                "status": "completed",
                "arguments": json.dumps({"location": f"City {n}"}),
            },
            {"type": "function_call_output", "call_id": f"c{n}", "output": "sunny"},
        ]
        if n == 5:
            items[1]["arguments"] = json.dumps({"location": 5})
        target = folder / ("day2" if n % 2 else "") / f"journal-{n}.jsonl"
        target.write_text("".join(json.dumps(i) + "\n" for i in items))
    for name in ("chat-completions.json", "anthropic-messages.json", "chat-completions-truncated.json"):
        (folder / name).write_text((CONVERSATIONS / name).read_text())
    (folder / "day2" / "broken.jsonl").write_text('{"type": "message"\n')
    (folder / "notes.txt").write_text("not a journal")
    return folder


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


@pytest.mark.slow
def test_dask_on_a_local_cluster_gives_the_same_answers(corpus: Path):
    import distributed  # the test extra's setup installs .[scale] too: never skipped

    files = expand([str(corpus)])
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = check_corpus(files, TOOLS, client=client, partitions=3)
        by_address = check_corpus(files, TOOLS, client=cluster.scheduler_address)
    assert on_dask == check_corpus(files, TOOLS) == by_address
