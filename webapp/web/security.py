"""What every request must be and what every response carries: the app-wide refusals and security headers.

Checked before any view, for every route (pages, machine routes, static files), in this order:

1. **Host** (DNS rebinding): the ``Host`` header must name this machine (``127.0.0.1``, ``localhost``, ``[::1]``,
   any port) or a name of ``ALLOWED_HOSTS``; otherwise 400 ``untrusted_host``. A page of another site whose name
   was re-pointed at 127.0.0.1 sends its own name as ``Host``, so it never reads the stored sessions.
2. **Body size**: a body sent with ``Transfer-Encoding: chunked`` (no ``Content-Length``) is held to
   ``MAX_CONTENT_LENGTH`` exactly like one with ``Content-Length``: 413 naming the limit, never a silent cut.
3. **Cross-site posts to the pages**: a state-changing request to a page whose ``Sec-Fetch-Site`` is
   ``cross-site`` or ``same-site`` (or, from a browser that sends no ``Sec-Fetch-Site``, whose ``Origin`` is not
   this host, ``null`` included) is 403 ``cross_site_request``: another site cannot make the user's browser
   submit the forms (W3C "Fetch Metadata Request Headers"; RFC 6454 origins).
4. **JSON routes** (``/api/*``, ``/v1/*``): a request with a body must say ``Content-Type: application/json``
   (or ``*/*+json``); otherwise 415 ``unsupported_media_type``. Browsers send such a type cross-site only after a
   CORS preflight, which this server never grants, so no other site can post to them.

Every response gets the headers of :data:`HEADERS` (``secure``: Content-Security-Policy with scripts and styles
from this origin only and no framing, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: same-origin``,
same-origin resource and opener policies). The ``Server`` header, which the HTTP server writes, names no versions
when served by ``python -m webapp serve`` (:class:`RequestHandler`), which also reads a request target's raw
non-ASCII bytes as UTF-8, as an escaped one is read.
"""

from __future__ import annotations

import html
import json
import re
from io import BytesIO
from urllib.parse import quote

import secure
from flask import Flask, Response, abort, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.serving import WSGIRequestHandler

from webapp.web.errors import ERROR_TYPES, JSON_PREFIXES, ApiError, error_body, wants_json

# Blueprint prefixes of the JSON routes (``/api``, ``/v1``).
JSON_PREFIXES_BARE = tuple(prefix.rstrip("/") for prefix in JSON_PREFIXES)

#: Host names that always name this machine (the ``Host`` header without its port, lower case).
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
#: Methods that never change state; any other method is checked for cross-site use.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: ``Sec-Fetch-Site`` values a page accepts a form post with: its own pages, or the user typing the address.
SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})
#: What the ``Server`` header says instead of the Werkzeug and Python versions.
SERVER_NAME = "openresponses-inspector"

HEADERS = secure.Secure(
    csp=(
        secure.ContentSecurityPolicy()
        .default_src("'self'")
        .script_src("'self'")
        .style_src("'self'")
        .img_src("'self'", "data:")  # the empty favicon of base.html is a data: URL
        .connect_src("'self'")
        .object_src("'none'")
        .base_uri("'none'")
        .form_action("'self'")
        .frame_ancestors("'none'")
    ),
    xcto=secure.XContentTypeOptions().nosniff(),
    xfo=secure.XFrameOptions().deny(),  # frame-ancestors for browsers that predate it
    # Not no-referrer: under it a browser sends "Origin: null" on the pages' own form posts.
    referrer=secure.ReferrerPolicy().same_origin(),
    corp=secure.CrossOriginResourcePolicy().same_origin(),
    coop=secure.CrossOriginOpenerPolicy().same_origin(),
)  # no Server header here: the HTTP server writes its own (RequestHandler below), and a second would follow it


def allowed_hosts(app: Flask) -> frozenset[str]:
    """The host names this app answers: :data:`LOOPBACK_HOSTS` plus ``ALLOWED_HOSTS``.

    ``ALLOWED_HOSTS`` is a list of names, or one string of names separated by commas
    (``FLASK_ALLOWED_HOSTS=inspector.example,inspector.lan``); ``"*"`` answers every name (only behind a proxy
    that checks the name itself). Names are compared without port, in lower case.
    """
    extra = app.config.get("ALLOWED_HOSTS") or ()
    if isinstance(extra, str):
        extra = extra.split(",")
    return LOOPBACK_HOSTS | {str(name).strip().lower() for name in extra if str(name).strip()}


