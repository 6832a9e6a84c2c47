"""webapp.schema: JSON Schema with python-jsonschema's traps fixed, and the Rust fast path agreeing with it.

Data-driven from ``tests/cases/schema.json`` (valid/invalid instances, errors) and
``tests/cases/schema_invalid.json`` (unusable schemas)."""

from __future__ import annotations

import http.server
import json
import threading
import warnings
from pathlib import Path

import jsonschema_rs
import pytest

from webapp import schema as schema_module
from webapp.schema import (
    DEFAULT_DIALECT,
    PatternTimeout,
    SchemaError,
    SchemaInvalid,
    compile_schema,
    ecma_pattern,
)

CASES = Path(__file__).parent / "cases"
GROUPS = json.loads((CASES / "schema.json").read_text(encoding="utf-8"))["groups"]
INVALID = json.loads((CASES / "schema_invalid.json").read_text(encoding="utf-8"))["cases"]
GATE_CASES = json.loads((CASES / "gate.json").read_text(encoding="utf-8"))["cases"]

TESTS = [(group, test) for group in GROUPS for test in group["tests"]]
TEST_IDS = [f"{group['description']} / {test['description']}" for group, test in TESTS]


@pytest.fixture(autouse=True)
def short_pattern_budget(monkeypatch):
    """Catastrophic patterns give up after 0.2 s here instead of 1 s: same behaviour, faster suite."""
    monkeypatch.setattr("webapp.schema.PATTERN_BUDGET_SECONDS", 0.2)


def compiled_for(group: dict) -> schema_module.CompiledSchema:
    return compile_schema(group["schema"], format_assertion=group.get("format_assertion", False))


@pytest.mark.parametrize(("group", "test"), TESTS, ids=TEST_IDS)
def test_case_validity(group, test):
    assert compiled_for(group).is_valid(test["data"]) is test["valid"]


@pytest.mark.parametrize(("group", "test"), TESTS, ids=TEST_IDS)
def test_case_errors(group, test):
    errors = compiled_for(group).errors(test["data"])
    assert (errors == []) is test["valid"]
    if "errors" in test:
        got = [{key: getattr(error, key) for key in expected} for error, expected in zip(errors, test["errors"])]
        assert got == test["errors"]
        assert len(errors) == len(test["errors"])
    for error in errors:
        assert isinstance(error, SchemaError)
        assert error.message and error.keyword
        assert error.pointer == "" or error.pointer.startswith("/")


@pytest.mark.parametrize(("group", "test"), TESTS, ids=TEST_IDS)
def test_both_engines_agree(group, test):
    """The Rust fast path and the reference engine give the same answer on every case (the fast path is only
    trusted because of this); a catastrophic pattern may leave the reference engine undecided, never wrong."""
    compiled = compiled_for(group)
    assert compiled.fast_path, compiled.fast_path_note
    assert compiled.fast_is_valid(test["data"]) is test["valid"]
    if group.get("catastrophic") and not test["valid"]:
        with pytest.raises(PatternTimeout):
            compiled.reference_is_valid(test["data"])
    else:
        assert compiled.reference_is_valid(test["data"]) is test["valid"]


def gate_arguments_cases():
    tools = {tool["name"]: tool["parameters"] for tool in json.loads(
        (Path(__file__).resolve().parent / "data" / "samples" / "tools.json").read_text())}
    for case in GATE_CASES:
        schema = case.get("schema", tools.get(case.get("tool")))
        arguments = case["item"].get("arguments")
        if schema is None or not isinstance(arguments, str):
            continue
        try:
            value = json.loads(arguments)
        except ValueError:
            continue
        yield pytest.param(schema, value, id=case["description"])


@pytest.mark.parametrize(("schema", "value"), list(gate_arguments_cases()))
def test_engines_agree_on_gate_cases(schema, value):
    compiled = compile_schema(schema)
    assert compiled.fast_is_valid(value) is compiled.reference_is_valid(value)


@pytest.mark.parametrize("value", [0.1 * k for k in range(1, 60)] + [round(k * 0.01, 2) for k in range(1, 400, 7)]
                         + [1e-7, 3e-7, 1.5e15, 4.35, 1.1, 2.675, 1e308, 12345678.91])
