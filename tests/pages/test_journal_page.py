"""The journal page with Flask's test client: the form, the partial, the export, and unreadable input."""

from __future__ import annotations

import html
import io
import json
import re

import pytest
from support import REPO, TESTS

SAMPLES = TESTS / "data" / "samples"
HX = {"HX-Request": "true"}


@pytest.mark.parametrize(
    "name, words",
    [
        ("chat-completions", "Chat Completions"),
        ("anthropic", "Anthropic"),
        ("gemini", "Gemini"),
        ("cut-off", "not replayable"),
    ],
)
def test_every_example_is_checked(client, name, words):
    page = client.get(f"/journal?example={name}")
    assert page.status_code == 200
    assert words in page.get_data(as_text=True) and 'id="journal-summary"' in page.get_data(as_text=True)


def test_the_nav_and_the_landing_page_name_the_journal(client):
    landing = client.get("/").get_data(as_text=True)
    assert 'href="/journal"' in landing and "replayable subset" in landing


def test_a_post_answers_the_partial_and_keeps_nothing_out(client):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    answer = client.post("/journal", data={"journal": text, "tools": (SAMPLES / "tools.json").read_text()}, headers=HX)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" not in body
    assert "openai:web_search_call" in body and "not replayable" in body and 'id="journal-left-out"' in body


def test_a_plain_post_is_the_whole_page_with_the_text_kept(client):
    answer = client.post("/journal", data={"journal": '[{"type": "message", "role": "user", "content": "hi"}'})
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" in body
    assert "This journal cannot be read" in body and "line 1, column" in body
    assert "[{&#34;type&#34;: &#34;message&#34;" in body  # the pasted text is back in the textarea


def test_the_export_downloads_the_replayable_subset(client):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    answer = client.post("/journal/export", data={"journal": text, "tools": (SAMPLES / "tools.json").read_text()})
    assert answer.status_code == 200 and answer.mimetype == "application/jsonl"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="replayable.jsonl"'
    items = [json.loads(line) for line in answer.get_data(as_text=True).splitlines()]
    assert len(items) == 7 and not any(":" in item["type"] or item["type"] == "reasoning" for item in items)


def test_an_upload_wins_over_the_textarea(client):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_bytes()
    answer = client.post(
        "/journal",
        data={"journal": "", "file": (io.BytesIO(text), "journal.jsonl")},
        content_type="multipart/form-data",
        headers=HX,
    )
    body = answer.get_data(as_text=True)
    assert "Checked the uploaded file <code>journal.jsonl</code>" in body and "9 items" in body
    assert "it stays chosen" in body and 'id="journal-text"' not in body  # htmx: the file is not sent back


def test_without_javascript_an_upload_comes_back_as_the_journal_fields_text(client):
    """The new page's file input is empty: the file's text fills the field, so paging and the export send it."""
    text = (SAMPLES / "journal-openai-responses.jsonl").read_bytes()
    body = client.post(
        "/journal",
        data={"journal": "", "file": (io.BytesIO(b"\xef\xbb\xbf" + text), "j.jsonl")},
        content_type="multipart/form-data",
    ).get_data(as_text=True)
    assert "its text is in the journal field now" in body and "9 items" in body
    field = re.search(r'<textarea name="journal"[^>]*>\n(.*?)</textarea>', body, re.S)
    assert field and html.unescape(field.group(1)) == text.decode()


def test_without_javascript_an_upload_that_is_not_utf8_is_said_not_to_be_the_fields_text(client):
    text = b'{"type": "message", "role": "user", "content": "caf\xe9"}\n'
    body = client.post(
        "/journal", data={"journal": "", "file": (io.BytesIO(text), "j.jsonl")}, content_type="multipart/form-data"
    ).get_data(as_text=True)
    note = re.search(r'<p class="replaced-note[^>]*id="journal-text-not-the-file"[^>]*>(.*?)</p>', body, re.S)
    assert note and " hidden" not in note.group(0)
    said = " ".join(re.sub(r"<[^>]+>", "", note.group(1)).split())
    assert said.startswith("This text is not the file j.jsonl:")
    assert "0xE9 (byte offset 51), is at line 1, column 52" in said


def test_an_unreadable_export_is_a_400_page(client):
    answer = client.post("/journal/export", data={"journal": "{"})
    assert answer.status_code == 400 and "This journal cannot be read" in answer.get_data(as_text=True)


def test_an_export_with_unreadable_tools_is_the_pages_error_never_an_empty_file(client):
    """The journal reads, the pasted tools do not: the page says so (and checks without them); the export answers
    that page with a 400, as for an unreadable journal, rather than a subset judged without the tools."""
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    fields = {"journal": text, "tools": '[{"type": "function", "name": "get_weather",'}
    page = client.post("/journal", data=fields).get_data(as_text=True)
    assert 'id="journal-tools-error"' in page and "The tools cannot be read" in page
    assert 'id="journal-export" class="primary" disabled' in page
    answer = client.post("/journal/export", data=fields)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 400 and answer.mimetype == "text/html"
    assert "Content-Disposition" not in answer.headers
    assert 'id="journal-tools-error"' in body and "The tools cannot be read" in body


