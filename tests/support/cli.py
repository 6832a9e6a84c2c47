"""The command line run in process, as the CLI tests call it: ``run("gate", path) -> (exit code, stdout, stderr)``;
the weather tool and a call of it, which the CLI tests of both kinds (``unit``, ``cli``) gate."""

from __future__ import annotations

import io

from webapp.__main__ import main


def run(*argv: str) -> tuple[int, str, str]:
    """``python -m webapp *argv`` in this process: (its exit code, what it wrote to stdout, to stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


#: The function tool the CLI tests' calls name.
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
        "additionalProperties": False,
    },
}


def call(call_id: str, arguments: str = '{"location":"Paris"}', status: str = "completed") -> dict:
    """A ``function_call`` of :data:`WEATHER_TOOL` with ``call_id``, ``arguments`` and ``status``."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }
