"""Format operations (pure): tokens kept as written, layout equal to json.dumps, tree model, item inspection."""

from __future__ import annotations

import json
import random

import pytest

from webapp.core import gate
from webapp.core.format import (
    INDENTS,
    SCHEMA_NEXT,
    TREE_NODE_LIMIT,
    Num,
    arguments_check,
    build_tree,
    count_nodes,
    displayable,
    format_bytes,
    format_document,
    format_lines,
    format_text,
    inspect,
    minify,
    pretty,
    sort_keys,
    subtree,
    text_digest,
    tree_value,
    type_badge,
)
from webapp.core.json.text import parse, parse_lines

# -- a generator of awkward documents (seeded: every run the same) ---------------------------------------------

AWKWARD_STRINGS = ["", " ", "a, b: {c} [d]", 'q"uote', "back\\slash\\", "tab\tnew\nline", "é 東京 😀", "\x00\x1f",
                   "~/", "\\\"", "\u2028", ":", ",", "{}", "[]", "\"\"", "  spaced  "]


def awkward_value(rnd: random.Random, depth: int = 0):
    kind = rnd.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return rnd.choice(AWKWARD_STRINGS) + rnd.choice(AWKWARD_STRINGS)
    if kind == 1:
        return rnd.choice([0, -1, 7, 2**63, -(10**30), 9007199254740993])
    if kind == 2:
        return rnd.choice([0.5, -2.25, 1e-7, 1.5e300, 3.0])
    if kind == 3:
        return rnd.choice([True, False, None])
    if kind in (4, 5):
        return rnd.choice(AWKWARD_STRINGS)
    if kind == 6:
        return [awkward_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {rnd.choice(AWKWARD_STRINGS) + str(i): awkward_value(rnd, depth + 1) for i in range(rnd.randrange(4))}


DOCUMENTS = [awkward_value(random.Random(seed)) for seed in range(150)]


@pytest.mark.parametrize("value", DOCUMENTS)
@pytest.mark.parametrize("indent", ["2", "4", "tab"])
def test_pretty_lays_out_like_json_dumps(value, indent):
    # A text json.dumps wrote (so every spelling is canonical), spaced out oddly: our layout must equal its own.
    spaces = INDENTS[indent]
    reference = json.dumps(value, indent=spaces, ensure_ascii=False)
    messy = json.dumps(value, indent=" \t", separators=(" ,\r\n", " :  "), ensure_ascii=False)
    assert pretty(messy, spaces) == reference


@pytest.mark.parametrize("value", DOCUMENTS)
def test_minify_and_sort_agree_with_json_dumps(value):
    text = json.dumps(value, indent=3, ensure_ascii=True)
    assert minify(text) == json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    assert sort_keys(text, None) == json.dumps(value, separators=(",", ":"), ensure_ascii=True, sort_keys=True)
    assert sort_keys(text, "  ") == json.dumps(value, indent=2, ensure_ascii=True, sort_keys=True)


EXACT = ["1.10", "1e2", "-0", "-0.0", "1E-7", "2.50E+3", "0.1000000000000000055511151231257827",
         "123456789012345678901234567890", "-9007199254740993", "1e400", "0e0"]


@pytest.mark.parametrize("action", ["pretty", "minify", "sort"])
def test_numbers_are_kept_exactly_as_written(action):
    text = "{" + ", ".join(f'"n{i}": [{token}]' for i, token in enumerate(EXACT)) + "}"
    output = format_text(text, action, "  ")
    for token in EXACT:
        assert f"[{token}]" in output.replace("\n", "").replace(" ", "")
    assert json.loads(output) == json.loads(text)  # and still the same document


@pytest.mark.parametrize("action", ["pretty", "minify", "sort"])
def test_strings_keep_their_escapes(action):
    strings = ['"\\u00e9\\/\\"\\\\"', '"\\\\"', '"a\\\\\\"b"', '"\\ud83d\\ude00"', '"é"', '"\\ud800"']
    text = "[" + ", ".join(strings) + ', {"k\\u0065y": 1}]'
    output = format_text(text, action, "  ")
    for raw in strings + ['"k\\u0065y"']:
        assert raw in output


def test_pretty_layout_details():
    assert pretty('{"a":{},"b":[],"c":[{}],"d":{"e":[[]]}}') == (
        '{\n  "a": {},\n  "b": [],\n  "c": [\n    {}\n  ],\n  "d": {\n    "e": [\n      []\n    ]\n  }\n}')
    assert pretty(' "x" ') == '"x"'
    assert pretty("\r\n 1.50 \t") == "1.50"
    assert pretty("[1,2]", "\t") == "[\n\t1,\n\t2\n]"
    assert minify(' { "a b" : [ 1 , "c, d" ] } ') == '{"a b":[1,"c, d"]}'


def test_sort_is_recursive_stable_and_leaves_arrays_alone():
    text = '{"b": 1, "a": [{"z": 1, "y": 2}, 3, 2], "\\u0061a": 0, "c": {"b": 1, "a": 2}, "b": 0}'
    assert sort_keys(text, None) == ('{"a":[{"y":2,"z":1},3,2],"\\u0061a":0,"b":1,"b":0,"c":{"a":2,"b":1}}')


def test_sort_orders_by_the_decoded_name_in_code_points():
    text = '{"\\u00e9": 1, "z": 2, "\\ud83d\\ude00": 3, "\\uffff": 4, "A": 5}'
    names = list(json.loads(sort_keys(text, None), object_pairs_hook=lambda pairs: [k for k, _ in pairs]))
    assert names == sorted(json.loads(text))


def test_format_text_refuses_an_unknown_action():
    with pytest.raises(ValueError):
        format_text("[]", "beautify")


def test_json_lines_minify_back_to_json_lines_and_pretty_prints_each_record():
    records = parse_lines('{"a": 1}\n\n[ 2 , 3 ]\n')
    assert format_lines(records, "minify") == '{"a":1}\n[2,3]\n'
    assert format_lines(records, "pretty", "  ") == '{\n  "a": 1\n}\n[\n  2,\n  3\n]\n'


def test_formatting_reuses_the_split_the_parse_made_for_a_big_document():
    value = {"items": [{"n": i, "s": f"é {i}", "x": 1.10} for i in range(40_000)]}
    text = json.dumps(value).replace("1.1", "1.10")
    document = parse(text)
    split = document.take_string_parts()
    assert split[1] is not None  # the parse split this one; the formatter gets it
    assert pretty(text, "  ", split=split) == pretty(text, "  ")
    assert document.take_string_parts()[1] is None  # handed over once


# -- tree ------------------------------------------------------------------------------------------------------

TREE_DOC = '{"a/b": {"c~d": [1.10, "x", true, null]}, "": -0, "s": "{\\"k\\": 1}", "long": "' + "y" * 500 + '"}'


def walk(node):
    yield node
    for child in node.children or []:
        yield from walk(child)


def test_tree_nodes_carry_rfc6901_pointers_and_numbers_as_written():
    root = build_tree(tree_value(TREE_DOC))
    nodes = {node.pointer: node for node in walk(root)}
    assert list(nodes) == ["", "/a~1b", "/a~1b/c~0d", "/a~1b/c~0d/0", "/a~1b/c~0d/1", "/a~1b/c~0d/2",
                           "/a~1b/c~0d/3", "/", "/s", "/long"]
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
    assert displayable("a\ud800b\U0001F600") == "a\\ud800b\U0001F600"  # named by its escape
    assert displayable("plain") == "plain"


# -- items -----------------------------------------------------------------------------------------------------

FC_001 = {"type": "function_call", "id": "fc_001", "name": "get_latest_sales_report", "call_id": "call_123",
          "status": "completed", "arguments": "{\"region\":\"apac\"}"}


@pytest.mark.parametrize(("item", "kind", "tone"), [
    ({"type": "message", "role": "user", "content": "hi"}, "core", "ok"),
    (FC_001, "core", "ok"),
    ({"type": "function_call_output", "call_id": "c", "output": "x"}, "core", "ok"),
    ({"type": "reasoning", "summary": []}, "spec", "info"),
    ({"type": "item_reference", "id": "msg_1"}, "spec", "info"),
    ({"type": "compaction", "encrypted_content": "x"}, "spec", "info"),
    ({"type": "openai:web_search_call", "id": "ws_001", "status": "completed"}, "extension", "bad"),
    ({"type": "web_search_call"}, "unknown", "warn"),
    ({"role": "user", "content": "hi"}, "missing", "warn"),
    ({"role": "assistant", "tool_calls": []}, "missing", "bad"),
    ({"id": "x"}, "missing", "bad"),
    ({"type": 5}, "invalid", "bad"),
    ([FC_001], "invalid", "bad"),
])
def test_type_badges(item, kind, tone):
    badge = type_badge(item)
    assert (badge.kind, badge.tone) == (kind, tone)
    assert badge.note


def test_a_namespaced_badge_names_the_provider_slug():
    assert '"openai"' in type_badge({"type": "openai:web_search_call"}).note


# (arguments value, state, reason the gate gives with no schema)
ARGUMENTS = [
    ('{"region":"apac"}', "json_object", "arguments_schema"),
    ("[1, 2]", "json_other", "arguments_schema"),
    ('"{\\"region\\":\\"apac\\"}"', "double_encoded", "arguments_schema"),
    (json.dumps(json.dumps('{"region":"apac"}')), "double_encoded", "arguments_schema"),
    ("", "empty", "arguments_parse"),
    ("   ", "empty", "arguments_parse"),
    ('{"region":"ap', "truncated", "arguments_parse"),
    ('{"region": "apac",', "truncated", "arguments_parse"),
    ("{'region': 'apac'}", "invalid", "arguments_parse"),
    ('{"a": 1, "a": 2}', "invalid", "arguments_parse"),
    ('{"a": NaN}', "invalid", "arguments_parse"),
    ('{"a": "\\ud800"}', "invalid", "arguments_parse"),
    ('{"a": 1e400}', "invalid", "arguments_parse"),
    ('{"a": 12345678901234567890}', "json_object", "arguments_schema"),
    ({"region": "apac"}, "object", "arguments_type"),
    (5, "not_string", "arguments_type"),
    (None, "not_string", "arguments_type"),
    (["a"], "not_string", "arguments_type"),
]


@pytest.mark.parametrize(("arguments", "state", "gate_reason"), ARGUMENTS)
def test_arguments_states_agree_with_the_gate(arguments, state, gate_reason):
    item = {**FC_001, "arguments": arguments}
    check = arguments_check(item)
    assert check.state == state
    verdict = gate.check_item(item, None)
    assert verdict.reason == gate_reason
    if check.reason is not None:
        assert check.reason == verdict.reason  # the page never claims another reason than the gate
    assert check.message


def test_double_encoded_arguments_fail_an_object_schema_in_the_gate():
    item = {**FC_001, "arguments": json.dumps(FC_001["arguments"])}
    assert arguments_check(item).layers == 2
    assert gate.check_item(item, {"type": "object"}).reason == "arguments_schema"


def test_missing_arguments():
    item = {k: v for k, v in FC_001.items() if k != "arguments"}
    check = arguments_check(item)
    assert (check.state, check.reason) == ("missing", gate.check_item(item, None).reason)


def test_good_arguments_are_shown_parsed_with_numbers_as_written():
    check = arguments_check({**FC_001, "arguments": '{"price":1.10,"n":1e2}'})
    assert check.text == '{\n  "price": 1.10,\n  "n": 1e2\n}'


def test_object_arguments_are_shown_as_written_when_the_raw_text_is_known():
    check = arguments_check({**FC_001, "arguments": {"price": 1.1}}, raw='{"price": 1.10}')
    assert check.text == '{\n  "price": 1.10\n}'


def test_truncated_arguments_name_the_place_inside_the_string():
    check = arguments_check({**FC_001, "arguments": '{"region":"ap'})
    assert (check.error.line, check.error.column) == (1, 14)
    assert "line 1, column 14" in check.message


@pytest.mark.parametrize(("value", "shape", "pointers"), [
    (FC_001, "item", [""]),
    ([FC_001, {"type": "message", "role": "user", "content": "x"}], "array", ["/0", "/1"]),
    ({"object": "response", "output": [FC_001]}, "response", ["/output/0"]),
    ({"model": "m", "input": [FC_001]}, "request", ["/input/0"]),
])
def test_inspect_finds_items_in_every_journal_shape(value, shape, pointers):
    inspection = inspect(parse(json.dumps(value)))
    assert inspection.shape == shape
    assert [item.pointer for item in inspection.items] == pointers
    assert inspection.reasons.get(SCHEMA_NEXT) == 1  # only the schema is left: not shown as a refusal


@pytest.mark.parametrize("value", [{"type": "object", "properties": {}}.get("properties"), [1, 2], "text", 3,
                                   {"name": "get_weather", "parameters": {}}, [[FC_001]]])
def test_inspect_ignores_documents_that_hold_no_items(value):
    assert inspect(parse(json.dumps(value))) is None


def test_inspect_reads_json_lines_and_keeps_line_numbers():
    records = parse_lines(json.dumps(FC_001) + "\n\n" + json.dumps({"type": "openai:web_search_call"}) + "\n")
    inspection = inspect(records)
    assert inspection.shape == "jsonl"
    assert [(item.index, item.line, item.badge.kind) for item in inspection.items] == [
        (0, 1, "core"), (1, 3, "extension")]


def test_inspect_shows_the_first_items_and_counts_them_all():
    items = [{**FC_001, "id": f"fc_{i}", "arguments": "" if i % 2 else "{}"} for i in range(120)]
    inspection = inspect(parse(json.dumps(items)), limit=10)
    assert inspection.total == 120 and len(inspection.items) == 10
    assert inspection.states == {"json_object": 60, "empty": 60}
    assert inspection.reasons == {SCHEMA_NEXT: 60, "arguments_parse": 60}


def test_item_text_is_the_item_as_written():
    text = '[{"type": "function_call", "id": "fc_1", "status": "completed", "n": 1.10, "arguments": "{}"}]'
    [item] = inspect(parse(text)).items
    assert '"n": 1.10' in item.text


# -- the whole step --------------------------------------------------------------------------------------------

def test_format_document_keeps_the_text_and_names_the_error():
    outcome = format_document('{"a": 1,}')
    assert outcome.output is None and outcome.text == '{"a": 1,}'
    assert (outcome.error.code, outcome.error.column) == ("trailing_comma", 8)


def test_format_document_reads_json_lines():
    outcome = format_document(json.dumps(FC_001) + "\n" + json.dumps(FC_001) + "\n", action="minify")
    assert outcome.records is not None and outcome.error is None
    assert outcome.output.count("\n") == 2 and outcome.inspection.shape == "jsonl"


def test_format_document_names_the_bad_json_lines_record():
    outcome = format_document('{"a": 1}\n{"b": 2}\n{"c": }\n')
    assert outcome.as_lines and (outcome.error.line, outcome.error.code) == (3, "missing_value")


def test_two_values_on_one_line_are_extra_data_not_json_lines():
    outcome = format_document('{"a": 1} {"b": 2}')
    assert outcome.error.code == "extra_data" and not outcome.as_lines


def test_format_document_decodes_bytes_and_drops_a_bom():
    outcome = format_document('\ufeff{"city": "Zürich"}'.encode())
    assert outcome.text == '{"city": "Zürich"}'
    assert [w.code for w in outcome.warnings] == ["bom_stripped"]


def test_format_document_refuses_bad_bytes_but_keeps_what_it_can_show():
    outcome = format_document(b'{"a": "\xff"}')
    assert outcome.error.code == "invalid_utf8" and outcome.text == '{"a": "\ufffd"}'


def test_format_document_skips_the_tree_beyond_the_node_limit():
    outcome = format_document(json.dumps(list(range(TREE_NODE_LIMIT + 1))))
    assert outcome.tree is None and f"{TREE_NODE_LIMIT:,}" in outcome.tree_note
    assert format_document("[1]").tree is not None


def test_format_document_size_and_depth_limits():
    assert format_document('["' + "x" * 100 + '"]', max_bytes=50).error.code == "too_large"
    assert format_document("[" * 20 + "]" * 20, max_depth=10).error.code == "too_deep"


def test_digest_ignores_crlf():
    assert text_digest('{\r\n"a": 1\r\n}') == text_digest('{\n"a": 1\n}') != text_digest('{"a": 2}')


@pytest.mark.parametrize("action", ["pretty", "minify", "sort"])
@pytest.mark.parametrize("limit", [1, 50, 10_000])
def test_a_preview_is_the_start_of_the_whole_answer(action, limit):
    text = json.dumps({"é": list(range(300)), "s": "a\"b\\", "n": 1.5}, ensure_ascii=False)
    whole = format_document(text, action=action)
    part = format_document(text, action=action, preview=limit)
    assert whole.ok and part.ok and whole.shown == whole.output
    assert whole.output.startswith(part.shown) and len(part.shown) <= limit
    assert part.output_size == whole.output_size == len(whole.output.encode())
    assert part.cut == (len(whole.output) > limit)
    assert part.output == (None if part.cut else whole.output)
    if part.cut and action != "minify":
        assert whole.output[len(part.shown)] == "\n"  # cut at a line end


def test_a_preview_of_json_lines():
    outcome = format_document("[1]\n[2]\n", preview=3)
    assert outcome.cut and outcome.shown == "[" and outcome.output == "[\n  1\n]\n[\n  2\n]\n"


@pytest.mark.parametrize("action", ["pretty", "minify", "sort"])
def test_format_bytes_is_format_text_in_utf8(action):
    text = '{"é": [1.10, "a\\"b"], "b": {"c": []}}'
    assert format_bytes(text, action, "\t") == format_text(text, action, "\t").encode()
    outcome = format_document(text, action=action, as_bytes=True)
    assert outcome.ok and outcome.data == format_bytes(text, action, "  ") and outcome.output is None
