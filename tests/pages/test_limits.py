"""webapp.web.limits: the one reader of the parse limits in the app config."""

from __future__ import annotations

import re

import pytest
from support import REPO

from webapp import create_app
from webapp.core.json import DEFAULT_MAX_DEPTH
from webapp.web.limits import ParseLimits, parse_limits

WEB = REPO / "webapp"


def test_defaults_and_settings():
    assert ParseLimits.from_config({}) == ParseLimits(DEFAULT_MAX_DEPTH, None)
    assert ParseLimits.from_config({"JSON_MAX_DEPTH": 7, "MAX_CONTENT_LENGTH": 1024}) == ParseLimits(7, 1024)
    assert ParseLimits.from_config({"JSON_MAX_DEPTH": "12"}).max_depth == 12  # as text, e.g. set by hand
    assert ParseLimits(7, 1024).parse_options == {"max_depth": 7, "max_bytes": 1024}


@pytest.mark.parametrize("value", [0, -1, "deep", 2.5, True])
def test_a_bad_setting_is_refused_naming_it(value):
    with pytest.raises(ValueError, match="JSON_MAX_DEPTH must be a positive whole number"):
        ParseLimits.from_config({"JSON_MAX_DEPTH": value})


def test_the_app_settings_and_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASK_JSON_MAX_DEPTH", "33")
    app = create_app({"TESTING": True, "RESPONSES_DATABASE": str(tmp_path / "r.sqlite3")})
    with app.app_context():
        assert parse_limits() == ParseLimits(33, app.config["MAX_CONTENT_LENGTH"])


def test_no_other_module_reads_the_limits_from_the_config():
    reads = re.compile(r"config(\.get\(|\[)\s*[\"'](JSON_MAX_DEPTH|MAX_CONTENT_LENGTH)[\"']")
    found = [str(path.relative_to(WEB)) for path in WEB.rglob("*.py") if reads.search(path.read_text("utf-8"))]
    assert found == [], "read the limits with webapp.web.limits"
