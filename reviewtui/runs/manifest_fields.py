"""The run manifest's fields: the one definition of ``manifest.json``'s shape.

The code that reads a manifest is type-checked against these types, and
``manifest.read_manifest`` checks a file against them (``json_types``). Lists
and objects the summary text indexes are required inside their parent; the
fields of the manifest itself may be absent (a run still going, a manifest
written before a field). Kept apart from ``manifest.py`` so the gate and the
run's statistics, which the manifest is built from, can name the types
without importing it.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

RunStatus = Literal["running", "complete", "incomplete", "cancelled"]


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
