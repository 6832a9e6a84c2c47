"""Unit tests of the pure diff (the ``webapp/core/diff/`` package, ``webapp/core/diff_page.py``): no app.
The JSON Patch round trips are checked with the independent ``jsonpatch`` library."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch
import pytest

from webapp.core.diff import (
    ABSENT,
    DiffError,
    DiffOptions,
    diff,
    lcs_pairs,
    lcs_runs,
    parse_ignore_paths,
    strictly_equal,
    unequal_offsets,
)
from webapp.core.diff_page import side_by_side, string_hunks
from webapp.core.examples import DIFF as EXAMPLES
from webapp.core.json import json_type

_, FC_001, WS_001 = EXAMPLES["namespaced"]
_, SAME_CALL, OTHER_PROVIDER = EXAMPLES["same-call"]
_, _, CHAT_MESSAGE = EXAMPLES["chat-completions"]


def strict(value: Any) -> str:
    """A text equal only for equal JSON values with equal types (1, 1.0 and true differ)."""
    return json.dumps(value, sort_keys=True)


def summary(left: Any, right: Any, **options: Any) -> list[tuple]:
    return [(c.kind, c.left, c.right, c.old, c.new) for c in diff(left, right, DiffOptions(**options)).changes]


def assert_round_trip(left: Any, right: Any, options: DiffOptions | None = None) -> None:
    patch = diff(left, right, options).patch
    patched = jsonpatch.apply_patch(copy.deepcopy(left), patch)
    assert strict(patched) == strict(right), patch


# ---------------------------------------------------------------------------------------------------------------
# Semantics, data-driven (json-tools-anchors §4 items 14-18 and the rules)

CASES = [
    pytest.param({"a": 1, "b": 2}, {"b": 2, "a": 1}, {}, [], id="key-order-only"),
    pytest.param({"a": None}, {}, {}, [("removed", "/a", None, None, ABSENT)], id="null-vs-missing"),
    pytest.param({"a": None}, {"a": 0}, {}, [("type_changed", "/a", "/a", None, 0)], id="null-vs-zero"),
    # Issue 11: 1 and 1.0 are the same number (JSON has one number type; JSON Schema says both are the integer 1):
    # not a change, listed in same_numbers. true and 1 stay a change of type, inside arrays too.
    pytest.param(
        {"n": 1, "l": [2], "b": [True]},
        {"n": 1.0, "l": [2.0], "b": [1]},
        {},
        [("type_changed", "/b/0", "/b/0", True, 1)],
        id="int-float-bool-inside-arrays",
    ),
    pytest.param({"a": 1.5}, {"a": 2}, {}, [("changed", "/a", "/a", 1.5, 2)], id="number-to-integer-is-a-change"),
    pytest.param(
        [{"id": 1}, {"id": 2}],
        [{"id": 0}, {"id": 1}, {"id": 2}],
        {},
        [("added", None, "/0", ABSENT, {"id": 0})],
        id="insert-at-front-by-id",
    ),
    pytest.param(
        [{"x": "a"}, {"x": "b"}],
        [{"x": "new"}, {"x": "a"}, {"x": "b"}],
        {},
        [("added", None, "/0", ABSENT, {"x": "new"})],
        id="insert-at-front-by-content",
    ),
    pytest.param(
        [{"id": 1, "x": "a"}, {"id": 2, "x": "b"}],
        [{"id": 2, "x": "b"}, {"id": 1, "x": "a"}],
        {},
        [("moved", "/0", "/1", {"id": 1, "x": "a"}, {"id": 1, "x": "a"})],
        id="swap-is-a-move",
    ),
    pytest.param(
        [{"id": 1, "x": "a"}, {"id": 2, "x": "b"}],
        [{"id": 2, "x": "b"}, {"id": 1, "x": "a"}],
        {"ignore_order": True},
        [],
        id="swap-ignored-with-ignore-order",
    ),
    pytest.param([1, 2, 3], [1, 5, 3], {}, [("changed", "/1", "/1", 2, 5)], id="scalar-in-array-changed"),
    pytest.param([1, 2, 3], [1, 3], {}, [("removed", "/1", None, 2, ABSENT)], id="scalar-removed"),
    pytest.param([3, 1, 2], [1, 2, 3], {"ignore_order": True}, [], id="scalars-ignore-order"),
    pytest.param(
        {"a": [1, 2]}, {"a": {"0": 1}}, {}, [("type_changed", "/a", "/a", [1, 2], {"0": 1})], id="array-to-object"
    ),
    pytest.param(
        {"a/b": {"m~n": 1}},
        {"a/b": {"m~n": 2}},
        {},
        [("changed", "/a~1b/m~0n", "/a~1b/m~0n", 1, 2)],
        id="pointer-escaping",
    ),
    pytest.param({"k": "x"}, {"k": "x", "new": [1]}, {}, [("added", None, "/new", ABSENT, [1])], id="member-added"),
    pytest.param(1, True, {}, [("type_changed", "", "", 1, True)], id="root-scalars"),
    pytest.param(1, 1.0, {}, [], id="root-same-number"),
    pytest.param(
        [
            {"call_id": "c1", "type": "function_call", "name": "a"},
            {"call_id": "c1", "type": "function_call_output", "output": "x"},
        ],
        [
            {"call_id": "c1", "type": "function_call", "name": "a"},
            {"call_id": "c1", "type": "function_call_output", "output": "y"},
        ],
        {},
        [("changed", "/1/output", "/1/output", "x", "y")],
        id="call-and-output-share-call-id",
    ),
]


@pytest.mark.parametrize(("left", "right", "options", "expected"), CASES)
def test_changes(left, right, options, expected):
    assert summary(left, right, **options) == expected
    assert_round_trip(left, right, DiffOptions(**options))


def test_long_strings_are_kept_whole():
    left = {"note": "X one two three four five six seven eight nine ten eleven (ABC)"}
    right = {"note": "Y one two three four five six seven eight nine ten eleven (ABC)"}
    [change] = diff(left, right).changes
    assert (change.old, change.new) == (left["note"], right["note"])
    assert string_hunks(change.old, change.new) == ("", "X", "Y", left["note"][1:])


@pytest.mark.parametrize(
    ("old", "new", "hunks"),
    [
        ("abc", "abc", ("abc", "", "", "")),
        ("abc", "abXc", ("ab", "", "X", "c")),
        ("aXa", "aa", ("a", "X", "", "a")),
        ("", "new", ("", "", "new", "")),
    ],
)
def test_string_hunks(old, new, hunks):
    assert string_hunks(old, new) == hunks
    prefix, old_mid, new_mid, suffix = hunks
    assert (prefix + old_mid + suffix, prefix + new_mid + suffix) == (old, new)


# ---------------------------------------------------------------------------------------------------------------
# arguments strings


def test_same_call_from_two_providers_differs_only_in_id():
    result = diff(SAME_CALL, OTHER_PROVIDER)
    assert [(c.kind, c.pointer) for c in result.changes] == [("changed", "/id")]
    [reformatted] = result.reformatted
    assert (reformatted.right, reformatted.old, reformatted.new) == (
        "/arguments",
        SAME_CALL["arguments"],
        OTHER_PROVIDER["arguments"],
    )
    assert result.blockers == []
    assert_round_trip(SAME_CALL, OTHER_PROVIDER)  # the patch also carries the reformatted text


def test_arguments_content_change_lists_the_inner_pointer():
    right = dict(FC_001, arguments='{"region": "global"}')
    [change] = diff(FC_001, right).changes
    assert (change.kind, change.pointer, change.old, change.new) == (
        "changed",
        "/arguments",
        FC_001["arguments"],
        right["arguments"],
    )
    assert [(c.kind, c.pointer, c.old, c.new) for c in change.inner] == [("changed", "/region", "apac", "global")]


@pytest.mark.parametrize(
    ("left_args", "right_args", "side"),
    [
        ('{"region":"apac"}', '{"region":', "right"),
        ("", "{}", "left"),
        ('{"x": NaN}', '{"x": NaN }', "left and right"),
    ],
)
def test_arguments_that_do_not_parse_are_compared_raw(left_args, right_args, side):
    [change] = diff({"arguments": left_args}, {"arguments": right_args}).changes
    assert change.kind == "changed" and change.inner == ()
    assert change.note.startswith(side + ": not valid JSON")


def test_arguments_type_change_string_to_object():
    [change] = diff(FC_001, dict(FC_001, arguments={"region": "apac"})).changes
    assert (change.kind, change.pointer, change.old_type, change.new_type) == (
        "type_changed",
        "/arguments",
        "string",
        "object",
    )


def test_reformatted_arguments_inside_journal_items_do_not_misalign():
    left = [{"type": "message", "content": "hi"}, {"type": "function_call", "arguments": '{"a":1}'}]
    right = [{"type": "function_call", "arguments": '{ "a" : 1 }'}]
    result = diff(left, right)
    assert [(c.kind, c.left) for c in result.changes] == [("removed", "/0")]
    assert [r.left for r in result.reformatted] == ["/1/arguments"]
    assert_round_trip(left, right)


# ---------------------------------------------------------------------------------------------------------------
# Replay blockers


@pytest.mark.parametrize(
    ("left", "right", "codes"),
    [
        pytest.param(FC_001, WS_001, [("namespaced", ""), ("call_id", ""), ("name", "")], id="article-namespaced"),
        pytest.param(FC_001, dict(FC_001, status="incomplete"), [("status", "")], id="status-no-longer-completed"),
        pytest.param(FC_001, dict(FC_001, call_id="call_129"), [("call_id", "")], id="call-id-changed"),
        pytest.param(FC_001, dict(FC_001, name="get_weather"), [("name", "")], id="name-changed"),
        pytest.param(FC_001, dict(FC_001, type="message"), [("type_changed", "")], id="type-changed"),
        pytest.param(SAME_CALL, CHAT_MESSAGE, [("chat_completions", "")], id="chat-completions-envelope"),
        pytest.param(SAME_CALL, OTHER_PROVIDER, [], id="same-call-no-blocker"),
        pytest.param([FC_001], [FC_001, WS_001], [("namespaced", "/1")], id="namespaced-item-added"),
        pytest.param(
            {"output": [FC_001]},
            {"output": [dict(FC_001, status="in_progress")]},
            [("status", "/output/0")],
            id="response-output-item",
        ),
        pytest.param([WS_001], [dict(WS_001, status="completed")], [], id="unchanged-namespaced-item-is-fine"),
    ],
)
def test_blockers(left, right, codes):
    assert [(b.code, b.pointer) for b in diff(left, right).blockers] == codes


def test_blocker_messages_name_both_values():
    [blocker, *_] = diff(FC_001, WS_001).blockers
    assert '"function_call"' in blocker.message and '"openai:web_search_call"' in blocker.message


def test_a_missing_type_reads_missing_and_a_json_null_reads_null():
    [missing, *_] = diff(FC_001, {k: v for k, v in FC_001.items() if k != "type"}).blockers
    assert missing.code == "type_changed"
    assert missing.message.startswith('type changed from "function_call" to (missing):')
    [null, *_] = diff(FC_001, dict(FC_001, type=None)).blockers
    assert null.message.startswith('type changed from "function_call" to null:')
    # A type null on one side and none on the other are not the same either.
    [both] = diff(dict(FC_001, type=None), {k: v for k, v in FC_001.items() if k != "type"}).blockers
    assert both.message.startswith("type changed from null to (missing):")


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"location": "Paris"}, "arguments_type", "an object, not a string"),
        ('{"location":"Par', "arguments_parse", "line 1, column 17"),
        ('{"location":"Paris","location":"Rome"}', "arguments_parse", "duplicate"),
    ],
)
def test_arguments_the_gate_refuses_on_the_right_block_the_replay(arguments, code, words):
    """Step 3 agrees with the gate: the item about to be replayed must carry a string of I-JSON."""
    right = {**FC_001, "arguments": arguments}
    [blocker] = diff(FC_001, right).blockers
    assert (blocker.code, blocker.pointer) == (code, "/arguments")
    assert words in blocker.message.lower()
    assert diff(right, FC_001).blockers == []  # the left side is history; only the replayed side must pass


# ---------------------------------------------------------------------------------------------------------------
# Options


def test_match_key_member_name():
    left = [{"name": "a", "v": 1}, {"name": "b", "v": 2}]
    right = [{"name": "b", "v": 3}, {"name": "a", "v": 1}]
    changes = summary(left, right, match_key="name", ignore_order=True)
    assert changes == [("changed", "/1/v", "/0/v", 2, 3)]
    assert_round_trip(left, right, DiffOptions(match_key="name", ignore_order=True))


def test_match_key_pointer_inside_items():
    left = [{"function": {"name": "a"}, "x": 1}, {"function": {"name": "b"}, "x": 1}]
    right = [{"function": {"name": "b"}, "x": 2}]
    assert summary(left, right, match_key="/function/name") == [
        ("removed", "/0", None, left[0], ABSENT),
        ("changed", "/1/x", "/0/x", 1, 2),
    ]


@pytest.mark.parametrize(
    ("patterns", "expected"),
    [
        (["/*/id"], [("changed", "/0/status", "/0/status", "completed", "incomplete")]),
        (["/*/status"], [("changed", "/0/id", "/0/id", "a", "b")]),
        (["/**/id", "/*/status"], []),
    ],
)
def test_ignore_paths(patterns, expected):
    left = [{"type": "message", "id": "a", "status": "completed", "content": "hi"}]
    right = [{"type": "message", "id": "b", "status": "incomplete", "content": "hi"}]
    result = diff(left, right, DiffOptions(ignore_paths=tuple(patterns)))
    assert [(c.kind, c.left, c.right, c.old, c.new) for c in result.changes] == expected
    assert result.ignored == 2 - len(expected)


def test_ignored_members_stay_as_on_the_left_in_the_patch():
    left = {"created_at": 1, "items": [{"id": "x", "created_at": 5, "v": 1}]}
    right = {"created_at": 2, "items": [{"id": "x", "created_at": 6, "v": 2}], "new": True}
    options = DiffOptions(ignore_paths=("/created_at", "/items/*/created_at"))
    patched = jsonpatch.apply_patch(left, diff(left, right, options).patch)
    assert patched == {"created_at": 1, "items": [{"id": "x", "created_at": 5, "v": 2}], "new": True}


@pytest.mark.parametrize(
    ("text", "patterns"),
    [
        ("/*/id, /created_at", ("/*/id", "/created_at")),
        ("/a\n\n  /b/*  \n", ("/a", "/b/*")),
        ("", ()),
    ],
)
def test_parse_ignore_paths(text, patterns):
    assert parse_ignore_paths(text) == patterns


@pytest.mark.parametrize("bad", ["created_at", "/**", "*/id"])
def test_bad_ignore_pattern_is_named(bad):
    with pytest.raises(DiffError) as info:
        diff({}, {}, DiffOptions(ignore_paths=(bad,)))
    assert info.value.param == "ignore_paths" and repr(bad) in info.value.message


# ---------------------------------------------------------------------------------------------------------------
# Alignment at scale: one insert is one addition


def journal(n: int, *, ids: bool) -> list[dict]:
    items = []
    for k in range(n):
        item: dict[str, Any] = {"type": "message", "role": "user", "content": f"message {k}"}
        if ids:
            item["id"] = f"msg_{k}"
        items.append(item)
    return items


@pytest.mark.parametrize("ids", [True, False], ids=["by-id", "by-content"])
def test_one_insert_and_edits_in_a_long_journal(ids):
    left = journal(3000, ids=ids)
    right = copy.deepcopy(left)
    right.insert(2, {"type": "message", "role": "user", "content": "inserted"})
    edited = random.Random(5).sample(range(10, 3000), 40)
    for k in edited:
        right[k]["role"] = "assistant"
    result = diff(left, right)
    # Without ids, an edited item is no longer equal by content; it is paired back by similarity in its gap.
    assert result.counts == {"added": 1, "removed": 0, "changed": 40, "type_changed": 0, "moved": 0}
    assert sorted(c.right for c in result.changes if c.kind == "changed") == sorted(f"/{k}/role" for k in edited)
    assert_round_trip(left, right)


def test_lcs_pairs_form_a_common_subsequence():
    rng = random.Random(1)
    for _ in range(200):
        a = [rng.randrange(4) for _ in range(rng.randrange(30))]
        b = [rng.randrange(4) for _ in range(rng.randrange(30))]
        pairs = lcs_pairs(a, b)
        assert all(a[i] == b[j] for i, j in pairs)
        assert all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(pairs, pairs[1:], strict=False))
        assert len(pairs) == lcs_length(a, b)  # small inputs: exact


def test_lcs_runs_merge_consecutive_pairs_and_find_long_common_ends():
    a = [*range(1000), "x", *range(1000, 3000)]
    b = [*range(1000), "y", "z", *range(1000, 3000)]
    assert lcs_runs(a, b) == [(0, 0, 1000), (1001, 1002, 2000)]
    assert lcs_runs([], [1]) == [] and lcs_runs([1, 2], [1, 2]) == [(0, 0, 2)]
    rng = random.Random(2)
    for _ in range(200):
        x = [rng.randrange(3) for _ in range(rng.randrange(40))]
        y = [rng.randrange(3) for _ in range(rng.randrange(40))]
        runs = lcs_runs(x, y)
        assert all(i1 + n1 < i2 or j1 + n1 < j2 for (i1, j1, n1), (i2, j2, _) in zip(runs, runs[1:], strict=False))
        assert [(i + k, j + k) for i, j, n in runs for k in range(n)] == lcs_pairs(x, y)


def test_unequal_offsets_keep_json_types_apart_in_equal_looking_runs():
    a = [{"n": 1}, {"n": 2}, [1], "s", {"n": True}, {"a": 1, "b": 2}, 0.5]
    b = [{"n": 1}, {"n": 3}, [1.0], "s", {"n": 1}, {"b": 2, "a": 1}, 0.5]
    # 2 != 3; [1] == [1.0] and True == 1 for Python, not as JSON types; key order is no difference
    assert unequal_offsets(a, b, 0, 0, len(a)) == [1, 2, 4]
    assert unequal_offsets([0, *a], b, 1, 0, 2) == [1]
    rng = random.Random(3)
    pool = [0, 1, 1.0, True, False, None, "1", [1], [True], {"k": 1}, {"k": 1.0}]
    for _ in range(300):
        x = [rng.choice(pool) for _ in range(rng.randrange(12))]
        y = [rng.choice(pool) for _ in x]
        assert unequal_offsets(x, y, 0, 0, len(x)) == [k for k in range(len(x)) if not strictly_equal(x[k], y[k])]


def test_strict_equality_where_orjson_cannot_write_the_values_and_for_signed_zeros():
    # A run is first compared as orjson texts; what orjson refuses (an integer beyond 64 bits, a lone surrogate)
    # is compared by marshal's bytes instead, and a run that differs there is looked at pair by pair.
    wide, lone = 2**70, "\ud800"
    a = [{"n": wide}, lone, -0.0, {"a": [0.0]}, {"n": wide}, [lone, 1]]
    b = [{"n": wide}, lone, 0.0, {"a": [-0.0]}, {"n": float(wide)}, [lone, 1]]
    assert unequal_offsets(a, b, 0, 0, len(a)) == [2, 3, 4]  # -0.0 and 0.0 are == for Python, not the same JSON
    assert unequal_offsets(a, a[:], 0, 0, len(a)) == []
    assert strictly_equal([wide, lone], [wide, lone]) and not strictly_equal([wide], [float(wide)])
    assert not strictly_equal({"z": -0.0}, {"z": 0.0}) and strictly_equal({"a": 1, "b": [2]}, {"b": [2], "a": 1})


def lcs_length(a: list, b: list) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b):
            prev, row[j + 1] = row[j + 1], prev + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


# ---------------------------------------------------------------------------------------------------------------
# Property: the JSON Patch turns left into right, over many generated pairs


def random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.3:
        return {rng.choice("abcdefg"): random_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    if depth < 3 and roll < 0.55:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    return rng.choice(
        [
            None,
            True,
            False,
            0,
            1,
            2,
            1.0,
            2.5,
            -0.5,
            "x",
            "y",
            "",
            "long text " * 3,
            '{"a": 1}',
            {"id": rng.randrange(3)},
        ]
    )


def mutate(value: Any, rng: random.Random, depth: int = 0) -> Any:
    if rng.random() < 0.2:
        return random_value(rng, depth)
    if isinstance(value, dict):
        out = dict(value)
        for key in list(out):
            if rng.random() < 0.2:
                del out[key]
            elif rng.random() < 0.4:
                out[key] = mutate(out[key], rng, depth + 1)
        if rng.random() < 0.3:
            out[rng.choice("abcdefgh")] = random_value(rng, depth + 1)
        return out
    if isinstance(value, list):
        out = [mutate(item, rng, depth + 1) if rng.random() < 0.3 else item for item in value]
        if out and rng.random() < 0.3:
            out.pop(rng.randrange(len(out)))
        if rng.random() < 0.3:
            out.insert(rng.randrange(len(out) + 1), random_value(rng, depth + 1))
        if len(out) > 1 and rng.random() < 0.2:
            i, j = rng.sample(range(len(out)), 2)
            out[i], out[j] = out[j], out[i]
        return out
    if value == '{"a": 1}' and rng.random() < 0.5:
        return '{"a":1}'  # the same arguments, other formatting
    return value if rng.random() < 0.5 else random_value(rng, depth)


@pytest.mark.parametrize(
    "options",
    [DiffOptions(), DiffOptions(ignore_order=True), DiffOptions(match_key="id")],
    ids=["default", "ignore-order", "match-key"],
)
def test_patch_round_trip_property(options):
    rng = random.Random(20261130)
    for _ in range(400):
        left = random_value(rng)
        right = mutate(left, rng)
        result = diff(left, right, options)
        patched = jsonpatch.apply_patch(copy.deepcopy(left), result.patch)
        assert strict(patched) == strict(right), (left, right, result.patch)
        if strict(left) == strict(right):
            assert result.changes == [] and result.patch == []


@pytest.mark.parametrize("options", [DiffOptions(), DiffOptions(ignore_order=True)], ids=["default", "ignore-order"])
def test_patch_round_trip_property_long_arrays(options):
    """Long arrays take the block-by-block fast path: inserts, removals and a swap among mostly equal items."""
    rng = random.Random(31)
    for _ in range(60):
        left = [random_value(rng) for _ in range(rng.randrange(40, 200))]
        right = [mutate(item, rng) if rng.random() < 0.05 else item for item in left]
        for _ in range(rng.randrange(4)):
            if right and rng.random() < 0.5:
                right.pop(rng.randrange(len(right)))
            else:
                right.insert(rng.randrange(len(right) + 1), random_value(rng))
        i, j = rng.sample(range(len(right)), 2)
        right[i], right[j] = right[j], right[i]
        patched = jsonpatch.apply_patch(copy.deepcopy(left), diff(left, right, options).patch)
        assert strict(patched) == strict(right)


def test_flat_objects_fast_path_agrees_with_deepdiff():
    """Objects differing only in scalar members skip deepdiff; an ignore pattern that matches nothing forces the
    deepdiff path, and both must report the same changes in the same order."""
    rng = random.Random(3)
    force_deepdiff = DiffOptions(ignore_paths=("/no-such-member",))
    for _ in range(300):
        left = {key: random_value(rng, 2) for key in rng.sample("abcdefgh", rng.randrange(6))}
        right = mutate(left, rng, 1)
        if not isinstance(right, dict):
            right = dict(left, z=1)
        assert diff(left, right).changes == diff(left, right, force_deepdiff).changes, (left, right)


def test_reversed_long_array_is_moves_and_round_trips():
    left = [{"id": k} for k in range(500)]
    right = left[::-1]
    assert diff(left, right).counts["moved"] == 499
    assert diff(left, right, DiffOptions(ignore_order=True)).changes == []
    assert_round_trip(left, right)
    assert_round_trip(left, right, DiffOptions(ignore_order=True))


def test_no_change_means_semantically_equal_property():
    rng = random.Random(7)
    for _ in range(300):
        left = random_value(rng)
        right = mutate(left, rng)
        if not diff(left, right).changes:
            assert strict(normalize(left)) == strict(normalize(right)), (left, right)


def normalize(value: Any) -> Any:
    """Parse JSON strings under ``arguments``/keys the way the diff compares them (test's own version)."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return ["parsed", json.loads(value)]
        except ValueError:
            return value
    return value


# ---------------------------------------------------------------------------------------------------------------
# Limits and presentation


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def test_deep_nesting_at_the_parse_limit_is_diffed():
    [change] = diff(nested(100, 1), nested(100, 2)).changes
    assert change.kind == "changed" and change.pointer.count("/") == 100


def test_arguments_count_toward_the_depth_cap():
    def deep_item(arguments: str) -> Any:
        value: Any = {"arguments": arguments}
        for _ in range(95):
            value = [value]
        return value

    inner_left, inner_right = json.dumps(nested(10, 1)), json.dumps(nested(10, 2))
    [change] = diff(deep_item(inner_left), deep_item(inner_right)).changes
    assert change.inner == () and "deeper than 4 levels here" in change.note
    [shallow] = diff({"arguments": inner_left}, {"arguments": inner_right}).changes
    assert len(shallow.inner) == 1


def test_json_type_names():
    assert [json_type(v) for v in (None, True, 1, 1.0, "s", [], {})] == [
        "null",
        "boolean",
        "integer",
        "number",
        "string",
        "array",
        "object",
    ]


def test_side_by_side_marks_and_hides_unchanged():
    left = {"a": 1, "b": [1, 2, 3, 4, 5, 6, 7, 8], "c": "same"}
    right = {"a": 2, "b": [1, 2, 3, 4, 5, 6, 7, 8], "c": "same"}
    result = diff(left, right)
    lines_l, lines_r, cut = side_by_side(left, right, result)
    assert not cut and [line.text for line in lines_l if line.mark] == ['  "a": 1,']
    assert [line.text for line in lines_r if line.mark] == ['  "a": 2,']
    hidden_l, _, _ = side_by_side(left, right, result, hide_unchanged=True, context=1)
    assert [(line.text, line.gap) for line in hidden_l] == [("{", 0), ('  "a": 1,', 0), ('  "b": [', 0), ("", 11)]


def test_side_by_side_stops_at_the_line_limit():
    value = list(range(100))
    lines, _, cut = side_by_side(value, value, diff(value, value), limit=10)
    assert cut and len(lines) == 10


def test_a_namespaced_item_on_both_sides_is_a_blocker():
    # Issue 11: the article's openai:web_search_call against itself with another query was "no replay blocker".
    changed = copy.deepcopy(WS_001)
    changed["action"]["query"] = "another query"
    result = diff(WS_001, changed)
    assert [c.pointer for c in result.changes] == ["/action/query"]
    assert [(b.code, b.pointer) for b in result.blockers] == [("namespaced", "")]
    assert "openai:web_search_call" in result.blockers[0].message
    # In a journal too: a matched pair of namespaced items.
    assert [b.code for b in diff({"items": [WS_001]}, {"items": [changed]}).blockers] == ["namespaced"]


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        ({"a": 1e2}, {"a": 100}, [("/a", "/a")]),  # the 1e2 vs 100
        ({"a": 1.0, "x": "s"}, {"a": 1, "x": "t"}, [("/a", "/a")]),  # beside a change (objects through deepdiff)
        ({"l": [1, 2.0]}, {"l": [1.0, 2]}, [("/l/0", "/l/0"), ("/l/1", "/l/1")]),
        (
            {"a": {"b": [3]}, "c": [{"d": 5.0}]},
            {"a": {"b": [3.0]}, "c": [{"d": 5}]},
            [("/a/b/0", "/a/b/0"), ("/c/0/d", "/c/0/d")],
        ),
    ],
)
def test_numbers_written_differently_are_the_same_number_not_a_change(left, right, same):
    result = diff(left, right)
    assert [c for c in result.changes if c.kind == "type_changed"] == []
    assert sorted(result.same_numbers) == same
    assert_round_trip(left, right)  # the patch still writes the right's numbers


@pytest.mark.parametrize("key", ["nonexistent", "/bad/ptr"])
def test_a_match_key_no_item_has_is_said_not_silently_ignored(key):
    # Issue 11: "Match items by" accepted nonexistent and /bad/ptr silently.
    result = diff([{"id": 1, "x": "a"}], [{"id": 1, "x": "b"}], DiffOptions(match_key=key))
    assert result.notes == [f"no array item has {key!r} (match items by): items were matched by their content instead"]
    assert diff([{"id": 1}], [{"id": 2}], DiffOptions(match_key="id")).notes == []


def test_a_blocker_on_an_ignored_path_says_why_the_change_list_is_empty():
    # Issue 11: "Ignore paths" /call_id gave "no changes" beside "Do not replay: call_id changed", unexplained.
    result = diff(FC_001, dict(FC_001, call_id="call_999"), DiffOptions(ignore_paths=("/call_id",)))
    assert result.changes == []
    [blocker] = result.blockers
    assert blocker.code == "call_id"
    assert blocker.message.endswith(
        "(/call_id is in Ignore paths, so the change list leaves it out; the replay rule does not)"
    )
