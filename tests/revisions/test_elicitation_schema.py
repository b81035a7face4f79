"""The restricted schema of form-mode elicitation: what we send (strict), what we take (lenient),
and the content that answers it.

https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation#requested-schema
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_ref.revisions.elicitation_schema import checked_content, requested_schema, schema_problem

# What the official Python SDK sends for a pydantic model: a title at the top and on each property.
SDK_SCHEMA = {"properties": {"name": {"title": "Name", "type": "string"}}, "required": ["name"], "title": "Person",
              "type": "object"}


def test_a_peers_schema_is_taken_with_keywords_we_do_not_know_but_ours_is_not() -> None:
    peers = {"type": "object", "properties": {"a": {"type": "string", "x-widget": "textarea"}}}
    assert schema_problem(peers, None, strict=False) is None
    assert "unknown keyword" in str(schema_problem(peers, None, strict=True))
    assert schema_problem(SDK_SCHEMA, None, strict=True) is None


@pytest.mark.parametrize("version, fine", [("2025-06-18", False), ("2025-11-25", True)])
def test_what_2025_11_25_added_is_refused_in_older_sessions(version: str, fine: bool) -> None:
    later = {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}
    assert (schema_problem(later, version, strict=True) is None) is fine
    boolean_default = {"type": "object", "properties": {"b": {"type": "boolean", "default": True}}}
    assert schema_problem(boolean_default, version, strict=True) is None  # 2025-06-18 had that one
    legacy = {"type": "object", "properties": {"c": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]}}}
    assert schema_problem(legacy, version, strict=True) is None


def test_a_pythonic_field_with_a_default_is_optional() -> None:
    schema = requested_schema({"name": str, "city": {"type": "string", "default": "Paris"}}, "2025-11-25")
    assert schema["required"] == ["name"]
    assert "required" not in requested_schema({"city": {"type": "string", "default": "Paris"}}, "2025-11-25")


@pytest.mark.parametrize("content, problem", [
    ({"name": "Ada", "tags": ["a", "z"]}, "'z' is not one of"),
    ({"name": "Ada", "tags": ["a", "b", "c"]}, "is too long"),
    ({"name": "Ada", "n": True}, "True is not of type 'integer'"),
    ({"name": "Ada", "n": 11}, "11 is greater than the maximum of 10"),
    ({"name": 3}, "3 is not of type 'string'"),
])
def test_content_is_checked_field_by_field(content: dict[str, Any], problem: str) -> None:
    schema = requested_schema({"name": str, "n": {"type": "integer", "maximum": 10, "default": 1},
                               "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]},
                                        "maxItems": 2, "default": []}}, "2025-11-25")
    assert checked_content({"name": "Ada", "n": 10, "tags": ["a", "b"]}, schema)
    with pytest.raises(ValueError, match="content field") as info:
        checked_content(content, schema)
    assert problem in str(info.value)
