"""Result files, the gate and the summary of an eval run.

Layout (docs/internals.md), for a results folder R and prompt version V:

- ``R/V.csv``: one row per case, first columns exactly
  ``case_id,recall,precision,fabrication,missed_ids`` (``missed_ids`` joined
  by ``;``), then ``CSV_EXTRA_COLUMNS``;
- ``R/V/manifest.json``: what ran (prompt version and hash, backend, model,
  case-set hash, thresholds), how it went (status, summary, gate verdict and
  reasons, missed ids by kind, token usage and cost);
- ``R/V/cases/<case_id>.json``: the raw output and the score details.

Each case file is written as soon as the case finishes, so an interrupted
run keeps what finished; the CSV and the manifest are written atomically at
the end (``RunRecorder.finish``). The summary text is a pure function of the
manifest, so a stored run prints the same summary it printed when it ran.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from statistics import fmean
from typing import Any, Callable, Iterable

from .atomic import atomic_write_text
from .backends.base import CaseOutput
from .cases import CASE_ID_RE, Case
from .identity import ASSISTANT, role_label, role_of
from .run_stats import by_kind_lines, consistency_lines, run_statistics, uncertainty_lines
from .runner import Progress, redact_secrets
from .scoring import CaseScore, score_case
from .throttle import backoff_sentence
from .untrusted import BadInput, LimitError, Limits, Optional_, Required, load_json, read_bytes_limited, shape_problem

THRESHOLDS = {"min_mean_recall": 0.90, "max_fabrications": 0, "max_unparseable": 0}
CSV_FIRST_COLUMNS = ("case_id", "recall", "precision", "fabrication", "missed_ids")
CSV_EXTRA_COLUMNS = ("kind", "status", "extra_ids", "fabricated_figures", "must_not_say_hits", "error", "runs",
                     "repeats_passed", "pass_all", "pass_any", "flip", "found_in")
CSV_COLUMNS = CSV_FIRST_COLUMNS + CSV_EXTRA_COLUMNS
MANIFEST_FILE = "manifest.json"

# Result files are read back by the app and by re-scoring; they may have been
# edited or crafted, so their shape is checked before any view reads them.
RESULT_LIMITS = Limits("a result file", max_bytes=32 << 20, max_depth=16, max_items=100_000, max_chars=4 << 20)
_TEXT = Optional_(str)
_NUMBER = Optional_(float)
_FINDING_ROW = {k: _TEXT for k in ("id", "scope", "claim", "evidence", "severity", "full_id", "verdict", "matches")}
_FIGURE = {"finding_index": int, "field": _TEXT, "text": _TEXT, "start": Optional_(int), "end": Optional_(int),
           "value": _NUMBER, "unit": _TEXT, "decimals": Optional_(int), "grounded": Optional_(bool),
           "reason": _TEXT, "rows": Optional_(list), "row_count": Optional_(int)}
_HIT = {"finding_index": int, "entry_id": _TEXT, "by": _TEXT, "pattern": _TEXT}
OUTPUT_SHAPE = {"case_id": _TEXT, "raw_text": _TEXT, "error": _TEXT, "input_tokens": Optional_(int),
                "output_tokens": Optional_(int), "stop_reason": _TEXT, "cached": Optional_(bool), "model": _TEXT}
SCORE_SHAPE = {"case_id": _TEXT, "status": Required(str), "recall": Required(float), "precision": Required(float),
               "fabrication": Required(int), "missed_ids": [str], "matched_ids": [str], "extra_ids": [str],
               "findings": [_FINDING_ROW], "figures": [_FIGURE], "fabricated_figures": [_FIGURE],
               "must_not_say_hits": [_HIT], "parse_error": _TEXT, "error": _TEXT}
CASE_RECORD_SHAPE = {"case_id": Required(str), "kind": _TEXT, "output": Optional_(OUTPUT_SHAPE),
                     "score": Optional_(SCORE_SHAPE),
                     "repeats": Optional_([{"output": Required(OUTPUT_SHAPE), "score": Required(SCORE_SHAPE)}])}
_SUMMARY = {"cases": Optional_(int), "scored": Optional_(int), "mean_recall": _NUMBER, "mean_precision": _NUMBER,
            "fabrications": Optional_(int), "unparseable": Optional_(int), "errors": Optional_(int),
            "not_run": Optional_(int), "not_run_cases": Optional_([str]),
            "fabrication_cases": Optional_([{"case_id": Required(str), "fabrication": Optional_(int),
                                             "items": Optional_([str])}]),
            **{k: Optional_([{"case_id": Required(str), "reason": _TEXT}]) for k in ("unparseable_cases", "error_cases")}}
MANIFEST_SHAPE = {
    **{k: _TEXT for k in ("prompt_version", "prompt_sha256", "backend", "model", "cases_dir", "case_set_hash",
                          "figures", "started_at", "finished_at", "status", "rescored_at")},
    "backend_details": Optional_(dict), "thresholds": Optional_({"min_mean_recall": _NUMBER,
                                                                  "max_fabrications": _NUMBER}),
    "concurrency": Optional_(int), "repeats": Optional_(int), "summary": Optional_(_SUMMARY),
    "gate": Optional_({"passed": Optional_(bool), "reasons": Optional_([str])}),
    "missed_by_kind": Optional_(dict), "miss_pattern": Optional_(dict), "case_ids": Optional_([str]),
    "usage": Optional_({k: _NUMBER for k in ("input_tokens", "output_tokens", "cost_usd", "cached")}),
}


def read_result_json(path: Path, shape: dict[str, Any], what: str, fix: str) -> dict[str, Any]:
    """A result file within the limits and of ``shape``; ResultsError naming the file, the place and ``fix``."""
    try:
        text = read_bytes_limited(path, RESULT_LIMITS).decode("utf-8")
        data = load_json(text, RESULT_LIMITS)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, LimitError) as exc:
        raise ResultsError(f"{path}: cannot read {what} ({exc}); {fix}") from None
    except BadInput as exc:
        raise ResultsError(f"{path}:{exc.line}: {what} is not valid JSON ({exc.message}); {fix}") from None
    problem = shape_problem(data, shape)
    if problem:
        raise ResultsError(f"{path}:1: {what} has the wrong shape: {problem}; {fix}")
    return data
WORST_CASES_SHOWN = 5
ITEMS_SHOWN_PER_CASE = 5


class ResultsError(Exception):
    """A results folder that cannot be used as asked (exit 2); the message says what to do."""


class PromptChangedError(ResultsError):
    """Results of this prompt version exist, made with other prompt text."""


def now_iso() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# Where things go
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RunPaths:
    results_dir: Path
    version: str

    @classmethod
    def of_run_dir(cls, run_dir: str | Path) -> "RunPaths":
        run_dir = Path(run_dir)
        return cls(run_dir.parent, run_dir.name)

    @property
    def run_dir(self) -> Path:
        return self.results_dir / self.version

    @property
    def csv(self) -> Path:
        return self.results_dir / f"{self.version}.csv"

    @property
    def manifest(self) -> Path:
        return self.run_dir / MANIFEST_FILE

    @property
    def cases_dir(self) -> Path:
        return self.run_dir / "cases"

    def case_file(self, case_id: str) -> Path:
        return self.cases_dir / f"{case_id}.json"


def read_manifest(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        return read_result_json(path, MANIFEST_SHAPE, "the run manifest", "move the folder away and rerun")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no run manifest here; run `reviewtui eval` first") from None


def check_prompt_guard(paths: RunPaths, prompt_sha256: str) -> dict[str, Any] | None:
    """Refuse to overwrite results of this prompt version made with other prompt text.

    Returns the existing manifest (None when there is none).
    """
    if not paths.manifest.exists():
        return None
    old = read_manifest(paths.manifest)
    old_sha = old.get("prompt_sha256")
    if old_sha != prompt_sha256:
        raise PromptChangedError(
            f"{paths.manifest}: results of prompt version {paths.version!r} already exist, made with other "
            f"prompt text (sha256 {str(old_sha)[:12]}, now {prompt_sha256[:12]}); bump PROMPT_VERSION in "
            f"reviewtui/assistant.py so each prompt text gets its own results"
        )
    return old


# --------------------------------------------------------------------------
# One case's record: its output(s) and score(s)
# --------------------------------------------------------------------------


def output_from_dict(data: dict[str, Any]) -> CaseOutput:
    known = {f.name for f in fields(CaseOutput)}
    return CaseOutput(**{k: v for k, v in data.items() if k in known})


def _union(lists: Iterable[list[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return list(seen)


@dataclass
class CaseRecord:
    """A case's outputs and scores, one per repeat, and their aggregate for the CSV.

    With repeats: recall and precision are means, fabrication a sum, and
    ``missed_ids`` the ids missed in at least one repeat.
    """

    case_id: str
    kind: str
    outputs: list[CaseOutput] = field(default_factory=list)
    scores: list[CaseScore] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.scores)

    @property
    def status(self) -> str:
        statuses = {s.status for s in self.scores}
        for status in ("error", "unparseable"):
            if status in statuses:
                return status
        return "ok"

    @property
    def obtained(self) -> bool:
        return self.status != "error"

    @property
    def recall(self) -> float:
        return fmean(s.recall for s in self.scores) if self.scores else 0.0

    @property
    def precision(self) -> float:
        return fmean(s.precision for s in self.scores) if self.scores else 0.0

    @property
    def fabrication(self) -> int:
        return sum(s.fabrication for s in self.scores)

    @property
    def missed_ids(self) -> list[str]:
        return _union(s.missed_ids for s in self.scores)

    @property
    def extra_ids(self) -> list[str]:
        return _union(s.extra_ids for s in self.scores)

    @property
    def must_find_ids(self) -> list[str]:
        """Every must_find id of the case, as its scores saw them (found or missed)."""
        return _union([*s.matched_ids, *s.missed_ids] for s in self.scores)

    @property
    def repeats_passed(self) -> int:
        """Repeats that passed: answer scored, every must_find id found, no fabrication."""
        return sum(1 for s in self.scores if s.status == "ok" and not s.missed_ids and not s.fabrication)

    @property
    def pass_all(self) -> bool:
        """pass^K: passed in every one of its K repeats."""
        return bool(self.scores) and self.repeats_passed == self.runs

    @property
    def pass_any(self) -> bool:
        """pass@K: passed in at least one repeat."""
        return self.repeats_passed > 0

    @property
    def flips(self) -> bool:
        """The verdict changed between repeats: it passed in some, not in all."""
        return 0 < self.repeats_passed < self.runs

    @property
    def found_counts(self) -> dict[str, int]:
        """Per must_find id, in how many repeats it was found."""
        return {i: sum(1 for s in self.scores if i in s.matched_ids) for i in self.must_find_ids}

    @property
    def unparseable_answers(self) -> int:
        return sum(1 for s in self.scores if s.status == "unparseable")

    @property
    def error(self) -> str | None:
        for s in self.scores:
            if s.error or s.parse_error:
                return s.error or s.parse_error
        return None

    def fabrication_items(self) -> list[str]:
        """Each fabrication, readable; the same figure or hit in several findings is one item."""
        where: dict[str, list[str]] = {}
        for s in self.scores:
            for fig in s.fabricated_figures:
                label = f'figure "{fig.get("text")}"'
                where.setdefault(label, []).append(f'#{int(fig.get("finding_index", 0)) + 1} {fig.get("field", "")}'.rstrip())
            for hit in s.must_not_say_hits:
                how = f'says /{hit.get("pattern")}/' if hit.get("by") == "says" else "by id"
                label = f'must_not_say {hit.get("entry_id")} ({how})'
                where.setdefault(label, []).append(f'#{int(hit.get("finding_index", 0)) + 1}')
        return [f"{label} in finding{'s' if len(places) > 1 else ''} {', '.join(places)}"
                for label, places in where.items()]

    def to_file_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "case_id": self.case_id,
            "kind": self.kind,
            "output": self.outputs[0].to_dict() if self.outputs else None,
            "score": self.scores[0].to_dict() if self.scores else None,
        }
        if self.runs > 1:
            data["repeats"] = [{"output": o.to_dict(), "score": s.to_dict()} for o, s in zip(self.outputs, self.scores)]
        return data

    @classmethod
    def from_file_dict(cls, data: dict[str, Any]) -> "CaseRecord":
        pairs = data.get("repeats") or [{"output": data.get("output"), "score": data.get("score")}]
        pairs = [p for p in pairs if p.get("output") is not None and p.get("score") is not None]
        return cls(
            case_id=data["case_id"],
            kind=data.get("kind", ""),
            outputs=[output_from_dict(p["output"]) for p in pairs],
            scores=[CaseScore.from_dict(p["score"]) for p in pairs],
        )

    def csv_row(self) -> dict[str, str]:
        hits = [f'{h.get("entry_id")} ({h.get("by")})' for s in self.scores for h in s.must_not_say_hits]
        figures = [str(f.get("text")) for s in self.scores for f in s.fabricated_figures]
        return {
            "case_id": self.case_id,
            "recall": _number(self.recall),
            "precision": _number(self.precision),
            "fabrication": str(self.fabrication),
            "missed_ids": ";".join(self.missed_ids),
            "kind": self.kind,
            "status": self.status,
            "extra_ids": ";".join(self.extra_ids),
            "fabricated_figures": ";".join(figures),
            "must_not_say_hits": ";".join(hits),
            "error": (self.error or "").replace("\n", " "),
            "runs": str(self.runs),
            "repeats_passed": str(self.repeats_passed),
            "pass_all": str(int(self.pass_all)),
            "pass_any": str(int(self.pass_any)),
            "flip": str(int(self.flips)),
            "found_in": ";".join(f"{i}={n}/{self.runs}" for i, n in self.found_counts.items()),
        }


def _number(value: float) -> str:
    """4 decimals without trailing zeros: 1, 0.5, 0.6667."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def score_record(case: Case, outputs: list[CaseOutput], *, figures: str) -> CaseRecord:
    """Score every output of a case; a scoring bug becomes an error row, never a crashed run."""
    scores = []
    for output in outputs:
        try:
            scores.append(score_case(case, output, figures=figures))
        except Exception as exc:  # noqa: BLE001 - one case must not sink a paid run
            scores.append(CaseScore(case.case_id, "error", 0.0, 0.0, 0, missed_ids=[e.id for e in case.must_find],
                                    error=f"scoring failed: {type(exc).__name__}: {exc}"))
    return CaseRecord(case.case_id, case.kind, list(outputs), scores)


