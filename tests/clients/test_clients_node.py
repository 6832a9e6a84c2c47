"""``/v1/responses`` driven by the real Node client libraries, pinned in ``tests/clients/package-lock.json``:
the official ``openai`` SDK and the Vercel AI SDK (``ai``) with ``@ai-sdk/openai`` and ``@ai-sdk/open-responses``.

Each script in ``tests/clients`` runs its scenarios against the app served on 127.0.0.1 (URL and token in the
environment) and prints ``{scenario: result}`` as JSON, a failed scenario as ``{"error": {...}}``; a script runs
once per module and each test here asserts on one scenario. ``bash scripts/setup test`` installs Node (Debian's
``nodejs``) and the packages (``npm ci``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from typing import Any

import pytest
from support import REPO, TEST_TOKEN

pytestmark = pytest.mark.slow  # Node starts per scenario

CLIENTS = REPO / "tests" / "clients"
TOOL_OUTPUT = "18 degrees celsius in Paris"  # what the scripts' get_weather tool returns


def run_script(server_url: str, script: str, *args: str, token: str = TEST_TOKEN) -> dict[str, Any]:
    """Runs ``node tests/clients/<script> <args>`` against ``server_url`` with ``token``; its JSON results by
    scenario.

    :raises pytest.fail.Exception: Node or the packages are missing, the script exits non-zero, times out
        (60 s) or prints no JSON.
    """
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node is missing: run `bash scripts/setup test`")
    stamp = CLIENTS / "node_modules" / ".installed-lockfile"  # written by scripts/setup after `npm ci`
    lock_sum = hashlib.sha256((CLIENTS / "package-lock.json").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != lock_sum:
        pytest.fail(
            "tests/clients/node_modules is missing or older than package-lock.json: run `bash scripts/setup test`"
        )
    env = {**os.environ, "OPENRESPONSES_BASE_URL": server_url + "/v1", "OPENRESPONSES_API_KEY": token}
    try:
        done = subprocess.run(
            [node, script, *args], cwd=CLIENTS, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{script} {' '.join(args)} did not finish in 60 s; stderr: {error.stderr}")
    if done.returncode != 0 or not done.stdout.strip():
        pytest.fail(f"{script} exited {done.returncode}; stderr:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def result(results: dict[str, Any], scenario: str) -> dict[str, Any]:
    """One scenario's result; a scenario that threw fails the test with the client's error."""
    outcome = results[scenario]
    if "error" in outcome:
        pytest.fail(f"{scenario}: {json.dumps(outcome['error'], indent=1)}")
    return outcome


# ------------------------------------------------------------------------------------------------ openai (Node)


@pytest.fixture(scope="module")
def openai_node(live_server):
    return run_script(live_server, "openai_sdk.mjs")


def test_openai_node_create(openai_node):
    out = result(openai_node, "create")
    assert out["status"] == "completed"
    assert out["output_text"] == 'You said: "Hello from Node"'
    assert out["id"].startswith("resp_")


def test_openai_node_stream_helpers_and_final_response(openai_node):
    out = result(openai_node, "stream_helpers")
    assert out["status"] == "completed"
    assert "".join(out["deltas"]) == out["output_text"] == 'You said: "Count from 1 to 5."'
    assert len(out["deltas"]) > 2
    events = out["events"]
    assert events[:2] == ["response.created", "response.in_progress"] and events[-1] == "response.completed"
    assert events.count("response.output_text.delta") == len(out["deltas"])


def test_openai_node_stream_tool_call(openai_node):
    out = result(openai_node, "stream_tool_call")
    assert (out["type"], out["name"], out["status"]) == ("function_call", "get_weather", "completed")
    assert "".join(out["argument_deltas"]) == out["arguments"]
    assert json.loads(out["arguments"]) == {"city": "city", "unit": "celsius"}


def test_openai_node_parse_with_a_zod_text_format(openai_node):
    out = result(openai_node, "parse_zod_format")
    assert out["output_parsed"] == json.loads(out["output_text"])
    assert set(out["output_parsed"]) == {"city", "days", "sunny"}
    assert isinstance(out["output_parsed"]["days"], int) and isinstance(out["output_parsed"]["sunny"], bool)
    assert out["format"]["type"] == "json_schema" and out["format"]["name"] == "forecast"


def test_openai_node_parse_with_a_zod_function_tool(openai_node):
    out = result(openai_node, "parse_zod_tool")
    assert (out["type"], out["name"]) == ("function_call", "get_forecast")
    assert set(out["parsed_arguments"]) == {"city", "days", "sunny"}


def test_openai_node_tool_round_trip_replayed_and_chained(openai_node):
    out = result(openai_node, "tool_round_trip")
    call = out["call"]
    expected = f"Tool results: get_weather ({call['call_id']}) returned: 18 C and sunny."
    assert out["replayed"] == expected  # the output items sent back as returned
    assert out["chained"] == expected  # previous_response_id
    assert out["chained_previous"] == out["first_id"]


def test_openai_node_retrieve_delete_and_input_items(openai_node):
    out = result(openai_node, "retrieve_delete_input_items")
    assert out["same_id"] and out["retrieved_text"] == 'You said: "third"'
    assert out["first_page"] == {"count": 2, "has_more": True}
    assert out["paged"] == ["first", "second", "third"]  # the SDK's auto-pagination follows `after`
    assert out["deleted"]["deleted"] is True and out["deleted"]["object"] == "response"
    assert out["after_delete"] == {"not_found": True, "status": 404, "code": "response_not_found"}


def test_openai_node_compact_then_continue_from_its_output(openai_node):
    out = result(openai_node, "compact")
    assert out["object"] == "response.compaction"
    assert "compaction" in out["types"]
    assert out["next_status"] == "completed" and out["next_text"] == 'You said: "And now?"'


# ------------------------------------------------------------------------------------------------ Vercel AI SDK


@pytest.fixture(scope="module", params=["openai", "open-responses"])
def ai_sdk(request, live_server):
    """The AI SDK's scenarios through one provider: ``@ai-sdk/openai`` or ``@ai-sdk/open-responses``."""
    return run_script(live_server, "ai_sdk.mjs", request.param)


