"""The journal page in Debian's Chromium: a provider's conversation checked, filtered, paged, exported and carried
to step 2; a 100,000-item journal answered on the page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from support import TESTS
from support.browser import kept_field

SAMPLES = TESTS / "data" / "samples"


def test_the_anthropic_example_is_replayable_and_its_call_carries_to_step_2(page: Page):
    page.goto("/journal")
    page.get_by_role("link", name="Anthropic Messages request").click()
    expect(page.locator("#journal-answer")).to_have_text("replayable")
    expect(page.locator("#journal-summary")).to_contain_text("from Anthropic Messages")
    expect(page.locator("#journal-notes")).to_contain_text("sealed_reasoning")
    row = page.locator("#journal-item-4")  # item 2 is the thinking block, kept as a reasoning item
    expect(row).to_contain_text("get_latest_sales_report")
    with page.context.expect_page() as opened:
        row.get_by_title("Check item 4 in 2 · JSON Schema against its tool").click()
    schema_page = opened.value
    schema_page.wait_for_load_state()
    assert json.loads(schema_page.locator("textarea[name=instance]").input_value())["call_id"].startswith("toolu_")
    assert json.loads(schema_page.locator("textarea[name=schema]").input_value())["name"] == "get_latest_sales_report"


def test_a_journal_with_refusals_filters_exports_and_keeps_the_text(page: Page):
    page.goto("/journal")
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    page.locator("#journal-text").fill(text)
    page.locator("#journal-tools").fill((SAMPLES / "tools.json").read_text())
    page.locator("#journal-text").press("Control+Enter")
    expect(page.locator("#journal-answer")).to_have_text("not replayable")
    page.locator("#journal-only-blocking").check()
    expect(page.locator("#journal-items tbody tr")).to_have_count(1)
    expect(page.locator("#journal-items tbody tr")).to_contain_text("openai:web_search_call")
    with page.expect_download() as download:
        page.locator("#journal-export").click()
    exported = Path(download.value.path()).read_text().splitlines()
    assert len(exported) == 7 and all(json.loads(line)["type"] != "reasoning" for line in exported)
    assert page.locator("#journal-text").input_value() == text  # nothing pasted is lost


@pytest.mark.slow
def test_a_100000_item_journal_is_answered_on_the_page_a_page_at_a_time(page: Page, tmp_path: Path):
    lines = []
    for i in range(25_000):
        lines += [
            {"type": "message", "role": "user", "content": f"question {i}"},
            {
                "type": "function_call",
                "call_id": f"call_{i}",
                "name": "get_weather",
                "status": "completed",
                "arguments": json.dumps({"location": "Paris", "unit": "celsius"}),
            },
            {"type": "function_call_output", "call_id": f"call_{i}", "output": "sunny"},
            {"type": "message", "role": "assistant", "content": "It is sunny."},
        ]
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page.goto("/journal")
    page.locator("#journal-tools").fill((SAMPLES / "tools.json").read_text())
    page.locator("#journal-file").set_input_files(str(big))
    expect(page.locator("#journal-file-note")).to_contain_text("Read big.jsonl", timeout=60_000)  # into the field
    page.locator("#journal-check").click()
    expect(page.locator("#journal-summary")).to_contain_text("100,000 items", timeout=120_000)
    expect(page.locator("#journal-answer")).to_have_text("replayable")
    expect(page.locator("#journal-items tbody tr")).to_have_count(100)
    page.get_by_role("button", name="next →").first.click()
    expect(page.locator("#journal-items")).to_contain_text("page 2 of 1000", timeout=120_000)
    expect(page.locator("#journal-item-100")).to_be_visible()


@pytest.mark.parametrize("path", ["/journal?example=chat-completions", "/schema?example=fc_009"])
def test_long_lines_scroll_inside_the_editor_not_the_page(page: Page, path: str):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(path)
    expect(page.locator(".editor-host").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_a_target_is_chosen_judged_downloaded_and_kept_with_the_page(page: Page):
    page.goto("/journal")
    page.get_by_role("link", name="Anthropic Messages request").click()
    expect(page.locator("#journal-summary")).to_contain_text("to Any Open Responses server (portable)")
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")  # no kept draft still to come
    page.locator("#journal-target").select_option("anthropic")
    expect(page.locator("#journal-summary")).to_contain_text("to Anthropic Messages API")
    expect(page.locator("#journal-subset h2")).to_contain_text("What goes to Anthropic Messages API")
    with page.expect_download() as download:
        page.locator("#journal-export-body").click()
    assert download.value.suggested_filename == "anthropic-body.json"
    body = json.loads(Path(download.value.path()).read_text())
    thinking = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert any(b.get("type") == "thinking" and b.get("signature") for b in thinking)  # its own signature goes back
    page.locator("#journal-target").select_option("openai")
    expect(page.locator("#journal-left-out")).to_contain_text("foreign_reasoning")
    kept_field(page, "target", "openai")
    page.reload()  # the target is part of the page's kept state, as the text is
    expect(page.locator("#journal-target")).to_have_value("openai")


def test_a_rows_open_in_buttons_say_where_they_open(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill((SAMPLES / "journal-openai-responses.jsonl").read_text())
    page.locator("#journal-check").click()
    call = page.locator("#journal-items tbody tr", has=page.get_by_role("cell", name="function_call", exact=True)).first
    expect(call.locator(".open-in button")).to_have_text(["Format", "Schema", "Diff"])
    expect(call.locator(".open-in button").first).to_have_attribute(
        "title", re.compile(r"^Open item \d+ in 1 · JSON Format$")
    )
