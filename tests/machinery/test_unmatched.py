"""What the peer sent that no request of ours waited for (machinery/threads/unmatched.py), on its own.

Not a spec page: the engine's memory of basic/messages gone wrong, for the error a caller reads.
Its promises: ``Unmatched`` keeps the last ``KEPT_UNMATCHED`` things that matched nothing, each
with its time; ``answer`` words an answer with an unknown id (an id ``"2"`` for our ``2`` names the
type, MSG-05; an id no request waits for; an id that is no valid id); ``since(start)`` says what
came after ``start`` in one sentence, kind by kind, with a hint when several lines were not JSON;
``meant_for`` finds whom a message dropped unread was meant for from its first bytes.
How a timed-out request quotes it is in tests/machinery/test_outgoing.py; a whole session's,
over a misbehaving peer, in tests/engine/test_client.py.
"""

from __future__ import annotations

import time

from mcp_ref.machinery.threads.unmatched import KEPT_UNMATCHED, Unmatched, meant_for


def test_an_answer_with_our_integer_id_as_a_string_names_the_type() -> None:
    seen = Unmatched()
    start = time.monotonic()
    seen.answer("2", {2})
    assert seen.since(start) == ('an answer with id "2", a string, where ours is the integer 2: an id must come '
                                 "back as it was sent, its type too")


def test_an_answer_for_no_request_of_ours_and_one_with_an_invalid_id_say_which() -> None:
    seen = Unmatched()
    start = time.monotonic()
    seen.answer("2", {3})  # a string of digits, but not one of ours either: no talk of types
    assert seen.since(start) == 'an answer with id "2", which no request of ours waits for'
    seen = Unmatched()
    seen.answer(1.5, {1})
    assert seen.since(start) == "an answer with id 1.5, which is not a valid id"
    seen = Unmatched()
    seen.answer({"a": "b" * 100}, {1})  # shown as JSON, cut short
    said = seen.since(start)
    assert said.startswith('an answer with id {"a":"bbb') and "..." in said and len(said) < 120


def test_since_says_only_what_came_after_start_kind_by_kind_and_counts_the_rest() -> None:
    seen = Unmatched()
    seen.add("answer", "an old answer")
    start = time.monotonic()
    assert seen.since(start) == "", "what came before the request was sent is not its story"
    seen.answer(9, {1})
    seen.answer(10, {1})
    seen.add("too long", "a message over the 100-byte limit")
    assert seen.since(start) == ("an answer with id 9, which no request of ours waits for (and 1 more like it); "
                                 "a message over the 100-byte limit")


def test_several_lines_that_are_not_json_bring_the_hint_of_one_message_per_line() -> None:
    seen = Unmatched()
    start = time.monotonic()
    seen.add("not JSON", "a line that is not JSON (b'{')")
    assert "several lines" not in seen.since(start)
    seen.add("not JSON", "a line that is not JSON (b'\"id\": 1,')")
    assert seen.since(start).endswith("does the peer print each message over several lines? "
                                      "Over stdio every message is one line")


def test_only_the_last_kept_unmatched_are_kept() -> None:
    seen = Unmatched()
    start = time.monotonic()
    for n in range(KEPT_UNMATCHED + 5):
        seen.add(f"kind {n}", f"thing {n}")
    said = seen.since(start)
    assert "thing 4;" not in said and "thing 5;" in said and f"thing {KEPT_UNMATCHED + 4}" in said


def test_meant_for_reads_the_id_from_the_first_bytes_of_a_dropped_answer() -> None:
    pending = {1: "first", 2: "second"}
    assert meant_for(b'{"jsonrpc":"2.0","id": 2, "result":{"text":"xxxx', pending) == "second"
    assert meant_for(b'{"jsonrpc":"2.0","id":7,"result":{', pending) is None  # not one of ours
    assert meant_for(b'{"jsonrpc":"2.0","result":{"text":"xxxx', pending) is None  # no id yet: two wait
    assert meant_for(b'{"jsonrpc":"2.0","result":{"text":"xxxx', {5: "only"}) == "only"  # the only one waiting
    # A request or notification of the peer's answers nothing of ours, even when one waits.
    assert meant_for(b'{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{', {5: "only"}) is None
