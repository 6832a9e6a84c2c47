"""Work is never lost (static/state/) in Debian's Chromium: each page's input comes back after leaving it and
pressing Back, after a reload and on return, with its result; "Clear" forgets it; a share link carries small
inputs in the URL fragment only; tools pasted once in a session are offered where a schema is needed."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, Page, expect
from support.browser import kept_field

from webapp.core.examples import DIFF as DIFF_EXAMPLES
from webapp.web.pages.schema import EXAMPLES

_, FC_009, REGION_SCHEMA = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]  # the tool definition of get_latest_sales_report
_, FC_001, WS_001 = DIFF_EXAMPLES["namespaced"]


def test_format_input_and_result_come_back_after_another_step_and_back(page: Page):
    page.goto("/format")
    text = json.dumps(FC_009, indent=2)
    page.locator("#format-document").fill(text)
    page.locator("#format-pretty").click()
    expect(page.locator("#format-items .type-badge")).to_have_text("function_call")
    kept_field(page, "document", text)
    page.get_by_role("link", name=re.compile("JSON Schema")).click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    page.go_back()
    expect(page.locator("#format-document")).to_have_value(text)
    expect(page.locator("#format-items .type-badge")).to_have_text("function_call")
    page.reload()
    expect(page.locator("#format-document")).to_have_value(text)
    expect(page.locator("#format-items .type-badge")).to_have_text("function_call")
    expect(page.locator(".draft-status")).to_contain_text("kept in this browser")


def test_diff_options_and_sides_survive_a_reload_and_clear_forgets_them(page: Page):
    page.goto("/diff")
    page.locator("#diff-left").fill(json.dumps(FC_001))
    page.locator("#diff-right").fill(json.dumps(WS_001))
    page.get_by_label("Ignore array order").check()
    page.locator('input[name="ignore_paths"]').fill("/id")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("#diff-blockers")).to_contain_text("Do not replay")
    kept_field(page, "ignore_paths", "/id")
    page.reload()
    expect(page.locator("#diff-left")).to_have_value(json.dumps(FC_001))
    expect(page.locator("#diff-right")).to_have_value(json.dumps(WS_001))
    expect(page.get_by_label("Ignore array order")).to_be_checked()
    expect(page.locator('input[name="ignore_paths"]')).to_have_value("/id")
    expect(page.locator("#diff-blockers")).to_contain_text("Do not replay")  # compared again on arrival
    page.get_by_role("button", name="Clear").click()
    expect(page.locator("#diff-left")).to_have_value("")
    expect(page.locator("#diff-blockers")).to_have_count(0)
    page.reload()
    expect(page.locator("#diff-form")).to_have_attribute("data-arrived", "")  # a kept draft would be back now
    expect(page.locator("#diff-left")).to_have_value("")
    expect(page.get_by_label("Ignore array order")).not_to_be_checked()


def test_a_page_the_server_fills_keeps_its_content_over_an_older_draft(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill('{"region": "emea"}')
    kept_field(page, "instance", '{"region": "emea"}')
    page.goto("/schema?example=fc_009")  # an example (or a carried item) wins over the draft
    assert json.loads(page.locator("#instance").input_value()) == FC_009
    kept_field(page, "instance", page.locator("#instance").input_value())  # written before leaving (IndexedDB is async)
    page.goto("/schema")  # an empty page gets the latest draft: the example, as left
    expect(page.locator("#instance")).to_have_value(re.compile("fc_009"))


def test_the_share_link_holds_the_input_in_its_fragment_only(page: Page, browser: Browser, base_url: str):
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_009))
    page.locator("#schema").fill(json.dumps(REGION_SCHEMA))
    page.get_by_role("button", name="Share link").click()
    link = page.locator(".share-url")
    expect(link).to_be_visible()
    url = link.input_value()
    assert url.startswith(base_url + "/schema#input=")
    # Another browser with nothing kept: the link alone brings the input and its result.
    other = browser.new_context(base_url=base_url)
    fresh = other.new_page()
    sent: list[str] = []
    fresh.on("request", lambda r: sent.append(r.url + " " + (r.post_data or "")[:0]))
    fresh.goto(url)
    expect(fresh.get_by_test_id("reason")).to_have_text("arguments_schema")
    assert json.loads(fresh.locator("#instance").input_value()) == FC_009
    assert not any("input=" in s for s in sent)  # the fragment never went out
    assert "#" not in fresh.url  # dropped once read: a reload shows the kept input, not the link's
    other.close()


def test_a_share_link_refuses_an_input_too_large_for_a_link(page: Page):
    page.goto("/format")
    # Random hex does not compress below the limit.
    page.evaluate("""() => { let t = ""; for (let i = 0; i < 4000; i++) t += Math.random().toString(16).slice(2);
        InspectorEditor.get("format-document").setValue(JSON.stringify(t)); }""")
    page.get_by_role("button", name="Share link").click()
    expect(page.locator(".draft-status")).to_contain_text(re.compile(r"Too large for a link: [\d,]+ characters"))
    expect(page.locator(".share-url")).to_be_hidden()


def test_a_tool_pasted_once_is_offered_on_the_schema_page(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_009))
    page.locator("#schema").fill(json.dumps(TOOL))
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    # Later in the session: another call, the schema field empty; the tool is offered, one click fills it.
    page.get_by_role("button", name="Clear").click()
    page.locator("#instance").fill(json.dumps(FC_009["arguments"] and json.loads(FC_009["arguments"])))
    bar = page.locator('.tools-bar[data-for="schema"]')
    bar.get_by_role("button", name="get_latest_sales_report").click()
    assert json.loads(page.locator("#schema").input_value()) == TOOL
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")


def test_a_kept_tool_put_over_typed_schema_text_offers_it_back(page: Page):
    """Audit: the tools bar's button replaced the typed schema with no Undo button (only Ctrl+Z)."""
    page.goto("/schema?example=tool")  # the tool definition, met once in this session
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    # The tool is learnt by its own request (POST /api/tools) beside the result: wait until it is kept.
    page.wait_for_function("name => (localStorage.getItem('inspector:tools') || '').includes(name)", arg=TOOL["name"])
    page.get_by_role("button", name="Clear").click()
    typed = '{"type": "object", "required": ["mine"]}'
    page.locator("#schema").fill(typed)
    kept_field(page, "schema", typed)
    page.locator('.tools-bar[data-for="schema"]').get_by_role("button", name="get_latest_sales_report").click()
    assert json.loads(page.locator("#schema").input_value()) == TOOL
    undo = page.get_by_role("button", name="Undo: bring back your previous text")
    expect(undo).to_be_visible()
    page.reload()  # the offer is kept with the page, as an example's is
    assert json.loads(page.locator("#schema").input_value()) == TOOL
    expect(undo).to_be_visible()
    undo.click()
    expect(page.locator("#schema")).to_have_value(typed)
    expect(undo).to_have_count(0)


