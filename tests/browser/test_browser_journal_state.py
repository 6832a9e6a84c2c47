"""From a fresh user's audit in Chromium (issue 11): the journal's error positions are links and markers with a
caret excerpt, its filter and page survive a reload, its tools field offers the session's tools (shared across
tabs), a carried item validates at once, an example or carried item never loses typed work, the journal carries
an item as written, the editor comes back after Clear, and the skip link reaches the main input."""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest
from playwright.sync_api import Page, expect
from support import TESTS
from support.browser import kept, select_by_click

from webapp.web.pages.schema import EXAMPLES

SAMPLES = TESTS / "data" / "samples"
_, FC_009, REGION_SCHEMA = EXAMPLES["fc_009"]
TOOL = EXAMPLES["tool"][2]  # the tool definition of get_latest_sales_report


def test_journal_errors_are_links_markers_and_caret_excerpts(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill('{\n  "a": [1, 2,\n  "b": tru\n}')
    page.locator("#journal-tools").fill('[{"type": "function",\n "name": "f", "parameters": {]}')
    page.locator("#journal-check").click()
    link = page.locator('#journal-error a.pos[data-field="journal-text"]')
    expect(link).to_have_text("line 3, column 6")
    expect(page.locator("#journal-error pre.excerpt")).to_contain_text("^")
    host = page.locator('.editor-host[data-editor-for="journal-text"]')
    expect(host.locator(".cm-lint-marker-error")).to_have_count(1)
    assert select_by_click(page, link, "journal-text")[:2] == (3, 6)
    assert "#" not in page.url
    tools = page.locator('#journal-tools-error a.pos[data-field="journal-tools"]')
    expect(tools).to_have_text("line 2, column 30")
    expect(page.locator("#journal-tools-error pre.excerpt")).to_contain_text("^")
    expect(page.locator('.editor-host[data-editor-for="journal-tools"] .cm-lint-marker-error')).to_have_count(1)
    assert select_by_click(page, tools, "journal-tools")[:2] == (2, 30)


def test_the_journal_tools_field_offers_the_session_tools(page: Page):
    page.goto("/schema")
    page.locator("#schema").fill(json.dumps(TOOL))
    page.locator("#instance").fill(json.dumps(FC_009))
    page.get_by_role("button", name=re.compile("Validate")).first.click()
    expect(page.locator("#schema-result")).not_to_be_empty()
    # The tools are learnt by their own request (POST /api/tools) beside the result: wait until they are kept.
    page.wait_for_function("name => (localStorage.getItem('inspector:tools') || '').includes(name)", arg=TOOL["name"])
    page.goto("/journal")
    bar = page.locator('.tools-bar[data-for="journal-tools"]')
    expect(bar).to_contain_text("Tools kept in this browser")
    bar.get_by_role("button", name=TOOL["name"]).click()
    assert json.loads(page.locator("#journal-tools").input_value())["name"] == TOOL["name"]


def test_only_what_blocks_stays_ticked_after_a_reload(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill((SAMPLES / "journal-openai-responses.jsonl").read_text())
    page.locator("#journal-tools").fill((SAMPLES / "tools.json").read_text())
    page.locator("#journal-check").click()
    expect(page.locator("#journal-answer")).to_have_text("not replayable")
    page.locator("#journal-only-blocking").check()
    heading = page.locator("#journal-items h2")
    expect(heading).to_contain_text("that block: 1 of")
    kept(page, lambda d: d["fields"]["only_blocking"] is True)
    page.reload()
    expect(heading).to_contain_text("that block: 1 of")
    expect(page.locator("#journal-only-blocking")).to_be_checked()


def test_the_journal_page_shown_is_kept_across_a_reload(page: Page):
    lines = [{"type": "message", "role": "user", "content": f"question {i}"} for i in range(250)]
    page.goto("/journal")
    page.locator("#journal-text").fill("".join(json.dumps(line) + "\n" for line in lines))
    page.locator("#journal-check").click()
    pager = page.locator("#journal-items .pager").first
    expect(pager).to_contain_text("page 1 of 3")
    pager.get_by_role("button", name="next →").click()
    expect(pager).to_contain_text("page 2 of 3")
    kept(page, lambda d: (d.get("submitted") or {}).get("values", {}).get("page") == "2")
    page.reload()
    expect(pager).to_contain_text("page 2 of 3")
    expect(page.locator("#journal-item-100")).to_be_visible()
    page.reload()  # the second arrival asks for the same page again
    expect(pager).to_contain_text("page 2 of 3")


def test_tools_are_shared_by_the_tabs_of_the_browser_and_forget_drops_them(page: Page):
    page.goto("/schema")
    page.locator("#schema").fill(json.dumps(TOOL))
    page.get_by_role("button", name="Validate").click()
    expect(page.locator('.tools-bar[data-for="schema"]')).to_contain_text(TOOL["name"])
    other = page.context.new_page()  # another tab of the same browser
    other.goto(page.url.split("/schema")[0] + "/journal")
    bar = other.locator('.tools-bar[data-for="journal-tools"]')
    expect(bar.get_by_role("button", name=TOOL["name"])).to_be_visible()
    bar.get_by_role("button", name="Forget").click()
    expect(bar).to_have_count(0)
    expect(page.locator('.tools-bar[data-for="schema"]')).to_have_count(0)  # the first tab follows
    other.close()


def test_forgotten_tools_stay_forgotten_over_a_restored_draft_until_submitted_again(page: Page):
    page.goto("/schema")
    page.locator("#schema").fill(json.dumps(TOOL))
    page.get_by_role("button", name="Validate").click()
    bar = page.locator('.tools-bar[data-for="schema"]')
    expect(bar).to_contain_text(TOOL["name"])
    bar.get_by_role("button", name="Forget").click()
    expect(bar).to_have_count(0)
    page.reload()  # the draft, holding the definition, comes back and its result is asked for again
    expect(page.locator("#schema")).to_have_value(re.compile(TOOL["name"]))
    expect(page.locator("#schema-result")).not_to_be_empty()
    page.goto("/journal")
    expect(page.locator('.tools-bar[data-for="journal-tools"]')).to_have_count(0)
    page.go_back()
    expect(page.locator("#schema-result")).not_to_be_empty()
    expect(bar).to_have_count(0)
    page.get_by_role("button", name="Validate").click()  # the user's own submission teaches it again
    expect(bar.get_by_role("button", name=TOOL["name"])).to_be_visible()


def test_carrying_a_known_call_to_step_2_validates_it_and_focuses_the_result(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill(json.dumps(FC_009))
    page.locator("#schema").fill(json.dumps(TOOL))
    page.get_by_role("button", name="Validate").click()
    expect(page.locator('[data-testid="validity"]')).to_have_text("invalid")
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(FC_009, indent=2))
    page.locator("#format-pretty").click()
    page.get_by_role("button", name="Validate the arguments in step 2 →").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.locator(".draft-status")).to_contain_text("is filled in")
    assert json.loads(page.locator("#schema").input_value())["name"] == TOOL["name"]
    expect(page.locator('[data-testid="validity"]')).to_have_text("invalid")  # validated with the tool
    expect(page.locator("#schema-result")).not_to_contain_text("schema needed")
    page.wait_for_function("() => document.activeElement !== document.body")
    assert page.evaluate("document.getElementById('schema-result').contains(document.activeElement)")


def test_a_journal_call_carried_with_its_tool_focuses_the_result(page: Page):
    page.goto("/journal?example=anthropic")
    row = page.locator("#journal-item-4")  # item 2 is the thinking block, kept as a reasoning item
    with page.context.expect_page() as opened:
        row.get_by_title("Check item 4 in 2 · JSON Schema against its tool").click()
    schema_page = opened.value
    expect(schema_page.locator('[data-testid="validity"]')).to_be_visible()
    schema_page.wait_for_function("() => document.activeElement !== document.body")
    assert schema_page.evaluate("document.getElementById('schema-result').contains(document.activeElement)")


def test_the_journal_carries_an_item_as_written(page: Page):
    written = (
        '{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}","status":"completed","x":1.10,"y":1e2}'
    )
    page.goto("/journal")
    page.locator("#journal-text").fill(written)
    page.locator("#journal-check").click()
    row = page.locator("#journal-item-0")
    expect(row).to_be_visible()
    for name in ("document", "instance", "left"):
        assert row.locator(f'textarea[name="{name}"]').input_value() == written
    with page.context.expect_page() as opened:
        row.get_by_title(re.compile("Open item 0 in 1")).click()
    expect(opened.value.locator("#format-document")).to_have_value(written)


@pytest.mark.parametrize(
    "path, field",
    [("/format", "format-document"), ("/schema", "instance"), ("/diff", "diff-left"), ("/journal", "journal-text")],
)
def test_without_javascript_the_skip_link_reaches_the_main_input(browser, base_url: str, path: str, field: str):
    context = browser.new_context(java_script_enabled=False, base_url=base_url)
    page = context.new_page()
    page.goto(path + "?example=fc_001" if path == "/format" else path)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the input")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator(f"#{field}")).to_be_focused()
    context.close()


def test_a_page_without_an_input_has_no_skip_link(page: Page):
    page.goto("/")
    expect(page.get_by_role("link", name="Skip to the input")).to_have_count(0)


def test_the_editor_comes_back_when_the_text_is_under_its_limit_again(page: Page):
    page.add_init_script("window.InspectorEditorConfig = {maxChars: 2000}")
    page.goto("/format")
    big = json.dumps({"items": [FC_009] * 20}, indent=2)
    assert len(big) > 2000
    page.locator('.editor-host[data-editor-for="format-document"] .cm-content').click()
    page.keyboard.insert_text(big)
    expect(page.locator(".editor-note")).to_contain_text("above 2,000 characters")
    expect(page.locator(".editor-host")).to_have_count(0)
    page.get_by_role("button", name="Clear").click()
    expect(page.locator(".editor-note")).to_have_count(0)
    expect(page.locator('.editor-host[data-editor-for="format-document"] .cm-lineNumbers')).to_be_visible()
    assert page.locator("#format-document").input_value() == ""
    # Cut down by hand in the plain textarea: the editor comes back too, with the text.
    page.locator('.editor-host[data-editor-for="format-document"] .cm-content').click()
    page.keyboard.insert_text(big)
    area = page.locator("#format-document")
    expect(area).to_be_visible()
    area.fill('{"small": true}')
    expect(page.locator(".editor-note")).to_have_count(0)
    expect(page.locator('.editor-host[data-editor-for="format-document"] .cm-content')).to_have_text('{"small": true}')


def test_an_example_does_not_cost_the_typed_text_back_and_undo_bring_it_back(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill('{"my":"work"}')
    kept(page, lambda d: d["fields"]["document"] == '{"my":"work"}')
    page.get_by_role("link", name="fc_001 (article)").click()
    expect(page.locator("#format-document")).to_have_value(re.compile('"fc_001"'))
    undo = page.get_by_role("button", name="Undo: bring back your previous text")
    undo.click()
    expect(page.locator("#format-document")).to_have_value('{"my":"work"}')
    expect(undo).to_have_count(0)
    kept(page, lambda d: d["fields"]["document"] == '{"my":"work"}')
    # The example again, then Back: that history entry's own text, also after a reload. (Left before its script
    # ran, the page opened again on the same URL would keep the entry it replaces, and its text: see entryId.)
    page.get_by_role("link", name="fc_001 (article)").click()
    expect(page.locator("#format-document")).to_have_value(re.compile('"fc_001"'))
    expect(undo).to_be_visible()
    page.go_back()
    expect(page.locator("#format-document")).to_have_value('{"my":"work"}')
    page.reload()
    expect(page.locator("#format-document")).to_have_value('{"my":"work"}')
    page.go_forward()
    expect(page.locator("#format-document")).to_have_value(re.compile('"fc_001"'))


def test_an_example_opened_again_shows_the_example_not_the_work_kept_on_the_same_url(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill('{"my":"work"}')
    page.get_by_role("link", name="fc_001 (article)").click()
    undo = page.get_by_role("button", name="Undo: bring back your previous text")
    undo.click()
    kept(page, lambda d: d["fields"]["document"] == '{"my":"work"}')
    # The page's latest work was written on this very URL: the example opened again still shows the example.
    page.get_by_role("link", name="fc_001 (article)").click()
    expect(undo).to_be_visible()  # the arrival is over: the kept work was looked at, and offered back
    expect(page.locator("#format-document")).to_have_value(re.compile('"fc_001"'))
    # and this history entry keeps the example as its own text (Forward to it later shows the example).
    kept(page, lambda d: '"fc_001"' in d["fields"]["document"], entry=True)
    undo.click()
    expect(page.locator("#format-document")).to_have_value('{"my":"work"}')


def test_text_typed_just_before_leaving_comes_back_on_back_though_its_write_was_cut_off(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill('{"my":"work"}')
    kept(page, lambda d: d["fields"]["document"] == '{"my":"work"}')
    # As when the page goes away mid-write: its entry's IndexedDB draft is missing, the synchronous backup is there.
    page.evaluate("""() => new Promise((done) => { const r = indexedDB.open("inspector", 1);
        r.onsuccess = () => { const key = "entry:" + history.state.inspectorEntry + ":" + location.pathname;
          const store = r.result.transaction("drafts", "readwrite").objectStore("drafts");
          store.get(key).onsuccess = (got) => { localStorage.setItem("draft:" + location.pathname,
            JSON.stringify(got.target.result)); store.delete(key).onsuccess = () => done(); }; }; })""")
    page.get_by_role("link", name="fc_001 (article)").click()
    expect(page.locator("#format-document")).to_have_value(re.compile('"fc_001"'))
    expect(page.get_by_role("button", name="Undo: bring back your previous text")).to_be_visible()
    page.go_back()
    expect(page.locator("#format-document")).to_have_value('{"my":"work"}')


def test_the_undo_offer_outlives_a_reload_and_back_forward(page: Page):
    # From a fresh user's audit: the example edited, then opened again (the same URL: Chromium replaces the entry),
    # then reloaded — the edited text must stay reachable.
    page.goto("/format?example=fc_001")
    document = page.locator("#format-document")
    expect(document).to_have_value(re.compile('"fc_001"'))
    document.fill('{"edited": true}')
    kept(page, lambda d: d["fields"]["document"] == '{"edited": true}')
    page.get_by_role("link", name="fc_001 (article)").click()
    undo = page.get_by_role("button", name="Undo: bring back your previous text")
    expect(undo).to_be_visible()
    expect(document).to_have_value(re.compile('"fc_001"'))
    page.reload()
    expect(undo).to_be_visible()
    page.goto("/schema")
    page.go_back()
    expect(undo).to_be_visible()
    undo.click()
    expect(document).to_have_value('{"edited": true}')
    kept(page, lambda d: d["fields"]["document"] == '{"edited": true}' and not d.get("previous"))
    page.reload()
    expect(document).to_have_value('{"edited": true}')
    expect(undo).to_have_count(0)


def test_undo_asks_for_the_previous_texts_result_again(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill("[1, 2, 3]")
    page.locator("#format-pretty").click()
    result = page.locator("#format-result")
    expect(result).to_contain_text("4 values")
    kept(page, lambda d: d.get("submitted"))
    page.get_by_role("link", name="fc_001 (article)").click()
    page.get_by_role("button", name="Undo: bring back your previous text").click()
    expect(page.locator("#format-document")).to_have_value("[1, 2, 3]")
    expect(result).to_contain_text("4 values")
    expect(result).not_to_contain_text("fc_001")
    kept(page, lambda d: d["fields"]["document"] == "[1, 2, 3]" and d.get("submitted"))
    page.reload()
    expect(result).to_contain_text("4 values")
    expect(result).not_to_contain_text("fc_001")


def test_clear_forgets_the_text_of_every_history_entry_of_the_page(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill('{"d": 4}')
    kept(page, lambda d: d["fields"]["document"] == '{"d": 4}')
    page.goto("/schema")
    page.goto("/format")
    document = page.locator("#format-document")
    expect(document).to_have_value('{"d": 4}')
    page.get_by_role("button", name="Clear").click()
    expect(document).to_have_value("")
    page.wait_for_function("""() => new Promise((done) => { const r = indexedDB.open("inspector", 1);
        r.onsuccess = () => { const g = r.result.transaction("drafts", "readonly").objectStore("drafts").getAllKeys();
          g.onsuccess = () => done(!g.result.some((k) => k.endsWith(":/format"))); }; })""")
    page.go_back()
    page.go_back()
    expect(page).to_have_url(re.compile(r"/format$"))
    expect(document).to_have_value("")
    page.goto("/format")
    expect(document).to_have_value("")


def test_a_carried_item_does_not_cost_the_target_pages_draft(page: Page):
    page.goto("/schema")
    page.locator("#instance").fill('{"region": "mine"}')
    kept(page, lambda d: d["fields"]["instance"] == '{"region": "mine"}')
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(FC_009, indent=2))
    page.locator("#format-pretty").click()
    page.get_by_role("button", name="Validate the arguments in step 2 →").click()
    expect(page).to_have_url(re.compile(r"/schema$"))
    expect(page.locator("#instance")).to_have_value(re.compile("fc_009"))
    page.get_by_role("button", name="Undo: bring back your previous text").click()
    expect(page.locator("#instance")).to_have_value('{"region": "mine"}')


def share_link(base_url: str, path: str, fields: dict) -> str:
    """The link the page's "Share link" makes of ``fields``: their JSON, deflate-raw, base64url after #input=."""
    packer = zlib.compressobj(wbits=-15)
    packed = packer.compress(json.dumps(fields, separators=(",", ":")).encode()) + packer.flush()
    return f"{base_url}{path}#input=" + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def test_a_share_link_shows_what_it_brings_and_offers_the_kept_work_back(page: Page, base_url: str):
    """Audit: a share link opened in a new tab replaced the page's kept text with no Undo, and a fresh tab then
    showed the shared text: the draft was gone. Now it is offered back, as an example's arrival offers it."""
    page.goto("/format")
    document = page.locator("#format-document")
    document.fill('{"precious":"draft"}')
    page.keyboard.press("Control+Enter")
    expect(page.locator("#format-summary")).to_be_visible()
    kept(page, lambda d: d["fields"]["document"] == '{"precious":"draft"}' and d.get("submitted"))
    context = page.context
    page.close()
    shared = context.new_page()
    shared.goto(share_link(base_url, "/format", {"document": '{"shared": 1}', "indent": "2"}))
    expect(shared.locator("#format-document")).to_have_value('{"shared": 1}')
    expect(shared.locator(".draft-status")).to_contain_text("Filled in from the link")
    undo = shared.get_by_role("button", name="Undo: bring back your previous text")
    expect(undo).to_be_visible()
    kept(shared, lambda d: d["fields"]["document"] == '{"shared": 1}' and d.get("previous"))
    # A fresh tab shows the page's latest text (the link's) and offers the draft back too.
    fresh = context.new_page()
    fresh.goto("/format")
    expect(fresh.locator("#format-document")).to_have_value('{"shared": 1}')
    expect(fresh.get_by_role("button", name="Undo: bring back your previous text")).to_be_visible()
    fresh.close()
    # The offer outlives a reload, and brings the draft back with its result.
    shared.reload()
    expect(shared.locator("#format-document")).to_have_value('{"shared": 1}')
    expect(undo).to_be_visible()
    undo.click()
    expect(shared.locator("#format-document")).to_have_value('{"precious":"draft"}')
    expect(shared.locator("#format-result")).to_contain_text("precious")
    kept(shared, lambda d: d["fields"]["document"] == '{"precious":"draft"}' and not d.get("previous"))


def test_a_share_link_followed_on_its_own_page_loads_and_a_reload_keeps_the_undo(page: Page, base_url: str):
    """Audit: with /format open, following a share link (only the hash changes) did nothing; the reload after it
    replaced the text with no Undo."""
    page.goto("/format")
    document = page.locator("#format-document")
    document.fill('{"my":"work"}')
    kept(page, lambda d: d["fields"]["document"] == '{"my":"work"}')
    page.evaluate(
        "(url) => { location.href = url; }", share_link(base_url, "/format", {"document": "[1, 2, 3]", "indent": "2"})
    )
    expect(document).to_have_value("[1, 2, 3]")
    expect(page.locator("#format-result")).to_contain_text("4 values")  # shown with the page's first action
    undo = page.get_by_role("button", name="Undo: bring back your previous text")
    expect(undo).to_be_visible()
    expect(page).to_have_url(base_url + "/format")  # read and dropped: a reload shows the kept text
    kept(page, lambda d: d["fields"]["document"] == "[1, 2, 3]" and d.get("previous"), entry=True)
    page.reload()
    expect(document).to_have_value("[1, 2, 3]")
    expect(undo).to_be_visible()
    undo.click()
    expect(document).to_have_value('{"my":"work"}')
