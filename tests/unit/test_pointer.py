import pytest

from webapp.core.json import pointer


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ([], ""),
        (["a", 0, "b"], "/a/0/b"),
        (["a/b", "m~n", ""], "/a~1b/m~0n/"),
    ],
)
def test_join_and_split_round_trip(tokens, expected):
    assert pointer.join(tokens) == expected
    assert pointer.split(expected) == [str(t) for t in tokens]


def test_resolve_rfc6901_examples():
    doc = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "m~n": 8, " ": 7}
    assert pointer.resolve(doc, "") is doc
    assert pointer.resolve(doc, "/foo/0") == "bar"
    assert pointer.resolve(doc, "/") == 0
    assert pointer.resolve(doc, "/a~1b") == 1
    assert pointer.resolve(doc, "/m~0n") == 8
    assert pointer.resolve(doc, "/ ") == 7


@pytest.mark.parametrize("bad", ["/foo/2", "/foo/01", "/nope", "/foo/-"])
def test_resolve_missing_names_the_pointer(bad):
    with pytest.raises(KeyError, match="does not exist"):
        pointer.resolve({"foo": ["bar", "baz"]}, bad)


def test_split_rejects_relative_pointer():
    with pytest.raises(ValueError, match="start with '/'"):
        pointer.split("foo")
