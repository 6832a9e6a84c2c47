"""The sessions page in Debian's Chromium: the item an ``inspect_url`` points at is marked, turns are grouped by
response with the chain they form, and "Open the session in the Journal" carries the session to the Journal page,
which reads it as one conversation (a stateless client's replayed history once)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from support import TEST_TOKEN

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SALES = {
    "type": "function",
    "name": "get_latest_sales_report",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "required": ["region"],
        "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
    },
}


def _session(live_app, key: str) -> list[dict]:
    """Three turns of a client that sends the whole conversation each time, then one that continues the last
    response; the session's entries as /v1/sessions lists them."""
    client = live_app.test_client()
    headers = {**AUTH, "X-Session-Key": key}
    history: list = []
    last = None
    for text in ["sales now", None, "thanks"]:
        if text is not None:
            history.append({"role": "user", "content": text})
        body = {"model": "openresponses-test", "input": history, "tools": [SALES]}
        last = client.post("/v1/responses", json=body, headers=headers).get_json()
        history += last["output"]
        history += [
            {"type": "function_call_output", "call_id": item["call_id"], "output": '{"total": 1}'}
            for item in last["output"]
            if item["type"] == "function_call"
        ]
    answers = [item for item in history[len(history) - 1 :] if item["type"] == "function_call_output"]
    body = {
        "model": "openresponses-test",
        "previous_response_id": last["id"],
        "input": [*answers, {"role": "user", "content": "bye"}],
        "tools": [SALES],
    }
    client.post("/v1/responses", json=body, headers=headers)
    return client.get(f"/v1/sessions/{key}/items", headers=AUTH).get_json()["data"]


def test_the_inspect_url_target_is_marked_and_turns_show_their_chain(page: Page, live_app):
    data = _session(live_app, "browser-chain")
    target = data[3]
    page.goto("/sessions/" + target["inspect_url"].split("/sessions/", 1)[1])  # the path and #fragment
    marked = page.locator(f"[id='{target['response_id']}-{target['source']}-{target['index']}']")
    expect(marked).to_be_in_viewport()
    assert marked.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    other = page.locator(f"[id='{data[0]['response_id']}-input-0']")
    assert other.evaluate("e => getComputedStyle(e).outlineStyle") == "none"
    turns = page.locator(".session-turn")
    expect(turns).to_have_count(4)
    expect(turns.nth(0).locator(".session-chain")).to_contain_text("Starts a conversation")
    expect(turns.nth(1).locator(".session-chain")).to_contain_text("sent the whole conversation again")
    expect(turns.nth(3).locator(".session-chain")).to_contain_text("Continues")
    # the chain link goes to the turn it continues
    turns.nth(3).locator(".session-chain a").click()
    expect(page).to_have_url(re.compile(rf"#turn-{data[-1]['previous_response_id']}$"))
    # a replayed item links the one it repeats
    replay = turns.nth(1).locator(".session-item.replayed").first
    replay.locator(".session-replay a").click()
    expect(page).to_have_url(re.compile(rf"#{data[0]['response_id']}-input-0$"))


def test_open_in_journal_reads_the_session_as_one_conversation(page: Page, live_app):
    _session(live_app, "browser-journal")
    page.goto("/sessions/browser-journal")
    page.locator("#session-journal").click()
    expect(page).to_have_url(re.compile(r"/journal$"))
    summary = page.locator("#journal-summary")
    expect(summary).to_contain_text("(session")
    expect(summary).to_contain_text("replayed_items")
    expect(summary.locator("h2 .badge")).to_have_text("replayable")  # against the responses' tools, carried too
    expect(page.locator("#journal-findings")).to_have_count(0)  # no duplicate_call_id, no unknown_tool
    # the carried text is in the journal field, so the page can be sent again (and kept by the browser)
    assert '"response_id"' in page.locator("#journal-text, textarea[name=journal]").first.input_value()


def test_each_item_says_its_text_without_opening_its_json(page: Page, live_app):
    data = _session(live_app, "browser-text")
    call = next(entry for entry in data if entry["item"]["type"] == "function_call")
    page.goto("/sessions/browser-text")
    first = page.locator(f"[id='{data[0]['response_id']}-input-0']")
    expect(first.locator(".session-text")).to_have_text("sales now")
    expect(first.locator("details")).not_to_have_attribute("open", "")  # its JSON stays folded
    called = page.locator(f"[id='{call['response_id']}-{call['source']}-{call['index']}'] .session-text").first
    expect(called).to_be_visible()
    expect(called).to_have_text(f"get_latest_sales_report({call['item']['arguments']})")


def test_the_index_links_each_stored_session(page: Page, live_app):
    _session(live_app, "browser-index")
    page.goto("/sessions")
    link = page.locator("#sessions-index").get_by_role("link", name="browser-index")
    link.click()
    expect(page).to_have_url(re.compile(r"/sessions/browser-index$"))
    expect(page.locator(".session-turn")).to_have_count(4)
