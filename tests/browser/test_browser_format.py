"""The Format page in Debian's Chromium: the article's fc_001 carried to step 2, pasted markup that stays text, the
lazy tree, and a 10 MB document that formats without freezing the page."""

from __future__ import annotations

import json
import re
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
    # End on the settled step 2: a context closed while that navigation was in flight once hung its teardown.
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.get_by_test_id("summary")).to_contain_text("schema needed")


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


def test_one_item_has_one_carry_button_per_step(page: Page):
    # Issue 20, §3: the item's buttons and the formatted text's did the same for one item.
    page.goto("/format?example=fc_001")
    main = page.locator("main")
    expect(main.get_by_role("button", name=re.compile("step 2"))).to_have_count(1)
    expect(main.get_by_role("button", name=re.compile("step 3"))).to_have_count(1)
    expect(page.locator("#format-items .carry-schema")).to_have_text("Validate the arguments in step 2 →")
    # A journal (a JSON array) still offers the whole text beside each item's own buttons.
    page.goto("/format")
    paste_and_format(page, json.dumps([FC_001, {**FC_001, "id": "fc_002", "call_id": "call_124"}]))
    expect(page.locator("#format-items .carry-schema")).to_have_count(2)
    expect(
        page.locator("#format-output-panel").get_by_role("button", name="Use as the instance in step 2 →")
    ).to_be_visible()


def test_the_articles_fc_009_is_an_example_beside_fc_001(page: Page):
    page.goto("/format")
    links = page.locator("p.examples a")
    expect(links.nth(0)).to_have_text("fc_001 (article)")
    expect(links.nth(1)).to_have_text("fc_009 (article)")
    links.nth(1).click()
    card = page.locator("#format-items article.item")
    expect(card.locator("header")).to_contain_text("fc_009")
    expect(card.locator(".args-badge")).to_have_attribute("data-state", "json_object")
    expect(card.locator("details.parsed pre")).to_have_text('{\n  "region": "global"\n}')


def test_a_double_encoded_arguments_parsed_panel_shows_what_the_gate_parses(page: Page):
    page.goto("/format?example=double-encoded")
    card = page.locator("#format-items article.item")
    expect(card.locator(".args-badge")).to_have_attribute("data-state", "double_encoded")
    parsed = card.locator("details.parsed").first
    expect(parsed.locator("summary")).to_have_text("parsed once, as the gate parses it: a string, not an object")
    assert json.loads(parsed.locator("pre").inner_text()) == '{"region":"apac"}'  # a string, not the object
    decoded = card.locator("details.parsed.decoded")
    decoded.locator("summary").click()
    expect(decoded.locator("pre")).to_have_text('{\n  "region": "apac"\n}')


def test_the_target_select_decides_whether_a_native_item_is_refused(page: Page):
    item = '{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}'
    page.goto("/format")
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")
    page.locator("#format-document").fill(item)
    page.locator("#format-pretty").click()
    expect(page.locator("#format-result")).to_contain_text("provider_item")
    page.locator("#format-target").select_option("openai")
    page.locator("#format-pretty").click()
    expect(page.locator("#format-result")).not_to_contain_text("provider_item")
    expect(page.locator("#format-result")).to_contain_text("not_function_call")  # the new answer, not a blank
