"""Fuzzing every route with hypothesis (derandomized: the same examples on every run).

Whatever is sent: no 5xx except the documented ``model_error`` of ``/v1/responses``, no request taking longer
than a bound, and on the machine routes (``/api/*``, ``/v1/*``) every error in the one shape
``{"error": {"message", "type", "param", "code"}}``.

The texts are drawn from the characters that break parsers and their messages (:data:`PIECES`): JSON's own
punctuation, escape sequences valid and not, control characters, odd spaces, lone surrogates where a route can
receive them, digits and exponents; and valid JSON with such a piece put somewhere inside. A plain
``st.text()`` almost never makes a backslash before a tab, which once answered 500 on every route (issue 19).
``CI=true`` runs more examples (:data:`EXAMPLES`).
"""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import TEST_TOKEN

from webapp import create_app
from webapp.core.items import CALL_STATUSES, ITEM_TYPES

pytestmark = pytest.mark.slow  # 600 examples per test in CI

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
SECONDS_PER_REQUEST = 15  # far above any honest answer here; a hang or a runaway build would pass it
#: Examples per test: CI runs four times as many (the file then takes 1–2 minutes on 2 cores, 10–50 s without).
EXAMPLES = 600 if os.environ.get("CI") == "true" else 150
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=EXAMPLES,
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

# The pieces texts are made of, besides any character: each has broken a parser, a message or an encoder somewhere.
PUNCTUATION = list("{}[]:,\"'/\\") + [" ", "\u201c", "\u201d", "//", "/*", "*/", "#"]
CONTROLS = [chr(code) for code in range(0x20)] + ["\x7f", "\x85"]
ODD_SPACES = ["\u00a0", "\u1680", "\u2000", "\u2007", "\u200b", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff"]
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\\\ud800"]
ESCAPES = [
    *("\\" + c for c in '"\\/bfnrt'),  # the valid ones
    "\\u0000",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udfff",  # escaped lone surrogates
    "\\u12G4",
    "\\u12",
    "\\x41",
    "\\'",
    "\\",
    *("\\" + c for c in ["\t", "\n", "\r", "\x00", "\x1f", "\u00a0", "\u2028", "\ufeff", "é", " "]),
]
NUMBERS = [*"0123456789", "e", "E", "+", "-", ".", "-0", "1e308", "1E400", "-1e-400", "9007199254740993", "0x1F", "01"]
WORDS = ["true", "false", "null", "tru", "nul", "None", "True", "NaN", "Infinity", "undefined"]
PIECES = (PUNCTUATION, CONTROLS, ODD_SPACES, ESCAPES, NUMBERS, WORDS)


def text_of(max_size: int, surrogates: bool = True, escapes: bool = False) -> st.SearchStrategy[str]:
    """Texts of up to ``max_size`` pieces: each drawn as often from each group of :data:`PIECES` as from any
    character (``surrogates``: lone ones too, a group of their own; ``escapes``: half the pieces are escapes, as
    in a string's content)."""
    groups = PIECES + ((LONE_SURROGATES,) if surrogates else ())
    piece = st.one_of(*(st.sampled_from(group) for group in groups), st.characters())
    if escapes:
        piece = st.sampled_from(ESCAPES) | piece
    return st.lists(piece, max_size=max_size).map("".join)


def browser_sent(text: str) -> str:
    """A text as a browser sends a form field: a lone surrogate cannot be encoded and becomes U+FFFD."""
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def almost_json(max_leaves: int) -> st.SearchStrategy[str]:
    """JSON texts written token by token, each string's content and each number drawn from the pieces: mostly
    well-formed, so the mistakes are met deep inside strings and numbers (a backslash before a tab)."""
    strings = text_of(8, escapes=True).map(lambda t: '"' + t + '"')
    numbers = st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=4).map("".join)
    spaces = st.sampled_from(["", " ", "\n", "\t", "\r\n"] + ODD_SPACES)
    atoms = strings | numbers | st.sampled_from(WORDS)

    def containers(inner):
        members = st.tuples(strings, spaces, inner).map(lambda m: m[0] + ":" + m[1] + m[2])
        return st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]") | st.lists(members, max_size=3).map(
            lambda ms: "{" + ",".join(ms) + "}"
        )

    return st.recursive(atoms, containers, max_leaves=max_leaves)


