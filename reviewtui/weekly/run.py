"""The weekly run: each account through the assistant, every figure grounded, a second opinion.

``run_weekly`` takes the loaded accounts, a ready assistant backend and the
reference auditor, and writes ``<results>/weekly/<date>/`` as it goes:

- ``weekly.json``: the run (the stamp it ran behind, backend details, start
  and finish, status, one entry per account);
- ``accounts/<name>/raw.txt``: the assistant's raw output, as it came back;
- ``accounts/<name>/findings.json``: the findings with every figure's
  verdict and the snapshot rows behind it, and the second opinion;
- ``accounts/<name>/report.md``: the report a person sends;
- ``index.csv`` and ``index.md``: every account with its counts and flags;
- ``reviewed.json``: the accounts a reviewer has marked reviewed (the app).

An account is written as soon as it finishes, so Ctrl-C keeps what finished,
and a rerun the same day answers those accounts from the response cache.

The assistant's answer is scored like a case with no expectations
(``scoring.score_case``): the same parsing and the same figure grounding as
the eval, against the account's own snapshot. An account with a figure the
snapshot does not support is held for review, never shown as ready.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import datetime, UTC
from pathlib import Path
from typing import Any, Callable

from ..assistant import OutputError, parse_output
from ..caseset.atomic import atomic_write_text
from ..backends.base import Backend, CaseOutput
from ..caseset.cases import Case
from ..runs.identity import WEEKLY_DIR
from ..runs.files import now_iso
from ..runs.runner import Progress, run_cases
from ..scoring.score import score_case
from .accounts import Account

READY = "ready to send"
HOLD = "hold for review"
FAILED = "failed"
SKIPPED = "skipped"
NOT_RUN = "not run"
STATUSES = (READY, HOLD, FAILED, SKIPPED, NOT_RUN)
WEEKLY_FILE = "weekly.json"
REVIEWED_FILE = "reviewed.json"


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class WeeklyPaths:
    run_dir: Path

    @classmethod
    def for_date(cls, results_dir: str | Path, day: str) -> "WeeklyPaths":
        return cls(Path(results_dir) / WEEKLY_DIR / day)

    @property
    def manifest(self) -> Path:
        return self.run_dir / WEEKLY_FILE

    @property
    def index_csv(self) -> Path:
        return self.run_dir / "index.csv"

    @property
    def index_md(self) -> Path:
        return self.run_dir / "index.md"

    @property
    def reviewed(self) -> Path:
        return self.run_dir / REVIEWED_FILE

    def account_dir(self, name: str) -> Path:
        return self.run_dir / "accounts" / name

    def raw(self, name: str) -> Path:
        return self.account_dir(name) / "raw.txt"

    def findings(self, name: str) -> Path:
        return self.account_dir(name) / "findings.json"

    def report(self, name: str) -> Path:
        return self.account_dir(name) / "report.md"


def today() -> str:
    return datetime.now(UTC).date().isoformat()


# --------------------------------------------------------------------------
# One account
# --------------------------------------------------------------------------


def _matches(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Same finding kind, and the same campaign (an unscoped finding covers any campaign)."""
    return a["id"] == b["id"] and (a.get("scope") is None or b.get("scope") is None or a["scope"] == b["scope"])


def second_opinion(findings: list[dict[str, Any]], reference: CaseOutput | None) -> dict[str, Any]:
    """Where the reference auditor and the assistant disagree on this account."""
    if reference is None:
        return {"auditor": None, "error": "the reference auditor was not run", "auditor_only": [], "assistant_only": []}
    if reference.error is not None:
        return {"auditor": reference.model, "error": reference.error, "auditor_only": [], "assistant_only": []}
    try:
        audited = [f.to_dict() for f in parse_output(reference.raw_text or "")]
    except OutputError as exc:
        return {"auditor": reference.model, "error": f"unreadable auditor output: {exc}", "auditor_only": [],
                "assistant_only": []}
    return {
        "auditor": reference.model,
        "error": None,
        "auditor_findings": audited,
        "auditor_only": [f for f in audited if not any(_matches(f, a) for a in findings)],
        "assistant_only": [a for a in findings if not any(_matches(a, f) for f in audited)],
    }


def _identity(account: Account) -> dict[str, Any]:
    return {"account": account.name, "account_id": account.account_id, "display_name": account.display_name,
            "period": account.period, "snapshot": str(account.path)}


def account_result(account: Account, case: Case, output: CaseOutput, reference: CaseOutput | None, *,
                   figures: str) -> dict[str, Any]:
    """The account's findings.json: status, findings with their figures, the second opinion."""
    base = {**_identity(account), "model": output.model, "cached": output.cached,
            "input_tokens": output.input_tokens, "output_tokens": output.output_tokens}
    score = score_case(case, output, figures=figures)
    if score.status != "ok":
        reason = score.error or f"the answer cannot be read: {score.parse_error}"
        return {**base, "status": FAILED, "reason": reason, "findings": [], "ungrounded": [], "figures": 0,
                "second_opinion": second_opinion([], reference)}
    findings = []
    for i, row in enumerate(score.findings):
        finding = {k: row[k] for k in ("id", "scope", "full_id", "claim", "evidence", "severity")}
        finding["figures"] = [{k: v for k, v in fig.items() if k != "finding_index"}
                              for fig in score.figures if fig["finding_index"] == i]
        findings.append(finding)
    ungrounded = [{"finding": fig["finding_index"] + 1, "field": fig["field"], "text": fig["text"],
                   "reason": fig["reason"]} for fig in score.fabricated_figures]
    status = HOLD if ungrounded else READY
    reason = f"{len(ungrounded)} figure(s) not found in the account's data" if ungrounded else ""
    return {**base, "status": status, "reason": reason, "findings": findings, "ungrounded": ungrounded,
            "figures": len(score.figures), "second_opinion": second_opinion(findings, reference)}


