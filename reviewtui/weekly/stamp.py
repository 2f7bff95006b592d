"""The stamp check: may the current prompt version go into the weekly run?

The stamp is the manifest of the assistant's run of the current
``PROMPT_VERSION`` (``results/<version>/manifest.json``, a place only the
Claude backend writes: ``identity.py``). The check passes only when every
one of these holds, and says each one that does not, one line each
(docs/weekly.md lists them):

- the manifest exists and reads;
- it was written by the claude backend;
- the run is complete and passed the gate;
- with thresholds no looser than the defaults;
- made with the prompt text there is now (its SHA-256);
- on the case set as it is now (its hash);
- with the model the weekly run will use;
- and, with ``max_age_days``, finished no longer ago than that.

Nothing here builds a backend: a refusal makes no API call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from .. import assistant
from ..caseset.cases import load_case_set
from ..runs.identity import REFERENCE_DIR, role_label
from ..runs.files import ResultsError, RunPaths
from ..runs.gate import THRESHOLDS
from ..runs.manifest import read_manifest

EVAL_HINT = "run `reviewtui eval --backend claude`"


@dataclass
class StampCheck:
    """The verdict of the stamp check, and the stamp it read."""

    manifest_path: Path
    manifest: dict[str, Any] | None
    reasons: list[str] = field(default_factory=list)
    case_set_hash: str | None = None

    @property
    def allowed(self) -> bool:
        return not self.reasons

    def stamp(self) -> dict[str, Any]:
        """What the weekly run records about the stamp it ran behind."""
        m = self.manifest or {}
        keys = ("prompt_version", "prompt_sha256", "backend", "model", "case_set_hash", "figures", "thresholds",
                "status", "gate", "started_at", "finished_at")
        return {"manifest": str(self.manifest_path), **{k: m.get(k) for k in keys}}


def _parse_time(text: Any) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _looser_thresholds(thresholds: dict[str, Any]) -> list[str]:
    looser = []
    if float(thresholds.get("min_mean_recall", 0)) < THRESHOLDS["min_mean_recall"]:
        looser.append(f"min_mean_recall {thresholds.get('min_mean_recall')} < {THRESHOLDS['min_mean_recall']}")
    for key in ("max_fabrications", "max_unparseable"):
        if int(thresholds.get(key, 0) or 0) > THRESHOLDS[key]:
            looser.append(f"{key} {thresholds.get(key)} > {THRESHOLDS[key]}")
    return looser


def check_stamp(results_dir: str | Path, cases_dir: str | Path, *, model: str, max_tokens: int | None = None,
                max_age_days: float | None = None, now: datetime | None = None) -> StampCheck:
    """Check the stamp of the current prompt version; ``reasons`` is empty when the weekly run may go.

    ``max_tokens`` is the weekly run's (the prompt's SHA covers it, as the eval stamps it).
    """
    version = assistant.PROMPT_VERSION
    results_dir = Path(results_dir)
    paths = RunPaths(results_dir, version)
    check = StampCheck(paths.manifest, None)
    reasons = check.reasons

    if not paths.manifest.exists():
        reference = RunPaths(results_dir / REFERENCE_DIR, version).manifest
        also = (f" ({reference.parent} holds a run of the reference auditor, which does not clear the assistant)"
                if reference.exists() else "")
        reasons.append(f"no Claude run of prompt version {version}: {paths.manifest} not found{also}; {EVAL_HINT}")
        return check
    try:
        manifest = read_manifest(paths.manifest)
    except ResultsError as exc:
        reasons.append(f"{exc}")
        return check
    check.manifest = manifest

    if manifest.get("backend") != "claude":
        reasons.append(f"{paths.manifest} holds the results of the {role_label(manifest)}, not of a Claude run; "
                       f"only a Claude run clears the weekly run: {EVAL_HINT}")
    status = manifest.get("status")
    gate = manifest.get("gate") or {}
    if status != "complete":
        reasons.append(f"the run of {version} is {status or 'of unknown status'}, not complete: no gate verdict; "
                       f"{EVAL_HINT} to finish it")
    elif gate.get("passed") is not True:
        why = "; ".join(gate.get("reasons") or []) or "no reasons recorded"
        reasons.append(f"the run of {version} failed the gate: {why}")
    looser = _looser_thresholds(manifest.get("thresholds") or {})
    if looser:
        reasons.append(f"the run of {version} was gated with looser thresholds than the gate's ({', '.join(looser)}); "
                       f"{EVAL_HINT} without loosening them")

    current_sha = assistant.prompt_sha256(max_tokens or assistant.DEFAULT_MAX_TOKENS)
    if manifest.get("prompt_sha256") != current_sha:
        reasons.append(f"the run of {version} was made with other prompt text (sha256 "
                       f"{str(manifest.get('prompt_sha256'))[:12]}, now {current_sha[:12]}; the hash covers the whole "
                       f"request but the model and the snapshot, --max-tokens included); bump PROMPT_VERSION in "
                       f"reviewtui/assistant.py and {EVAL_HINT}, or give the weekly run the eval's --max-tokens")

    case_set = load_case_set(cases_dir)
    if case_set.errors:
        reasons.append(f"the case set {cases_dir} has {len(case_set.errors)} error(s), so its hash cannot vouch for "
                       f"the run; fix them (`reviewtui check --cases {cases_dir}`)")
    else:
        check.case_set_hash = case_set.digest()
        if manifest.get("case_set_hash") != check.case_set_hash:
            reasons.append(f"the case set changed since the run of {version} (hash "
                           f"{str(manifest.get('case_set_hash'))[:12]} then, {check.case_set_hash[:12]} now in "
                           f"{cases_dir}); {EVAL_HINT} on the cases as they are")

    if manifest.get("model") != model:
        reasons.append(f"the run of {version} used model {manifest.get('model')}, the weekly run would use {model}; "
                       f"run the eval with --model {model}, or the weekly run with --model {manifest.get('model')}")

    if max_age_days is not None:
        finished = _parse_time(manifest.get("finished_at"))
        now = now or datetime.now(UTC)
        if finished is None:
            reasons.append(f"the run of {version} records no finish time, so its age is unknown (--max-age {max_age_days:g})")
        else:
            age = (now - finished).total_seconds() / 86400
            if age > max_age_days:
                reasons.append(f"the run of {version} finished {age:.1f} days ago ({manifest.get('finished_at')}), "
                               f"older than --max-age {max_age_days:g}; {EVAL_HINT} again")
    return check

