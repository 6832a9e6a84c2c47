"""The strict parse layer: each mistake named at its line:column, warnings with their places, limits."""

from __future__ import annotations

import json
import math
import sys

import pytest

from webapp.core.json import (
    MAX_SAFE_INTEGER,
    Document,
    JSONTextError,
    line_records,
    loads_ijson,
    looks_like_lines,
    parse,
    parse_lines,
)

# (text, code, line, column, words the message must contain)
ERRORS = [
    ('{"a": 1,}', "trailing_comma", 1, 8, "Trailing comma"),
    ("[1, 2,]", "trailing_comma", 1, 6, "Trailing comma"),
    ('{"a": 1,\n  "b": [1, 2,],\n}', "trailing_comma", 2, 13, "array"),
    ('{"a": 1, // note\n"b": 2}', "comment", 1, 10, "Comment (//)"),
    ('/* header */ {"a": 1}', "comment", 1, 1, "Comment (/* */)"),
    ("{'a': 1}", "single_quote", 1, 2, "double quotes"),
    ("{\"a\": 'x'}", "single_quote", 1, 7, "Single-quoted string"),
    ('{"score": NaN}', "nan_literal", 1, 11, "NaN"),
    ('{"max": Infinity}', "nan_literal", 1, 9, "Infinity"),
    ("[-Infinity]", "nan_literal", 1, 2, "-Infinity"),
    ("\ufeff{}", "bom", 1, 1, "byte order mark"),
    ('{region: "apac"}', "unquoted_key", 1, 2, '"region"'),
    ('{1: "a"}', "unquoted_key", 1, 2, "Unquoted member name"),
    ('{"region":"ap', "truncated", 1, 14, "closing quote"),
    ('{"region":', "truncated", 1, 11, "value is missing"),
    ('{"a": [1, 2', "truncated", 1, 12, "array opened at line 1, column 7"),
    ('{"a": 1,', "truncated", 1, 9, "next member is missing"),
    ('"\\u12', "truncated", 1, 6, "\\u escape"),
    ("[01]", "leading_zero", 1, 2, "leading zero"),
    ("-007", "leading_zero", 1, 1, "-007"),
    ('"C:\\Users"', "invalid_escape", 1, 4, "Windows path"),
    ('"\\u12G4"', "invalid_escape", 1, 2, "4 hexadecimal digits"),
    # A backslash before an invisible character names that character (issue 19: a 500 on every route before).
    ('"\\\t"', "invalid_escape", 1, 2, "'\\' followed by a tab (U+0009)"),
    ('["a\\\n"]', "invalid_escape", 1, 4, "'\\' followed by a line break (U+000A)"),
    ('"\\\x01"', "invalid_escape", 1, 2, "'\\' followed by U+0001"),
    ('"\\\u00a0"', "invalid_escape", 1, 2, "'\\' followed by U+00A0 (NO-BREAK SPACE)"),
    ('"\\\ud800"', "invalid_escape", 1, 2, "'\\' followed by U+D800"),
    ('"\\\'"', "invalid_escape", 1, 2, "'\\'' in the string"),
    ('"line\nbreak"', "control_character", 1, 6, "\\n"),
    ('"tab\there"', "control_character", 1, 5, "\\t"),
    ('{"a": 1} {"b": 2}', "extra_data", 1, 10, "Extra data"),
    ("", "empty", 1, 1, "empty"),
    (" \n\t ", "empty", 1, 1, "empty"),
    ("[1 2]", "missing_comma", 1, 4, "comma missing"),
    ('{"a" 1}', "missing_colon", 1, 6, "':'"),
    ('{"a" = 1}', "missing_colon", 1, 6, "not '='"),
    ('{"a": }', "missing_value", 1, 7, "after ':'"),
    ("[1,,2]", "missing_value", 1, 4, "after ','"),
    ("[True]", "invalid_literal", 1, 2, "write true"),
    ("[None]", "invalid_literal", 1, 2, "write null"),
    ("[undefined]", "invalid_literal", 1, 2, "null"),
    ("[1.]", "invalid_number", 1, 3, "decimal point"),
    ("[1e]", "invalid_number", 1, 3, "exponent"),
    ("[0x1F]", "invalid_number", 1, 2, "Hexadecimal"),
    ("[.5]", "invalid_number", 1, 2, "0.5"),
    ("[+1]", "invalid_number", 1, 2, "plus"),
    ("[-]", "invalid_number", 1, 2, "digit"),
    ('{"a": 1]', "mismatched_bracket", 1, 8, "expected '}'"),
    ("\u201cregion\u201d", "smart_quote", 1, 1, "Typographic quote"),
    ("[1,\u00a02]", "invalid_whitespace", 1, 4, "NO-BREAK SPACE"),
    ("[hello]", "unquoted_string", 1, 2, "double quotes"),
    ("1" * 5000, "number_too_long", 1, 1, "4,300"),
    ("[" * 101 + "]" * 101, "too_deep", 1, 101, "limit of 100"),
]


@pytest.mark.parametrize(
    ("text", "code", "line", "column", "words"), ERRORS, ids=[f"{case[1]}-{i}" for i, case in enumerate(ERRORS)]
)
def test_each_mistake_is_named_at_its_place(text, code, line, column, words):
    with pytest.raises(JSONTextError) as info:
        parse(text)
    err = info.value
    assert (err.code, err.line, err.column) == (code, line, column), str(err)
    assert words in err.message
    assert str(err) == f"line {line}, column {column}: {err.message}"
    assert "Expecting" not in err.message  # never Python's raw wording


@pytest.mark.parametrize(("text", "code"), [(t, c) for t, c, *_ in ERRORS if c != "empty"])
def test_the_fast_ijson_path_reports_the_same_mistake(text, code):
    with pytest.raises(JSONTextError) as info:
        loads_ijson(text)
    assert info.value.code == code


@pytest.mark.parametrize("text", [t for t, *_ in ERRORS if t and not t.isspace()])
def test_every_refused_text_is_refused_by_python_too_or_is_a_documented_extra(text):
    # Our refusals are real: json.loads refuses them as well, except NaN/Infinity (RFC 8259 §6) which it accepts.
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return
    assert any(word in text for word in ("NaN", "Infinity")) or text.count("[") > 100


def test_excerpt_shows_the_line_and_a_caret_under_the_column():
    with pytest.raises(JSONTextError) as info:
        parse('{\n  "a": 1,\n  "b": [1, 2,]\n}')
    line, caret = info.value.excerpt.split("\n")
    assert line == '  "b": [1, 2,]'
    assert caret.index("^") == line.index(",]")