@pytest.mark.parametrize("divisor", [0.1, 0.01, 0.05, 1e-7, 0.25, 2.5])
def test_multiple_of_engines_agree(value, divisor):
    compiled = compile_schema({"multipleOf": divisor})
    assert compiled.fast_is_valid(value) is compiled.reference_is_valid(value)


PATTERN_PROBES = ["", "a", "abc", "ABC", "a\n", "\n", "42", "৪২", "é", "e\u0301", "a b", "a\u00a0b", "a\tb",
                  "😀", "2024-01-31", "x-y", "a.b", "a\rb", "ab\u2028", "__init__", "héllo wörld", "Ω"]
PATTERNS = [r"^\d+$", r"^\w+$", r"\bword\b", r"^\s*$", r"^[a-z]+$", r"^.$", r"^.+$", r"^[^a]*$", r"\p{L}",
            r"^\p{Lu}", r"(?<y>\d{4})-\d{2}", r"^[\d-]+$", r"^\S+$", r"^\D+$", r"^\W+$", r"a|^$", r"\u00e9",
            r"^\u{1F600}$", r"[\s]", r"^(?:a|b)+$", r"\.", r"^[A-Z]{3}-[0-9]{4}$", r"x\/y", r"^.{2}$"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_pattern_dialect_engines_agree(pattern):
    compiled = compile_schema({"pattern": pattern})
    assert compiled.fast_path, compiled.fast_path_note
    for probe in PATTERN_PROBES:
        assert compiled.fast_is_valid(probe) is compiled.reference_is_valid(probe), (pattern, probe)


def test_ecma_pattern_translation():
    assert ecma_pattern("^a$") == "^a\\Z"
    assert ecma_pattern("[$.]") == "[$.]"  # inside a class, $ and . are literal
    assert ecma_pattern("\\$") == "\\$"
    assert ecma_pattern("\\u{1F600}") == "\\U0001f600"
    assert ecma_pattern("a\\/b") == "a/b"


@pytest.mark.parametrize("case", INVALID, ids=[c["description"] for c in INVALID])
def test_unusable_schema(case):
    with pytest.raises(SchemaInvalid) as caught:
        compile_schema(case["schema"])
    problem = caught.value
    assert problem.pointer == case["pointer"]
    assert problem.keyword == case["keyword"]
    assert case["message"] in problem.message
    assert problem.as_dict() == {"message": problem.message, "pointer": problem.pointer, "keyword": problem.keyword}


def test_unusable_schema_is_cached_and_raised_again():
    schema = {"$ref": "#/nowhere"}
    with pytest.raises(SchemaInvalid) as first:
        compile_schema(schema)
    with pytest.raises(SchemaInvalid) as second:
        compile_schema(schema)
    assert first.value is second.value


def test_dialects():
    assert compile_schema({}).dialect == DEFAULT_DIALECT
    assert compile_schema({}).dialect_name == "2020-12"
    assert compile_schema({"$schema": "http://json-schema.org/draft-07/schema#"}).dialect_name == "draft-07"
    assert compile_schema({"$schema": "http://json-schema.org/draft-07/schema"}).dialect_name == "draft-07"
    assert compile_schema({"$schema": "http://json-schema.org/draft-06/schema#"}).dialect_name == "draft-06"
    assert compile_schema({"$schema": "https://json-schema.org/draft/2019-09/schema"}).dialect_name == "2019-09"
    assert compile_schema(True).dialect_name == "2020-12"


def test_unknown_dialect_emits_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SchemaInvalid):
            compile_schema({"$schema": "https://example.com/other-dialect"})


def test_compile_once_equal_schemas_share_one_compilation():
    first = compile_schema({"type": "object", "properties": {"a": {"type": "string"}}})
    second = compile_schema({"properties": {"a": {"type": "string"}}, "type": "object"})
    assert first is second
    assert compile_schema({"type": "object"}, format_assertion=True) is not compile_schema({"type": "object"})


def test_the_caller_may_mutate_its_schema_after_compiling():
    schema = {"type": "object", "required": ["a"]}
    compiled = compile_schema(schema)
    assert compiled.schema is not schema
    assert compiled.schema == {"type": "object", "required": ["a"]}


