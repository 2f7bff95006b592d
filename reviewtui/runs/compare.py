"""How run B differs from run A on the same cases, and whether it is real (``reviewtui compare A B``).

A and B are run folders (``results/<version>/``, the full case files) or
results CSVs (``results/<version>.csv``, what CI keeps). ``paired_comparison``
is the headless core the app's compare view uses too:

- per case (``stored_runs.compare_runs``): recall and precision deltas, ids newly
  missed and newly found, fabrications added and removed;
- over the cases answered in both runs (the pairs): the mean recall and
  precision delta with a paired bootstrap interval; an exact two-sided sign
  test on the cases whose pass/fail verdict differs; per finding kind an exact
  McNemar test on found/missed, with Benjamini–Hochberg adjusted p-values;
- cases present in one run only, or not answered in one, are listed (and
  left out of the paired figures), never dropped silently.

A regression (``--fail-on-regression`` exits 1 on it): the 95% interval of
the mean recall delta lies wholly below zero, or B has a fabrication that A
did not.
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import inference
from .result_files import ResultsError, RunPaths
from .identity import REFERENCE_DIR, REPLAY_DIR
from .gate import summarize
from .manifest_fields import Manifest
from .case_records import CSV_FIRST_COLUMNS, CaseRecord
from .stored_runs import Run, RunComparison, case_change_lines, compare_runs, load_run
from ..scoring.score import STATUSES, CaseScore
from ..taxonomy import split_id



# --------------------------------------------------------------------------
# Loading either kind of input
# --------------------------------------------------------------------------


def _split(text: str | None) -> list[str]:
    return [part for part in (text or "").split(";") if part]


def _csv_number(path: Path, line: int, column: str, text: str | None) -> float:
    try:
        return float(text or "")
    except ValueError:
        raise ResultsError(f"{path}:{line}: column {column} is {text!r}, not a number; "
                           "regenerate the CSV with `reviewtui eval` or compare the run folder") from None


def _record_from_csv_row(path: Path, line: int, row: dict[str, str]) -> CaseRecord:
    """A case as its CSV row tells it: one aggregate score (means, sums and the union of missed ids).

    Its pass/fail verdict is the same as the full record's: a case passes in
    every repeat exactly when it missed no id in any, fabricated nothing and
    every answer parsed.
    """
    case_id = (row.get("case_id") or "").strip()
    if not case_id:
        raise ResultsError(f"{path}:{line}: empty case_id; every row needs one")
    status = row.get("status") or "ok"
    if status not in STATUSES:
        raise ResultsError(f"{path}:{line}: status {status!r} is not one of {', '.join(STATUSES)}")
    missed = _split(row.get("missed_ids"))
    found_in = [part.rsplit("=", 1)[0] for part in _split(row.get("found_in"))]
    hits = []
    for hit in _split(row.get("must_not_say_hits")):
        entry_id, _, by = hit.partition(" (")
        hits.append({"entry_id": entry_id, "by": by.rstrip(")")})
    score = CaseScore(
        case_id=case_id, status=status,
        recall=_csv_number(path, line, "recall", row.get("recall")),
        precision=_csv_number(path, line, "precision", row.get("precision")),
        fabrication=int(_csv_number(path, line, "fabrication", row.get("fabrication"))),
        missed_ids=missed, matched_ids=[i for i in found_in if i not in missed],
        fabricated_figures=[{"text": t} for t in _split(row.get("fabricated_figures"))],
        must_not_say_hits=hits, error=row.get("error") or None,
    )
    return CaseRecord(case_id, row.get("kind") or "", [], [score])


def load_csv_run(path: str | Path) -> Run:
    """A run from its results CSV alone. Raises ResultsError naming the file and line."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = list(reader.fieldnames or [])
            if header[:len(CSV_FIRST_COLUMNS)] != list(CSV_FIRST_COLUMNS):
                raise ResultsError(f"{path}:1: not a results CSV: the first columns must be "
                                   f"{','.join(CSV_FIRST_COLUMNS)} (found {','.join(header[:5]) or 'nothing'})")
            records: dict[str, CaseRecord] = {}
            for row in reader:
                record = _record_from_csv_row(path, reader.line_num, row)
                if record.case_id in records:
                    raise ResultsError(f"{path}:{reader.line_num}: case {record.case_id} appears twice")
                records[record.case_id] = record
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such results CSV") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: cannot read the results CSV ({exc})") from None
    manifest: Manifest = {"prompt_version": path.stem, "status": "complete", "source": str(path),
                "summary": summarize(list(records.values()), cases_total=len(records), not_run=[])}
    return Run(RunPaths(path.parent, path.stem), manifest, records)


def _other_roles_runs(results_dir: Path, version: Path) -> list[Path]:
    """The folders of a bare version's runs one level down (identity.py): the reference auditor's and replays'."""
    if len(version.parts) != 1:
        return []
    found = [results_dir / REFERENCE_DIR / version]
    found += sorted(replay / version for replay in (results_dir / REPLAY_DIR).glob("*"))
    return [p for p in found if p.is_dir()]


def load_any(where: str | Path, results_dir: str | Path | None = None) -> Run:
    """A run folder, a results CSV, or (with ``results_dir``) a prompt version's folder under it."""
    path = Path(where)
    if not path.exists() and results_dir is not None and (Path(results_dir) / path).exists():
        path = Path(results_dir) / path
    if path.is_dir():
        return load_run(path)
    if path.suffix.lower() == ".csv":
        return load_csv_run(path)
    if not path.exists():
        others = _other_roles_runs(Path(results_dir), path) if results_dir is not None else []
        elsewhere = (f"; the runs of that version are the reference auditor's or a replay's, in "
                     f"{', '.join(str(p) for p in others)}: give one of those" if others else "")
        raise ResultsError(f"{where}: no run folder or results CSV there; give results/<version>/ "
                           f"or results/<version>.csv{elsewhere}")
    raise ResultsError(f"{where}: not a run folder or a .csv file")


# --------------------------------------------------------------------------
# The paired figures
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class KindTest:
    """Exact McNemar on one finding kind: its must_find ids in the paired cases, found or missed in each run."""

    kind: str
    pairs: int  # ids of this kind in the paired cases
    lost: int  # found in A, missed in B
    gained: int  # missed in A, found in B
    p: float
    p_adjusted: float  # Benjamini–Hochberg across the kinds


@dataclass
class PairedComparison:
    comparison: RunComparison
    paired: list[str]  # case ids answered in both runs
    only_in_a: list[str]
    only_in_b: list[str]
    not_answered: list[str]  # in both runs, but not obtained (an API error) in one
    mean_recall_a: float | None
    mean_recall_b: float | None
    mean_precision_a: float | None
    mean_precision_b: float | None
    recall_delta: inference.Interval | None
    precision_delta: inference.Interval | None
    verdict_better: list[str]  # failed in A, pass in B
    verdict_worse: list[str]  # passed in A, fail in B
    sign_p: float
    kinds: list[KindTest]
    resamples: int
    seed: int
    source_a: str = ""  # the folder or CSV each run was read from
    source_b: str = ""
    fabrications_added: int = 0
    fabrications_removed: int = 0
    regression: list[str] = field(default_factory=list)  # reasons; empty when none


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def kind_tests(pairs: list[tuple[CaseRecord, CaseRecord]]) -> list[KindTest]:
    """One exact McNemar test per finding kind over the must_find ids both runs scored, BH-adjusted.

    An id counts as found in a run when no repeat missed it (the id's pass^K).
    Every kind with a pair is in the family, changed or not, so the correction
    is for all the kinds compared.
    """
    counts: dict[str, list[int]] = {}
    for a, b in pairs:
        ids_b = set(b.must_find_ids)
        missed_a, missed_b = set(a.missed_ids), set(b.missed_ids)
        for i in a.must_find_ids:
            if i not in ids_b:
                continue  # expected in one run's case set only
            row = counts.setdefault(split_id(i)[0], [0, 0, 0])
            row[0] += 1
            row[1] += int(i not in missed_a and i in missed_b)
            row[2] += int(i in missed_a and i not in missed_b)
    kinds = sorted(counts)
    p_values = [inference.mcnemar_exact(counts[k][1], counts[k][2]) for k in kinds]
    adjusted = inference.benjamini_hochberg(p_values)
    tests = [KindTest(k, counts[k][0], counts[k][1], counts[k][2], p, q) for k, p, q in zip(kinds, p_values, adjusted)]
    return sorted(tests, key=lambda t: (t.p_adjusted, t.p, t.kind))


