"""The server cases of the later revisions (mcp_ref_check/server_revisions.py): here, how an
elicitation/create a server sends is judged, at the revision its session agreed on.

https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation
https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
Each request of the table is judged by ``elicitation_problems`` for one revision, and the verdict
is named: the requirement ID it rests on (ELIC-06 of 2025-06-18; ELICU-05, -07, -09 of
2025-11-25; NEGO-01, the negotiated version) and the words of its problem. Then two real servers
(mcp_ref's own, one eliciting as mcp_ref lets it, one sending what it should not) are checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_ref.revisions.elicitation import url_params
from mcp_ref.revisions.elicitation_schema import requested_schema
from mcp_ref_check.runner import Options, Target, run_server_check
from mcp_ref_check.server_revisions import elicitation_problems

from .test_check import MCP_REF

OLD, NEW = "2025-06-18", "2025-11-25"
NAME = {"type": "object", "properties": {"name": {"type": "string", "title": "Name", "minLength": 1}},
        "required": ["name"]}
# What 2025-06-18 has: strings with formats, numbers, booleans (a default on those only), enums with enumNames.
FORM_0618 = {"type": "object", "properties": {
    "email": {"type": "string", "format": "email"}, "age": {"type": "integer", "minimum": 0},
    "ratio": {"type": "number", "maximum": 1}, "ok": {"type": "boolean", "default": True},
    "size": {"type": "string", "enum": ["S", "M"], "enumNames": ["Small", "Medium"]}}, "required": ["email"]}
# What 2025-11-25 adds: a multiple choice (plain and titled), a titled single choice, defaults on every kind.
MULTI = {"type": "object", "properties": {"sizes": {"type": "array", "items": {"type": "string", "enum": ["S", "M"]}}}}
FORM_1125 = {"type": "object", "properties": {
    "sizes": {"type": "array", "items": {"type": "string", "enum": ["S", "M"]}, "minItems": 1, "default": ["S"]},
    "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]}},
    "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}],
               "default": "r"},
    "name": {"type": "string", "default": "Ada"}, "count": {"type": "integer", "default": 3}}}
NESTED = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
URL = url_params("Pay for the order", "https://pay.example.com/order/7", "order-7")


def request(**params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params}


def form(schema: Any, **more: Any) -> dict[str, Any]:
    return request(message="Please fill this in", requestedSchema=schema, **more)


def url(**changes: Any) -> dict[str, Any]:
    return request(**{key: value for key, value in {**URL, **changes}.items() if value is not None})


def test_the_tables_schemas_are_what_mcp_ref_itself_sends() -> None:
    """The valid rows below are no guess: mcp_ref's server builds and sends these very schemas."""
    assert requested_schema(FORM_0618, OLD) == FORM_0618
    for schema in (MULTI, FORM_1125, NAME):
        assert requested_schema(schema, NEW) == schema
    with pytest.raises(ValueError):
        requested_schema(MULTI, OLD)


@pytest.mark.parametrize(("version", "sent"), [
    (OLD, form(NAME)),
    (OLD, form(FORM_0618)),
    (OLD, form(NAME, mode="form")),  # a field of a later revision: unknown fields are allowed
    (OLD, form({**NAME, "x-note": 1})),  # unknown keywords of a peer's schema are ignored (strict=False)
    (NEW, form(NAME)),  # mode may be left out for form mode (ELICU-05)
    (NEW, form(NAME, mode="form")),
    (NEW, form(MULTI, mode="form")),  # the reviewer's multi-select
    (NEW, form(FORM_1125, mode="form")),  # titled choices, multiple choices, defaults
    (NEW, form(FORM_0618)),  # what 2025-06-18 allowed, 2025-11-25 still does
    (NEW, url()),  # the reviewer's URL-mode request
    (NEW, url(url="http://localhost:8080/callback?state=x#top")),
])  # fmt: skip
def test_valid_requests_have_no_verdict(version: str, sent: dict[str, Any]) -> None:
    assert elicitation_problems(sent, version) == {}


