"""The weekly run's readable files: an account's report, and the index of the run.

The report is what a person sends: on top, whether it may go as it is (or is
held for review, with the figures the account's data does not support);
then the findings by severity, each with its claim and evidence and the
figures as the assistant wrote them. It ends with the reviewer's part: the
reference auditor's second opinion, where the two disagree. That part is for
the reviewer, and says so. Every value from the account's export or from
the model is written as text, never as markup (``markdown_text``).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Mapping

from ..files.atomic import staged_write_text
from ..backends.base import CaseOutput
from ..scoring.declared import how_computed_notes
from .markdown_text import md_cell, md_link_target, md_text
from .results import FAILED, HOLD, NOT_RUN, READY, SKIPPED, STATUSES, AccountResult, SecondOpinion, WeeklyManifest
from .folder import WeeklyPaths

SEVERITY_ORDER = ("high", "medium", "low")
INDEX_COLUMNS = ("account", "account_id", "status", "findings", "high", "medium", "low", "figures", "ungrounded",
                 "auditor_only", "assistant_only", "reason", "report")


def _scope(finding: Mapping[str, Any]) -> str:
    return f" (campaign {md_text(finding['scope'])})" if finding.get("scope") else ""


def _finding_line(finding: Mapping[str, Any]) -> str:
    text = md_text(finding.get("claim") or "")
    return f"{md_text(finding['id'])}{_scope(finding)}: {text}".rstrip(": ")


def _how_computed(figure_rows: list[dict[str, Any]]) -> list[str]:
    """How each declared figure the finding prints was computed, in a client's words; nothing for a prose answer."""
    notes = how_computed_notes(figure_rows)
    if not notes:
        return []
    return ["How the figures were computed:", "", *(f"- {md_text(text)}: {md_text(note)}" for text, note in notes.items()),
            ""]


def _holds(result: AccountResult) -> list[str]:
    """Why the account is held (a findings.json written before ``holds`` was kept names its figures only)."""
    return result.get("holds") or [f"{len(result.get('ungrounded') or [])} figure(s) not found in the account's data"]


def report_markdown(result: AccountResult) -> str:
    """The account's report (markdown), from its findings.json alone; every value in it is text (markdown_text)."""
    name = md_text(result.get("display_name") or result["account"])
    ident = f" ({md_text(result['account_id'])})" if result.get("account_id") else ""
    lines = [f"# Account audit: {name}{ident}", ""]
    if result.get("period"):
        lines += [f"Period: {md_text(result['period'])}", ""]
    status = result["status"]
    if status == HOLD:
        lines += ["**HOLD FOR REVIEW: check this report against the account before sending.**", ""]
        lines += [f"- {md_text(reason)}" for reason in _holds(result)] + [""]
        if result["ungrounded"]:
            lines += ["Figures not found in the account's data:", ""]
        for item in result["ungrounded"]:
            lines.append(f"- \"{md_text(item['text'])}\" in finding {item['finding']} ({md_text(item['field'])}): "
                         f"{md_text(item['reason'])}")
        if result["ungrounded"]:
            lines.append("")
    elif status == READY:
        lines += [f"Every figure in this report ({result['figures']}) was checked against the account's data, "
                  "each finding has at least one, and the reference auditor agrees.", ""]
    else:
        lines += [f"**NO REPORT ({status.upper()}): {md_text(result.get('reason') or 'no reason recorded')}**", ""]
        return "\n".join(lines)

    findings = result["findings"]
    if not findings:
        lines += ["No findings.", ""]
    for severity in SEVERITY_ORDER:
        group = [f for f in findings if f.get("severity") == severity]
        if not group:
            continue
        lines += [f"## {severity.capitalize()} severity", ""]
        for finding in group:
            number = findings.index(finding) + 1
            flag = " **(figure not found in the data)**" if any(not f["grounded"] for f in finding["figures"]) else ""
            lines.append(f"### {number}. {md_text(finding['id'])}{_scope(finding)}{flag}")
            lines.append("")
            if finding.get("claim"):
                lines += [md_text(finding["claim"]), ""]
            if finding.get("evidence"):
                lines += [f"Evidence: {md_text(finding['evidence'])}", ""]
            lines += _how_computed(finding["figures"])

    lines += ["---", "", "## For the reviewer: the reference auditor's second opinion", ""]
    opinion = result["second_opinion"]
    if opinion is None or opinion["error"]:
        lines += [f"No second opinion: {md_text(opinion['error'] if opinion else 'the reference auditor was not run')}", ""]
        return "\n".join(lines)
    auditor_only, assistant_only = opinion.get("auditor_only") or [], opinion.get("assistant_only") or []
    if not auditor_only and not assistant_only:
        return "\n".join(lines + ["The reference auditor agrees on every finding kind and campaign.", ""])
    lines += ["The auditor finds, the assistant does not say:", ""]
    lines += [f"- {_finding_line(f)}" for f in auditor_only] or ["- nothing"]
    lines += ["", "The assistant says, the auditor does not support:", ""]
    lines += [f"- {_finding_line(f)}" for f in assistant_only] or ["- nothing"]
    lines.append("")
    return "\n".join(lines)


