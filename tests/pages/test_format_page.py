"""The Format page through Flask's test client: full page vs htmx partial, no-JS POST, errors keep the text,
uploads, limits, the lazy tree and the download."""

from __future__ import annotations

import html
import io
import json
import re

import pytest

from tests.conftest import TEST_TOKEN
from webapp import create_app
from webapp.core.pages import format as format_page
from webapp.web.pages import format as format_view

HX = {"HX-Request": "true"}
FC_001 = {
    "type": "function_call",
    "id": "fc_001",
    "name": "get_latest_sales_report",
    "call_id": "call_123",
    "status": "completed",
    "arguments": '{"region":"apac"}',
}
XSS = ["<script>window.__pwned=1</script>", '"><img src=x onerror="window.__pwned=2">', "</textarea><b>x</b>"]


def post(client, document, *, htmx=False, **fields):
    data = {"document": document, "action": "pretty", "indent": "2", **fields}
    return client.post("/format", data=data, headers=HX if htmx else {}, content_type="multipart/form-data")


def textarea(page: str) -> str:
    """The pasted text as the browser will show it (the HTML parser drops one newline after <textarea>)."""
    match = re.search(r'<textarea name="document"[^>]*>\n(.*?)</textarea>', page, re.S)
    assert match, "no document textarea"
    return html.unescape(match.group(1))


def output(page: str) -> str:
    match = re.search(r'<pre id="format-output"[^>]*>(.*?)</pre>', page, re.S)
    assert match, "no formatted output"
    return html.unescape(match.group(1))


def test_get_shows_the_form_with_the_agreed_field_names(client):
    page = client.get("/format").get_data(as_text=True)
    for needle in (
        'name="document"',
        'name="indent"',
        'name="action" value="pretty"',
        'value="minify"',
        'value="sort"',
        'name="file"',
        'enctype="multipart/form-data"',
        "format.css",
        "format.js",
        'data-max-bytes="20971520"',
    ):
        assert needle in page
    assert "<html" in page and "Ctrl+Enter" in page


