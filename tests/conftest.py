"""Shared fixtures: ``app``/``client`` (Flask's test client), ``live_server`` (the real app on 127.0.0.1
in a thread) and the playwright launch settings for Debian's Chromium."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from webapp import create_app
from webapp.web.security import RequestHandler

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"  # the team's reference folder beside the checkout, when present
TEST_TOKEN = "sk-test-token"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "slow_timeout", "seconds a test marked slow may take (pytest-timeout's timeout for it)", default="300"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``slow`` gets the ``slow_timeout`` of pyproject.toml, unless it names its own timeout."""
    slow = pytest.mark.timeout(float(config.getini("slow_timeout")))
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(slow)


@pytest.fixture
def app(tmp_path: Path):
    """A fresh app with test settings and its own instance folder."""
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "RESPONSES_DATABASE": str(tmp_path / "responses.sqlite3"),
        }
    )
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


class ServerThread:
    """The real app under Werkzeug's threaded server on 127.0.0.1, on a free port, in a daemon thread (with the
    request handler ``python -m webapp serve`` uses)."""

    def __init__(self, app) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=RequestHandler)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)


@pytest.fixture
def serve(tmp_path):
    """Serve a variant of the app (its own settings) over real HTTP; yields a factory of strict SDK clients.

    ``sdk = serve(RESPONSES_ENABLED=False)`` gives an ``openai.OpenAI`` client (``max_retries=0``, strict
    response validation) pointed at that server's ``/v1``.
    """
    from openai import OpenAI

    servers: list[ServerThread] = []

    def start(**settings):
        app = create_app(
            {
                "TESTING": True,
                "API_TOKEN": TEST_TOKEN,
                "RESPONSES_DATABASE": str(tmp_path / f"r{len(servers)}.sqlite3"),
                **settings,
            }
        )
        server = ServerThread(app)
        server.start()
        servers.append(server)
        return OpenAI(base_url=server.url + "/v1", api_key=TEST_TOKEN, max_retries=0, _strict_response_validation=True)

    yield start
    for server in servers:
        server.stop()


#: The request limit of :func:`small_server`, small enough for a test to cross it with a few pasted lines.
SMALL_LIMIT = 2000


@pytest.fixture
def small_server(tmp_path) -> Iterator[str]:
    """Base URL of the app with a :data:`SMALL_LIMIT`-byte request limit, on its own port."""
    app = create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "MAX_CONTENT_LENGTH": SMALL_LIMIT,
            "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3"),
        }
    )
    server = ServerThread(app)
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    return create_app(
        {
            "TESTING": True,
            "API_TOKEN": TEST_TOKEN,
            "CHAT_COMPLETIONS_ENABLED": True,
            "RESPONSES_DATABASE": str(tmp_path_factory.mktemp("live") / "responses.sqlite3"),
        }
    )


@pytest.fixture(scope="session")
def live_server(live_app) -> Iterator[str]:
    """Base URL of the real app served on 127.0.0.1 for the whole session."""
    server = ServerThread(live_app)
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    # pytest-playwright hands base_url to every browser context, so page.goto("/format") works.
    return live_server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium: playwright cannot download its own browser on these machines."""
    if browser_type_launch_args.get("channel"):
        return browser_type_launch_args
    return {
        **browser_type_launch_args,
        "executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
        # No DNS lookups for Google's hosts from a closed network; loopback only.
        "args": ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"],
    }
