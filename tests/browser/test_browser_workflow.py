"""The article's three steps in Debian's Chromium, page to page with the carry buttons (plain POST forms):

1. Format ``fc_001``: ``arguments`` is a JSON string → carry the item to Schema → paste the tool's
   schema → ``ok``.
2. Format ``fc_009`` → carry → the same schema flags ``/region`` (``global`` is not in the enum), nothing changed.
3. Carry the ``function_call`` to Diff, paste the ``openai:web_search_call`` item → the namespaced blocker.

Items and schema are the ones of seeds/replay-gate-article.ru.txt.
"""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from webapp.core.examples import DIFF as DIFF_EXAMPLES
from webapp.web.pages.schema import EXAMPLES

_, FC_001, REGION_SCHEMA = EXAMPLES["fc_001"]
FC_009 = EXAMPLES["fc_009"][1]
WS_001 = DIFF_EXAMPLES["namespaced"][2]  # the article's openai:web_search_call item


def format_item(page: Page, item: dict) -> None:
    """Step 1: paste the item on the Format page and format it; its arguments must be a JSON string."""
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(item, indent=2))
    page.locator("#format-pretty").click()
    card = page.locator("#format-items article.item")
    expect(card.locator(".type-badge")).to_have_text("function_call")
    expect(card.locator(".args-badge")).to_have_attribute("data-state", "json_object")  # a string holding an object


def carry_to_schema_and_validate(page: Page) -> None:
    """Step 1 → 2: the carry button opens the Schema page with the item filled in; paste the schema."""
    page.locator("#format-items .carry-schema").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.get_by_test_id("summary")).to_contain_text("schema needed")
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA, indent=2))
    page.get_by_role("button", name="Validate").click()


def test_fc_001_is_a_string_and_passes_the_schema(page: Page):
    format_item(page, FC_001)
    carry_to_schema_and_validate(page)
    expect(page.get_by_test_id("reason")).to_have_text("ok")
    expect(page.get_by_test_id("validity")).to_have_text("valid")
    assert json.loads(page.locator("#instance").input_value()) == FC_001  # the whole item was carried


def test_fc_009_is_flagged_at_region_and_left_as_it_is(page: Page):
    format_item(page, FC_009)
    carry_to_schema_and_validate(page)
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    group = page.locator('.err-group[data-pointer="/region"]')
    expect(group).to_contain_text('"global"')
    expect(group.locator(".expected")).to_contain_text('"apac" "emea" "amer"')
    # The page flags the value and never rewrites it.
    assert json.loads(page.locator("#instance").input_value()) == FC_009


def test_function_call_against_the_web_search_call_is_a_namespaced_blocker(page: Page):
    # Step 2 with the whole item: the Schema page offers the item to step 3 as the left side.
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_001, indent=2))
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA))
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("ok")
    page.get_by_role("button", name="Step 3: diff this item against the one to replay →").click()
    expect(page).to_have_url(re.compile(r"/diff$"))
    assert json.loads(page.locator("#diff-left").input_value()) == FC_001
    page.locator("#diff-right").fill(json.dumps(WS_001, indent=2))
    page.get_by_role("button", name="Compare").click()
    blockers = page.locator("#diff-blockers")
    expect(blockers).to_contain_text("Do not replay")
    expect(blockers.locator('[data-blocker="namespaced"]')).to_contain_text("openai:web_search_call")