def host_name(host: str) -> str:
    """``Host`` header value → its name without port, lower case: ``[::1]:5000`` → ``[::1]``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rpartition(":")[0] if ":" in host else host


def _refuse(status: int, message: str, code: str) -> None:
    """Stop the request in the route's own language: the JSON error shape, or the error page."""
    if wants_json():
        raise ApiError(message, status, code=code)
    abort(status, description=message)


def check_host() -> None:
    """400 ``untrusted_host`` unless the ``Host`` header names this machine or one of ``ALLOWED_HOSTS``; 400
    ``missing_host`` for an HTTP/1.1 request without one (RFC 9112 §3.2: a server MUST refuse it), which Werkzeug
    would otherwise answer as if it had named the server's own address."""
    if "HTTP_HOST" not in request.environ and request.environ.get("SERVER_PROTOCOL") == "HTTP/1.1":
        _refuse(400, "An HTTP/1.1 request must name the server in a Host header (RFC 9112, 3.2).", "missing_host")
    hosts = allowed_hosts(current_app)
    raw = request.host  # the Host header (X-Forwarded-Host under PROXY_HOPS); "" when it has invalid characters
    if "*" in hosts or host_name(raw) in hosts:
        return
    shown = raw[:100] if raw.isprintable() else repr(raw[:100])
    _refuse(
        400,
        f"Host {shown!r} does not name this server, so it is not answered (a page of another site "
        "may have re-pointed its name here). Use http://127.0.0.1, or add the name to ALLOWED_HOSTS "
        "(FLASK_ALLOWED_HOSTS).",
        "untrusted_host",
    )


