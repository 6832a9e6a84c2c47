"""The browser tests' helpers: the page's kept draft (``static/state/``, IndexedDB) and the requests its scripts
send, read in the page itself.

Each waits for or reads a positive fact; none waits a fixed time and then asserts that nothing happened.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page

#: The page's kept draft: ``draft:<path>``, or with ``entry`` the current history entry's own
#: (``entry:<id>:<path>``), as static/state/store.js and form.js write them.
_DRAFT = """(entry) => new Promise((done) => { const r = indexedDB.open("inspector", 1);
    r.onsuccess = () => { const key = entry ? "entry:" + history.state.inspectorEntry + ":" + location.pathname
        : "draft:" + location.pathname;
      const g = r.result.transaction("drafts", "readonly").objectStore("drafts").get(key);
      g.onsuccess = () => done(g.result || null); }; })"""


def draft(page: Page, entry: bool = False) -> dict[str, Any] | None:
    """The page's kept draft (``{"fields": {name: value}, "submitted", "previous", "notes", ...}``) or None;
    ``entry``: the current history entry's own instead of the page's."""
    return page.evaluate(_DRAFT, entry)


def kept(
    page: Page, check: Callable[[dict[str, Any]], Any], entry: bool = False, timeout: float = 10.0
) -> dict[str, Any]:
    """Wait until the page's kept draft (see :func:`draft`) satisfies ``check``; answer it. IndexedDB is written
    a moment after the input changes, so the draft is read again until it does (at most ``timeout`` seconds, then
    AssertionError naming the last draft read)."""
    deadline = time.monotonic() + timeout
    while True:
        found = draft(page, entry)
        if found and check(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"the draft never matched: {found}")
        page.wait_for_timeout(50)  # a poll for the write to land, not a wait standing in for it


def kept_field(page: Page, field: str, value: Any) -> dict[str, Any]:
    """Wait until the page's kept draft holds ``value`` for ``field``."""
    return kept(page, lambda d: (d.get("fields") or {}).get(field) == value)


#: Records, in the page, each request its scripts send (XMLHttpRequest: htmx; fetch: static/state/), at the
#: moment it is sent: window.__inspectorSent, [[method, url], ...].
_RECORD = """() => { if (window.__inspectorSent) return;
  const sent = window.__inspectorSent = [];
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send, fetch = window.fetch;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__inspectorRequest = [String(method).toUpperCase(), new URL(url, location.href).href];
    return open.apply(this, arguments); };
  XMLHttpRequest.prototype.send = function () {
    sent.push(this.__inspectorRequest);
    return send.apply(this, arguments); };
  window.fetch = function (input, init) {
    const request = input instanceof Request ? input : null;
    const method = (init && init.method) || (request ? request.method : "GET");
    sent.push([String(method).toUpperCase(), new URL(request ? request.url : input, location.href).href]);
    return fetch.apply(this, arguments); }; }"""


def record_sends(page: Page) -> None:
    """Start recording the requests the page's scripts send (until it navigates): see :func:`posts`."""
    page.evaluate(_RECORD)


def posts(page: Page) -> list[str]:
    """The URLs of the POST requests the page's scripts sent since :func:`record_sends`. Read once what would
    send has run (its visible answer is there: a request is sent in the same task that decides on it), this is
    the whole list."""
    return [url for method, url in page.evaluate("window.__inspectorSent") if method == "POST"]


#: [from, to, line, column, the text from there] of the selection in a field: its editor's (line and column
#: 1-based, as the server counts), else its plain textarea's (no line and column).
_SELECTION = """(id) => { const handle = window.InspectorEditor && InspectorEditor.get(id);
  if (handle && handle.editing) { const s = handle.view.state, r = s.selection.main, line = s.doc.lineAt(r.from);
    return [r.from, r.to, line.number, r.from - line.from + 1, s.sliceDoc(r.from)]; }
  const area = document.getElementById(id);
  return [area.selectionStart, area.selectionEnd, null, null, area.value.slice(area.selectionStart)]; }"""


def select_by_click(page: Page, link: Locator, field: str) -> tuple[int | None, int | None, str]:
    """Click ``link`` (a position into ``field``: static/app.js selects it) and answer the selection it made as
    (line, column, the text from there); line and column are None in a plain textarea. Waits until the selection
    has moved, as the click's handler may run after the click returns; so the link must lead elsewhere than the
    selection is."""
    before = page.evaluate(_SELECTION, field)
    link.click()
    page.wait_for_function(
        f"([id, from, to]) => {{ const now = ({_SELECTION})(id); return now[0] !== from || now[1] !== to; }}",
        arg=[field, before[0], before[1]],
    )
    _, _, line, column, rest = page.evaluate(_SELECTION, field)
    return line, column, rest
