"""The public defects (``tests/cases/streams/``, written by hand from the issue texts): the linter names each one,
at the event and member it is about, and nothing else."""

from __future__ import annotations

import json

import pytest
from support import TESTS

from webapp.core.stream import lint_text

CASES = TESTS / "cases" / "streams"
EXPECTED = json.loads((CASES / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_linter_names_each_public_defect_at_its_event(name):
    report = lint_text((CASES / name).read_bytes())
    assert report.kind == "sse"
    assert [[f.code, f.index, f.pointer] for f in report.findings] == EXPECTED[name]
    for finding in report.findings:  # each finding's place is its event's data line
        line = (CASES / name).read_text(encoding="utf-8").split("\n")[finding.line - 1]
        assert line.startswith("data: ") and finding.column == 7


def test_every_fixture_is_listed_and_described():
    files = {path.name for path in CASES.glob("*.sse")}
    assert files == set(EXPECTED)
    readme = (CASES / "README.md").read_text(encoding="utf-8")
    assert "written by hand from the public issue texts" in readme
    assert all(f"`{name}`" in readme for name in files)