def write_case_record(paths: RunPaths, record: CaseRecord) -> None:
    atomic_write_text(paths.case_file(record.case_id), _json_text(record.to_file_dict()))


def read_case_record(path: str | Path) -> CaseRecord:
    path = Path(path)
    fix = "rerun the eval to rewrite it"
    try:
        data = read_result_json(path, CASE_RECORD_SHAPE, "the case result file", fix)
        if not CASE_ID_RE.match(data["case_id"]):
            raise ResultsError(f"{path}:1: case_id {data['case_id']!r} is not a case id; {fix}")
        return CaseRecord.from_file_dict(data)
    except FileNotFoundError:
        raise ResultsError(f"{path}: not found; {fix}") from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ResultsError(f"{path}:1: not a case result file ({exc}); {fix}") from None


def csv_text(records: Iterable[CaseRecord]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for record in sorted(records, key=lambda r: r.case_id):
        writer.writerow(record.csv_row())
    return buf.getvalue()


def write_csv(paths: RunPaths, records: Iterable[CaseRecord]) -> None:
    atomic_write_text(paths.csv, csv_text(records))


def write_manifest(paths: RunPaths, manifest: dict[str, Any]) -> None:
    atomic_write_text(paths.manifest, _json_text(manifest))


# --------------------------------------------------------------------------
# Summary, missed ids, gate
# --------------------------------------------------------------------------


def missed_by_kind(records: Iterable[CaseRecord]) -> dict[str, dict[str, Any]]:
    """``{kind: {"cases": n, "ids": {id: [case ids]}}}``, most cases first.

    Only cases whose output was scored (status ok): a case that failed or
    came back unparseable misses everything and says nothing about which
    findings the prompt misses; those are listed on their own.
    """
    from .taxonomy import split_id

    grouped: dict[str, dict[str, list[str]]] = {}
    for record in records:
        if record.status != "ok":
            continue
        found = record.found_counts
        # With repeats, an id found in some of them is "found only sometimes" (run_stats), a
        # different problem from one no repeat found: only the latter is listed as missed.
        for missed in (i for i in record.missed_ids if not found.get(i)):
            kind = split_id(missed)[0]
            grouped.setdefault(kind, {}).setdefault(missed, []).append(record.case_id)
    out = {}
    for kind, ids in grouped.items():
        cases = {c for case_ids in ids.values() for c in case_ids}
        out[kind] = {"cases": len(cases), "ids": {i: sorted(c) for i, c in sorted(ids.items())}}
    return dict(sorted(out.items(), key=lambda item: (-item[1]["cases"], item[0])))


def miss_pattern(by_kind: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Whether the misses are one finding missed in many cases (a prompt problem)
    or many findings missed once each (a case-set problem or a model choice)."""
    if not by_kind:
        return None
    repeated = [k for k, v in by_kind.items() if v["cases"] >= 2]
    once = [k for k, v in by_kind.items() if v["cases"] == 1]
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


def _kinds_with_counts(kinds: list[str], by_kind: dict[str, dict[str, Any]]) -> str:
    return ", ".join(f"{k} missed in {by_kind[k]['cases']} cases" for k in kinds)


def summarize(records: list[CaseRecord], *, cases_total: int, not_run: list[str]) -> dict[str, Any]:
    """The manifest's summary: means over the scored cases, fabrications, failures."""
    scored = [r for r in records if r.obtained]
    fabricating = sorted((r for r in records if r.fabrication), key=lambda r: (-r.fabrication, r.case_id))
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
    }


def gate_verdict(summary: dict[str, Any], status: str, thresholds: dict[str, Any] = THRESHOLDS) -> dict[str, Any]:
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
        cases = summary.get("unparseable_cases") or []
        where = ", ".join(c["case_id"] for c in cases[:WORST_CASES_SHOWN])
        if len(cases) > WORST_CASES_SHOWN:
            where += f" and {len(cases) - WORST_CASES_SHOWN} more case(s)"
        reasons.append(f"{unparseable} unparseable answer(s), {max_unparseable} allowed (--max-unparseable): {where}")
    return {"passed": not reasons, "reasons": reasons}


def exit_code(manifest: dict[str, Any]) -> int:
    """0 gate passed, 1 gate failed, 3 incomplete (no verdict)."""
    passed = (manifest.get("gate") or {}).get("passed")
    return 3 if passed is None else (0 if passed else 1)


# --------------------------------------------------------------------------
# The summary text (stdout)
# --------------------------------------------------------------------------


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def format_summary(manifest: dict[str, Any]) -> str:
    """The run summary printed on stdout, from the manifest alone."""
    s = manifest.get("summary") or {}
    thresholds = manifest.get("thresholds") or THRESHOLDS
    gate = manifest.get("gate") or {"passed": None, "reasons": []}
    usage = manifest.get("usage") or {}
    lines = []
    scored = f"{s.get('scored', 0)} of {s.get('cases', 0)} cases scored" if s.get("scored") != s.get("cases") else f"{s.get('cases', 0)} cases"
    if role_of(manifest) != ASSISTANT:
        lines.append(f"results of the {role_label(manifest)}")
    lines.append(
        f"prompt {manifest.get('prompt_version')} (sha256 {str(manifest.get('prompt_sha256'))[:12]}), "
        f"backend {manifest.get('backend')}, model {manifest.get('model') or '-'}, {scored}, "
        f"figures {manifest.get('figures')}, status {manifest.get('status')}"
    )
    min_recall = thresholds["min_mean_recall"]
    recall = s.get("mean_recall")
    recall_ok = recall is not None and recall >= min_recall
    lines.append(f"mean recall     {_fmt(recall):<7} needs >= {min_recall:.2f}   {'ok' if recall_ok else 'FAIL'}")
    lines += uncertainty_lines(manifest, "recall")
    lines.append(f"mean precision  {_fmt(s.get('mean_precision')):<7} (reported, not gated)")
    lines += uncertainty_lines(manifest, "precision")
    fabrications = s.get("fabrications", 0)
    fab_ok = fabrications <= thresholds["max_fabrications"]
    lines.append(f"fabrications    {fabrications:<7} allowed {thresholds['max_fabrications']}        {'ok' if fab_ok else 'FAIL'}")
    worst = s.get("fabrication_cases") or []
    for entry in worst[:WORST_CASES_SHOWN]:
        items = entry["items"]
        shown = "; ".join(items[:ITEMS_SHOWN_PER_CASE]) + (f"; +{len(items) - ITEMS_SHOWN_PER_CASE} more" if len(items) > ITEMS_SHOWN_PER_CASE else "")
        lines.append(f"  {entry['case_id']}: {entry['fabrication']}: {shown}")
    if len(worst) > WORST_CASES_SHOWN:
        lines.append(f"  ... and {len(worst) - WORST_CASES_SHOWN} more case(s) with fabrications (see the CSV)")

    by_kind = manifest.get("missed_by_kind") or {}
    if by_kind:
        lines.append("missed must_find ids by kind, most cases first (scored cases only):")
        width = max(len(k) for k in by_kind)
        for kind, entry in by_kind.items():
            n = entry["cases"]
            where = ", ".join(
                f"{case_id}{'' if missed_id == kind else ' (@' + missed_id.split('@', 1)[1] + ')'}"
                for missed_id, case_ids in entry["ids"].items() for case_id in case_ids
            )
            lines.append(f"  {n:>3} case{'s' if n != 1 else ' '}  {kind:<{width}}  {where}")
        pattern = manifest.get("miss_pattern")
        if pattern:
            lines.append(f"  pattern: {pattern['text']}")
    else:
        lines.append("missed must_find ids: none")
    lines += consistency_lines(manifest)
    lines += by_kind_lines(manifest)

    unparseable = s.get("unparseable_cases") or []
    answers = s.get("unparseable_answers", len(unparseable))
    allowed = thresholds.get("max_unparseable", 0)
    lines.append(f"unparseable     {answers:<7} allowed {allowed:<8} {'ok' if answers <= allowed else 'FAIL'}"
                 + (f" ({len(unparseable)} case(s))" if answers != len(unparseable) else ""))
    for entry in unparseable:
        lines.append(f"  {entry['case_id']}: {entry['reason']}")
    errors = s.get("error_cases") or []
    lines.append(f"errors          {len(errors)}")
    for entry in errors:
        lines.append(f"  {entry['case_id']}: {entry['reason']}")
    if s.get("not_run"):
        lines.append(f"not run         {s['not_run']}: {', '.join(s.get('not_run_cases') or [])}")
    lines.append(_usage_line(usage))
    backoff = backoff_sentence((manifest.get("backend_details") or {}).get("concurrency"))
    if backoff:
        lines.append(f"rate limits     {backoff}")

    if gate.get("passed") is None:
        lines.append("gate            NO VERDICT (run incomplete)")
    else:
        lines.append(f"gate            {'PASSED' if gate['passed'] else 'FAILED'}")
    for reason in gate.get("reasons") or []:
        lines.append(f"  - {reason}")
    return "\n".join(lines) + "\n"


def _usage_line(usage: dict[str, Any]) -> str:
    tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    cached = usage.get("cached", 0)
    if not tokens_in and not tokens_out:
        return "tokens          none (no model calls)"
    cost = usage.get("cost_usd")
    cost_text = "cost unknown for this model" if cost is None else f"estimated cost ${cost:,.2f}"
    write, read = usage.get("cache_write_tokens", 0), usage.get("cache_read_tokens", 0)
    prompt_cache = f" (prompt cache: {write:,} written, {read:,} read)" if write or read else ""
    cache_text = f", {cached} answer(s) from the cache cost nothing" if cached else ""
    kept = usage.get("kept", 0)
    kept_text = f", {kept} answer(s) kept from the interrupted run" if kept else ""
    return f"tokens          {tokens_in:,} in{prompt_cache} / {tokens_out:,} out, {cost_text}{cache_text}{kept_text}"


# --------------------------------------------------------------------------
# Recording a run as it goes
# --------------------------------------------------------------------------


def build_manifest(header: dict[str, Any], records: list[CaseRecord], *, status: str,
                   not_run: list[str], usage: dict[str, Any], cases_total: int) -> dict[str, Any]:
    summary = summarize(records, cases_total=cases_total, not_run=not_run)
    by_kind = missed_by_kind(records)
    thresholds = header.get("thresholds") or THRESHOLDS
    return {
        **header,
        "finished_at": now_iso(),
        "status": status,
        "summary": summary,
        "gate": gate_verdict(summary, status, thresholds),
        "missed_by_kind": by_kind,
        "miss_pattern": miss_pattern(by_kind),
        **run_statistics(records, thresholds),
        "usage": usage,
        "case_ids": sorted(r.case_id for r in records),
    }


def usage_of(progress: Progress | None) -> dict[str, Any]:
    if progress is None:
        return {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "cached": 0}
    return {
        "input_tokens": progress.input_tokens,
        "output_tokens": progress.output_tokens,
        "cache_write_tokens": progress.cache_write_tokens,
        "cache_read_tokens": progress.cache_read_tokens,
        "cost_usd": progress.cost_usd,
        "cached": progress.cached,
    }


def add_kept_usage(usage: dict[str, Any], kept: list[CaseOutput]) -> dict[str, Any]:
    """The usage of a resumed run: this session's calls plus the answers kept from the interrupted one.

    A kept answer that was a fresh call when it was made is counted at its price;
    one that came from the cache then cost nothing then either.
    """
    if not kept:
        return usage
    from .runner import default_cost_estimator

    estimate = default_cost_estimator()
    total = dict(usage)
    total["input_tokens"] = usage.get("input_tokens", 0) + sum(o.input_tokens for o in kept)
    total["output_tokens"] = usage.get("output_tokens", 0) + sum(o.output_tokens for o in kept)
    cost = usage.get("cost_usd")
    for output in kept:
        if output.cached or not (output.input_tokens or output.output_tokens):
            continue
        for key, tokens in (("cache_write_tokens", output.cache_creation_input_tokens),
                            ("cache_read_tokens", output.cache_read_input_tokens)):
            total[key] = total.get(key, 0) + tokens
        price = estimate(output.model, output)
        cost = None if cost is None or price is None else cost + price
    total["cost_usd"] = cost
    total["kept"] = len(kept)
    return total


class RunRecorder:
    """Writes a run to disk as it happens: the guard first, each case as it lands, the rest at the end.

    Synchronous on purpose: ``finish`` must work after a KeyboardInterrupt has
    torn down the event loop.
    """

    def __init__(self, paths: RunPaths, header: dict[str, Any], cases: list[Case], *, figures: str,
                 repeats: int = 1) -> None:
        self.paths = paths
        self.header = header
        self.cases = {c.case_id: c for c in cases}
        self.figures = figures
        self.repeats = repeats
        self.previous = check_prompt_guard(paths, header["prompt_sha256"])
        self.outputs: dict[str, dict[int, CaseOutput]] = {}
        self.records: dict[str, CaseRecord] = {}
        self.progress: Progress | None = None
        self.on_record: Callable[[CaseRecord], None] | None = None
        self.kept_outputs: list[CaseOutput] = []  # answers a resumed run took from the interrupted one

    def start(self) -> None:
        """Clear the previous run of this version (its case files) and mark this one running."""
        self.paths.cases_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.paths.cases_dir.glob("*.json"):
            stale.unlink()
        write_manifest(self.paths, {**self.header, "status": "running"})

    def resume(self) -> list[str]:
        """Like ``start``, but keep the cases the previous run of this version finished.

        Kept only from a run with the same prompt text (the guard), backend,
        model and figures mode, and only cases whose every repeat came back
        (an API error is asked again). Their stored outputs are scored again
        against the current cases, so no backend call is made for them.
        Returns the ids of the cases kept.
        """
        kept: dict[str, list[CaseOutput]] = {}
        same_run = self.previous is not None and all(
            self.previous.get(key) == self.header.get(key) for key in ("backend", "model", "figures"))
        if same_run:
            for path in sorted(self.paths.cases_dir.glob("*.json")):
                try:
                    record = read_case_record(path)
                except ResultsError:
                    continue  # unreadable: run the case again
                if record.case_id in self.cases and record.obtained and record.runs >= self.repeats:
                    kept[record.case_id] = record.outputs[: self.repeats]
        self.start()
        for case_id, outputs in kept.items():
            for repeat, output in enumerate(outputs):
                self.case_done(self.cases[case_id], output, repeat)
                self.kept_outputs.append(output)
        return sorted(kept)

    def pending_cases(self) -> list[Case]:
        """The cases still to run: all of them, unless ``resume`` kept some."""
        return [case for case_id, case in self.cases.items() if len(self.outputs.get(case_id, {})) < self.repeats]

    def case_done(self, case: Case, output: CaseOutput, repeat: int) -> None:
        if output.error is not None:
            output.error = redact_secrets(output.error)
        self.outputs.setdefault(case.case_id, {})[repeat] = output
        got = self.outputs[case.case_id]
        record = score_record(case, [got[r] for r in sorted(got)], figures=self.figures)
        self.records[case.case_id] = record
        write_case_record(self.paths, record)
        if self.on_record is not None:
            self.on_record(record)

    def set_progress(self, progress: Progress) -> None:
        self.progress = progress

    def finish(self, status: str) -> dict[str, Any]:
        """Write the CSV and the final manifest; returns the manifest."""
        records = [self.records[i] for i in sorted(self.records)]
        not_run = [case.case_id for case in self.pending_cases()]
        if status == "complete" and any(not r.obtained for r in records):
            status = "incomplete"
        if status == "complete" and not_run:
            status = "cancelled"
        usage = add_kept_usage(usage_of(self.progress), self.kept_outputs)
        manifest = build_manifest(self.header, records, status=status, not_run=not_run,
                                  usage=usage, cases_total=len(self.cases))
        write_csv(self.paths, records)
        write_manifest(self.paths, manifest)
        return manifest
