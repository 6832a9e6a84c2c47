"""The pages' scripts in Debian's Chromium run in the order ``templates/base.html`` lists them, the ES modules of
``static/state/`` among the deferred classic scripts: htmx, then the editor bundle (``window.InspectorEditor``,
which the state modules read as they start), then the state modules, then ``static/app.js`` and the page's own
script. Module scripts are deferred and keep their place in that list only because none of them is ``async``."""

from __future__ import annotations

from playwright.sync_api import Page, Route

SCRIPTS = {
    "htmx.min.js": "htmx",
    "editor.js": "editor",
    "state/main.js": "state",
    "app.js": "app",
    "format.js": "format",
}


def test_the_scripts_run_in_the_order_base_html_lists_them(page: Page):
    def marked(route: Route) -> None:
        name = SCRIPTS[route.request.url.split("/static/", 1)[1]]
        response = route.fetch()
        # First in the script (in a module, after the modules it imports have run: they only define functions).
        mark = f"(window.__ran = window.__ran || []).push(['{name}', typeof window.InspectorEditor]);\n"
        route.fulfill(response=response, body=mark + response.text())

    for path in SCRIPTS:
        page.route(f"**/static/{path}", marked)
    page.goto("/format")
    page.wait_for_function("document.readyState === 'complete'")
    assert page.evaluate("window.__ran") == [
        ["htmx", "undefined"],
        ["editor", "undefined"],
        ["state", "object"],
        ["app", "object"],
        ["format", "object"],
    ]
    # And they did their work: the state modules' draft bar, the editor over the text box.
    assert page.locator("#format-form > .draft-bar").count() == 1
    assert page.locator('.editor-host[data-editor-for="format-document"]').count() == 1