def test_excerpt_of_a_long_line_is_trimmed_around_the_column():
    text = "[" + ",".join(["1"] * 5000) + ",]"
    with pytest.raises(JSONTextError) as info:
        parse(text)
    err = info.value
    line, caret = err.excerpt.split("\n")
    assert len(line) < 120 and line.startswith("…")
    assert line[caret.index("^")] == ","
    assert err.column == len(text) - 1


def test_excerpt_keeps_tabs_so_the_caret_lines_up_and_shows_control_characters():
    with pytest.raises(JSONTextError) as info:
        parse('{\t"a":\t"x\u0001"}')
    line, caret = info.value.excerpt.split("\n")
    assert "\u2401" in line  # the control picture for U+0001
    assert caret.startswith(" \t") and line[caret.index("^")] == "\u2401"


def test_truncated_input_points_after_the_last_character_not_at_trailing_newlines():
    with pytest.raises(JSONTextError) as info:
        parse('{"a": [1, 2\n\n\n')
    assert (info.value.code, info.value.line, info.value.column) == ("truncated", 1, 12)


# -- warnings --------------------------------------------------------------------------------------------------


def test_duplicate_member_names_warn_with_both_locations_and_keep_the_last_value():
    doc = parse('{"name": "a",\n "name": "b"}')
    assert doc.value == {"name": "b"}
    [warning] = doc.warnings
    assert (warning.code, warning.pointer, warning.line, warning.column) == ("duplicate_key", "/name", 2, 2)
    assert "line 1, column 2" in warning.message and "line 2, column 2" in warning.message


def test_duplicates_in_nested_objects_name_the_nested_pointer():
    doc = parse('{"a": [{"x/y": 1, "x/y": 2}]}')
    assert [w.pointer for w in doc.warnings] == ["/a/0/x~1y"]


WARNINGS = [
    ('{"id": 9007199254740993}', "big_integer", "/id", 9007199254740993, "9007199254740992"),
    ('{"id": -9007199254740993}', "big_integer", "/id", -9007199254740993, "JavaScript"),
    ("[123456789012345678901234567890]", "big_integer", "/0", 123456789012345678901234567890, "kept exactly"),
    ("[1e400]", "number_overflow", "/0", math.inf, "Infinity"),
    ("[-1.5E+999]", "number_overflow", "/0", -math.inf, "64-bit double"),
    ("[1e-400]", "number_underflow", "/0", 0.0, "read it as 0"),
    ('{"k": "a\\ud800b"}', "lone_surrogate", "/k", "a\ud800b", "U+D800"),
    ('["\\udc00"]', "lone_surrogate", "/0", "\udc00", "U+DC00"),
    ('["\\ufffe"]', "noncharacter", "/0", "\ufffe", "U+FFFE"),
    ('{"\u00e9": 1, "e\u0301": 2}', "lookalike_keys", "/e\u0301", 1, "normalisation"),
]


@pytest.mark.parametrize(("text", "code", "pointer", "first", "words"), WARNINGS)
def test_valid_but_risky_values_warn(text, code, pointer, first, words):
    doc = parse(text)
    value = doc.value
    first_value = value[0] if isinstance(value, list) else next(iter(value.values()))
    assert first_value == first
    assert [(w.code, w.pointer) for w in doc.warnings] == [(code, pointer)]
    assert words in doc.warnings[0].message


def test_no_warning_at_the_edge_of_the_safe_range_or_for_paired_surrogates():
    doc = parse(
        f'[{MAX_SAFE_INTEGER}, -{MAX_SAFE_INTEGER}, 1e308, "\\ud83d\\ude00", "\\\\ud800", "1234567890123456789"]'
    )
    assert doc.warnings == []
    assert doc.value[3] == "\U0001f600" and doc.value[4] == "\\ud800"


def test_warning_position_of_a_lone_surrogate_is_the_escape_itself():
    doc = parse('{"k": "ok \\u0041 \\ud800 x"}')
    [warning] = doc.warnings
    assert (warning.line, warning.column) == (1, 18)


def test_warnings_are_capped_and_the_rest_counted():
    doc = parse("[" + ",".join(["9007199254740993"] * 250) + "]")
    assert len(doc.warnings) == 201
    assert doc.warnings[-1].code == "more_warnings" and "50 more" in doc.warnings[-1].message


# -- I-JSON ----------------------------------------------------------------------------------------------------

IJSON_ERRORS = [
    ('{"a": 1, "a": 2}', "duplicate_key", 1, 10),
    ('{"k": "\\ud800"}', "lone_surrogate", 1, 8),
    ('{"k": "x\\udfff"}', "lone_surrogate", 1, 9),
    ('{"k": "\\ufdd0"}', "noncharacter", 1, 8),
    ('{"k": "\U0010ffff"}', "noncharacter", 1, 8),
    ('{"k": NaN}', "nan_literal", 1, 7),
    ('{"k": 1e400}', "number_overflow", 1, 7),
    ('{"k": [-2.5E+999]}', "number_overflow", 1, 8),
    ('{"k": 1' + "0" * 400 + ".5}", "number_overflow", 1, 7),
]


@pytest.mark.parametrize(("text", "code", "line", "column"), IJSON_ERRORS)
def test_ijson_turns_ambiguous_or_unportable_text_into_errors(text, code, line, column):
    for call in (lambda: loads_ijson(text), lambda: parse(text, ijson=True)):
        with pytest.raises(JSONTextError) as info:
            call()
        assert (info.value.code, info.value.line, info.value.column) == (code, line, column)


@pytest.mark.parametrize(
    "text",
    [
        '{"region": "apac"}',
        '{"city": "Москва", "emoji": "\\ud83d\\ude00 \U0001f600"}',
        "[]",
        '"plain"',
        "0",
        "-0",
        '{"n": 9007199254740993}',
        '{"x": 1e300, "y": "1e400"}',
        '{"\\\\ud800": "\\\\ufffe"}',
        "[1e-400]",
        "[1" + "0" * 400 + "]",
    ],
)
def test_ijson_accepts_what_json_loads_reads_the_same_way(text):
    assert loads_ijson(text) == json.loads(text)


def test_loads_ijson_accepts_bytes():
    assert loads_ijson(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


# -- bytes, limits ---------------------------------------------------------------------------------------------


def test_bytes_are_utf8_and_a_bom_is_stripped_with_a_warning():
    doc = parse('\ufeff{"city": "Zürich"}'.encode())
    assert doc.value == {"city": "Zürich"}
    assert [w.code for w in doc.warnings] == ["bom_stripped"]


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (b'{"a": "\xff"}', "invalid_utf8", "0xFF"),
        ('{"a": 1}'.encode("utf-16"), "not_utf8", "UTF-16"),
        ('{"a": 1}'.encode("utf-32"), "not_utf8", "UTF-32"),
    ],
)
def test_bytes_that_are_not_utf8_are_refused(data, code, words):
    with pytest.raises(JSONTextError) as info:
        parse(data)
    assert info.value.code == code and words in info.value.message


def test_invalid_utf8_names_the_character_position():
    with pytest.raises(JSONTextError) as info:
        parse(b'{\n "a": "\xc3("}')
    assert (info.value.line, info.value.column) == (2, 8)


@pytest.mark.parametrize("text", ['{"a": "' + "x" * 2000 + '"}', ('{"a": "' + "x" * 2000 + '"}').encode()])
def test_size_cap_names_the_limit(text):
    with pytest.raises(JSONTextError) as info:
        parse(text, max_bytes=1000)
    assert info.value.code == "too_large"
    assert "1,000 bytes" in info.value.message and "2,009" in info.value.message


def test_size_counts_utf8_bytes_not_characters():
    text = '"' + "я" * 400 + '"'  # 402 characters, 802 bytes
    assert parse(text, max_bytes=802).value == "я" * 400
    with pytest.raises(JSONTextError):
        parse(text, max_bytes=801)


@pytest.mark.parametrize("depth", [101, 995, 1000, 10_000, 100_000])
def test_deep_nesting_is_refused_with_the_limit_named_never_recursion_error(depth):
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth):
        with pytest.raises(JSONTextError) as info:
            parse(text)
        assert info.value.code == "too_deep" and "limit of 100" in info.value.message
        with pytest.raises(JSONTextError):
            loads_ijson(text)


def test_depth_limit_is_exact_and_brackets_inside_strings_do_not_count():
    assert parse("[" * 100 + "]" * 100).value is not None
    assert parse('["' + "[" * 500 + '"]').value == ["[" * 500]
    with pytest.raises(JSONTextError) as info:
        parse('{"a": [[[1]]]}', max_depth=3)
    assert info.value.column == 9
    assert parse("[" * 300 + "]" * 300, max_depth=400).value is not None


def test_a_syntax_error_before_the_depth_limit_is_reported_first():
    with pytest.raises(JSONTextError) as info:
        parse("[1,]" + "[" * 200)
    assert info.value.code == "trailing_comma"


# -- values ----------------------------------------------------------------------------------------------------


def test_values_are_plain_python_and_integers_exact():
    doc = parse('{"i": 123456789012345678901234567890, "f": 1.10, "z": -0, "t": true, "n": null, "s": "é"}')
    assert doc.value == {"i": 123456789012345678901234567890, "f": 1.1, "z": 0, "t": True, "n": None, "s": "é"}
    assert type(doc.value["i"]) is int


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "-0.0e-0",
        '"\\/\\b\\f\\n\\r\\t\\"\\\\\\u00e9"',
        "  [ ]  ",
        "{}",
        "null",
        '[1, [2, [3, {"a": {}}]]]',
        '{"": {"": ""}}',
    ],
)
def test_valid_documents_read_like_json_loads(text):
    assert parse(text).value == json.loads(text)
    assert parse(text).warnings == []


# -- positions -------------------------------------------------------------------------------------------------

DOC = '{\n  "a": [1, {"b~/c": 2}],\n  "x": "y",\n  "": {"e": null}\n}'


@pytest.mark.parametrize(
    ("pointer", "where"),
    [
        ("", (1, 1)),
        ("/a", (2, 3)),
        ("/a/0", (2, 9)),
        ("/a/1", (2, 12)),
        ("/a/1/b~0~1c", (2, 13)),
        ("/x", (3, 3)),
        ("/", (4, 3)),
        ("//e", (4, 8)),
        ("/nope", None),
        ("/a/2", None),
        ("/a/01", None),
        ("/x/0", None),
    ],
)
def test_position_maps_a_pointer_to_where_the_member_starts(pointer, where):
    assert parse(DOC).position(pointer) == where


def test_position_of_a_duplicate_name_is_the_member_kept():
    assert parse('{"a": 1,\n"a": 2}').position("/a") == (2, 1)


def test_position_rejects_a_malformed_pointer():
    with pytest.raises(ValueError):
        parse(DOC).position("a")


def test_position_in_a_big_document_scans_to_the_target(monkeypatch):
    import webapp.core.json.document as document

    monkeypatch.setattr(document, "POSITION_MAP_LIMIT", 10)
    doc = parse(DOC)
    assert doc.position("/a/1/b~0~1c") == (2, 13)
    assert doc.position("/missing") is None
    assert doc._positions is None


def _big_document() -> str:
    """Over 1 MB, over POSITION_MAP_LIMIT: rows with escaped names and strings, nested and long flat arrays."""
    rows = [
        {
            "id": i,
            "name": f'row {i}, "quoted" \u00e9 [x]',
            "a/b": {"m~n": [i, i + 0.5, None, True, "x,y"]},
            "scores": list(range(i % 7, i % 7 + 40)),
            "note": "z" * 200,
        }
        for i in range(2500)
    ]
    return json.dumps({"meta": {"count": 2500}, "rows": rows, "tail": [[1, 2], {"k": "v"}]}, indent=1)


BIG_POINTERS = [
    f"/rows/{i}" + ("/name", "/a~1b/m~0n/4", f"/scores/{i % 40}", "", "/a~1b")[k % 5]
    for k, i in enumerate(range(0, 2500, 13))
] + ["", "/meta", "/meta/count", "/tail", "/tail/0/1", "/tail/1/k", "/rows/2499/note"]
BIG_MISSES = ["/rows/2500", "/rows/7/nope", "/rows/7/scores/40", "/rows/07", "/rows/7/id/0", "/nope/x", "/tail/2"]


def _starts_at(doc: Document, pointer: str, offset: int) -> bool:
    """Checked with the json module alone: a member's name starts at ``offset`` (its value after the colon),
    else the value itself does."""
    from webapp.core.json.pointer import resolve, split

    decoder = json.JSONDecoder()
    value, text = resolve(doc.value, pointer), doc.text
    parent = resolve(doc.value, pointer.rsplit("/", 1)[0]) if pointer else None
    if isinstance(parent, dict):
        name, end = json.decoder.scanstring(text, offset + 1)
        if text[offset] != '"' or name != split(pointer)[-1]:
            return False
        offset = end + len(text[end : end + 10]) - len(text[end : end + 10].lstrip(" \n:"))
    return decoder.raw_decode(text, offset)[0] == value


