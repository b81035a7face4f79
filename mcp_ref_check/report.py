"""Reports of a check run: text for people, JSON for programs, JUnit XML for CI systems.

Not a spec section: the checker's output.

1. Text: one line per case, grouped by spec page, each with its status, name, requirement IDs
   and level; under a FAIL or WARN, each unmet requirement: what went wrong, what was sent and
   what came back, the rule in one line of our own (the requirement index's summary), the spec
   section that states it, and ``mcp-ref spec ID`` to read more. Then a summary per level and
   the exit status.
2. JSON: every case with its IDs, level, page, status, detail, findings and the messages it
   exchanged.
3. JUnit XML: one testsuite per page, one testcase per case; FAIL (and WARN under ``--strict``)
   are failures, SKIP is skipped, ERROR is an error.
4. Exit status: 0 when no MUST failed (with ``strict``, no SHOULD either), 1 otherwise; the
   caller uses 2 when it could not connect at all.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any, TextIO

from .model import LEVELS, Case, CaseResult, Status
from .wire import shown

MAX_REPORT_MESSAGES = 5000  # messages written in one JSON report, over all its cases
MARK = {Status.PASS: "PASS", Status.FAIL: "FAIL", Status.WARN: "WARN", Status.SKIP: "SKIP", Status.ERROR: "ERROR"}


def exit_status(results: Iterable[CaseResult], strict: bool = False) -> int:
    bad = {Status.FAIL, Status.ERROR} | ({Status.WARN} if strict else set())
    return 1 if any(r.status in bad for r in results) else 0


def by_page(items: Iterable[Any], page_of: Any) -> dict[str, list[Any]]:
    pages: dict[str, list[Any]] = {}
    for item in items:
        pages.setdefault(page_of(item), []).append(item)
    return pages


def counts(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    """{level: {status: count}} over the cases, by each case's level."""
    table = {level: {s.value: 0 for s in Status} for level in LEVELS}
    for result in results:
        table[result.case.level][result.status.value] += 1
    return table


def write_text(out: TextIO, results: list[CaseResult], *, header: str, strict: bool = False,
               verbose: bool = False) -> None:
    out.write(header.rstrip() + "\n")
    width = max((len(r.case.name) for r in results), default=20)
    for page, page_results in by_page(results, lambda r: r.case.page).items():
        out.write(f"\n{page}\n")
        for result in page_results:
            case = result.case
            ids = " ".join(case.ids)
            line = f"  {MARK[result.status]:<5} {case.name:<{width}}  {ids}  [{case.level}]"
            if result.status is Status.SKIP:
                line += f"  ({result.skip_reason})"
            out.write(line + "\n")
            if result.status is Status.ERROR:
                out.write(f"        {result.error}\n")
            for finding in result.findings:
                if finding.strength == "MAY":
                    continue
                out.write(f"        {finding.id} ({finding.strength}): {finding.message}\n")
                if finding.headers:
                    out.write(f"          headers sent: {_headers(finding.headers)}\n")
                if finding.sent is not None:
                    out.write(f"          sent: {shown(finding.sent)}\n")
                if finding.got is not None:
                    out.write(f"          got:  {shown(finding.got)}\n")
                out.write(f"          rule: {finding.rule}\n")
                out.write(f"          spec: {finding.link}" + (f" ({finding.section})" if finding.section else "") + "\n")
                out.write(f"          more: mcp-ref spec {finding.id}\n")
            if verbose or result.status in (Status.FAIL, Status.WARN) or case.informative or case.at_most:
                for note in result.notes:
                    out.write(f"        note: {note}\n")
            if result.cut and verbose:
                out.write(f"        ({result.cut} message(s) of this case are not in the report)\n")
    write_summary(out, results, strict=strict)


def _headers(headers: dict[str, str]) -> str:
    return ", ".join(f"{name}: {value}" for name, value in headers.items())


