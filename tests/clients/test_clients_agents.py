"""``/v1/responses`` driven by the OpenAI Agents SDK (``openai-agents``, pinned in pyproject's ``test`` extra):
``Runner.run`` and ``Runner.run_streamed`` with a function tool, each a two-turn loop (the call, then its result
sent back with the call as returned) over real HTTP.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI
from support import TEST_TOKEN

# The SDK would export traces to OpenAI's servers; this process never reaches them.
set_tracing_disabled(True)


def weather_agent(client: AsyncOpenAI, calls: list[str]) -> Agent:
    @function_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        calls.append(city)
        return f"18 C and sunny in {city}"

    return Agent(
        name="Weather",
        instructions="Answer with the weather.",
        tools=[get_weather],
        model=OpenAIResponsesModel("openresponses-test", client),
    )


@pytest.fixture
def run_with_client(live_server):
    """Runs ``scenario(client)`` (a coroutine function) with a fresh ``AsyncOpenAI`` client, then closes it.

    In a thread of its own with its own event loop: playwright's sync API (the browser tests) leaves a loop
    running in the main thread, where ``asyncio.run`` refuses to start.
    """

    def run(scenario):
        async def main():
            client = AsyncOpenAI(base_url=live_server + "/v1", api_key=TEST_TOKEN, max_retries=0, timeout=20)
            try:
                return await scenario(client)
            finally:
                await client.close()

        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: asyncio.run(main())).result(timeout=60)

    return run


def assert_answered(final_output: str, calls: list[str]) -> None:
    assert calls == ["city"]  # the tool ran once, with the arguments the test model built
    assert final_output.startswith("Tool results: get_weather (call_")
    assert final_output.endswith("returned: 18 C and sunny in city.")


def test_runner_run_with_a_function_tool(run_with_client):
    calls: list[str] = []

    async def scenario(client):
        return await Runner.run(weather_agent(client, calls), "What is the weather in Paris?")

    result = run_with_client(scenario)
    assert_answered(result.final_output, calls)
    assert [item.type for item in result.new_items] == [
        "tool_call_item",
        "tool_call_output_item",
        "message_output_item",
    ]
    assert len(result.raw_responses) == 2


def test_runner_run_streamed_with_a_function_tool(run_with_client):
    calls: list[str] = []

    async def scenario(client):
        streamed = Runner.run_streamed(weather_agent(client, calls), "What is the weather in Paris?")
        raw = [event.data.type async for event in streamed.stream_events() if event.type == "raw_response_event"]
        return streamed, raw

    streamed, raw = run_with_client(scenario)
    assert_answered(streamed.final_output, calls)
    assert raw.count("response.completed") == 2  # two streamed turns
    assert "response.function_call_arguments.delta" in raw and "response.output_text.delta" in raw
