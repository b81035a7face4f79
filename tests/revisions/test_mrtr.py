"""Multi round-trip requests of revision 2026-07-28 (mcp_ref/revisions/mrtr.py), over stdio.

https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
https://modelcontextprotocol.io/specification/2026-07-28/server/tools (MRTR-21)
What it proves, against server subprocesses (tests/peers/stateless_server.py) that share a
request state key through MCP_REF_REQUEST_STATE_KEY: a handler that asks the client (each of the
three kinds, one to three rounds, several questions at once with ``mrtr.ask``) gets
``input_required`` with ``inputRequests`` and a ``requestState``, never a request of the server's
own (MRTR-03, MRTR-05, MRTR-10, MRTR-21..23); the retry finishes it, the handler running again
from the start each round; the state is refused when altered, expired, or of another request
(MRTR-07, MRTR-08); missing answers are asked again (MRTR-20), extra ones ignored (MRTR-19),
malformed ones refused (MRTR-18); only tools/call, prompts/get and resources/read may ask
(MRTR-04); and no JSON value as inputResponses or requestState crashes the server.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_ref import Server
from mcp_ref.revisions import mrtr

from ..support.modern import SPEC_ERRORS, ModernPeer, meta, params

KEY = "a key all test processes share"
ACCEPT_NAME = {"action": "accept", "content": {"name": "Ann"}}
ANSWERS = {  # tool -> (what it asks, an answer, what it then returns)
    "greet": ("elicitation/create", ACCEPT_NAME, "Hello, Ann!"),
    "sample": ("sampling/createMessage", {"role": "assistant", "content": {"type": "text", "text": "hi"},
                                          "model": "m"}, "model said: hi"),
    "roots": ("roots/list", {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}, "file:///a file:///b"),
}


def start(which: str = "server", key: str = KEY) -> ModernPeer:
    with pytest.MonkeyPatch.context() as patch:  # the subprocess takes the environment as it starts
        patch.setenv(mrtr.KEY_VARIABLE, key)
        return ModernPeer(which)


@pytest.fixture(scope="module")
def peer() -> Iterator[ModernPeer]:
    server = start()
    yield server
    server.close()


def result(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in answer, answer
    return dict(answer["result"])


def refused(answer: dict[str, Any], code: int = -32602) -> str:
    assert "result" not in answer, answer
    assert answer["error"]["code"] == code, answer
    return str(answer["error"]["message"])


def call(peer: ModernPeer, tool: str, arguments: dict[str, Any] | None = None, **retry: Any) -> dict[str, Any]:
    return peer.request("tools/call", params(name=tool, arguments=arguments or {}, **retry))


def text(found: dict[str, Any]) -> str:
    assert found["resultType"] == "complete", found
    return str(found["content"][0]["text"])


# --- one round of each kind -----------------------------------------------------------------------

@pytest.mark.parametrize("tool", list(ANSWERS))
def test_mrtr_21_each_kind_of_question_travels_in_the_result_and_the_retry_finishes(peer: ModernPeer,
                                                                                     tool: str) -> None:
    """MRTR-03, MRTR-05, MRTR-10, MRTR-21: elicitation, sampling and roots each become one
    inputRequests entry and a requestState; the retry under a new id with the answer completes."""
    asked_method, answer, returned = ANSWERS[tool]
    first = result(call(peer, tool))
    assert first["resultType"] == "input_required"
    assert isinstance(first["requestState"], str) and first["requestState"]
    (key, request), = first["inputRequests"].items()
    assert request["method"] == asked_method and isinstance(request["params"], dict)
    assert not [n for n in peer.notifications if "id" in n]  # never a request of the server's own (MRTR-01)
    done = result(call(peer, tool, inputResponses={key: answer}, requestState=first["requestState"]))
    assert text(done) == returned
    assert "inputRequests" not in done and "requestState" not in done


@pytest.mark.parametrize(("method", "request_params", "returned"), [
    ("resources/read", {"uri": "secret://vault"}, "opened"),  # MRTR-23
    ("prompts/get", {"name": "interview", "arguments": {}}, "Interview Ann"),  # MRTR-22
])
def test_mrtr_22_23_prompts_and_resources_may_ask_too(peer: ModernPeer, method: str,
                                                      request_params: dict[str, Any], returned: str) -> None:
    first = result(peer.request(method, params(request_params)))
    (key, request), = first["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    content = {"password": "sesame"} if method == "resources/read" else {"name": "Ann"}
    done = result(peer.request(method, params(request_params, inputResponses={key: {"action": "accept", "content": content}},
                                              requestState=first["requestState"])))
    assert done["resultType"] == "complete"
    found = done["contents"][0]["text"] if method == "resources/read" else done["messages"][0]["content"]["text"]
    assert found == returned


@pytest.mark.parametrize("n", [1, 2, 3])
def test_mrtr_one_to_three_rounds_each_asking_the_next_question(peer: ModernPeer, n: int) -> None:
    """The handler runs again each round; what was answered before stays answered (in the state),
    and each question has a key of its own within the request (MRTR-05), so no answer stands for
    another."""
    found, state, responses, asked, keys = result(call(peer, "rounds", {"n": n})), None, {}, [], []
    while found["resultType"] == "input_required":
        assert len(asked) < n, f"a question asked again: {asked}"  # (and the loop bounded)
        (key, request), = found["inputRequests"].items()
        asked.append(request["params"]["message"])
        keys.append(key)
        state, responses = found["requestState"], {key: {"action": "accept", "content": {"answer": f"a{len(asked)}"}}}
        found = result(call(peer, "rounds", {"n": n}, inputResponses=responses, requestState=state))
    assert asked == [f"Question {i}?" for i in range(1, n + 1)]
    assert text(found) == " ".join(f"a{i}" for i in range(1, n + 1))
    assert len(set(keys)) == n  # MRTR-05


def test_the_handler_runs_again_from_the_start_each_round() -> None:
    """What a handler does before its question happens once per round: two runs for one call."""
    peer = start()
    try:
        first = result(call(peer, "counted"))
        (key, _), = first["inputRequests"].items()
        done = result(call(peer, "counted", inputResponses={key: {"action": "accept", "content": {"go": True}}},
                           requestState=first["requestState"]))
        assert text(done) == "accept after 2 runs"
        assert text(result(call(peer, "runs"))) == "2"
    finally:
        peer.close()


# --- several at once: mrtr.ask --------------------------------------------------------------------

SURVEY_ANSWERS = {"user_name": {"action": "accept", "content": {"name": "Bo"}},
                  "summary": {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"},
                  "where": {"roots": [{"uri": "file:///w"}]}}


def test_mrtr_05_several_questions_at_once_under_the_handlers_keys(peer: ModernPeer) -> None:
    first = result(call(peer, "survey"))
    assert {key: request["method"] for key, request in first["inputRequests"].items()} == {
        "user_name": "elicitation/create", "summary": "sampling/createMessage", "where": "roots/list"}
    done = result(call(peer, "survey", inputResponses=SURVEY_ANSWERS, requestState=first["requestState"]))
    assert json.loads(text(done)) == SURVEY_ANSWERS


@pytest.mark.parametrize("missing", list(SURVEY_ANSWERS))
def test_mrtr_20_a_missing_answer_is_asked_again(peer: ModernPeer, missing: str) -> None:
    """MRTR-20: the retry that lacks one answer gets a new input_required for that one only;
    the answers it brought are kept in the new state."""
    first = result(call(peer, "survey"))
    given_now = {key: value for key, value in SURVEY_ANSWERS.items() if key != missing}
    again = result(call(peer, "survey", inputResponses=given_now, requestState=first["requestState"]))
    assert again["resultType"] == "input_required" and list(again["inputRequests"]) == [missing]
    done = result(call(peer, "survey", inputResponses={missing: SURVEY_ANSWERS[missing]},
                       requestState=again["requestState"]))
    assert json.loads(text(done)) == SURVEY_ANSWERS


@pytest.mark.parametrize("responses", [{}, {"elicitation-1": "yes"}, {"elicitation-1": None},
                                       {"elicitation-1": ["accept"]}, {"elicitation-2": ACCEPT_NAME}],
                         ids=["none", "a string", "null", "a list", "under another key"])
def test_mrtr_20_a_retry_without_a_usable_answer_asks_again(peer: ModernPeer, responses: dict[str, Any]) -> None:
    first = result(call(peer, "greet"))
    again = result(call(peer, "greet", inputResponses=responses, requestState=first["requestState"]))
    assert again["resultType"] == "input_required"
    assert again["inputRequests"] == first["inputRequests"]


def test_mrtr_19_answers_the_server_did_not_ask_for_are_ignored(peer: ModernPeer) -> None:
    first = result(call(peer, "greet"))
    extra = {"elicitation-1": ACCEPT_NAME, "elicitation-9": ACCEPT_NAME, "junk": {"x": 1}, "n": 5}
    assert text(result(call(peer, "greet", inputResponses=extra, requestState=first["requestState"]))) == "Hello, Ann!"


@pytest.mark.parametrize("responses", [None, [], "elicitation-1", 3, [ACCEPT_NAME]])
def test_mrtr_18_input_responses_that_are_not_an_object_are_32602(peer: ModernPeer, responses: Any) -> None:
    first = result(call(peer, "greet"))
    assert "inputResponses" in refused(call(peer, "greet", inputResponses=responses,
                                            requestState=first["requestState"]))


def test_answers_given_without_a_state_are_taken(peer: ModernPeer) -> None:
    """A client that knows the question may answer it at once: no state, no more trust needed."""
    assert text(result(call(peer, "greet", inputResponses={"elicitation-1": ACCEPT_NAME}))) == "Hello, Ann!"


# --- the state: integrity, binding, expiry --------------------------------------------------------

def tampered(state: str, how: str) -> Any:
    body, mac = state.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body))
    changed = {**payload, "answers": {"elicitation-1": {"asked": None, "result": ACCEPT_NAME}}}
    forged_body = base64.urlsafe_b64encode(json.dumps(changed, separators=(",", ":")).encode()).decode()
    return {
        "payload changed, old mac": f"{forged_body}.{mac}",
        "mac flipped": f"{body}.{mac[:-1]}{'0' if mac[-1] != '0' else '1'}",
        "mac cut": f"{body}.{mac[:-2]}",
        "no mac": body,
        "two dots": f"{state}.x",
        "signed by another key": mrtr.sign(b"another key", payload),
        "empty": "",
        "not ascii": "\u00e9.\u00e9",
        "a number": 12,
        "null": None,
        "an object": {"state": state},
    }[how]


@pytest.mark.parametrize("how", ["payload changed, old mac", "mac flipped", "mac cut", "no mac", "two dots",
                                 "signed by another key", "empty", "not ascii", "a number", "null", "an object"])
def test_mrtr_07_a_state_that_is_not_the_servers_own_is_refused(peer: ModernPeer, how: str) -> None:
    first = result(call(peer, "greet"))
    message = refused(call(peer, "greet", inputResponses={"elicitation-1": ACCEPT_NAME},
                           requestState=tampered(first["requestState"], how)))
    assert "requestState" in message and "not one this server gave" in message


@pytest.mark.parametrize(("origin", "retry"), [
    (("tools/call", {"name": "rounds", "arguments": {"n": 2}}), ("tools/call", {"name": "rounds", "arguments": {"n": 3}})),
    (("tools/call", {"name": "greet", "arguments": {}}), ("tools/call", {"name": "counted", "arguments": {}})),
    (("prompts/get", {"name": "interview", "arguments": {}}), ("tools/call", {"name": "greet", "arguments": {}})),
    (("resources/read", {"uri": "secret://vault"}), ("prompts/get", {"name": "interview", "arguments": {}})),
], ids=["other arguments", "other tool", "other method", "other resource"])
def test_mrtr_08_a_state_is_bound_to_its_request(peer: ModernPeer, origin: tuple[str, dict[str, Any]],
                                                 retry: tuple[str, dict[str, Any]]) -> None:
    first = result(peer.request(origin[0], params(origin[1])))
    answer = peer.request(retry[0], params(retry[1], inputResponses={}, requestState=first["requestState"]))
    assert "belongs to another request" in refused(answer)


def test_mrtr_08_a_state_is_not_bound_to_meta_which_each_round_sends_anew(peer: ModernPeer) -> None:
    first = result(call(peer, "greet"))
    retry = peer.request("tools/call", params(name="greet", arguments={}, _meta=meta(log_level="error"),
                                              inputResponses={"elicitation-1": ACCEPT_NAME},
                                              requestState=first["requestState"]))
    assert text(result(retry)) == "Hello, Ann!"


@pytest.mark.parametrize("age", [1, mrtr.STATE_LIFETIME, 10 * mrtr.STATE_LIFETIME])
def test_mrtr_08_an_expired_state_is_refused(peer: ModernPeer, age: int) -> None:
    """A state signed with the server's key, bound to this very request, but past its expiry."""
    request_params = {"name": "greet", "arguments": {}}
    payload = {"request": mrtr.request_digest("tools/call", request_params), "expires": int(time.time()) - age,
               "answers": {}, "pending": {"elicitation-1": None}}
    answer = call(peer, "greet", inputResponses={"elicitation-1": ACCEPT_NAME},
                  requestState=mrtr.sign(KEY.encode(), payload))
    assert "expired" in refused(answer)


