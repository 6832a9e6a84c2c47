"""Fixtures every kind of test may use: ``app``/``client`` (Flask's test client), ``serve`` and ``small_server``
(a variant of the app over real HTTP), ``live_server`` (the real app on 127.0.0.1 for the whole session); and the
hooks that give each test its kind and its timeout. The browser's own settings are in ``browser/conftest.py``;
constants and helpers in ``support/``.

Each test lives in the folder of its kind, and gets that kind's marker from it (``-m unit`` runs one kind):
``unit/`` (the core and the CLI in process, no server), ``cli/`` (what starts processes or clusters: ``python -m
webapp``, a memory-limited child, a local Dask cluster), ``pages/`` (Flask's test client on the pages, ``/api``
and ``/v1``), ``browser/`` (Debian's Chromium through playwright), ``clients/`` (the real client libraries: Python,
Node, gunicorn).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import SMALL_LIMIT, TEST_TOKEN, TESTS
from support.server import ServerThread

from webapp import create_app

#: The folders of tests/ that hold tests, each its kind's marker (registered in pyproject.toml).
KINDS = ("unit", "cli", "pages", "browser", "clients")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "slow_timeout", "seconds a test marked slow may take (pytest-timeout's timeout for it)", default="300"
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A kind's folder that ``-m`` can select no test of (``-m unit``, ``-m "not browser"``, ``-m "unit and not
    slow"``) is not even imported: importing the client libraries and playwright costs seconds."""
    if collection_path.parent != TESTS or collection_path.name not in KINDS:
        return None
    return True if not _may_select(config.getoption("markexpr") or "", collection_path.name) else None


def _may_select(expression: str, kind: str) -> bool:
    """Whether the marker expression can be true for a test of ``kind`` (its only kind marker), whatever its other
    markers; True when the expression is more than names, and/or/not and parentheses."""
    if not expression.strip() or not re.fullmatch(r"[\w\s()]*", expression):
        return True
    names = sorted(set(re.findall(r"\w+", expression)) - {"and", "or", "not"})
    others = [name for name in names if name not in KINDS]
    code = compile(expression, "-m", "eval")
    for values in itertools.product((False, True), repeat=len(others)):
        markers = {**{name: name == kind for name in names}, **dict(zip(others, values, strict=True))}
        if eval(code, {"__builtins__": {}}, markers):
            return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test gets the marker of its folder's kind (a test outside them is a usage error, so none goes
    unmarked); one marked ``slow`` gets the ``slow_timeout`` of pyproject.toml, unless it names its own."""
    slow = pytest.mark.timeout(float(config.getini("slow_timeout")))
    for item in items:
        try:
            kind = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:  # a test file given from elsewhere: not this suite's
            continue
        if kind not in KINDS:
            raise pytest.UsageError(f"{item.nodeid}: a test belongs in one of tests/{{{','.join(KINDS)}}}/")
        item.add_marker(getattr(pytest.mark, kind))
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