def test_an_empty_schema_is_filled_with_the_session_tool_the_call_names(page: Page):
    page.goto("/schema?example=tool")  # the tool definition, met once in this session
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    # The tool is learnt by its own request (POST /api/tools) beside the result: wait until it is kept.
    page.wait_for_function("name => (localStorage.getItem('inspector:tools') || '').includes(name)", arg=TOOL["name"])
    page.get_by_role("button", name="Clear").click()
    page.locator("#instance").fill(json.dumps(FC_009))
    kept_field(page, "instance", json.dumps(FC_009))
    page.reload()  # on arrival the schema field is empty and the call names a known tool
    expect(page.locator(".draft-status")).to_contain_text("get_latest_sales_report is filled in")
    assert json.loads(page.locator("#schema").input_value()) == TOOL


def test_the_server_decides_what_is_a_tool_and_a_journals_tools_are_offered_on_the_next_steps(page: Page):
    """Issue 11: state.js no longer re-spells tool_shape; POST /api/tools answers what the fields define."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/tools") else None)
    chat_call = {"id": "c1", "type": "function", "function": {"name": "not_a_tool", "arguments": "{}"}}
    body = {"model": "m", "tools": [TOOL], "input": [chat_call]}  # a request body pasted in step 1
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(body))
    page.locator("#format-pretty").click()
    expect(page.locator("#format-output")).to_be_visible()
    # Kept for the session (in this browser only), once the server has answered.
    page.wait_for_function("""() => "get_latest_sales_report" in JSON.parse(
        localStorage.getItem("inspector:tools") || "{}")""")
    assert list(json.loads(page.evaluate('localStorage.getItem("inspector:tools")'))) == [
        "get_latest_sales_report"
    ]  # the Chat Completions call is no tool
    page.goto("/diff")
    bar = page.locator('.tools-bar[data-for="diff-schema"]')
    expect(bar.locator("button[data-tool]")).to_have_text(["get_latest_sales_report"])
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_009))
    page.locator('.tools-bar[data-for="schema"]').get_by_role("button", name="get_latest_sales_report").click()
    assert json.loads(page.locator("#schema").input_value()) == TOOL
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("reason")).to_have_text("arguments_schema")
    assert asked  # the server was asked


def test_a_new_history_entry_drops_the_oldest_entrys_drafts_on_every_page(page: Page):
    """Only the last 30 history entries keep their drafts (static/state/entries.js), so a long day of pages does
    not fill the disk. The oldest entry's drafts were asked to go under a key without the page's path, which no
    draft has ("entry:<id>:<path>"): none ever went."""
    page.goto("/format")
    # Thirty entries seen before this one; the oldest kept drafts on two pages, the next one on one.
    page.evaluate(
        """() => new Promise((done) => {
        localStorage.setItem("inspector:entries", JSON.stringify(Array.from({length: 30}, (_, i) => "old" + i)));
        const r = indexedDB.open("inspector", 1);
        r.onupgradeneeded = () => r.result.createObjectStore("drafts");
        r.onsuccess = () => { const tx = r.result.transaction("drafts", "readwrite");
          for (const key of ["entry:old0:/format", "entry:old0:/schema", "entry:old1:/format"]) {
            tx.objectStore("drafts").put({fields: {document: key}, saved: 1}, key); }
          tx.oncomplete = () => { r.result.close(); done(); }; }; })"""
    )
    page.goto("/schema")  # a new history entry: the 31st
    # The entries' drafts left, once the oldest one's are gone (looked at until then, for at most 10 s: a promise
    # is awaited by evaluate, never by wait_for_function).
    left = page.evaluate(
        """() => new Promise((done) => { const until = Date.now() + 10000; const look = () => {
        const r = indexedDB.open("inspector", 1);
        r.onsuccess = () => { const g = r.result.transaction("drafts", "readonly").objectStore("drafts").getAllKeys();
          g.onsuccess = () => { r.result.close(); const left = g.result.filter((k) => k.startsWith("entry:old"));
            if (left.some((k) => k.startsWith("entry:old0:")) && Date.now() < until) setTimeout(look, 50);
            else done(left); }; }; };
        look(); })"""
    )
    assert left == ["entry:old1:/format"]
    assert json.loads(page.evaluate('localStorage.getItem("inspector:entries")'))[:2] == ["old1", "old2"]


def test_the_input_is_back_line_goes_once_new_input_replaces_it(page: Page):
    # Issue 20, §3: "your input is back, kept since …" stayed under text that was no longer that input.
    page.goto("/format")
    page.locator("#format-document").fill('{"a": 1}')
    kept_field(page, "document", '{"a": 1}')
    page.reload()
    status = page.locator(".draft-status")
    expect(status).to_contain_text("Your input is back, kept in this browser since")
    page.locator("#format-document").fill('{"b": 2}')
    expect(status).to_have_text("Your input is kept in this browser only.")


def test_after_clear_the_status_says_what_is_true_when_new_input_comes(page: Page):
    page.goto("/format")
    status = page.locator(".draft-status")
    page.locator("#format-document").fill('{"a": 1}')
    kept_field(page, "document", '{"a": 1}')
    page.locator(".draft-clear").click()
    expect(status).to_have_text("Cleared: nothing of this page is kept in this browser.")
    page.locator("#format-document").fill('{"b": 2}')  # typed again: it is kept once more, and the line says so
    expect(status).to_have_text("Your input is kept in this browser only.")
    page.locator("#format-pretty").click()
    expect(page.locator("#format-summary")).to_be_visible()
    kept_field(page, "document", '{"b": 2}')
    expect(status).to_have_text("Your input is kept in this browser only.")
