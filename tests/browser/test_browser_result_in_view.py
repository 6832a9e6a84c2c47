"""The answer is seen: after Format, Validate, Compare or Check at 1280×800 the verdict htmx swapped in is scrolled
into the window and has the focus (static/app.js, the result area's data-verdict)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from support import TESTS

from webapp.core.examples import DIFF
from webapp.web.pages.schema import EXAMPLES as SCHEMA_EXAMPLES

LAPTOP = {"width": 1280, "height": 800}
SAMPLES = TESTS / "data" / "samples"

_, FC_001, WS_001 = DIFF["namespaced"]
_, FC_009, REGION_SCHEMA = SCHEMA_EXAMPLES["fc_009"]

#: The element's box against the window: {top, bottom, height} and the window's height, in CSS pixels.
_BOX = """el => { const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: r.height, window: innerHeight}; }"""


@pytest.fixture
def laptop(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, viewport=LAPTOP)
    page = context.new_page()
    yield page
    context.close()


def format_item(page: Page) -> str:
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(FC_001, indent=2))
    page.locator("#format-pretty").click()
    return "#format-items .verdict"


def validate(page: Page) -> str:
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_009, indent=2))
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA, indent=2))
    page.get_by_role("button", name="Validate").click()
    return "#schema-result [data-testid=summary]"


def compare(page: Page) -> str:
    page.goto("/diff")
    page.locator("#diff-left").fill(json.dumps(FC_001, indent=2))
    page.locator("#diff-right").fill(json.dumps(WS_001, indent=2))
    page.get_by_role("button", name="Compare").click()
    return "#diff-verdicts"


def check_journal(page: Page) -> str:
    page.goto("/journal")
    page.locator("#journal-text").fill((SAMPLES / "journal-openai-responses.jsonl").read_text())
    page.locator("#journal-tools").fill((SAMPLES / "tools.json").read_text())
    page.locator("#journal-check").click()
    return "#journal-summary"


@pytest.mark.parametrize("act", [format_item, validate, compare, check_journal], ids=lambda f: f.__name__)
def test_the_verdict_is_in_view_and_focused_after_the_swap(laptop: Page, act: Callable[[Page], str]):
    page = laptop
    verdict = page.locator(act(page))
    verdict.wait_for()  # the swap: the scroll is done in the same task (htmx:afterSwap)
    box = verdict.evaluate(_BOX)
    assert box["top"] >= 0 and box["top"] < box["window"], box
    # Its first lines at least: the whole of it when it fits the window.
    assert box["bottom"] <= box["window"] or box["top"] <= box["window"] / 3, box
    expect(verdict).to_be_focused()


def test_a_journal_target_change_rechecks_without_taking_the_focus(laptop: Page):
    # A keyboard user stepping through the targets keeps the select: only a press of Check moves the focus.
    page = laptop
    page.goto("/journal")
    page.locator("#journal-text").fill((SAMPLES / "journal-openai-responses.jsonl").read_text())
    page.locator("#journal-check").click()
    expect(page.locator("#journal-summary")).to_be_focused()
    page.locator("#journal-target").focus()
    page.locator("#journal-target").select_option("anthropic")
    expect(page.locator("#journal-target-named")).to_contain_text("Anthropic")
    expect(page.locator("#journal-target")).to_be_focused()
