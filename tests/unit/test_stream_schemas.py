"""The bundled event schemas (``webapp/core/stream/event-schemas.json``): made by ``scripts/bundle_event_schemas.py``
from the vendored OpenAPI document and up to date with it; the vocabulary names every event they define; errors
carry the JSON Pointer of the member at fault, inside the union member the value's ``type`` names."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from webapp.core.stream import BODY_SCHEMAS, EVENT_SCHEMAS, SPEC_VERSION, WEBSOCKET_SCHEMAS, violations
from webapp.core.stream import vocabulary as v

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "bundle_event_schemas.py"


def bundler():
    spec = importlib.util.spec_from_file_location("bundle_event_schemas", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_bundle_is_what_the_script_makes_of_the_vendored_document():
    script = bundler()
    document = json.loads(script.SOURCE.read_text(encoding="utf-8"))
    assert script.TARGET.read_text(encoding="utf-8") == script.render(document)
    assert SPEC_VERSION == document["info"]["version"] == "2026-04-24"


def test_the_script_checks_and_says_when_the_bundle_is_out_of_date(tmp_path, capsys):
    script = bundler()
    assert script.main(["--check"]) == 0
    document = json.loads(script.SOURCE.read_text(encoding="utf-8"))
    document["components"]["schemas"]["LogProb"]["description"] = "changed"
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    assert script.main(["--check", "--source", str(changed)]) == 1
    assert "out of date" in capsys.readouterr().out


def test_the_vocabulary_names_exactly_the_events_of_the_document():
    named = {value for name, value in vars(v).items() if name.isupper() and isinstance(value, str)}
    named -= {v.RESPONSE_CREATE, v.INCOMPLETE}
    assert named == set(EVENT_SCHEMAS)
    assert set(v.TERMINAL_EVENTS) | set(v.LIFECYCLE_EVENTS) == set(v.RESPONSE_EVENTS)
    assert set(WEBSOCKET_SCHEMAS) == {v.RESPONSE_CREATE, v.ERROR}
    assert set(BODY_SCHEMAS.values()) == {"ResponseResource", "CompactResource"}


def test_errors_name_the_member_inside_the_union_member_meant():
    added = {
        "type": "response.output_item.added",
        "sequence_number": 2,
        "item": {"type": "function_call", "call_id": "c", "name": "f", "arguments": "", "status": "in_progress"},
    }
    found = [(e.pointer, e.keyword) for e in violations(added, EVENT_SCHEMAS[added["type"]])]
    assert found == [("/output_index", "required"), ("/item/id", "required")]
    part = {
        "type": "response.output_item.done",
        "sequence_number": 3,
        "output_index": 0,
        "item": {
            "type": "message",
            "id": "m",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": ""}],
        },
    }
    assert [e.pointer for e in violations(part, EVENT_SCHEMAS[part["type"]])] == ["/item/content/0/annotations"]


def test_a_valid_event_has_no_violation_and_a_type_no_union_claims_keeps_the_union_error():
    delta = {
        "type": "response.output_text.delta",
        "sequence_number": 4,
        "item_id": "m",
        "output_index": 0,
        "content_index": 0,
        "delta": "x",
    }
    assert violations(delta, EVENT_SCHEMAS[delta["type"]]) == []
    other = {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"type": "x:y"}}
    (error,) = violations(other, EVENT_SCHEMAS[other["type"]])
    assert (error.pointer, error.keyword) == ("/item", "anyOf")
