"""``python -m webapp lint-stream``: one line per finding with its place, a summary, ``--json``; exit 0 clean,
1 findings, 2 unreadable."""

from __future__ import annotations

import json

from support import TESTS
from support.cli import run

CASES = TESTS / "cases" / "streams"


def clean_stream(app) -> str:
    answer = app.test_client().post(
        "/v1/responses",
        json={"model": "m", "input": "Count from 1 to 5.", "stream": True},
        headers={"Authorization": f"Bearer {app.config['API_TOKEN']}"},
    )
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_the_endpoints_own_stream_is_clean_exit_0(app, tmp_path):
    path = tmp_path / "own.sse"
    text = clean_stream(app)
    path.write_text(text, encoding="utf-8")
    code, out, _ = run("lint-stream", str(path))
    assert code == 0
    assert out == f"{path}: SSE text (curl -N), {text.count('data: ')} events: clean\n"


def test_findings_exit_1_with_file_line_column_event_and_pointer():
    path = CASES / "vllm-57998.sse"
    code, out, _ = run("lint-stream", str(path))
    first, summary = out.splitlines()
    assert code == 1
    assert first.startswith(f"{path}:71:7: event 23 (response.incomplete): error status_inconsistent: ")
    assert first.endswith(" at /response/output/0/status")
    assert summary == f"{path}: SSE text (curl -N), 25 events: 1 error, 0 warnings"


def test_json_output(tmp_path):
    code, out, _ = run("lint-stream", str(CASES / "sglang-12653.sse"), "--json")
    report = json.loads(out)
    assert code == 1 and report["kind"] == "sse" and report["events"] == 8 and report["errors"] == 3
    assert {f["code"] for f in report["findings"]} == {"schema_invalid", "item_not_done", "output_mismatch"}
    (stream,) = report["streams"]
    assert stream["response"]["status"] == "completed" and stream["response"]["output"][0]["id"] == "fc_71"


def test_unreadable_input_exits_2_naming_the_place(tmp_path):
    empty = tmp_path / "empty.sse"
    empty.write_text("", encoding="utf-8")
    code, _, err = run("lint-stream", str(empty))
    assert code == 2 and err == f"{empty}: line 1, column 1: the recording is empty\n"
    har = tmp_path / "broken.har"
    har.write_text('{"log": {"entries": [', encoding="utf-8")
    code, _, err = run("lint-stream", str(har), "--kind", "har")
    assert code == 2 and err.startswith(f"{har}: line 1, column 22: this HAR file is not JSON")
    code, _, err = run("lint-stream", str(tmp_path / "missing.sse"))
    assert code == 2 and "cannot read it" in err
