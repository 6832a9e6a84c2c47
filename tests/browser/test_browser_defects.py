"""What a new user tripped on (issue 11, §4), each in Debian's Chromium against the app: Diff checks sizes
before sending and names the limit, swapping sides does not leave the old verdict, a skip link reaches the
input, and a page carried from the step before focuses the next field."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect
from support.browser import posts, record_sends

from webapp.core.examples import DIFF as DIFF_EXAMPLES

_, FC_001, WS_001 = DIFF_EXAMPLES["namespaced"]


def test_diff_refuses_sides_over_the_limit_before_sending_and_names_it(page: Page, small_server: str):
    page.goto(small_server + "/diff")
    side = json.dumps({"items": [FC_001] * 6}, indent=2)  # two of these are over 2,000 bytes
    page.locator("#diff-left").fill(side)
    page.locator("#diff-right").fill(side)
    record_sends(page)
    page.get_by_role("button", name="Compare").click()
    panel = page.locator("#diff-too-large")
    expect(panel).to_contain_text(re.compile(r"over the limit of 2,000 bytes"))
    expect(panel).to_contain_text("nothing was sent")
    assert posts(page) == []  # the check that showed the panel is the one that would have sent
    expect(page.locator("main")).to_contain_text("up to 2,000 bytes for both sides")


def test_swapping_sides_compares_again_instead_of_keeping_the_old_verdict(page: Page):
    page.goto("/diff")
    page.locator("#diff-left").fill(json.dumps({"a": 1}))
    page.locator("#diff-right").fill(json.dumps({"a": 1, "b": 2}))
    page.get_by_role("button", name="Compare").click()
    expect(page.locator('#diff-changes [data-pointer="/b"]')).to_contain_text("added")
    page.get_by_role("button", name="Swap sides").click()
    expect(page.locator('#diff-changes [data-pointer="/b"]')).to_contain_text("removed")
    assert json.loads(page.locator("#diff-left").input_value()) == {"a": 1, "b": 2}


def test_the_skip_link_reaches_the_input_in_one_tab(page: Page):
    page.goto("/format")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the input")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator('.editor-host[data-editor-for="format-document"] .cm-editor')).to_have_class(
        re.compile("cm-focused")
    )


def test_a_page_carried_from_the_step_before_focuses_the_next_field(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(FC_001))
    page.locator("#format-pretty").click()
    page.locator("#format-items .carry-schema").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.locator('.editor-host[data-editor-for="schema"] .cm-editor')).to_have_class(re.compile("cm-focused"))
