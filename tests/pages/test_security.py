"""The hardening of issue 8: what is refused and why (webapp/web/security.py), bounded work on hostile input,
exact 413s, strict query parameters, one-transaction reads and answers that name what was wrong."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest
from support import TEST_TOKEN
from support.server import ServerThread

from webapp import create_app
from webapp.core.responses.pattern_examples import example_for_pattern, shortest_match
from webapp.core.responses.schema_instances import BUILD_BUDGET

AUTH = {"Authorization": f"Bearer {TEST_TOKEN}"}
CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "f",
    "status": "completed",
    "arguments": "{}",
}


def error_of(response):
    body = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    return body["error"]


def create(client, body):
    return client.post("/v1/responses", json={"model": "m", **body}, headers=AUTH)


# ------------------------------------------------------------------------------------------------ Host (item 3)


@pytest.mark.parametrize("path", ["/sessions/demo", "/", "/format", "/static/app.css"])
def test_a_host_naming_another_site_is_refused_on_pages(client, path):
    response = client.get(path, headers={"Host": "attacker.example"})
    assert response.status_code == 400
    assert "attacker.example" in response.get_data(as_text=True) and "ALLOWED_HOSTS" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/v1/sessions/demo/items"), ("POST", "/api/gate"), ("GET", "/v1/responses/resp_1")]
)
def test_a_host_naming_another_site_is_refused_on_machine_routes(client, method, path):
    response = client.open(path, method=method, headers={**AUTH, "Host": "rebound.attacker.example:5000"}, json={})
    assert response.status_code == 400 and error_of(response)["code"] == "untrusted_host"


def test_stored_items_are_not_readable_through_a_rebound_name(client):
    create(client, {"input": "secret plans", "user": "demo"})
    assert "secret plans" in client.get("/sessions/demo").get_data(as_text=True)
    rebound = client.get("/sessions/demo", headers={"Host": "attacker.example"})
    assert rebound.status_code == 400 and "secret plans" not in rebound.get_data(as_text=True)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:5000", "localhost", "LOCALHOST:8000", "[::1]", "[::1]:5000"])
def test_hosts_naming_this_machine_are_answered(client, host):
    assert client.get("/", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("allowed", [["inspector.example"], "other.example, inspector.example"])
def test_allowed_hosts_adds_names(tmp_path, allowed):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "ALLOWED_HOSTS": allowed,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    client = app.test_client()
    assert client.get("/", headers={"Host": "inspector.example:443"}).status_code == 200
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 400


def test_behind_a_proxy_the_forwarded_host_and_client_are_judged(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "PROXY_HOPS": 1,
            "ALLOWED_HOSTS": ["inspector.example"],
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    client = app.test_client()
    proxied = {"X-Forwarded-Host": "inspector.example", "X-Forwarded-For": "203.0.113.9"}
    assert client.get("/", headers=proxied).status_code == 200
    assert client.get("/", headers={**proxied, "X-Forwarded-Host": "attacker.example"}).status_code == 400
    # The sessions page sees the proxy's client, not the proxy on loopback, so it stays loopback-only.
    assert client.get("/sessions/demo", headers=proxied).status_code == 403


# ------------------------------------------------------------------------------------------------ cross-site (item 4)


@pytest.mark.parametrize("path", ["/format", "/schema", "/diff", "/diff/patch", "/format/tree"])
@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "https://attacker.example"},
        {"Origin": "null"},
        {"Origin": "evil://localhost"},  # the same host and port under another scheme is another origin
        {"Origin": "https://localhost"},
    ],
)
def test_cross_site_posts_to_the_pages_are_403(client, path, headers):
    response = client.post(path, data={"document": "{}", "left": "1", "right": "2"}, headers=headers)
    assert response.status_code == 403
    assert "another" in response.get_data(as_text=True) and "refused" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"},
        {"Sec-Fetch-Site": "none"},
        {"Origin": "http://localhost"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "null"},
    ],
)
def test_same_origin_posts_to_the_pages_are_answered(client, headers):
    assert client.post("/format", data={"document": "{}"}, headers=headers).status_code == 200


def test_a_cross_site_link_to_a_page_still_opens(client):
    assert client.get("/format", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_json_routes_refuse_other_media_types_with_415(client, content_type):
    body = json.dumps({"item": CALL, "schema": {}})
    headers = {"Content-Type": content_type} if content_type else {}
    for path in ("/api/gate", "/v1/responses"):
        response = client.post(path, data=body, headers={**AUTH, **headers})
        error = error_of(response)
        assert response.status_code == 415 and error["code"] == "unsupported_media_type"
        assert "application/json" in error["message"]


def test_json_routes_take_application_json_and_plus_json(client):
    assert client.post("/api/gate", json={"item": CALL, "schema": {}}).status_code == 200
    answer = client.post(
        "/api/gate",
        data=json.dumps({"item": CALL, "schema": {}}),
        content_type="application/vnd.inspector+json; charset=utf-8",
    )
    assert answer.status_code == 200


def test_without_the_token_401_comes_before_415(client):
    response = client.post("/v1/responses", data="{}", content_type="text/plain")
    assert response.status_code == 401


# ------------------------------------------------------------------------------------------------ headers (item 5)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/format"),
        ("GET", "/static/app.js"),
        ("GET", "/nope"),
        ("POST", "/api/gate"),
        ("GET", "/v1/responses/x"),
    ],
)
def test_every_response_carries_the_security_headers(client, method, path):
    response = client.open(path, method=method, headers=AUTH)
    csp = {d.split()[0]: d.split()[1:] for d in response.headers["Content-Security-Policy"].split("; ")}
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"] and csp["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert response.headers["X-Frame-Options"] == "DENY"


def test_the_server_header_names_no_versions(live_server):
    port = int(live_server.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/")
    answer = connection.getresponse()
    answer.read()
    server = answer.getheader("Server") or ""
    assert "werkzeug" not in server.lower() and "python" not in server.lower()
    assert answer.getheader("Content-Security-Policy")


# ------------------------------------------------------------------------------------------------ chunked (item 6)


@pytest.fixture
def small_server(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "MAX_CONTENT_LENGTH": 1 << 20,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    server = ServerThread(app)
    server.start()
    yield server.port
    server.stop()


def send(port: int, path: str, body: bytes, *, chunked: bool, content_type: str = "application/json"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": content_type, **AUTH}
    if chunked:
        pieces = (body[i : i + 65536] for i in range(0, len(body), 65536))
        connection.request("POST", path, body=pieces, headers=headers, encode_chunked=True)
    else:
        connection.request("POST", path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, data


def gate_body(size: int) -> bytes:
    body = json.dumps({"item": CALL, "schema": {"description": ""}})
    return body.replace('"description": ""', '"description": "' + "x" * (size - len(body)) + '"').encode()


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_over_the_limit_is_the_same_413_chunked_or_not(small_server, chunked):
    status, data = send(small_server, "/api/gate", gate_body(1_500_000), chunked=chunked)
    assert status == 413
    error = json.loads(data)["error"]
    assert error["code"] == "payload_too_large" and str(1 << 20) in error["message"]


def test_a_chunked_body_under_the_limit_is_read_whole(small_server):
    status, data = send(small_server, "/api/gate", gate_body(900_000), chunked=True)
    assert status == 200 and json.loads(data)["reason"] == "ok"


def test_a_chunked_form_over_the_limit_is_the_413_page(small_server):
    status, data = send(
        small_server,
        "/format",
        b"document=" + b"1" * 1_500_000,
        chunked=True,
        content_type="application/x-www-form-urlencoded",
    )
    assert status == 413 and f"{1 << 20:,}" in data.decode()


# ------------------------------------------------------------------------------------------------ query parameters (7)


@pytest.fixture
def stored(client):
    first = create(client, {"input": "one", "user": "qs"}).get_json()
    return first["id"]


@pytest.mark.parametrize(
    "query",
    [
        "limit=%C2%B2",
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=1.5",
        "limit=",
        "limit=99999999999999999999",
        "order=up",
        "order=",
        "after=nope",
    ],
)
def test_bad_input_items_parameters_are_400_naming_them(client, stored, query):
    response = client.get(f"/v1/responses/{stored}/input_items?{query}", headers=AUTH)
    assert response.status_code == 400
    assert error_of(response)["param"] == query.split("=")[0]


@pytest.mark.parametrize(
    "query",
    [
        "limit=%C2%B2",
        "limit=%EF%BC%91",
        "limit=1001",
        "offset=99999999999999999999",
        "offset=9223372036854775808",
        "offset=-1",
        "offset=%C2%B2",
        "offset=1e3",
    ],
)
def test_bad_session_items_parameters_are_400_naming_them(client, stored, query):
    response = client.get(f"/v1/sessions/qs/items?{query}", headers=AUTH)
    assert response.status_code == 400
    assert error_of(response)["param"] == query.split("=")[0]


def raw_get(port: int, target: bytes) -> tuple[int, dict]:
    """GET ``target`` with its bytes as they are (curl sends ``?limit=²`` unescaped), over a socket."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(
            b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Authorization: Bearer " + TEST_TOKEN.encode() + b"\r\n\r\n"
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/v1/sessions/qs/items", "limit"),
        ("/v1/sessions/qs/items", "offset"),
        ("/v1/responses/resp_x/input_items", "limit"),
        ("/v1/responses/resp_x/input_items", "order"),
    ],
)
def test_a_raw_non_ascii_query_value_is_named_as_its_escaped_spelling_is(tmp_path, param, path):
    app = create_app({"TESTING": True, "API_TOKEN": TEST_TOKEN, "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3")})
    client = app.test_client()
    stored = create(client, {"input": "one", "user": "qs"}).get_json()["id"]
    path = path.replace("resp_x", stored)
    server = ServerThread(app)
    server.start()
    try:
        escaped = raw_get(server.port, f"{path}?{param}=%C2%B2".encode())
        raw = raw_get(server.port, f"{path}?{param}=²".encode())
    finally:
        server.stop()
    # What a WSGI server passes (PEP 3333: each byte one latin-1 character), through the test client too.
    wsgi = client.get(
        path, headers=AUTH, environ_overrides={"QUERY_STRING": f"{param}=²".encode().decode("latin-1")}
    ).get_json()
    assert escaped[0] == raw[0] == 400
    assert raw[1] == escaped[1] == wsgi
    assert raw[1]["error"]["param"] == param and "'²'" in raw[1]["error"]["message"]


