"""Format operations (pure, ``webapp/core/format.py``): tokens kept as written, layout equal to json.dumps."""

from __future__ import annotations

import json
import random

import pytest

from webapp.core.format import (
    INDENTS,
    format_lines,
    format_text,
    formatted_part,
    minify,
    pretty,
    sort_keys,
    utf8_size,
)
from webapp.core.json import parse, parse_lines

# -- a generator of awkward documents (seeded: every run the same) ---------------------------------------------

AWKWARD_STRINGS = [
    "",
    " ",
    "a, b: {c} [d]",
    'q"uote',
    "back\\slash\\",
    "tab\tnew\nline",
    "é 東京 😀",
    "\x00\x1f",
    "~/",
    '\\"',
    "\u2028",
    ":",
    ",",
    "{}",
    "[]",
    '""',
    "  spaced  ",
]


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


EXACT = [
    "1.10",
    "1e2",
    "-0",
    "-0.0",
    "1E-7",
    "2.50E+3",
    "0.1000000000000000055511151231257827",
    "123456789012345678901234567890",
    "-9007199254740993",
    "1e400",
    "0e0",
]


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


@pytest.mark.parametrize("action", ["pretty", "minify", "sort"])
def test_percent_signs_in_strings_are_text_not_placeholders(action):
    # The string bodies are put back with ``bytes %``: a % in a string is the user's text.
    value = {"%s": "%d %% %(a)s %", "b%": ["%", "%%s", "%s%s"], "%": {"%": "%%"}}
    output = format_text(json.dumps(value), action, "  ")
    assert json.loads(output) == value
    assert output == (
        json.dumps(value, indent=2)
        if action == "pretty"
        else json.dumps(value, separators=(",", ":"))
        if action == "minify"
        else json.dumps(value, indent=2, sort_keys=True)
    )


def test_a_percent_outside_strings_is_not_json_and_is_written_as_itself():
    # Not JSON, so the output is not promised, but it is never an error (JSON has no % outside strings).
    assert minify('[1 %s, "x", %%]') == '[1%s,"x",%%]'
    assert pretty('[%, "%s"]') == '[\n  %,\n  "%s"\n]'


def test_pretty_layout_details():
    assert pretty('{"a":{},"b":[],"c":[{}],"d":{"e":[[]]}}') == (
        '{\n  "a": {},\n  "b": [],\n  "c": [\n    {}\n  ],\n  "d": {\n    "e": [\n      []\n    ]\n  }\n}'
    )
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
    assert parse(text).take_string_parts()[1] is None  # not asked for: checked without splitting
    document = parse(text, string_parts=True)
    split = document.take_string_parts()
    assert split[1] is not None  # the parse split this one; the formatter gets it
    assert pretty(text, "  ", split=split) == pretty(text, "  ")
    assert document.take_string_parts()[1] is None  # handed over once


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("action", ["pretty", "minify"])
def test_the_part_a_page_shows_is_the_start_of_the_whole_answer_and_its_size_is_exact(seed, action):
    # Only the first parts of the text are formatted for a page; the size of the whole answer is counted, not built.
    rnd = random.Random(seed)
    spacing = rnd.choice([None, 0, 1, "\t", 8])
    text = json.dumps(
        [awkward_value(rnd) for _ in range(rnd.randrange(1, 30))], indent=spacing, ensure_ascii=rnd.random() < 0.5
    )
    whole = format_text(text, action, "  ")
    for limit in (1, 7, 40, 200, len(whole) - 1, len(whole), len(whole) + 5):
        shown, cut, size = formatted_part(text, action, "  ", max(limit, 1))
        assert size == utf8_size(whole) and whole.startswith(shown) and cut == (len(whole) > max(limit, 1))
        if cut and "\n" in whole[:limit]:
            assert whole[len(shown)] == "\n"  # cut at a line end
        elif not cut:
            assert shown == whole


def test_a_big_documents_part_uses_the_split_of_the_parse():
    value = {"items": [{"n": i, "s": f"é {i} [x]", "x": 1.10, "e": [], "o": {}, "q": 'a"b\\'} for i in range(30_000)]}
    text = json.dumps(value, ensure_ascii=False, indent=1).replace("1.1", "1.10")
    document = parse(text)
    assert document.size == len(text.encode())
    whole = pretty(text, "\t")
    shown, cut, size = formatted_part(
        text, "pretty", "\t", 100_000, split=document.take_string_parts(), size=document.size
    )
    assert cut and whole.startswith(shown) and whole[len(shown)] == "\n" and size == len(whole.encode())