@pytest.mark.slow
def test_positions_of_many_pointers_in_a_big_document_take_one_scan(monkeypatch):
    import webapp.core.json.document as document

    scans: list[set[str]] = []

    class Counting(document.PositionRecorder):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if kwargs.get("targets") is not None:
                scans.append(set(kwargs["targets"]))

    text = _big_document()
    assert len(text) > 1_000_000 and len(text) > document.POSITION_MAP_LIMIT and len(BIG_POINTERS) == 200
    monkeypatch.setattr(document, "PositionRecorder", Counting)
    doc = parse(text)
    found = doc.positions(BIG_POINTERS + BIG_MISSES)
    assert len(scans) == 1 and scans[0] == set(BIG_POINTERS + BIG_MISSES) - {""}
    for pointer in BIG_POINTERS:
        assert found[pointer] is not None, pointer
        assert _starts_at(doc, pointer, doc.offset(pointer)), pointer
        assert doc.line_col(doc.offset(pointer)) == found[pointer]
    assert all(found[pointer] is None for pointer in BIG_MISSES)
    # Every answer, misses included, is kept: asking again costs no scan, one new pointer costs one small one.
    assert [doc.position(p) for p in BIG_POINTERS + BIG_MISSES] == list(found.values())
    assert doc.positions(BIG_MISSES + BIG_POINTERS[:3]) == {p: found[p] for p in BIG_MISSES + BIG_POINTERS[:3]}
    assert len(scans) == 1
    assert doc.position("/rows/1/id") is not None and scans[1:] == [{"/rows/1/id"}]
    assert doc._positions is None and len(doc._known) == len(BIG_POINTERS + BIG_MISSES)  # no full map

    # One pointer at a time, on a fresh document: the same answers.
    single = parse(text)
    assert {p: single.position(p) for p in BIG_POINTERS + BIG_MISSES} == found


def test_positions_are_keyed_by_the_pointers_as_given_and_equal_on_small_and_big_texts(monkeypatch):
    import webapp.core.json.document as document

    pointers = ["/a/1/b~0~1c", "/x", "/", "//e", "/nope", "/a/01", ""]
    small = parse(DOC).positions(pointers)
    monkeypatch.setattr(document, "POSITION_MAP_LIMIT", 10)
    assert parse(DOC).positions(pointers) == small
    assert small["/a/1/b~0~1c"] == (2, 13) and small["/nope"] is None and small[""] == (1, 1)


def test_positions_reject_a_malformed_pointer_before_scanning(monkeypatch):
    import webapp.core.json.document as document

    monkeypatch.setattr(document, "POSITION_MAP_LIMIT", 10)
    doc = parse(DOC)
    with pytest.raises(ValueError):
        doc.positions(["/x", "x"])
    assert doc._known == {}


def test_targeted_scan_of_a_big_document_keeps_the_last_of_duplicate_members(monkeypatch):
    import webapp.core.json.document as document

    monkeypatch.setattr(document, "POSITION_MAP_LIMIT", 10)
    doc = parse('{"a": {"b": 1},\n"a": {"b": 2},\n"c": [0, 1, {"d": 2}]}')
    assert doc.positions(["/a", "/a/b", "/c/2/d"]) == {"/a": (2, 1), "/a/b": (2, 7), "/c/2/d": (3, 14)}


def test_targeted_scan_stops_once_every_pointer_is_found(monkeypatch):
    import webapp.core.json.document as document

    monkeypatch.setattr(document, "POSITION_MAP_LIMIT", 10)
    # What follows the last pointer asked for is never read: a text cut there still answers.
    doc = Document('[{"a": 1}, [2, 3, 4], 5, {"b": oops', None, _unique_names=True)
    assert doc.positions(["/0/a", "/1/2", "/2"]) == {"/0/a": (1, 3), "/1/2": (1, 19), "/2": (1, 23)}
    with pytest.raises(JSONTextError):
        doc.position("/4")  # reading on to it meets the cut


def test_line_col_counts_characters_not_bytes_and_crlf_lines():
    doc = Document('{\r\n"é": "ü",\r\n"b": 1}', None)
    assert doc.line_col(doc.text.index('"b"')) == (3, 1)
    assert parse('{\r\n"\u00e9\U0001f600": 1, "b": 2}').position("/b") == (2, 10)


# -- JSON Lines ------------------------------------------------------------------------------------------------


def test_json_lines_parse_each_record_and_skip_blank_lines():
    records = parse_lines('{"a": 1}\n\n[2]\r\n"three"\n')
    assert [(r.line, r.document.value) for r in records] == [(1, {"a": 1}), (3, [2]), (4, "three")]


def test_json_lines_errors_name_the_line_in_the_whole_text():
    with pytest.raises(JSONTextError) as info:
        parse_lines('{"a": 1}\n{"b": 2,}\n')
    assert (info.value.code, info.value.line, info.value.column) == ("trailing_comma", 2, 8)


def test_json_lines_warnings_name_the_line_in_the_whole_text():
    records = parse_lines('{"a": 1}\n{"b": 1, "b": 2}')
    [warning] = records[1].document.warnings
    assert (warning.line, warning.pointer) == (2, "/b")
    # The message names both places in the whole text too (a fresh user's audit found "line 1" here).
    assert "line 2, column 2 and line 2, column 10" in warning.message
    [far] = parse_lines('{"a": 1}\n\n\n{"n": 12345678901234567890}').pop().document.warnings
    assert far.line == 4 and far.code == "big_integer"


def test_line_records_give_each_non_blank_line_with_its_number_and_offset():
    text = '{"a": 1}\n \t\r\n[2]\r\n"three"'
    assert list(line_records(text)) == [(1, 0, '{"a": 1}'), (3, 13, "[2]\r"), (4, 18, '"three"')]
    assert all(text[offset:].startswith(raw) for _, offset, raw in line_records(text))


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ('{"a": 1}\n{"b": 2}', True),
        ('\n{"a": 1}\n\nnot json', True),  # the first record decides; a bad later one is that record's error
        ('{"a": 1}', False),  # one line: one value
        ('{"a":\n 1} {"b": 2}', False),  # the first line is no value on its own
        ("", False),
    ],
)
def test_looks_like_lines_as_the_pages_decide(text, lines):
    assert looks_like_lines(text) is lines