@pytest.mark.parametrize("name", list(format_view.EXAMPLES))
def test_every_example_renders(client, name):
    response = client.get(f"/format?example={name}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'id="format-output"' in page or 'id="format-error"' in page


def test_htmx_gets_the_partial_and_a_plain_post_the_full_page(client):
    partial = post(client, json.dumps(FC_001), htmx=True)
    full = post(client, json.dumps(FC_001))
    assert partial.status_code == full.status_code == 200
    assert "HX-Request" in partial.headers.get("Vary", "")
    partial_page, full_page = partial.get_data(as_text=True), full.get_data(as_text=True)
    assert "<html" not in partial_page and 'name="document"' not in partial_page
    assert "<html" in full_page and textarea(full_page) == json.dumps(FC_001)
    for page in (partial_page, full_page):
        assert output(page) == json.dumps(FC_001, indent=2)


def test_the_item_card_shows_badges_the_gate_and_carry_forms(client):
    page = post(client, json.dumps(FC_001), htmx=True).get_data(as_text=True)
    assert 'class="badge ok type-badge" data-kind="core">function_call<' in page
    assert 'data-state="json_object"' in page
    assert 'data-reason="arguments_schema"' in page  # no schema yet: step 2 decides
    schema_form = re.search(r'<form method="post" action="/schema">(.*?)</form>', page, re.S).group(1)
    instance = re.search(r'name="instance" value="([^"]*)"', schema_form).group(1)
    assert json.loads(html.unescape(instance)) == FC_001  # the whole item (issue 11 §2), so step 2 can go on to 3
    diff_form = re.search(r'<form method="post" action="/diff">(.*?)</form>', page, re.S).group(1)
    left = re.search(r'name="left" value="([^"]*)"', diff_form).group(1)
    assert json.loads(html.unescape(left)) == FC_001


@pytest.mark.parametrize(
    ("arguments", "state"),
    [
        ({"region": "apac"}, "object"),
        ('"{\\"region\\":\\"apac\\"}"', "double_encoded"),
        ("", "empty"),
        ('{"region":"ap', "truncated"),
    ],
)
def test_arguments_states_are_shown(client, arguments, state):
    page = post(client, json.dumps({**FC_001, "arguments": arguments}), htmx=True).get_data(as_text=True)
    assert f'data-state="{state}"' in page


def test_a_namespaced_item_gets_the_extension_badge(client):
    item = {"type": "openai:web_search_call", "id": "ws_001", "status": "completed"}
    page = post(client, json.dumps(item), htmx=True).get_data(as_text=True)
    assert 'data-kind="extension"' in page and 'data-reason="namespaced"' in page


def test_a_journal_in_json_lines_is_inspected_item_by_item(client):
    journal = "\n".join(json.dumps(i) for i in [FC_001, {"type": "openai:web_search_call", "id": "w"}]) + "\n"
    page = post(client, journal, htmx=True).get_data(as_text=True)
    assert "valid JSON Lines" in page and "Journal (JSON Lines)" in page
    assert page.count('<article class="item"') == 2 and "line 2" in page


@pytest.mark.parametrize("htmx", [True, False])
def test_invalid_json_is_content_with_the_place_named_and_the_text_kept(client, htmx):
    text = '{\n  "region": "apac",\n}'
    response = post(client, text, htmx=htmx)
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'id="format-error"' in page and "trailing_comma" in page
    assert "line 2, column 19" in page and "Expecting" not in page
    if not htmx:
        assert textarea(page) == text


def test_crlf_from_a_textarea_is_fine(client):
    page = post(client, '{\r\n  "a": 1,\r\n}', htmx=True).get_data(as_text=True)
    assert "line 2, column 9" in page


@pytest.mark.parametrize("valid", [True, False])
def test_pasted_markup_renders_as_text(client, valid):
    document = json.dumps({xss: xss for xss in XSS}) if valid else json.dumps(XSS) + ","
    page = post(client, document).get_data(as_text=True)
    for xss in XSS:
        assert xss not in page  # never raw
    assert "<script>window.__pwned" not in page and "<img src=x" not in page
    assert textarea(page) == document
    if valid:
        assert json.loads(output(page)) == json.loads(document)


def test_actions_and_indents(client):
    text = '{"b": [1.10, {"d": 1e2, "c": -0}], "a": 123456789012345678901234567890}'
    assert output(post(client, text, action="minify").get_data(as_text=True)) == (
        '{"b":[1.10,{"d":1e2,"c":-0}],"a":123456789012345678901234567890}'
    )
    assert output(post(client, text, action="sort", indent="tab").get_data(as_text=True)).startswith(
        '{\n\t"a": 123456789012345678901234567890,\n\t"b": [\n\t\t1.10,\n\t\t{\n\t\t\t"c": -0,'
    )
    assert output(post(client, text, indent="4").get_data(as_text=True)).startswith('{\n    "b": [\n        1.10')


def test_unknown_action_or_indent_fall_back_to_the_defaults(client):
    page = post(client, "[1]", action="explode", indent="99").get_data(as_text=True)
    assert output(page) == "[\n  1\n]"


def test_warnings_are_listed_with_their_place(client):
    page = post(client, '{"id": 9007199254740993, "a": 1, "a": 2}', htmx=True).get_data(as_text=True)
    assert 'id="format-warnings"' in page and "big_integer" in page and "duplicate_key" in page
    assert "line 1, column 8" in page


def test_upload_wins_and_is_decoded_as_utf8_sig(client):
    data = {
        "document": "ignored",
        "action": "pretty",
        "indent": "2",
        "file": (io.BytesIO('\ufeff{"city": "Zürich"}'.encode()), "item.json"),
    }
    full = client.post("/format", data=data, content_type="multipart/form-data").get_data(as_text=True)
    assert textarea(full) == '{"city": "Zürich"}' and "bom_stripped" in full
    data["file"] = (io.BytesIO(b'{"a": 1}'), "item.json")
    partial = client.post("/format", data=data, headers=HX, content_type="multipart/form-data")
    assert 'hx-swap-oob="true"' in partial.get_data(as_text=True)  # the textarea now holds the file's text


def test_an_upload_that_is_not_utf8_is_named(client):
    data = {"file": (io.BytesIO(b'{"a": "caf\xe9"}'), "latin1.json")}
    page = client.post("/format", data=data, content_type="multipart/form-data").get_data(as_text=True)
    assert "invalid_utf8" in page and "0xE9" in page


@pytest.mark.parametrize("htmx", [False, True])
def test_the_text_box_of_an_upload_that_is_not_utf8_says_it_is_not_the_file(client, htmx):
    """Audit: the text box showed the file with U+FFFD for its byte 0xE9, and nothing said that text was not it."""
    data = {"file": (io.BytesIO(b'{"a": 1,\n "b": "caf\xe9 \xff"}'), "latin1.json")}
    page = client.post("/format", data=data, content_type="multipart/form-data", headers=HX if htmx else {}).get_data(
        as_text=True
    )
    note = re.search(r'<p class="replaced-note[^>]*id="format-document-not-the-file"[^>]*>(.*?)</p>', page, re.S)
    assert note and "hidden" not in note.group(0)
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", "", note.group(1))).split())
    assert said.startswith(
        "This text is not the file latin1.json: the file is not UTF-8, so 2 characters here are "
        "U+FFFD (\ufffd) in place of its bytes that are not UTF-8; the first, byte 0xE9 (byte "
        "offset 19), is at line 2, column 11."
    )
    assert ('hx-swap-oob="true"' in note.group(0)) is htmx  # with the textarea it replaces, out of band


def test_a_utf8_upload_and_a_paste_have_no_such_note(client):
    data = {"file": (io.BytesIO('{"a": "café"}'.encode()), "item.json")}
    uploaded = client.post("/format", data=data, content_type="multipart/form-data").get_data(as_text=True)
    pasted = post(client, '{"a": "caf\ufffd"}').get_data(as_text=True)
    for page in (uploaded, pasted, client.get("/format").get_data(as_text=True)):
        note = re.search(r'<p class="replaced-note[^>]*>(.*?)</p>', page, re.S)
        assert note and " hidden" in note.group(0) and not note.group(1).strip()


@pytest.fixture
def small_app(tmp_path):
    return create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "MAX_CONTENT_LENGTH": 2000,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )


@pytest.mark.parametrize("htmx", [True, False])
def test_a_body_over_the_limit_is_413_with_the_limit_named(small_app, htmx):
    response = post(small_app.test_client(), "[" + "1," * 2000 + "1]", htmx=htmx)
    assert response.status_code == 413
    page = response.get_data(as_text=True)
    assert "2,000 bytes" in page and 'id="format-error"' in page
    assert ("<html" in page) is not htmx


def test_the_tree_is_rendered_lazily(client):
    document = json.dumps({"a": {"b": {"c": {"d": [1, 2, 3]}}}})
    page = post(client, document, htmx=True).get_data(as_text=True)
    assert 'data-copy="/a/b/c"' in page and 'data-copy="/a/b/c/d"' not in page
    assert 'hx-post="/format/tree"' in page and 'hx-trigger="toggle once"' in page
    digest = re.search(r'data-digest="([0-9a-f]+)"', page).group(1)
    children = client.post("/format/tree", data={"document": document, "pointer": "/a/b/c", "digest": digest})
    assert children.status_code == 200
    assert 'data-copy="/a/b/c/d"' in children.get_data(as_text=True)


def test_tree_pages_through_long_arrays(client):
    document = json.dumps(list(range(250)))
    page = post(client, document, htmx=True).get_data(as_text=True)
    assert 'data-copy="/99"' in page and 'data-copy="/100"' not in page and "150 of 250 left" in page
    more = client.post("/format/tree", data={"document": document, "pointer": "", "start": "100"})
    text = more.get_data(as_text=True)
    assert 'data-copy="/100"' in text and 'data-copy="/199"' in text and "50 of 250 left" in text


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"document": "[1]", "pointer": "", "digest": "0" * 20}, "changed since it was formatted"),
        ({"document": "[1,]", "pointer": ""}, "no longer valid JSON"),
        ({"document": "[1]", "pointer": "/5"}, "Nothing at /5"),
        ({"document": "[1]", "pointer": "no-slash"}, "Nothing at no-slash"),
    ],
)
def test_tree_requests_that_cannot_be_answered_say_why(client, fields, words):
    response = client.post("/format/tree", data=fields)
    assert response.status_code == 200 and words in response.get_data(as_text=True)


def test_the_tree_is_off_beyond_the_node_limit(client):
    page = post(client, json.dumps(list(range(25_000))), htmx=True).get_data(as_text=True)
    assert "Tree view is off" in page and 'class="tree"' not in page


def test_a_long_output_is_cut_in_the_page_and_whole_in_the_download(client, monkeypatch):
    monkeypatch.setattr(format_page, "OUTPUT_SHOWN", 100)
    document = '{"n": [' + ", ".join(["1.10"] * 50) + "]}"
    page = post(client, document, htmx=True).get_data(as_text=True)
    assert 'id="format-output-cut"' in page and len(output(page)) <= 100
    download = client.post("/format/download", data={"document": document, "action": "pretty", "indent": "2"})
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert 'filename="formatted.json"' in download.headers["Content-Disposition"]
    assert download.get_data(as_text=True) == '{\n  "n": [\n' + ",\n".join(["    1.10"] * 50) + "\n  ]\n}"


def test_download_of_json_lines_minified_is_jsonl(client):
    response = client.post("/format/download", data={"document": "[1]\n[2]\n", "action": "minify"})
    assert response.mimetype == "application/jsonl" and response.get_data(as_text=True) == "[1]\n[2]\n"


def test_download_of_invalid_json_is_the_page_with_the_error(client):
    response = client.post("/format/download", data={"document": "[1,]"})
    assert response.status_code == 400 and "trailing_comma" in response.get_data(as_text=True)


def test_lone_surrogates_never_break_the_page(client):
    document = '{"\\ud800": "\\udc00", "t": "openai:\\ud800"}'
    response = post(client, document)
    assert response.status_code == 200
    assert "lone_surrogate" in response.get_data(as_text=True)
    item = json.dumps({"type": "x:\ud800", "arguments": '{"a": "\ud800"}'})  # escapes, as json.dumps writes
    assert post(client, item).status_code == 200


@pytest.mark.parametrize(
    "arguments",
    [
        '{"region":"apac"}',  # the good form: the item goes too (issue 11 §2), so step 2 can offer step 3
        {"region": "apac"},  # arguments_type: the item goes, so step 2 shows the gate's reason
        '"{\\"region\\":\\"apac\\"}"',  # double-encoded
    ],
)
def test_step_2_gets_the_whole_item_whatever_the_form_of_its_arguments(client, arguments):
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "c1",
        "name": "get_latest_sales_report",
        "status": "completed",
        "arguments": arguments,
    }
    page = client.post("/format", data={"document": json.dumps(item)}).get_data(as_text=True)
    form = page[page.index('action="/schema"') :]
    instance = html.unescape(re.search(r'name="instance" value="([^"]*)"', form).group(1))
    assert json.loads(instance) == item


def test_a_journal_shows_its_pairing_findings_linked_to_the_items(client):
    # Issue 11: a journal with an output for an incomplete call, an output matching no call and a duplicate call_id
    # showed nothing on Format, while `python -m webapp gate` reported all three.
    call = {"type": "function_call", "name": "f", "arguments": "{}"}
    journal = [
        dict(call, call_id="c1", status="incomplete"),
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
        {"type": "function_call_output", "call_id": "zz", "output": "x"},
        dict(call, call_id="c2", status="completed"),
        dict(call, call_id="c2", status="completed"),
        {"type": "function_call_output", "call_id": "c2", "output": "x"},
    ]
    page = post(client, "\n".join(json.dumps(i) for i in journal) + "\n", htmx=True).get_data(as_text=True)
    findings = re.findall(r'data-finding="([a-z_]+)">.*?<a href="#format-item-(\d+)">', page, re.S)
    assert findings == [("output_for_unfinished_call", "1"), ("orphan_output", "2"), ("duplicate_call_id", "4")]
    for index in ("1", "2", "4"):
        assert f'id="format-item-{index}"' in page
    assert "unknown_tool" not in page  # no tools in the text: every call would be unknown