def test_paging_and_the_source_override(client):
    items = [{"type": "message", "role": "user", "content": f"m{i}"} for i in range(230)]
    text = "".join(json.dumps(item) + "\n" for item in items)
    body = client.post("/journal", data={"journal": text, "page": "3"}, headers=HX).get_data(as_text=True)
    assert "page 3 of 3" in body and 'id="journal-item-200"' in body and 'id="journal-item-199"' not in body
    forced = client.post("/journal", data={"journal": json.dumps(items[:2]), "from": "anthropic"}, headers=HX)
    assert "from <strong>Anthropic Messages</strong>" in forced.get_data(as_text=True)
    junk = client.post("/journal", data={"journal": text, "page": "x", "from": "cohere"}, headers=HX)
    assert "page 1 of 3" in junk.get_data(as_text=True)


@pytest.mark.parametrize("call_id", [{"a": 1}, [1], ["x"]], ids=["object", "array", "array of a string"])
def test_a_call_id_that_is_no_string_is_a_finding_not_a_500(client, call_id):
    text = "\n".join(
        json.dumps(item)
        for item in (
            {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": call_id, "output": "done"},
        )
    )
    page = client.post("/journal", data={"journal": text, "complete_statusless": "on"})
    assert page.status_code == 200 and "not replayable" in page.get_data(as_text=True)
    export = client.post("/journal/export", data={"journal": text, "complete_statusless": "on"})
    # Both items are refused: nothing is left to send, so no file is offered, and the page says why.
    assert export.status_code == 400 and "nothing is left to send" in export.get_data(as_text=True)


def test_the_export_writes_a_lone_surrogate_as_its_escape(client):
    text = '{"type": "message", "role": "user", "content": "half \\ud800 a pair"}'
    answer = client.post("/journal/export", data={"journal": text})
    assert answer.status_code == 200
    line = answer.get_data(as_text=True)
    assert "\\ud800" in line and json.loads(line)["content"] == "half \ud800 a pair"  # the same string


ANTHROPIC_TEXT = (REPO / "webapp" / "examples" / "conversations" / "anthropic-messages.json").read_text()


@pytest.mark.parametrize(
    ("target", "keys"),
    [
        ("portable", {"input", "tools"}),
        ("anthropic", {"model", "system", "messages", "tools"}),  # the request's model goes back to its provider
        ("gemini", {"systemInstruction", "contents", "tools"}),
        ("chat_completions", {"messages", "tools"}),
    ],
)
def test_the_export_downloads_the_body_the_target_accepts(client, target, keys):
    answer = client.post("/journal/export", data={"journal": ANTHROPIC_TEXT, "target": target, "format": "body"})
    assert answer.status_code == 200
    assert answer.headers["Content-Disposition"] == f'attachment; filename="{target}-body.json"'
    assert set(json.loads(answer.get_data(as_text=True))) == keys
    api = client.post("/api/export", json={"journal": ANTHROPIC_TEXT, "target": target}).get_json()
    assert json.loads(answer.get_data(as_text=True)) == api["body"]  # the page and the API give one answer


def test_the_verdict_names_its_target_and_a_stale_one_reads_as_portable(client):
    page = client.post("/journal", data={"journal": ANTHROPIC_TEXT, "target": "openai"}).get_data(as_text=True)
    assert "to <strong>OpenAI Responses API</strong>" in page and "What goes to OpenAI Responses API" in page
    assert "foreign_reasoning" in page
    stale = client.post("/journal", data={"journal": ANTHROPIC_TEXT, "target": "bedrock"}).get_data(as_text=True)
    assert "to <strong>Any Open Responses server (portable)</strong>" in stale


ODD_IDS = "\n".join(
    json.dumps(item)
    for item in (
        {"type": "message", "role": "user", "content": "weather?"},
        {
            "type": "function_call",
            "call_id": "call_abc|fc_1",
            "name": "get_weather",
            "arguments": '{"location":"Paris"}',
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "call_abc|fc_1", "output": "18"},
    )
)
WEATHER_TOOLS = json.dumps(
    [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        }
    ]
)


@pytest.mark.parametrize("target", ["anthropic", "gemini"])
def test_both_downloads_come_from_the_one_plan_for_the_target(client, target):
    fields = {"journal": ODD_IDS, "tools": WEATHER_TOOLS, "target": target}
    lines = client.post("/journal/export", data=fields)
    body = client.post("/journal/export", data={**fields, "format": "body"})
    assert lines.status_code == body.status_code == 200
    items = [json.loads(line) for line in lines.get_data(as_text=True).splitlines()]
    sent = json.loads(body.get_data(as_text=True))
    if target == "anthropic":  # the call id Anthropic refuses, renamed the same way in both (A7)
        assert items[1]["call_id"] == items[2]["call_id"] == "call_abc_fc_1"
        assert sent["messages"][1]["content"][0]["id"] == "call_abc_fc_1"
    else:  # the placeholder signature, in both (G1)
        assert items[1]["gemini:thought_signature"] == "skip_thought_signature_validator"
        assert sent["contents"][1]["parts"][0]["thoughtSignature"] == "skip_thought_signature_validator"
    page = client.post("/journal", data=fields, headers=HX).get_data(as_text=True)
    assert 'id="journal-repaired"' in page and ("call_id_changed" in page or "thought_signature_placeholder" in page)


def test_no_download_when_the_gate_offers_no_body_and_the_page_says_why(client):
    unusable = json.dumps(
        [
            {
                "type": "function",
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"x": {"$ref": "#/no"}}},
            }
        ]
    )
    answer = client.post("/journal/export", data={"journal": ODD_IDS, "tools": unusable}, headers=HX)
    assert answer.status_code == 400 and answer.mimetype == "text/html"
    page = answer.get_data(as_text=True)
    assert 'id="journal-no-body"' in page and "tool_schema_invalid" in page
