"""The pages' examples, written once: the replay-gate article's items (``fc_001``, ``fc_009``, ``ws_001`` and the
region schema, as in ``README.md``'s example of ``/api/gate``) and the usual ways a stored call goes wrong.

Each page offers its own table as plain links (``?example=<name>``, no JavaScript needed); the tests load the same
tables, so an example and its test cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["DIFF", "FC_001", "FC_009", "FORMAT", "REGION_SCHEMA", "SCHEMA", "WS_001"]


def _call(item_id: str, call_id: str, region: str) -> dict[str, Any]:
    """The article's ``get_latest_sales_report`` call with ``region`` in its ``arguments`` string."""
    return {
        "type": "function_call",
        "id": item_id,
        "name": "get_latest_sales_report",
        "call_id": call_id,
        "status": "completed",
        "arguments": json.dumps({"region": region}, separators=(",", ":")),
    }


#: The article's call that may be replayed.
FC_001 = _call("fc_001", "call_123", "apac")
#: The article's call whose ``region`` the tool's enum refuses.
FC_009 = _call("fc_009", "call_129", "global")
#: The article's provider extension: a namespaced type, never portable.
WS_001 = {
    "type": "openai:web_search_call",
    "id": "ws_001",
    "status": "completed",
    "action": {"type": "search", "query": "apac sales report"},
}
#: The article's tool schema: ``region`` is one of three.
REGION_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["region"],
    "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
}

#: Format (step 1): name -> (title, document text).
FORMAT: dict[str, tuple[str, str]] = {
    "fc_001": ("fc_001 (article)", json.dumps(FC_001, indent=2)),
    "fc_009": ("fc_009 (article)", json.dumps(FC_009, indent=2)),
    "object-arguments": (
        "arguments as an object",
        json.dumps({**FC_001, "id": "fc_002", "arguments": {"region": "apac"}}, indent=2),
    ),
    "double-encoded": (
        "double-encoded",
        json.dumps({**FC_001, "id": "fc_003", "arguments": json.dumps(FC_001["arguments"])}, indent=2),
    ),
    "truncated": (
        "truncated (incomplete)",
        json.dumps({**FC_001, "id": "fc_004", "status": "incomplete", "arguments": '{"region":"ap'}, indent=2),
    ),
    "namespaced": ("openai:web_search_call (article)", json.dumps(WS_001, indent=2)),
    "journal": (
        "a journal (JSON Lines)",
        "\n".join(
            json.dumps(item)
            for item in [
                {"type": "message", "role": "user", "content": "Latest sales for APAC?"},
                FC_001,
                {"type": "function_call_output", "call_id": "call_123", "output": "sales report for apac"},
                WS_001,
            ]
        )
        + "\n",
    ),
    "numbers": (
        "numbers as written",
        '{"price": 1.10, "n": 1e2, "zero": -0, "id": 9007199254740993,\n'
        ' "big": 123456789012345678901234567890, "huge": 1e400, "name": "a", "name": "b"}',
    ),
}

#: JSON Schema (step 2): name -> (button label, instance, schema).
SCHEMA: dict[str, tuple[str, Any, Any]] = {
    "fc_001": ("fc_001 · apac (ok)", FC_001, REGION_SCHEMA),
    "fc_009": ("fc_009 · global (not in enum)", FC_009, REGION_SCHEMA),
    "tool": (
        "fc_009 · against the tool definition",
        FC_009,
        {
            "type": "function",
            "name": "get_latest_sales_report",
            "description": "Latest sales report for a region",
            "parameters": REGION_SCHEMA,
            "strict": True,
        },
    ),
}

# The same call from two providers (samples/same-call), and as a Chat Completions message.
_SAME_CALL = {
    "type": "function_call",
    "id": "fc_0a1b2c3d4e66",
    "call_id": "call_T0sA5pCn2",
    "name": "get_weather",
    "arguments": '{"location": "Paris", "unit": "celsius"}',
    "status": "completed",
}
_OTHER_PROVIDER = {
    "type": "function_call",
    "id": "fc_9f8e7d6c5b4a",
    "call_id": "call_T0sA5pCn2",
    "name": "get_weather",
    "arguments": '{"unit":"celsius","location":"Paris"}',
    "status": "completed",
}
_CHAT_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_T0sA5pCn2",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"location":"Paris","unit":"celsius"}'},
        }
    ],
}

#: JSON Diff (step 3): name -> (title, left, right).
DIFF: dict[str, tuple[str, Any, Any]] = {
    "namespaced": ("fc_001 vs openai:web_search_call (article)", FC_001, WS_001),
    "other-call": ("fc_001 vs fc_009 (article)", FC_001, FC_009),
    "same-call": ("same call, two providers", _SAME_CALL, _OTHER_PROVIDER),
    "chat-completions": ("Open Responses vs Chat Completions", _SAME_CALL, _CHAT_MESSAGE),
}
