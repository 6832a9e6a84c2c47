"""The Journal page in Debian's Chromium shows every note, repair and left-out entry ``POST /api/export`` gives for
the chosen target, and its answer in the API's words."""

from __future__ import annotations

import html
import json
from pathlib import Path

from playwright.sync_api import Page, expect

CONVERSATION = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_abc|fc_1",  # Anthropic's tool_use ids take no "|": the plan rewrites it
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
                },
                {
                    "id": "call_def",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"location": "Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc|fc_1", "content": "18C"},
        {"role": "tool", "tool_call_id": "call_def", "content": "4C"},
    ],
}
TOOLS = [
    {"type": "web_search"},  # a hosted tool: no body but OpenAI's holds it, and that is said
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
    },
]


def test_every_note_the_api_gives_is_on_the_page(page: Page):
    api = page.request.post("/api/export", data={"journal": CONVERSATION, "tools": TOOLS, "target": "anthropic"}).json()
    assert api["notes"] and api["repairs"]  # the case has both, or this test would prove nothing
    page.goto("/journal")
    page.locator("#journal-text").fill(json.dumps(CONVERSATION))
    page.locator("#journal-tools").fill(json.dumps(TOOLS))
    page.locator("#journal-target").select_option("anthropic")
    expect(page.locator("#journal-summary")).to_contain_text("to Anthropic Messages API")
    expect(page.locator("#journal-answer")).to_have_text(api["answer"])
    expect(page.locator("#journal-says")).to_contain_text(api["says"][:1].upper() + api["says"][1:])
    notes = page.locator("#journal-export-notes")
    expect(notes).to_contain_text(f"{len(api['notes'])} note")
    for note in api["notes"]:
        expect(notes).to_contain_text(note["code"])
        expect(notes).to_contain_text(html.unescape(note["message"]))
    repaired = page.locator("#journal-repaired")
    for repair in api["repairs"]:
        expect(repaired).to_contain_text(repair["code"])
        expect(repaired).to_contain_text(repair["pointer"])
    left_out = page.locator("#journal-left-out")
    for entry in api["left_out"]:
        expect(left_out).to_contain_text(entry["pointer"])


def test_a_journal_without_tools_is_cannot_tell_on_the_page(page: Page):
    page.goto("/journal")
    page.locator("#journal-text").fill(json.dumps(CONVERSATION))
    page.locator("#journal-text").press("Control+Enter")
    expect(page.locator("#journal-answer")).to_have_text("cannot tell")
    expect(page.locator("#journal-says")).to_contain_text(
        'Cannot tell until the tools are given (2 calls of tool "get_weather" not checked)'
    )
    expect(page.locator("#journal-summary")).to_contain_text("calls are not checked: paste the tools")


def test_the_repair_downloads_as_the_json_patch_the_api_gives(page: Page):
    api = page.request.post("/api/export", data={"journal": CONVERSATION, "tools": TOOLS, "target": "anthropic"}).json()
    assert any(op["op"] == "replace" for op in api["patch"])  # the call id rewritten, on the call and its output
    page.goto("/journal")
    page.locator("#journal-text").fill(json.dumps(CONVERSATION))
    page.locator("#journal-tools").fill(json.dumps(TOOLS))
    page.locator("#journal-target").select_option("anthropic")
    expect(page.locator("#journal-export-patch")).to_contain_text(f"{len(api['patch'])} operation")
    with page.expect_download() as download:
        page.locator("#journal-export-patch").click()
    assert download.value.suggested_filename == "anthropic-repair.json"
    assert json.loads(Path(download.value.path()).read_text(encoding="utf-8")) == api["patch"]
