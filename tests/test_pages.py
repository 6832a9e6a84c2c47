"""What every page promises alike: hostile pasted text is answered on the page (never a 500), and kept."""

from __future__ import annotations

import pytest

HOSTILE = [
    '{"\\ud800": "\\udfff", "k": "\\ud800x"}',  # lone surrogates in a name and in values
    '{"a": 1, "a": 2, "\\u00e9": 1, "e\\u0301": 2}',  # duplicate and look-alike names
    '{"a": 1,}',  # a trailing comma
    "[" * 5000 + "]" * 5000,  # far deeper than the nesting cap
    '"<script>window.__pwned = 1</script>"',
]
FORMS = [
    ("/format", lambda text: {"document": text}),
    ("/schema", lambda text: {"instance": text, "schema": '{"type": "object"}'}),
    ("/diff", lambda text: {"left": text, "right": '{"a": 1}'}),
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
