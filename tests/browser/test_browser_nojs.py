"""Every page without JavaScript (issue 20, §3): the forms work, and no text promises what needs the scripts
(the input kept in this browser, Ctrl+Enter); with JavaScript the same texts are shown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

PATHS = ("/", "/format", "/schema", "/diff", "/stream", "/journal", "/format?example=fc_001")
#: What only the scripts make true.
PROMISES = ("Ctrl+Enter", "this browser keeps your input", "kept in this browser")


@pytest.fixture(scope="module")
def without_js(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("path", PATHS)
def test_no_text_promises_what_needs_javascript(without_js: Page, path: str):
    without_js.goto(path)
    shown = without_js.locator("body").inner_text()  # what is rendered: hidden elements are left out
    assert "Open Responses inspector" in shown
    assert [promise for promise in PROMISES if promise in shown] == []


def test_with_javascript_the_keys_and_the_kept_input_are_said(page: Page):
    page.goto("/format")
    expect(page.locator("main")).to_contain_text("Ctrl+Enter formats")
    expect(page.locator("main")).to_contain_text("this browser keeps your input")
    expect(page.locator(".draft-status")).to_have_text("Your input is kept in this browser only.")