def spliced(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Each text with a few pieces put in at one place: almost JSON, mistakes deep inside strings and numbers."""
    return st.tuples(texts, st.integers(min_value=0), text_of(3)).map(
        lambda t: t[0][: t[1] % (len(t[0]) + 1)] + t[2] + t[0][t[1] % (len(t[0]) + 1) :]
    )


keys = st.sampled_from(SCHEMA_KEYS + FIELD_KEYS) | text_of(6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["object", "string", "array", "integer", "#", "#/$defs/a", "^a+$", "(a+)+$", "completed", "user"])
    | text_of(12)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=12
)


def dumps(value, ensure_ascii: bool = True, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)


json_texts = values.map(dumps) | values.map(lambda v: dumps(v, ensure_ascii=False, indent=1))
texts = almost_json(8) | spliced(json_texts) | json_texts | text_of(40)  # almost JSON first: drawn most often
# What is pasted into a page's text field: almost JSON half the time, as a user pastes mostly JSON.
pasted = almost_json(8) | texts

items = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(ITEM_TYPES) | st.sampled_from(["openai:web_search_call", "item_reference"]) | scalars,
        "id": text_of(8),
        "call_id": st.sampled_from(["call_1", "call_2"]) | scalars | values,
        "name": st.sampled_from(["f", "get_weather"]) | scalars,
        "status": st.sampled_from(CALL_STATUSES) | scalars,
        "arguments": texts | values,
        "role": st.sampled_from(["user", "assistant", "system", "developer"]) | scalars,
        "content": text_of(20) | values,
        "output": texts | values,
    },
)
tools = st.lists(
    st.fixed_dictionaries(
        {"type": st.just("function") | scalars, "name": st.sampled_from(["f"]) | scalars},
        optional={"parameters": values, "description": text_of(10)},
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
        "input": text_of(20) | st.lists(items, max_size=3) | values,
        "tools": tools | values,
        "tool_choice": st.sampled_from(["auto", "required", "none"]) | values,
        "previous_response_id": text_of(8) | scalars,
        "stream": st.booleans() | scalars,
        "store": st.booleans() | scalars,
        "max_output_tokens": scalars,
        "text": values,
        "instructions": scalars,
        "messages": values,
    },
)
# A journal as any provider's conversation, JSON or JSON Lines, as the Journal page and /api/convert take it.
journals = (
    texts
    | st.lists(items, max_size=3).map(dumps)
    | st.lists(items, max_size=3).map(lambda lines: "".join(dumps(line) + "\n" for line in lines))
)
convert_bodies = st.fixed_dictionaries(
    {},
    optional={
        "journal": journals | values,
        "from": st.sampled_from(["auto", "open_responses", "chat_completions", "anthropic", "gemini"]) | scalars,
        "tools": tools | values,
    },
)
tools_bodies = st.fixed_dictionaries({}, optional={"texts": st.lists(texts | journals, max_size=3) | values})
bodies = (
    almost_json(12)
    | gate_bodies.map(json.dumps)
    | response_bodies.map(json.dumps)
    | convert_bodies.map(json.dumps)
    | tools_bodies.map(json.dumps)
    | json_texts
    | spliced(gate_bodies.map(json.dumps) | response_bodies.map(json.dumps))
    | text_of(60)
    | st.binary(max_size=40).map(lambda b: b.decode("latin-1"))
)
media_types = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", None])
segments = text_of(12, surrogates=False).filter(lambda s: s and not set(s) & set("/?#"))
QUERY_NAMES = st.sampled_from(["limit", "offset", "after", "order", "x"])
HOSTILE = st.sampled_from(
    ["1", "0", "-1", "²", "١", "99999999999999999999", "9223372036854775808", "1e3", "asc", "desc", "", " 1"]
)
queries = st.dictionaries(QUERY_NAMES, HOSTILE, min_size=1, max_size=2) | st.dictionaries(
    QUERY_NAMES, text_of(6, surrogates=False), max_size=3
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
    "documents",
    "stream",
    "kind",
    "journal",
    "from",
    "tools",
    "only_blocking",
    "complete_statusless",
    "page",
)
forms = st.dictionaries(
    st.sampled_from(FORM_FIELDS),
    (texts | journals).map(browser_sent)
    | st.sampled_from(
        ["2", "4", "tab", "pretty", "minify", "sort", "on", "", "/0", "/a", "null", "[1]", '{"a": 1}']
        + ["auto", "open_responses", "chat_completions", "anthropic", "gemini", "0", "-1", "2", "99"]
    ),
    max_size=6,
)
PAGE_POSTS = (
    "/format",
    "/format/download",
    "/format/tree",
    "/schema",
    "/diff",
    "/diff/patch",
    "/journal",
    "/journal/export",
    "/stream",
)
MACHINE = ("/api/gate", "/api/convert", "/api/tools", "/v1/responses", "/v1/responses/compact", "/v1/chat/completions")


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
@given(body=gate_bodies | response_bodies | convert_bodies | tools_bodies)
def test_structured_json(client, body):
    for path in ("/api/gate", "/api/convert", "/api/tools", "/v1/responses"):
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


#: Each page's text fields, the ones its model parses.
PAGE_TEXTS = {
    "/format": ("document",),
    "/format/download": ("document",),
    "/schema": ("instance", "schema", "documents"),
    "/diff": ("left", "right", "schema"),
    "/diff/patch": ("left", "right"),
    "/journal": ("journal", "tools"),
    "/journal/export": ("journal", "tools"),
    "/stream": ("stream",),
}


@FUZZ
@given(path=st.sampled_from(sorted(PAGE_TEXTS)), data=st.data(), htmx=st.booleans())
def test_page_texts(client, path, data, htmx):
    """Every text field of a page holds a fuzzed text at once, the others as a user leaves them."""
    form = {
        name: data.draw((pasted | journals if name in ("journal", "tools") else pasted).map(browser_sent), label=name)
        for name in PAGE_TEXTS[path]
    }
    response, elapsed = timed(lambda: client.post(path, data=form, headers={"HX-Request": "true"} if htmx else {}))
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
    document=pasted.map(browser_sent),
    pointer=st.sampled_from(["", "/0", "/a", "/0/0", "/type", "/~0", "/~1", "/~2"]) | text_of(6, surrogates=False),
    start=st.sampled_from(["0", "1", "-1", "²", ""]),
)
def test_tree(client, document, pointer, start):
    form = {"document": document, "pointer": pointer, "start": start}
    response, elapsed = timed(lambda: client.post("/format/tree", data=form, headers={"HX-Request": "true"}))
    check(response, "/format/tree", elapsed)
