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
