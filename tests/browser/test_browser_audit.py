"""A fresh user audit in Debian's Chromium (issue 11): Diff claims no replay for what is not items and gives each
side holding items its gate verdict."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect
from support.browser import select_by_click

from webapp.core.examples import DIFF as DIFF_EXAMPLES

_, FC_001, _ = DIFF_EXAMPLES["namespaced"]


def compare(page: Page, left: str, right: str) -> None:
    page.goto("/diff")
    page.locator("#diff-left").fill(left)
    page.locator("#diff-right").fill(right)
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#diff-summary")).to_be_visible()


def test_diff_of_two_plain_objects_claims_nothing_about_a_replay(page: Page):
    compare(page, '{"a":1}', '{"a":2}')
    expect(page.locator("#diff-changes")).to_contain_text("/a")
    expect(page.locator("main")).not_to_contain_text("no replay blocker")
    expect(page.locator("#diff-verdicts")).to_have_count(0)


def test_an_item_against_json_lines_of_it_twice_shows_each_sides_gate(page: Page):
    line = json.dumps(FC_001)
    compare(page, json.dumps(FC_001, indent=2), line + "\n" + line + "\n")
    expect(page.locator("main")).not_to_contain_text("no replay blocker")
    verdicts = page.locator("#diff-verdicts")
    expect(verdicts.locator('[data-side="left-verdict"] [data-reason]').first).to_have_text("not checked")
    right = verdicts.locator('[data-side="right-verdict"]')
    expect(right.locator("[data-reason]").first).to_have_text("not replayable")
    link = right.locator('[data-refusal="duplicate_call_id"] a.pos')
    expect(link).to_have_text("line 2, column 1")
    link.click()
    expect(page.locator('.editor-host[data-editor-for="diff-right"] .cm-editor')).to_have_class(
        re.compile("cm-focused")
    )


def test_the_same_number_spelled_twice_says_why_the_patch_has_an_operation(page: Page):
    compare(page, '{"a":1e2}', '{"a":100}')
    summary = page.locator("#diff-summary")
    expect(summary).to_contain_text("no changes")
    expect(summary).to_contain_text("the JSON Patch below still writes 1 number as the right side spells it")
    expect(page.locator("#diff-patch h2")).to_contain_text("1 operation")
    expect(page.locator("#diff-patch-respelled")).to_contain_text(
        "This operation only writes a number as the right side spells it"
    )


CUT = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"region": "ap',
    "status": "completed",
}
CUT_TEXT = json.dumps(CUT, indent=2)  # arguments on line 6; the string's end (its closing quote) at column 34


def expect_link_selects_the_spot(page: Page, link, field: str) -> None:
    expect(link).to_have_text("line 6, column 34")
    line, column, rest = select_by_click(page, link, field)
    host = page.locator(f'.editor-host[data-editor-for="{field}"] .cm-editor')
    expect(host).to_have_class(re.compile("cm-focused"))
    assert (line, column) == (6, 34)
    assert CUT_TEXT.splitlines()[5][32:34] == 'p"' and rest.startswith('"')  # at the string's closing quote


def test_format_links_the_place_inside_arguments_to_the_pasted_text(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill(CUT_TEXT)
    page.locator("#format-pretty").click()
    args = page.locator("#format-items .arguments")
    expect(args).to_contain_text("line 1, column 15 of the string")
    expect_link_selects_the_spot(page, args.locator("a.pos"), "format-document")


def test_diff_links_a_sides_arguments_parse_error_to_its_place(page: Page):
    compare(page, json.dumps(dict(CUT, arguments="{}"), indent=2), CUT_TEXT)
    right = page.locator('#diff-verdicts [data-side="right-verdict"]')
    expect(right.locator("[data-reason]").first).to_have_text("arguments_parse")
    expect_link_selects_the_spot(page, right.locator("a.pos"), "diff-right")


def test_the_journal_why_links_the_place_inside_arguments(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill("[" + CUT_TEXT + "]")
    page.locator("#journal-check").click()
    why = page.locator("#journal-item-0 .why")
    expect(why).to_contain_text("line 1, column 15")
    link = why.locator("a.pos")
    expect(link).to_have_text("line 6, column 34")  # the "[" before the item is on line 1
    link.click()
    expect(page.locator('.editor-host[data-editor-for="journal-text"] .cm-editor')).to_have_class(
        re.compile("cm-focused")
    )


def test_the_referenced_schemas_field_is_an_editor_with_markers(page: Page):
    page.goto("/schema")
    page.locator("details.schema-documents summary").click()
    host = page.locator('.editor-host[data-editor-for="documents"]')
    expect(host.locator(".cm-lineNumbers")).to_be_visible()
    page.locator("#instance").fill('{"a": 1}')
    page.locator("#schema").fill('{"$ref": "https://example.com/a.json"}')
    page.locator("#documents").fill('[{"$id": "https://example.com/a.json",}]')
    page.get_by_role("button", name="Validate").click()
    expect(page.locator('#schema-result a.pos[data-field="documents"]')).to_be_visible()
    expect(host.locator(".cm-lint-marker-error")).to_have_count(1)


def test_diff_shows_the_session_tools_bar_without_opening_the_schema_section(page: Page):
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    page.goto("/diff")
    page.evaluate(
        "tool => localStorage.setItem('inspector:tools', JSON.stringify({get_weather: tool}))", json.dumps(tool)
    )
    page.reload()
    bar = page.locator('.tools-bar[data-for="diff-schema"]')
    expect(bar.get_by_role("button", name="get_weather")).to_be_visible()
