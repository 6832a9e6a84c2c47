"""The JSON Diff page's model (``webapp/core/diff_page.py``) and the replay blockers (``webapp/core/diff/blockers.py``),
pure: no app, no HTML. The JSON Patch is checked with the independent ``jsonpatch`` library."""

from __future__ import annotations

import json

import jsonpatch

from webapp.core import diff_page as model
from webapp.core.diff import BLOCKERS, item_blockers, replay_blockers
from webapp.core.diff_page import PageOptions, diff_page, patch_download
from webapp.core.examples import DIFF as EXAMPLES

_, FC_001, WS_001 = EXAMPLES["namespaced"]


def pretty(value) -> str:
    return json.dumps(value, indent=2)


def test_only_left_asks_for_the_right_side():
    page = diff_page(pretty(FC_001), None)
    assert page.need_right and page.sides == [] and page.result is None and page.right == ""
    assert not diff_page("", None).need_right


def test_both_sides_bad_are_named_and_kept():
    page = diff_page('{"a": 1,}', "[1, 2")
    left, right = page.sides
    assert (left.name, left.error.code, left.error.column) == ("left", "trailing_comma", 8)
    assert (right.name, right.error.code) == ("right", "truncated")
    assert page.result is None and (page.left, page.right) == ('{"a": 1,}', "[1, 2")


def test_a_bad_option_is_the_options_error_not_a_result():
    page = diff_page("{}", "{}", PageOptions(ignore_paths="created_at"))
    assert page.option_error.param == "ignore_paths" and "must be a JSON Pointer" in page.option_error.message
    assert page.result is None and page.rows == []


def test_the_article_pair_has_rows_blockers_patch_and_sides():
    left, right = pretty(FC_001), pretty(WS_001)
    page = diff_page(left, right)
    assert [b.code for b in page.result.blockers][:2] == ["namespaced", "call_id"]
    assert len(page.rows) == len(page.result.changes) and page.more_changes == 0
    row = next(r for r in page.rows if r.left == "/type")
    assert (row.kind, row.old, row.new) == ("changed", '"function_call"', '"openai:web_search_call"')
    assert left.splitlines()[row.left_at[0] - 1][row.left_at[1] - 1 :].startswith('"type"')
    assert row.hunks is not None and row.hunks[1] + row.hunks[3] != ""
    assert jsonpatch.apply_patch(FC_001, json.loads(page.patch_text)) == WS_001
    lines_l, lines_r, cut = page.sides_view
    assert not cut and any(line.mark for line in lines_l) and any(line.mark for line in lines_r)


def test_arguments_changes_are_inner_rows_with_the_raw_strings():
    right = dict(FC_001, arguments='{"region":"global"}')
    [row] = diff_page(pretty(FC_001), pretty(right)).rows
    assert row.left == "/arguments" and row.old is None and row.new is None
    assert row.raw == (FC_001["arguments"], right["arguments"])
    assert [(sub.left, sub.left_at) for sub in row.inner] == [("/region", None)]


def test_rows_are_capped_and_counted(monkeypatch):
    monkeypatch.setattr(model, "MAX_CHANGES", 20)
    left = [{"id": f"m{k}", "v": k} for k in range(500)]
    right = [{"id": "new", "v": -1}] + [{"id": f"m{k}", "v": k + (k % 5 == 0)} for k in range(500)]
    page = diff_page(json.dumps(left), json.dumps(right))
    assert len(page.rows) == 20 and page.more_changes == 81


def test_big_texts_get_no_positions_nor_side_by_side(monkeypatch):
    monkeypatch.setattr(model, "SIDE_BY_SIDE_CHARS", 10)
    page = diff_page('{"a": 1, "b": 2}', '{"a": 1, "b": 3}')
    assert page.sides_view is None and page.rows[0].left_at is None and page.side_limit == model.SIDE_BY_SIDE_CHARS


def test_long_values_are_cut_and_say_so():
    page = diff_page(json.dumps({"v": ["x"] * 10_000}), json.dumps({"v": 1}))
    [row] = page.rows
    assert len(row.old) < 20_100 and "more characters: download the JSON Patch" in row.old and row.hunks is None


