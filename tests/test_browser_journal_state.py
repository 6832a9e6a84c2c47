"""From a fresh user's audit in Chromium (issue 11): the journal's error positions are links and markers with a
caret excerpt, its filter and page survive a reload, its tools field offers the session's tools (shared across
tabs), a carried item validates at once, an example or carried item never loses typed work, the journal carries
an item as written, the editor comes back after Clear, and the skip link reaches the main input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from webapp.web.pages.schema import EXAMPLES

pytestmark = pytest.mark.browser

SAMPLES = Path(__file__).parent / "data" / "samples"
_, FC_009, REGION_SCHEMA = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]  # the tool definition of get_latest_sales_report


def selected(page: Page, field: str) -> tuple[int, int]:
    """(line, column) of the selection in ``field``'s editor; 1-based, as the server counts."""
    return tuple(page.evaluate("""(id) => { const s = InspectorEditor.get(id).view.state;
        const at = s.selection.main.from, line = s.doc.lineAt(at); return [line.number, at - line.from + 1]; }""",
                               field))


def test_journal_errors_are_links_markers_and_caret_excerpts(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill('{\n  "a": [1, 2,\n  "b": tru\n}')
    page.locator("#journal-tools").fill('[{"type": "function",\n "name": "f", "parameters": {]}')
    page.locator("#journal-check").click()
    link = page.locator('#journal-error a.pos[data-field="journal-text"]')
    expect(link).to_have_text("line 3, column 6")
    expect(page.locator("#journal-error pre.excerpt")).to_contain_text("^")
    host = page.locator('.editor-host[data-editor-for="journal-text"]')
    expect(host.locator(".cm-lint-marker-error")).to_have_count(1)
    link.click()
    assert selected(page, "journal-text") == (3, 6)
    assert "#" not in page.url
    tools = page.locator('#journal-tools-error a.pos[data-field="journal-tools"]')
    expect(tools).to_have_text("line 2, column 30")
    expect(page.locator("#journal-tools-error pre.excerpt")).to_contain_text("^")
    expect(page.locator('.editor-host[data-editor-for="journal-tools"] .cm-lint-marker-error')).to_have_count(1)
    tools.click()
    assert selected(page, "journal-tools") == (2, 30)


def test_the_journal_tools_field_offers_the_session_tools(page: Page):
    page.goto("/schema")
    page.locator("#schema").fill(json.dumps(TOOL))
    page.locator("#instance").fill(json.dumps(FC_009))
    page.get_by_role("button", name=re.compile("Validate")).first.click()
    expect(page.locator("#schema-result")).not_to_be_empty()
    page.goto("/journal")
    bar = page.locator('.tools-bar[data-for="journal-tools"]')
    expect(bar).to_contain_text("Tools from this session")
    bar.get_by_role("button", name=TOOL["name"]).click()
    assert json.loads(page.locator("#journal-tools").input_value())["name"] == TOOL["name"]
