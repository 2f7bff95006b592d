"""Stored runs: listing, loading, re-scoring and comparing them, without any backend call.

Headless functions for the app's review screens (and for tests):

- ``list_runs(results_dir)``: one ``RunInfo`` per ``<results>/<version>/manifest.json``, and per run of
  the reference auditor and of replays in their own folders (``identity.py``), newest first;
- ``load_run(run_dir)``: the manifest and every case record;
- ``rescore_run(run_dir, case_set)``: score the stored outputs again against the
  (edited) case set, rewrite the case files, the CSV and the manifest, and say
  what changed per case;
- ``compare_runs(a, b)``: per case, recall and precision deltas, ids newly
  missed and newly found, fabrications added and removed (``compare.py``
  adds the paired statistics on top).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, cast

from ..caseset.cases import CaseSet
from .identity import REFERENCE_DIR, REPLAY_DIR, role_label, role_of
from .result_files import MANIFEST_FILE, ResultsError, RunPaths, now_iso
from .gate import exit_code
from .manifest import build_manifest, read_manifest, write_manifest
from .json_types import type_problem
from .manifest_fields import GateVerdict, Manifest, RunStatus, Summary
from .case_records import CaseRecord, read_case_record, score_record, write_case_record, write_csv
from .run_folder import RunFolder


@dataclass(frozen=True)
class RunInfo:
    """One line of the run list."""

    run_dir: Path
    prompt_version: str
    prompt_sha256: str | None
    backend: str | None
    model: str | None
    date: str | None  # finished_at, or started_at for a run that never finished
    case_set_hash: str | None
    status: str | None
    passed: bool | None  # the gate verdict; None when incomplete
    mean_recall: float | None
    mean_precision: float | None
    fabrications: int | None
    cases: int | None
    role: str = "assistant"  # identity.ASSISTANT, REFERENCE or REPLAY
    role_label: str = ""


@dataclass
class Run:
    paths: RunPaths
    manifest: Manifest
    records: dict[str, CaseRecord]
    note: str | None = None  # what a caller should hear about it (a resume that found nothing to run)

    @property
    def run_dir(self) -> Path:
        return self.paths.run_dir

    @property
    def info(self) -> RunInfo:
        return run_info(self.paths.run_dir, self.manifest)

    @property
    def exit_code(self) -> int:
        """What ``reviewtui eval`` exits with for this run: 0 passed, 1 failed, 3 incomplete."""
        return exit_code(self.manifest)


def run_info(run_dir: Path, manifest: Manifest) -> RunInfo:
    summary = manifest.get("summary") or {}
    return RunInfo(
        run_dir=run_dir,
        prompt_version=str(manifest.get("prompt_version") or run_dir.name),
        prompt_sha256=manifest.get("prompt_sha256"),
        backend=manifest.get("backend"),
        model=manifest.get("model"),
        date=manifest.get("finished_at") or manifest.get("started_at"),
        case_set_hash=manifest.get("case_set_hash"),
        status=manifest.get("status"),
        passed=gate["passed"] if (gate := manifest.get("gate")) else None,
        mean_recall=summary.get("mean_recall"),
        mean_precision=summary.get("mean_precision"),
        fabrications=summary.get("fabrications"),
        cases=summary.get("cases"),
        role=role_of(manifest),
        role_label=role_label(manifest),
    )


def run_key(info: RunInfo, results_dir: str | Path) -> str:
    """The run's folder relative to the results folder: ``audit-v3``, ``reference/audit-v3``."""
    return run_folder(info.run_dir, results_dir)


def run_folder(run_dir: str | Path, results_dir: str | Path) -> str:
    """What tells two runs of one prompt version apart: the folder under the results folder
    (``audit-v3``, ``reference/audit-v3``, ``replay/outputs/audit-v3``)."""
    try:
        return Path(run_dir).relative_to(results_dir).as_posix()
    except ValueError:
        return Path(run_dir).name


class ListedRun(TypedDict):
    """What a listed run's manifest holds besides ``Manifest``'s optional fields: a run's folder takes its place
    under the results folder only when the run ends, with its status, summary and gate verdict, so a manifest
    without one of them was edited by hand and would be listed with "–" or "no verdict"."""

    status: RunStatus
    summary: Summary
    gate: GateVerdict