def finding_text(finding: Any) -> str:
    """One finding as plain text (JUnit): ID, level, message, headers, what was sent and got, and the link."""
    lines = [f"{finding.id} ({finding.strength}): {finding.message}"]
    if finding.headers:
        lines.append(f"  headers sent: {_headers(finding.headers)}")
    lines += [f"  sent: {shown(finding.sent)}", f"  got: {shown(finding.got)}", f"  rule: {finding.rule}",
              f"  spec: {finding.link}" + (f" ({finding.section})" if finding.section else ""),
              f"  more: mcp-ref spec {finding.id}"]
    return "\n".join(lines)


def write_summary(out: TextIO, results: list[CaseResult], *, strict: bool = False) -> None:
    table = counts(results)
    out.write("\nSummary (cases by level)\n")
    for level in LEVELS:
        row = table[level]
        total = sum(row.values())
        if not total:
            continue
        parts = [f"{row['PASS']} passed", f"{row['FAIL']} failed", f"{row['WARN']} warned", f"{row['SKIP']} skipped"]
        if row["ERROR"]:
            parts.append(f"{row['ERROR']} kit errors")
        out.write(f"  {level:<7} {', '.join(parts)}\n")
    by_status = {s: sum(1 for r in results if r.status is s) for s in Status}
    out.write(f"  {len(results)} cases: {by_status[Status.PASS]} PASS, {by_status[Status.FAIL]} FAIL, "
              f"{by_status[Status.WARN]} WARN, {by_status[Status.SKIP]} SKIP"
              + (f", {by_status[Status.ERROR]} ERROR" if by_status[Status.ERROR] else "") + "\n")
    cut = sum(r.cut for r in results)
    if cut:
        out.write(f"  {cut} message(s) were counted but not kept: every transcript is bounded\n")
    status = exit_status(results, strict)
    if status == 0:
        verdict = "no MUST failed" + (", no SHOULD either" if strict else "")
    elif by_status[Status.ERROR]:
        verdict = "the kit failed on some case (ERROR): please report it"
    elif by_status[Status.FAIL]:
        verdict = "a MUST requirement is not met"
    else:
        verdict = "a SHOULD requirement is not met (--strict)"
    out.write(f"Exit status {status}: {verdict}.\n")


def cut_message(entry: dict[str, Any], max_bytes: int | None) -> dict[str, Any]:
    """One transcript entry, its text cut at ``max_bytes`` bytes of UTF-8 (None: whole, as kept)."""
    data = entry["data"]
    if max_bytes is None or len(data) <= max_bytes // 4:  # at most 4 bytes a character: short enough
        return entry
    encoded = data.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return entry
    kept = encoded[:max_bytes].decode("utf-8", "ignore")  # never half a character
    return {**entry, "data": kept + f"... ({len(encoded)} bytes in all; cut by --max-message-bytes {max_bytes})"}


def as_json(results: list[CaseResult], *, about: dict[str, Any], strict: bool = False,
            reason: str | None = None, max_message_bytes: int | None = None) -> dict[str, Any]:
    """The JSON report; ``reason`` (and exit status 2) when the run could not be made or was stopped.
    Each message is written whole, as the transcript kept it (so a tools/list can be audited again
    from the report), unless ``max_message_bytes`` (``--max-message-bytes``) cuts it."""
    cases = [r.as_dict() for r in results]
    room = MAX_REPORT_MESSAGES
    cut = sum(r.cut for r in results)
    for case in cases:  # the report as a whole is bounded too: later cases keep fewer messages
        kept = case["messages"][:room]
        if len(kept) < len(case["messages"]):
            case["messages_cut"] = case.get("messages_cut", 0) + len(case["messages"]) - len(kept)
            cut += len(case["messages"]) - len(kept)
        case["messages"] = [cut_message(entry, max_message_bytes) for entry in kept]
        room -= len(kept)
    out = {
        "kit": "mcp-ref check", "revision": "2024-11-05", **about,
        "exit_status": 2 if reason is not None else exit_status(results, strict),
        "summary": counts(results),
        "cases": cases,
    }
    if reason is not None:
        out["reason"] = reason
    if cut:
        out["messages_cut"] = cut
        out["messages_cut_why"] = ("the transcript kept per connection, per case and per report is bounded: "
                                   "later messages were counted, not kept")
    return out


