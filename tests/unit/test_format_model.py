"""The Format page's model (pure, ``webapp/core/format_page.py``): one submission read, formatted and inspected."""

from __future__ import annotations

import json

import pytest

from webapp.core.examples import FC_001
from webapp.core.format import format_bytes, format_text
from webapp.core.format_page import download_file, expand, format_document, text_digest, too_large_message
from webapp.core.tree import TREE_NODE_LIMIT

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
    text = json.dumps({"é": list(range(300)), "s": 'a"b\\', "n": 1.5}, ensure_ascii=False)
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


# -- the page's other answers: download, tree expansion, too large ---------------------------------------------


def test_the_download_is_json_or_json_lines_when_minified():
    outcome = format_document('{"n": 1.10}', as_bytes=True)
    file = download_file(outcome)
    assert (file.name, file.mimetype, file.body) == ("formatted.json", "application/json", b'{\n  "n": 1.10\n}')
    lines = download_file(format_document("[1]\n[2]\n", action="minify"))
    assert (lines.name, lines.mimetype, lines.body) == ("formatted.jsonl", "application/jsonl", "[1]\n[2]\n")
    # Pretty-printed records span several lines each: neither JSON nor JSON Lines, so not named as either.
    pretty_lines = download_file(format_document('{"a": 1}\n{"a": 2}\n'))
    assert (pretty_lines.name, pretty_lines.mimetype) == ("formatted.txt", "text/plain")
    with pytest.raises(ValueError):
        download_file(format_document("{"))


def test_expand_answers_a_node_or_names_the_problem():
    document = '{"a": {"b": [1, 2, 3]}}'
    answer = expand(document, "/a/b", start=1, digest=text_digest(document))
    assert answer.problem is None and [c.text for c in answer.node.children] == ["2", "3"]
    assert answer.start == 1 and answer.digest == text_digest(document)
    assert "changed since it was formatted" in expand("[1]", "", digest="0" * 20).problem
    assert "no longer valid JSON" in expand("[1", "").problem
    assert "Nothing at /x" in expand("[1]", "/x").problem
    assert expand("[1]", "").problem is None
    assert expand("[[[1]]]", "", max_depth=2).node is None


def test_too_large_names_the_limit_in_bytes_and_megabytes():
    assert "20,971,520 bytes (20 MB)" in too_large_message(20 << 20)
    assert "1,000 bytes, so" in too_large_message(1000)


def test_a_cut_text_view_is_not_said_to_show_everything():
    # Issue 11: the 15 MB result said both "the text view shows everything" and "showing the first … characters".
    text = json.dumps(list(range(TREE_NODE_LIMIT + 1)))
    cut = format_document(text, preview=1000)
    assert cut.cut and "shows everything" not in cut.tree_note and "Download gives the whole" in cut.tree_note
    assert "shows everything" in format_document(text).tree_note
