"""``/v1/responses`` words the gate's findings in the client's numbering (input[k], or an earlier response),
from the items each finding names as data (``Finding.parts``), not by rewriting its message."""

from __future__ import annotations

from support import TEST_TOKEN

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


def post(client, body):
    return client.post("/v1/responses", json=body, headers=AUTH)


def call(call_id: str, name: str = "get_latest_sales_report") -> dict:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": '{"region":"apac"}',
        "status": "completed",
    }


def output(call_id: str) -> dict:
    return {"type": "function_call_output", "call_id": call_id, "output": "ok"}


def refusal(response) -> dict:
    assert response.status_code == 400, response.get_json()
    return response.get_json()["error"]


def test_items_of_the_input_are_named_by_their_input_position(client):
    error = refusal(
        post(
            client,
            {"input": [{"role": "user", "content": "go"}, call("c1"), output("c1"), output("c1")], "tools": [SALES]},
        )
    )
    assert (error["param"], error["code"]) == ("input[3]", "duplicate_output")
    assert error["message"] == (
        "input[3]: the replay gate refuses this item (duplicate_output): input[3] answers "
        '"c1" again (first at input[2])'
    )


def test_items_of_an_earlier_response_are_named_as_such(client):
    first = post(client, {"input": "sales", "tools": [SALES], "tool_choice": "required"}).get_json()
    [made] = [item for item in first["output"] if item["type"] == "function_call"]
    error = refusal(
        post(
            client,
            {
                "previous_response_id": first["id"],
                "tools": [SALES],
                "input": [output(made["call_id"]), call(made["call_id"])],
            },
        )
    )
    assert (error["param"], error["code"]) == ("input[1]", "duplicate_call_id")
    assert error["message"].endswith(f'input[1] reuses call_id "{made["call_id"]}" of an item of an earlier response')


def test_words_of_the_client_that_look_like_a_place_are_not_renumbered(client):
    """A call_id sent as "item 3" stays as sent: only the items a finding names are renumbered."""
    error = refusal(post(client, {"input": [{"role": "user", "content": "go"}, output("item 3")], "tools": [SALES]}))
    assert (error["param"], error["code"]) == ("input[1]", "orphan_output")
    assert error["message"].endswith('input[1] answers call_id "item 3", which matches no earlier function_call')
