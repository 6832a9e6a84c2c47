"""The ``format`` checkers on the values that broke them: a verdict for every string, the RFCs' length limits, and
the ``regex`` module keeping nothing once the app's pattern cache has dropped a pattern.

Times are measured in ``benchmarks/bench_formats.py`` (every format on 1 MB values), never here: these tests assert
verdicts, including the verdicts of long values.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from webapp.core.gate import check_item
from webapp.core.schema import compile_pattern, compile_schema, patterns
from webapp.core.schema.cache import PATTERNS
from webapp.core.schema.formats import FORMAT_CHECKERS, MAX_EMAIL_OCTETS


def verdict(format_name: str, value: str) -> bool:
    """Whether ``value`` passes ``format_name`` through the whole schema layer (both engines, format assertion)."""
    compiled = compile_schema({"format": format_name}, format_assertion=True)
    valid = compiled.is_valid(value)
    errors = compiled.errors(value)
    assert valid == (errors == []), (format_name, value[:40], errors)
    assert all(error.keyword == "format" for error in errors)
    return valid


@pytest.mark.parametrize(
    "value",
    ["a@-x.com", "a@x-.com", "é@-bad.example", "a@" + "-" * 40],
    ids=["leading hyphen", "trailing hyphen", "non-ASCII local part", "hyphens"],
)
def test_idn_email_with_a_bad_domain_is_a_verdict_not_an_evaluation_error(value):
    # it recursed until the reference engine gave up ("this schema cannot be evaluated ... simplify the $ref chains")
    assert FORMAT_CHECKERS["idn-email"](value) is False
    assert verdict("idn-email", value) is False


def test_the_gate_refuses_an_idn_email_with_a_bad_domain_as_arguments_schema():
    schema = {"type": "object", "properties": {"to": {"type": "string", "format": "idn-email"}}}
    item = {
        "type": "function_call",
        "call_id": "c1",
        "name": "send",
        "status": "completed",
        "arguments": '{"to": "a@-x.com"}',
    }
    result = check_item(item, schema, format_assertion=True)
    assert (result.reason, result.ok, result.schema_problem) == ("arguments_schema", False, None)
    assert [error.keyword for error in result.errors] == ["format"]


@pytest.mark.parametrize("format_name", ["email", "idn-email"])
def test_an_email_local_part_is_at_most_64_octets(format_name):
    assert verdict(format_name, "a" * 64 + "@example.com")
    assert not verdict(format_name, "a" * 65 + "@example.com")
    assert not verdict(format_name, "a" * 100_000 + "@example.com")  # idn-email took this


def test_an_idn_email_local_part_counts_octets_of_utf_8():
    assert verdict("idn-email", "é" * 32 + "@example.com")  # 64 octets
    assert not verdict("idn-email", "é" * 33 + "@example.com")  # 66 octets, 33 characters


@pytest.mark.parametrize("format_name", ["email", "idn-email"])
def test_an_email_address_is_at_most_254_octets(format_name):
    domain = ".".join(["a" * 63, "b" * 63, "c" * 63]) + ".com"  # 195 characters
    fits = "a" * (MAX_EMAIL_OCTETS - len(domain) - 1) + "@" + domain
    assert len(fits) == MAX_EMAIL_OCTETS and verdict(format_name, fits)
    assert not verdict(format_name, "a" + fits)


@pytest.mark.parametrize("format_name", ["hostname", "idn-hostname"])
def test_a_host_name_is_at_most_253_characters(format_name):
    name = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    assert len(name) == 253 and verdict(format_name, name)
    assert not verdict(format_name, name + "d")
    assert not verdict(format_name, "a." * 500_000 + "com")


@pytest.mark.parametrize("format_name", ["uri", "uri-reference", "iri", "iri-reference"])
def test_a_final_line_break_is_no_part_of_a_uri(format_name):
    # rfc3986-validator anchored its grammar with "$", which also matches before a final "\n"
    assert verdict(format_name, "http://example.com/a")
    assert not verdict(format_name, "http://example.com/a\n")


@pytest.mark.parametrize("format_name", ["iri", "iri-reference"])
def test_long_iris_get_their_verdict(format_name):
    # a share link of 801 characters made this 0.5 s, and 100 KB one minute and 1.4 GB (rfc3987-syntax)
    share_link = "https://example.com/schema#" + "héllo/" * 129
    assert len(share_link) > 800 and verdict(format_name, share_link)
    long_path = "http://example.com/" + "ünïcode/" * 12_500
    assert len(long_path) > 100_000 and verdict(format_name, long_path)
    assert not verdict(format_name, long_path + " space")
    assert not verdict(format_name, long_path + "%zz")


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("http://example.com/\ue000", False),  # iprivate only in the query (RFC 3987 §2.2)
        ("http://example.com/?\ue000", True),
        ("http://example.com/\ufff0", False),  # U+FFF0-FFFD are neither ucschar nor iprivate
        ("http://example.com/\U000e0001", False),  # tags, outside ucschar
        ("http://example.com/\U0001f600", True),
        ("http://[::1]:8080/é?q=ü#frag", True),
        ("http://[V1.x]/", True),  # IPvFuture's "v" is case-insensitive
        ("http://[1::2::3]/", False),
        ("http://a@b@c/", False),
        ("http://host:80x/", False),
        ("//host/path", False),  # a reference, not an IRI
        ("é:x", False),  # a scheme is ASCII
    ],
)
def test_iri_components_follow_rfc_3987(value, valid):
    assert verdict("iri", value) is valid


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("", True),
        ("//host", True),
        ("a/b:c", True),
        (":a", False),  # path-noscheme: no ":" in the first segment
        ("1a:b", False),
        ("?q#f", True),
        ("#f#g", False),
        ("%4", False),
        ("/a b", False),
    ],
)
def test_uri_references_follow_rfc_3986(value, valid):
    assert verdict("uri-reference", value) is valid


def test_uri_templates_json_pointers_and_durations_get_a_verdict_at_any_length():
    assert verdict("uri-template", "{a}" * 300_000)
    assert not verdict("uri-template", "{a}" * 300_000 + "{")
    assert not verdict("uri-template", "{" + "a" * 1_000_000)
    assert verdict("json-pointer", "/" * 1_000_000)
    assert not verdict("json-pointer", "/" + "~" * 1_000_000)
    assert not verdict("duration", "P" + "1" * 1_000_000)
    assert not verdict("ipv6", "1:" * 500_000)


def test_format_regex_is_judged_by_syntax_without_compiling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("format: regex compiled a pattern")

    monkeypatch.setattr(patterns, "compile_uncached", refuse)
    # deep nesting made the `regex` module's parser raise RecursionError, an error no verdict
    assert verdict("regex", "(" * 3000 + ")" * 3000)
    assert verdict("regex", "^(?:[a-z]x){4000}$")
    assert not verdict("regex", "(" * 3000)
    assert not verdict("regex", r"\p{Script=NoSuchScript}")


def test_format_regex_refuses_a_value_longer_than_a_pattern_may_be():
    assert verdict("regex", "a" * patterns.MAX_PATTERN_LENGTH)
    assert not verdict("regex", "a" * (patterns.MAX_PATTERN_LENGTH + 1))


def test_a_schema_pattern_longer_than_the_limit_is_refused_before_it_is_read():
    from webapp.core.schema import SchemaInvalid

    with pytest.raises(SchemaInvalid) as caught:
        compile_schema({"properties": {"a": {"pattern": "|" * (patterns.MAX_PATTERN_LENGTH + 1)}}})
    assert caught.value.pointer == "/properties/a/pattern"
    assert f"{patterns.MAX_PATTERN_LENGTH:,}" in caught.value.message


def test_the_regex_module_keeps_nothing_once_the_app_cache_drops_a_pattern():
    """What the engine keeps is bounded with the app's cache: 3 costly patterns held 1.4 GB in the ``regex``
    module's own cache after the app's had dropped them, until ``regex.purge()``."""
    PATTERNS.clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(3):
            compile_pattern(f"^(?:[a-z]{i}x){{4000}}$")
        held = tracemalloc.get_traced_memory()[0] - before
        PATTERNS.clear()
        gc.collect()
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held > 1_000_000  # the compiled patterns were measured
    assert left < held / 100, f"{left:,} of {held:,} bytes stayed allocated after the cache was cleared"