def test_the_largest_offset_is_answered(client, stored):
    response = client.get("/v1/sessions/qs/items?offset=9223372036854775807&limit=1000", headers=AUTH)
    assert response.status_code == 200 and response.get_json()["data"] == []


# ------------------------------------------------------------------------------------------------ /format/tree (item 8)


@pytest.mark.parametrize(("document", "pointer"), [("null", ""), ("[1]", "/0"), ('"text"', ""), ('{"a": 1}', "/a")])
def test_the_tree_of_a_single_value_says_so(client, document, pointer):
    response = client.post("/format/tree", data={"document": document, "pointer": pointer})
    assert response.status_code == 200
    assert "single value" in response.get_data(as_text=True)


# ------------------------------------------------------------------------------------------------ the race (item 9)


def test_input_items_never_answer_empty_for_a_response_being_deleted(client):
    # The DELETE lands, from another thread, exactly between reading the response and reading its items: the
    # moment a threaded server hits now and then (2-5 % of reads under load). SQLite's trace callback runs before
    # each statement of the reading connection, so the interleaving is the same on every run.
    response_id = create(
        client, {"input": [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]}
    ).get_json()["id"]
    store = client.application.extensions["openresponses_store"]
    deleted = threading.Event()

    def between(statement: str) -> None:
        if statement.lstrip().upper().startswith("SELECT BODY FROM ITEMS") and not deleted.is_set():
            deleted.set()
            deleter = threading.Thread(target=store.delete, args=(response_id,))
            deleter.start()
            deleter.join(timeout=10)

    with store._connect() as reader:  # the pooled connection the next read takes
        reader.set_trace_callback(between)
    try:
        answer = client.get(f"/v1/responses/{response_id}/input_items", headers=AUTH)
    finally:
        reader.set_trace_callback(None)
    assert deleted.is_set()
    assert answer.status_code in (200, 404)
    if answer.status_code == 200:  # the read saw the response as it was before the delete: with its items
        assert [item["content"][0]["text"] for item in answer.get_json()["data"]] == ["two", "one"]
    gone = client.get(f"/v1/responses/{response_id}/input_items", headers=AUTH)
    assert gone.status_code == 404 and error_of(gone)["code"] == "response_not_found"