def test_mrtr_08_a_state_within_its_lifetime_signed_with_the_key_is_taken(peer: ModernPeer) -> None:
    """The same forged state, unexpired: what the refusal above refuses is the expiry alone."""
    request_params = {"name": "greet", "arguments": {}}
    payload = {"request": mrtr.request_digest("tools/call", request_params), "expires": int(time.time()) + 60,
               "answers": {}, "pending": {"elicitation-1": None}}
    answer = call(peer, "greet", inputResponses={"elicitation-1": ACCEPT_NAME},
                  requestState=mrtr.sign(KEY.encode(), payload))
    assert text(result(answer)) == "Hello, Ann!"


def test_processes_sharing_the_key_take_each_others_states_others_do_not(peer: ModernPeer) -> None:
    """MCP_REF_REQUEST_STATE_KEY: the same in every process of one server, so that the retry
    may reach another process; a process with another key refuses the state."""
    first = result(call(peer, "greet"))
    same, other = start(), start(key="some other key")
    try:
        retry = {"inputResponses": {"elicitation-1": ACCEPT_NAME}, "requestState": first["requestState"]}
        assert text(result(call(same, "greet", **retry))) == "Hello, Ann!"
        assert "not one this server gave" in refused(call(other, "greet", **retry))
    finally:
        same.close()
        other.close()


