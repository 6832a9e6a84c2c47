"""The ``/stream`` page with Flask's test client: the lint's answer (findings with their places, the timeline, what
the stream builds carried to Format and Journal), uploads, unreadable input, and the endpoint check's form (the
target guard, the key never in the answer)."""

from __future__ import annotations

import html
import io
import json
import re

import pytest
from markupsafe import escape
from support import TESTS

from webapp import create_app
from webapp.core.pages import stream as model
from webapp.core.stream import lint_text

CASES = TESTS / "cases" / "streams"
HTMX = {"HX-Request": "true"}


def own_stream(client) -> str:
    answer = client.post(
        "/v1/responses",
        json={"model": "m", "input": "Weather in Paris?", "stream": True, "tools": [WEATHER]},
        headers={"Authorization": "Bearer sk-test-token"},
    )
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
}


def test_the_page_is_in_the_nav_and_on_the_landing_page_unnumbered(client):
    page = client.get("/stream").get_data(as_text=True)
    assert re.search(r'<a href="/stream" aria-current="page">Stream</a>', page)
    assert 'id="stream-form" data-draft' in page and 'name="key"' in page and 'type="password"' in page
    landing = client.get("/").get_data(as_text=True)
    assert '<a href="/stream">Stream</a>' in landing and "official suite" in landing


@pytest.mark.parametrize("name", ["call", "websocket"])
def test_the_examples_are_the_endpoints_own_streams_and_lint_clean(client, name):
    page = client.get(f"/stream?example={name}").get_data(as_text=True)
    assert 'id="stream-verdict">clean</span>' in page
    assert "read as <strong>" in page and 'id="stream-findings"' not in page


def test_the_endpoints_stream_lints_clean_with_its_timeline_and_calls(client):
    text = own_stream(client)
    answer = client.post("/stream", data={"stream": text}, headers=HTMX)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" not in page  # the partial
    assert 'id="stream-verdict">clean</span>' in page
    assert 'data-group="response"' in page and "item 0 · function_call fc_" in page
    assert page.count('class="event"') >= 5 and "×" in page  # a run of deltas is one row
    assert '<span class="badge ok">ok</span> <code>get_weather</code>' in page


def test_a_failing_stream_names_each_finding_at_its_event_line_and_pointer(client):
    text = (CASES / "sglang-12653.sse").read_text(encoding="utf-8")
    page = client.post("/stream", data={"stream": text}, headers=HTMX).get_data(as_text=True)
    assert "3 errors, 0 warnings" in page
    findings = page.split('id="stream-findings"', 1)[1].split("</section>", 1)[0]
    assert findings.count('<li class="finding error"') == 3
    assert '<a href="#stream-event-6">event 6</a> <code>response.completed</code>' in findings
    assert 'data-line="20" data-column="7"' in findings and '<code class="ptr">/response/output/0</code>' in findings
    row = page.split('<tr id="stream-event-6"', 1)[1].split("</tr>", 1)[0]
    assert row.startswith(' class="event fails error"')
    assert 'data-severity="error"' in row and "item_not_done" in row and 'data-line="20"' in row


def test_clean_rows_link_to_their_line_without_a_marker(client):
    page = client.post("/stream", data={"stream": own_stream(client)}, headers=HTMX).get_data(as_text=True)
    row = page.split('id="stream-event-0"', 1)[1].split("</tr>", 1)[0]
    assert 'data-line="2" data-column="7" data-no-marker>line 2</a>' in row


def test_what_the_stream_builds_is_carried_to_format_and_journal(client):
    text = own_stream(client)
    page = client.post("/stream", data={"stream": text}, headers=HTMX).get_data(as_text=True)
    response = json.loads(html.unescape(re.search(r'<textarea name="document" hidden>(.*?)</textarea>', page, re.S)[1]))
    final = lint_text(text).streams[0].final
    assert response == final and response["output"][0]["type"] == "function_call"
    lines = html.unescape(re.search(r'<textarea name="journal" hidden>(.*?)</textarea>', page, re.S)[1])
    assert [json.loads(line) for line in lines.splitlines()] == final["output"]
    assert 'action="/format"' in page and 'action="/journal"' in page
    formatted = client.post("/format", data={"document": json.dumps(response, indent=2)}).get_data(as_text=True)
    assert "valid JSON" in formatted
    journal = client.post("/journal", data={"journal": lines}).get_data(as_text=True)
    assert "replayable" in journal


def test_a_response_too_large_to_carry_says_so(client, monkeypatch):
    monkeypatch.setattr(model, "CARRY_LIMIT", 100)
    page = client.post("/stream", data={"stream": own_stream(client)}, headers=HTMX).get_data(as_text=True)
    assert 'name="document"' not in page and "over the 100 the page carries to another step" in page


