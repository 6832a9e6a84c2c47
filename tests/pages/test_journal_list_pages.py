"""The app's own list objects read as the conversations they hold, on every surface (``/api/gate``, the Journal
page, the CLI): a ``/v1/sessions/{key}/items`` page (wrappers unwrapped, a stateless agent's replayed history read
once), an ``input_items`` page in either order, and a partial page (``has_more``) said so. The pages are the
endpoint's own answers, made here through Flask's test client."""

from __future__ import annotations

import html as html_module
import io
import json
import re

import pytest
from support import TEST_TOKEN

from webapp.__main__ import main

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SALES = {
    "type": "function",
    "name": "get_latest_sales_report",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "required": ["region"],
        "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
    },
}


def _create(client, body, key):
    response = client.post(
        "/v1/responses",
        json={"model": "openresponses-test", "tools": [SALES], **body},
        headers={**AUTH, "X-Session-Key": key},
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _outputs_of(output):
    """The function_call_output a client writes for each call of ``output``."""
    return [
        {"type": "function_call_output", "call_id": item["call_id"], "output": '{"total": 1}'}
        for item in output
        if item["type"] == "function_call"
    ]


def stateless_session(client, key="stateless"):
    """Four turns of an agent that keeps no state on the server: each request sends the whole conversation
    (its user messages without ids, the outputs as received, its function_call_outputs). Returns the final
    conversation as the agent holds it."""
    history = []
    for turn in ["sales now", None, "and emea?", None]:
        if turn is not None:
            history.append({"role": "user", "content": turn})
        output = _create(client, {"input": history}, key)["output"]
        history += output + _outputs_of(output)
    return history


def chained_session(client, key="chained"):
    """Three turns continued with previous_response_id, the user saying "ok" twice (two messages, not a replay)."""
    previous = None
    for text in ["sales now", "ok", "ok"]:
        body = {"input": [{"role": "user", "content": text}]}
        if previous is not None:
            body["previous_response_id"] = previous["id"]
            body["input"] = _outputs_of(previous["output"]) + body["input"]
        previous = _create(client, body, key)
    return previous


def gate(client, journal, **more):
    response = client.post("/api/gate", json={"journal": journal, "tools": [SALES], **more})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_stateless_agents_session_reads_as_its_latest_context(client):
    history = stateless_session(client)
    page = client.get("/v1/sessions/stateless/items", headers=AUTH).get_json()
    assert len(page["data"]) > len(history)  # the history is stored once per turn
    answer = gate(client, page)
    assert answer["replayable"] is True, answer["findings"]
    assert answer["shape"] == "session" and answer["findings"] == []
    assert [(i["type"], i.get("call_id")) for i in answer["items"]] == [
        (item.get("type", "message"), item.get("call_id")) for item in history
    ]
    assert answer["counts"] == {"not_function_call": 6, "ok": 2}
    assert [note["code"] for note in answer["notes"]] == ["replayed_items"]
    # each item read where it first appeared: turn 1's call is the output of the first response
    first_call = next(i for i in answer["items"] if i["type"] == "function_call")
    assert first_call["id"] == page["data"][1]["item"]["id"] and page["data"][1]["source"] == "output"


def test_the_data_array_alone_reads_the_same(client):
    stateless_session(client)
    page = client.get("/v1/sessions/stateless/items", headers=AUTH).get_json()
    whole, alone = gate(client, page), gate(client, page["data"])
    assert alone["items"] == whole["items"] and alone["replayable"] is True


def test_a_chained_session_keeps_every_new_item_even_when_it_repeats_one(client):
    chained_session(client)
    page = client.get("/v1/sessions/chained/items", headers=AUTH).get_json()
    assert all(entry["previous_response_id"] for entry in page["data"][2:])  # the later turns continue one
    answer = gate(client, page)
    texts = [entry["item"]["content"][0]["text"] for entry in page["data"] if entry["item"].get("role") == "user"]
    assert texts == ["sales now", "ok", "ok"]
    assert len(answer["items"]) == len(page["data"])  # nothing read as a replay
    assert answer["replayable"] is True and answer.get("notes", []) == []


def test_the_journal_page_reads_a_session_page(client):
    stateless_session(client)
    page = client.get("/v1/sessions/stateless/items", headers=AUTH).get_json()
    html = client.post(
        "/journal", data={"journal": json.dumps(page), "tools": json.dumps([SALES])}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    gate_line = re.findall(r'<span class="badge \w+">([a-z_ ]+) (\d+)</span>', html)
    assert dict(gate_line) == {"not_function_call": "6", "ok": "2"}
    assert "duplicate_call_id" not in html and "duplicate_output" not in html
    assert "replayed_items" in html and "data[1].item" in html
    assert re.search(r"The replayable subset <span class=\"muted\">\(8 of 8 items\)", html)


@pytest.mark.parametrize("drop_order", [False, True])
def test_input_items_read_in_conversation_order_either_way(client, drop_order):
    history = stateless_session(client, "ii")
    last = client.get("/v1/sessions/ii/items", headers=AUTH).get_json()["data"][-1]["response_id"]
    answers = {}
    for order in ("asc", "desc"):
        listed = client.get(f"/v1/responses/{last}/input_items?order={order}", headers=AUTH).get_json()
        assert listed["order"] == order
        if drop_order:  # as OpenAI's list object is: the calls and outputs tell the order
            del listed["order"]
        answers[order] = gate(client, listed)
    assert answers["asc"]["items"] == answers["desc"]["items"]
    assert answers["desc"]["replayable"] is True and answers["desc"]["findings"] == []
    # the last request sent the whole conversation but its answer
    assert [i.get("call_id") for i in answers["desc"]["items"]] == [item.get("call_id") for item in history[:-1]]
    assert [note["code"] for note in answers["desc"]["notes"]] == ["input_items_order"]
    assert answers["asc"].get("notes", []) == []


def test_an_input_items_page_with_nothing_to_tell_its_order_says_it_assumed_the_default(client):
    first = _create(client, {"input": [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]}, "k")
    listed = client.get(f"/v1/responses/{first['id']}/input_items", headers=AUTH).get_json()
    del listed["order"]
    answer = gate(client, listed)
    assert [note["code"] for note in answer["notes"]] == ["input_items_order_assumed"]
    assert [i["id"] for i in answer["items"]] == [item["id"] for item in reversed(listed["data"])]


def test_a_partial_page_says_so_on_every_surface(client, tmp_path):
    stateless_session(client, "long")
    last = client.get("/v1/sessions/long/items", headers=AUTH).get_json()["data"][-1]["response_id"]
    pages = {
        "session": client.get("/v1/sessions/long/items?limit=3", headers=AUTH).get_json(),
        "input_items": client.get(f"/v1/responses/{last}/input_items?limit=3", headers=AUTH).get_json(),
    }
    for shape, page in pages.items():
        assert page["has_more"] is True
        answer = gate(client, page)
        partial = [f for f in answer["findings"] if f["code"] == "partial_journal"]
        assert len(partial) == 1 and partial[0]["severity"] == "warning" and "has_more: true" in partial[0]["message"]
        assert answer["shape"] == shape
        html = client.post(
            "/journal", data={"journal": json.dumps(page), "tools": json.dumps([SALES])}, headers={"HX-Request": "true"}
        ).get_data(as_text=True)
        assert "partial_journal" in html and "has_more: true" in html
        path = tmp_path / f"{shape}.json"
        path.write_text(json.dumps(page))
        out = io.StringIO()
        main(["gate", str(path), "--json"], out, io.StringIO())
        assert [f["code"] for f in json.loads(out.getvalue())["findings"]].count("partial_journal") == 1
        out = io.StringIO()
        main(["gate", str(path)], out, io.StringIO())
        assert "partial_journal" in out.getvalue() and "has_more: true" in out.getvalue()


def test_a_session_entry_that_is_not_a_wrapper_is_named(client):
    page = {"object": "list", "session_key": "k", "data": [{"response_id": "r", "source": "input", "index": 0}]}
    response = client.post("/api/gate", json={"journal": page})
    assert response.status_code == 400
    assert "/data/0" in response.get_json()["error"]["message"]


# ------------------------------------------------------------------------------------------------ the sessions page


def _fields(html: str, name: str) -> list[str]:
    return [
        html_module.unescape(text)
        for text in re.findall(rf'<textarea name="{name}" hidden>(.*?)</textarea>', html, re.S)
    ]


def test_the_sessions_page_groups_turns_and_marks_replays(client):
    stateless_session(client, "grouped")
    chained_session(client, "grouped")
    page = client.get("/v1/sessions/grouped/items", headers=AUTH).get_json()
    html = client.get("/sessions/grouped").get_data(as_text=True)
    responses = list(dict.fromkeys(entry["response_id"] for entry in page["data"]))
    assert re.findall(r'<section class="session-turn" id="turn-(\w+)"', html) == responses
    assert html.count("the client sent the whole conversation again") == 3  # the stateless turns after the first
    assert html.count(' replayed" id=') == 12  # its replayed items, each marked
    # the chained turns link the response they continue
    for entry in page["data"][-4:]:
        assert f'<a href="#turn-{entry["previous_response_id"]}">' in html


def test_the_sessions_page_carries_the_session_to_the_journal(client):
    stateless_session(client, "carried")
    html = client.get("/sessions/carried").get_data(as_text=True)
    (carried,) = _fields(html, "journal")
    (tools,) = _fields(html, "tools")
    assert json.loads(carried)["has_more"] is False
    assert [tool["name"] for tool in json.loads(tools)] == [SALES["name"]]  # the responses' tools, once
    checked = client.post(
        "/journal", data={"journal": carried, "tools": tools}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    assert "(session, detected)" in checked and 'id="journal-answer">replayable</span>' in checked
    assert "duplicate_call_id" not in checked and "journal-partial" not in checked
