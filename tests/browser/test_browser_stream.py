"""The stream page in Debian's Chromium: a pasted and an uploaded recording linted, the timeline with its failing
event linked to its line in the editor, the response the stream builds carried to Format and its items to the
Journal, and the endpoint check run from the page against this app (17/17)."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect
from support import TEST_TOKEN, TESTS
from support.browser import select_by_click

CASES = TESTS / "cases" / "streams"


def test_a_pasted_stream_shows_its_timeline_and_a_failing_event_links_to_its_line(page: Page):
    text = (CASES / "sglang-12653.sse").read_text(encoding="utf-8")
    page.goto("/stream")
    page.locator("#stream-text").fill(text)
    page.locator("#stream-text").press("Control+Enter")
    expect(page.locator("#stream-verdict")).to_have_text("3 errors, 0 warnings")
    expect(page.locator("#stream-findings li")).to_have_count(3)
    groups = page.locator(".timeline-table tbody")
    expect(groups).to_have_count(2)
    expect(groups.nth(1).locator(".group-title")).to_contain_text("item 0 · function_call fc_71 get_current_weather")
    failing = page.locator("#stream-event-6")
    expect(failing).to_have_class("event fails error")
    expect(failing).to_contain_text("item_not_done")
    expect(page.locator("tr.event.fails")).to_have_count(1)  # the other rows are clean
    line, column, rest = select_by_click(page, failing.locator("a.pos"), "stream-text")
    assert (line, column) == (20, 7) and rest.startswith('{"type":"response.completed"')
    # The finding's link leads to its row in the timeline.
    page.locator("#stream-findings").get_by_role("link", name="event 6").first.click()
    expect(page).to_have_url(page.url.split("#")[0] + "#stream-event-6")


def test_an_uploaded_recording_is_read_into_the_box_and_linted(page: Page, tmp_path):
    path = tmp_path / "cut.sse"
    path.write_text((CASES / "vllm-57998.sse").read_text(encoding="utf-8"), encoding="utf-8")
    page.goto("/stream")
    page.locator("#stream-file").set_input_files(str(path))
    expect(page.locator("#stream-file-note")).to_contain_text("Read cut.sse")
    page.locator("#stream-lint").click()
    expect(page.locator("#stream-verdict")).to_have_text("1 error, 0 warnings")
    expect(page.locator("#stream-event-23")).to_contain_text("status_inconsistent")
    assert page.locator("#stream-text").input_value() == path.read_text(encoding="utf-8")


def test_the_response_carries_to_format_and_its_items_to_the_journal(page: Page):
    page.goto("/stream?example=call")
    expect(page.locator("#stream-verdict")).to_have_text("clean")
    page.get_by_role("button", name="The response this stream builds, in 1 · JSON Format →").click()
    expect(page.locator("#format-summary")).to_contain_text("valid JSON")
    response = json.loads(page.locator("#format-document").input_value())
    assert response["status"] == "completed" and response["output"][0]["type"] == "function_call"
    page.go_back()
    expect(page.locator("#stream-verdict")).to_have_text("clean")
    page.get_by_role("button", name="Its 1 item in the Journal →").click()
    expect(page.locator("#journal-answer")).to_have_text("cannot tell")  # one call, no tools: not checked
    item = json.loads(page.locator("#journal-text").input_value())
    assert item == response["output"][0]


def test_the_endpoint_check_runs_the_suite_against_this_app_from_the_page(page: Page, base_url: str):
    page.goto("/stream")
    page.locator("#check-url").fill(base_url + "/v1")
    page.locator("#check-key").fill(TEST_TOKEN)
    page.locator("#check-run").click()
    expect(page.locator("#check-official")).to_have_text("17/17", timeout=120_000)
    expect(page.locator("#check-cases tr.passes")).to_have_count(22)  # the suite's 17 and 5 extra cases
    page.locator("#check-case-tool-calling-streaming summary").click()
    expect(page.locator("#check-case-tool-calling-streaming .timeline-table")).to_contain_text(
        "response.function_call_arguments.delta"
    )
    assert TEST_TOKEN not in page.locator("#stream-check-result").inner_html()
