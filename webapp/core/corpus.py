"""A corpus of journals — a directory or glob of files — checked one conversation at a time, here or on Dask.

The check of one conversation is a pure function of its file and the tools (:func:`check_file`), so a corpus
parallelises without coordination: :func:`check_corpus` maps it over the files in this process, or as a
``dask.bag`` on a Dask cluster (``pip install .[scale]``; a ``distributed.Client`` or the address of a scheduler).
Both give the same answers, in the order of the files.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from webapp.core.convert import ConvertError, convert_text
from webapp.core.journal.replay import gate_conversion
from webapp.core.json import DEFAULT_MAX_DEPTH
from webapp.core.signatures import file_problem

#: File names a directory contributes (JSON Lines and JSON journals).
SUFFIXES = (".jsonl", ".ndjson", ".json")


def expand(sources: Iterable[str]) -> list[str]:
    """The journal files named by ``sources``: files as given, directories walked for :data:`SUFFIXES`, globs
    (``corpus/**/*.jsonl``) expanded; sorted within each source, duplicates dropped.

    :raises FileNotFoundError: for a source that names nothing.
    """
    files: list[str] = []
    for source in sources:
        if os.path.isdir(source):
            found = sorted(str(p) for p in Path(source).rglob("*") if p.is_file() and p.suffix in SUFFIXES)
        elif os.path.isfile(source):
            found = [source]
        else:
            found = sorted(p for p in glob.glob(source, recursive=True) if os.path.isfile(p))
        if not found:
            raise FileNotFoundError(f"{source}: no journal files there")
        files += [f for f in found if f not in files]
    return files


def check_file(
    path: str, tools: list[dict] | None = None, source: str = "auto", max_depth: int = DEFAULT_MAX_DEPTH
) -> dict[str, Any]:
    """Check one journal file (any source :mod:`webapp.core.convert` reads).

    :param tools: tool definitions for every file; ``None``: each file's own tools, if it has any.
    :return: ``{"path", "source", "items", "replayable", "answer", "counts", "findings", "error"}``: ``replayable``
        and ``answer`` as :class:`webapp.core.gate.JournalReport`'s (``null``/``cannot tell``: calls not checked),
        ``counts`` per item label (``refused`` for items an error finding stops), ``findings`` per finding code;
        ``error`` is the problem (line:column named) when the file cannot be read, and then the rest is empty.
    """
    answer: dict[str, Any] = {
        "path": path,
        "source": None,
        "items": 0,
        "replayable": False,
        "answer": None,
        "counts": {},
        "findings": {},
        "error": None,
    }
    try:
        data = Path(path).read_bytes()
        problem = file_problem(data)  # an empty or binary file is said to be so, in words about a file
        if problem is not None:
            answer["error"] = f"the file {problem}"
            return answer
        conversion = convert_text(data, source, max_depth=max_depth)
    except (OSError, ConvertError) as error:
        answer["error"] = str(error)
        return answer
    report = gate_conversion(conversion, tools if tools is not None else conversion.tools)
    counts: dict[str, int] = {}
    for verdict in report.items:
        counts[verdict.label] = counts.get(verdict.label, 0) + 1
    findings: dict[str, int] = {}
    for finding in report.findings:
        findings[finding.code] = findings.get(finding.code, 0) + 1
    answer.update(
        source=conversion.source,
        items=len(conversion.items),
        replayable=report.replayable,
        answer=report.answer,
        counts=counts,
        findings=findings,
    )
    return answer


def check_corpus(
    paths: list[str],
    tools: list[dict] | None = None,
    *,
    source: str = "auto",
    client: Any = None,
    partitions: int | None = None,
) -> list[dict[str, Any]]:
    """:func:`check_file` for every path, in order.

    :param client: ``None`` to run here; a ``distributed.Client`` (or a scheduler address such as
        ``"tcp://127.0.0.1:8786"``) to run on Dask as a ``dask.bag`` of the paths.
    :param partitions: bag partitions (default: one per file up to 100).
    :raises ImportError: when ``client`` is given and Dask is not installed (``pip install .[scale]``).
    """
    if client is None:
        return [check_file(path, tools, source) for path in paths]
    import dask.bag as db
    from distributed import Client

    owned = isinstance(client, str)
    if owned:
        client = Client(client)
    try:
        bag = db.from_sequence(paths, npartitions=partitions or max(1, min(len(paths), 100)))
        return bag.map(check_file, tools, source).compute(scheduler=client.get)
    finally:
        if owned:
            client.close()