# ------------------------------------------------------------------------------------------------ chains (item 10)


def test_a_chain_is_read_in_one_walk(client):
    previous = None
    for turn in range(30):
        body = {"input": f"turn {turn}"}
        if previous:
            body["previous_response_id"] = previous
        previous = create(client, body).get_json()["id"]
    store = client.application.extensions["openresponses_store"]
    calls = []
    original = store._connect

    def counted():
        calls.append(1)
        return original()

    store._connect = counted
    chain = store.chain(previous)
    assert len(chain) == 30 and [s.input[0]["content"][0]["text"] for s in chain][:2] == ["turn 0", "turn 1"]
    assert len(calls) == 1  # one connection, one transaction, whatever the depth


def test_a_chain_with_a_deleted_ancestor_names_it(client):
    first = create(client, {"input": "one"}).get_json()["id"]
    second = create(client, {"input": "two", "previous_response_id": first}).get_json()["id"]
    client.delete(f"/v1/responses/{first}", headers=AUTH)
    response = create(client, {"input": "three", "previous_response_id": second})
    error = error_of(response)
    assert response.status_code == 400 and error["code"] == "previous_response_not_found" and first in error["message"]


# ------------------------------------------------------------------------------------------------ answers (item 11)


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [("GET", "/api/gate", "POST"), ("DELETE", "/v1/responses", "POST"), ("PUT", "/v1/responses/resp_1", "GET")],
)
def test_a_405_names_the_method_and_the_allowed_ones(client, method, path, allowed):
    response = client.open(path, method=method, headers=AUTH)
    message = error_of(response)["message"]
    assert response.status_code == 405 and method in message and allowed in message


