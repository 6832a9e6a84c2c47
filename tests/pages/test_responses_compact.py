"""``POST /v1/responses/compact`` (Open Responses 2026-04-24; spec notes §1.8) and the sealed compaction items of
the test model (``webapp.core.responses.compaction``): through the real ``openai`` SDK where it applies.

The compliance suite's ``compact-response`` and ``compact-missing-model`` bodies are sent as upstream writes them;
its ``websocket-compact-new-chain`` is in ``test_responses_websocket.py``.
"""

from __future__ import annotations

import base64
import json
import zlib

import openai
import pytest
from support import TEST_TOKEN
from support.openapi_conformance import schema_errors

from webapp import create_app
from webapp.core.responses.compaction import SealError, derive_key, seal, unseal

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {"type": "object", "required": ["location"], "properties": {"location": {"type": "string"}}},
}
# The compliance suite's compact-response body (upstream src/lib/compliance-tests, 2026-04-24).
SUITE_BODY = {
    "model": "openresponses-test",
    "prompt_cache_key": "openresponses-compact-test",
    "input": [
        {"type": "message", "role": "user", "content": "We agreed to launch on Tuesday and notify support first."},
        {
            "type": "message",
            "role": "assistant",
            "content": "Understood. The launch is Tuesday, with support notified beforehand.",
        },
    ],
}


def compact(client, body):
    return client.post("/v1/responses/compact", json=body, headers=AUTH)


def post(client, body):
    return client.post("/v1/responses", json=body, headers=AUTH)


def error_of(response):
    body = response.get_json()
    assert set(body) == {"error"}
    return body["error"]


@pytest.fixture
def sdk(serve):
    return serve()


# ------------------------------------------------------------------------------------------------ the seal

KEY = derive_key(b"k" * 32)


def test_seal_round_trip_keeps_order_and_values():
    items = [{"type": "message", "role": "user", "content": "héllo \u2028"}, {"type": "function_call", "n": 2**70}]
    sealed = seal(items, KEY, model="m")
    assert sealed.startswith("orc1.") and sealed.count(".") == 2
    assert unseal(sealed, KEY) == items


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s[:-2] + ("AA" if not s.endswith("AA") else "BB"),  # the tag
        lambda s: s[:10] + ("x" if s[10] != "x" else "y") + s[11:],  # the payload
        lambda s: s.replace("orc1.", "orc2."),  # the format
        lambda s: s + ".extra",
    ],
)
def test_a_changed_seal_is_refused(change):
    with pytest.raises(SealError):
        unseal(change(seal([{"type": "message"}], KEY, model="m")), KEY)


def test_an_edited_payload_with_the_old_tag_is_refused():
    # Smuggling an unfinished call in: re-encode the payload, keep the tag.
    sealed = seal([{"type": "function_call", "status": "completed"}], KEY, model="m")
    _, payload, tag = sealed.split(".")
    document = json.loads(zlib.decompress(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    document["items"][0]["status"] = "in_progress"
    forged = base64.urlsafe_b64encode(zlib.compress(json.dumps(document).encode())).rstrip(b"=").decode()
    with pytest.raises(SealError, match="does not match"):
        unseal(f"orc1.{forged}.{tag}", KEY)


def test_another_key_is_refused():
    with pytest.raises(SealError, match="does not match"):
        unseal(seal([], KEY, model="m"), derive_key(b"other" * 8))


def test_a_foreign_provider_item_is_refused():
    with pytest.raises(SealError, match="not a compaction item of this server"):
        unseal("gAAAAABpM0Yj-abc=", KEY)


# ------------------------------------------------------------------------------------------------ the endpoint


def test_compliance_suite_compact_response(client):
    response = compact(client, SUITE_BODY)
    assert response.status_code == 200 and response.mimetype == "application/json"
    body = response.get_json()
    assert schema_errors(body, "CompactResource") == []
    assert body["object"] == "response.compaction" and body["id"].startswith("resp_")
    assert [item["type"] for item in body["output"]] == ["compaction"]
    assert body["output"][0]["id"].startswith("cmp_")
    assert body["usage"]["total_tokens"] == body["usage"]["input_tokens"] + body["usage"]["output_tokens"] > 0


def test_compliance_suite_compact_missing_model(client):
    body = {"input": [{"type": "message", "role": "user", "content": "Compact this conversation."}]}
    response = compact(client, body)
    assert response.status_code == 400
    assert error_of(response) == {
        "message": "model: missing required parameter (CompactResponseMethodPublicBody requires model)",
        "type": "invalid_request_error",
        "param": "model",
        "code": "missing_required_parameter",
    }


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"model": "m"}, "input", "missing_required_parameter"),
        ({"model": "m", "input": "x", "stream": True}, "stream", "unknown_parameter"),
        ({"model": "m", "input": 7}, "input", "invalid_type"),
        ({"model": "m", "input": "x", "prompt_cache_key": "k" * 65}, "prompt_cache_key", "invalid_value"),
        ({"model": "m", "previous_response_id": "resp_missing"}, "previous_response_id", "previous_response_not_found"),
        ([], None, "invalid_type"),
    ],
)
def test_bad_compact_bodies(client, body, param, code):
    response = compact(client, body)
    assert response.status_code == 400
    assert (error_of(response)["param"], error_of(response)["code"]) == (param, code)