@pytest.mark.parametrize(("version", "sent", "verdict"), [
    # 2025-06-18: the request's fields and its schema rest on ELIC-06, the one row that gives them.
    (OLD, request(requestedSchema=NAME), {"ELIC-06": ["params.message is missing"]}),
    (OLD, request(message=7, requestedSchema=NAME), {"ELIC-06": ["params.message is number, not string"]}),
    (OLD, request(message="m"), {"ELIC-06": ["params.requestedSchema is missing"]}),
    (OLD, {"method": "elicitation/create", "params": []}, {"ELIC-06": ["params is array, not an object"]}),
    (OLD, form(NESTED), {"ELIC-06": ["params.requestedSchema: property 'address': a property is a string, number, "
                                     "integer, boolean or (2025-11-25) array schema"]}),
    (OLD, form({"type": "array"}), {"ELIC-06": ['params.requestedSchema: the schema must be an object schema '
                                                '("type": "object")']}),
    (OLD, form({**NAME, "required": ["nobody"]}), {"ELIC-06": ['params.requestedSchema: "required" must list names of '
                                                               'properties']}),
    (OLD, form({"type": "object", "properties": {"s": {"type": "string", "enum": []}}}),
     {"ELIC-06": ["params.requestedSchema: property 's': an enum must be a non-empty list of strings"]}),
    # 2025-11-25's additions are not 2025-06-18's (the session agreed on 2025-06-18).
    (OLD, form(MULTI), {"ELIC-06": ["params.requestedSchema: property 'sizes': multiple choices, titled choices and "
                                    "defaults (but a boolean's) came with 2025-11-25; this session speaks 2025-06-18"]}),
    (OLD, form({"type": "object", "properties": {"n": {"type": "string", "default": "x"}}}),
     {"ELIC-06": ["params.requestedSchema: property 'n': multiple choices, titled choices and defaults (but a "
                  "boolean's) came with 2025-11-25; this session speaks 2025-06-18"]}),
    (OLD, url(), {"NEGO-01": ['params.mode is "url": URL mode came with 2025-11-25; this session agreed on 2025-06-18']}),
    # 2025-11-25: every request (ELICU-05), form mode (ELICU-07), its schema (still ELIC-06), URL mode (ELICU-09).
    (NEW, request(requestedSchema=NAME), {"ELICU-05": ["params.message is missing"]}),
    (NEW, form(NAME, mode="forms"), {"ELICU-05": ['params.mode is "forms", not "form" or "url"']}),
    (NEW, form(NAME, mode=None), {"ELICU-05": ['params.mode is null, not "form" or "url"']}),
    (NEW, {"method": "elicitation/create"}, {"ELICU-05": ["params is null, not an object"]}),
    (NEW, request(message="m", mode="form"), {"ELICU-07": ["params.requestedSchema is missing"]}),
    (NEW, request(message="m", requestedSchema="name"), {"ELICU-07": ["params.requestedSchema is string, not object"]}),
    (NEW, form(NESTED), {"ELIC-06": ["params.requestedSchema: property 'address': a property is a string, number, "
                                     "integer, boolean or (2025-11-25) array schema"]}),
    (NEW, form({"type": "object", "properties": {"s": {"type": "array", "items": {"type": "string"}}}}),
     {"ELIC-06": ['params.requestedSchema: property \'s\': a multiple choice needs "items" with "enum" (strings) or '
                  '"anyOf" (titled)']}),
    (NEW, form({"type": "object", "properties": {"c": {"type": "string", "oneOf": [{"const": "r"}]}}}),
     {"ELIC-06": ['params.requestedSchema: property \'c\': the choices must be a list of {"const": str, "title": str}']}),
    (NEW, form({"type": "object", "properties": {"n": {"type": "integer", "default": "three"}}}),
     {"ELIC-06": ["params.requestedSchema: property 'n': \"default\": 'three' is not of type 'integer'"]}),
    (NEW, request(requestedSchema=NESTED), {"ELICU-05": ["params.message is missing"],
                                            "ELIC-06": ["params.requestedSchema: property 'address': a property is a "
                                                        "string, number, integer, boolean or (2025-11-25) array schema"]}),
    (NEW, url(message=None), {"ELICU-09": ["params.message is missing"]}),
    (NEW, url(elicitationId=None), {"ELICU-09": ["params.elicitationId is missing"]}),
    (NEW, url(elicitationId=7), {"ELICU-09": ["params.elicitationId is number, not string"]}),
    (NEW, url(url=None), {"ELICU-09": ["params.url is missing"]}),
    (NEW, url(url=["https://x.example/"]), {"ELICU-09": ["params.url is array, not string"]}),
    (NEW, url(url="/pay/order/7"), {"ELICU-09": ['params.url "/pay/order/7" is not an absolute URL (a scheme and a '
                                                 'host)']}),
    (NEW, url(url="mailto:someone@example.com"), {"ELICU-09": ['params.url "mailto:someone@example.com" is not an '
                                                               'absolute URL (a scheme and a host)']}),
    (NEW, url(url="https://[::1/x"), {"ELICU-09": ['params.url "https://[::1/x" is not an absolute URL (a scheme and '
                                                   'a host)']}),
    (NEW, url(url="https://pay.example.com/\x1b[2Jorder\x7f"),
     {"ELICU-09": ["params.url holds control character(s) U+001B, U+007F"]}),
    (NEW, url(url="https://pay.example.com/\u0085"), {"ELICU-09": ["params.url holds control character(s) U+0085"]}),
    (NEW, request(mode="url", message=3), {"ELICU-09": ["params.message is number, not string",
                                                        "params.elicitationId is missing", "params.url is missing"]}),
    # A revision without elicitation/create at all: the negotiated version's row.
    ("2025-03-26", form(NAME), {"LC-14": ["elicitation/create came with 2025-06-18; this session agreed on 2025-03-26"]}),
])  # fmt: skip
def test_malformed_requests_get_the_verdict_of_their_revision(version: str, sent: dict[str, Any],
                                                              verdict: dict[str, list[str]]) -> None:
    assert elicitation_problems(sent, version) == verdict


