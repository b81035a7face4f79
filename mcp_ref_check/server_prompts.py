"""Server cases for prompts: listing them, getting them, refusing unknown names and missing arguments.

Not a spec section: cases of the conformance checker (see __init__.py). The spec page they
check: https://modelcontextprotocol.io/specification/2024-11-05/server/prompts

What this page asks of a server, in short:

1. A server that has prompts declares the ``prompts`` capability; getting a listed prompt with
   its required arguments gives messages of the page's shapes (images in base64 with a MIME
   type, embedded resources with URI and MIME type).
2. An unknown name or a missing required argument is -32602.
3. A server that does not declare prompts refuses prompts/list.

A note on IDs: the index has no row per result field, so a case that checks a result's shape
cites the row of the page's capability (PRM-01): declaring it commits the server to the page's
messages. Getting prompts is treated as safe.
"""

from __future__ import annotations

import secrets
from typing import Any

from . import result_shapes, shapes
from .helpers import FILLER, MAX_ITEMS, first_page, refused
from .model import server_case
from .peer import Reply
from .revisions import ID
from .server_check import ServerCheck

PROMPTS = "server/prompts"


# --- server/prompts ------------------------------------------------------------------------------


@server_case(PROMPTS, "PRM-01")
def prompts_list_is_well_formed(t: ServerCheck) -> None:
    """prompts/list returns a prompts array; each prompt has a name, an optional description and
    optional arguments, each with a name and a boolean required."""
    t.require("prompts")
    _, reply, result = first_page(t, "prompts/list", "prompts", "PRM-01")
    t.shape(result_shapes.list_result(result, "prompts", result_shapes.prompt), "PRM-01", "the prompts/list result", reply)


def required_arguments(prompt: dict[str, Any]) -> list[str]:
    arguments = shapes.as_list(prompt.get("arguments"))
    return [a["name"] for a in arguments if isinstance(a, dict) and a.get("required") is True and isinstance(a.get("name"), str)]


def _row_for(problem: str) -> str:
    """Which prompts row a shape problem breaks: images PRM-03, embedded resources PRM-04/06."""
    if ".content.data" in problem or ".content.mimeType" in problem:
        return "PRM-03"
    if ".content.resource" in problem:
        return "PRM-04" if ".uri" in problem else "PRM-06" if ("text" in problem or "blob" in problem) else "PRM-01"
    return "PRM-01"


def _prompt_findings(t: ServerCheck, name: str, reply: Reply) -> None:
    """Shape problems of a prompts/get result, each against the row that covers it."""
    foreign, problems = shapes.outside_union(result_shapes.get_prompt_result(reply.result, t.version))
    later = [p for p in problems if p.endswith("(audio)")]  # judged on 2025-03-26's AUDIO row
    problems = [p for p in problems if p not in later]
    t.content(foreign + later, "PRM-01", f"prompt {name}", reply, "PromptMessage.content")
    for row in ("PRM-01", "PRM-03", "PRM-04", "PRM-06"):
        t.shape([p for p in problems if _row_for(p) == row], row, f"prompt {name}", reply)
    messages = reply.result.get("messages") if isinstance(reply.result, dict) else None
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        item = message.get("content") if isinstance(message, dict) else None
        if isinstance(item, dict) and item.get("type") == "resource" and isinstance(item.get("resource"), dict):
            t.check(isinstance(item["resource"].get("mimeType"), str), "PRM-05",
                    f"the resource embedded in message {i} of prompt {name} has no mimeType", reply.sent, reply.got)


@server_case(PROMPTS, "PRM-01", "PRM-03", "PRM-04", "PRM-05", "PRM-06", "LC-14", ID["negotiated"], ID["audio"],
             ID["link"])
def listed_prompts_can_be_got(t: ServerCheck) -> None:
    """Each listed prompt (up to 20), got with its required arguments filled in, returns messages
    with role user or assistant and text, image (base64, MIME type) or embedded-resource content
    (URI, MIME type, text or base64 blob); content types of a revision later than the session's are
    LC-14 (its NEGO row from 2025-06-18); audio and resource_link, in a session that has them, are
    judged on their own revision's rows."""
    t.require("prompts")
    prompts = [p for p in t.info.prompts or [] if isinstance(p.get("name"), str)][:MAX_ITEMS]
    if not prompts:
        t.skip("the server lists no prompt")
    peer = t.session()
    for prompt in prompts:
        arguments = {name: FILLER for name in required_arguments(prompt)}
        reply = peer.request("prompts/get", {"name": prompt["name"], "arguments": arguments})
        t.answered(reply, f"prompts/get {prompt['name']}")
        if reply.is_error:
            t.note(f"prompt {prompt['name']} refused the kit's filler arguments ({reply.code})")
            continue
        _prompt_findings(t, prompt["name"], reply)


@server_case(PROMPTS, "PRM-07")
def unknown_prompt_is_32602(t: ServerCheck) -> None:
    """Getting a prompt name the server never listed gets error -32602."""
    t.require("prompts")
    peer = t.session()
    reply = peer.request("prompts/get", {"name": f"{FILLER}-no-such-prompt-{secrets.token_hex(3)}"})
    t.expect_error(reply, "PRM-07", "prompts/get of an unknown prompt", (-32602,))


@server_case(PROMPTS, "PRM-08", "PRM-10")
def missing_required_argument_is_32602(t: ServerCheck) -> None:
    """Getting a prompt without one of its required arguments gets error -32602."""
    t.require("prompts")
    prompt = next((p for p in t.info.prompts or [] if required_arguments(p)), None)
    if prompt is None:
        t.skip("no listed prompt has a required argument")
    peer = t.session()
    reply = peer.request("prompts/get", {"name": prompt["name"], "arguments": {}})
    t.expect_error(reply, "PRM-08", f"prompts/get {prompt['name']} without {required_arguments(prompt)[0]}", (-32602,))


@server_case(PROMPTS, "PRM-01")
def prompts_refused_when_undeclared(t: ServerCheck) -> None:
    """A server that does not declare prompts does not serve prompts/list."""
    if t.info.declares("prompts"):
        t.skip("the server declares prompts (the other prompts cases check them)")
    refused(t, "prompts/list", None, "PRM-01", "prompts")
