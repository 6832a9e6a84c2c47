"""Which servers the endpoint check may reach (``webapp.core.conformance.targets``): loopback and the names of
``ALLOWED_TARGETS``, judged on the addresses a name resolved to, never on the name alone."""

from __future__ import annotations

import pytest

from webapp.core.conformance import TargetRefused, allowed_targets, judge_target, split_target
from webapp.core.conformance.targets import is_loopback


@pytest.mark.parametrize(
    "url, addresses, allowed, expected",
    [
        ("http://127.0.0.1:5000/v1", ["127.0.0.1"], (), ("127.0.0.1", 5000, "/v1", False)),
        ("http://localhost:8000/v1/", ["127.0.0.1", "::1"], (), ("127.0.0.1", 8000, "/v1", False)),
        ("http://[::1]/v1", ["::1"], (), ("::1", 80, "/v1", False)),
        ("http://a.test/v1", ["127.0.0.5"], (), ("127.0.0.5", 80, "/v1", False)),
        ("http://mapped.test/v1", ["::ffff:127.0.0.1"], (), ("::ffff:127.0.0.1", 80, "/v1", False)),
        ("https://api.example.org/v1", ["93.184.216.34"], ("API.example.org",), ("93.184.216.34", 443, "/v1", True)),
    ],
)
def test_loopback_and_allowed_targets_are_reached_at_a_checked_address(url, addresses, allowed, expected):
    target = judge_target(url, addresses, allowed)
    assert (target.address, target.port, target.path, target.allowed) == expected


@pytest.mark.parametrize(
    "url, addresses, words",
    [
        ("http://10.0.0.1/v1", ["10.0.0.1"], "resolves to 10.0.0.1, which is not this machine"),
        ("http://169.254.169.254/latest", ["169.254.169.254"], "ALLOWED_TARGETS"),
        ("http://rebind.test/v1", ["127.0.0.1", "10.1.2.3"], "resolves to 10.1.2.3"),
        ("http://0.0.0.0:5000/v1", ["0.0.0.0"], "not this machine"),
        ("http://api.example.org/v1", ["93.184.216.34"], "not this machine"),
        ("http://nowhere.test/v1", [], "does not resolve"),
        ("ftp://127.0.0.1/v1", ["127.0.0.1"], "http:// or https://"),
        ("http://user:secret@127.0.0.1/v1", ["127.0.0.1"], "credentials"),
        ("http://127.0.0.1/v1?x=1", ["127.0.0.1"], "no query"),
        ("http://127.0.0.1:99999/v1", ["127.0.0.1"], "not a URL"),
        ("127.0.0.1:5000", ["127.0.0.1"], "http:// or https://"),
    ],
)
def test_everything_else_is_refused_saying_why(url, addresses, words):
    with pytest.raises(TargetRefused) as caught:
        judge_target(url, addresses, ["other.example.org"])
    assert words in caught.value.message


def test_allowed_targets_reads_a_list_or_commas_and_has_no_wildcard():
    assert allowed_targets("a.test, B.test ,") == {"a.test", "b.test"}
    assert allowed_targets(["[::2]", "c.test"]) == {"::2", "c.test"}
    assert allowed_targets(None) == frozenset()
    with pytest.raises(TargetRefused):
        judge_target("http://x.test/v1", ["10.0.0.9"], ["*"])


def test_the_url_is_split_as_written():
    assert split_target("HTTP://LocalHost:5000/v1/") == ("http", "localhost", 5000, "/v1")
    assert judge_target("http://localhost:5000/v1", ["127.0.0.1"], ()).url == "http://localhost:5000/v1"
    assert judge_target("https://[::1]/v1", ["::1"], ()).url == "https://[::1]/v1"
    assert is_loopback("::1%lo") and not is_loopback("not an address")