def test_format_assertion_reports_the_checked_formats():
    assert compile_schema({}).checked_formats == ()
    checked = compile_schema({}, format_assertion=True).checked_formats
    assert {"date", "date-time", "email", "ipv4", "ipv6", "uuid", "uri", "hostname"} <= set(checked)


def test_schema_nested_too_deep_is_a_schema_error():
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["items"] = {}
        node = node["items"]
    with pytest.raises(SchemaInvalid) as caught:
        compile_schema(deep)
    assert "nested deeper than" in caught.value.message


def test_a_legitimately_recursive_schema_handles_deep_values():
    tree = {"type": "array", "items": {"$ref": "#"}}
    value: list = []
    for _ in range(99):
        value = [value]
    compiled = compile_schema(tree)
    assert compiled.is_valid(value)
    assert compiled.reference_is_valid(value)
    assert compiled.errors(value) == []


def test_big_schema_compiles():
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer", "minimum": i} for i in range(1500)}}
    compiled = compile_schema(schema)
    assert compiled.is_valid({"p1": 5})
    assert [e.pointer for e in compiled.errors({"p7": 1})] == ["/p7"]


def test_catastrophic_pattern_without_fast_path_raises_in_bounded_time(monkeypatch):
    """With only the backtracking engine, a catastrophic pattern is a clear SchemaInvalid, not a hang."""
    monkeypatch.setattr(schema_module, "PATTERN_BUDGET_SECONDS", 0.2)
    compiled = compile_schema({"pattern": "^(a|a)*$", "title": "no fast path in this test"})
    monkeypatch.setattr(compiled, "_rust", None)
    with pytest.raises(PatternTimeout) as caught:
        compiled.is_valid("a" * 40 + "!")
    assert caught.value.pointer == "/pattern"
    assert "catastrophic backtracking" in caught.value.message


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's naming
        _CountingHandler.hits.append(self.path)
        body = b'{"type": "integer"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def schema_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    _CountingHandler.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_nothing_is_ever_fetched(schema_server):
    """Remote $ref, $dynamicRef, a remote $schema and an $id-relative document: refused, and the server that
    would have answered never sees a request — from either engine."""
    schemas = [
        {"$ref": f"{schema_server}/s.json"},
        {"properties": {"a": {"$ref": f"{schema_server}/s.json#/$defs/x"}}},
        {"$id": f"{schema_server}/root.json", "$ref": "other.json"},
        {"$dynamicRef": f"{schema_server}/s.json#meta"},
        {"$schema": f"{schema_server}/meta.json"},
    ]
    for schema in schemas:
        with pytest.raises(SchemaInvalid):
            compile_schema(schema)
    # the engines themselves, as configured by our layer, refuse too
    with pytest.raises(jsonschema_rs.ValidationError):
        jsonschema_rs.validator_for({"$ref": f"{schema_server}/s.json"},
                                    retriever=schema_module._refuse_retrieval)
    from referencing.exceptions import Unresolvable
    with pytest.raises(Unresolvable):
        schema_module._PY_REGISTRY.resolver().lookup(f"{schema_server}/s.json")
    assert _CountingHandler.hits == []


def test_a_value_nested_beyond_the_guard_is_refused_not_a_crash():
    compiled = compile_schema({"type": "array", "items": {"$ref": "#"}})
    value: list = []
    for _ in range(schema_module.MAX_INSTANCE_DEPTH + 5):
        value = [value]
    with pytest.raises(schema_module.InstanceTooDeep):
        compiled.is_valid(value)
    with pytest.raises(schema_module.InstanceTooDeep):
        compiled.errors(value)


def test_a_pattern_both_engines_give_up_on_is_a_schema_problem():
    """A backreference forces the Rust engine to backtrack too (with a limit): no answer, a schema error."""
    compiled = compile_schema({"properties": {"code": {"pattern": "^(?=(a|a)*$)(a+)\\1*$"}}})
    value = {"code": "a" * 40 + "!"}
    assert compiled.is_valid({"code": "aaa"})
    with pytest.raises(PatternTimeout) as caught:
        compiled.errors(value)
    assert caught.value.pointer == "/properties/code/pattern"
