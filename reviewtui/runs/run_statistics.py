"""What one run's numbers are worth: consistency over repeats, intervals, recall by kind.

``run_statistics(records, thresholds)`` gives the manifest's ``consistency``,
``uncertainty``, ``recall_by_case_kind`` and ``recall_by_finding_kind``;
``statistics_lines(manifest)`` the lines of the summary that show them. Both
are pure; the arithmetic is in ``inference.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Literal, cast

from . import inference
from ..taxonomy import split_id

if TYPE_CHECKING:
    from .manifest_fields import CaseKindRecall, Consistency, FindingKindRecall, FlippingCase, IntervalEntry, Manifest, RunStatistics, SometimesFound, Thresholds, Uncertainty

if TYPE_CHECKING:
    from .case_records import CaseRecord

SOMETIMES_SHOWN = 10


def consistency(records: Iterable["CaseRecord"]) -> Consistency:
    """pass^K / pass@K counts, the cases that flip, and the ids found in some repeats but not all."""
    records = [r for r in records if r.scores]
    flipping: list[FlippingCase] = [{"case_id": r.case_id, "passed": r.repeats_passed, "runs": r.runs} for r in records if r.flips]
    sometimes: list[SometimesFound] = [{"case_id": r.case_id, "id": i, "found": n, "runs": r.runs}
                 for r in records for i, n in r.found_counts.items() if 0 < n < r.runs]
    return {
        "repeats": max((r.runs for r in records), default=0),
        "cases": len(records),
        "pass_all": sum(1 for r in records if r.pass_all),
        "pass_any": sum(1 for r in records if r.pass_any),
        "flipping_cases": flipping,
        "sometimes_found": sometimes,
    }


def uncertainty(records: Iterable["CaseRecord"], threshold: float, *, resamples: int = inference.DEFAULT_RESAMPLES,
                seed: int = inference.DEFAULT_SEED) -> Uncertainty | None:
    """Bootstrap intervals of mean recall and precision over the obtained cases (None when none was)."""
    scored = [r for r in records if r.obtained]
    if not scored:
        return None
    recall, precision = inference.bootstrap_means([[r.recall for r in scored], [r.precision for r in scored]],
                                              resamples=resamples, seed=seed)
    return {
        "method": "task-level bootstrap (cases resampled with their repeats), percentile interval",
        "level": inference.DEFAULT_LEVEL,
        "resamples": resamples,
        "seed": seed,
        "cases": len(scored),
        "recall": cast("IntervalEntry", recall.to_dict()),
        "precision": cast("IntervalEntry", precision.to_dict()),
        "threshold": threshold,
        "recall_margin": round(recall.mean - threshold, 6),
        "recall_verdict": inference.noise_verdict(recall, threshold),
    }


def recall_by_case_kind(records: Iterable["CaseRecord"]) -> dict[str, CaseKindRecall]:
    """Mean recall per case kind over the obtained cases, with how many cases; lowest recall first."""
    grouped: dict[str, list[float]] = {}
    for r in records:
        if r.obtained:
            grouped.setdefault(r.kind or "-", []).append(r.recall)
    rows: dict[str, CaseKindRecall] = {kind: {"cases": len(v), "mean_recall": round(sum(v) / len(v), 6)} for kind, v in grouped.items()}
    return dict(sorted(rows.items(), key=lambda kv: (kv[1]["mean_recall"], kv[0])))


def recall_by_finding_kind(records: Iterable["CaseRecord"]) -> dict[str, FindingKindRecall]:
    """Per finding kind, must_find ids found over ids expected, counted per scored answer; lowest first.

    Only answers that were scored (status ok): an unparseable answer misses
    everything and says nothing about which findings the prompt overlooks.
    """
    counts: dict[str, list[int]] = {}
    for r in records:
        for s in r.scores:
            if s.status != "ok":
                continue
            for i in s.matched_ids:
                counts.setdefault(split_id(i)[0], [0, 0])[0] += 1
            for i in s.missed_ids:
                counts.setdefault(split_id(i)[0], [0, 0])
            for i in (*s.matched_ids, *s.missed_ids):
                counts[split_id(i)[0]][1] += 1
    rows: dict[str, FindingKindRecall] = {kind: {"found": f, "expected": n, "recall": round(f / n, 6)} for kind, (f, n) in counts.items()}
    return dict(sorted(rows.items(), key=lambda kv: (kv[1]["recall"], kv[0])))


def run_statistics(records: list["CaseRecord"], thresholds: Thresholds) -> RunStatistics:
    return {
        "consistency": consistency(records),
        "uncertainty": uncertainty(records, thresholds["min_mean_recall"]),
        "recall_by_case_kind": recall_by_case_kind(records),
        "recall_by_finding_kind": recall_by_finding_kind(records),
    }


# --------------------------------------------------------------------------
# Summary lines
# --------------------------------------------------------------------------


def interval_text(entry: IntervalEntry) -> str:
    return f"{entry['low']:.3f}–{entry['high']:.3f}"


def uncertainty_lines(manifest: Manifest, which: Literal["recall", "precision"]) -> list[str]:
    """The interval line under mean recall (with the margin and noise verdict) or mean precision."""
    u = manifest.get("uncertainty")
    if not u:
        return []
    entry = u[which]
    level = f"{u['level'] * 100:g}%"
    line = f"  {level} CI {interval_text(entry)} (task-level bootstrap, {u['cases']} cases, {u['resamples']:,} resamples)"
    if which != "recall":
        return [line]
    return [f"{line}, margin to {u['threshold']:.2f} {u['recall_margin']:+.3f}",
            f"  recall {entry['mean']:.2f}, {level} CI {entry['low']:.2f}–{entry['high']:.2f}: {u['recall_verdict']}"]


def consistency_lines(manifest: Manifest) -> list[str]:
    c = manifest.get("consistency")
    if not c or c["repeats"] < 2:
        return []
    k = c["repeats"]
    flipping = c["flipping_cases"]
    lines = [f"repeats         {k} per case: pass^{k} {c['pass_all']} of {c['cases']} cases, "
             f"pass@{k} {c['pass_any']}, {len(flipping)} flip"]
    if flipping:
        lines.append("  flipping: " + ", ".join(f"{f['case_id']} (passed {f['passed']} of {f['runs']})" for f in flipping))
    sometimes = c["sometimes_found"]
    if sometimes:
        lines.append(f"  found only sometimes ({len(sometimes)} id(s); ids no repeat found are under missed ids):")
        for s in sometimes[:SOMETIMES_SHOWN]:
            lines.append(f"    {s['case_id']}: {s['id']} found {s['found']} of {s['runs']} times")
        if len(sometimes) > SOMETIMES_SHOWN:
            lines.append(f"    ... and {len(sometimes) - SOMETIMES_SHOWN} more (the CSV's found_in column)")
    return lines


def _packed(items: list[str], width: int = 100, indent: str = "  ") -> list[str]:
    """Comma-separated items on as few lines as fit ``width``, never splitting an item."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(item) + 2 <= width:
            lines[-1] += f", {item}"
        else:
            if lines:
                lines[-1] += ","
            lines.append(indent + item)
    return lines


def by_kind_lines(manifest: Manifest) -> list[str]:
    lines = []
    case_kinds = manifest.get("recall_by_case_kind") or {}
    if case_kinds:
        lines.append("recall by case kind, lowest first (mean recall, cases):")
        lines += _packed([f"{k} {v['mean_recall']:.2f} ({v['cases']})" for k, v in case_kinds.items()])
    finding_kinds = manifest.get("recall_by_finding_kind") or {}
    if finding_kinds:
        lines.append("recall by finding kind, lowest first (found / expected over scored answers):")
        lines += _packed([f"{k} {v['recall']:.2f} ({v['found']}/{v['expected']})" for k, v in finding_kinds.items()])
    return lines