def limit_chunked_body() -> None:
    """Hold a chunked body to ``MAX_CONTENT_LENGTH``: read it (at most the limit and one byte), then hand it on as
    a body of known length, or answer the same 413 a ``Content-Length`` over the limit gets.

    Werkzeug reads a chunked body through a stream that stops at the limit, so without this a body over it was
    cut there and parsed. Over the limit, up to one more limit's worth is read and dropped first, so the client
    gets the 413 instead of a reset connection.
    """
    environ = request.environ
    limit = request.max_content_length
    if limit is None or environ.get("CONTENT_LENGTH") or "wsgi.input_terminated" not in environ:
        if limit is not None and (request.content_length or 0) > limit:
            raise RequestEntityTooLarge()
        return
    stream = environ["wsgi.input"]
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= limit:
            chunk = stream.read(min(limit + 1 - size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            dropped = 0
            while dropped < limit and (chunk := stream.read(1 << 16)):
                dropped += len(chunk)
            raise RequestEntityTooLarge()
    except OSError:  # a malformed chunk header: werkzeug's dechunker raises OSError
        _refuse(400, "The chunked request body is malformed.", "invalid_body")
    # From here on the request is one with a Content-Length, read by Werkzeug as usual.
    data = b"".join(chunks)
    environ["wsgi.input"] = BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    del environ["wsgi.input_terminated"]
    request.__dict__.pop("content_length", None)  # werkzeug caches it (None for a chunked body)


def refuse_cross_site() -> None:
    """403 ``cross_site_request`` for a state-changing request to a page from another site (see the module
    docstring); the JSON routes are protected by their media type instead."""
    if request.method in SAFE_METHODS or wants_json():
        return
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:  # set by the browser itself, never by a page: it decides when present
        if fetch_site not in SAME_ORIGIN_FETCHES:
            _refuse(
                403,
                f"This form was sent from another site (Sec-Fetch-Site: {fetch_site[:40]}), so it is "
                "refused: only this app's own pages may post to it. Open the page here and send it again.",
                "cross_site_request",
            )
        return
    origin = request.headers.get("Origin")  # browsers without Fetch Metadata
    # an origin is scheme, host and port (RFC 6454 §4): evil://127.0.0.1:5000 is not http://127.0.0.1:5000
    if origin is not None and origin.lower() != f"{request.scheme}://{request.host}".lower():
        _refuse(
            403,
            f"This form was sent from another origin ({origin[:100]!r}), so it is refused: only this "
            "app's own pages may post to it. Open the page here and send it again.",
            "cross_site_request",
        )


def require_json_media_type() -> None:
    """415 ``unsupported_media_type`` for a body sent to a JSON route without ``Content-Type: application/json``
    (or ``+json``). A hook of the JSON blueprints, so routing errors (404, 405) and 401 come first."""
    if request.method in SAFE_METHODS or not request.content_length:  # no body, nothing to be sent cross-site
        return
    mimetype = request.mimetype
    if mimetype == "application/json" or mimetype.endswith("+json"):
        return
    got = f"got {mimetype!r}" if mimetype else "none was sent"
    raise ApiError(f"Content-Type must be application/json ({got}).", 415, code="unsupported_media_type")


# Codes for the errors the HTTP server writes itself (RequestHandler.send_error).
_SERVER_CODES = {400: "bad_request", 414: "uri_too_long", 431: "request_header_fields_too_large"}
# A request target's bytes outside printable ASCII (the standard library hands them over as latin-1 characters).
_RAW_BYTES = re.compile(r"[^\x21-\x7e]+")


class RequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler with a ``Server`` header that names no versions (the standard library's
    ``BaseHTTPRequestHandler`` sends ``Werkzeug/x Python/y`` on every response, whatever the app sets), and that
    reads raw non-ASCII bytes of the request target (``curl '...?limit=²'`` sends them unescaped) as their
    percent-escaped spelling: Werkzeug's server encodes the latin-1 characters ``http.server`` made of them as
    UTF-8 once more (``²`` arrived as ``Â²``), where PEP 3333 wants each byte as one latin-1 character.
    """

    def version_string(self) -> str:
        return SERVER_NAME

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The errors this HTTP server writes itself, before the app sees the request (a request line over 64 KiB:
        414, a header line over 64 KiB or more than 100 headers: 431, a malformed request line: 400), in the app's
        own language: the one JSON error shape for a target under ``/api/`` or ``/v1/``, a short page otherwise,
        each with the security headers of :data:`HEADERS` (the standard library's page had none)."""
        short, long = self.responses.get(code, ("Error", ""))
        message = message or short
        self.log_error("code %d, message %s", code, message)
        if getattr(self, "request_version", "HTTP/0.9") == "HTTP/0.9":  # an unreadable version: still a status line
            self.request_version = "HTTP/1.0"
        self.send_response(code, message)
        self.send_header("Connection", "close")
        target = (getattr(self, "raw_requestline", b"") or b"")[:1024].split(b" ")
        path = target[1].decode("latin-1") if len(target) > 1 else ""
        words = f"{message}: {explain or long}".rstrip(": ")
        if path.startswith(JSON_PREFIXES):
            error = error_body(
                words + ".", ERROR_TYPES.get(code, "invalid_request_error"), code=_SERVER_CODES.get(code)
            )
            body, content_type = json.dumps(error).encode(), "application/json"
        else:
            page = f"<!doctype html><title>{code} {html.escape(short)}</title><h1>{code} {html.escape(words)}</h1>"
            body, content_type = page.encode(), "text/html; charset=utf-8"
        for name, value in HEADERS.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    def make_environ(self):  # returns werkzeug's WSGIEnvironment
        """The WSGI environ of this request, its target's raw bytes escaped first (RFC 3986, 2.1: ``%C2%B2``)."""
        self.path = _RAW_BYTES.sub(lambda m: quote(m.group().encode("latin-1"), safe=""), self.path)
        return super().make_environ()


def add_headers(response: Response) -> Response:
    """Put :data:`HEADERS` on a response."""
    HEADERS.set_headers(response)
    return response


def init_app(app: Flask) -> None:
    """Register the checks and the headers; called by the factory once every blueprint is registered.

    The request checks run before every other hook; the media-type check runs last of each JSON blueprint's hooks,
    so a request without the token is told 401 first.
    """
    app.before_request_funcs.setdefault(None, [])[:0] = [check_host, limit_chunked_body, refuse_cross_site]
    for name, blueprint in app.blueprints.items():
        if (blueprint.url_prefix or "").startswith(JSON_PREFIXES_BARE):
            app.before_request_funcs.setdefault(name, []).append(require_json_media_type)
    app.after_request(add_headers)
