"""The stamp check: may the current prompt version go into the weekly run?

The stamp is the record of the assistant's run of the current
``PROMPT_VERSION`` (``results/<version>/``, a place only the Claude backend
writes: ``identity.py``). The check passes only when every one of these
holds, and says each one that does not, one line each (docs/weekly.md lists
them):

- the manifest exists and reads;
- it was written by the claude backend;
- the run is complete and passed the gate;
- with thresholds no looser than the defaults, and a figures mode there is;
- made by the current prompt version, with the prompt text there is now (its SHA-256);
- on the project's case set as it is now: the cases folder is the project's
  (``cases/`` in the working folder, ``paths.project_cases_dir``: a copy with
  loosened expectations is not), it passes every check ``reviewtui check``
  makes, with the planned mix enforced (a one-case folder cannot stand in for
  the fifty), and its hash is the run's;
- with the model the weekly run will use, at the endpoint it will send to
  (scheme, host, port and path);
- finished at a time that is not in the future, and, with ``max_age_days``,
  no longer ago than that;
- with a stamp key, signed under it (``runs/signature.py``); without one, not
  signed (a signed record is checked with its key or not at all).

When all of that holds, the manifest is still only a file: the verdict is
derived again from the stored answers (``rederive.py``) and any difference
refuses. Nothing here builds a backend: a refusal makes no API call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, UTC
from pathlib import Path
from typing import Any, Mapping

from ruamel.yaml.error import YAMLError as RuamelYAMLError
from yaml import YAMLError

from .. import assistant
from ..caseset.cases import CaseSet
from ..runs.identity import REFERENCE_DIR, role_label
from ..runs.result_files import ResultsError, RunPaths
from ..runs.gate import THRESHOLDS
from ..runs.manifest import read_manifest
from ..runs.manifest_fields import GateVerdict, Manifest
from ..backends.provenance import configured_endpoint
from ..runs.signature import KEY_ENV, SIGNATURE_FILE, signature_problem
from ..paths import is_project_cases, project_cases_dir
from ..scoring.grounding import FIGURE_MODES
from .rederive import rederive

EVAL_HINT = "run `reviewtui eval --backend claude`"
# A finish time this far ahead of the clock is a clock that differs, not a run from the future.
CLOCK_SLACK = timedelta(minutes=5)


@dataclass
class StampCheck:
    """The verdict of the stamp check, and the stamp it read."""

    manifest_path: Path
    manifest: Manifest | None
    reasons: list[str] = field(default_factory=list)
    case_set_hash: str | None = None
    cases: int | None = None  # cases in the case set the stamp was checked against
    cases_dir: str | None = None  # that case set's folder (the project's)

    @property
    def allowed(self) -> bool:
        return not self.reasons

    def stamp(self) -> dict[str, Any]:
        """What the weekly run records about the stamp it ran behind."""
        m = self.manifest or {}
        keys = ("prompt_version", "prompt_sha256", "backend", "model", "case_set_hash", "figures", "thresholds",
                "status", "gate", "started_at", "finished_at")
        return {"manifest": str(self.manifest_path), **{k: m.get(k) for k in keys}, "cases": self.cases,
                "cases_dir": self.cases_dir, "run_id": m.get("run_id"),
                "endpoint": (m.get("backend_details") or {}).get("endpoint")}


def _parse_time(text: Any) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _looser_thresholds(thresholds: Mapping[str, Any]) -> list[str]:
    looser = []
    if float(thresholds.get("min_mean_recall", 0)) < THRESHOLDS["min_mean_recall"]:
        looser.append(f"min_mean_recall {thresholds.get('min_mean_recall')} < {THRESHOLDS['min_mean_recall']}")
    for key, allowed in (("max_fabrications", THRESHOLDS["max_fabrications"]),
                         ("max_unparseable", THRESHOLDS.get("max_unparseable", 0))):
        if int(thresholds.get(key, 0) or 0) > allowed:
            looser.append(f"{key} {thresholds.get(key)} > {allowed}")
    return looser


def project_case_set(cases_dir: str | Path) -> tuple[CaseSet, list[str]]:
    """The case set a stamp must have been made on, and why it cannot vouch for one (empty when it can).

    The same validation as ``reviewtui check``, with the planned mix an error whatever the
    folder: a stamp is about the prompt on the project's cases, not on whatever folder is named.
    """
    from ..caseset.set_checks import check_mix, mix_summary
    from ..runs.validation import validate

    case_set, problems = validate(cases_dir)
    errors = [p for p in problems if p.severity == "error"]
    reasons = []
    if errors:
        reasons.append(f"the case set {cases_dir} has {len(errors)} error(s), so its hash cannot vouch for the run "
                       f"(first: {errors[0]}); fix them (`reviewtui check --cases {cases_dir}`)")
    elif check_mix(case_set, shipped=True):
        reasons.append(f"the case set {cases_dir} is not the project's: {len(case_set.cases)} case(s), "
                       f"{mix_summary(case_set)} (found/planned); a stamp made on it cannot clear the weekly run: "
                       f"{EVAL_HINT} on the full case set")
    return case_set, reasons


def prompt_problem(max_tokens: int) -> str | None:
    """Why the prompt cannot be built from reviewtui's own files (a broken glossary.yaml or taxonomy.yaml), or
    None: said as bad usage, not as a refusal (exit 1) or a traceback."""
    try:
        assistant.prompt_sha256(max_tokens)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, YAMLError, RuamelYAMLError) as exc:
        return (f"the prompt cannot be built from reviewtui's own files ({type(exc).__name__}: {exc}); restore "
                "reviewtui/glossary.yaml and reviewtui/taxonomy.yaml (git checkout reviewtui/) and run again")
    return None


def check_stamp(results_dir: str | Path, cases_dir: str | Path, *, model: str, max_tokens: int | None = None,
                max_age_days: float | None = None, now: datetime | None = None, endpoint: str | None = None,
                stamp_key: bytes | None = None) -> StampCheck:
    """Check the stamp of the current prompt version; ``reasons`` is empty when the weekly run may go.

    ``max_tokens`` is the weekly run's (the prompt's SHA covers it, as the eval stamps it);
    ``endpoint`` where it will send (default: ``ANTHROPIC_BASE_URL``'s host, else the API's);
    ``stamp_key`` the key the record must be signed under, if any.
    """
    version = assistant.PROMPT_VERSION
    results_dir = Path(results_dir)
    paths = RunPaths(results_dir, version)
    check = StampCheck(paths.manifest, None)
    reasons = check.reasons
    max_tokens = max_tokens or assistant.DEFAULT_MAX_TOKENS
    endpoint = endpoint or configured_endpoint()
    now = now or datetime.now(UTC)

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

    if stamp_key is not None:
        signature = signature_problem(paths.run_dir, stamp_key)
        if signature:
            reasons.append(signature)
    elif (paths.run_dir / SIGNATURE_FILE).exists():
        reasons.append(f"{paths.run_dir / SIGNATURE_FILE} exists, but no stamp key was given to check it: a signed "
                       f"record is checked with its key or not at all; give it (--stamp-key or {KEY_ENV})")

    if manifest.get("backend") != "claude":
        reasons.append(f"{paths.manifest} holds the results of the {role_label(manifest)}, not of a Claude run; "
                       f"only a Claude run clears the weekly run: {EVAL_HINT}")
    status = manifest.get("status")
    gate = manifest.get("gate") or GateVerdict(passed=None, reasons=[])
    if status != "complete":
        reasons.append(f"the run of {version} is {status or 'of unknown status'}, not complete: no gate verdict; "
                       f"{EVAL_HINT} to finish it")
    elif gate["passed"] is not True:
        why = "; ".join(gate["reasons"]) or "no reasons recorded"
        reasons.append(f"the run of {version} failed the gate: {why}")
    if manifest.get("figures", "derived") not in FIGURE_MODES:
        reasons.append(f"the manifest of {version} records figures mode {manifest.get('figures')!r}, not one of "
                       f"{', '.join(FIGURE_MODES)}: the record was edited; {EVAL_HINT} again")
    looser = _looser_thresholds(manifest.get("thresholds") or {})
    if looser:
        reasons.append(f"the run of {version} was gated with looser thresholds than the gate's ({', '.join(looser)}); "
                       f"{EVAL_HINT} without loosening them")

    if manifest.get("prompt_version") != version:
        reasons.append(f"{paths.manifest} says it holds a run of prompt version {manifest.get('prompt_version')!r}, "
                       f"not of {version}: the record was moved or edited; {EVAL_HINT}")
    current_sha = assistant.prompt_sha256(max_tokens)
    if manifest.get("prompt_sha256") != current_sha:
        reasons.append(f"the run of {version} was made with other prompt text (sha256 "
                       f"{str(manifest.get('prompt_sha256'))[:12]}, now {current_sha[:12]}; the hash covers the whole "
                       f"request but the model and the snapshot, --max-tokens included); bump PROMPT_VERSION in "
                       f"reviewtui/assistant.py and {EVAL_HINT}, or give the weekly run the eval's --max-tokens")

    if not is_project_cases(cases_dir):
        reasons.append(f"the case set {cases_dir} is not the project's case set ({project_cases_dir()}): only a run "
                       f"on the project's cases clears the weekly run; leave out --cases, or run from the project's "
                       f"folder")
        return check
    case_set, case_set_reasons = project_case_set(cases_dir)
    reasons += case_set_reasons
    if not case_set_reasons:
        check.case_set_hash, check.cases = case_set.digest(), len(case_set.cases)
        check.cases_dir = str(project_cases_dir())
        if manifest.get("case_set_hash") != check.case_set_hash:
            then = (manifest.get("summary") or {}).get("cases")
            reasons.append(f"the run of {version} was made on another case set ({then} case(s) in "
                           f"{manifest.get('cases_dir')}, hash {str(manifest.get('case_set_hash'))[:12]}; now "
                           f"{check.cases} in {cases_dir}, hash {check.case_set_hash[:12]}); {EVAL_HINT} on the cases "
                           f"as they are")

    if manifest.get("model") != model:
        reasons.append(f"the run of {version} used model {manifest.get('model')}, the weekly run would use {model}; "
                       f"run the eval with --model {model}, or the weekly run with --model {manifest.get('model')}")
    asked = (manifest.get("backend_details") or {}).get("endpoint")
    if manifest.get("backend") == "claude" and asked != endpoint:
        reasons.append(f"the run of {version} asked the API at {asked or 'an endpoint it does not record'}, the weekly "
                       f"run would send to {endpoint} (ANTHROPIC_BASE_URL); {EVAL_HINT} against the endpoint the "
                       f"weekly run uses")

    if status == "complete":
        reasons += _time_reasons(manifest, version, now, max_age_days)

    if not reasons:  # the manifest says the run clears the weekly run: its answers must say so too
        reasons += rederive(manifest, paths, case_set, max_tokens=max_tokens)
    return check


def _time_reasons(manifest: Manifest, version: str, now: datetime, max_age_days: float | None) -> list[str]:
    finished = _parse_time(manifest.get("finished_at"))
    if finished is None:
        return [f"the run of {version} records no finish time it can be dated by ({manifest.get('finished_at')!r}); "
                f"{EVAL_HINT} again"]
    if finished > now + CLOCK_SLACK:
        return [f"the run of {version} finished in the future ({manifest.get('finished_at')}, now "
                f"{now.isoformat(timespec='seconds')}): a clock or the manifest is wrong; {EVAL_HINT} again"]
    age = (now - finished).total_seconds() / 86400
    if max_age_days is not None and age > max_age_days:
        return [f"the run of {version} finished {age:.1f} days ago ({manifest.get('finished_at')}), "
                f"older than --max-age {max_age_days:g}; {EVAL_HINT} again"]
    return []


def check_stamp_as_configured(results_dir: str | Path, cases_dir: str | Path, *, model: str) -> StampCheck:
    """``check_stamp`` with what the environment configures: the endpoint, and the stamp key
    ``REVIEWTUI_STAMP_KEY`` names (a key that cannot be used is a reason). What the app's weekly gate checks."""
    from ..runs.signature import SignatureError, key_path, load_key

    try:
        path = key_path(None)
        key = load_key(path, cases_dir=Path(cases_dir), results_dir=Path(results_dir)) if path else None
    except SignatureError as exc:
        check = StampCheck(RunPaths(Path(results_dir), assistant.PROMPT_VERSION).manifest, None)
        check.reasons.append(str(exc))
        return check
    return check_stamp(results_dir, cases_dir, model=model, stamp_key=key)