def test_an_upload_wins_and_a_plain_post_gives_its_text_back(client):
    text = (CASES / "vllm-57998.sse").read_text(encoding="utf-8")
    answer = client.post(
        "/stream",
        data={"stream": "ignored", "kind": "auto", "file": (io.BytesIO(text.encode()), "cut.sse")},
        content_type="multipart/form-data",
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "<html" in page
    assert "Linted the uploaded file <code>cut.sse</code>" in page and "status_inconsistent" in page
    box = html.unescape(re.search(r'<textarea name="stream" id="stream-text"[^>]*>\n(.*?)</textarea>', page, re.S)[1])
    assert box == text


@pytest.mark.parametrize(
    "data, place",
    [
        ({"stream": ""}, "line 1, column 1"),
        ({"stream": '{"log": {"entries": [', "kind": "har"}, "line 1, column 22"),
        ({"stream": '{"log": {"entries": []}}'}, "line 1, column 1"),
    ],
)
def test_an_unreadable_recording_is_named_at_its_place_and_the_text_kept(client, data, place):
    answer = client.post("/stream", data=data)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200 and 'id="stream-error"' in page and place in page
    assert str(escape(data["stream"])) in page


def test_an_unknown_kind_is_read_as_detected(client):
    page = client.post("/stream", data={"stream": own_stream(client), "kind": "xml"}, headers=HTMX)
    assert "(detected)" in page.get_data(as_text=True)


# ------------------------------------------------------------------------------------------ the endpoint check


def test_the_check_refuses_a_server_off_this_machine_and_says_how_to_allow_one(client):
    page = client.post(
        "/stream/check", data={"url": "http://10.0.0.1/v1", "key": "sk-abc", "model": "m"}, headers=HTMX
    ).get_data(as_text=True)
    assert 'id="check-error"' in page and "ALLOWED_TARGETS" in page and "sk-abc" not in page


def test_the_check_needs_a_url_and_a_key(client):
    page = client.post("/stream/check", data={"url": "http://127.0.0.1:1/v1", "key": ""}, headers=HTMX)
    assert "give the server&#39;s base URL and its key" in page.get_data(as_text=True)


def test_the_check_runs_17_of_17_against_this_app_and_never_shows_the_key(live_server, client):
    key = "sk-test-token"  # the live server's token
    answer = client.post(
        "/stream/check", data={"url": live_server + "/v1", "key": key, "model": "openresponses-test"}, headers=HTMX
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert 'id="check-official">17/17</span>' in page
    assert "every check the suite skips holds too" in page
    assert page.count('class="passes"') == 22  # the suite's 17 and this app's 5 extra ones
    assert "as of <code>openresponses/openresponses src/lib/compliance-tests.ts, release 2026-04-24</code>" in page
    assert "this app's extra cases (5, of which 5 pass) are listed apart and not counted in it" in page
    extra = page.index('id="check-extra"')
    assert page.index('id="check-case-compact-missing-model"') < extra < page.index('id="check-case-file-input"')
    assert key not in page
    full = client.post("/stream/check", data={"url": live_server + "/v1", "key": key, "timeout": "30"})
    assert key not in full.get_data(as_text=True) and 'id="check-key" autocomplete="off"' in full.get_data(as_text=True)


def test_allowed_targets_is_a_setting(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": "t",
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
            "ALLOWED_TARGETS": "inspector-target.invalid",
        }
    )
    page = app.test_client().post(
        "/stream/check", data={"url": "http://inspector-target.invalid/v1", "key": "k"}, headers=HTMX
    )
    # Allowed, so it is resolved: .invalid names never resolve (RFC 6761), and the page says that, not "refused".
    text = page.get_data(as_text=True)
    assert "cannot be resolved" in text and "ALLOWED_TARGETS" not in text


def many_bad_deltas(count: int) -> str:
    """An SSE stream of ``count`` deltas, each with a non-integer ``output_index`` (one schema finding an event),
    and nothing else: each delta is a failing row of its own."""
    delta = {"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "x"}
    return "".join(
        f"event: {delta['type']}\ndata: "
        + json.dumps({**delta, "output_index": "x", "logprobs": [], "sequence_number": n})
        + "\n\n"
        for n in range(count)
    )


def test_every_finding_is_counted_grouped_and_no_sentence_claims_more_than_is_shown(client):
    count = model.ROWS_SHOWN + model.FINDINGS_SHOWN + 300
    page = client.post("/stream", data={"stream": many_bad_deltas(count)}, headers=HTMX).get_data(as_text=True)
    findings = page.split('id="stream-findings"', 1)[1].split("</section>", 1)[0]
    # One group per event type and rule; every finding counted in it, the first few named.
    group = findings.split('data-message="schema_invalid:', 1)[1].split("</li>", 1)[0]
    schema_findings = f"{count:,} findings on {count:,} events <code>response.output_text.delta</code>"
    assert schema_findings in group
    assert group.count('class="place"') == model.PLACES_SHOWN and f"the first 5 of {count:,} named here" in group
    assert "… and" not in findings
    # The timeline says how many rows it left out and how many of them fail, and names no event it does not show.
    assert "the findings above name every failing event" not in page
    assert "300 more rows not shown, 300 of them with findings (counted by event type and rule" in page