def test_compact_through_the_sdk_and_continue_a_new_chain(sdk):
    compacted = sdk.responses.compact(model="m", input=SUITE_BODY["input"])  # strict validation of CompactedResponse
    assert compacted.object == "response.compaction" and compacted.output[0].type == "compaction"
    # A new chain: no previous_response_id; the compacted output, as is, then a new message.
    base = [item.model_dump(exclude_none=True) for item in compacted.output]
    reply = sdk.responses.create(model="m", input=[*base, {"role": "user", "content": "When do we launch?"}])
    assert reply.status == "completed" and reply.previous_response_id is None
    assert reply.output_text == 'You said: "When do we launch?"'
    # The stored input is what was sent (the compaction item kept sealed), and the chain continues from it.
    stored = sdk.responses.input_items.list(reply.id, order="asc").data
    assert [item.type for item in stored] == ["compaction", "message"]
    later = sdk.responses.create(model="m", previous_response_id=reply.id, input="And who is told first?")
    assert later.status == "completed"


def test_the_compacted_conversation_is_what_the_model_reads(client):
    # A tool loop compacted, then its output answered in the new chain: the call is in the sealed history.
    first = post(
        client,
        {
            "model": "m",
            "input": "Weather in Paris?",
            "tools": [WEATHER],
            "tool_choice": {"type": "function", "name": "get_weather"},
        },
    ).get_json()
    call = first["output"][0]
    compacted = compact(client, {"model": "m", "previous_response_id": first["id"]}).get_json()
    reply = post(
        client,
        {
            "model": "m",
            "tools": [WEATHER],
            "input": [
                *compacted["output"],
                {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"},
            ],
        },
    )
    assert reply.status_code == 200, reply.get_json()
    assert (
        reply.get_json()["output"][0]["content"][0]["text"]
        == f"Tool results: get_weather ({call['call_id']}) returned: sunny."
    )
    # Without the compaction item the same output answers nothing.
    orphan = post(
        client,
        {
            "model": "m",
            "tools": [WEATHER],
            "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}],
        },
    )
    assert error_of(orphan)["code"] == "orphan_output"


def test_compacting_a_compacted_conversation(client):
    once = compact(client, SUITE_BODY).get_json()["output"]
    twice = compact(client, {"model": "m", "input": [*once, {"role": "user", "content": "Add: ship on time."}]})
    assert twice.status_code == 200
    reply = post(client, {"model": "m", "input": twice.get_json()["output"]})
    # The last user message of the whole conversation is the one answered.
    assert reply.get_json()["output"][0]["content"][0]["text"] == 'You said: "Add: ship on time."'


def test_the_gate_applies_to_compact_input(client):
    unfinished = {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_weather",
        "arguments": '{"location":"x"}',
        "status": "in_progress",
    }
    response = compact(
        client,
        {
            "model": "m",
            "tools": [WEATHER],
            "input": [
                {"role": "user", "content": "hi"},
                unfinished,
                {"type": "function_call_output", "call_id": "c1", "output": "x"},
            ],
        },
    )
    assert response.status_code == 400
    assert (error_of(response)["param"], error_of(response)["code"]) == ("input[1]", "status")
    # Without tools, a call's arguments cannot be checked: refused as for any input.
    no_tools = compact(
        client, {"model": "m", "input": [{"role": "user", "content": "hi"}, {**unfinished, "status": "completed"}]}
    )
    assert error_of(no_tools)["code"] == "unknown_tool"


@pytest.mark.parametrize("content", ["gAAAAABpM0Yj-...=", "orc1.abc.def"])
def test_a_foreign_or_forged_compaction_item_is_refused(client, content):
    response = post(
        client,
        {
            "model": "m",
            "input": [{"type": "compaction", "encrypted_content": content}, {"role": "user", "content": "hi"}],
        },
    )
    assert response.status_code == 400
    assert error_of(response)["param"] == "input[0].encrypted_content"
    assert error_of(response)["code"] == "invalid_encrypted_content"


def test_a_tampered_compaction_item_is_refused(client):
    item = compact(client, SUITE_BODY).get_json()["output"][0]
    content = item["encrypted_content"]
    tampered = {**item, "encrypted_content": content[:12] + ("A" if content[12] != "A" else "B") + content[13:]}
    response = post(client, {"model": "m", "input": [tampered, {"role": "user", "content": "hi"}]})
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_encrypted_content"
    assert "does not match" in error_of(response)["message"]


def test_a_compaction_item_must_come_first(client):
    item = compact(client, SUITE_BODY).get_json()["output"][0]
    response = post(client, {"model": "m", "input": [{"role": "user", "content": "hi"}, item]})
    assert response.status_code == 400
    assert (error_of(response)["param"], error_of(response)["code"]) == ("input[1]", "invalid_value")


def test_gate_errors_after_a_compaction_item_name_the_clients_index(client):
    item = compact(client, SUITE_BODY).get_json()["output"][0]
    response = post(
        client,
        {
            "model": "m",
            "input": [
                item,
                {"role": "user", "content": "hi"},
                {"type": "function_call_output", "call_id": "nope", "output": "x"},
            ],
        },
    )
    assert (error_of(response)["param"], error_of(response)["code"]) == ("input[2]", "orphan_output")


def test_the_secret_is_shared_by_apps_on_one_instance_folder(tmp_path):
    # Two workers of a production server build two apps on one instance folder: one seals, the other unseals.
    settings = {"TESTING": True, "API_TOKEN": TEST_TOKEN}
    one = create_app({**settings, "RESPONSES_DATABASE": str(tmp_path / "a.sqlite3")})
    other = create_app({**settings, "RESPONSES_DATABASE": str(tmp_path / "b.sqlite3")})
    item = compact(one.test_client(), SUITE_BODY).get_json()["output"][0]
    reply = post(other.test_client(), {"model": "m", "input": [item]})
    assert reply.status_code == 200


def test_secret_key_setting_is_used(tmp_path):
    settings = {"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3")}
    sealed_by = create_app({**settings, "SECRET_KEY": "one secret"})
    item = compact(sealed_by.test_client(), SUITE_BODY).get_json()["output"][0]
    assert (
        post(
            create_app({**settings, "SECRET_KEY": "one secret"}).test_client(), {"model": "m", "input": [item]}
        ).status_code
        == 200
    )
    refused = post(create_app({**settings, "SECRET_KEY": "another"}).test_client(), {"model": "m", "input": [item]})
    assert error_of(refused)["code"] == "invalid_encrypted_content"


def test_sdk_compact_errors_are_typed(sdk):
    with pytest.raises(openai.BadRequestError) as err:
        sdk.responses.compact(model="m", previous_response_id="resp_nope")
    assert err.value.code == "previous_response_not_found" and err.value.param == "previous_response_id"
