"""JSON Schema in a child process under a memory limit: what a costly ``pattern`` costs to compile is bounded
(``webapp/core/schema/patterns.py``). The rest of the schema tests run in process: ``tests/unit/test_schema.py``."""

from __future__ import annotations

import json
import subprocess
import sys

from support import REPO

MEMORY_PROBE = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from webapp import create_app
from webapp.core.schema import SchemaError, compile_schema
client = create_app({"TESTING": True, "RESPONSES_DATABASE": sys.argv[1]}).test_client()
call = {"type": "function_call", "status": "completed", "name": "t", "call_id": "c", "arguments": '{"a": "a"}'}
answers = []
for n in (3000, 2999, 2998):
    pattern = "^(?:a{%d}){%d}$" % (n, n)
    reply = client.post("/api/gate", json={"item": call, "schema": {"properties": {"a": {"pattern": pattern}}}})
    answers.append({"status": reply.status_code, "schema_error": reply.get_json()["schema_error"],
                    "message": reply.get_json()["message"]})
    try:
        compile_schema({"patternProperties": {pattern: {}}})
        answers.append({"compiled": True})
    except SchemaError as problem:
        answers.append({"schema_error": problem.as_dict(), "message": problem.message,
                        "unexpected": problem.unexpected})
print(json.dumps(answers))
"""


def test_costly_patterns_are_answered_within_a_memory_limit(tmp_path):
    """The reviewer's reproducer: each of these patterns took 2.3 GB and seconds to compile. Under a 1 GiB
    address-space limit, the gate and compile_schema answer a schema problem naming the pattern (before the fix:
    "the validator failed with MemoryError")."""
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(tmp_path / "db.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout)
    assert len(answers) == 6
    for answer in answers:
        assert "MemoryError" not in answer["message"] and answer.get("unexpected") is None
        assert "too costly to compile" in answer["schema_error"]["message"]
        assert answer["schema_error"]["keyword"] in ("pattern", "patternProperties")
    assert [a["schema_error"]["pointer"] for a in answers[::2]] == ["/properties/a/pattern"] * 3
    assert all(a["status"] == 200 for a in answers[::2])
