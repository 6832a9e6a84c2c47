"""What every page promises alike: hostile pasted text is answered on the page (never a 500), and kept."""

from __future__ import annotations

import pytest

HOSTILE = [
    '{"\\ud800": "\\udfff", "k": "\\ud800x"}',  # lone surrogates in a name and in values
    '{"a": 1, "a": 2, "\\u00e9": 1, "e\\u0301": 2}',  # duplicate and look-alike names
    '{"a": 1,}',  # a trailing comma
    "[" * 5000 + "]" * 5000,  # far deeper than the nesting cap
    '"<script>window.__pwned = 1</script>"',
    # A backslash before an invisible character: a 500 on every page and /api route once (issue 19).
    '{"path": "C:\\\tmp"}',
    '["\\\u00a0"]',
]
FORMS = [
    ("/format", lambda text: {"document": text}),
    ("/schema", lambda text: {"instance": text, "schema": '{"type": "object"}'}),
    ("/diff", lambda text: {"left": text, "right": '{"a": 1}'}),
    ("/journal", lambda text: {"journal": text}),
]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize(("path", "form"), FORMS, ids=[p for p, _ in FORMS])
@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
def test_hostile_text_is_answered_on_the_page(client, path, form, text, htmx):
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(path, data=form(text), headers=headers)
    assert response.status_code == 200
    html = response.get_data(as_text=True)  # encodable: no lone surrogate reached the bytes
    assert "<script>window.__pwned" not in html  # pasted markup is text, never markup
    if not htmx:
        assert "&lt;script&gt;" in html or "script" not in text  # the form keeps what was pasted


def test_a_lone_surrogate_is_shown_as_its_escape(client):
    html = client.post("/format", data={"document": '{"\\ud800": 1}'}).get_data(as_text=True)
    assert "\\ud800" in html


def test_a_patch_with_lone_surrogates_downloads_as_json_escapes(client):
    response = client.post("/diff/patch", data={"left": '{"a": 1}', "right": '{"\\ud800": "\\udfff"}'})
    assert response.status_code == 200
    patch = response.get_json(force=True)
    assert {"op": "add", "path": "/\ud800", "value": "\udfff"} in patch


@pytest.mark.parametrize(
    ("path", "form", "field"),
    [
        ("/format/download", {"document": '"\\\t"'}, "format-document"),
        ("/diff/patch", {"left": '"\\\t"', "right": "{}"}, "diff-left"),
        ("/journal/export", {"journal": '"\\\t"'}, "journal-text"),
    ],
)
def test_a_download_of_a_text_with_a_bad_escape_is_refused_naming_the_place(client, path, form, field):
    """Issue 19: a backslash before a tab was a 500 on every route; a download says where, as its page does."""
    response = client.post(path, data=form)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert f'data-field="{field}" data-line="1" data-column="2"' in html
    assert "Invalid escape &#39;\\&#39; followed by a tab (U+0009)" in html


def test_the_tree_of_a_text_with_a_bad_escape_says_it_is_no_longer_json(client):
    response = client.post("/format/tree", data={"document": '"\\\t"', "pointer": ""})
    assert response.status_code == 200
    assert "no longer valid JSON (line 1, column 2: Invalid escape" in response.get_data(as_text=True)