def test_a_journal_with_a_finding_per_item_lists_the_first_findings_and_counts_all(client):
    # 70,000 orphan outputs made a 16.6 MB answer, one list entry per finding.
    from webapp.core.inspection import MAX_FINDINGS

    journal = [{"type": "function_call_output", "call_id": f"c{i}", "output": "x"} for i in range(3 * MAX_FINDINGS)]
    journal.append({"type": "function_call", "call_id": "d", "name": "f", "arguments": "{}", "status": "completed"})
    journal.append(dict(journal[-1]))
    page = post(client, json.dumps(journal), htmx=True).get_data(as_text=True)
    assert page.count("<li data-finding=") == MAX_FINDINGS
    cut = page[page.index('id="format-findings-cut"') :]
    cut = cut[: cut.index("</p>")]
    assert f"{3 * MAX_FINDINGS + 2:,} findings" in cut  # and one not_checked: no tools on this page
    assert f"{3 * MAX_FINDINGS:,} orphan_output" in cut and "1 duplicate_call_id" in cut and "1 not_checked" in cut
    assert 'href="/journal"' in cut


def test_the_item_counts_use_one_thousands_separator(client):
    """Audit: "57,714 items: 57714 core" — every count of the line is written the same way."""
    call = {"type": "function_call", "name": "f", "arguments": "{}", "status": "completed"}
    journal = "\n".join(json.dumps({**call, "call_id": f"call_{i}"}) for i in range(1001))
    page = post(client, journal, htmx=True).get_data(as_text=True)
    counts = re.search(r'<p class="counts">(.*?)</p>', page, re.S)
    said = " ".join(re.sub(r"<[^>]+>", "", counts.group(1)).split())
    assert said == "1,001 items: 1,001 core · gate without schema: 1,001 not checked · arguments: 1,001 json object"


def test_pretty_json_lines_download_as_text_not_as_json(client):
    # From a fresh user's audit: several pretty records were saved as formatted.json, which no JSON reader takes.
    download = client.post(
        "/format/download", data={"document": '{"a": 1}\n{"a": 2}\n', "action": "pretty", "indent": "2"}
    )
    assert download.status_code == 200 and download.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert 'filename="formatted.txt"' in download.headers["Content-Disposition"]
    assert download.data == b'{\n  "a": 1\n}\n{\n  "a": 2\n}\n'


def test_the_output_offers_the_file_of_what_it_shows(client):
    # From a fresh user's audit: Download always sent "pretty", so minified JSON Lines could not be downloaded.
    page = client.post(
        "/format",
        data={"document": '{"a": 1}\n{"a": 2}\n', "action": "minify", "indent": "2"},
        headers={"HX-Request": "true"},
    ).get_data(as_text=True)
    button = re.search(r'<button[^>]*id="format-download-shown"[^>]*>', page).group(0)
    assert 'value="minify"' in button and 'form="format-form"' in button and "/format/download" in button
    download = client.post("/format/download", data={"document": '{"a": 1}\n{"a": 2}\n', "action": "minify"})
    assert 'filename="formatted.jsonl"' in download.headers["Content-Disposition"]
    records = "\n".join(json.dumps({"n": k}) for k in range(1500)) + "\n"
    counted = client.post("/format", data={"document": records, "action": "pretty"}, headers={"HX-Request": "true"})
    assert "1,500 records" in counted.get_data(as_text=True)


def test_the_items_findings_are_about_the_target_chosen(client):
    item = '{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}'
    portable = client.post("/format", data={"document": item}, headers={"HX-Request": "true"})
    assert "provider_item" in portable.get_data(as_text=True)  # OpenAI's own type: no other target takes it
    openai = client.post("/format", data={"document": item, "target": "openai"}, headers={"HX-Request": "true"})
    assert "provider_item" not in openai.get_data(as_text=True)
    page = client.post("/format", data={"document": item, "target": "openai"}).get_data(as_text=True)
    assert '<option value="openai" selected>' in page  # the form keeps the choice


@pytest.mark.parametrize(
    ("target", "label", "words"),
    [
        ("openai", "provider item", "openai&#39;s own item, replayed to openai: it goes back as it came"),
        ("portable", "namespaced", "not portable to another Open Responses server"),
    ],
)
def test_a_providers_own_item_is_no_refusal_when_replayed_to_that_provider(client, target, label, words):
    """``openai:web_search_call`` replayed to OpenAI is kept as it came: its badges and words follow the target."""
    item = {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}
    html = post(client, json.dumps(item), htmx=True, target=target).get_data(as_text=True)
    assert f">{label}</span>" in html and words in html
    tone = "info" if target == "openai" else "bad"
    assert f'class="badge {tone} type-badge"' in html.split("openai:web_search_call</span>")[0].rsplit("<span", 1)[1]
