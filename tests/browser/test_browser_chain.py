"""The chain 1 → 2 → 3 unbroken (issue 11 §2) in Debian's Chromium: Format carries the whole item to Schema, the
session's tool fills the schema, Schema carries the item and the schema to Diff, and Diff shows the gate's verdict
on both sides."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from webapp.web.pages.schema import EXAMPLES

_, FC_009, _ = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]


def test_format_to_schema_to_diff_carries_the_item_and_the_tool(page: Page):
    # The tool is met once in this session (the Schema page's example), then never pasted again.
    page.goto("/schema?example=tool")
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(FC_009, indent=2))
    page.locator("#format-pretty").click()
    page.locator("#format-items .carry-schema").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    assert json.loads(page.locator("#instance").input_value()) == FC_009  # the whole item, not its arguments
    expect(page.locator(".draft-status")).to_contain_text("get_latest_sales_report is filled in")
    assert json.loads(page.locator("#schema").input_value()) == TOOL
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    page.get_by_role("button", name=re.compile("Step 3")).click()
    expect(page).to_have_url(re.compile(r"/diff$"))
    assert json.loads(page.locator("#diff-left").input_value()) == FC_009
    assert json.loads(page.locator("#diff-schema").input_value()) == TOOL  # the schema came along
    fixed = dict(FC_009, arguments='{"region":"emea"}')
    page.locator("#diff-right").fill(json.dumps(fixed, indent=2))
    page.get_by_role("button", name="Compare").click()
    verdicts = page.locator("#diff-verdicts")
    expect(verdicts.locator('[data-side="left-verdict"] [data-reason]')).to_have_text("arguments_schema")
    expect(verdicts.locator('[data-side="right-verdict"] [data-reason]')).to_have_text("ok")


def test_the_target_travels_with_every_carry(page: Page):
    # Format's "Replay to: Anthropic" is the target on Diff, straight from Format and by way of Schema.
    page.goto("/format")
    page.locator("#format-target").select_option("anthropic")
    page.locator("#format-document").fill(json.dumps(FC_009, indent=2))
    page.locator("#format-pretty").click()
    page.locator("#format-items .carry-diff").click()
    expect(page).to_have_url(re.compile(r"/diff$"))
    expect(page.locator("#diff-target")).to_have_value("anthropic")
    assert json.loads(page.locator("#diff-left").input_value()) == FC_009

    page.go_back()
    expect(page.locator("#format-target")).to_have_value("anthropic")
    page.locator("#format-pretty").click()
    page.locator("#format-items .carry-schema").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.locator("#schema-target")).to_have_value("anthropic")
    page.locator("#schema").fill(json.dumps(TOOL, indent=2))
    page.get_by_role("button", name="Validate").click()
    page.get_by_role("button", name=re.compile("Step 3")).click()
    expect(page).to_have_url(re.compile(r"/diff$"))
    expect(page.locator("#diff-target")).to_have_value("anthropic")


def test_a_journal_rows_carries_keep_the_target(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill(json.dumps(FC_009))
    page.locator("#journal-target").select_option("gemini")
    page.locator("#journal-check").click()
    expect(page.locator("#journal-target-named")).to_contain_text("Gemini")
    row = page.locator("#journal-item-0")
    for title, field in (("in 1 · JSON Format", "#format-target"), ("in 3 · JSON Diff", "#diff-target")):
        with page.context.expect_page() as opened:
            row.get_by_title(re.compile(re.escape(title))).click()
        carried = opened.value
        carried.wait_for_load_state()
        expect(carried.locator(field)).to_have_value("gemini")
        carried.close()
