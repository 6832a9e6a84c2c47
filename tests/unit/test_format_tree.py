"""The Format page's tree (pure, ``webapp/core/tree.py``): RFC 6901 pointers, numbers as written, lazy loading."""

from __future__ import annotations

import json

import pytest

from webapp.core.json import displayable, parse
from webapp.core.tree import Num, build_tree, count_nodes, subtree, tree_value

# -- tree ------------------------------------------------------------------------------------------------------

TREE_DOC = '{"a/b": {"c~d": [1.10, "x", true, null]}, "": -0, "s": "{\\"k\\": 1}", "long": "' + "y" * 500 + '"}'


def walk(node):
    yield node
    for child in node.children or []:
        yield from walk(child)


def test_tree_nodes_carry_rfc6901_pointers_and_numbers_as_written():
    root = build_tree(tree_value(TREE_DOC))
    nodes = {node.pointer: node for node in walk(root)}
    assert list(nodes) == [
        "",
        "/a~1b",
        "/a~1b/c~0d",
        "/a~1b/c~0d/0",
        "/a~1b/c~0d/1",
        "/a~1b/c~0d/2",
        "/a~1b/c~0d/3",
        "/",
        "/s",
        "/long",
    ]
    assert nodes["/a~1b/c~0d/0"].text == "1.10" and nodes["/a~1b/c~0d/0"].in_array
    assert nodes["/"].text == "-0" and nodes["/"].label == ""
    assert nodes["/a~1b/c~0d/2"].kind == "boolean" and nodes["/a~1b/c~0d/3"].kind == "null"
    assert nodes["/s"].hint == "JSON object"
    assert nodes["/long"].truncated and nodes["/long"].count == 500 and len(nodes["/long"].text) < 500
    document = parse(TREE_DOC)
    for pointer in nodes:  # every pointer names a value of the document
        assert document.position(pointer) is not None


def test_tree_loads_lazily_beyond_the_open_depth_and_pages_children():
    value = tree_value(json.dumps({"a": {"b": {"c": {"d": 1}}}, "list": list(range(250))}))
    root = build_tree(value, open_depth=1)
    a = root.children[0]
    assert a.children is not None and a.children[0].pointer == "/a/b" and a.children[0].children is None
    listing = root.children[1]
    assert len(listing.children) == 100 and listing.next_start == 100
    page = build_tree(value, "/list", start=200)
    assert [c.pointer for c in page.children][:2] == ["/list/200", "/list/201"] and page.next_start is None


def test_tree_budget_caps_the_nodes_built():
    value = tree_value(json.dumps([[i, i] for i in range(300)]))
    root = build_tree(value, budget=50)
    assert sum(1 for _ in walk(root)) <= 52
    assert root.next_start is not None


def test_tree_of_a_missing_pointer_is_a_key_error():
    with pytest.raises(KeyError):
        build_tree(tree_value("[1]"), "/1")


def test_count_nodes_stops_at_the_limit():
    assert count_nodes({"a": [1, 2, {"b": None}]}, 100) == 6
    assert count_nodes(list(range(10_000)), 10) == 11


def test_subtree_reparses_and_answers_one_node():
    node = subtree('{"a": {"b": [1, 2, 3]}}', "/a/b", start=1)
    assert [c.text for c in node.children] == ["2", "3"]


def test_num_compares_by_its_text():
    assert Num("1.10") == Num("1.10") != Num("1.1") and len({Num("1"), Num("1")}) == 1


def test_displayable_replaces_only_lone_surrogates():
    assert displayable("a\ud800b\U0001f600") == "a\\ud800b\U0001f600"  # named by its escape
    assert displayable("plain") == "plain"
