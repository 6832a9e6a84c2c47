"""The code editor (static/editor.js, CodeMirror 6 built by scripts/build-editor) in Debian's Chromium: on every
page, the textarea stays the form field, positions in a result are markers that select the spot, Ctrl+Enter
submits, a text above the editor's limit gets the plain textarea (said so), a 15 MB text stays in the editor,
and without the bundle everything works on the textareas."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect
from support.browser import select_by_click

from webapp.web.pages.schema import EXAMPLES

FC_001 = EXAMPLES["fc_001"][1]
PAGES = {"/format": ["format-document"], "/schema": ["instance", "schema"], "/diff": ["diff-left", "diff-right"]}


def editor(page: Page, field: str):
    return page.locator(f'.editor-host[data-editor-for="{field}"] .cm-content')


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_has_the_editor_and_typing_reaches_the_form_field(page: Page, path: str):
    page.goto(path)
    for field in PAGES[path]:
        host = page.locator(f'.editor-host[data-editor-for="{field}"]')
        expect(host.locator(".cm-lineNumbers")).to_be_visible()
        expect(host.locator(".cm-foldGutter")).to_have_count(1)
        editor(page, field).click()
        page.keyboard.press("Control+a")
        page.keyboard.type('{"typed": [1, 2]')
        # The textarea is the form field: it holds what was typed (closing bracket typed too, not inserted).
        page.keyboard.type("}")
        expect(page.locator(f"#{field}")).to_have_value('{"typed": [1, 2]}')
        expect(page.locator(f"#{field}")).to_have_attribute("aria-hidden", "true")
    expect(page.locator("main")).to_contain_text("Ctrl+Enter")


def test_json_is_highlighted_and_brackets_match(page: Page):
    page.goto("/format")
    editor(page, "format-document").click()
    page.keyboard.type('{"a": [1, true, null]}')
    host = page.locator('.editor-host[data-editor-for="format-document"]')
    # Property names, numbers and atoms get their own classes from the highlighter.
    classes = page.evaluate("""() => { const c = document.querySelector('.editor-host').shadowRoot
        .querySelector('.cm-line'); return new Set([...c.querySelectorAll('span')].map(s => s.className)).size; }""")
    assert classes >= 3
    page.keyboard.press("End")
    expect(host.locator(".cm-matchingBracket")).to_have_count(2)


def test_ctrl_enter_in_the_editor_submits_without_a_new_line(page: Page):
    page.goto("/diff")
    for field, value in (("diff-left", {"a": 1}), ("diff-right", {"a": 2})):
        editor(page, field).click()
        page.keyboard.type(json.dumps(value))
    page.keyboard.press("Control+Enter")
    expect(page.locator("#diff-summary")).to_contain_text("1 change")
    assert page.locator("#diff-right").input_value() == '{"a": 2}'  # no line inserted by the key


def test_a_format_error_is_a_marker_and_its_position_selects_the_spot(page: Page):
    page.goto("/format")
    page.locator("#format-document").fill('{"a": 1,\n "b": [1, 2,]}')
    page.locator("#format-pretty").click()
    link = page.locator('#format-error a.pos[data-field="format-document"]')
    expect(link).to_have_text("line 2, column 12")
    host = page.locator('.editor-host[data-editor-for="format-document"]')
    expect(host.locator(".cm-lint-marker-error")).to_have_count(1)
    expect(host.locator(".cm-lintRange-error")).to_have_count(1)
    line, column, rest = select_by_click(page, link, "format-document")
    assert (line, column) == (2, 12) and rest == ",]}"  # the trailing comma
    expect(host.locator(".cm-editor")).to_have_class(re.compile("cm-focused"))
    # Fixed and formatted again: the marker goes away.
    page.locator("#format-document").fill('{"a": 1,\n "b": [1, 2]}')
    page.locator("#format-pretty").click()
    expect(page.locator("#format-output")).to_be_visible()
    expect(host.locator(".cm-lint-marker-error")).to_have_count(0)


def test_schema_and_diff_positions_select_in_their_editors(page: Page):
    page.goto("/schema?example=fc_009")
    link = page.locator('.err-group[data-pointer="/region"] a.pos[data-field="instance"]')
    assert select_by_click(page, link, "instance")[2].startswith('\\"global\\"')  # the value, in the arguments
    page.goto("/diff")
    page.locator("#diff-left").fill('{"a": 1}')
    page.locator("#diff-right").fill('{"a": 1,\n  "b": 2,\n}')
    page.get_by_role("button", name="Compare").click()
    link = page.locator('[data-side="right"] a.pos[data-field="diff-right"]')
    expect(link).to_have_text("line 2, column 9")  # the trailing comma
    expect(page.locator('.editor-host[data-editor-for="diff-right"] .cm-lint-marker-error')).to_have_count(1)
    assert select_by_click(page, link, "diff-right")[:2] == (2, 9)


def test_without_the_editor_bundle_positions_select_in_the_textarea(page: Page):
    page.route("**/static/editor.js", lambda route: route.abort())
    page.goto("/format")
    area = page.locator("#format-document")
    expect(area).to_be_visible()
    assert page.locator(".editor-host").count() == 0
    area.fill('{"a": 1,\n "b": [1, 2,]}')
    area.press("Control+Enter")
    link = page.locator('#format-error a.pos[data-field="format-document"]')
    assert select_by_click(page, link, "format-document")[2] == ",]}"


def test_above_the_editor_limit_the_page_says_so_and_uses_the_textarea(page: Page):
    page.add_init_script("window.InspectorEditorConfig = {maxChars: 2000}")
    page.goto("/format")
    big = json.dumps({"items": [FC_001] * 20}, indent=2)  # over 2,000 characters
    assert len(big) > 2000
    editor(page, "format-document").click()
    page.keyboard.insert_text(big)  # one paste
    note = page.locator(".editor-note")
    expect(note).to_contain_text("above 2,000 characters the editor would stall")
    area = page.locator("#format-document")
    expect(area).to_be_visible()
    assert page.locator(".editor-host").count() == 0
    assert area.input_value() == big  # nothing lost on the way
    area.press("Control+Enter")
    expect(page.locator("#format-output")).to_contain_text('"fc_001"')


def test_a_15_mb_document_stays_in_the_editor_and_takes_keys(page: Page):
    page.goto("/format")
    size = page.evaluate("""() => { const item = JSON.stringify({type: "function_call", id: "fc_1",
        call_id: "call_1", name: "get_latest_sales_report", status: "completed", arguments: '{"region":"apac"}'});
      const text = "[\\n" + Array(Math.ceil(15e6 / item.length)).fill(item).join(",\\n") + "\\n]";
      InspectorEditor.get("format-document").setValue(text); return text.length; }""")
    assert size >= 15_000_000
    assert page.evaluate("InspectorEditor.get('format-document').editing") is True
    assert page.locator(".editor-note").count() == 0
    editor(page, "format-document").click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" ")
    assert page.evaluate("InspectorEditor.get('format-document').getValue().length") == size + 1
    # The textarea gets the text before anything reads the form.
    assert page.evaluate("InspectorEditor.flush(), document.getElementById('format-document').value.length") == size + 1


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def test_the_editor_is_styled_and_works_under_a_strict_content_security_policy(page: Page):
    def with_csp(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})

    page.route("**/*", with_csp)
    page.add_init_script("""window.__violations = [];
        document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
          e.violatedDirective + " " + e.blockedURI + " " + (e.sourceFile || "")));""")
    page.goto("/schema?example=fc_009")
    host = page.locator('.editor-host[data-editor-for="instance"]')
    expect(host.locator(".cm-lint-marker-error")).to_have_count(1)
    # The editor's own style sheet applied (a constructed sheet in its shadow root, which style-src allows).
    assert host.locator(".cm-editor").evaluate("e => getComputedStyle(e).display") == "flex"
    assert host.locator(".cm-gutters").evaluate("e => getComputedStyle(e).position") != "static"
    # The policy is on: a <style> element, as CodeMirror would add to a document, is refused.
    assert (
        page.evaluate("""() => { const s = document.createElement("style");
        s.textContent = "main { outline: 7px solid red; }"; document.head.append(s);
        return getComputedStyle(document.querySelector("main")).outlineWidth; }""")
        != "7px"
    )
    violations = [
        v for v in page.evaluate("window.__violations") if "editor.js" in v or "/static/state/" in v or "app.js" in v
    ]
    assert violations == []