def test_ai_sdk_generate_text(ai_sdk):
    out = result(ai_sdk, "generate_text")
    assert out["text"] == 'You said: "Hello from the AI SDK"'
    assert out["finish_reason"] == "stop"
    assert out["usage"]["totalTokens"] == out["usage"]["inputTokens"] + out["usage"]["outputTokens"] > 0


def test_ai_sdk_stream_text(ai_sdk):
    out = result(ai_sdk, "stream_text")
    assert "".join(out["chunks"]) == out["text"] == 'You said: "Count from 1 to 5."'
    assert len(out["chunks"]) > 2 and out["finish_reason"] == "stop"


def test_ai_sdk_one_tool_step_is_parsed_and_executed(ai_sdk):
    out = result(ai_sdk, "tool_step")
    [step] = out["steps"]
    assert step["finish_reason"] == "tool-calls"
    assert step["tool_calls"] == [{"name": "get_weather", "input": {"city": "city", "unit": "celsius"}}]
    assert step["tool_results"] == [TOOL_OUTPUT]
    assert out["executed"] == [{"city": "city", "unit": "celsius"}]


def assert_tool_loop(out: dict[str, Any]) -> None:
    """Two steps: the call, executed by the SDK, then the text answering its (status-less) replay."""
    first, second = out["steps"]
    assert first["finish_reason"] == "tool-calls" and first["tool_results"] == [TOOL_OUTPUT]
    assert second["finish_reason"] == "stop" and second["tool_calls"] == []
    assert out["text"].startswith("Tool results: get_weather (call_")
    assert out["text"].endswith(f"returned: {TOOL_OUTPUT}.")
    assert out["executed"] == [{"city": "city", "unit": "celsius"}]


def test_ai_sdk_generate_text_tool_loop_with_stop_when(ai_sdk):
    assert_tool_loop(result(ai_sdk, "tool_loop"))


def test_ai_sdk_stream_text_tool_loop_with_stop_when(ai_sdk):
    out = result(ai_sdk, "stream_tool_loop")
    assert_tool_loop(out)
    assert {"tool-call", "tool-result", "text-delta", "finish"} <= set(out["parts"])


def test_ai_sdk_structured_output(ai_sdk):
    out = result(ai_sdk, "structured_output")
    assert out["output"] == json.loads(out["text"])
    assert set(out["output"]) == {"city", "days", "sunny"}
    assert isinstance(out["output"]["days"], int) and isinstance(out["output"]["sunny"], bool)