def test_recursion_limit_is_untouched():
    before = sys.getrecursionlimit()
    with pytest.raises(JSONTextError):
        parse("[" * 50_000)
    assert sys.getrecursionlimit() == before


# -- big documents: warnings located in the first part, counted after it ----------------------------------------


@pytest.fixture
def small_limits(monkeypatch):
    """The parser module, with a big text from 1,000 characters on, located exactly up to 1,000."""
    import webapp.core.json.parser as parser

    monkeypatch.setattr(parser, "PRECISE_WARNINGS_LIMIT", 8_000)  # precise up to 1,000 characters
    monkeypatch.setattr(parser, "BIG_TEXT", 1_000)
    return parser


def big_document(item: str, count: int = 300) -> str:
    return "[" + ",\n".join(item % i for i in range(count)) + "]"


def test_a_big_document_locates_the_first_warnings_and_counts_the_rest(small_limits):
    text = big_document('{"i": %d, "id": 12345678901234567890, "x": 1e999, "s": "\\ud800", "f": 0.12345678901234567}')
    doc = parse(text)
    located = [w for w in doc.warnings if w.pointer]
    assert located and all(w.line <= 20 for w in located)
    assert {w.code for w in located} == {"big_integer", "number_overflow", "lone_surrogate"}
    rest = {w.code: w.message for w in doc.warnings if not w.pointer}
    assert set(rest) == {"big_integer", "number_overflow", "lone_surrogate"}
    per_code = len(located) // 3
    assert f"About {300 - per_code:,} more integers beyond 2^53" in rest["big_integer"]
    assert "e.g. 1e999" in rest["number_overflow"]


def test_a_big_document_names_all_its_duplicate_names(small_limits):
    doc = parse(big_document('{"i": %d, "a": 1, "a": 2, "b": [], "b": {}}'))
    summary = [w for w in doc.warnings if w.code == "duplicate_key" and not w.pointer]
    assert len(summary) == 1 and '600 duplicate member names in all ("a", "b")' in summary[0].message


def test_a_big_document_counts_members_outside_strings_to_notice_one_duplicate(small_limits):
    # The fast path compares the members the parser kept with the colons outside strings: colons inside strings
    # (names and values) must not look like members, and one duplicate among thousands must not be missed.
    plain = big_document('{"i:": %d, "url": "http://x:80/a:b", "o": {"k:": "v:"}}')
    assert parse(plain).warnings == []
    doubled = plain[:-1] + ', {"url": "a:b", "o": {"k": 1, "k": 2}}]'
    assert [w.code for w in parse(doubled).warnings] == ["duplicate_key"]


def test_a_big_document_without_risks_has_no_warnings(small_limits):
    text = big_document('{"i": %d, "id": "12345678901234567890", "f": 0.12345678901234567, "e": 1e10, "s": "é"}')
    assert parse(text).warnings == []


def test_counting_stops_at_a_bound(small_limits, monkeypatch):
    import webapp.core.json.interop as interop

    monkeypatch.setattr(interop, "MAX_COUNTED", 50)
    doc = parse(big_document('{"i": %d, "id": 12345678901234567890}'))
    [rest] = [w for w in doc.warnings if not w.pointer and w.code == "big_integer"]
    assert rest.message.startswith("At least")


def test_ijson_never_takes_the_bounded_path(small_limits):
    with pytest.raises(JSONTextError) as info:
        parse(big_document('{"i": %d, "s": "x"}').replace('"i": 299, "s": "x"', '"i": 299, "s": "\\udc00"'), ijson=True)
    assert info.value.code == "lone_surrogate" and info.value.line == 300


# -- the modules of the parse layer, each through its own interface ---------------------------------------------


def test_the_package_exports_its_public_api():
    import webapp.core.json as package

    assert all(hasattr(package, name) for name in package.__all__)


def test_quote_writes_json_for_messages():
    from webapp.core.json import quote

    assert quote("région") == '"région"'  # non-ASCII kept
    assert quote({"a": [1, None]}) == '{"a": [1, null]}'
    assert quote("a\ud800") == '"a\\ud800"' and quote("a\ud800").encode("utf-8")  # a lone surrogate: its escape
    assert quote({1, 2}) == repr({1, 2})  # not JSON: repr
    assert quote("x" * 100, 10) == '"xxxxxxxx…' and len(quote("x" * 100, 10)) == 10
    assert quote("short", 10) == '"short"'


def test_shorten_and_describe_name_tokens_and_characters():
    from webapp.core.json.show import describe, shorten

    assert shorten("12345") == "12345"
    long = "1" * 20 + "2" * 30 + "3" * 12
    assert shorten(long) == f"{'1' * 20}…{'3' * 12} (62 characters)"
    assert describe("x") == "'x'"
    assert describe("\u00a0") == "U+00A0 (NO-BREAK SPACE)"
    assert describe("\x01") == "U+0001"


