"""Fuzzing every route with hypothesis (derandomized: the same examples on every run, about a minute in all).

Whatever is sent: no 5xx except the documented ``model_error`` of ``/v1/responses``, no request taking longer
than a bound, and on the machine routes (``/api/*``, ``/v1/*``) every error in the one shape
``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import TEST_TOKEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp import create_app
from webapp.core.items import CALL_STATUSES, ITEM_TYPES

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SECONDS_PER_REQUEST = 15  # far above any honest answer here; a hang or a runaway build would pass it
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SCHEMA_KEYS = (
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "$defs",
    "$schema",
    "additionalProperties",
    "minimum",
    "maximum",
    "multipleOf",
    "format",
    "default",
)
FIELD_KEYS = (
    "type",
    "id",
    "call_id",
    "name",
    "status",
    "arguments",
    "role",
    "content",
    "output",
    "text",
    "parameters",
    "input",
    "tools",
    "model",
)
keys = st.sampled_from(SCHEMA_KEYS + FIELD_KEYS) | st.text(max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["object", "string", "array", "integer", "#", "#/$defs/a", "^a+$", "(a+)+$", "completed", "user"])
    | st.text(max_size=12)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=12
)
texts = st.text(max_size=40) | values.map(json.dumps)

items = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(ITEM_TYPES) | st.sampled_from(["openai:web_search_call", "item_reference"]) | scalars,
        "id": st.text(max_size=8),
        "call_id": st.sampled_from(["call_1", "call_2"]) | scalars,
        "name": st.sampled_from(["f", "get_weather"]) | scalars,
        "status": st.sampled_from(CALL_STATUSES) | scalars,
        "arguments": texts | values,
        "role": st.sampled_from(["user", "assistant", "system", "developer"]) | scalars,
        "content": st.text(max_size=20) | values,
        "output": texts | values,
    },
)
tools = st.lists(
    st.fixed_dictionaries(
        {"type": st.just("function") | scalars, "name": st.sampled_from(["f"]) | scalars},
        optional={"parameters": values, "description": st.text(max_size=10)},
    ),
    max_size=2,
)
gate_bodies = st.fixed_dictionaries(
    {},
    optional={
        "item": items | values,
        "items": st.lists(items, max_size=3) | values,
        "journal": texts | values,
        "schema": values,
        "tools": tools | values,
        "format_assertion": st.booleans() | scalars,
        "tool_choice": values,
    },
)
response_bodies = st.fixed_dictionaries(
    {},
    optional={
        "model": st.just("m") | scalars,
        "input": st.text(max_size=20) | st.lists(items, max_size=3) | values,
        "tools": tools | values,
        "tool_choice": st.sampled_from(["auto", "required", "none"]) | values,
        "previous_response_id": st.text(max_size=8) | scalars,
        "stream": st.booleans() | scalars,
        "store": st.booleans() | scalars,
        "max_output_tokens": scalars,
        "text": values,
        "instructions": scalars,
        "messages": values,
    },
)
bodies = (
    gate_bodies.map(json.dumps)
    | response_bodies.map(json.dumps)
    | values.map(json.dumps)
    | st.text(max_size=60)
    | st.binary(max_size=40).map(lambda b: b.decode("latin-1"))
)
media_types = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", None])
segments = st.text(st.characters(codec="utf-8", exclude_characters="/?#"), min_size=1, max_size=12)
QUERY_NAMES = st.sampled_from(["limit", "offset", "after", "order", "x"])
HOSTILE = st.sampled_from(
    ["1", "0", "-1", "²", "١", "99999999999999999999", "9223372036854775808", "1e3", "asc", "desc", "", " 1"]
)
queries = st.dictionaries(QUERY_NAMES, HOSTILE, min_size=1, max_size=2) | st.dictionaries(
    QUERY_NAMES, st.text(max_size=6), max_size=3
)
FORM_FIELDS = (
    "document",
    "instance",
    "schema",
    "left",
    "right",
    "indent",
    "action",
    "pointer",
    "start",
    "digest",
    "format_assertion",
    "ignore_order",
    "match_key",
    "ignore_paths",
    "hide_unchanged",
)
forms = st.dictionaries(
    st.sampled_from(FORM_FIELDS),
    texts
    | st.sampled_from(["2", "4", "tab", "pretty", "minify", "sort", "on", "", "/0", "/a", "null", "[1]", '{"a": 1}']),
    max_size=6,
)
PAGE_POSTS = ("/format", "/format/download", "/format/tree", "/schema", "/diff", "/diff/patch")
MACHINE = ("/api/gate", "/v1/responses", "/v1/chat/completions")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "CHAT_COMPLETIONS_ENABLED": True,
            "MAX_CONTENT_LENGTH": 1 << 20,
            "RESPONSES_DATABASE": str(tmp_path_factory.mktemp("fuzz") / "responses.sqlite3"),
        }
    )
    client = app.test_client()
    stored = client.post("/v1/responses", json={"input": "one", "user": "fuzz"}, headers=AUTH)
    client.stored_id = stored.get_json()["id"]
    return client


@pytest.fixture(autouse=True, scope="module")
def short_pattern_budget():
    """Catastrophic patterns give up after 0.2 s here instead of 1 s: same behaviour, faster fuzzing."""
    from webapp.core.schema import patterns as schema

    saved, schema.PATTERN_BUDGET_SECONDS = schema.PATTERN_BUDGET_SECONDS, 0.2
    yield
    schema.PATTERN_BUDGET_SECONDS = saved


def check(response, path: str, elapsed: float) -> None:
    data = response.get_data()  # a stream is read to its end here
    assert elapsed < SECONDS_PER_REQUEST, f"{path} took {elapsed:.1f} s"
    machine = path.startswith(("/api/", "/v1/")) and response.request.method != "HEAD"  # HEAD: no body
    if response.status_code >= 500:
        assert path.startswith("/v1/responses") and machine, f"{path} answered {response.status_code}"
        error = json.loads(data)["error"]
        assert error["type"] == "model_error", error
    if machine and response.status_code >= 400:
        body = json.loads(data)
        assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}, body
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


@FUZZ
@given(path=st.sampled_from(MACHINE), body=bodies, media_type=media_types, token=st.booleans())
def test_machine_posts(client, path, body, media_type, token):
    headers = {**(AUTH if token else {}), **({"Content-Type": media_type} if media_type else {})}
    response, elapsed = timed(lambda: client.post(path, data=body.encode("utf-8", "surrogatepass"), headers=headers))
    check(response, path, elapsed)


@FUZZ
@given(body=gate_bodies | response_bodies)
def test_structured_json(client, body):
    for path in ("/api/gate", "/v1/responses"):
        response, elapsed = timed(lambda path=path: client.post(path, json=body, headers=AUTH))
        check(response, path, elapsed)


@FUZZ
@given(
    path=st.sampled_from(PAGE_POSTS),
    form=forms,
    htmx=st.booleans(),
    site=st.sampled_from([None, "same-origin", "cross-site", "none"]),
)
def test_page_posts(client, path, form, htmx, site):
    headers = {**({"HX-Request": "true"} if htmx else {}), **({"Sec-Fetch-Site": site} if site else {})}
    response, elapsed = timed(lambda: client.post(path, data=form, headers=headers))
    check(response, path, elapsed)


@FUZZ
@given(
    template=st.sampled_from(
        [
            "/v1/responses/{}",
            "/v1/responses/{}/input_items",
            "/v1/sessions/{}/items",
            "/sessions/{}",
            "/static/{}",
            "/{}",
            "/format/{}",
        ]
    ),
    segment=segments,
    query=queries,
    method=st.sampled_from(["GET", "DELETE", "PUT", "PATCH", "POST", "HEAD"]),
    host=st.sampled_from(["localhost", "127.0.0.1:5000", "attacker.example", "[::1]"]),
)
def test_paths_methods_queries_and_hosts(client, template, segment, query, method, host):
    path = template.format(segment)
    response, elapsed = timed(
        lambda: client.open(path, method=method, query_string=query, headers={**AUTH, "Host": host})
    )
    check(response, path, elapsed)


@FUZZ
@given(template=st.sampled_from(["/v1/responses/{id}/input_items", "/v1/sessions/fuzz/items"]), query=queries)
def test_list_queries(client, template, query):
    path = template.format(id=client.stored_id)
    response, elapsed = timed(lambda: client.get(path, query_string=query, headers=AUTH))
    check(response, path, elapsed)


@FUZZ
@given(
    document=values.map(json.dumps) | st.text(max_size=20),
    pointer=st.sampled_from(["", "/0", "/a", "/0/0", "/type"]) | st.text(max_size=6),
    start=st.sampled_from(["0", "1", "-1", "²", ""]),
)
def test_tree(client, document, pointer, start):
    form = {"document": document, "pointer": pointer, "start": start}
    response, elapsed = timed(lambda: client.post("/format/tree", data=form, headers={"HX-Request": "true"}))
    check(response, "/format/tree", elapsed)
