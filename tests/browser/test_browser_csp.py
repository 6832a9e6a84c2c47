"""The pages and htmx under the Content-Security-Policy, in Debian's Chromium: each page works, htmx swaps its
partials, and the console reports no CSP violation (no inline script, style or handler anywhere)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect
from support import REPO

CALL = {
    "type": "function_call",
    "id": "fc_1",
    "name": "get_weather",
    "call_id": "call_1",
    "status": "completed",
    "arguments": '{"city":"Paris"}',
}
SCHEMA = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}


@pytest.fixture
def violations(page: Page) -> list[str]:
    """Every CSP violation the page reports: console messages and ``securitypolicyviolation`` events."""
    seen: list[str] = []
    page.on(
        "console",
        lambda message: (
            seen.append(message.text)
            if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text
            else None
        ),
    )
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error('Content Security Policy violation: ' + e.violatedDirective + ' ' + "
        "e.blockedURI + ' ' + (e.sample || '')))"
    )
    return seen


def test_the_pages_carry_the_policy_and_break_none_of_it(page: Page, violations: list[str]):
    for path in ("/", "/format", "/schema", "/diff", "/sessions/nobody"):
        answer = page.goto(path)
        assert answer is not None and "script-src 'self'" in answer.headers["content-security-policy"]
        assert page.evaluate("typeof htmx") == "object"
    assert violations == []


def test_htmx_swaps_partials_under_the_policy(page: Page, violations: list[str]):
    page.goto("/format")
    page.locator("#format-document").fill(json.dumps(CALL, indent=2))
    page.locator("#format-document").press("Control+Enter")
    expect(page.locator("#format-items article.item .type-badge")).to_have_text("function_call")
    # The lazy tree: a node's children come from POST /format/tree through htmx.
    page.goto("/schema")
    page.locator("textarea[name=instance]").fill(CALL["arguments"])
    page.locator("textarea[name=schema]").fill(json.dumps(SCHEMA))
    with page.expect_response(lambda r: r.url.endswith("/schema") and r.request.method == "POST") as answer:
        page.locator("textarea[name=schema]").press("Control+Enter")
    assert answer.value.status == 200 and answer.value.request.headers.get("hx-request") == "true"
    expect(page.get_by_test_id("reason")).to_have_text("ok")
    page.goto("/diff")
    page.locator("textarea[name=left]").fill(json.dumps(CALL))
    page.locator("textarea[name=right]").fill(json.dumps({**CALL, "status": "incomplete"}))
    with page.expect_response(lambda r: r.url.endswith("/diff") and r.request.method == "POST") as answer:
        page.locator("textarea[name=right]").press("Control+Enter")
    assert answer.value.status == 200 and answer.value.request.headers.get("hx-request") == "true"
    assert violations == []


def test_an_inline_script_would_be_blocked(page: Page, violations: list[str]):
    page.goto("/format")
    page.evaluate("""() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';
                             document.body.appendChild(s); }""")
    assert page.evaluate("window.__ran") is None
    assert any("script-src" in v for v in violations)


@pytest.mark.parametrize("how", ["type", "paste", "insert"])
def test_replacing_all_of_the_editors_text_breaks_no_policy(page: Page, violations: list[str], how: str):
    """Issue 11: Ctrl+A then a key made Chromium's contenteditable editing carry the deleted text's colour over to
    the typed text as ``<span style="color: rgb(…)">``, refused under ``style-src-attr``; the editor replaces a
    selection itself (editor/src/main.js, typeOverSelection)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/format?example=fc_001")
    content = page.locator('.editor-host[data-editor-for="format-document"] .cm-content')
    expect(content).to_contain_text('"fc_001"')
    for text in ('{"a": 1}', '{"b": [1, 2]}'):  # twice: over the example, then over what the first round left
        content.click()
        page.keyboard.press("Control+A")
        if how == "type":
            page.keyboard.type(text)
        elif how == "insert":  # text committed at once, as an input method or a dictation does
            page.keyboard.insert_text(text)
        else:
            page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
            page.keyboard.press("Control+V")
        expect(content).to_have_text(text)
        assert page.evaluate("InspectorEditor.get('format-document').getValue()") == text
    page.keyboard.press("Control+Enter")
    expect(page.locator("#format-output")).to_contain_text('"b"')
    assert violations == []


def test_the_state_modules_load_and_run_under_the_policy(page: Page, violations: list[str]):
    """Issue 17: static/state/ is ES modules (templates/base.html loads main.js as ``type="module"``): under
    ``script-src 'self'`` every one of them is fetched, as JavaScript, and runs: each page's form gets its draft
    bar, and nothing the page runs fails."""

    modules = {p.name for p in (REPO / "static" / "state").glob("*.js")}
    served: dict[str, str] = {}
    page.on(
        "response",
        lambda r: (
            served.setdefault(r.url.rsplit("/", 1)[1], r.headers.get("content-type", ""))
            if "/static/state/" in r.url
            else None
        ),
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    for path in ("/format", "/schema", "/diff", "/journal"):
        page.goto(path)
        expect(page.locator("form[data-draft] > .draft-bar")).to_have_count(1)
        expect(page.locator(".draft-status")).to_have_text("Your input is kept in this browser only.")
    assert set(served) == modules
    assert all(kind.split(";")[0].strip() == "text/javascript" for kind in served.values()), served
    assert errors == [] and violations == []