def test_a_405_page_names_them_too(client):
    response = client.delete("/format")
    assert response.status_code == 405 and "DELETE" in response.get_data(as_text=True)
    assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize(
    ("parameters", "param"),
    [
        ({"type": "object", "properties": {"a": {"type": "nope"}}}, "tools[0].parameters.properties.a.type"),
        (
            {"type": "object", "properties": {"a.b": {"anyOf": [{"type": 1}]}}},
            'tools[0].parameters.properties["a.b"].anyOf[0].type',
        ),
    ],
)
def test_param_uses_one_notation(client, parameters, param):
    response = create(client, {"input": "hi", "tools": [{"type": "function", "name": "f", "parameters": parameters}]})
    assert response.status_code == 400 and error_of(response)["param"] == param


# ------------------------------------------------------------------------------------------------ test model budget (2)


def tool(property_schema: dict) -> dict:
    return {
        "type": "function",
        "name": "f",
        "parameters": {"type": "object", "required": ["a"], "properties": {"a": property_schema}},
    }


@pytest.mark.parametrize(
    ("schema", "keyword"),
    [
        ({"type": "string", "minLength": 100_000_000}, "minLength"),
        ({"type": "array", "minItems": 1_000_000}, "minItems"),
        ({"type": "array", "minItems": 100_000, "uniqueItems": True, "items": {"type": "integer"}}, "minItems"),
        ({"type": "array", "minItems": 300, "items": {"type": "array", "minItems": 300}}, "minItems"),
        ({"type": "array", "minItems": 60_000, "items": {"const": "x" * 2000}}, "minItems"),
    ],
)
def test_the_test_model_refuses_what_is_over_its_budget(client, schema, keyword):
    started = time.monotonic()
    response = create(client, {"input": "call f", "tool_choice": "required", "tools": [tool(schema)]})
    assert time.monotonic() - started < 10
    error = error_of(response)
    assert response.status_code == 500 and error["type"] == "model_error"
    assert keyword in error["message"] and f"{BUILD_BUDGET:,}" in error["message"]
    assert len(response.data) < 2000


