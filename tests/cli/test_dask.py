"""A corpus on a local Dask cluster (``webapp/core/corpus.py``, ``python -m webapp gate --dask``): the same answers
as here. Each test starts a cluster of worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, TESTS
from support.cli import run
from support.corpus import write_corpus

from webapp.core.corpus import check_corpus, expand

pytestmark = pytest.mark.slow  # a Dask cluster of two worker processes

SAMPLES = TESTS / "data" / "samples"
CONVERSATIONS = REPO / "webapp" / "examples" / "conversations"
TOOLS = json.loads((SAMPLES / "tools.json").read_text())
TOOLS_FILE = str(SAMPLES / "tools.json")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


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


def test_a_corpus_here_and_on_dask(tmp_path: Path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in ("chat-completions.json", "anthropic-messages.json", "chat-completions-truncated.json"):
        (folder / name).write_text((CONVERSATIONS / name).read_text())
    code, out, _ = run("gate", str(folder), "--tools", TOOLS_FILE)
    assert code == 1 and len(out.splitlines()) == 3
    assert any(line.startswith("no") and "chat-completions-truncated.json" in line for line in out.splitlines())
    code, here, _ = run("gate", str(folder / "*.json"), "--tools", TOOLS_FILE, "--json")
    code_dask, on_dask, _ = run("gate", str(folder), "--tools", TOOLS_FILE, "--json", "--dask")
    assert (code, code_dask) == (1, 1) and here == on_dask
    assert [json.loads(line)["source"] for line in here.splitlines()] == [
        "anthropic",
        "chat_completions",
        "chat_completions",
    ]
    code, _, err = run("gate", str(tmp_path / "none-*.jsonl"))
    assert code == 2 and "no journal files there" in err
