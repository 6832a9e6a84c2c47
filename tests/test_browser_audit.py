"""A fresh user audit in Debian's Chromium (issue 11): Diff claims no replay for what is not items and gives each
side holding items its gate verdict."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from webapp.core.examples import DIFF as DIFF_EXAMPLES

pytestmark = pytest.mark.browser

_, FC_001, _ = DIFF_EXAMPLES["namespaced"]


def compare(page: Page, left: str, right: str) -> None:
    page.goto("/diff")
    page.locator("#diff-left").fill(left)
    page.locator("#diff-right").fill(right)
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#diff-summary")).to_be_visible()


def test_diff_of_two_plain_objects_claims_nothing_about_a_replay(page: Page):
    compare(page, '{"a":1}', '{"a":2}')
    expect(page.locator("#diff-changes")).to_contain_text("/a")
    expect(page.locator("main")).not_to_contain_text("no replay blocker")
    expect(page.locator("#diff-verdicts")).to_have_count(0)


def test_an_item_against_json_lines_of_it_twice_shows_each_sides_gate(page: Page):
    line = json.dumps(FC_001)
    compare(page, json.dumps(FC_001, indent=2), line + "\n" + line + "\n")
    expect(page.locator("main")).not_to_contain_text("no replay blocker")
    verdicts = page.locator("#diff-verdicts")
    expect(verdicts.locator('[data-side="left-verdict"] [data-reason]').first).to_have_text("schema next")
    right = verdicts.locator('[data-side="right-verdict"]')
    expect(right.locator("[data-reason]").first).to_have_text("not replayable")
    link = right.locator('[data-refusal="duplicate_call_id"] a.pos')
    expect(link).to_have_text("line 2, column 1")
    link.click()
    expect(page.locator('.editor-host[data-editor-for="diff-right"] .cm-editor')).to_have_class(
        re.compile("cm-focused"))


def test_the_same_number_spelled_twice_says_why_the_patch_has_an_operation(page: Page):
    compare(page, '{"a":1e2}', '{"a":100}')
    summary = page.locator("#diff-summary")
    expect(summary).to_contain_text("no changes")
    expect(summary).to_contain_text("the JSON Patch below still writes 1 number as the right side spells it")
    expect(page.locator("#diff-patch h2")).to_contain_text("1 operation")
    expect(page.locator("#diff-patch-respelled")).to_contain_text(
        "This operation only writes a number as the right side spells it")
