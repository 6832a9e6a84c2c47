"""``/v1/responses`` driven by LangChain's ``ChatOpenAI(use_responses_api=True)`` (``langchain-openai``, pinned in
pyproject's ``test`` extra) over real HTTP: invoke, stream, the ``bind_tools`` round trip after ``invoke`` and after
``stream``, ``use_previous_response_id``, ``with_structured_output``.

After ``stream`` LangChain replays the merged call without ``status`` (with its ``id``), then the tool's result.
"""

from __future__ import annotations

from typing import Literal

import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from openai import OpenAI
from pydantic import BaseModel
from support import TEST_TOKEN

QUESTION = "What is the weather in Paris?"


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"]) -> str:
    """Current weather for a city."""
    return f"18 degrees {unit} in {city}"


class Forecast(BaseModel):
    city: str
    days: int
    sunny: bool


@pytest.fixture(scope="module")
def chat_model(live_server):
    def make(**settings) -> ChatOpenAI:
        return ChatOpenAI(
            model="openresponses-test",
            base_url=live_server + "/v1",
            api_key=TEST_TOKEN,
            use_responses_api=True,
            max_retries=0,
            timeout=20,
            **settings,
        )

    return make


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    assert len(chunks) > 1, "streamed in one piece"
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    return total


def assert_tool_result(answer, call_id: str) -> None:
    assert answer.text == f"Tool results: get_weather ({call_id}) returned: 18 degrees celsius in city."
    assert answer.tool_calls == []


def test_invoke(chat_model):
    answer = chat_model().invoke("Hello LangChain")
    assert answer.text == 'You said: "Hello LangChain"'
    assert answer.response_metadata["status"] == "completed"
    assert answer.usage_metadata["total_tokens"] > 0


def test_stream(chat_model):
    chunks = list(chat_model().stream("Count from 1 to 5."))
    assert merged(chunks).text == 'You said: "Count from 1 to 5."'


def test_bind_tools_round_trip_after_invoke(chat_model):
    model = chat_model().bind_tools([get_weather])
    question = HumanMessage(QUESTION)
    asked = model.invoke([question])
    [call] = asked.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "city", "unit": "celsius"})
    result = get_weather.invoke(call)
    assert isinstance(result, ToolMessage) and result.tool_call_id == call["id"]
    assert_tool_result(model.invoke([question, asked, result]), call["id"])


def test_bind_tools_round_trip_after_stream(chat_model):
    model = chat_model().bind_tools([get_weather])
    question = HumanMessage(QUESTION)
    asked = merged(list(model.stream([question])))
    [call] = asked.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "city", "unit": "celsius"})
    result = get_weather.invoke(call)
    answer = merged(list(model.stream([question, asked, result])))  # the call goes back without a status
    assert_tool_result(answer, call["id"])


def test_bind_tools_round_trip_with_previous_response_id(chat_model, live_server):
    model = chat_model(use_previous_response_id=True).bind_tools([get_weather])
    question = HumanMessage(QUESTION)
    asked = model.invoke([question])
    [call] = asked.tool_calls
    answer = model.invoke([question, asked, get_weather.invoke(call)])
    assert_tool_result(answer, call["id"])
    # LangChain sent only the tool's result, continuing the stored response.
    sdk = OpenAI(base_url=live_server + "/v1", api_key=TEST_TOKEN, max_retries=0)
    stored = sdk.responses.retrieve(answer.response_metadata["id"])
    assert stored.previous_response_id == asked.response_metadata["id"]
    assert [item.type for item in sdk.responses.input_items.list(stored.id)] == ["function_call_output"]


def test_with_structured_output(chat_model):
    forecast = chat_model().with_structured_output(Forecast).invoke("A forecast for Paris")
    assert isinstance(forecast, Forecast)
    assert forecast.model_dump() == {"city": "city", "days": 0, "sunny": True}