def test_kind_of_names_a_value_for_messages():
    from webapp.core.json import kind_of

    assert [kind_of(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null",
        "a boolean",
        "a number",
        "a number",
        "a string",
        "an array",
        "an object",
    ]


def test_bytes_split_and_join_strings_round_trip_and_measure_nesting():
    from webapp.core.json import STRING_MARK, split_strings
    from webapp.core.json.bytes import join_strings, nesting_depth

    data = b'{"a\\"b": ["x\\\\", {"c": "[{"}], "d": []}'
    parts = split_strings(data)
    assert join_strings(parts) == data
    assert [part for part in parts[1::2]] == [b"a\x01\x02b", b"x\x01\x01", b"c", b"[{", b"d"]
    outside = STRING_MARK.join(parts[0::2])
    assert b"[{" not in outside.replace(b" ", b"")[2:]  # the brackets inside the string are gone
    assert nesting_depth(outside) == 3
    assert nesting_depth(b"1") == 0


def test_lines_and_line_col_agree_and_count_characters():
    from webapp.core.json import line_col
    from webapp.core.json.positions import Lines

    text = "ab\r\né\nxyz"
    lines = Lines(text)
    for offset in range(len(text) + 1):
        assert lines.line_col(offset) == line_col(text, offset)
    assert lines.line_col(text.index("é")) == (2, 1) and lines.line_col(text.index("z")) == (3, 3)


def test_position_recorder_with_a_scanner_records_where_values_start():
    from webapp.core.json.positions import PositionRecorder
    from webapp.core.json.scan import Scanner

    text = '{"a": [1, {"b": 2}], "c": "x"}'
    every = PositionRecorder()
    Scanner(text, max_depth=10, recorder=every).run()
    assert every.offsets == {"": 0, "/a": 1, "/a/0": 7, "/a/1": 10, "/a/1/b": 11, "/c": 21}

    some = PositionRecorder(targets={"/c"})
    assert some.through == frozenset({""})
    assert some.skip_container(text, 6, "/a") == 19  # "/a" holds no target: read past at C speed
    assert some.skip_container(text, 0, "") is None  # the root may hold one: read it
    Scanner(text, max_depth=10, recorder=some).run()
    assert some.offsets == {"/c": 21}


def test_position_recorder_stops_when_every_target_is_found():
    from webapp.core.json.positions import PositionRecorder

    recorder = PositionRecorder(targets={"/0", "/2"}, stop_when_found=True)
    assert recorder.record("/1", 5) is False and recorder.offsets == {}
    assert recorder.record("/0", 1) is False
    assert recorder.record("/2", 9) is True and recorder.offsets == {"/0": 1, "/2": 9}


def test_position_recorder_steps_over_scalar_elements_holding_no_target():
    from webapp.core.json.positions import PositionRecorder

    text = '[1, "a,b", true, null, [5], 6]'
    recorder = PositionRecorder(targets={"/5"})
    assert recorder.skip_elements(text, 1, "", 0) == (text.index("[5]"), 4)  # stops at the container
    assert PositionRecorder(targets={"/2"}).skip_elements(text, 1, "", 0) == (text.index("true"), 2)
    assert PositionRecorder().skip_elements(text, 1, "", 0) == (1, 0)  # recording every value: no skipping


def test_scanner_stops_past_an_offset_and_first_error_names_the_mistake():
    from webapp.core.json.scan import Scanner, first_error

    text = "[" + ", ".join(["1"] * 50) + ", oops]"
    scanner = Scanner(text, max_depth=10, stop_at=20)
    scanner.run()  # the mistake lies after the stop
    assert scanner.stopped_at is not None and 20 < scanner.stopped_at < 25
    assert scanner.line_col(scanner.stopped_at) == (1, scanner.stopped_at + 1)
    err = first_error(text, max_depth=10)
    assert err is not None and err.code == "unquoted_string" and err.column == text.index("oops") + 1
    assert first_error("[1]", max_depth=10) is None
    assert first_error("[[1]]", max_depth=1).code == "too_deep"


def test_diagnosis_words_each_mistake_at_its_place():
    from webapp.core.json import JSONTextError
    from webapp.core.json.diagnose import Diagnosis, content_end
    from webapp.core.json.scan import Frame

    text = '{"a": [1 2'
    diagnosis = Diagnosis(text)
    err = diagnosis.after_child(9, Frame(False, 6, "/a"))
    assert isinstance(err, JSONTextError) and err.code == "missing_comma" and (err.line, err.column) == (1, 10)
    assert "array opened at line 1, column 7" in err.message
    cut = diagnosis.truncated([Frame(True, 0, ""), Frame(False, 6, "/a")])
    assert cut.code == "truncated" and "1 more enclosing level also unclosed" in cut.message
    assert cut.offset == content_end(text) == len(text)
    assert content_end("[1]  \n") == 3
    assert Diagnosis("{} x").after_document(3).code == "extra_data"
    assert Diagnosis("[1,]").trailing_comma(2, "]").message.startswith("Trailing comma before the end of the array")
    assert Diagnosis('{"a" 1}').after_name("a", 5).code == "missing_colon"


def test_warnings_collect_or_refuse_what_ijson_forbids():
    from webapp.core.json.interop import MAX_WARNINGS, Warnings
    from webapp.core.json.scan import Scanner

    text = '{"a": 1, "a": 12345678901234567890}'
    checks = Warnings(text)
    Scanner(text, max_depth=10, checks=checks).run()
    assert [(w.code, w.pointer, w.column) for w in checks.result()] == [
        ("duplicate_key", "/a", 10),
        ("big_integer", "/a", 15),
    ]
    assert checks.counts == {"duplicate_key": 1, "big_integer": 1}
    with pytest.raises(JSONTextError) as info:
        Scanner(text, max_depth=10, checks=Warnings(text, ijson=True)).run()
    assert info.value.code == "duplicate_key"

    many = Warnings("x")
    for _ in range(MAX_WARNINGS + 3):
        many.warn("big_integer", "m", "", 0)
    listed = many.result()
    assert len(listed) == MAX_WARNINGS + 1 and listed[-1].code == "more_warnings" and "3 more" in listed[-1].message
    assert many.counts["big_integer"] == MAX_WARNINGS + 3


def test_may_warn_is_false_only_when_a_scan_would_find_nothing():
    from webapp.core.json.interop import may_warn

    for risky in ("[12345678901234567890]", "[1e400]", '["\\ud800"]', '["\ufdd0"]', '{"\u00e9": 1, "e\u0301": 2}'):
        assert may_warn(risky) and may_warn(risky, risky.encode("utf-8", "surrogatepass")), risky
        assert parse(risky).warnings, risky
    for plain in ('{"a": [1, 2.5, "é"]}', '[1234567890, 1e10, "text"]'):
        assert not may_warn(plain) and not may_warn(plain, plain.encode()), plain


def test_bounded_warnings_locate_up_to_an_eighth_of_the_limit_and_count_the_rest():
    from webapp.core.json.interop import bounded_warnings

    text = "[" + ",\n".join(["12345678901234567890"] * 100) + "]"
    warnings = bounded_warnings(text, 10, [], limit=8 * 200)
    located = [w for w in warnings if w.pointer]
    [rest] = [w for w in warnings if not w.pointer]
    assert located and all(w.line <= 10 for w in located)
    assert f"About {100 - len(located)} more integers beyond 2^53" in rest.message
    assert bounded_warnings('["a"]', 10, []) == []


def test_a_bounded_scan_stops_once_every_listed_warning_is_found():
    from webapp.core.json.interop import MAX_WARNINGS, bounded_warnings

    text = "[" + ",\n".join(["12345678901234567890"] * (MAX_WARNINGS * 3)) + "]"
    warnings = bounded_warnings(text, 10, [], limit=8 * len(text))  # all of it could be located
    located = [w for w in warnings if w.pointer]
    [rest] = [w for w in warnings if not w.pointer]
    assert len(located) == MAX_WARNINGS and located[-1].line == MAX_WARNINGS
    assert f"About {2 * MAX_WARNINGS:,} more integers beyond 2^53 after line {MAX_WARNINGS}" in rest.message


@pytest.mark.parametrize(
    "text", ['{"a": 1, "a": 2}', '[12345678901234567890, "\\ud800"]', "[1, NaN]", "[1,]", '{"a" 1}']
)
def test_a_parse_without_warnings_gives_the_same_verdict(text):
    try:
        expected = parse(text)
    except JSONTextError as err:
        with pytest.raises(JSONTextError) as info:
            parse(text, warn=False)
        assert (info.value.code, info.value.line, info.value.column) == (err.code, err.line, err.column)
    else:
        quiet = parse(text, warn=False)
        assert expected.warnings and quiet.warnings == [] and quiet.value == expected.value


def test_a_big_parse_without_warnings_gives_the_same_verdict(small_limits):
    text = big_document('{"i": %d, "a": 1, "a": 12345678901234567890}')
    assert parse(text).warnings and parse(text, warn=False).warnings == []
    with pytest.raises(JSONTextError) as info:
        parse(text[:-1] + ",]", warn=False)
    assert info.value.code == "trailing_comma"


#: Strings with every escape and the characters the C-speed verdict of a big text looks at.
VERDICT_ITEM = (
    '{"i": %d, "s": "a \\\\ b \\\\\\" c \\u00e9 \\/ \\b\\f\\n\\r\\t, : {} []", '
    '"n": [1.10, -0, 1e2, true, null], "o": {}}'
)


@pytest.mark.parametrize(
    "change",
    [
        ("", ""),  # valid, checked without being decoded
        ('"i": 150,', '"i": 150, "x": "tab\there",'),
        ('"i": 150,', '"i": 150, "x": "line\nbreak",'),
        ('"i": 150,', '"i": 150, "x": "\x01",'),
        ('"i": 150,', '"i": 150, "x": "\\q",'),
        ('"i": 150,', '"i": 150, "x": "\\u12g4",'),
        ('"i": 150,', '"i": 150, "x": \\ 1,'),
        ('"i": 150,', '"i": 150, "x": NaN,'),
        ('"i": 150,', '"i": 150, "x" 1,'),
        ('"i": 150,', '"i": 150, "x": 01,'),
        ('"i": 299,', '"i": 299, "x": "open'),
        ("}]", '}, "open]'),
        ("[", "\ufeff["),
        ('"i": 150,', '"i": 150, "x": 1 2,'),
        ('"i": 150,', '"i": 150, "x": 1e400,'),  # valid: the json module reads it (inf), orjson does not
        ('"i": 150,', '"i": 150, "x": "\\\\q",'),  # valid: an escaped backslash, then a letter
    ],
)
def test_a_big_verdict_without_values_is_the_json_modules(small_limits, change):
    text = big_document(VERDICT_ITEM).replace(*change) if change[0] else big_document(VERDICT_ITEM)
    assert text != big_document(VERDICT_ITEM) or not change[0]
    try:
        expected = parse(text, warn=False)
    except JSONTextError as err:
        with pytest.raises(JSONTextError) as info:
            parse(text, warn=False, string_parts=True, values=False)
        assert (info.value.code, info.value.line, info.value.column) == (err.code, err.line, err.column)
    else:
        quiet = parse(text, warn=False, string_parts=True, values=False)
        assert quiet.text == text and quiet.value in (None, expected.value)
        if change == ("", ""):
            assert quiet.value is None  # valid, and shown so without decoding


def test_join_pieces_is_join_then_translate_for_many_pieces():
    from webapp.core.json import join_pieces

    table = bytes.maketrans(b"ab", b"AB")
    for count in (0, 1, 8192, 8193, 20_000):
        pieces = [b"a%db" % i for i in range(count)]
        assert join_pieces(b'"', pieces) == b'"'.join(pieces)
        assert join_pieces(b'"', pieces, table) == b'"'.join(pieces).translate(table)


def test_the_skeleton_keeps_the_brackets_and_colons_outside_strings_only():
    from webapp.core.json.bytes import nesting_depth, neutral_escapes, outside_test, skeleton

    text = rb'{"a": "[[[", "b\\": [{"c": "x\"]]]\\", "d": ""}], "e": "{:"}'
    assert skeleton(neutral_escapes(text)) == b"{::[{::}]:}"  # one colon per member
    assert nesting_depth(skeleton(neutral_escapes(b'"[[[]"'))) == 0
    neutral = neutral_escapes(text)
    outside = outside_test(neutral)
    assert [outside(text.index(token)) for token in (b"[[[", b"[{", b"x", b"], ")] == [False, True, False, True]


def test_a_big_text_is_checked_without_splitting_its_strings(monkeypatch):
    import webapp.core.json.parser as parser

    monkeypatch.setattr(parser, "BIG_TEXT", 1_000)
    monkeypatch.setattr(parser, "PRECISE_WARNINGS_LIMIT", 8_000)
    strings = ",".join(f'"[{{ {k} \\" ]]"' for k in range(400))  # brackets and escapes inside strings only
    assert parse(f"[{strings}]").value[0] == '[{ 0 " ]]'
    deep = "[" * 101 + "]" * 101
    with pytest.raises(JSONTextError) as err:
        parse(f"[{strings},{deep}]")
    assert err.value.code == "too_deep"
    doc = parse(f'[{strings}, "9007199254740993 in a string", 9007199254740993, 1e-999, "1e999"]')
    assert [(w.code, w.pointer) for w in doc.warnings] == [("big_integer", "/401"), ("number_underflow", "/402")]


def test_a_big_text_reads_the_same_on_the_fast_path(monkeypatch):
    import webapp.core.json.parser as parser

    monkeypatch.setattr(parser, "BIG_TEXT", 1_000)
    filler = ",".join(f'{{"id": "x{k}", "text": "a: [b] \\" {{c}}", "n": {k}.{k}e-{k % 300}}}' for k in range(60))
    for tail, codes in [
        ('{"a": 1}', []),
        ('{"a": 1, "a": 2}', ["duplicate_key"]),
        ('{"a": {"b": 1, "b": 1}}', ["duplicate_key"]),
        ("18446744073709551617", ["big_integer"]),
        ("9007199254740993", ["big_integer"]),
        ('{"a\\u003a": 1, "a:": 2}', ["duplicate_key"]),
        ('{"\\u003A": "b:"}', []),
        ('"\\ud800"', ["lone_surrogate"]),
        ("1e400", ["number_overflow"]),
        ("-0", []),
        ('"\\ud83d\\ude00 \\ufffe"', ["noncharacter"]),
    ]:
        text = f"[{filler}, {tail}]"
        doc = parse(text)
        assert doc.value == json.loads(text) and repr(doc.value) == repr(json.loads(text)), tail
        assert [w.code for w in doc.warnings] == codes, tail
    assert type(parse(f"[{filler}, 18446744073709551617]").value[-1]) is int  # exact, not a float
    for bad in ("01", "[1,]", "NaN", '"a\tb"', '{"a" 1}', "[1] x"):
        errors = []
        for big_text in (1_000, 10**9):  # the fast path, and the json module's
            monkeypatch.setattr(parser, "BIG_TEXT", big_text)
            with pytest.raises(JSONTextError) as err:
                parse(f"[{filler}, {bad}]")
            errors.append((err.value.code, err.value.line, err.value.column))
        assert errors[0] == errors[1], bad


def test_a_big_text_of_numbers_reads_the_same_on_the_fast_path(monkeypatch):
    import random

    import webapp.core.json.parser as parser

    monkeypatch.setattr(parser, "BIG_TEXT", 1_000)
    rng = random.Random(7)
    tokens = [
        f"{rng.choice(['', '-'])}{rng.randrange(10 ** rng.randrange(1, 19))}"
        f".{rng.randrange(10 ** rng.randrange(1, 25))}e{rng.randrange(-290, 290)}"
        for _ in range(3000)
    ]
    tokens += [repr(rng.uniform(-1e6, 1e6)) for _ in range(1000)] + [
        str(rng.randrange(-(10**18), 10**18)) for _ in range(1000)
    ]
    text = "[" + ",".join(tokens) + "]"
    assert repr(parse(text).value) == repr(json.loads(text))


# A filler for big texts: brackets, colons, quotes and backslashes inside strings only, no \u escape.
_FILLER = ",".join(f'{{"id": "x{k}", "text": "a: [b] \\" {{c}} \\n\\\\", "n": {k}}}' for k in range(200))


def _nested(depth: int, kind: str) -> str:
    """A JSON value nesting ``depth`` deep (arrays, objects, or both in turn), a number innermost."""
    text = "1"
    for level in range(depth):
        text = f"[{text}]" if kind == "array" or (kind == "mixed" and level % 2) else f'{{"k": {text}}}'
    return text


def _outcome(text: str, **options) -> tuple:
    try:
        doc = parse(text, **options)
    except JSONTextError as err:
        return err.code, err.line, err.column, str(err)
    return repr(doc.value), [(w.code, w.pointer, w.line, w.column, w.message) for w in doc.warnings]


@pytest.mark.parametrize("kind", ["array", "object", "mixed"])
def test_a_big_text_read_by_orjson_has_its_nesting_measured_on_its_value(small_limits, kind):
    # orjson refuses to write values nested beyond _DUMPS_DEPTH: wrapped in arrays, the value is written exactly
    # when it nests at most max_depth deep. Beyond what orjson writes, the text's brackets are measured.
    from webapp.core.json import orjson_read

    assert orjson_read._DUMPS_DEPTH is not None
    for depth, max_depth in [(10, 10), (11, 10), (100, 100), (101, 100), (250, 300), (300, 300), (301, 300)]:
        text = f"[{_FILLER}, {_nested(depth - 1, kind)}]"  # the outer array is one level
        fast = _outcome(text, max_depth=max_depth)
        small_limits.BIG_TEXT = 10**9  # the json module's path, which measures the text first
        assert fast == _outcome(text, max_depth=max_depth), (depth, max_depth)
        small_limits.BIG_TEXT = 1_000
        assert (fast[0] == "too_deep") == (depth > max_depth)
    # A repeated member name may hide a deep value from orjson's (the last value is kept): the text still counts.
    with pytest.raises(JSONTextError) as err:
        parse(f'[{_FILLER}, {{"a": {_nested(100, kind)}, "a": 1}}]')
    assert err.value.code == "too_deep"


def test_a_big_text_without_backslash_u_is_spared_the_escape_scans(small_limits):
    from webapp.core.json.bigtext import BigText

    plain = f"[{_FILLER}]"
    assert not BigText(plain, None, False).u_escapes
    assert parse(plain).warnings == [] and parse(plain).value == json.loads(plain)
    # With a \u escape the scans run: an escaped colon hides a repeated name from the colon count, an escaped
    # surrogate may be unpaired.
    for tail, code in [
        ('{"a\\u003a": 1, "a:": 2}', "duplicate_key"),
        ('"\\ud800"', "lone_surrogate"),
        ('"\\udc00 x"', "lone_surrogate"),
    ]:
        text = f"[{_FILLER}, {tail}]"
        assert BigText(text, None, False).u_escapes, tail
        assert [w.code for w in parse(text).warnings] == [code], tail


def test_a_big_text_read_by_orjson_looks_for_underflows_only_where_there_may_be_one(small_limits):
    # orjson refuses numbers beyond a double, so a text it read has no overflow; an underflow needs a negative
    # exponent of 3 digits or more, or hundreds of zeros after the point.
    cases = [
        ("1e-400", ["number_underflow"]),
        ("-1E-0400", ["number_underflow"]),
        ("0." + "0" * 500 + "1e100", ["number_underflow"]),
        ("0." + "0" * 299 + "1e100", []),
        ("1e-300", []),
        ("1e300", []),
        ('"1e-400 in a string"', []),
        ("1e400", ["number_overflow"]),
        ("-1e999", ["number_overflow"]),
    ]  # these two: the json module's path
    for tail, codes in cases:
        text = f"[{_FILLER}, {tail}]"
        warnings = parse(text).warnings
        assert [w.code for w in warnings] == codes, tail
        assert all("after line" in w.message for w in warnings), tail  # counted after the part scanned closely
        assert repr(parse(text).value) == repr(json.loads(text)), tail


def test_a_number_in_a_big_text_is_told_apart_from_a_strings_only_when_it_may_be_one(small_limits):
    # A long digit run led by what may come before a value is looked at closely: inside a string, no warning.
    for tail, codes in [
        ('"in a string: 12345678901234567890"', []),
        ('"a 9007199254740993"', []),
        ("9007199254740993", ["big_integer"]),
        ("12345678901234567890", ["big_integer"]),
        ('"x", 12345678901234567890', ["big_integer"]),
    ]:
        text = f"[{_FILLER}, {tail}]"
        doc = parse(text)
        assert [w.code for w in doc.warnings] == codes, tail
        assert repr(doc.value) == repr(json.loads(text)), tail
    assert type(parse(f"[{_FILLER}, 12345678901234567890]").value[-1]) is int
