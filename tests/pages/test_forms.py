"""webapp/web/forms.py: a text field's CR LF (a browser's form submission) is read back as the LF the user typed, on
every page; an uploaded file's bytes are kept as they are (issue 11: 174 pasted bytes were reported as 181)."""

from __future__ import annotations

import io
import json
import re

import pytest

from webapp.web import forms

# The article's fc_001, indented: 174 bytes in 8 lines, which a browser sends as 181 (each line break as CR LF).
PASTED = json.dumps(
    {
        "type": "function_call",
        "id": "fc_001",
        "call_id": "call_123",
        "name": "get_latest_sales_report",
        "status": "completed",
        "arguments": '{"region":"apac"}',
    },
    indent=2,
)
SENT = PASTED.replace("\n", "\r\n")


def test_the_pasted_text_is_174_bytes_in_8_lines():
    assert len(PASTED.encode()) == 174 and PASTED.count("\n") == 7 and len(SENT.encode()) == 181


def test_a_text_field_is_read_with_the_line_breaks_typed(app):
    with app.test_request_context("/format", method="POST", data={"document": SENT, "lone": "a\rb", "empty": ""}):
        assert forms.text("document") == PASTED
        assert forms.text("lone") == "a\rb"  # not from a textarea (it holds no CR): kept
        assert forms.text("empty") == "" and forms.text("missing") == "" and forms.text("missing", None) is None
    with app.test_request_context("/diff?left=a%0D%0Ab&ignore_order=1"):  # a GET link fills the form the same way
        assert forms.text("left") == "a\nb" and forms.flag("ignore_order") and not forms.flag("hide_unchanged")


def test_flags_choices_and_uploads(app):
    data = {"only": "on", "indent": "9", "action": "minify", "file": (io.BytesIO(b'{"a":\r\n1}'), "crlf.json")}
    with app.test_request_context("/format", method="POST", data=data, content_type="multipart/form-data"):
        assert forms.flag("only") and not forms.flag("other")
        assert forms.choice("indent", ("2", "4"), "2") == "2" and forms.choice("action", ("minify",), "x") == "minify"
        assert forms.upload() == forms.Upload("crlf.json", b'{"a":\r\n1}')  # a file's bytes are the user's
    empty = {"file": (io.BytesIO(b""), "")}  # what a form without JavaScript sends when no file is chosen
    with app.test_request_context("/format", method="POST", data=empty, content_type="multipart/form-data"):
        assert forms.upload() is None


def test_format_counts_the_bytes_pasted(client):
    page = client.post("/format", data={"document": SENT}, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "174 bytes" in page and "181 bytes" not in page


# A mistake at a line's end: a string not closed there (a CR would be the stray character named, not the line break).
BROKEN = '{\n  "a": 1,\n  "b": "x\n}'


def without_ids(page: str) -> str:
    return re.sub(r'data-digest="[0-9a-f]+"', "", page)


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("/format", {"document": PASTED}),
        ("/format", {"document": BROKEN}),
        ("/schema", {"instance": BROKEN, "schema": '{\n  "type": "object"\n}'}),
        (
            "/schema",
            {"instance": PASTED, "schema": '{"type": "object",\n "properties": {"region": {"type": "integer"}}}'},
        ),
        ("/diff", {"left": PASTED, "right": BROKEN}),
        ("/diff", {"left": PASTED, "right": PASTED.replace("apac", "emea")}),
        ("/journal", {"journal": PASTED + "\n" + BROKEN}),
        (
            "/journal",
            {"journal": PASTED, "tools": '[{"type": "function",\n  "name": "get_latest_sales_report",\n  "x": {'},
        ),
    ],
)
def test_every_page_answers_a_browsers_crlf_as_what_was_pasted(client, path, fields):
    answers = [
        client.post(
            path, data={k: v.replace("\n", newline) for k, v in fields.items()}, headers={"HX-Request": "true"}
        ).get_data(as_text=True)
        for newline in ("\n", "\r\n")
    ]
    assert re.search(r"line \d+, column \d+|\d+ bytes|line=\"\d+\"|data-line", answers[0])  # it shows places
    assert without_ids(answers[1]) == without_ids(answers[0])
