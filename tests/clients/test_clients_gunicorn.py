"""The client libraries against the production server: gunicorn with 2 evented workers (``scripts/gunicorn.conf.py``,
started as ``tests/clients/test_responses_gunicorn.py`` starts it), so consecutive calls of one client reach either
worker.

Every scenario of the Node scripts (``tests/clients``: the ``openai`` SDK, the AI SDK with both providers), LangChain's
round trip after ``stream`` and ``openresponses-py``'s WebSocket turns must complete there as on the dev server.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from openresponses import OpenResponses
from test_clients_langchain import get_weather
from test_clients_node import run_script
from test_responses_gunicorn import Gunicorn

pytestmark = pytest.mark.slow  # gunicorn, and the Node clients


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    server = Gunicorn(tmp_path_factory.mktemp("gunicorn-clients"))
    try:
        server.wait_ready(2)
        yield server
    finally:
        server.stop()


def url(server: Gunicorn) -> str:
    return f"http://127.0.0.1:{server.port}"


@pytest.mark.parametrize(
    "command",
    [("openai_sdk.mjs",), ("ai_sdk.mjs", "openai"), ("ai_sdk.mjs", "open-responses")],
    ids=["openai", "ai-sdk-openai", "ai-sdk-open-responses"],
)
def test_every_node_scenario_completes(gunicorn, command):
    results = run_script(url(gunicorn), *command, token=gunicorn.token)
    failed = {name: outcome["error"] for name, outcome in results.items() if "error" in outcome}
    assert not failed
    assert len(results) >= 6  # every scenario ran


def test_langchain_round_trip_after_stream(gunicorn):
    model = ChatOpenAI(
        model="openresponses-test",
        base_url=url(gunicorn) + "/v1",
        api_key=gunicorn.token,
        use_responses_api=True,
        max_retries=0,
        timeout=20,
    ).bind_tools([get_weather])
    question = HumanMessage("What is the weather in Paris?")
    chunks = list(model.stream([question]))
    asked = sum(chunks[1:], chunks[0])
    [call] = asked.tool_calls
    answer = model.invoke([question, asked, get_weather.invoke(call)])
    assert answer.text == f"Tool results: get_weather ({call['id']}) returned: 18 degrees celsius in city."


def test_openresponses_websocket_turns_and_compaction(gunicorn):
    with OpenResponses(base_url=url(gunicorn) + "/v1", api_key=gunicorn.token, timeout=20) as client:
        with client.websocket() as socket:
            first = socket.create({"model": "openresponses-test", "input": "Count from 1 to 3.", "store": False})
            list(first)
            second = socket.create(
                {"model": "openresponses-test", "previous_response_id": first.response_id, "input": "And now?"}
            )
            list(second)
        assert first.final_response.status == second.final_response.status == "completed"
        assert second.final_response.previous_response_id == first.response_id
        stored = client.responses.create({"model": "openresponses-test", "input": "Remember: kiwi."})
        compacted = client.responses.compact({"model": "openresponses-test", "previous_response_id": stored.id})
        assert "compaction" in [item.root.type for item in compacted.output]
