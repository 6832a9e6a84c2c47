"""The three answers of a journal — replayable, not replayable, cannot tell — said in the same words by
``POST /api/gate`` (a journal and one item), ``POST /api/export`` and the Journal page, with Flask's test client."""

from __future__ import annotations

import json

import pytest

CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "status": "completed",
    "arguments": '{"location": "Paris"}',
}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "18C"}
JOURNAL = [{"type": "message", "role": "user", "content": "weather?"}, CALL, OUTPUT]
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
}
SAYS = 'cannot tell until the tools are given (1 call of tool "get_weather" not checked)'


def post(client, route, body):
    if route == "/api/export" and "items" in body:  # the export reads a journal of any shape
        body = {("journal" if name == "items" else name): value for name, value in body.items()}
    response = client.post(route, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


@pytest.mark.parametrize("route", ["/api/gate", "/api/export"])
def test_a_journal_without_tools_cannot_be_told_on_both_routes(client, route):
    body = {"items": JOURNAL} if route == "/api/gate" else {"items": JOURNAL, "target": "openai"}
    answer = post(client, route, body)
    assert (answer["replayable"], answer["answer"], answer["says"]) == (None, "cannot tell", SAYS)
    assert answer["unchecked"] == {"get_weather": 1}
    if route == "/api/gate":
        assert [f["code"] for f in answer["findings"]] == ["not_checked"]
        assert answer["items"][1]["label"] == "not checked" and answer["items"][1]["reason"] == "arguments_schema"
        assert answer["counts"] == {"not_function_call": 2, "not checked": 1}
    else:  # not checked is not refused: the call and its output go
        assert [item["type"] for item in answer["body"]["input"]] == [
            "message",
            "function_call",
            "function_call_output",
        ]


@pytest.mark.parametrize("route", ["/api/gate", "/api/export"])
def test_the_tools_given_turn_cannot_tell_into_an_answer(client, route):
    answer = post(client, route, {"items": JOURNAL, "tools": [WEATHER], "target": "openai"})
    assert (answer["replayable"], answer["answer"], answer["says"], answer["unchecked"]) == (
        True,
        "replayable",
        "replayable",
        {},
    )
    failing = dict(CALL, arguments='{"city": "Paris"}')
    answer = post(client, route, {"items": [JOURNAL[0], failing, OUTPUT], "tools": [WEATHER]})
    assert (answer["replayable"], answer["answer"]) == (False, "not replayable")


def test_one_item_without_a_schema_is_labelled_not_checked(client):
    answer = post(client, "/api/gate", {"item": CALL})
    assert (answer["reason"], answer["label"], answer["ok"]) == ("arguments_schema", "not checked", False)
    assert answer["message"].startswith("not checked: no tool definitions were given")
    answer = post(client, "/api/gate", {"item": CALL, "tools": [dict(WEATHER, name="other")]})
    assert (answer["reason"], answer["label"]) == ("arguments_schema", "arguments_schema")  # tools given: none fits


def test_an_empty_journal_is_not_replayable(client):
    answer = post(client, "/api/gate", {"items": []})
    assert answer["replayable"] is False and [f["code"] for f in answer["findings"]] == ["empty_journal"]


def test_an_openai_item_is_a_provider_item_for_openai_and_namespaced_elsewhere(client):
    item = {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}
    mine = post(client, "/api/gate", {"item": item, "target": "openai"})
    assert (mine["reason"], mine["label"], mine["disposition"]) == ("namespaced", "provider item", "keep")
    assert "goes back to openai" in mine["message"] and "not portable" not in mine["message"]
    other = post(client, "/api/gate", {"item": item, "target": "anthropic"})
    assert (other["label"], other["disposition"]) == ("namespaced", "leave_out")


def test_the_journal_page_gives_the_same_answer_in_the_same_words(client):
    html = client.post("/journal", data={"journal": json.dumps(JOURNAL)}, headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert 'id="journal-answer">cannot tell</span>' in html and "C" + SAYS[1:] in html.replace("&#34;", '"')
    assert "none (calls are not checked: paste the tools)" in html
    html = client.post(
        "/journal",
        data={"journal": json.dumps(JOURNAL), "tools": json.dumps([WEATHER])},
        headers={"HX-Request": "true"},
    ).get_data(as_text=True)
    assert 'id="journal-answer">replayable</span>' in html


def test_the_journal_page_keeps_the_tools_names_as_written(client):
    """The answer's first letter is raised for the sentence; the tool names in it keep their case."""
    journal = [JOURNAL[0], dict(CALL, name="getWeatherNow"), OUTPUT]
    html = client.post("/journal", data={"journal": json.dumps(journal)}, headers={"HX-Request": "true"})
    assert "Cannot tell until the tools are given (1 call of tool &#34;getWeatherNow&#34;" in html.get_data(
        as_text=True
    )
