"""The JSON Diff page through Flask's test client: full page vs htmx partial, no-JS POST, error panels that keep
the pasted texts, bounded HTML for big journals, the JSON Patch download."""

from __future__ import annotations

import json

import jsonpatch
import pytest
from markupsafe import escape
from support import REPO

from webapp.core.examples import DIFF as EXAMPLES
from webapp.core.pages import diff as diff_page
from webapp.web.pages import diff as diff_view

_, FC_001, WS_001 = EXAMPLES["namespaced"]
HX = {"HX-Request": "true"}


def esc(text: str) -> str:
    """``text`` as Jinja's autoescape writes it."""
    return str(escape(text))


def text_of(response) -> str:
    return response.get_data(as_text=True)


def form(left, right=None, **options) -> dict:
    data = {"left": left if isinstance(left, str) else json.dumps(left, indent=2)}
    if right is not None:
        data["right"] = right if isinstance(right, str) else json.dumps(right, indent=2)
    data.update(options)
    return data


def test_get_shows_the_empty_form(client):
    response = client.get("/diff")
    body = text_of(response)
    assert response.status_code == 200
    assert 'name="left"' in body and 'name="right"' in body and 'name="ignore_paths"' in body
    assert "diff.css" in body and "diff.js" in body
    assert 'id="diff-summary"' not in body


def test_no_js_post_gets_the_full_page_with_the_blockers(client):
    response = client.post("/diff", data=form(FC_001, WS_001))
    body = text_of(response)
    assert response.status_code == 200 and "<html" in body
    assert 'data-blocker="namespaced"' in body and 'data-blocker="call_id"' in body
    assert esc('"openai:web_search_call"') in body  # the textarea keeps the right text


def test_the_form_posts_multipart(client):
    page = text_of(client.get("/diff"))
    assert 'enctype="multipart/form-data"' in page and 'hx-encoding="multipart/form-data"' in page
    response = client.post("/diff", data=form(FC_001, WS_001), content_type="multipart/form-data", headers=HX)
    assert 'data-blocker="namespaced"' in text_of(response)


def test_htmx_post_gets_the_partial(client):
    response = client.post("/diff", data=form(FC_001, WS_001), headers=HX)
    body = text_of(response)
    assert response.status_code == 200
    assert "<html" not in body and 'name="left"' not in body
    assert 'data-blocker="namespaced"' in body and 'id="diff-changes"' in body
    assert "HX-Request" in response.headers.get("Vary", "")


@pytest.mark.parametrize("headers", [{}, HX], ids=["no-js", "htmx"])
def test_invalid_json_is_an_error_panel_and_the_texts_are_kept(client, headers):
    left, right = '{"a": 1,}', "[1, 2"
    response = client.post("/diff", data=form(left, right), headers=headers)
    body = text_of(response)
    assert response.status_code == 200
    assert "Left: not valid JSON" in body and "line 1, column 8" in body and "trailing_comma" in body
    assert "Right: not valid JSON" in body and "truncated" in body
    assert 'id="diff-summary"' not in body
    if not headers:  # the full page refills both textareas
        assert esc(left) in body and esc(right) in body


def test_one_bad_side_is_named_and_the_other_is_not(client):
    body = text_of(client.post("/diff", data=form(FC_001, "{'a': 1}")))
    assert "Right: not valid JSON" in body and "Left: not valid JSON" not in body
    assert "single_quote" in body


def test_only_left_opens_the_page_with_it_filled_in(client):
    left = json.dumps(FC_001, indent=2)
    response = client.post("/diff", data={"left": left})
    body = text_of(response)
    assert response.status_code == 200
    assert esc(left) in body and "Paste the item about to be replayed" in body
    assert "not valid JSON" not in body


def test_same_call_shows_no_change_in_arguments(client):
    body = text_of(client.get("/diff?example=same-call"))
    assert 'data-pointer="/id"' in body and 'data-pointer="/arguments"' not in body
    assert "Same content, different text" in body and "no replay blocker" in body


def test_arguments_change_shows_the_inner_pointer_and_raw_strings(client):
    right = dict(FC_001, arguments='{"region":"global"}')
    body = text_of(client.post("/diff", data=form(FC_001, right), headers=HX))
    assert 'data-pointer="/arguments"' in body and '<code class="ptr">/region</code>' in body
    assert "Raw strings" in body and esc(right["arguments"]) in body


