"""The JSON Diff page in Debian's Chromium: the article's namespaced blocker, the same call from two providers,
and pasted markup rendered as text."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from webapp.core.examples import DIFF as EXAMPLES

_, FC_001, WS_001 = EXAMPLES["namespaced"]
# samples/same-call/open-responses*.json: the same call, other arguments formatting and key order.
_, SAME_CALL, OTHER_PROVIDER = EXAMPLES["same-call"]


def compare(page: Page, left: object, right: object) -> None:
    page.goto("/diff")
    page.locator("#diff-left").fill(json.dumps(left, indent=2))
    page.locator("#diff-right").fill(json.dumps(right, indent=2))
    page.evaluate("window.noReload = true")  # survives only if htmx swaps the result into this page
    page.get_by_role("button", name="Compare").click()


def test_function_call_against_the_namespaced_item_is_blocked(page: Page):
    compare(page, FC_001, WS_001)
    blockers = page.locator("#diff-blockers")
    expect(blockers).to_contain_text("Do not replay")
    expect(blockers.locator('[data-blocker="namespaced"]')).to_contain_text("openai:web_search_call")
    expect(page.locator('#diff-changes [data-pointer="/type"]')).to_contain_text("changed")
    # htmx swapped only the result: the same page, both pasted texts in place
    assert page.evaluate("window.noReload") is True
    expect(page.locator("#diff-right")).to_have_value(json.dumps(WS_001, indent=2))


def test_same_call_from_two_providers_has_no_change_in_arguments(page: Page):
    compare(page, SAME_CALL, OTHER_PROVIDER)
    expect(page.locator("#diff-summary")).to_contain_text("1 change")
    expect(page.locator('#diff-changes [data-pointer="/id"]')).to_be_visible()
    expect(page.locator('#diff-changes [data-pointer="/arguments"]')).to_have_count(0)
    reformatted = page.locator("#diff-reformatted")
    expect(reformatted).to_contain_text("/arguments")
    reformatted.get_by_text("Raw strings").click()
    expect(reformatted.locator("pre.val.new")).to_have_text(OTHER_PROVIDER["arguments"])


def test_pasted_markup_renders_as_text_and_runs_nothing(page: Page):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    payload = '"><img src=x onerror=alert(1)><script>alert(2)</script>'
    compare(page, {"note": "safe"}, {"note": payload})
    expect(page.locator('#diff-changes [data-pointer="/note"] pre.val.new')).to_contain_text("<script>alert(2)")
    expect(page.locator("#diff-result img")).to_have_count(0)
    assert dialogs == []


def test_the_diff_editors_text_weighs_as_the_other_pages(page: Page):
    # Issue 20, §3: the sides' editors inherited their label's bold.
    weight = "el => getComputedStyle(el.shadowRoot.querySelector('.cm-content')).fontWeight"
    page.goto("/format")
    format_weight = page.locator('.editor-host[data-editor-for="format-document"]').evaluate(weight)
    page.goto("/diff")
    for side in ("diff-left", "diff-right"):
        assert page.locator(f'.editor-host[data-editor-for="{side}"]').evaluate(weight) == format_weight == "400"