def list_runs(results_dir: str | Path, problems: list[str] | None = None) -> list[RunInfo]:
    """Every run under ``results_dir``, newest first.

    A folder whose manifest cannot be read (or has the wrong shape, or lacks a field ``ListedRun`` names) is
    left out; ``problems``, when given, gets one message per folder left out.
    """
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        return []
    runs = []
    places = (f"*/{MANIFEST_FILE}", f"{REFERENCE_DIR}/*/{MANIFEST_FILE}", f"{REPLAY_DIR}/*/*/{MANIFEST_FILE}")
    for manifest_path in (path for pattern in places for path in results_dir.glob(pattern)):
        if manifest_path.parent.name.startswith("."):
            continue  # .cache and other tool folders
        try:
            manifest = read_manifest(manifest_path)
        except ResultsError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        missing = type_problem(manifest, ListedRun)
        if missing is not None:
            if problems is not None:
                problems.append(f"{manifest_path}:1: the run manifest has the wrong shape: {missing}; "
                                "move the folder away and rerun")
            continue
        runs.append(run_info(manifest_path.parent, manifest))
    return sorted(runs, key=lambda r: (r.date or "", r.prompt_version), reverse=True)


def load_run(run_dir: str | Path) -> Run:
    """The manifest and every case record of a run. Raises ResultsError naming a bad file."""
    paths = RunPaths.of_run_dir(run_dir)
    manifest = read_manifest(paths.manifest)
    records = {}
    for path in sorted(paths.cases_dir.glob("*.json")):
        record = read_case_record(path)
        records[record.case_id] = record
    return Run(paths, manifest, records)


# --------------------------------------------------------------------------
# What changed for one case
# --------------------------------------------------------------------------


@dataclass
class CaseDiff:
    case_id: str
    status_before: str | None
    status_after: str | None
    recall_before: float | None
    recall_after: float | None
    precision_before: float | None
    precision_after: float | None
    newly_missed: list[str] = field(default_factory=list)
    newly_found: list[str] = field(default_factory=list)
    # must_find ids of the before run's case set that the after run's no longer has (moved to may_find,
    # deleted): neither missed nor found any more, and not "newly found" either
    no_longer_must_find: list[str] = field(default_factory=list)
    fabrications_added: list[str] = field(default_factory=list)
    fabrications_removed: list[str] = field(default_factory=list)
    note: str | None = None  # e.g. only in one run, or not in the case set

    @property
    def recall_delta(self) -> float | None:
        return _delta(self.recall_before, self.recall_after)

    @property
    def precision_delta(self) -> float | None:
        return _delta(self.precision_before, self.precision_after)

    @property
    def changed(self) -> bool:
        return bool(
            self.status_before != self.status_after
            or self.recall_delta or self.precision_delta
            or self.newly_missed or self.newly_found or self.no_longer_must_find
            or self.fabrications_added or self.fabrications_removed
            or self.note
        )


