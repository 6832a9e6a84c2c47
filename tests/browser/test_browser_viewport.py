"""Every page on a phone's screen (issue 20, §3): at 390×844 no page scrolls sideways, with each of its examples
loaded; a wide table or text scrolls inside its own box instead."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from support import TEST_TOKEN

PHONE = {"width": 390, "height": 844}

#: (path, the button an example still needs pressed to show its result, or None when its GET shows it).
PAGES = (
    ("/", None),
    ("/format", None),
    ("/schema", None),
    ("/diff", "#diff-form button.primary"),
    ("/stream", None),
    ("/journal", None),
)

#: What is wider than the window: the outermost such elements, each "tag#id.class: its right edge in px".
_WIDER = """() => { const limit = innerWidth, found = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.right <= limit + 0.5 || !box.width) continue;
    if (found.some(f => f.el.contains(el))) continue;
    found.push({el, right: Math.round(box.right)});
  }
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth,
          wider: found.slice(0, 8).map(f => f.el.tagName.toLowerCase() + (f.el.id ? "#" + f.el.id : "")
            + (typeof f.el.className === "string" && f.el.className
              ? "." + f.el.className.trim().split(/\\s+/).join(".") : "")
            + ": " + f.right)}; }"""


@pytest.fixture(scope="module")
def phone(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, viewport=PHONE)
    page = context.new_page()
    yield page
    context.close()


def sideways(page: Page) -> dict | None:
    """None when the page fits the window's width; else its scroll width and what sticks out."""
    measured = page.evaluate(_WIDER)
    return None if measured["scroll"] <= measured["inner"] else measured


@pytest.mark.parametrize(("path", "submit"), PAGES, ids=[p for p, _ in PAGES])
def test_no_page_scrolls_sideways_on_a_phone(phone: Page, path: str, submit: str | None):
    page = phone
    page.goto(path)
    urls = [page.url, *page.locator("p.examples a").evaluate_all("links => links.map(a => a.href)")]
    found = {}
    for url in urls:
        page.goto(url)
        if submit and "example=" in url:
            page.locator(submit).click()
            expect(page.locator("#diff-summary")).to_be_visible()
        if page.locator("textarea[data-editor]").count():
            expect(page.locator(".editor-host .cm-editor").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        if wide := sideways(page):
            found[url] = wide
    assert not found, json.dumps(found, indent=2)


def test_the_sessions_page_fits_a_phone(phone: Page):
    page = phone
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    answer = page.request.post(
        "/v1/responses",
        headers={"Authorization": f"Bearer {TEST_TOKEN}", "X-Session-Key": "phone-session"},
        data={"input": "weather in Paris", "tools": [tool]},
    )
    assert answer.ok, answer.text()
    page.goto("/sessions/phone-session")
    expect(page.locator("main")).to_contain_text("get_weather")
    assert sideways(page) is None, sideways(page)
