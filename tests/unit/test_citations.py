"""Docstrings and comments cite only files the repository has.

A citation is a path from the repository's root (``docs/targets.md``, ``tests/unit/test_gate.py``,
``webapp/core/gate/steps.py``) or a bare Markdown file name (``targets.md``) in a docstring or a comment of the
Python modules of ``webapp/``, ``tests/``, ``benchmarks/`` and ``scripts/`` (and the comment lines of the shell
scripts there). A file that moved or never was in the repository (the team's shared notes) fails here: cite a file
the repository has, or the public page (a URL) itself.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from pathlib import Path

import pytest
from support import REPO

FOLDERS = ("webapp", "tests", "benchmarks", "scripts")
#: Where the repository's own sources are not: installed packages, caches, vendored test data.
SKIPPED = ("node_modules", ".cache", "json-schema-test-suite", "__pycache__", ".venv", "instance")
#: A path from the root: a top-level folder of the repository, then path characters, ending in a file name with
#: a suffix or in ``/`` (so "the ratio editor/textarea" is no path). A name with ``<page>``, ``*`` or ``{…}`` in
#: it is a pattern, not a file, and is not checked.
ROOTED = re.compile(
    r"(?<![\w/.-])((?:\.ci|benchmarks|docs|editor|scripts|static|templates|tests|webapp)/[\w./<>*{},-]*[\w/*>}])"
)
#: A bare Markdown file name (``targets.md``), not part of a path or a URL.
BARE_MD = re.compile(r"(?<![\w/.:-])([\w-]+\.md)\b")
#: Folders that the tools make at run time and git ignores: cited, never committed.
MADE_AT_RUN_TIME = ("benchmarks/.cache", "tests/clients/node_modules", "instance")


def files_under(folder: Path) -> list[Path]:
    """Every file under ``folder``, never descending into :data:`SKIPPED` or hidden folders (``node_modules`` alone
    holds tens of thousands of files)."""
    found = []
    for where, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in SKIPPED and not name.startswith("."))
        found.extend(Path(where) / name for name in names)
    return sorted(found)


def sources() -> list[Path]:
    found = []
    for folder in FOLDERS:
        for path in files_under(REPO / folder):
            if path.suffix == ".py" or (folder == "scripts" and path.suffix == ""):
                found.append(path)
    return found


def prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each docstring and comment of ``path``: a Python module's module, class and function
    docstrings and its comments; a shell script's comment lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith("#")]
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    tree = ast.parse(text, str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    found.append((first.lineno, first.value.value))
    return sorted(found)


MARKDOWN_NAMES = {p.name for p in files_under(REPO) if p.suffix == ".md"}


def missing_in(text: str) -> list[str]:
    """The files ``text`` names (:data:`ROOTED`, :data:`BARE_MD`) that the repository does not have."""
    missing = []
    for cited in ROOTED.findall(text):
        last = cited.rstrip("/").rsplit("/", 1)[-1]
        if any(mark in cited for mark in "<*{") or not (cited.endswith("/") or "." in last.lstrip(".")):
            continue
        if cited.startswith(MADE_AT_RUN_TIME):
            continue
        if not (REPO / cited.rstrip("/.")).exists():
            missing.append(cited)
    missing.extend(name for name in BARE_MD.findall(text) if name not in MARKDOWN_NAMES)
    return missing


def missing_citations(path: Path) -> list[str]:
    """The cited files of ``path`` that the repository does not have, as ``line: citation``."""
    if not missing_in(path.read_text(encoding="utf-8")):
        return []  # nothing anywhere in the file names a missing file: no need to find its prose
    return [f"{line}: {cited}" for line, text in prose(path) for cited in missing_in(text)]


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_docstrings_and_comments_cite_only_files_the_repository_has(path):
    assert missing_citations(path) == [], f"{path.relative_to(REPO)} cites files the repository does not have"


def test_a_citation_of_a_file_that_is_gone_is_found(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        '"""Rules from provider-envelopes.md and ``docs/peer-gateways.md``; see ``docs/targets.md``."""\n\n'
        "# tests/test_gate.py checks it (it moved to tests/unit/); README.md and https://example.org/a.md are fine\n"
        'PATH = "docs/nowhere.md"  # code, not prose: not a citation\n'
    )
    assert missing_citations(module) == [
        "1: docs/peer-gateways.md",
        "1: provider-envelopes.md",
        "3: tests/test_gate.py",
    ]