@pytest.mark.parametrize("payload", ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'])
def test_values_are_rendered_as_text(client, payload):
    body = text_of(client.post("/diff", data=form({"note": "safe"}, {"note": payload, payload: 1}), headers=HX))
    assert "<script>alert" not in body and "<img src=x" not in body
    assert esc(json.dumps(payload)) in body  # the changed value, as JSON text


def test_long_strings_are_shown_in_full(client):
    long = "word " * 2000
    body = text_of(client.post("/diff", data=form({"note": long + "a"}, {"note": long + "b"}), headers=HX))
    assert long.strip() in body and "<del>a</del>" in body and "<ins>b</ins>" in body


def test_options_are_applied_and_kept(client):
    left = [{"type": "message", "id": "a", "created_at": 1, "content": "x"}]
    right = [{"type": "message", "id": "b", "created_at": 2, "content": "x"}]
    response = client.post(
        "/diff", data=form(left, right, ignore_paths="/*/id, /*/created_at", ignore_order="on", hide_unchanged="on")
    )
    body = text_of(response)
    assert "no changes" in body and "2 values skipped" in body
    assert 'value="/*/id, /*/created_at"' in body
    assert 'name="ignore_order" checked' in body and 'name="hide_unchanged" checked' in body


def test_a_bad_option_is_named(client):
    body = text_of(client.post("/diff", data=form({}, {}, ignore_paths="created_at"), headers=HX))
    assert "Option <code>ignore_paths</code>" in body and "must be a JSON Pointer" in body


def test_hide_unchanged_collapses_the_side_by_side_view(client):
    left = {"keep": list(range(30)), "v": 1}
    right = {"keep": list(range(30)), "v": 2}
    shown = text_of(client.post("/diff", data=form(left, right), headers=HX))
    hidden = text_of(client.post("/diff", data=form(left, right, hide_unchanged="on"), headers=HX))
    assert "unchanged line" not in shown and "⋯ 31 unchanged lines" in hidden


def test_big_journal_html_is_bounded_and_the_patch_has_everything(client, monkeypatch):
    monkeypatch.setattr(diff_page, "MAX_CHANGES", 20)
    left = [{"id": f"m{k}", "v": k} for k in range(500)]
    right = [{"id": "new", "v": -1}] + [{"id": f"m{k}", "v": k + (k % 5 == 0)} for k in range(500)]
    body = text_of(client.post("/diff", data=form(left, right), headers=HX))
    assert body.count('<li class="change') == 20
    assert "81 more changes" in body  # 1 insert + 100 edits, 20 shown
    response = client.post("/diff/patch", data=form(left, right))
    patch = json.loads(response.data)
    assert len(patch) == 101 and jsonpatch.apply_patch(left, patch) == right


def test_patch_download(client):
    response = client.post("/diff/patch", data=form(FC_001, WS_001))
    assert response.status_code == 200
    assert response.mimetype == "application/json-patch+json"
    assert "attachment" in response.headers["Content-Disposition"]
    assert jsonpatch.apply_patch(FC_001, json.loads(response.data)) == WS_001


def test_patch_download_with_a_bad_side_answers_the_page(client):
    response = client.post("/diff/patch", data=form(FC_001, "{"))
    assert response.status_code == 400 and "Right: not valid JSON" in text_of(response)


@pytest.mark.parametrize("name", sorted(diff_view.EXAMPLES))
def test_examples_render(client, name):
    response = client.get(f"/diff?example={name}")
    assert response.status_code == 200 and 'id="diff-summary"' in text_of(response)


def test_parse_warnings_are_shown_beside_the_result(client):
    body = text_of(client.post("/diff", data=form('{"a": 1, "a": 2}', '{"a": 2}'), headers=HX))
    assert "Left: warnings" in body and "duplicate_key" in body and "no changes" in body


def test_too_deep_input_is_refused_with_the_limit(client):
    deep = "[" * 150 + "]" * 150
    body = text_of(client.post("/diff", data=form(deep, "[]"), headers=HX))
    assert "Left: not valid JSON" in body and "too_deep" in body


def test_numbers_are_shown_as_written_and_equal_spellings_are_said_to_be_one_number(client):
    # Issue 11: {"a": 1e2} vs {"a": 100} showed "100.0" and "type changed number → integer".
    body = text_of(
        client.post("/diff", data=form('{"a": 1e2, "b": 1.0, "c": 2.50}', '{"a": 100, "b": 1, "c": 3}'), headers=HX)
    )
    assert "type changed" not in body and "type_changed" not in body
    assert "100.0" not in body
    assert '<pre class="val old">2.50</pre>' in body  # the changed number as written, not 2.5
    same = body[body.index('id="diff-same-numbers"') :]
    same = same[: same.index("</p>")]
    assert "2 numbers are written differently but the same number" in same
    assert "<code>1e2</code> = <code>100</code>" in same and "<code>1.0</code> = <code>1</code>" in same


def test_a_match_key_no_item_has_is_named_on_the_page(client):
    body = text_of(
        client.post("/diff", data=form([{"id": 1, "x": "a"}], [{"id": 1, "x": "b"}], match_key="/bad/ptr"), headers=HX)
    )
    assert "no array item has &#39;/bad/ptr&#39; (match items by)" in body


def test_a_gemini_part_against_its_open_responses_item_says_missing_not_null(client):
    """Issue 11: the Gemini sample's blocker said "type changed ... to null" where it has no type at all."""

    samples = REPO / "webapp" / "examples" / "conversations"
    gemini = (samples / "gemini-contents.json").read_text()
    body = " ".join(text_of(client.post("/diff", data=form(FC_001, gemini), headers=HX)).split())
    assert esc('type changed from "function_call" to (missing)') in body
    assert "to null" not in body


def test_each_sides_verdict_is_about_the_target_chosen(client):
    item = '{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}'
    portable = client.post("/diff", data={"left": item, "right": item}, headers={"HX-Request": "true"})
    assert portable.get_data(as_text=True).count('data-reason="provider_item"') == 2  # OpenAI's own: not portable
    openai = client.post(
        "/diff", data={"left": item, "right": item, "target": "openai"}, headers={"HX-Request": "true"}
    )
    shown = openai.get_data(as_text=True)
    assert "provider_item" not in shown and "(replayed to OpenAI Responses API)" in shown