@pytest.mark.parametrize("pattern", ["^a{100000}$", "^a{10000000}$"])
def test_a_pattern_too_long_to_build_is_refused_before_the_model_runs(client, pattern):
    # The schema layer's compile bound (MAX_PATTERN_COST atoms) is below the model's BUILD_BUDGET, so such a
    # pattern never reaches the model: the request is refused naming the pattern, in bounded time.
    started = time.monotonic()
    response = create(
        client, {"input": "call f", "tool_choice": "required", "tools": [tool({"type": "string", "pattern": pattern})]}
    )
    assert time.monotonic() - started < 10
    error = error_of(response)
    assert response.status_code == 400 and error["code"] == "invalid_schema"
    assert error["param"] == "tools[0].parameters.properties.a.pattern" and "too costly" in error["message"]


def test_the_test_model_builds_what_fits_its_budget(client):
    schema = {"type": "array", "minItems": 2000, "uniqueItems": True, "items": {"type": "integer"}}
    response = create(client, {"input": "call f", "tool_choice": "required", "tools": [tool(schema)]})
    arguments = json.loads(response.get_json()["output"][0]["arguments"])
    assert len(set(arguments["a"])) == 2000


def test_the_shortest_match_is_read_without_compiling():
    assert shortest_match("^a{10000000}$") == 10_000_000
    assert shortest_match("^(?:ab|c)+x?$") == 1
    assert example_for_pattern("^a{10000000}$", limit=100) is None
    assert example_for_pattern("^a{3}$", limit=100) == "aaa"


@pytest.fixture
def served(app):
    from support.server import ServerThread

    server = ServerThread(app)
    server.start()
    yield server
    server.stop()


def _raw(port: int, request: bytes) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("path", ["/format", "/api/gate"])
def test_an_http_1_1_request_without_host_is_400(served, path):
    # RFC 9112, 3.2: it used to be answered as if it had named the server's own address
    answer = _raw(served.port, f"GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n".encode())
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"Host header" in body
    if path.startswith("/api/"):
        assert json.loads(body)["error"]["code"] == "missing_host"
    http_1_0 = _raw(served.port, b"GET /format HTTP/1.0\r\n\r\n")  # HTTP/1.0 has no Host to require
    assert http_1_0.startswith(b"HTTP/1.0 200") or http_1_0.startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (b"GET /api/gate?" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
        (b"GET /format?" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
        (b"GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 70_000 + b"\r\n\r\n", 431),
        (b"GET /api/gate HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n", 431),
        (b"GET /api/gate HTTP/1.1 extra\r\n\r\n", 400),
    ],
    ids=["414 json", "414 page", "431 long header", "431 many headers", "400 bad request line"],
)
def test_errors_the_server_writes_itself_carry_the_headers_and_the_shape(served, request_head, status):
    answer = _raw(served.port, request_head)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].split()[1] == str(status)
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    if b" /format" in request_head[:20]:
        assert headers["Content-Type"].startswith("text/html") and str(status).encode() in body
    else:
        error = json.loads(body)["error"]
        assert set(error) == {"message", "type", "param", "code"} and error["message"]