def _delta(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return round(after - before, 6)


def _fabrication_labels(record: CaseRecord) -> list[str]:
    """Fabrications as comparable labels (where in the output they sit does not matter)."""
    labels = []
    for score in record.scores:
        labels += [f'figure "{f.get("text")}"' for f in score.fabricated_figures]
        labels += [f'must_not_say {h.get("entry_id")} ({h.get("by")})' for h in score.must_not_say_hits]
    return labels


def _multiset_minus(a: list[str], b: list[str]) -> list[str]:
    return list((Counter(a) - Counter(b)).elements())


def _found_ids(record: CaseRecord) -> set[str]:
    """The must_find ids found in every repeat."""
    return set(record.must_find_ids) - set(record.missed_ids)


def diff_records(case_id: str, before: CaseRecord | None, after: CaseRecord | None, note: str | None = None) -> CaseDiff:
    missed_before = set(before.missed_ids) if before else set()
    missed_after = set(after.missed_ids) if after else set()
    found_before = _found_ids(before) if before else set()
    found_after = _found_ids(after) if after else set()
    fab_before = _fabrication_labels(before) if before else []
    fab_after = _fabrication_labels(after) if after else []
    both = before is not None and after is not None
    return CaseDiff(
        case_id=case_id,
        status_before=before.status if before else None,
        status_after=after.status if after else None,
        recall_before=before.recall if before else None,
        recall_after=after.recall if after else None,
        precision_before=before.precision if before else None,
        precision_after=after.precision if after else None,
        newly_missed=sorted(missed_after - missed_before) if both else [],
        newly_found=sorted(found_after - found_before) if both else [],
        no_longer_must_find=(sorted(set(before.must_find_ids) - set(after.must_find_ids))
                             if before is not None and after is not None else []),
        fabrications_added=_multiset_minus(fab_after, fab_before),
        fabrications_removed=_multiset_minus(fab_before, fab_after),
        note=note,
    )


# --------------------------------------------------------------------------
# Re-scoring and comparing
# --------------------------------------------------------------------------


def rescore_run(run_dir: str | Path, case_set: CaseSet, *, figures: str | None = None) -> list[CaseDiff]:
    """Score the stored outputs again against ``case_set``; rewrite the run's files.

    No backend is called. Cases of the run that the case set no longer has
    are kept as stored (and reported); cases not in the run stay absent.
    The new files are written beside the run and swapped in whole, under the
    run's lock (``run_folder.RunFolder``), as a run writes them: a re-score
    killed midway leaves the run as it was. Returns one ``CaseDiff`` per case
    of the run, changed or not.
    """
    folder = RunFolder(RunPaths.of_run_dir(run_dir))
    folder.acquire()
    try:
        run = load_run(run_dir)
        folder.start()
        diffs = _rescore_into(run, case_set, folder.work, figures)
        folder.swap_in()
    finally:
        folder.release()
    return diffs


def _rescore_into(run: Run, case_set: CaseSet, work: RunPaths, figures: str | None) -> list[CaseDiff]:
    figures = figures or run.manifest.get("figures") or "derived"
    by_id = {c.case_id: c for c in case_set.cases}
    diffs = []
    new_records: dict[str, CaseRecord] = {}
    for case_id, old in sorted(run.records.items()):
        case = by_id.get(case_id)
        if case is None:
            new_records[case_id] = old
            diffs.append(diff_records(case_id, old, old, note="not in the case set any more: kept as stored"))
        else:
            new_records[case_id] = score_record(case, old.outputs, figures=figures)
            diffs.append(diff_records(case_id, old, new_records[case_id]))
        write_case_record(work, new_records[case_id])

    header = cast(Manifest, {k: v for k, v in run.manifest.items()
                             if k not in ("finished_at", "status", "summary", "gate", "missed_by_kind", "miss_pattern", "usage",
                                          "case_ids")})
    header.update({"figures": figures, "case_set_hash": case_set.digest(), "cases_dir": str(case_set.root),
                   "rescored_at": now_iso()})
    status = run.manifest.get("status") or "incomplete"
    summary = run.manifest.get("summary") or {}
    not_run = list(summary.get("not_run_cases") or [])
    manifest = build_manifest(header, list(new_records.values()), status=status, not_run=not_run,
                              usage=run.manifest.get("usage") or {}, cases_total=summary.get("cases") or len(new_records))
    manifest["finished_at"] = run.manifest.get("finished_at")  # when the outputs were obtained
    write_csv(work, new_records.values())
    write_manifest(work, manifest)
    return diffs


@dataclass
class RunComparison:
    before: RunInfo
    after: RunInfo
    cases: list[CaseDiff]

    @property
    def changed(self) -> list[CaseDiff]:
        return [d for d in self.cases if d.changed]

    @property
    def mean_recall_delta(self) -> float | None:
        return _delta(self.before.mean_recall, self.after.mean_recall)

    @property
    def mean_precision_delta(self) -> float | None:
        return _delta(self.before.mean_precision, self.after.mean_precision)


def compare_runs(a: str | Path | Run, b: str | Path | Run) -> RunComparison:
    """How run ``b`` differs from run ``a``, case by case (a case in one run only gets a note)."""
    run_a = a if isinstance(a, Run) else load_run(a)
    run_b = b if isinstance(b, Run) else load_run(b)
    diffs = []
    for case_id in sorted(set(run_a.records) | set(run_b.records)):
        before, after = run_a.records.get(case_id), run_b.records.get(case_id)
        note = None
        if before is None:
            note = f"only in {run_b.paths.version}"
        elif after is None:
            note = f"only in {run_a.paths.version}"
        diffs.append(diff_records(case_id, before, after, note))
    return RunComparison(run_a.info, run_b.info, diffs)


def format_comparison(comparison: RunComparison) -> str:
    """A few lines per changed case, for a terminal."""
    a, b = comparison.before, comparison.after
    lines = [f"{a.prompt_version} -> {b.prompt_version}: mean recall {_signed(comparison.mean_recall_delta)}, "
             f"mean precision {_signed(comparison.mean_precision_delta)}, "
             f"fabrications {a.fabrications} -> {b.fabrications}"]
    return "\n".join(lines + case_change_lines(comparison)) + "\n"


def case_change_lines(comparison: RunComparison) -> list[str]:
    """A line per changed case with its deltas, then one per kind of change it has."""
    lines: list[str] = []
    for d in comparison.changed:
        parts = [f"recall {_signed(d.recall_delta)}", f"precision {_signed(d.precision_delta)}"]
        if d.status_before != d.status_after:
            parts.append(f"status {d.status_before or 'n/a'} -> {d.status_after or 'n/a'}")
        lines.append(f"  {d.case_id}: " + ", ".join(parts) + (f" ({d.note})" if d.note else ""))
        for label, items in (("newly missed", d.newly_missed), ("newly found", d.newly_found),
                             ("no longer must_find", d.no_longer_must_find),
                             ("fabrications added", d.fabrications_added),
                             ("fabrications removed", d.fabrications_removed)):
            if items:
                lines.append(f"    {label}: {', '.join(items)}")
    return lines


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"
