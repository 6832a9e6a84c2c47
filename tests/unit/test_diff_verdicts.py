"""The Diff page's gate verdicts (issue 11): a verdict for each side that holds items — one item, or a journal with
its refused items and pairing findings linked — and no "no replay blocker" claim for what is not items."""

from __future__ import annotations

import json

from webapp.core.examples import DIFF as EXAMPLES
from webapp.core.pages import diff as diff_page

_, FC_001, _ = EXAMPLES["namespaced"]
TOOL = {"type": "function", "name": FC_001["name"], "parameters": {"type": "object"}}


def lines(*items: dict) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def test_documents_that_are_not_items_get_no_verdict_and_no_claim():
    page = diff_page.build('{"a": 1}', '{"a": 2}')
    assert page.result.changes and page.verdicts == [] and page.replay_claim is None
    schemas = diff_page.build('{"type": "object"}', '{"type": "string"}')
    assert schemas.verdicts == [] and schemas.replay_claim is None


def test_an_item_against_a_journal_of_it_twice_gets_a_verdict_per_side_and_no_claim():
    page = diff_page.build(json.dumps(FC_001), lines(FC_001, FC_001))
    left, right = page.verdicts
    assert (left.shape, left.label) == ("item", "not checked")
    assert right.is_journal and right.label == "not replayable" and right.refused
    duplicate = [r for r in right.refusals if r.code == "duplicate_call_id"]
    assert len(duplicate) == 1 and duplicate[0].pointer == "/1" and duplicate[0].at == (2, 1)
    assert page.replay_claim is None and not page.result.blockers


def test_a_journal_side_lists_the_items_the_gate_refuses_with_their_place():
    cut = dict(FC_001, id="fc_009", call_id="call_9", arguments='{"region": "ap')
    page = diff_page.build(json.dumps([FC_001]), lines(FC_001, cut), schema_options(TOOL))
    left, right = page.verdicts
    assert left.label == "replayable" and left.ok and left.refusals == ()
    assert right.label == "not replayable" and right.message == "2 items: 1 ok, 1 arguments_parse"
    [refusal] = right.refusals
    end = json.dumps(cut).index('"ap"') + 4  # where the cut-off string ends on line 2
    assert (refusal.code, refusal.pointer, refusal.at) == ("arguments_parse", "/1", (2, end))


def test_two_journals_without_blockers_claim_the_replay_for_the_matched_items():
    other = dict(FC_001, arguments='{"region": "emea"}')
    page = diff_page.build(json.dumps([FC_001]), json.dumps([other]), schema_options(TOOL))
    assert [v.label for v in page.verdicts] == ["replayable", "replayable"]
    assert page.replay_claim == "clear"


def test_no_claim_of_a_clear_replay_when_the_gate_refuses_the_right_side():
    left = json.dumps([FC_001])
    right = json.dumps([FC_001, {"type": "function_call_output", "call_id": "nobody", "output": "x"}])
    page = diff_page.build(left, right, schema_options(TOOL))
    assert page.verdicts[1].label == "not replayable"
    assert [r.code for r in page.verdicts[1].refusals] == ["orphan_output"]
    assert page.replay_claim == "refused"


def test_a_member_name_given_twice_refuses_the_side_as_on_the_journal_page():
    text = json.dumps(FC_001)
    twice = text.replace('"status": "completed"', '"status": "in_progress", "status": "completed"')
    assert twice != text
    second = twice.index('"status": "completed"') + 1
    other = dict(FC_001, id="fc_002", call_id="call_2")
    # A journal in JSON Lines: a duplicate_member finding linked to the item's line.
    page = diff_page.build(lines(FC_001, other), twice + "\n" + json.dumps(other) + "\n", schema_options(TOOL))
    left, right = page.verdicts
    assert left.label == "replayable"
    assert right.label == "not replayable" and right.refused
    [refusal] = [r for r in right.refusals if r.code == "duplicate_member"]
    assert refusal.pointer == "/0" and refusal.at == (1, second)
    assert page.replay_claim != "clear"
    # A journal as an array, and one item: refused too.
    array = diff_page.build(json.dumps([FC_001]), "[" + twice + "]", schema_options(TOOL))
    assert array.verdicts[1].label == "not replayable"
    assert "duplicate_member" in [r.code for r in array.verdicts[1].refusals]
    item = diff_page.build(text, twice, schema_options(TOOL))
    assert [v.label for v in item.verdicts] == ["ok", "duplicate_member"]
    assert item.verdicts[1].refused and item.verdicts[1].at == (1, second)
    assert item.replay_claim != "clear"


def test_a_response_side_is_gated_with_the_tools_it_carries():
    response = {"object": "response", "status": "completed", "tools": [TOOL], "output": [FC_001]}
    page = diff_page.build(json.dumps(response), json.dumps(response))
    assert [v.label for v in page.verdicts] == ["replayable", "replayable"]
    strict = dict(TOOL, parameters={"type": "object", "required": ["nowhere"]})
    page = diff_page.build(json.dumps(response), json.dumps(dict(response, tools=[strict])))
    assert page.verdicts[1].label == "not replayable"
    assert "arguments_schema" in page.verdicts[1].message


def test_the_page_renders_the_refusals_as_links_and_no_claim(client):
    body = client.post(
        "/diff", data={"left": json.dumps(FC_001), "right": lines(FC_001, FC_001)}, headers={"HX-Request": "true"}
    ).get_data(as_text=True)
    assert 'data-refusal="duplicate_call_id"' in body and 'data-field="diff-right" data-line="2"' in body
    assert "no replay blocker" not in body
    body = client.post("/diff", data={"left": '{"a":1}', "right": '{"a":2}'}, headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert "no replay blocker" not in body and 'id="diff-verdicts"' not in body


def schema_options(tool: dict):
    from webapp.core.pages.diff import PageOptions

    return PageOptions(schema=json.dumps(tool))


def test_patch_operations_that_only_respell_a_number_are_counted():
    page = diff_page.build('{"a": 1e2, "b": [1.0, 2]}', '{"a": 100, "b": [1, 3]}')
    assert len(page.result.changes) == 1 and page.respelled == 2 and len(page.result.patch) == 3
    assert diff_page.build('{"a": 1}', '{"a": 2}').respelled == 0


def test_one_call_without_a_call_id_or_a_name_is_refused_on_its_side():
    # From a fresh user's audit: both sides said "ok" for a call with no call_id, which the CLI refuses.
    for missing, code in (("call_id", "missing_call_id"), ("name", "missing_name")):
        bare = {k: v for k, v in FC_001.items() if k != missing}
        page = diff_page.build(json.dumps(FC_001), json.dumps(bare), schema_options(TOOL))
        left, right = page.verdicts
        assert left.label == "ok" and (right.label, right.ok, right.refused) == (code, False, True)
        assert right.message.startswith(f"the item has no {missing}")
        assert page.replay_claim != "clear"


def test_the_same_refused_item_on_both_sides_says_the_gate_refuses_it():
    # From a fresh user's audit: "no changes" and no word of the refusal for the same item without a call_id.
    bare = json.dumps({k: v for k, v in FC_001.items() if k != "call_id"})
    page = diff_page.build(bare, bare, schema_options(TOOL))
    assert page.result.identical and page.replay_claim == "refused"
    assert diff_page.build(json.dumps(FC_001), json.dumps(FC_001), schema_options(TOOL)).replay_claim is None


def test_an_item_of_an_unknown_type_gets_its_verdict():
    newer = json.dumps({**FC_001, "type": "function_call_v2"})
    page = diff_page.build(newer, newer, schema_options(TOOL))
    # A type the spec does not define and no provider prefix names is refused (unknown_type, issue 18).
    assert [v.label for v in page.verdicts] == ["unknown_type", "unknown_type"]


def test_an_item_with_nothing_to_run_is_no_refusal_on_either_side():
    output = json.dumps({"type": "function_call_output", "call_id": "call_1", "output": "ok"})
    page = diff_page.build(output, output, schema_options(TOOL))
    assert [v.label for v in page.verdicts] == ["not_function_call"] * 2
    assert not page.verdicts[1].refused and page.replay_claim is None


def test_a_tool_of_another_name_is_no_schema_for_the_call():
    # From a fresh user's audit: ok here, while the Schema page and the CLI with --tools refuse it.
    other = dict(TOOL, name="other_tool", parameters={"type": "object"})
    page = diff_page.build(json.dumps(FC_001), json.dumps(FC_001), schema_options(other))
    assert [v.label for v in page.verdicts] == ["arguments_schema", "arguments_schema"]
    assert 'named "other_tool"' in page.verdicts_note
