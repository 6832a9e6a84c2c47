"""What the tests share besides fixtures (those are in the conftest.py files), importable as ``support`` from
every test folder (pyproject.toml puts ``tests/`` on pytest's path): the places of the checkout and the test
settings. ``support.server`` serves the app over real HTTP, ``support.browser`` helps the browser tests,
``support.openapi_conformance`` checks answers against the Open Responses OpenAPI document."""

from __future__ import annotations

from pathlib import Path

#: tests/ (its data/ and cases/ hold the test data) and the checkout around it.
TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
#: The team's reference folder beside the checkout, when present.
SHARED = REPO.parent / "shared"
#: The /v1 token every test app is created with.
TEST_TOKEN = "sk-test-token"
#: The request limit of the ``small_server`` fixture, small enough for a test to cross it with a few pasted lines.
SMALL_LIMIT = 2000