def test_the_newest_revision_judges_a_request_when_none_is_named() -> None:
    assert elicitation_problems(form(MULTI)) == {} and elicitation_problems(url()) == {}
    assert elicitation_problems(url(url="x")) == {"ELICU-09": ['params.url "x" is not an absolute URL (a scheme and a '
                                                              'host)']}


# --- against real servers -----------------------------------------------------------------------------

# mcp_ref servers, served with `mcp-ref serve FILE:good` or `FILE:bad`. ``good`` elicits only as
# mcp_ref's ctx.elicit lets it: a form of 2025-11-25 (its URL mode mcp_ref refuses to send, since
# the kit declares form alone). ``bad`` goes round those checks with raw requests.
SERVERS = '''
import json
from mcp_ref import RequestContext, Server

good = Server("elicits-well")
bad = Server("elicits-badly")
CHOICES = __CHOICES__


@good.tool()
def choose(ctx: RequestContext) -> str:
    """Multiple and titled choices, defaults."""
    return json.dumps(ctx.elicit("Pick what you like", CHOICES))


@good.tool()
def pay(ctx: RequestContext) -> str:
    """URL mode, which the kit does not take: mcp_ref sends nothing."""
    try:
        return json.dumps(ctx.elicit_url("Pay", "https://pay.example.com/7", elicitation_id="order-7"))
    except Exception as exc:
        return f"not asked: {exc}"


@bad.tool()
def visit(ctx: RequestContext) -> str:
    """A URL-mode request, to a client that declared form alone, with a relative url and no id."""
    return json.dumps(ctx.request("elicitation/create", {"mode": "url", "message": "Go", "url": "/pay/7"}))


@bad.tool()
def blank(ctx: RequestContext) -> str:
    """A form-mode request without a requestedSchema."""
    return json.dumps(ctx.request("elicitation/create", {"mode": "form", "message": "Fill in"}))
'''.replace("__CHOICES__", repr(FORM_1125))
AUDITS = ["tools.tool-results-are-well-formed", "tools.elicitation-requests-are-well-formed",
          "lifecycle.uses-only-client-capabilities"]


def audit(tmp_path: Path, name: str, pinned: str | None = None) -> dict[str, tuple[str, list[str], str]]:
    path = tmp_path / "servers.py"
    path.write_text(SERVERS, encoding="utf-8")
    results, _ = run_server_check(Target(stdio=f"{MCP_REF} serve {path}:{name}"),
                                  Options(timeout=5, only=AUDITS, call_tools=True, protocol_version=pinned))
    return {r.case.name: (r.status.value, [f.id for f in r.findings], r.detail) for r in results}


def test_a_server_eliciting_a_form_of_2025_11_25_passes(tmp_path: Path) -> None:
    found = audit(tmp_path, "good")
    status, ids, detail = found["tools.elicitation-requests-are-well-formed"]
    assert (status, ids) == ("PASS", []), detail
    assert "1 elicitation/create request(s), 1 declined by the kit" in detail
    assert found["lifecycle.uses-only-client-capabilities"][:2] == ("PASS", [])


def test_a_server_sending_a_malformed_url_request_in_an_undeclared_mode_fails_on_both(tmp_path: Path) -> None:
    found = audit(tmp_path, "bad")
    status, ids, detail = found["tools.elicitation-requests-are-well-formed"]
    assert status == "FAIL" and sorted(ids) == ["ELICU-07", "ELICU-09"], detail
    assert "params.elicitationId is missing" in detail and 'params.url "/pay/7" is not an absolute URL' in detail
    assert "params.requestedSchema is missing" in detail
    status, ids, detail = found["lifecycle.uses-only-client-capabilities"]
    assert (status, ids) == ("FAIL", ["ELICU-04"]), detail
    assert 'sent a url-mode elicitation/create to a client that declared elicitation {}, which in 2025-11-25 means ' \
           'form mode only' in detail
    # At 2025-06-18 the same URL-mode request is one of a later revision: the negotiated version.
    found = audit(tmp_path, "bad", pinned=OLD)
    status, ids, detail = found["tools.elicitation-requests-are-well-formed"]
    assert "NEGO-01" in ids and "ELICU-09" not in ids, detail
    assert found["lifecycle.uses-only-client-capabilities"][:2] == ("PASS", [])  # modes came with 2025-11-25
