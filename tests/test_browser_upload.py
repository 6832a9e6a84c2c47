"""What a page sends and answers, in Debian's Chromium against the app (issue 11): the bytes pasted are counted as
pasted (a browser sends each line break as CR LF), and a file chosen or dropped is read into the editor, so its
answer is as small as a paste's; without JavaScript the file is sent and its text comes back in the textarea."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page, expect

from webapp.core.examples import FORMAT

pytestmark = pytest.mark.browser

# The article's fc_001 as the Format example shows it: 174 bytes in 8 lines (181 with CR LF line breaks).
FC_001 = json.dumps(json.loads(FORMAT["fc_001"][1]), indent=2)


def test_the_pasted_text_is_174_bytes():
    assert len(FC_001.encode()) == 174 and FC_001.count("\n") == 7


def test_the_bytes_pasted_are_the_bytes_reported(page: Page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/format")
    page.evaluate("(text) => navigator.clipboard.writeText(text)", FC_001)
    page.locator('.editor-host[data-editor-for="format-document"] .cm-content').click()
    page.keyboard.press("Control+V")
    with page.expect_request(lambda r: r.url.endswith("/format") and r.method == "POST") as sent:
        page.keyboard.press("Control+Enter")
    assert FC_001.replace("\n", "\r\n").encode() in sent.value.post_data_buffer  # the browser's CR LF
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")


def test_without_javascript_too(browser: Browser, base_url: str):
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/format")
    page.locator("#format-document").fill(FC_001)
    page.locator("#format-pretty").click()
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")
    assert page.locator("#format-document").input_value() == FC_001  # nothing pasted is lost
    context.close()
