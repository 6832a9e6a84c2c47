"""The JSON Schema page in Debian's Chromium: the htmx swap keeps both texts, links jump to the place
of an error, the format toggle re-checks, and pasted markup stays text."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect
from support.browser import kept_field, select_by_click

from webapp.web.pages.schema import EXAMPLES

REGION_SCHEMA = EXAMPLES["fc_009"][2]  # the article's schema: region is one of apac, emea, amer


def test_example_link_flags_region_and_the_position_link_selects_it(page: Page):
    page.goto("/schema")
    page.get_by_role("link", name="fc_009 · global (not in enum)").click()
    group = page.locator('.err-group[data-pointer="/region"]')
    expect(group).to_contain_text("allowed values")
    expect(group.locator(".expected")).to_contain_text('"apac" "emea" "amer"')
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")  # nothing of the arrival to come
    # The click selects the offending value of /region inside the arguments string in the pasted item (in the
    # editor), not the string's start nor the member's name (issue 11).
    _, _, selected_from = select_by_click(page, group.locator('a.pos[data-field="instance"]'), "instance")
    assert selected_from.startswith('\\"global\\"}"')
    expect(group.locator('a.pos[data-field="instance"]')).to_have_text("line 7, column 29")


def test_htmx_swaps_only_the_result_and_pasted_markup_stays_text(page: Page):
    page.goto("/schema")
    page.evaluate("window.pwned = false")
    hostile = {"region": '<img src=x onerror="window.pwned=true">', "<script>window.pwned=true</script>": 1}
    instance = json.dumps(hostile)
    page.locator("#instance").fill(instance)
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA))
    with page.expect_response(lambda r: r.url.endswith("/schema") and r.request.method == "POST") as answer:
        page.get_by_role("button", name="Validate").click()
    assert answer.value.request.headers.get("hx-request") == "true"
    expect(page.get_by_test_id("validity")).to_have_text("invalid")
    result = page.locator("#schema-result")
    expect(result).to_contain_text('"<img src=x onerror=\\"window.pwned=true\\">"')  # shown as text
    expect(result).to_contain_text("<script>window.pwned=true</script>")
    assert page.locator("#schema-result img, #schema-result script").count() == 0
    assert page.evaluate("window.pwned") is False  # survived the swap: no page load happened
    expect(page.locator("#instance")).to_have_value(instance)


def test_format_toggle_rechecks_and_ctrl_enter_validates(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill('"not-an-email"')
    page.locator("#schema").fill('{"type": "string", "format": "email"}')
    page.locator("#schema").press("Control+Enter")
    expect(page.get_by_test_id("validity")).to_have_text("valid")
    expect(page.get_by_test_id("formats")).to_contain_text("annotation only")
    page.get_by_label("Assert format").check()
    expect(page.get_by_test_id("validity")).to_have_text("invalid")
    expect(page.get_by_test_id("formats")).to_contain_text("email")


def test_a_journal_is_checked_record_by_record_and_each_result_selects_its_place(page: Page):
    """Issue 11: Schema refused JSON Lines; now each record gets its result, linked to its line and place."""
    tool = EXAMPLES["tool"][2]
    fc_001, fc_009 = EXAMPLES["fc_001"][1], EXAMPLES["fc_009"][1]
    journal = (
        "\n".join(
            json.dumps(item)
            for item in [
                {"type": "message", "role": "user", "content": "Latest sales for APAC?"},
                fc_001,
                fc_009,
                {"type": "openai:web_search_call", "id": "ws_001", "status": "completed"},
            ]
        )
        + "\n{broken\n"
    )
    page.goto("/schema")
    page.locator("#instance").fill(journal)
    page.locator("#schema").fill(json.dumps(tool, indent=2))
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("headline")).to_have_text("2 of 5 records valid")
    expect(page.get_by_test_id("validity")).to_have_text("not replayable")
    expect(page.get_by_test_id("outcome")).to_have_text(
        ["not_function_call", "ok", "arguments_schema", "namespaced", "not JSON"]
    )
    host = page.locator('.editor-host[data-editor-for="instance"]')
    # Markers for the two records at fault (the enum error, the broken line); the line links are jumps only.
    expect(host.locator(".cm-lint-marker-error")).to_have_count(2)

    third = page.locator('[data-testid="record"][data-line="3"]')
    assert select_by_click(page, third.get_by_role("link", name="line 3", exact=True), "instance")[:2] == (3, 1)
    line, column, rest = select_by_click(page, third.locator('.record-errors a.pos[data-field="instance"]'), "instance")
    assert line == 3 and rest.startswith('\\"global\\"')  # the offending value inside fc_009's arguments string
    fifth = page.locator('[data-testid="record"][data-line="5"] a.pos[data-field="instance"]', has_text="column")
    assert select_by_click(page, fifth, "instance")[:2] == (5, 2)
    # The text is kept as pasted.
    expect(page.locator("#instance")).to_have_value(journal)


def test_carrying_an_instance_keeps_the_bare_schema_already_there(page: Page):
    # Issue 20, §3: a bare schema (no tool definition, so no kept tool) was emptied by a carried item.
    schema_text = json.dumps(REGION_SCHEMA, indent=2)
    page.goto("/schema")
    page.locator("#instance").fill('{"region": "apac"}')
    page.locator("#schema").fill(schema_text)
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("validity")).to_have_text("valid")
    kept_field(page, "schema", schema_text)
    page.goto("/format?example=fc_009")
    page.locator("#format-items .carry-schema").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")
    assert json.loads(page.locator("#schema").input_value()) == REGION_SCHEMA
    expect(page.locator(".draft-status")).to_have_text("Kept from your latest work on this page: schema.")
    # The carried fc_009 meets it: its result is asked for again, "global" is not in the enum.
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    expect(page.locator('.err-group[data-pointer="/region"]')).to_contain_text("allowed values")


def test_an_incomplete_calls_headline_says_do_not_execute(page: Page):
    page.goto("/format?example=truncated")
    page.locator("#format-items .carry-schema").click()
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")
    summary = page.get_by_test_id("summary")
    expect(summary.get_by_test_id("headline")).to_have_text("not replayable")
    expect(summary.get_by_test_id("reason")).to_have_text("status")
    expect(summary).to_contain_text("do not execute")
    expect(summary).not_to_contain_text("fix the text")


def test_a_call_without_status_points_to_the_journals_choice(page: Page):
    call = {key: value for key, value in EXAMPLES["fc_001"][1].items() if key != "status"}
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(call, indent=2))
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA))
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("status")
    note = page.get_by_test_id("statusless")
    expect(note).to_contain_text("allows a function_call without status on input items")
    note.get_by_role("link", name="Journal").click()
    expect(page).to_have_url(re.compile(r"/journal$"))


def test_a_custom_tool_call_is_checked_against_its_grammar(page: Page):
    page.goto("/schema")
    expect(page.locator("form[data-draft]")).to_have_attribute("data-arrived", "")
    call = {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "DROP TABLE t"}
    tool = {
        "type": "custom",
        "name": "sql",
        "format": {"type": "grammar", "syntax": "regex", "definition": "^SELECT .+$"},
    }
    page.locator("#instance").fill(json.dumps(call))
    page.locator("#schema").fill(json.dumps(tool))
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("headline")).to_have_text("no JSON arguments")
    expect(page.get_by_test_id("grammar")).to_have_text("a regex grammar")
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    expect(page.get_by_test_id("summary")).to_contain_text("line 1, column 1")


def test_a_bare_instances_marker_sits_on_the_refused_value_not_its_name(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill('{"region": "global"}')
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA))
    page.get_by_role("button", name="Validate").click()
    link = page.locator('.err-group[data-pointer="/region"] a.pos[data-field="instance"]')
    expect(link).to_have_text("line 1, column 12")  # "global", not the name at column 2
    assert select_by_click(page, link, "instance")[1:] == (12, '"global"}')
