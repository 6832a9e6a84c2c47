"""The official JSON Schema Test Suite, run through the schema layer as data (as python-jsonschema runs it): one
pytest case per test of ``tests/data/json-schema-test-suite/`` (vendored, MIT licence beside it).

For each dialect (draft-04, -06, -07, 2019-09, 2020-12) the required files, ``optional/format/`` with format
assertion on, and ``optional/dependencies-compatibility.json`` (2019-09, 2020-12). ``$schema`` is set per dialect
on every schema that has none. The suite's ``remotes/`` are supplied as known documents registered under
``http://localhost:1234/`` (never fetched, as in production). Each case checks :meth:`CompiledSchema.is_valid`,
:meth:`CompiledSchema.errors` and, where the Rust fast path is on, that it gives the same answer."""

from __future__ import annotations

import io
import json

import pytest
from support import TESTS

from webapp.core.schema import bundle, compile_schema
from webapp.core.schema import errors as schema_errors

SUITE = TESTS / "data" / "json-schema-test-suite"

DIALECTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}
REMOTE_BASE = "http://localhost:1234/"

# Known failures: (dialect folder, file, group description, test description) -> why. Keep it short.
KNOWN_FAILURES: dict[tuple[str, str, str, str], str] = {}


def _remotes() -> dict[str, object]:
    documents = {}
    for path in sorted((SUITE / "remotes").rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        relative = path.relative_to(SUITE / "remotes").as_posix()
        if relative.startswith(("draft3/", "v1/")):
            continue
        documents[REMOTE_BASE + relative] = document
    return documents


REMOTES = _remotes()


def _cases():
    for folder, dialect in DIALECTS.items():
        base = SUITE / "tests" / folder
        files = [(p, False, "required") for p in sorted(base.glob("*.json"))]
        files += [(p, True, "format") for p in sorted((base / "optional" / "format").glob("*.json"))]
        if folder in ("draft2019-09", "draft2020-12"):
            files.append((base / "optional" / "dependencies-compatibility.json", False, "optional"))
        for path, format_assertion, kind in files:
            for group in json.loads(path.read_text(encoding="utf-8")):
                for test in group["tests"]:
                    key = (folder, path.relative_to(base).as_posix(), group["description"], test["description"])
                    marks = (
                        [pytest.mark.xfail(reason=KNOWN_FAILURES[key], strict=True)] if key in KNOWN_FAILURES else []
                    )
                    yield pytest.param(
                        dialect,
                        group["schema"],
                        test["data"],
                        test["valid"],
                        format_assertion,
                        marks=marks,
                        id=f"{kind}:{'/'.join(key)}",
                    )


def _with_dialect(schema, dialect: str):
    if isinstance(schema, dict) and "$schema" not in schema:
        return {"$schema": dialect, **schema}
    return schema


def _reraise(exc: Exception, where: str) -> schema_errors.SchemaInvalid:
    raise exc


@pytest.fixture(autouse=True)
def strict_engines(monkeypatch):
    """An engine exception fails the case instead of becoming "this schema cannot be used"."""
    monkeypatch.setattr(schema_errors, "engine_failure", _reraise)


@pytest.mark.parametrize(("dialect", "schema", "data", "valid", "format_assertion"), list(_cases()))
def test_suite(dialect, schema, data, valid, format_assertion):
    schema = _with_dialect(schema, dialect)
    compiled = compile_schema(bundle(schema, REMOTES), format_assertion=format_assertion)
    assert compiled.is_valid(data) is valid
    assert (compiled.errors(data) == []) is valid
    if compiled.fast_path:
        assert compiled._rust.is_valid(data) is valid, "the Rust fast path disagrees"


def _output_cases():
    for folder in ("draft2019-09", "draft2020-12"):
        base = SUITE / "output-tests" / folder
        output_schema = json.loads((base / "output-schema.json").read_text(encoding="utf-8"))
        for path in sorted((base / "content").glob("*.json")):
            for group in json.loads(path.read_text(encoding="utf-8")):
                for test in group["tests"]:
                    for form, expected in test["output"].items():
                        yield pytest.param(
                            group["schema"],
                            test["data"],
                            form,
                            expected,
                            output_schema,
                            id=f"output:{folder}/{path.name}/{group['description']}/{test['description']}/{form}",
                        )


@pytest.mark.parametrize(("schema", "data", "form", "expected", "output_schema"), list(_output_cases()))
def test_output_format(schema, data, form, expected, output_schema):
    """Our 2020-12 §12 output is valid under the suite's schema for it (which refers to the output schema of the
    dialect: supplied as a known document, like the remotes)."""
    answer = compile_schema(schema).output(data, form)
    checker = compile_schema(bundle(expected, {output_schema["$id"]: output_schema}))
    assert checker.is_valid(answer), checker.errors(answer)


@pytest.mark.parametrize("form", ["flag", "basic", "detailed"])
def test_every_output_format_is_valid_under_the_output_schema(form):
    """Each format answers the 2020-12 output schema, for a failing value with nested alternatives and for a
    valid one."""
    base = SUITE / "output-tests" / "draft2020-12"
    output_schema = json.loads((base / "output-schema.json").read_text(encoding="utf-8"))
    checker = compile_schema(output_schema)
    compiled = compile_schema(
        {
            "$defs": {"n": {"type": "null"}},
            "properties": {"a": {"type": "number"}},
            "anyOf": [{"type": "string"}, {"$ref": "#/$defs/n"}],
            "readOnly": True,
        }
    )
    failing = compiled.output({"a": "x"}, form)
    assert failing["valid"] is False and checker.is_valid(failing), checker.errors(failing)
    passing = compiled.output(None, form)
    assert passing["valid"] is True and checker.is_valid(passing), checker.errors(passing)
    if form == "basic":
        assert {u["keywordLocation"] for u in failing["errors"]} >= {"/properties/a/type", "/anyOf/1/$ref/type"}
        assert [u["keywordLocation"] for u in passing["annotations"]] == ["/readOnly"]


# --------------------------------------------------------------------------------------------------------------
# Referenced schemas and output formats through /api/gate and the CLI

ADDRESS = {
    "$id": "https://example.com/address.json",
    "type": "object",
    "required": ["city"],
    "properties": {"city": {"type": "string"}},
}
SHIPPING = {"type": "object", "properties": {"to": {"$ref": "https://example.com/address.json"}}, "required": ["to"]}


def _call(arguments: object) -> dict:
    return {
        "type": "function_call",
        "status": "completed",
        "name": "ship",
        "call_id": "c",
        "arguments": json.dumps(arguments),
    }


def test_api_gate_resolves_supplied_schemas_locally(client):
    body = {"item": _call({"to": {"city": 7}}), "schema": SHIPPING, "schemas": [ADDRESS]}
    answer = client.post("/api/gate", json=body).get_json()
    assert answer["reason"] == "arguments_schema" and answer["schema_error"] is None
    assert [e["pointer"] for e in answer["errors"]] == ["/to/city"]
    assert client.post("/api/gate", json={**body, "item": _call({"to": {"city": "Oslo"}})}).get_json()["ok"]
    # by URI, and through the tools' parameters
    tools = [{"type": "function", "name": "ship", "parameters": SHIPPING}]
    by_uri = {"item": _call({"to": {}}), "tools": tools, "schemas": {ADDRESS["$id"]: ADDRESS}}
    assert client.post("/api/gate", json=by_uri).get_json()["reason"] == "arguments_schema"
    # without them the reference is refused, never fetched
    alone = client.post("/api/gate", json={"item": _call({"to": {}}), "schema": SHIPPING}).get_json()
    assert "remote references are disabled" in alone["schema_error"]["message"]


def test_api_gate_refuses_unusable_supplied_schemas(client):
    response = client.post("/api/gate", json={"item": _call({}), "schema": SHIPPING, "schemas": [{"type": "object"}]})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["param"] == "schemas" and "/0" in error["message"] and "$id" in error["message"]
    response = client.post("/api/gate", json={"item": _call({}), "schema": SHIPPING, "schemas": "x"})
    assert response.status_code == 400 and response.get_json()["error"]["param"] == "schemas"


def test_api_gate_answers_output_formats_on_request(client):
    body = {"item": _call({"to": {"city": 7}}), "schema": SHIPPING, "schemas": [ADDRESS]}
    default = client.post("/api/gate", json=body).get_json()
    assert "output" not in default
    basic = client.post("/api/gate", json={**body, "output": "basic"}).get_json()
    assert basic["reason"] == default["reason"] and basic["errors"] == default["errors"]
    assert basic["output"]["valid"] is False
    unit = basic["output"]["errors"][0]
    assert unit["keywordLocation"] == "/properties/to/$ref/properties/city/type"
    assert unit["absoluteKeywordLocation"] == "https://example.com/address.json#/properties/city/type"
    assert unit["instanceLocation"] == "/to/city"
    flag = client.post("/api/gate", json={**body, "output": "flag"}).get_json()["output"]
    assert flag == {"valid": False}
    response = client.post("/api/gate", json={**body, "output": "verbose"})
    assert response.status_code == 400 and response.get_json()["error"]["param"] == "output"


def test_cli_schema_dir_and_output(tmp_path):
    from webapp.__main__ import main

    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "address.json").write_text(json.dumps(ADDRESS), encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SHIPPING), encoding="utf-8")
    (tmp_path / "journal.json").write_text(json.dumps([_call({"to": {"city": 7}})]), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = main(
        [
            "gate",
            str(tmp_path / "journal.json"),
            "--schema",
            str(tmp_path / "schema.json"),
            "--schema-dir",
            str(tmp_path / "schemas"),
            "--json",
            "--output",
            "basic",
        ],
        out,
        err,
    )
    assert status == 1, err.getvalue()
    entry = json.loads(out.getvalue())["items"][0]
    assert entry["reason"] == "arguments_schema"
    assert entry["output"]["errors"][0]["instanceLocation"] == "/to/city"
    out, err = io.StringIO(), io.StringIO()
    assert main(["gate", str(tmp_path / "journal.json"), "--schema", str(tmp_path / "schema.json")], out, err) == 2
    assert "remote references are disabled" in err.getvalue()


def test_schema_page_takes_referenced_schemas(client):
    form = {"instance": json.dumps({"to": {"city": 7}}), "schema": json.dumps(SHIPPING)}
    alone = client.post("/schema", data=form).get_data(as_text=True)
    assert "remote references are disabled" in alone
    page = client.post("/schema", data={**form, "documents": json.dumps([ADDRESS])}).get_data(as_text=True)
    assert "remote references are disabled" not in page and 'data-testid="validity">invalid' in page
    assert "example.com/address.json" in page  # the referenced schemas are kept as pasted
    bad = client.post("/schema", data={**form, "documents": "[{"}).get_data(as_text=True)
    assert "The referenced schemas are not JSON" in bad
    no_id = client.post("/schema", data={**form, "documents": '[{"type": "object"}]'}).get_data(as_text=True)
    assert "schema unusable" in no_id and "$id" in no_id


def test_format_is_asserted_only_where_the_dialect_defines_it():
    """A format name an older dialect does not define is an annotation there, in both engines."""
    for dialect, asserted in (
        ("http://json-schema.org/draft-04/schema#", False),
        ("http://json-schema.org/draft-07/schema#", False),
        ("https://json-schema.org/draft/2019-09/schema", True),
    ):
        compiled = compile_schema({"$schema": dialect, "format": "uuid"}, format_assertion=True)
        assert ("uuid" in compiled.checked_formats) is asserted
        assert compiled.is_valid("not-a-uuid") is not asserted
        assert compiled._rust.is_valid("not-a-uuid") is not asserted
