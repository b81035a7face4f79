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


@needs_schema
def test_tap_checks_a_request_naming_2026_07_28_against_that_revisions_schema() -> None:
    """https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning: no handshake; the
    request's _meta names the revision, and each method's result (complete or input_required) is
    checked with its response definition. An initialize goes back to the handshake's schemas."""
    meta = b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    tap = SchemaTap("server")
    tap("<-", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",' + meta + b"}}")
    tap("->", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}')
    tap("<-", b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","requestState":"s",' + meta + b"}}")
    tap("->", b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}')
    tap.assert_clean()  # (the input_required result has no content: invalid in 2024-11-05)
    assert tap.revision == "2026-07-28"
    tap("->", b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}')  # answers no request: envelope only
    tap("<-", b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",' + meta + b"}}")
    tap("->", b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text"}]}}')
    assert tap.violations and all(v.startswith("server sent the result of tools/call that breaks the 2026-07-28 schema")
                                  for v in tap.violations), tap.violations  # no resultType
    tap("<-", b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
              b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}')
    assert tap.revision == "2024-11-05"
