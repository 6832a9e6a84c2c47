"""What a page sends and answers, in Debian's Chromium against the app (issue 11): the bytes pasted are counted as
pasted (a browser sends each line break as CR LF), and a file chosen or dropped is read into the editor, so its
answer is as small as a paste's; without JavaScript the file is sent and its text comes back in the textarea."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from support import TESTS
from support.browser import kept

from webapp.core.examples import FORMAT

# The article's fc_001 as the Format example shows it: 174 bytes in 8 lines (181 with CR LF line breaks).
FC_001 = json.dumps(json.loads(FORMAT["fc_001"][1]), indent=2)
SAMPLES = TESTS / "data" / "samples"


def test_the_pasted_text_is_174_bytes():
    assert len(FC_001.encode()) == 174 and FC_001.count("\n") == 7


def test_the_bytes_pasted_are_the_bytes_reported(page: Page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/format")
    page.evaluate("(text) => navigator.clipboard.writeText(text)", FC_001)
    page.locator('.editor-host[data-editor-for="format-document"] .cm-content').click()
    page.keyboard.press("Control+V")
    with page.expect_request(lambda r: r.url.endswith("/format") and r.method == "POST") as sent:
        page.keyboard.press("Control+Enter")
    assert FC_001.replace("\n", "\r\n").encode() in sent.value.post_data_buffer  # the browser's CR LF
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")


def test_without_javascript_too(browser: Browser, base_url: str):
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    page = context.new_page()
    page.goto("/format")
    page.locator("#format-document").fill(FC_001)
    page.locator("#format-pretty").click()
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")
    assert page.locator("#format-document").input_value() == FC_001  # nothing pasted is lost
    context.close()


ROW = json.dumps({"id": 12345, "city": "Zürich", "temperature": 21.5, "tags": ["a", "b"]}, ensure_ascii=False)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> tuple[Path, int]:
    """A 15.6 MB document (not items: the answer is the summary, the first part of the text and the tree note)."""
    text = '{"rows": [\n' + ",\n".join([ROW] * 220_000) + "\n]}"
    path = tmp_path_factory.mktemp("upload") / "big.json"
    path.write_text(text, encoding="utf-8")
    return path, len(text.encode())


def sent_as_text(request, text: str) -> bool:
    """Whether ``request`` carried ``text`` as a field (with the browser's CR LF) and no file part (htmx leaves an
    empty file input out)."""
    body = request.post_data_buffer or b""
    return text.replace("\n", "\r\n").encode() in body and b'name="file"' not in body


@pytest.mark.slow
def test_a_15_mb_upload_is_answered_as_a_paste_is(page: Page, big_file: tuple[Path, int]):
    """Issue 11: the answer sent the whole file back into the textarea, 28.7 MB for this file (the paste: 1.4 MB).
    Now the page reads the file into the editor and sends it as the paste is sent."""
    path, size = big_file
    page.goto("/format")
    with page.expect_response(
        lambda r: r.url.endswith("/format") and r.request.method == "POST", timeout=60_000
    ) as answer:
        page.locator("#format-file").set_input_files(str(path))
    assert sent_as_text(answer.value.request, path.read_text())
    body = answer.value.body()
    upload_answer = len(body)
    assert upload_answer < 2_000_000 and b'id="format-document"' not in body  # the file is not sent back
    expect(page.locator("#format-summary")).to_contain_text(f"{size:,} bytes")
    expect(page.locator("#format-file-note")).to_have_text(f"Read big.json ({size:,} bytes) into the text box.")
    assert page.evaluate("InspectorEditor.get('format-document').getValue().length") == len(path.read_text())
    assert page.locator("#format-file").input_value() == ""
    # The same text pasted gets the same answer.
    with page.expect_response(
        lambda r: r.url.endswith("/format") and r.request.method == "POST", timeout=60_000
    ) as again:
        page.locator("#format-pretty").click()
    assert len(again.value.body()) == upload_answer


def test_a_dropped_file_is_read_into_the_editor_and_kept_as_a_draft(page: Page, tmp_path: Path):
    path = tmp_path / "crlf.json"
    path.write_bytes(b"\xef\xbb\xbf" + FC_001.replace("\n", "\r\n").encode())  # a BOM and CR LF line ends
    page.goto("/format")
    data = page.evaluate_handle(
        """(bytes) => { const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(bytes)], "crlf.json", {type: "application/json"})); return data; }""",
        list(path.read_bytes()),
    )
    with page.expect_request(lambda r: r.url.endswith("/format") and r.method == "POST") as sent:
        page.locator("#format-dropzone").dispatch_event("drop", {"dataTransfer": data})
    assert sent_as_text(sent.value, FC_001)
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")  # the 181 + 3 bytes, as a text box holds
    expect(page.locator("#format-file-note")).to_have_text(
        "Read crlf.json (184 bytes) into the text box: its byte order mark dropped, 7 CR line breaks read as LF."
    )
    page.reload()  # the kept draft (IndexedDB) has the file's text, and the result comes back with it
    expect(page.locator("#format-summary")).to_contain_text("174 bytes")
    assert page.evaluate("InspectorEditor.get('format-document').getValue()") == FC_001


def test_a_file_that_is_not_utf8_is_sent_as_it_is(page: Page, tmp_path: Path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"a": "caf\xe9"}')
    page.goto("/format")
    with page.expect_response(lambda r: r.url.endswith("/format") and r.request.method == "POST") as answer:
        page.locator("#format-file").set_input_files(str(path))
    assert b'id="format-document"' in answer.value.body()  # the server read the file and sent its text back
    expect(page.locator("#format-error")).to_contain_text("0xE9")
    expect(page.locator("#format-file-note")).to_have_text("latin1.json is not UTF-8 text: it is sent as it is.")
    assert page.evaluate("InspectorEditor.get('format-document').getValue()") == '{"a": "caf\ufffd"}'


def test_a_file_over_the_limit_is_refused_before_it_is_read(page: Page, small_server: str, tmp_path: Path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps([ROW] * 100))
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    for name in ("format", "journal"):
        page.goto(f"{small_server}/{name}")
        page.locator(f"#{name}-file").set_input_files(str(path))
        expect(page.locator(f"#{name}-error")).to_contain_text("the limit is 2,000 bytes, so it was not read or sent")
        assert page.locator(f"#{name}-file").input_value() == ""
    assert sent == []


def test_the_journal_reads_a_file_into_its_field(page: Page):
    text = (SAMPLES / "journal-openai-responses.jsonl").read_text()
    page.goto("/journal")
    page.locator("#journal-file").set_input_files(str(SAMPLES / "journal-openai-responses.jsonl"))
    expect(page.locator("#journal-file-note")).to_contain_text("Read journal-openai-responses.jsonl")
    assert page.evaluate("InspectorEditor.get('journal-text').getValue()") == text
    with page.expect_request(lambda r: r.url.endswith("/journal") and r.method == "POST") as sent:
        page.locator("#journal-check").click()
    assert sent_as_text(sent.value, text)
    expect(page.locator("#journal-summary")).to_contain_text("9 items")


def test_without_javascript_an_upload_comes_back_as_the_fields_text(browser: Browser, base_url: str):
    """The decision for forms without JavaScript: the file is sent, and its text comes back in the field (a new
    page's file input is empty), so the page can be sent again: formatted, paged, exported."""
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    page = context.new_page()
    journal = SAMPLES / "journal-openai-responses.jsonl"
    page.goto("/format")
    page.locator("#format-file").set_input_files(str(journal))
    page.locator("#format-pretty").click()
    expect(page.locator("#format-summary")).to_contain_text("valid JSON Lines")
    assert page.locator("#format-document").input_value() == journal.read_text()
    page.goto("/journal")
    page.locator("#journal-tools").fill((SAMPLES / "tools.json").read_text())
    page.locator("#journal-file").set_input_files(str(journal))
    page.locator("#journal-check").click()
    expect(page.locator("#journal-upload-note")).to_contain_text("its text is in the journal field now")
    assert page.locator("#journal-text").input_value() == journal.read_text()
    with page.expect_download() as download:
        page.locator("#journal-export").click()
    assert len(Path(download.value.path()).read_text().splitlines()) == 7
    context.close()


def test_a_file_that_is_not_utf8_is_said_not_to_be_the_text_shown(page: Page, tmp_path: Path):
    """Audit: the text box held the file's text with U+FFFD for its byte 0xE9 and a second Format said "valid JSON"
    of it, with nothing saying that text was not the file. The note by the editor says so until the text changes."""
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"a": "caf\xe9"}')
    page.goto("/format")
    with page.expect_response(lambda r: r.url.endswith("/format") and r.request.method == "POST"):
        page.locator("#format-file").set_input_files(str(path))
    expect(page.locator("#format-error")).to_contain_text("Byte 0xE9")  # the file's own verdict
    note = page.locator("#format-document-not-the-file")
    expect(note).to_be_visible()
    expect(note).to_contain_text("This text is not the file latin1.json")
    expect(note).to_contain_text("byte 0xE9 (byte offset 10), is at line 1, column 11")
    # Formatting the text box again formats the U+FFFD text: the note stays by it.
    with page.expect_response(lambda r: r.url.endswith("/format") and r.request.method == "POST"):
        page.locator("#format-pretty").click()
    expect(page.locator("#format-summary")).to_be_visible()
    expect(note).to_be_visible()
    # The text is kept in this browser and comes back after a reload: so does the note (until the text is edited).
    kept(page, lambda d: d.get("notes"))
    page.reload()
    expect(page.locator("#format-summary")).to_be_visible()
    expect(note).to_be_visible()
    expect(note).to_contain_text("byte 0xE9 (byte offset 10), is at line 1, column 11")
    expect(note.locator("a.pos")).to_have_attribute("data-line", "1")
    # An edit makes it the user's own text: the note goes (and comes back with the next such upload).
    page.locator('.editor-host[data-editor-for="format-document"] .cm-content').click()
    page.keyboard.press("End")
    page.keyboard.type(" ")
    expect(note).to_be_hidden()
    with page.expect_response(lambda r: r.url.endswith("/format") and r.request.method == "POST"):
        page.locator("#format-file").set_input_files(str(path))
    expect(note).to_be_visible()
    # Replaced by an example's text (a link) or a UTF-8 file, it goes too.
    good = tmp_path / "good.json"
    good.write_text('{"a": "café"}', encoding="utf-8")
    page.locator("#format-file").set_input_files(str(good))
    expect(page.locator("#format-file-note")).to_contain_text("Read good.json")
    expect(note).to_be_hidden()
