"""The run manifest, ``R/V/manifest.json``: built from the records, written, read back, and the prompt guard.

It records what ran (prompt version and hash, backend, model, case-set hash,
thresholds, the run's id) and how it went (status, summary, gate verdict and reasons,
missed ids by kind, the run's statistics, token usage and cost). The summary
text is a pure function of it (``summary.format_summary``), so a stored run
prints the summary it printed when it ran.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from ..files.atomic import atomic_write_text
from .result_files import ResultsError, RunPaths, json_text, now_iso, read_result_json
from .gate import THRESHOLDS, gate_verdict, miss_pattern, missed_by_kind, summarize
from ..backends.provenance import listed_answer
from .case_records import CaseRecord
from .run_statistics import run_statistics
from .manifest_fields import Manifest, RunStatus, Usage


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