def test_the_state_key_is_the_servers_own_then_the_environments_then_the_processs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    server = Server("keys")
    monkeypatch.delenv(mrtr.KEY_VARIABLE, raising=False)
    per_process = mrtr.state_key(server)
    assert len(per_process) == 32 and mrtr.state_key(Server("other")) == per_process
    monkeypatch.setenv(mrtr.KEY_VARIABLE, "from the environment")
    assert mrtr.state_key(server) == b"from the environment"
    server.request_state_key = "the server's own"  # type: ignore[attr-defined]
    assert mrtr.state_key(server) == b"the server's own"
    server.request_state_key = b"\x00bytes"  # type: ignore[attr-defined]
    assert mrtr.state_key(server) == b"\x00bytes"


# --- MRTR-04: only three methods may ask ----------------------------------------------------------

def test_mrtr_04_a_handler_of_another_method_that_asks_is_32603(peer: ModernPeer) -> None:
    answer = peer.request("completion/complete", params(ref={"type": "ref/prompt", "name": "plain"},
                                                        argument={"name": "topic", "value": "o"}))
    message = refused(answer, -32603)
    assert "completion/complete" in message and "tools/call" in message


# --- any JSON as inputResponses and requestState --------------------------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)


def test_any_json_as_input_responses_or_request_state_gets_exactly_one_answer() -> None:
    peer = start()
    state = result(call(peer, "survey"))["requestState"]

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.one_of(JSON, st.dictionaries(st.sampled_from(["user_name", "summary", "where", "x"]), JSON)),
           st.one_of(st.just(state), JSON, st.text(alphabet="abc.=_-", max_size=40)),
           st.booleans(), st.booleans())
    def one_answer(responses: Any, request_state: Any, with_responses: bool, with_state: bool) -> None:
        retry: dict[str, Any] = {}
        if with_responses:
            retry["inputResponses"] = responses
        if with_state:
            retry["requestState"] = request_state
        peer.send(json.dumps({"jsonrpc": "2.0", "id": "x", "method": "tools/call",
                              "params": params(name="survey", arguments={}, **retry)}).encode())
        peer.send(json.dumps({"jsonrpc": "2.0", "id": "next", "method": "tools/list", "params": params()}).encode())
        answers: list[dict[str, Any]] = []
        while len(answers) < 2:  # each read bounded (RawServer.receive)
            msg = peer.receive()
            if "id" in msg:
                answers.append(msg)
        assert sorted(a["id"] for a in answers) == ["next", "x"], answers  # (a pool: either may come first)
        first = next(a for a in answers if a["id"] == "x")
        assert "result" in first or first["error"]["code"] in SPEC_ERRORS, first
        if "result" in first:
            assert first["result"]["resultType"] in ("complete", "input_required")

    try:
        one_answer()
    finally:
        peer.close()
