"""webapp/web/forms.py: a text field's CR LF (a browser's form submission) is read back as the LF the user typed, on
every page; an uploaded file's bytes are kept as they are (issue 11: 174 pasted bytes were reported as 181); a text
field's bytes that are not UTF-8 are named where they are, never replaced in silence (issue 19, point 10)."""

from __future__ import annotations

import html
import io
import json
import re
from urllib.parse import parse_qsl, quote_from_bytes

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


# -- a text field that is not UTF-8 (issue 19, point 10) --------------------------------------------------------
# Werkzeug read a multipart field's bad byte as U+FFFD and a urlencoded one's %FF as the text "%FF", so the page
# judged something the user never sent ("valid JSON"). The byte is named now, as an upload's is, and the text kept.


def _multipart(fields: dict[str, bytes]) -> bytes:
    """A multipart/form-data body (boundary ``XX``) of text fields with these raw bytes."""
    parts = [
        b'--XX\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n' % (k.encode(), v) for k, v in fields.items()
    ]
    return b"".join(parts) + b"--XX--\r\n"


def _post(client, path: str, fields: dict[str, bytes], encoding: str, hx: bool = False):
    """POST ``fields`` (raw bytes) as a form: ``urlencoded`` with each byte that is not UTF-8 as ``%XX``, or
    ``multipart`` with the bytes themselves in the part."""
    headers = {"HX-Request": "true"} if hx else {}
    if encoding == "urlencoded":
        body = "&".join(f"{k}={quote_from_bytes(v)}" for k, v in fields.items())
        return client.post(path, data=body, content_type="application/x-www-form-urlencoded", headers=headers)
    return client.post(path, data=_multipart(fields), content_type="multipart/form-data; boundary=XX", headers=headers)


# (path, the fields, what the answer names: the byte and its offset in that field, and its line:column)
NOT_UTF8 = [
    ("/format", {"document": b'{"a":\n  "\xff"}'}, "Byte 0xFF (byte offset 9)", "line 2, column 4"),
    ("/format/download", {"document": b'{"a":\n  "\xff"}'}, "Byte 0xFF (byte offset 9)", "line 2, column 4"),
    (
        "/schema",
        {"instance": b'{"region": "\xffapac"}', "schema": b"{}"},
        "Byte 0xFF (byte offset 12)",
        "line 1, column 13",
    ),
    ("/schema", {"instance": b"{}", "schema": b'{"type":\n"\xfe"}'}, "Byte 0xFE (byte offset 10)", "line 2, column 2"),
    (
        "/schema",
        {"instance": b"{}", "schema": b"{}", "documents": b"[\xff]"},
        "Byte 0xFF (byte offset 1)",
        "line 1, column 2",
    ),
    ("/diff", {"left": b'"\xff"', "right": b"1"}, "Byte 0xFF (byte offset 1)", "line 1, column 2"),
    ("/diff", {"left": b"1", "right": b'[1,\n"\xc3"]'}, "Byte 0xC3 (byte offset 5)", "line 2, column 2"),
    ("/diff/patch", {"left": b"1", "right": b'"\xff"'}, "Byte 0xFF (byte offset 1)", "line 1, column 2"),
    ("/journal", {"journal": b'[{"type": "message", "\xff": 1}]'}, "Byte 0xFF (byte offset 22)", "line 1, column 23"),
    ("/journal", {"journal": b"[]", "tools": b'[\n"\xff"]'}, "Byte 0xFF (byte offset 3)", "line 2, column 2"),
    ("/journal/export", {"journal": b"[\xff]"}, "Byte 0xFF (byte offset 1)", "line 1, column 2"),
    ("/stream", {"stream": b'data: {"\xff"}\n\n'}, "byte 0xFF (offset 8)", "line 1, column 9"),
]


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
@pytest.mark.parametrize(("path", "fields", "byte", "place"), NOT_UTF8)
def test_a_field_that_is_not_utf8_is_named_where_its_byte_is(client, encoding, path, fields, byte, place):
    response = _post(client, path, fields, encoding)
    page = response.get_data(as_text=True)
    assert response.status_code == (400 if path.endswith(("/download", "/patch", "/export")) else 200)
    assert byte in page and place in page
    assert ">valid JSON<" not in page and "%FF" not in page
    for name, value in fields.items():  # the text box keeps what was sent, each bad byte as U+FFFD
        if name != "tools":
            assert html.escape(value.decode("utf-8", "replace"), quote=False).replace('"', "&#34;") in page


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
@pytest.mark.parametrize(
    ("path", "field"), [("/format", "format-document"), ("/journal", "journal-text"), ("/stream", "stream-text")]
)
def test_the_text_box_says_it_is_not_what_was_sent(client, encoding, path, field):
    name = {"/format": "document", "/journal": "journal", "/stream": "stream"}[path]
    page = _post(client, path, {name: b'[1,\n "\xff\xfe"]'}, encoding).get_data(as_text=True)
    note = re.search(rf'<p class="replaced-note[^>]*id="{field}-not-the-file"[^>]*>(.*?)</p>', page, re.S)
    assert note is not None and "hidden" not in note.group(0).split(">", 1)[0]
    said = re.sub(r"\s+", " ", note.group(1))
    assert "This text is not what was sent:" in said and "2 characters here are U+FFFD" in said
    assert "byte 0xFF (byte offset 6)" in said and 'data-line="2" data-column="3"' in said


def test_a_text_field_keeps_its_bytes(app):
    body = b"document=%22a%FF%0D%0Ab%22&raw=\xfe&half=%C3\xa9&match_key=id%FF"
    with app.test_request_context(
        "/format", method="POST", data=body, content_type="application/x-www-form-urlencoded"
    ):
        assert forms.source("document") == b'"a\xff\nb"'  # CR LF read as LF, the byte kept
        assert forms.text("document") == '"a\ufffd\nb"'
        assert forms.undecodable("document") == forms.Undecodable(0xFF, 2, 1, 3, 1)
        assert forms.source("raw") == b"\xfe" and forms.text("raw") == "\ufffd"  # a raw byte, not percent-encoded
        assert (
            forms.source("half") == forms.text("half") == "é" and forms.undecodable("half") is None
        )  # UTF-8 after all
        assert forms.text("match_key") == "id\ufffd"  # not the text "%FF"
        assert forms.source("missing", None) is None and forms.undecodable("missing") is None
    with app.test_request_context("/diff?left=%FF1&ignore_paths=%2FFF"):  # a GET link's query string, the same
        assert forms.source("left") == b"\xff1" and forms.text("ignore_paths") == "/FF"


@pytest.mark.parametrize(
    "body",
    [
        b"a=1&b=&c&&d=x+y%2B%20z&e=%FF%fe",
        b"document=" + b"%22" * 40_000 + b"&x=1",  # escapes across every chunk boundary
        b"document=" + b"a" * 65_535 + b"%C3%A9" + b"b" * 65_534 + b"%25" + b"%",  # one at the edge; a lone % kept
        b"=v&k=%4" + b"+" * 70_000,
    ],
)
def test_a_urlencoded_body_is_read_as_parse_qsl_reads_it(body):
    # forms reads a body a chunk at a time (a 15 MB document cost 700 MB through urllib at once): the same pairs.
    assert forms._urlencoded(body) == parse_qsl(body.decode("ascii"), keep_blank_values=True, errors="surrogateescape")
