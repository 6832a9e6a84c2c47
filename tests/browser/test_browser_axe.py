"""axe-core on every page and every example, in the light and the dark colour scheme (issue 20, §3): no ``serious``
or ``critical`` violation.

axe-core comes from the Node lockfile the client tests already use (``tests/clients/package.json``, installed by
``npm ci`` into ``tests/clients/node_modules``); it is injected into each page by playwright, in a context that
bypasses the page's Content-Security-Policy only so that the injected script may run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from support import TEST_TOKEN

AXE = Path(__file__).resolve().parents[1] / "clients" / "node_modules" / "axe-core" / "axe.min.js"

#: The pages as a new user reaches them: (path, the button an example still needs pressed to show its result, or
#: None when its GET shows it). Every page's examples are the links of its ``p.examples``.
PAGES = (
    ("/", None),
    ("/format", None),
    ("/schema", None),
    ("/diff", "#diff-form button.primary"),
    ("/stream", None),
    ("/journal", None),
)

SESSION = "axe-session"


@pytest.fixture(scope="module", params=["light", "dark"])
def axe_page(browser: Browser, base_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page in a context that may run axe-core, in the light and in the dark colour scheme (app.css has both)."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `npm ci` in tests/clients (bash scripts/setup test does)")
    context = browser.new_context(base_url=base_url, bypass_csp=True, color_scheme=request.param)
    page = context.new_page()
    yield page
    context.close()


def violations(page: Page) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is: "rule-id: target, ..." each."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => v.id + " (" + v.impact + "): " + v.nodes.map(n => n.target.join(" ")).join(", "))"""
    )
    return found


def example_links(page: Page, path: str) -> list[str]:
    page.goto(path)
    return [page.url, *page.locator("p.examples a").evaluate_all("links => links.map(a => a.href)")]


@pytest.mark.parametrize(("path", "submit"), PAGES, ids=[p for p, _ in PAGES])
def test_every_page_and_example_has_no_serious_violation(axe_page: Page, path: str, submit: str | None):
    page = axe_page
    found = {}
    for url in example_links(page, path):
        page.goto(url)
        if submit and "example=" in url:
            page.locator(submit).click()
            expect(page.locator("#diff-summary")).to_be_visible()
        # The editors mount as the page opens; axe reads the page they make.
        if page.locator("textarea[data-editor]").count():
            expect(page.locator(".editor-host .cm-editor").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        if problems := violations(page):
            found[url] = problems
    assert not found, json.dumps(found, indent=2)


def test_the_sessions_page_has_no_serious_violation(axe_page: Page):
    page = axe_page
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    answer = page.request.post(
        "/v1/responses",
        headers={"Authorization": f"Bearer {TEST_TOKEN}", "X-Session-Key": SESSION},
        data={"input": "weather in Paris", "tools": [tool]},
    )
    assert answer.ok, answer.text()
    page.goto(f"/sessions/{SESSION}")
    expect(page.locator("main")).to_contain_text("get_weather")
    assert violations(page) == []
