"""``webapp.core.journal.lists``: which input items of a session's turn are a replay of the conversation so far,
and an input_items page's order, on the cases the endpoint's own pages (tests/pages/test_journal_list_pages.py) do
not make."""

from __future__ import annotations

import json

from webapp.core.journal import from_value
from webapp.core.journal.lists import read_list, replayed

USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}], "status": "completed"}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}", "status": "completed"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "x", "status": "completed"}


def wrap(response, source, index, item, previous=None):
    return {"response_id": response, "source": source, "index": index, "item": item, "previous_response_id": previous}


def test_a_replay_may_leave_out_what_the_client_cannot_send_back():
    # turn 2 sends the history again without the reasoning item (and the user message under a fresh id)
    context = [dict(USER, id="msg_1"), REASONING, CALL]
    assert replayed([dict(USER, id="msg_2"), CALL, OUTPUT], context) == [0, 2]


def test_a_new_conversation_that_begins_as_an_earlier_one_is_not_its_replay():
    # the previous turn's items begin at 3: a run that stops at 0 does not reach it
    context = [dict(USER, id="msg_1"), CALL, OUTPUT, dict(USER, id="msg_9", content=[])]
    assert replayed([dict(USER, id="msg_2")], context, last_turn=3) == []


def test_a_session_turn_that_continues_a_response_is_all_new():
    data = [
        wrap("r1", "input", 0, dict(USER, id="msg_1")),
        wrap("r1", "output", 0, CALL),
        wrap("r2", "input", 0, dict(USER, id="msg_2"), previous="r1"),  # the same words, said again
    ]
    reading = read_list({"object": "list", "data": data, "has_more": False})
    assert len(reading.items) == 3 and reading.replays == {} and reading.partial is None


def test_a_session_page_with_more_is_partial_and_its_duplicates_name_the_unwrapped_item():
    data = [wrap("r1", "input", 0, dict(USER, id="msg_1")), wrap("r1", "output", 0, CALL)]
    reading = read_list({"object": "list", "session_key": "k", "data": data, "has_more": True})
    assert "has_more: true" in reading.partial
    journal = from_value({"object": "list", "data": data})
    assert (journal.shape, journal.where(1)) == ("session", "data[1].item")


def test_input_items_order_comes_from_the_calls_and_outputs():
    newest_first = {"object": "list", "data": [OUTPUT, CALL, USER], "has_more": False}
    reading = read_list(newest_first)
    assert reading.items == [USER, CALL, OUTPUT] and reading.origins == ["/data/2", "/data/1", "/data/0"]
    assert [note.code for note in reading.notes] == ["input_items_order"]
    oldest_first = {"object": "list", "data": [USER, CALL, OUTPUT], "has_more": False}
    assert read_list(oldest_first).items == [USER, CALL, OUTPUT] and read_list(oldest_first).notes == []


def test_a_sessions_entries_one_per_line_read_as_the_session(tmp_path):
    from webapp.core.journal import load_journal

    data = [
        wrap("r1", "input", 0, dict(USER, id="msg_1")),
        wrap("r1", "output", 0, CALL),
        wrap("r2", "input", 0, dict(USER, id="msg_2")),
        wrap("r2", "input", 1, CALL),
        wrap("r2", "input", 2, OUTPUT),
    ]
    text = "".join(json.dumps(entry) + "\n" for entry in data)
    journal = load_journal(text)
    assert journal.shape == "session" and journal.items == [dict(USER, id="msg_1"), CALL, OUTPUT]
    assert [journal.where(i) for i in range(3)] == ["line 1, item", "line 2, item", "line 5, item"]
