"""The run manifest, ``R/V/manifest.json``: built from the records, written, read back, and the prompt guard.

It records what ran (prompt version and hash, backend, model, case-set hash,
thresholds, the run's id) and how it went (status, summary, gate verdict and reasons,
missed ids by kind, the run's statistics, token usage and cost). The summary
text is a pure function of it (``summary.format_summary``), so a stored run
prints the summary it printed when it ran.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args

from ..caseset.atomic import atomic_write_text
from .result_files import ResultsError, RunPaths, json_text, now_iso, read_result_json
from .gate import THRESHOLDS, gate_verdict, miss_pattern, missed_by_kind, summarize
from .provenance import listed_answer
from .case_records import CaseRecord
from .run_statistics import run_statistics


# --------------------------------------------------------------------------
# The manifest's fields, the one definition of its shape: the code that reads a manifest is
# type-checked against it, and ``read_manifest`` checks a file against it (``json_types``).
# Lists and objects the summary text indexes are required inside their parent; the fields
# of the manifest itself may be absent (a run still going, a manifest written before a field).
# --------------------------------------------------------------------------

RunStatus = Literal["running", "complete", "incomplete", "cancelled"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)


class Thresholds(TypedDict):
    min_mean_recall: float
    max_fabrications: float
    max_unparseable: NotRequired[int]


class FabricationCase(TypedDict):
    case_id: str
    fabrication: int
    items: list[str]


class UntraceableCase(TypedDict):
    case_id: str
    untraceable: int
    items: list[str]


class FailedCase(TypedDict):
    case_id: str
    reason: str | None


class FigureCounts(TypedDict, total=False):
    grounded: int
    untraceable: int
    fabricated: int


class Summary(TypedDict, total=False):
    cases: int
    scored: int
    mean_recall: float | None
    mean_precision: float | None
    fabrications: int
    unparseable: int
    unparseable_answers: int
    errors: int
    not_run: int
    fabrication_cases: list[FabricationCase]
    unparseable_cases: list[FailedCase]
    error_cases: list[FailedCase]
    not_run_cases: list[str]
    figures: FigureCounts
    untraceable_cases: list[UntraceableCase]


class GateVerdict(TypedDict):
    passed: bool | None  # None: incomplete, no verdict
    reasons: list[str]


class MissedKind(TypedDict):
    cases: int
    ids: dict[str, list[str]]


class MissPattern(TypedDict):
    pattern: Literal["concentrated", "isolated", "scattered", "mixed"]
    repeated: list[str]
    once: list[str]
    text: str


class FlippingCase(TypedDict):
    case_id: str
    passed: int
    runs: int


class SometimesFound(TypedDict):
    case_id: str
    id: str
    found: int
    runs: int


class Consistency(TypedDict):
    repeats: int
    cases: int
    pass_all: int
    pass_any: int
    flipping_cases: list[FlippingCase]
    sometimes_found: list[SometimesFound]


class IntervalEntry(TypedDict):
    mean: float
    low: float
    high: float


class Uncertainty(TypedDict):
    method: str
    level: float
    resamples: int
    seed: int
    cases: int
    recall: IntervalEntry
    precision: IntervalEntry
    threshold: float
    recall_margin: float
    recall_verdict: str


class CaseKindRecall(TypedDict):
    cases: int
    mean_recall: float


class FindingKindRecall(TypedDict):
    found: int
    expected: int
    recall: float


class RunStatistics(TypedDict):
    """What one run's figures are worth (``run_statistics.py``)."""

    consistency: Consistency
    uncertainty: Uncertainty | None
    recall_by_case_kind: dict[str, CaseKindRecall]
    recall_by_finding_kind: dict[str, FindingKindRecall]


class Usage(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    cost_usd: float | None  # None: no price for the model
    cached: int
    kept: int


class Manifest(TypedDict, total=False):
    prompt_version: str
    prompt_sha256: str
    backend: str
    results_role: str
    model: str | None
    backend_details: dict[str, Any]
    cases_dir: str
    project_cases: bool
    case_set_hash: str
    figures: str
    thresholds: Thresholds
    concurrency: int
    repeats: int
    batch: bool
    run_id: str
    started_at: str
    finished_at: str | None
    rescored_at: str
    status: RunStatus
    summary: Summary
    gate: GateVerdict
    missed_by_kind: dict[str, MissedKind]
    miss_pattern: MissPattern | None
    consistency: Consistency
    uncertainty: Uncertainty | None
    recall_by_case_kind: dict[str, CaseKindRecall]
    recall_by_finding_kind: dict[str, FindingKindRecall]
    usage: Usage
    case_ids: list[str]
    answers: dict[str, list[Any]]
    source: str  # a run read from a results CSV (``compare.load_csv_run``), never written


class PromptChangedError(ResultsError):
    """Results of this prompt version exist, made with other prompt text."""


def read_manifest(path: str | Path) -> Manifest:
    """The manifest at ``path``, checked against ``Manifest``: ResultsError naming the file and the field
    (a hand-edited manifest is refused here, never a KeyError later)."""
    path = Path(path)
    try:
        return cast(Manifest, read_result_json(path, Manifest, "the run manifest", "move the folder away and rerun"))
    except FileNotFoundError:
        raise ResultsError(f"{path}: no run manifest here; run `reviewtui eval` first") from None


def write_manifest(paths: RunPaths, manifest: Manifest) -> None:
    atomic_write_text(paths.manifest, json_text(manifest))


def check_prompt_guard(paths: RunPaths, prompt_sha256: str) -> Manifest | None:
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


def build_manifest(header: Manifest, records: list[CaseRecord], *, status: RunStatus,
                   not_run: list[str], usage: Usage, cases_total: int) -> Manifest:
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
        # Per case, each answer scored as the API recorded it (message id, text hash, the run that got it).
        "answers": {r.case_id: [listed_answer(o.provenance) for o in r.outputs]
                    for r in sorted(records, key=lambda r: r.case_id) if any(o.provenance for o in r.outputs)},
    }
