"""A name the server does not know is answered with the names it does know that look most like it.

Not one spec page: server/tools (TOOL-18), server/prompts (PRM-07), server/resources (RES-06) and
server/utilities/completion (CMP-08) each refuse an unknown name; each refusal keeps its code and
adds "did you mean" with the closest known names (``data.suggestions``), and none when nothing is
close. The command line does the same for requirement IDs (``mcp-ref spec LC-8``: LC-08 first).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from mcp_ref import Client, InvalidParams, McpError, ResourceNotFound, Server
from mcp_ref_check import indexes, requirements_2025_03_26
from mcp_ref_check.closeness import closest
from mcp_ref_check.spec_cmd import not_found

from ..cli.test_main import MCP_REF


def small_server() -> Server:
    server = Server("names")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    def subtract(a: int, b: int) -> int:
        return a - b

    @server.prompt()
    def review_code(code: str, language: str = "python") -> str:
        return f"Review this {language}: {code}"

    @server.resource("notes://today")
    def today() -> str:
        return "today"

    @server.resource_template("notes://{topic}/draft")
    def draft(topic: str) -> str:
        return topic

    server.add_completion("ref/prompt", "review_code", "language", ["python", "go"])
    server.add_completion("ref/resource", "notes://{topic}/draft", "topic", ["mcp"])
    return server


CASES: list[tuple[str, Callable[[Client], Any], type[McpError], str | None]] = [
    ("tool, one letter short", lambda c: c.call_tool("ad", {}), InvalidParams, "add"),
    ("tool, transposed letters", lambda c: c.call_tool("subtarct", {}), InvalidParams, "subtract"),
    ("tool, nothing close", lambda c: c.call_tool("zzzzz", {}), InvalidParams, None),
    ("prompt", lambda c: c.get_prompt("review_cod", {"code": "x"}), InvalidParams, "review_code"),
    ("prompt argument", lambda c: c.get_prompt("review_code", {"code": "x", "langauge": "go"}), InvalidParams,
     "language"),
    ("completion of a prompt", lambda c: c.complete({"type": "ref/prompt", "name": "reveiw_code"},
                                                    {"name": "language", "value": "p"}), InvalidParams, "review_code"),
    ("completion of a template", lambda c: c.complete({"type": "ref/resource", "uri": "notes://{topik}/draft"},
                                                      {"name": "topic", "value": "m"}), InvalidParams,
     "notes://{topic}/draft"),
    ("resource", lambda c: c.read_resource("notes://todya"), ResourceNotFound, "notes://today"),
]


@pytest.mark.parametrize("case, call, error, meant", CASES, ids=[c[0] for c in CASES])
def test_an_unknown_name_suggests_the_closest_known_one(memory_client: Callable[..., Client], tap: Any, case: str,
                                                        call: Callable[[Client], Any], error: type[McpError],
                                                        meant: str | None) -> None:
    client = memory_client(small_server())
    with tap.deliberately_invalid(), pytest.raises(error) as info:
        call(client)
    if meant is None:
        assert "did you mean" not in info.value.message
    else:
        assert f"; did you mean {meant!r}" in info.value.message, info.value.message  # the closest first
        if case != "prompt argument":
            assert meant in info.value.data["suggestions"]


# --- requirement IDs: mcp-ref spec, requirements.get --------------------------------------------------
#
# An ID typed as people type it is first written the way the index writes IDs (upper case, one dash,
# the number padded to two digits), then every ID is ranked by how many letters it is from that and
# from what was typed. So LC-8 suggests LC-08 first (it once suggested LC-18 first: difflib ranks
# "LC-8" nearer to "LC-18", one letter inserted at the end, than to "LC-08").

EVERY_ID = list(indexes.everything())  # every revision's index: mcp-ref spec looks across them all


def unpadded_forms(requirement_id: str) -> list[str]:
    """How an ID gets typed: the number without its zero, no dash, a space or an underscore, any case."""
    prefix, number = requirement_id.split("-")
    bare = str(int(number))
    return [f"{prefix}-{bare}", f"{prefix}{bare}", f"{prefix}{number}", f"{prefix.lower()} {number}",
            f"{prefix.lower()}_{bare}", f"{prefix.capitalize()}-{bare}"]


def spread_over_the_prefixes(ids: list[str]) -> list[str]:
    """Of each prefix's IDs, the first and the last: every prefix and every width of number, which
    is what decides the ranking (each ID against all of them is a quadratic table that took the
    suite a minute and a half once the later revisions' indexes joined)."""
    by_prefix: dict[str, list[str]] = {}
    for requirement_id in ids:
        by_prefix.setdefault(requirement_id.split("-")[0], []).append(requirement_id)
    return sorted({group[i] for group in by_prefix.values() for i in (0, -1)})


@pytest.mark.parametrize("requirement_id", spread_over_the_prefixes(EVERY_ID))
def test_every_id_typed_without_padding_or_dash_suggests_itself_first(requirement_id: str) -> None:
    for typed in unpadded_forms(requirement_id):
        assert closest(typed, EVERY_ID)[0] == requirement_id, typed


TYPOS = [  # (typed, meant): a letter of the prefix wrong, missing, doubled, swapped; a digit too many
    ("LC-8", "LC-08"), ("LX-08", "LC-08"), ("CL-08", "LC-08"), ("LC-088", "LC-08"),
    ("TOLL-08", "TOOL-08"), ("TOL-18", "TOOL-18"), ("TOOLS-18", "TOOL-18"), ("TOOL-188", "TOOL-18"),
    ("PROG-1", "PROG-01"), ("PORG-01", "PROG-01"), ("SMAP-05", "SAMP-05"), ("ROOTS-2", "ROOT-02"),
    ("SHTTP-9", "SHTTP-09"), ("SHTP-09", "SHTTP-09"), ("shttp 23", "SHTTP-23"), ("PNG-05", "PING-05"),
]


@pytest.mark.parametrize(("typed", "meant"), TYPOS, ids=[t[0] for t in TYPOS])
def test_a_mistyped_id_suggests_the_one_meant_first(typed: str, meant: str) -> None:
    assert closest(typed, EVERY_ID)[0] == meant


def test_nothing_close_suggests_nothing_and_says_what_ids_look_like() -> None:
    assert closest("XYZZY-77", EVERY_ID) == []
    assert not_found("XYZZY-77", EVERY_ID) == ("unknown requirement ID 'XYZZY-77': IDs look like LC-08, TOOL-18, "
                                               "SHTTP-10 or ELIC-03. Or give a page such as server/tools.")
    assert not_found("tols", EVERY_ID) == ("'tols' is neither a requirement ID (such as LC-08) nor a spec page: "
                                           "did you mean tools?")


def test_spec_lc_8_suggests_lc_08_first() -> None:
    proc = subprocess.run([MCP_REF, "spec", "LC-8"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("mcp-ref: unknown requirement ID 'LC-8': did you mean LC-08, ")
    with pytest.raises(KeyError, match=r"did you mean SHTTP-09, "):  # each index's own get() ranks the same way
        requirements_2025_03_26.get("shttp-9")


def test_the_quick_bound_never_rules_out_an_id_the_full_count_would_keep() -> None:
    """``closest`` skips an ID when ``_surely_far`` says it is over two edits away; on 5,000 pairs
    of short strings of ID letters that agrees with the full count, and the capped count agrees too."""
    from random import Random

    from mcp_ref_check.closeness import _edits, _surely_far

    rng = Random(7)
    for _ in range(5000):
        a, b = ("".join(rng.choice("ABLCT-0189") for _ in range(rng.randint(0, 9))) for _ in range(2))
        exact = _edits(a, b)
        assert _surely_far(a, b) == (exact > 2), (a, b, exact)
        capped = _edits(a, b, most=2)
        assert capped == exact if exact <= 2 else capped > 2, (a, b, exact, capped)