def paired_comparison(a: Run, b: Run, *, resamples: int = inference.DEFAULT_RESAMPLES,
                      seed: int = inference.DEFAULT_SEED) -> PairedComparison:
    comparison = compare_runs(a, b)
    both = sorted(set(a.records) & set(b.records))
    paired = [i for i in both if a.records[i].obtained and b.records[i].obtained]
    pairs = [(a.records[i], b.records[i]) for i in paired]
    recall_delta = precision_delta = None
    if pairs:
        recall_delta, precision_delta = inference.bootstrap_means(
            [[rb.recall - ra.recall for ra, rb in pairs], [rb.precision - ra.precision for ra, rb in pairs]],
            resamples=resamples, seed=seed)
    better = [ra.case_id for ra, rb in pairs if not ra.pass_all and rb.pass_all]
    worse = [ra.case_id for ra, rb in pairs if ra.pass_all and not rb.pass_all]
    result = PairedComparison(
        comparison=comparison, paired=paired,
        only_in_a=sorted(set(a.records) - set(b.records)), only_in_b=sorted(set(b.records) - set(a.records)),
        not_answered=[i for i in both if i not in paired],
        mean_recall_a=_mean([ra.recall for ra, _ in pairs]), mean_recall_b=_mean([rb.recall for _, rb in pairs]),
        mean_precision_a=_mean([ra.precision for ra, _ in pairs]),
        mean_precision_b=_mean([rb.precision for _, rb in pairs]),
        recall_delta=recall_delta, precision_delta=precision_delta,
        verdict_better=better, verdict_worse=worse, sign_p=inference.sign_test(len(better), len(worse)),
        kinds=kind_tests(pairs), resamples=resamples, seed=seed,
        source_a=str(a.manifest.get("source") or a.run_dir), source_b=str(b.manifest.get("source") or b.run_dir),
        fabrications_added=sum(len(d.fabrications_added) for d in comparison.cases),
        fabrications_removed=sum(len(d.fabrications_removed) for d in comparison.cases),
    )
    if recall_delta is not None and recall_delta.high < 0:
        result.regression.append(f"mean recall dropped by {-recall_delta.mean:.3f}; the 95% interval "
                                 f"({recall_delta.low:+.3f} to {recall_delta.high:+.3f}) is wholly below zero")
    if result.fabrications_added:
        where = [d.case_id for d in comparison.cases if d.fabrications_added]
        result.regression.append(f"{result.fabrications_added} fabrication(s) in B that A did not have: "
                                 + ", ".join(where))
    return result


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def _p(value: float) -> str:
    return "1" if value >= 1 else f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"


def _ci(interval: inference.Interval) -> str:
    return f"{interval.mean:+.3f}, 95% CI {interval.low:+.3f} to {interval.high:+.3f}"


def interval_line(p: PairedComparison) -> str:
    """One line for a header: the paired recall delta with its interval, the sign test."""
    if p.recall_delta is None:
        return "no case answered in both runs: nothing to pair"
    return (f"paired over {len(p.paired)} cases: recall {_ci(p.recall_delta)}; "
            f"verdicts {len(p.verdict_better)} better, {len(p.verdict_worse)} worse, sign test p = {_p(p.sign_p)}")


def kinds_line(p: PairedComparison) -> str:
    """One line for a header: the McNemar tests that changed anything, smallest adjusted p first."""
    changed = [k for k in p.kinds if k.lost or k.gained]
    if not changed:
        return f"finding kinds: no id changed between found and missed ({len(p.kinds)} kinds compared)"
    shown = ", ".join(f"{k.kind} -{k.lost}/+{k.gained} p(BH) = {_p(k.p_adjusted)}" for k in changed[:3])
    more = f", +{len(changed) - 3} more" if len(changed) > 3 else ""
    return f"finding kinds (McNemar, BH over {len(p.kinds)}): {shown}{more}"


def format_text(p: PairedComparison) -> str:
    a, b = p.comparison.before, p.comparison.after
    lines = [f"compare {a.prompt_version} ({p.source_a}) -> {b.prompt_version} ({p.source_b})"]
    if a.case_set_hash != b.case_set_hash and a.case_set_hash and b.case_set_hash:
        lines.append("note: the runs were scored against different case sets; re-score the older run to compare like with like")
    lines.append(f"paired cases    {len(p.paired)} (answered in both runs)")
    if p.recall_delta is not None and p.precision_delta is not None:
        how = f"(paired bootstrap, {p.resamples:,} resamples)"
        lines.append(f"mean recall     {p.mean_recall_a:.3f} -> {p.mean_recall_b:.3f}   {_ci(p.recall_delta)} {how}")
        lines.append(f"mean precision  {p.mean_precision_a:.3f} -> {p.mean_precision_b:.3f}   {_ci(p.precision_delta)}")
    lines.append(f"verdicts        {len(p.verdict_better)} case(s) pass only in B, {len(p.verdict_worse)} only in A: "
                 f"exact sign test p = {_p(p.sign_p)}")
    for label, ids in (("  now pass", p.verdict_better), ("  now fail", p.verdict_worse)):
        if ids:
            lines.append(f"{label}: {', '.join(ids)}")
    lines.append(f"fabrications    {p.fabrications_added} added, {p.fabrications_removed} removed")
    changed = [k for k in p.kinds if k.lost or k.gained]
    lines.append(f"finding kinds   {len(p.kinds)} compared (exact McNemar on each id found or missed, "
                 f"Benjamini–Hochberg across the kinds); {len(changed)} changed" + (":" if changed else ""))
    if changed:
        width = max(len(k.kind) for k in changed)
        lines.append(f"  {'kind':<{width}}  pairs  lost  gained  p       p (BH)")
        for k in changed:
            lines.append(f"  {k.kind:<{width}}  {k.pairs:>5}  {k.lost:>4}  {k.gained:>6}  {_p(k.p):<7} {_p(k.p_adjusted)}")
    for label, ids in ((f"only in {a.prompt_version}", p.only_in_a), (f"only in {b.prompt_version}", p.only_in_b),
                       ("not answered in one run (left out of the paired figures)", p.not_answered)):
        if ids:
            lines.append(f"{label}: {', '.join(ids)}")
    case_lines = case_change_lines(p.comparison)
    lines.append(f"cases that changed: {len(p.comparison.changed)} of {len(p.comparison.cases)}")
    lines += case_lines
    lines.append("regression      " + ("none" if not p.regression else "YES"))
    lines += [f"  - {reason}" for reason in p.regression]
    return "\n".join(lines) + "\n"


def to_json(p: PairedComparison) -> dict[str, Any]:
    a, b = p.comparison.before, p.comparison.after

    def run(info: Any, source: str) -> dict[str, Any]:
        return {"prompt_version": info.prompt_version, "path": source, "backend": info.backend,
                "model": info.model, "case_set_hash": info.case_set_hash, "mean_recall": info.mean_recall,
                "mean_precision": info.mean_precision, "fabrications": info.fabrications}

    return {
        "a": run(a, p.source_a), "b": run(b, p.source_b),
        "same_case_set": a.case_set_hash == b.case_set_hash if a.case_set_hash and b.case_set_hash else None,
        "paired_cases": p.paired, "only_in_a": p.only_in_a, "only_in_b": p.only_in_b, "not_answered": p.not_answered,
        "bootstrap": {"resamples": p.resamples, "seed": p.seed, "level": inference.DEFAULT_LEVEL},
        "recall": {"mean_a": p.mean_recall_a, "mean_b": p.mean_recall_b,
                   "delta": p.recall_delta.to_dict() if p.recall_delta else None},
        "precision": {"mean_a": p.mean_precision_a, "mean_b": p.mean_precision_b,
                      "delta": p.precision_delta.to_dict() if p.precision_delta else None},
        "sign_test": {"better": p.verdict_better, "worse": p.verdict_worse, "p": p.sign_p},
        "finding_kinds": [asdict(k) for k in p.kinds],
        "fabrications": {"added": p.fabrications_added, "removed": p.fabrications_removed},
        "cases": [{**asdict(d), "recall_delta": d.recall_delta,
                   "precision_delta": d.precision_delta, "changed": d.changed} for d in p.comparison.cases],
        "regression": {"found": bool(p.regression), "reasons": p.regression},
    }
