"""Every ``/api/*`` JSON body is strict: a member its route does not read is a 400 ``unknown_parameter`` naming it
(its name as ``param``, its JSON Pointer and the member meant in the message), in the one JSON error shape, as a bad
query parameter is (``webapp/web/params.py``)."""

from __future__ import annotations

import pytest

from webapp.web.api import convert, export, gate, tools

ITEM = {"type": "message", "role": "user", "content": "hi"}


def error_of(response):
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    return body["error"]


@pytest.mark.parametrize(
    ("route", "body", "member", "meant"),
    [
        ("/api/gate", {"items": [ITEM], "tool": []}, "tool", "tools"),
        ("/api/gate", {"item": ITEM, "schmea": {}}, "schmea", "schema"),
        ("/api/gate", {"journal": [ITEM], "form": "auto"}, "form", "from"),
        ("/api/convert", {"journal": [ITEM], "source": "auto"}, "source", None),
        ("/api/convert", {"journal": [ITEM], "tools": []}, "tools", None),
        ("/api/tools", {"texts": [], "text": "x"}, "text", "texts"),
    ],
)
def test_an_unknown_member_is_a_400_naming_it(client, route, body, member, meant):
    response = client.post(route, json=body)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["param"], error["code"], error["type"]) == (member, "unknown_parameter", "invalid_request_error")
    assert error["message"].startswith(f'/{member}: {route} takes no member "{member}"')
    assert (f'did you mean "{meant}"?' in error["message"]) == (meant is not None)


def test_a_member_name_that_needs_escaping_is_pointed_at_exactly(client):
    error = error_of(client.post("/api/gate", json={"items": [], "a/b~c": 1}))
    assert error["param"] == "a/b~c" and error["message"].startswith("/a~1b~0c: ")


@pytest.mark.parametrize("module", [gate, convert, tools, export])
def test_every_member_a_route_names_is_accepted(client, module):
    """The allowed set is what the route reads: each member on its own gets past the member check (whatever the
    route then says of its value)."""
    route = {gate: "/api/gate", convert: "/api/convert", tools: "/api/tools", export: "/api/export"}[module]
    for member in module.MEMBERS:
        response = client.post(route, json={member: None})
        assert response.status_code in (200, 400)
        if response.status_code == 400:
            assert error_of(response)["code"] != "unknown_parameter", member


def test_the_known_members_still_work(client):
    answer = client.post("/api/gate", json={"items": [ITEM], "tools": [], "tool_choice": "auto"})
    assert answer.status_code == 200 and answer.get_json()["replayable"] is True
