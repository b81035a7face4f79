"""The schema tap used by every transport and interop test: it must catch violations and say who
broke which rule (and make its absence visible, never silent).

https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
"""

from __future__ import annotations

import pytest

from .schema_tap import SCHEMA_PATH, SchemaTap, schema_available

needs_schema = pytest.mark.skipif(not schema_available(), reason=f"no schema file at {SCHEMA_PATH}: validation is off")


def test_schema_file_is_present() -> None:
    if not schema_available():
        pytest.skip(f"{SCHEMA_PATH} is absent (it ships in the project's shared/ folder): messages are NOT schema-checked")
    assert SCHEMA_PATH.stat().st_size > 10_000


@needs_schema
def test_tap_names_the_sender_and_the_rule() -> None:
    tap = SchemaTap("client")
    tap("->", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}')
    tap("<-", b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}')
    tap("<-", b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}')
    tap("<-", b"not json at all")
    assert len(tap.violations) == 4
    assert tap.violations[0].startswith("client sent tools/call") and "'name' is a required property" in tap.violations[0]
    assert tap.violations[1].startswith("server sent the result of tools/call") and "content/0" in tap.violations[1]
    assert tap.violations[2].startswith("server sent notifications/message") and "level" in tap.violations[2]
    assert tap.violations[3].startswith("server sent bytes that are not JSON")
    with pytest.raises(AssertionError, match="schema violations"):
        tap.assert_clean()


@needs_schema
def test_tap_accepts_valid_traffic_and_the_null_id_exception() -> None:
    tap = SchemaTap("server")
    tap("<-", b'{"jsonrpc":"2.0","id":"a","method":"ping"}')
    tap("->", b'{"jsonrpc":"2.0","id":"a","result":{}}')
    tap("->", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
    tap("<-", b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"x":1},"cursor":"c"}}')
    tap.assert_clean()
    assert tap.null_id_errors == 1
    with tap.deliberately_invalid():
        tap("->", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}')
    tap.assert_clean()