def test_hide_unchanged_collapses_the_sides():
    left, right = {"keep": list(range(30)), "v": 1}, {"keep": list(range(30)), "v": 2}
    shown = diff_page(json.dumps(left), json.dumps(right)).sides_view[0]
    hidden = diff_page(json.dumps(left), json.dumps(right), PageOptions(hide_unchanged=True)).sides_view[0]
    assert all(line.gap == 0 for line in shown) and any(line.gap == 31 for line in hidden)


def test_the_parse_limits_are_the_callers():
    page = diff_page("[[[1]]]", "[]", max_depth=2)
    assert page.sides[0].error.code == "too_deep" and page.sides[1].error is None


def test_patch_download_is_the_whole_patch_or_none():
    body = patch_download(pretty(FC_001), pretty(WS_001))
    assert body.endswith("\n") and jsonpatch.apply_patch(FC_001, json.loads(body)) == WS_001
    assert patch_download(pretty(FC_001), "{") is None
    assert patch_download("{}", "{}", PageOptions(ignore_paths="x")) is None
    assert "\\ud800" in patch_download('{"a": 1}', '{"a": "\\ud800"}')  # a lone surrogate as its escape


def test_options_become_diff_options():
    options = PageOptions(ignore_order=True, match_key="", ignore_paths="/*/id, /created_at").diff_options()
    assert options.ignore_order and options.match_key is None and options.ignore_paths == ("/*/id", "/created_at")


# -- blockers -----------------------------------------------------------------------------------------------


def test_item_blockers_of_one_pair():
    codes = [b.code for b in item_blockers(FC_001, {**FC_001, "status": "incomplete", "name": "other"}, "/0")]
    assert codes == ["name", "status"]
    assert item_blockers([1], FC_001, "") == [] and set(codes) <= set(BLOCKERS)


def test_replay_blockers_read_pairs_and_added_items():
    found = replay_blockers(
        [FC_001],
        [FC_001, WS_001],
        [("/0", FC_001, {**FC_001, "call_id": "x"})],
        [("/1", WS_001), ("/2", {"role": "assistant", "tool_calls": []}), ("/3", {"type": "x"})],
    )
    assert [(b.code, b.pointer) for b in found] == [("call_id", "/0"), ("namespaced", "/1"), ("chat_completions", "/2")]
    assert '"x"' in found[0].message and "(missing)" in item_blockers({}, {"name": "n"}, "")[0].message


def test_an_added_call_the_gate_stops_is_a_blocker_too():
    # From a fresh user's audit: a changed call in progress was a blocker, an added one was not.
    running = {**FC_001, "call_id": "call_new", "status": "in_progress"}
    cut = {**FC_001, "call_id": "call_cut", "arguments": '{"region": NaN}'}
    found = replay_blockers([FC_001], [FC_001, running, cut], [], [("/1", running), ("/2", cut)])
    assert [(b.code, b.pointer) for b in found] == [("status", "/1"), ("arguments_parse", "/2/arguments")]
    assert found[0].message.startswith('status is "in_progress" on the added item: only a completed call')
    assert replay_blockers([FC_001], [FC_001, FC_001], [], [("/1", FC_001)]) == []


def test_a_response_or_a_request_is_not_compared_as_an_item():
    # A response's status is the response's, not an item's: an item against a response, or two responses, compare
    # the items they hold (none paired with a lone item), never the envelopes' members as an item's.
    response = {"id": "resp_1", "object": "response", "status": "incomplete", "output": [FC_001]}
    request = {"model": "m", "input": [FC_001]}
    for left, right in ((FC_001, response), (response, FC_001), (FC_001, request)):
        assert replay_blockers(left, right, [], []) == []
    cut = {**FC_001, "status": "incomplete"}
    found = replay_blockers(
        {**response, "status": "completed"}, {**response, "output": [cut]}, [("/output/0", FC_001, cut)], []
    )
    assert [(b.code, b.pointer) for b in found] == [("status", "/output/0")]
    assert [b.code for b in replay_blockers(FC_001, cut, [], [])] == ["status"]  # two items: compared as such