def skipped_result(account: Account, status: str = SKIPPED, reason: str | None = None) -> dict[str, Any]:
    return {**_identity(account), "status": status, "reason": reason or account.problem or "",
            "findings": [], "ungrounded": [], "figures": 0, "second_opinion": None}


# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------


@dataclass
class WeeklyRun:
    paths: WeeklyPaths
    manifest: dict[str, Any]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 every account ready to send; 3 some account failed, was skipped, not run or is on hold."""
        return 0 if self.results and all(r["status"] == READY for r in self.results.values()) else 3


def counts(results: dict[str, dict[str, Any]]) -> dict[str, int]:
    return {status: sum(1 for r in results.values() if r["status"] == status) for status in STATUSES}


async def run_weekly(accounts: list[Account], backend: Backend, reference: Backend | None, *,
                     paths: WeeklyPaths, stamp: dict[str, Any], figures: str = "derived", concurrency: int = 4,
                     on_progress: Callable[[Progress], None] | None = None,
                     on_account: Callable[[dict[str, Any]], None] | None = None,
                     cancel: asyncio.Event | None = None) -> WeeklyRun:
    """Run every readable account; write each as it lands and the index at the end.

    The caller owns both backends and closes them.
    """
    from .reports import write_account_files, write_index  # reports reads the run's constants

    header = {"kind": "weekly", "started_at": now_iso(), "stamp": stamp, "figures": figures,
              "backend": backend.name, "backend_details": backend.describe(), "concurrency": concurrency,
              "reference": reference.describe() if reference is not None else None}
    run = WeeklyRun(paths, {**header, "status": "running"})
    paths.run_dir.mkdir(parents=True, exist_ok=True)
    for stale in paths.run_dir.glob("accounts/*/*"):
        stale.unlink()
    atomic_write_text(paths.manifest, _json_text(run.manifest))

    by_name = {a.name: a for a in accounts}
    for account in accounts:
        if account.problem is not None:
            run.results[account.name] = skipped_result(account)
            write_account_files(paths, run.results[account.name], None)
            if on_account is not None:
                on_account(run.results[account.name])
    runnable = [a.as_case() for a in accounts if a.problem is None]

    async def done(case: Case, output: CaseOutput, repeat: int) -> None:
        ref = await reference.run(case) if reference is not None else None
        result = account_result(by_name[case.case_id], case, output, ref, figures=figures)
        run.results[case.case_id] = result
        write_account_files(paths, result, output)
        if on_account is not None:
            on_account(result)

    status = "cancelled"
    try:
        outcome = await run_cases(runnable, backend, concurrency=concurrency, on_progress=on_progress,
                                  cancel=cancel, on_case_done=done)
        status = "complete" if outcome.status != "cancelled" else "cancelled"
    finally:
        for case in runnable:
            if case.case_id not in run.results:
                run.results[case.case_id] = skipped_result(by_name[case.case_id], NOT_RUN,
                                                           "the run stopped before this account finished; rerun")
        run.results = dict(sorted(run.results.items()))
        run.manifest = {**header, "backend_details": backend.describe(), "finished_at": now_iso(), "status": status,
                        "counts": counts(run.results),
                        "accounts": [{k: r[k] for k in ("account", "status", "reason")} for r in run.results.values()]}
        atomic_write_text(paths.manifest, _json_text(run.manifest))
        write_index(paths, run.results, run.manifest)
    return run


# --------------------------------------------------------------------------
# Reading a weekly run back (the app)
# --------------------------------------------------------------------------


def list_weekly(results_dir: str | Path) -> list[WeeklyPaths]:
    """Every weekly run under ``results_dir``, newest first."""
    root = Path(results_dir) / WEEKLY_DIR
    if not root.is_dir():
        return []
    return [WeeklyPaths(p.parent) for p in sorted(root.glob(f"*/{WEEKLY_FILE}"), reverse=True)]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def load_results(paths: WeeklyPaths) -> dict[str, dict[str, Any]]:
    results = {}
    for path in sorted(paths.run_dir.glob("accounts/*/findings.json")):
        data = read_json(path)
        results[data["account"]] = data
    return results


def read_reviewed(paths: WeeklyPaths) -> dict[str, str]:
    """Account name -> when it was marked reviewed."""
    try:
        data = read_json(paths.reviewed)
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def set_reviewed(paths: WeeklyPaths, name: str, reviewed: bool) -> dict[str, str]:
    marks = read_reviewed(paths)
    if reviewed:
        marks[name] = now_iso()
    else:
        marks.pop(name, None)
    atomic_write_text(paths.reviewed, _json_text(dict(sorted(marks.items()))))
    return marks