def write_account_files(paths: WeeklyPaths, result: AccountResult, output: CaseOutput | None) -> None:
    """The account's files in the run's work folder (made durable all at once before it is swapped in)."""
    name = result["account"]
    if output is not None and output.raw_text is not None:
        staged_write_text(paths.raw(name), output.raw_text)
    staged_write_text(paths.findings(name), json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    staged_write_text(paths.report(name), report_markdown(result))


def index_row(result: AccountResult) -> dict[str, str]:
    findings = result["findings"]
    opinion = result["second_opinion"] or SecondOpinion(auditor=None, error=None, auditor_only=[], assistant_only=[])
    by_severity = {s: sum(1 for f in findings if f.get("severity") == s) for s in SEVERITY_ORDER}
    return {
        "account": result["account"],
        "account_id": result.get("account_id") or "",
        "status": result["status"],
        "findings": str(len(findings)),
        **{s: str(n) for s, n in by_severity.items()},
        "figures": str(result.get("figures", 0)),
        "ungrounded": str(len(result.get("ungrounded") or [])),
        "auditor_only": str(len(opinion.get("auditor_only") or [])),
        "assistant_only": str(len(opinion.get("assistant_only") or [])),
        "reason": (result.get("reason") or "").replace("\n", " "),
        "report": f"accounts/{result['account']}/report.md",
    }


def index_csv(results: dict[str, AccountResult]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(INDEX_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for result in results.values():
        writer.writerow(index_row(result))
    return buf.getvalue()


def stamp_words(stamp: Mapping[str, Any]) -> str:
    """The stamp a run went behind, in words: prompt, model, the case set's size and hash, when it was cleared."""
    cases = stamp.get("cases")
    where = f", {stamp['cases_dir']}" if stamp.get("cases_dir") else ""
    return (f"prompt {stamp.get('prompt_version')} (sha256 {str(stamp.get('prompt_sha256'))[:12]}), model "
            f"{stamp.get('model')}, cleared by the run of {stamp.get('finished_at')} on "
            f"{cases if cases is not None else 'an unrecorded number of'} cases (case set "
            f"{str(stamp.get('case_set_hash'))[:12]}{where})")


def index_markdown(paths: WeeklyPaths, results: dict[str, AccountResult], manifest: WeeklyManifest) -> str:
    stamp = manifest.get("stamp") or {}
    counts = manifest.get("counts") or {}
    words = stamp_words(stamp)
    lines = [f"# Weekly run {md_text(paths.run_dir.name)}", "",
             md_text(f"{words[0].upper()}{words[1:]}. Run {manifest.get('status')}: "
                     + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES) + "."), ""]
    held = [r["account"] for r in results.values() if r["status"] in (HOLD, FAILED, SKIPPED, NOT_RUN)]
    if held:
        lines += [f"Not ready to send: {', '.join(md_text(name) for name in held)}.", ""]
    lines += ["| account | status | findings | high | medium | low | figures | not in data | auditor only | "
              "assistant only | reason |", "|" + "---|" * 11]
    for result in results.values():
        row = index_row(result)
        link = f"[{md_cell(row['account'])}]({md_link_target(row['report'])})"
        lines.append("| " + " | ".join([link, *(md_cell(v) for v in (
            row["status"], row["findings"], row["high"], row["medium"], row["low"], row["figures"],
            row["ungrounded"], row["auditor_only"], row["assistant_only"], row["reason"]))]) + " |")
    return "\n".join(lines) + "\n"


def write_index(paths: WeeklyPaths, results: dict[str, AccountResult], manifest: WeeklyManifest) -> None:
    """The index in the run's work folder, as ``write_account_files``."""
    staged_write_text(paths.index_csv, index_csv(results))
    staged_write_text(paths.index_md, index_markdown(paths, results, manifest))
