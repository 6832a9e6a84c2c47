"""The Format page in Debian's Chromium: the article's fc_001 carried to step 2, pasted markup that stays text, the
lazy tree, and a 10 MB document that formats without freezing the page."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import BrowserContext, Page, expect

# The replay-gate article's first item (seeds/replay-gate-article.ru.txt).
FC_001 = {
    "type": "function_call",
    "id": "fc_001",
    "name": "get_latest_sales_report",
    "call_id": "call_123",
    "status": "completed",
    "arguments": '{"region":"apac"}',
}


def paste_and_format(page: Page, text: str) -> None:
    page.locator("#format-document").fill(text)
    page.locator("#format-document").press("Control+Enter")


def test_fc_001_arguments_are_a_string_and_carry_to_the_schema_step(page: Page):
    page.goto("/format")
    paste_and_format(page, json.dumps(FC_001, indent=2))
    card = page.locator("#format-items article.item")
    expect(card.locator(".type-badge")).to_have_text("function_call")
    expect(card.locator(".args-badge")).to_have_attribute("data-state", "json_object")
    expect(card.locator(".args-badge")).to_contain_text("JSON string")
    expect(card.locator(".gate-badge")).to_have_attribute("data-reason", "arguments_schema")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/schema")) as sent:
        card.locator(".carry-schema").click()
    form = parse_qs(sent.value.post_data or "")
    assert json.loads(form["instance"][0]) == FC_001  # the whole item: step 2 then offers step 3


def test_pasted_markup_is_shown_as_text_and_never_runs(page: Page):
    page.goto("/format")
    traps = [
        "<script>window.__pwned = 1</script>",
        '"><img src=x onerror="window.__pwned = 2">',
        "<img src=x onerror=window.__pwned=3>",
    ]
    document = json.dumps({"type": traps[2], traps[0]: traps[1], "arguments": traps[0]})
    # The markup stays text: no element of it is in the page, so none can run, now or later (an <img>'s onerror
    # fires only for an element). That is checked on each answer once it is shown, not after a wait.
    markup = page.locator("#format-result img, #format-result script, #format-result [onerror]")
    paste_and_format(page, document)  # valid: item card, formatted text, tree
    expect(page.locator("#format-output")).to_contain_text(traps[0])
    expect(page.locator("#format-items .type-badge")).to_have_text(traps[2])
    assert markup.count() == 0
    paste_and_format(page, document + ",")  # invalid: the error panel quotes the line
    expect(page.locator("#format-error .excerpt")).to_contain_text("<script>window.__pwned = 1</script>")
    assert markup.count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_the_tree_opens_lazily_pages_and_copies_pointers(page: Page, context: BrowserContext, base_url: str):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto("/format")
    paste_and_format(
        page, json.dumps({"a": {"b": {"c": {"d~/e": [1, 2]}}}, "list": list(range(150))}).replace("[1, 2]", "[1.10, 2]")
    )
    tree = page.locator("#format-tree")
    deep = tree.locator('button[data-copy="/a/b/c/d~0~1e"]')
    expect(deep).to_have_count(0)  # beyond the first levels: not in the page yet
    tree.locator('li:has(> button[data-copy="/a/b"]) > details > summary').click()
    tree.locator('li:has(> button[data-copy="/a/b/c"]) > details > summary').click()  # fetched now
    expect(deep).to_be_visible()
    tree.locator('li:has(> button[data-copy="/a/b/c/d~0~1e"]) > details > summary').click()
    expect(tree.locator('li:has(> div > button[data-copy="/a/b/c/d~0~1e/0"]) .value')).to_have_text("1.10")
    tree.locator("li.more button").click()
    expect(tree.locator('button[data-copy="/list/149"]')).to_be_visible()
    deep.click()
    assert page.evaluate("navigator.clipboard.readText()") == "/a/b/c/d~0~1e"


@pytest.mark.slow
def test_a_10_mb_document_formats_and_the_page_stays_responsive(page: Page):
    items = [
        {
            "type": "function_call",
            "id": f"fc_{i:06d}",
            "call_id": f"call_{i}",
            "name": "get_weather",
            "status": "completed",
            "arguments": json.dumps({"city": "Zürich", "n": i, "unit": "celsius"}),
            "metrics": {"price": 1.1, "tags": ["a", "b", "c"], "note": "x" * 40},
        }
        for i in range(38_000)
    ]
    text = json.dumps({"journal": items}, ensure_ascii=False)
    assert len(text.encode()) > 10_000_000
    page.goto("/format")
    page.evaluate("text => { document.getElementById('format-document').value = text; }", text)
    page.locator("#format-pretty").click()
    # Generous bounds: this is about finishing and not freezing, not about speed.
    expect(page.locator("#format-summary")).to_contain_text("valid JSON", timeout=120_000)
    expect(page.locator("#format-output-cut")).to_be_visible()  # the page shows a part; Download has it all
    expect(page.locator("#format-tree")).to_contain_text("text view")  # too many values for a tree
    frame = page.evaluate("() => new Promise(done => requestAnimationFrame(() => done(true)))")
    assert frame is True
    page.locator("#format-indent").select_option("tab")
    page.locator("#format-minify").click()
    expect(page.locator("#format-output-panel h2")).to_have_text("Minified", timeout=120_000)
