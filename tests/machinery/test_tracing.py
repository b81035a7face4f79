"""What ``Client(trace=...)`` installs (machinery/tracing.py), on its own.

Not a spec page: a convenience of client.py for watching the wire. Its promises: ``trace=True``
prints each message on stderr as it is on the wire with its direction (``client -> server``,
``client <- server``); a function is called with each message's direction and bytes; False and
None trace nothing; a string is refused at once, saying what to pass. A whole session printed
with ``trace=True`` is in tests/cli/test_habits.py; the explainer's tracer in tests/cli/test_explain.py.
"""

from __future__ import annotations

import pytest

from mcp_ref.machinery.tracing import print_trace, trace_hook


def test_true_prints_each_message_on_stderr_with_its_direction(capsys: pytest.CaptureFixture[str]) -> None:
    hook = trace_hook(True)
    assert hook is print_trace
    hook("->", b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    hook("<-", b'{"jsonrpc":"2.0","id":1,"result":{}}')
    hook("<-", b'{"text":"caf\xc3\xa9 \xff"}')  # bytes that are not UTF-8 are shown, not raised
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ['client -> server  {"jsonrpc":"2.0","id":1,"method":"ping"}',
                                         'client <- server  {"jsonrpc":"2.0","id":1,"result":{}}',
                                         'client <- server  {"text":"café \ufffd"}']


def test_a_function_gets_each_message_and_false_or_none_trace_nothing() -> None:
    seen: list[tuple[str, bytes]] = []

    def fn(direction: str, data: bytes) -> None:
        seen.append((direction, data))

    assert trace_hook(fn) is fn
    assert trace_hook(False) is None and trace_hook(None) is None


@pytest.mark.parametrize("slip", ["client", "True", ""])
def test_a_string_is_refused_saying_what_to_pass(slip: str) -> None:
    with pytest.raises(ValueError) as caught:
        trace_hook(slip)  # type: ignore[arg-type]
    text = str(caught.value)
    assert "trace must be True, False or a callable" in text and repr(slip) in text
    assert 'trace=tracer("client") (from mcp_ref.cli.explain import tracer)' in text