def write_json(path: str, results: list[CaseResult], *, about: dict[str, Any], strict: bool = False,
               reason: str | None = None, max_message_bytes: int | None = None) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump(as_json(results, about=about, strict=strict, reason=reason, max_message_bytes=max_message_bytes),
                  file, ensure_ascii=False, indent=2)
        file.write("\n")


def junit_xml(results: list[CaseResult], *, suite: str, strict: bool = False, reason: str | None = None) -> bytes:
    """JUnit XML; with ``reason`` (the run could not be made or was stopped), one testcase in error says why."""
    root = ET.Element("testsuites", name=suite)
    if reason is not None:
        element = ET.SubElement(root, "testsuite", name=f"{suite} setup", tests="1", failures="0", errors="1",
                                skipped="0")
        case = ET.SubElement(element, "testcase", classname="mcp-ref-check", name="run")
        ET.SubElement(case, "error", message=reason[:500], type="exit status 2").text = reason
    for page, page_results in by_page(results, lambda r: r.case.page).items():
        element = ET.SubElement(root, "testsuite", name=f"{suite} {page}", tests=str(len(page_results)))
        failures = errors = skipped = 0
        for result in page_results:
            case = ET.SubElement(element, "testcase", classname=page.replace("/", "."), name=result.case.name,
                                 time=f"{result.duration:.3f}")
            text = "\n".join(finding_text(f) for f in result.findings)
            if result.status is Status.FAIL or (strict and result.status is Status.WARN):
                failures += 1
                ET.SubElement(case, "failure", message=result.detail[:500], type=result.status.value).text = text
            elif result.status is Status.ERROR:
                errors += 1
                ET.SubElement(case, "error", message=(result.error or "")[:500]).text = result.error
            elif result.status is Status.SKIP:
                skipped += 1
                ET.SubElement(case, "skipped", message=result.skip_reason or "")
            elif result.status is Status.WARN:
                ET.SubElement(case, "system-out").text = f"WARN (a SHOULD is not met)\n{text}"
            ET.SubElement(case, "properties").extend(
                [ET.Element("property", name="ids", value=" ".join(result.case.ids)),
                 ET.Element("property", name="level", value=result.case.level)]
                + [ET.Element("property", name=f"spec {f.id}", value=f.link) for f in result.findings])
        element.set("failures", str(failures))
        element.set("errors", str(errors))
        element.set("skipped", str(skipped))
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def write_junit(path: str, results: list[CaseResult], *, suite: str, strict: bool = False,
                reason: str | None = None) -> None:
    with open(path, "wb") as file:
        file.write(junit_xml(results, suite=suite, strict=strict, reason=reason))


def write_list(out: TextIO, cases: list[Case]) -> None:
    """``--list``: every case by side and page, with its IDs, level and what it checks."""
    width = max((len(c.name) for c in cases), default=20)
    for side in ("server", "client"):
        side_cases = [c for c in cases if c.side == side]
        if not side_cases:
            continue
        out.write(f"{side} cases ({len(side_cases)})\n")
        for page, page_cases in by_page(side_cases, lambda c: c.page).items():
            out.write(f"\n  {page}\n")
            for case in page_cases:
                extra = [f"{case.transport} only"] if case.transport else []
                extra += ["--call-tools"] if case.call_tools else []
                extra += ["--hostile"] if case.hostile else []
                out.write(f"    {case.name:<{width}}  [{case.level}] {' '.join(case.ids)}"
                          + (f"  ({', '.join(extra)})" if extra else "") + "\n")
                out.write(f"      {case.summary}\n")
        out.write("\n")
