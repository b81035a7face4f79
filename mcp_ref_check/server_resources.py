"""Server cases for resources: listing, reading, templates, subscriptions.

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they
check: https://modelcontextprotocol.io/specification/2024-11-05/server/resources

What this page asks of a server, in short:

1. A server that has resources declares the ``resources`` capability; every listed resource can
   be read, text as text and binary as valid base64; an unknown URI is -32002, and every URI a
   client sends is validated.
2. Subscribing needs the ``subscribe`` flag; updates come only for subscribed URIs.
3. A server that does not declare resources refuses their methods.

A note on IDs: the index has no row per result field, so a case that checks a result's shape
cites the row of the page's capability (RES-01): declaring it commits the server to the page's
messages. Reading lists and resources is treated as safe.
"""

from __future__ import annotations

import secrets

from . import result_shapes, shapes
from .helpers import FILLER, MAX_ITEMS, first_page, refused
from .model import server_case
from .server_check import ServerCheck
from .wire import shown

RESOURCES = "server/resources"


# --- server/resources ----------------------------------------------------------------------------


@server_case(RESOURCES, "RES-01")
def resources_list_is_well_formed(t: ServerCheck) -> None:
    """resources/list returns a resources array; each resource has a uri with a scheme and a name,
    optional description, mimeType (strings), size (integer) and annotations."""
    t.require("resources")
    _, reply, result = first_page(t, "resources/list", "resources", "RES-01")
    t.shape(result_shapes.list_result(result, "resources", result_shapes.resource), "RES-01", "the resources/list result", reply)


@server_case(RESOURCES, "RES-01")
def templates_list_is_well_formed(t: ServerCheck) -> None:
    """resources/templates/list returns a resourceTemplates array; each has a uriTemplate with
    balanced braces and a name."""
    t.require("resources")
    _, reply, result = first_page(t, "resources/templates/list", "resourceTemplates", "RES-01")
    t.shape(result_shapes.list_result(result, "resourceTemplates", result_shapes.template), "RES-01",
            "the resources/templates/list result", reply)


@server_case(RESOURCES, "RES-01", "RES-10", "RES-15")
def listed_resources_can_be_read(t: ServerCheck) -> None:
    """Each listed resource (up to 20) reads as a contents array of text items (uri, text) or
    blob items (uri, valid base64 blob). A text that holds a NUL character is binary data sent as
    text (RES-15: it belongs in a blob); no real text holds one."""
    t.require("resources")
    resources = [r for r in t.info.resources or [] if isinstance(r.get("uri"), str)][:MAX_ITEMS]
    if not resources:
        t.skip("the server lists no resource")
    peer = t.session()
    for resource in resources:
        reply = peer.request("resources/read", {"uri": resource["uri"]})
        t.answered(reply, f"resources/read {resource['uri']}")
        if reply.is_error:
            t.note(f"{resource['uri']} is listed but reading it failed with {reply.code}")
            continue
        if len(reply.got or "") > 4 * 1024 * 1024:
            t.note(f"{resource['uri']} is {len(reply.got or '')} characters long: not checked further")
            continue
        problems = result_shapes.read_result(reply.result)
        t.shape([p for p in problems if "base64" in p], "RES-10", f"reading {resource['uri']}", reply)
        t.shape([p for p in problems if "base64" not in p], "RES-01", f"reading {resource['uri']}", reply)
        for item in shapes.as_list(shapes.as_dict(reply.result).get("contents")):
            text = shapes.as_dict(item).get("text")
            if isinstance(text, str) and "\x00" in text:
                t.check(False, "RES-15", f"the text of {resource['uri']} holds NUL characters: that is binary "
                        "data, which goes in a blob, in base64", reply.sent, shown(reply.got))
                break


@server_case(RESOURCES, "RES-06")
def unknown_resource_is_32002(t: ServerCheck) -> None:
    """Reading a URI the server does not have gets error -32002 (Resource not found)."""
    t.require("resources")
    peer = t.session()
    reply = peer.request("resources/read", {"uri": f"{FILLER}://no-such-resource/{secrets.token_hex(4)}"})
    t.expect_error(reply, "RES-06", "reading an unknown resource", (-32002,))


@server_case(RESOURCES, "RES-08")
def read_without_a_uri_is_refused(t: ServerCheck) -> None:
    """resources/read without a uri, or with a uri that is not a string, is refused with an error:
    the server validates resource URIs."""
    t.require("resources")
    peer = t.session()
    for params in ({}, {"uri": 42}):
        reply = peer.request("resources/read", params)
        t.answered(reply, "resources/read with a bad uri")
        t.check(reply.is_error, "RES-08", "resources/read with a missing or non-string uri got a result",
                reply.sent, reply.got)


@server_case(RESOURCES, "RES-01", "AR-03")
def subscribe_and_unsubscribe(t: ServerCheck) -> None:
    """With resources.subscribe declared, subscribing to a listed resource and unsubscribing
    again each return an empty result."""
    t.require("resources", "subscribe")
    resources = [r for r in t.info.resources or [] if isinstance(r.get("uri"), str)]
    if not resources:
        t.skip("the server lists no resource to subscribe to")
    peer = t.session()
    uri = resources[0]["uri"]
    for method in ("resources/subscribe", "resources/unsubscribe"):
        reply = peer.request(method, {"uri": uri})
        result = t.expect_result(reply, "RES-01", f"{method} {uri}", peer=peer)
        t.shape(result_shapes.empty_result(result), "RES-01", f"the {method} result", reply)


@server_case(RESOURCES, "AR-03")
def subscribe_refused_when_undeclared(t: ServerCheck) -> None:
    """A server with resources but without resources.subscribe does not accept subscriptions."""
    t.require("resources")
    if t.info.declares("resources", "subscribe"):
        t.skip("the server declares resources.subscribe")
    uri = next((r["uri"] for r in t.info.resources or [] if isinstance(r.get("uri"), str)), f"{FILLER}://x")
    refused(t, "resources/subscribe", {"uri": uri}, "AR-03", "resources.subscribe")


@server_case(RESOURCES, "RES-01")
def resources_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare resources does not serve resources/list."""
    if t.info.declares("resources"):
        t.skip("the server declares resources (the other resources cases check them)")
    refused(t, "resources/list", None, "RES-01", "resources")


@server_case(RESOURCES, "RES-13", audit=True)
def updates_only_for_subscriptions(t: ServerCheck) -> None:
    """notifications/resources/updated arrives only on a connection that subscribed to that URI
    (or to a URI it lies under, which the spec allows)."""
    for wire in t.run.wires:  # every message that arrived, taken by a case or not
        subscribed: set[str] = set()
        for entry in wire.sent_and_received():
            msg = entry.msg
            if not isinstance(msg, dict):
                continue
            params = shapes.as_dict(msg.get("params"))
            if entry.direction == "sent" and msg.get("method") == "resources/subscribe":
                subscribed.add(str(params.get("uri")))
            elif entry.direction == "got" and msg.get("method") == "notifications/resources/updated":
                uri = str(params.get("uri"))
                if not any(uri == s or uri.startswith(s.rstrip("/") + "/") for s in subscribed):
                    t.fail("RES-13", f"an update for {uri}, which this connection had not subscribed to: updates "
                           "come only for subscribed URIs", got=shown(entry.data))
