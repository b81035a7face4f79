"""The client cases of the revisions after 2024-11-05: elicitation (2025-06-18) and the
MCP-Protocol-Version header (2025-06-18).

Not a spec section: cases of ``mcp-ref check client``, beside client_cases.py (the 2024-11-05
ones), each judged at the revision the client agreed on and citing that revision's IDs
(revisions.py ``ID``).
"""

from __future__ import annotations

from .client_cases import probe
from .client_check import ClientCheck
from .model import client_case
from .revisions import ID, since
from .shapes import json_text
from .wire import shown

LIFECYCLE = "basic/lifecycle"
TRANSPORTS = "basic/transports"

# --- later revisions: elicitation (2025-06-18), the MCP-Protocol-Version header (2025-06-18) ----

ELICITATION = LIFECYCLE  # the index of 2024-11-05 has no elicitation page; the capability is negotiated here
ACTIONS = ("accept", "decline", "cancel")


@client_case(ELICITATION, ID["elicit-capability"], ID["elicit-content"])
def elicitation_is_answered(t: ClientCheck) -> None:
    """A client that declared elicitation, in a session of 2025-06-18 or later, answers the
    checking server's elicitation/create (a flat form asking for a name) with a result whose
    action is accept, decline or cancel, and, with accept, content: an object of strings,
    numbers and booleans, with the form's required name (ELIC-09: content is checked against
    requestedSchema, a SHOULD). The result's shape is judged on ELIC-05, the row of the capability
    that commits the client to the page's messages. An error answer is noted: the user may be
    unable to answer."""
    if not since(t.s.version, "2025-06-18"):
        t.skip(f"elicitation came with 2025-06-18; the session agreed on {t.s.version}")
    if not isinstance(t.s.client_capabilities.get("elicitation"), dict):
        t.skip("the client does not declare elicitation")
    if "elicitation" in t.s.unprobed:  # declared, but not form mode (URL mode alone, 2025-11-25)
        t.skip(t.s.unprobed["elicitation"])
    found = probe(t, "elicitation")
    req_id = ID["elicit-capability"]
    if found.reply is None:
        t.fail(req_id, "no response to elicitation/create", found.sent, f"(nothing within {t.timeout:g} s)")
    if "error" in found.reply:
        t.note(f"elicitation/create was refused: {shown(found.got)}")
        return
    result = found.reply.get("result")
    problems: list[str] = []
    if not isinstance(result, dict):
        problems.append("result is not an object")
    else:
        if result.get("action") not in ACTIONS:
            problems.append(f"result.action is {json_text(result.get('action'))}, not accept, decline or cancel")
        content = result.get("content")
        if result.get("action") == "accept" and not isinstance(content, dict):
            problems.append("result.content is missing: an accepted form sends what the user filled in")
        for key, value in (content.items() if isinstance(content, dict) else ()):
            if not isinstance(value, (str, int, float, bool)) or value is None:
                problems.append(f"result.content.{key} is {json_text(value)}, not a string, number or boolean")
    t.shape_problems(problems, req_id, "the elicitation/create result", found)
    if isinstance(result, dict) and result.get("action") == "accept" and isinstance(result.get("content"), dict):
        t.check(isinstance(result["content"].get("name"), str), ID["elicit-content"], "an accepted form's content "
                "lacks name, a string the requestedSchema requires", found.sent, found.got)


@client_case(TRANSPORTS, ID["header"], ID["header-value"], transport="http")
def sends_the_protocol_version_header(t: ClientCheck) -> None:
    """Over Streamable HTTP, in a session of 2025-06-18 or later, every HTTP request the client
    makes after initialize (POST, GET and DELETE) carries MCP-Protocol-Version with the version
    the two agreed on."""
    if not since(t.s.version, "2025-06-18"):
        t.skip(f"the MCP-Protocol-Version header came with 2025-06-18; the session agreed on {t.s.version}")
    seen = list(getattr(t.s.link, "requests", []))
    initialize_at = getattr(t.s.link, "initialize_at", None)  # (a probe of 2026-07-28 may come first)
    if initialize_at is None:
        t.skip("the client made no initialize POST")
    later = seen[initialize_at + 1:]
    if not later:
        t.skip("the client made no HTTP request after initialize")
    missing = [method for method, _, headers in later if "mcp-protocol-version" not in headers]
    wrong = [(method, headers["mcp-protocol-version"]) for method, _, headers in later
             if "mcp-protocol-version" in headers and headers["mcp-protocol-version"] != t.s.version]
    if missing:
        t.check(False, ID["header"], f"{len(missing)} of {len(later)} HTTP request(s) after initialize carried no "
                f"MCP-Protocol-Version (the first: a {missing[0]})")
    if wrong:
        method, value = wrong[0]
        t.check(False, ID["header-value"], f"{len(wrong)} of {len(later)} HTTP request(s) after initialize carried "
                f"MCP-Protocol-Version {json_text(value)}, not {t.s.version}, the negotiated version (the first: a "
                f"{method})")
