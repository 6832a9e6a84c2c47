"""Request sizes in Debian's Chromium (issue 11): every page refuses, before sending, a request the server would
answer 413, counting what the request really carries (every field, UTF-8, CRLF, the multipart framing), and names
the limit; a 413 the server answers anyway is shown in the result area with the limit named."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect
from support import SMALL_LIMIT
from support.browser import posts, record_sends


def htmx_errors_of(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


def big_journal(size: int) -> str:
    line = json.dumps({"type": "message", "role": "user", "content": "é" * 40}) + "\n"
    return line * (size // len(line.encode()) + 1)


def test_the_journal_refuses_a_text_over_the_limit_before_sending_and_names_it(page: Page, small_server: str):
    page.goto(small_server + "/journal")
    page.locator("#journal-text").fill(big_journal(SMALL_LIMIT))
    record_sends(page)
    page.locator("#journal-check").click()
    panel = page.locator("#journal-result #journal-too-large")
    expect(panel).to_contain_text("over the limit of 2,000 bytes")
    expect(panel).to_contain_text(re.compile(r"journal [\d,]+ bytes"))
    expect(panel).to_contain_text("nothing was sent")
    assert posts(page) == []  # the check that showed the panel is the one that would have sent


def test_the_schema_page_refuses_an_instance_over_the_limit_before_sending(page: Page, small_server: str):
    page.goto(small_server + "/schema")
    page.locator("#instance").fill(json.dumps({"region": "x" * SMALL_LIMIT}))
    page.locator("#schema").fill(json.dumps({"type": "object"}))
    record_sends(page)
    page.get_by_role("button", name="Validate").click()
    panel = page.locator("#schema-result .too-large")
    expect(panel).to_contain_text("over the limit of 2,000 bytes")
    expect(panel).to_contain_text(re.compile(r"instance 2,\d{3} bytes"))
    assert posts(page) == []


def test_diff_counts_every_field_and_the_encoding_to_the_byte(page: Page, small_server: str):
    """A body of exactly the limit is sent and answered; one byte more is refused in the page. The right side
    has line breaks (sent as CRLF) and two-byte characters; the schema field counts too."""
    page.goto(small_server + "/diff")
    right = json.dumps({"a": "é" * 50}, indent=2)
    page.locator("#diff-right").fill(right)
    page.locator("details.diff-schema summary").click()
    page.locator("#diff-schema").fill(json.dumps({"type": "object", "description": "d" * 100}))

    def compare(left: str):
        page.locator("#diff-left").fill(left)
        page.locator("#diff-result").evaluate("el => el.replaceChildren()")
        page.get_by_role("button", name="Compare").click()

    def to_diff(r) -> bool:  # not static/state/tools.js's /api/tools about the schema field
        return r.method == "POST" and r.url.endswith("/diff")

    with page.expect_request(to_diff) as sent:
        compare('"' + "a" * 10 + '"')
    base = len(sent.value.post_data_buffer)
    expect(page.locator("#diff-result")).not_to_be_empty()
    assert base < SMALL_LIMIT

    with page.expect_response(lambda r: to_diff(r.request)) as answered:
        compare('"' + "a" * (10 + SMALL_LIMIT - base) + '"')  # the body is now exactly SMALL_LIMIT bytes
    assert answered.value.status == 200 and len(answered.value.request.post_data_buffer) == SMALL_LIMIT
    expect(page.locator("#diff-result")).not_to_contain_text("Too large")

    record_sends(page)
    compare('"' + "a" * (11 + SMALL_LIMIT - base) + '"')  # one byte over
    panel = page.locator("#diff-too-large")
    expect(panel).to_contain_text(f"would carry {SMALL_LIMIT + 1:,} bytes")
    expect(panel).to_contain_text("over the limit of 2,000 bytes")
    assert not [url for url in posts(page) if url.endswith("/diff")]


def test_a_413_from_the_server_is_shown_in_the_result_area_with_the_limit(page: Page, small_server: str):
    """Without the page's check (as if it measured short), the server's 413 is swapped in, not left blank, and
    htmx logs no response error."""
    page.goto(small_server + "/journal")
    errors = htmx_errors_of(page)
    page.evaluate("document.body.removeAttribute('data-max-bytes')")
    page.locator("#journal-text").fill(big_journal(SMALL_LIMIT))
    page.locator("#journal-check").click()
    panel = page.locator("#journal-result #request-too-large")
    expect(panel).to_contain_text("larger than the limit of 2,000 bytes")
    expect(panel).to_contain_text("MAX_CONTENT_LENGTH")
    assert not [e for e in errors if "Response Status Error" in e]


def test_the_limit_is_rendered_once_on_every_page(page: Page, small_server: str):
    for path in ("/format", "/schema", "/diff", "/journal"):
        page.goto(small_server + path)
        assert page.locator("body").get_attribute("data-max-bytes") == str(SMALL_LIMIT)
