"""The verdict on a run: its summary figures, the missed ids by kind, the gate and the exit code.

The gate passes a complete run whose mean recall reaches ``THRESHOLDS``'
minimum with no fabrication and no more unparseable answers than allowed;
an incomplete run gets no verdict (exit 3).
"""

from __future__ import annotations

from statistics import fmean
from typing import TYPE_CHECKING, Iterable, Literal, cast

from ..scoring.score import FIGURE_STATUSES
from .case_records import CaseRecord

if TYPE_CHECKING:
    from .manifest_fields import FigureCounts, GateVerdict, Manifest, MissedKind, MissPattern, Summary, Thresholds

THRESHOLDS: Thresholds = {"min_mean_recall": 0.90, "max_fabrications": 0, "max_unparseable": 0}
WORST_CASES_SHOWN = 5


def missed_by_kind(records: Iterable[CaseRecord]) -> dict[str, MissedKind]:
    """``{kind: {"cases": n, "ids": {id: [case ids]}}}``, most cases first.

    Only cases whose output was scored (status ok): a case that failed or
    came back unparseable misses everything and says nothing about which
    findings the prompt misses; those are listed on their own.
    """
    from ..taxonomy import split_id

    grouped: dict[str, dict[str, list[str]]] = {}
    for record in records:
        if record.status != "ok":
            continue
        found = record.found_counts
        # With repeats, an id found in some of them is "found only sometimes" (run_statistics), a
        # different problem from one no repeat found: only the latter is listed as missed.
        for missed in (i for i in record.missed_ids if not found.get(i)):
            kind = split_id(missed)[0]
            grouped.setdefault(kind, {}).setdefault(missed, []).append(record.case_id)
    out: dict[str, MissedKind] = {}
    for kind, ids in grouped.items():
        cases = {c for case_ids in ids.values() for c in case_ids}
        out[kind] = {"cases": len(cases), "ids": {i: sorted(c) for i, c in sorted(ids.items())}}
    return dict(sorted(out.items(), key=lambda item: (-item[1]["cases"], item[0])))


def miss_pattern(by_kind: dict[str, MissedKind]) -> MissPattern | None:
    """Whether the misses are one finding missed in many cases (a prompt problem)
    or many findings missed once each (a case-set problem or a model choice)."""
    if not by_kind:
        return None
    repeated = [k for k, v in by_kind.items() if v["cases"] >= 2]
    once = [k for k, v in by_kind.items() if v["cases"] == 1]
    pattern: Literal["concentrated", "isolated", "scattered", "mixed"]
    if repeated and not once:
        pattern = "concentrated"
        text = (f"concentrated: {_kinds_with_counts(repeated, by_kind)}; the same finding missed in several "
                f"cases points at the prompt")
    elif len(once) == 1 and not repeated:
        pattern = "isolated"
        text = f"isolated: only {once[0]} is missed, in one case"
    elif once and not repeated:
        pattern = "scattered"
        text = (f"scattered: {len(once)} finding kind(s) missed once each; different findings missed once point "
                f"at the cases or the model choice, not one prompt gap")
    else:
        pattern = "mixed"
        text = (f"mixed: {_kinds_with_counts(repeated, by_kind)} (look at the prompt for these), plus "
                f"{len(once)} kind(s) missed once each")
    return {"pattern": pattern, "repeated": repeated, "once": once, "text": text}


def _kinds_with_counts(kinds: list[str], by_kind: dict[str, MissedKind]) -> str:
    return ", ".join(f"{k} missed in {by_kind[k]['cases']} cases" for k in kinds)


def summarize(records: list[CaseRecord], *, cases_total: int, not_run: list[str]) -> Summary:
    """The manifest's summary: means over the scored cases, fabrications, failures."""
    scored = [r for r in records if r.obtained]
    fabricating = sorted((r for r in records if r.fabrication), key=lambda r: (-r.fabrication, r.case_id))
    counts = [r.figure_counts() for r in records]  # once a record: a large answer has thousands of figures
    return {
        "cases": cases_total,
        "scored": len(scored),
        "mean_recall": round(fmean(r.recall for r in scored), 6) if scored else None,
        "mean_precision": round(fmean(r.precision for r in scored), 6) if scored else None,
        "fabrications": sum(r.fabrication for r in records),
        "unparseable": sum(1 for r in records if r.status == "unparseable"),
        "unparseable_answers": sum(r.unparseable_answers for r in records),
        "errors": sum(1 for r in records if r.status == "error"),
        "not_run": len(not_run),
        "fabrication_cases": [
            {"case_id": r.case_id, "fabrication": r.fabrication, "items": r.fabrication_items()} for r in fabricating
        ],
        "unparseable_cases": [{"case_id": r.case_id, "reason": r.error} for r in records if r.status == "unparseable"],
        "error_cases": [{"case_id": r.case_id, "reason": r.error} for r in records if r.status == "error"],
        "not_run_cases": list(not_run),
        "figures": cast("FigureCounts", {status: sum(c[status] for c in counts) for status in FIGURE_STATUSES}),
        "untraceable_cases": [
            {"case_id": r.case_id, "untraceable": len(items), "items": items}
            for r in records for items in [r.untraceable_items()] if items
        ],
    }


def gate_verdict(summary: Summary, status: str, thresholds: Thresholds = THRESHOLDS) -> GateVerdict:
    """``{"passed": True | False | None, "reasons": [...]}``; None when the run is incomplete."""
    if status != "complete":
        reasons = []
        if summary["errors"]:
            ids = ", ".join(c["case_id"] for c in summary["error_cases"])
            reasons.append(f"run incomplete: {summary['errors']} case(s) could not be obtained ({ids}); no verdict")
        if summary["not_run"]:
            reasons.append(f"run {status}: {summary['not_run']} of {summary['cases']} case(s) did not finish; no verdict")
        return {"passed": None, "reasons": reasons or [f"run {status}; no verdict"]}
    reasons = []
    mean_recall = summary["mean_recall"] or 0.0
    if mean_recall < thresholds["min_mean_recall"]:
        reasons.append(f"mean recall {mean_recall:.3f} is below {thresholds['min_mean_recall']:.2f}")
    if summary["fabrications"] > thresholds["max_fabrications"]:
        cases = summary["fabrication_cases"]
        where = ", ".join(f"{c['case_id']} ({c['fabrication']})" for c in cases[:WORST_CASES_SHOWN])
        if len(cases) > WORST_CASES_SHOWN:
            where += f" and {len(cases) - WORST_CASES_SHOWN} more case(s)"
        reasons.append(
            f"{summary['fabrications']} fabrication(s), {thresholds['max_fabrications']} allowed: {where}"
        )
    # An answer that is not JSON of the schema cannot be sent to an account, whatever the recall says.
    unparseable = summary.get("unparseable_answers", summary.get("unparseable", 0))
    max_unparseable = thresholds.get("max_unparseable", 0)
    if unparseable > max_unparseable:
        failed = summary.get("unparseable_cases") or []
        where = ", ".join(c["case_id"] for c in failed[:WORST_CASES_SHOWN])
        if len(failed) > WORST_CASES_SHOWN:
            where += f" and {len(failed) - WORST_CASES_SHOWN} more case(s)"
        reasons.append(f"{unparseable} unparseable answer(s), {max_unparseable} allowed (--max-unparseable): {where}")
    return {"passed": not reasons, "reasons": reasons}


def exit_code(manifest: Manifest) -> int:
    """0 gate passed, 1 gate failed, 3 incomplete (no verdict)."""
    gate = manifest.get("gate")
    passed = gate["passed"] if gate else None
    return 3 if passed is None else (0 if passed else 1)
