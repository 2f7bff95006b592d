"""What CI reads from a run: a JUnit XML report and the summary as JSON.

JUnit (``reviewtui eval --junit FILE``): one ``testsuite`` named after the
prompt version, one ``testcase`` per case (classname ``reviewtui.<version>``,
name the case id). A case fails (``<failure>``) when a must_find id was
missed in any repeat, when it has a fabrication, or when its answer was
unparseable; the failure's message names the missed ids and the count of
fabrications, its text lists each. A case whose answer could not be
obtained is an ``<error>``; a case that was not run (cancelled) is
``<skipped>``. The gate's verdict and reasons are the suite's properties,
so a reporter shows the cases and the build step's exit code gives the
verdict. The format is the one Jenkins, GitLab, GitHub test reporters and
junitparser read (tests/unit/test_ci_formats.py parses it with junitparser).

JSON (``--format json``): the manifest (``runs/manifest.py``) without the case id
list, plus ``exit_code``, as one object on stdout.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterable, TYPE_CHECKING

from ..files.atomic import atomic_write_text
from .gate import exit_code
from .case_records import CaseRecord

if TYPE_CHECKING:
    from .manifest_fields import Manifest


def summary_json(manifest: Manifest) -> dict[str, Any]:
    data = {k: v for k, v in manifest.items() if k != "case_ids"}
    data["exit_code"] = exit_code(manifest)
    return data


def _failure(record: CaseRecord) -> tuple[str, str] | None:
    parts, details = [], []
    if record.status == "unparseable":
        parts.append("unparseable answer")
        details.append(f"unparseable: {record.error}")
    if record.missed_ids:
        parts.append("missed " + ", ".join(record.missed_ids))
        details += [f"missed must_find: {i}" for i in record.missed_ids]
    if record.fabrication:
        parts.append(f"{record.fabrication} fabrication(s)")
        details += [f"fabrication: {item}" for item in record.fabrication_items()]
    return ("; ".join(parts), "\n".join(details)) if parts else None


def junit_xml(manifest: Manifest, records: Iterable[CaseRecord]) -> str:
    version = str(manifest.get("prompt_version"))
    records = sorted(records, key=lambda r: r.case_id)
    not_run = (manifest.get("summary") or {}).get("not_run_cases") or []
    suite = ET.Element("testsuite", name=f"reviewtui eval {version}", timestamp=str(manifest.get("started_at", "")))
    properties = ET.SubElement(suite, "properties")
    gate = manifest.get("gate")
    verdict = {True: "passed", False: "failed", None: "no verdict"}[gate["passed"] if gate else None]
    for name, value in (("prompt_version", version), ("prompt_sha256", manifest.get("prompt_sha256")),
                        ("backend", manifest.get("backend")), ("model", manifest.get("model")),
                        ("status", manifest.get("status")), ("gate", verdict),
                        *(("gate_reason", reason) for reason in (gate["reasons"] if gate else []))):
        ET.SubElement(properties, "property", name=name, value=str(value))
    failures = errors = 0
    for record in records:
        case = ET.SubElement(suite, "testcase", classname=f"reviewtui.{version}", name=record.case_id)
        if not record.obtained:
            errors += 1
            ET.SubElement(case, "error", message=record.error or "no answer", type="error").text = record.error or ""
            continue
        failed = _failure(record)
        if failed:
            failures += 1
            ET.SubElement(case, "failure", message=failed[0], type="failure").text = failed[1]
    for case_id in sorted(set(not_run) - {r.case_id for r in records}):
        case = ET.SubElement(suite, "testcase", classname=f"reviewtui.{version}", name=case_id)
        ET.SubElement(case, "skipped", message="not run (the run was cancelled)")
    total = len(records) + len(set(not_run) - {r.case_id for r in records})
    suite.set("tests", str(total))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(total - len(records)))
    root = ET.Element("testsuites", name="reviewtui eval")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(path: str | Path, manifest: Manifest, records: Iterable[CaseRecord]) -> None:
    atomic_write_text(Path(path), junit_xml(manifest, records))


_COLOURS = {"PASSED": "32", "ok": "32", "FAILED": "31", "FAIL": "31", "NO VERDICT": "33"}


def use_colour(stream: Any, environ: dict[str, str]) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set to anything (https://no-color.org)."""
    return "NO_COLOR" not in environ and bool(getattr(stream, "isatty", lambda: False)())


def colour_summary(text: str) -> str:
    """The summary with its verdict words coloured (the last word of the gate and threshold lines)."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        for word, code in _COLOURS.items():
            if body.endswith(f" {word}") and (body.startswith(("gate", "mean recall", "fabrications", "unparseable"))):
                body = f"{body[: -len(word)]}\033[{code}m{word}\033[0m"
                break
            if body.startswith("gate") and f" {word} " in f"{body} " and word in ("PASSED", "FAILED", "NO VERDICT"):
                body = body.replace(word, f"\033[{code}m{word}\033[0m", 1)
                break
        out.append(body + ("\n" if line.endswith("\n") else ""))
    return "".join(out)
