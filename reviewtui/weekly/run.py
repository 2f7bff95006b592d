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

The run writes its own folder (``results/weekly/.work/<name>/``, an account
as soon as it finishes) and takes the place of ``results/weekly/<name>/``
only when it ends (``runs/run_folder.StagedFolder``): a run killed or
failing midway leaves the previous folder as it was, and a second run on the
same folder at the same time is refused. ``<name>`` is the day, or
``<day>-2``, ``<day>-3``... when that day's folder holds (or is being
written by) a run of another accounts folder: the folder is chosen under its
lock (``claim_folder``), so two runs of one day never replace each other,
even when started together. A rerun of the same accounts folder replaces its
own (answered from the response cache), except that a cancelled rerun never
replaces a complete run (the complete one stays, the rerun's answers are in
the cache), and an account the rerun does not produce (its file removed, or
not run) keeps its previous report, marked as carried over. Reviewed marks
stay with every report that did not change.

With ``batch`` (``reviewtui weekly --batch``) the accounts go as one Message
Batch (``runs/batch.py``, the eval's own path) instead of one request each:
half the price, answers within 24 hours. Its state file is
``results/weekly/.work/batch.json``, shared by every weekly batch run and
held under ``results/weekly/.work/batch.lock`` while one runs: a request is
known by its content (the prompt, the account's snapshot, the model), so a
rerun resumes the batch that holds its accounts whatever the day or the
folder's name, and nothing is asked for twice. Each answer, direct or
batched, goes through the same ``done``: scored, held or passed, its report
written the moment it comes back.

The assistant's answer is scored like a case with no expectations
(``scoring.score_case``): the same parsing and the same figure grounding as
the eval, against the account's own snapshot. An account is ready to send
only when nothing holds it (``hold_reasons``): a figure the snapshot does not
support (fabricated), a finding with no figure checked against the data (an
untraceable figure is not checked: ``checked``), amounts in
another currency than the account's, or a disagreement of the reference
auditor (or no opinion from it). A hollow answer (no finding, or a finding
without claim or evidence) is a failed account.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, UTC
from pathlib import Path
from typing import Any, Callable, Mapping, cast

from ..assistant import OutputError, parse_output
from ..files.atomic import atomic_write_text, staged_write_text, sync_tree
from ..backends.base import Backend, CaseOutput
from ..caseset.cases import Case
from ..runs.identity import WEEKLY_DIR
from ..runs.batch import DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_SECONDS, BatchState, run_batch
from ..runs.result_files import ResultsError, now_iso
from ..backends.provenance import new_run_id
from ..runs.run_folder import BATCH_STATE, WORK_DIR, FolderLock, RunLockedError, StagedFolder
from ..runs.manifest_fields import RunStatus
from ..runs.runner import Progress, RunOutcome, run_cases
from ..runs.session import make_backend
from ..runs.settings import RunSettings
from ..runs.usage import usage_of
from ..scoring.score import GROUNDED, figure_status, score_case
from .accounts import Account
from .currency import currency_problems
from .results import (FAILED, HOLD, NOT_RUN, READY, SKIPPED, STATUSES, AccountLine, AccountResult, AccountStatus,
                      SecondOpinion, UngroundedFigure, WeeklyFinding, WeeklyManifest, read_account_result,
                      read_weekly_manifest)
from .folder import WEEKLY_FILE, WeeklyPaths, read_json
from .reports import write_account_files, write_index

def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class WeeklyBatch:
    """``--batch``: how the run waits for its Message Batch."""

    poll_seconds: float = DEFAULT_POLL_SECONDS
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS


# A collected batch is forgotten from the shared state file after this long (its answers are in the cache).
FORGET_COLLECTED_DAYS = 35


def batch_state_path(results_dir: str | Path) -> Path:
    """The weekly runs' batch state, in no run's folder: where a rerun on any day looks first."""
    return Path(results_dir) / WEEKLY_DIR / WORK_DIR / BATCH_STATE


def _batch_lock(state: Path) -> FolderLock:
    return FolderLock(state.with_suffix(".lock"), "weekly batch run")


_RUN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})(?:-(\d+))?")


def _same_accounts(paths: WeeklyPaths, source: str) -> bool:
    """Whether the folder at ``paths`` is free, or holds a run of the accounts folder ``source``."""
    if not (paths.run_dir.exists() or paths.run_dir.is_symlink()):
        return True
    try:
        return read_weekly_manifest(paths.manifest).get("accounts_dir") == source
    except (OSError, ResultsError):
        return False  # unreadable: not ours to replace


def claim_folder(paths: WeeklyPaths, accounts_dir: str | Path | None) -> tuple[WeeklyPaths, StagedFolder]:
    """The folder a run of ``accounts_dir`` writes, its lock held: ``paths``, or the next ``<day>-N`` when that one
    holds or is being written by a run of another accounts folder (looked at again once the lock is held, so two
    runs started together never take one folder). Without ``accounts_dir``, ``paths`` itself.

    Raises RunLockedError when a run of the same accounts folder writes it now, LinkedFolderError when a folder on
    the way is a link.
    """
    root = paths.run_dir.parent
    source = str(Path(accounts_dir).resolve()) if accounts_dir is not None else None
    named = _RUN_NAME.fullmatch(paths.run_dir.name)
    first = int(named.group(2) or 1) if named else 1
    for n in range(first, 1000) if named and source is not None else [first]:
        candidate = paths if not named or n == first else WeeklyPaths(root / f"{named.group(1)}-{n}")
        if source is not None and not _same_accounts(candidate, source):
            continue
        staged = StagedFolder(candidate.run_dir, root / WORK_DIR, f"weekly run {candidate.run_dir.name}",
                              top=root.parent, owner=source)
        try:
            staged.acquire(f"cannot write the weekly run {candidate.run_dir}")
        except RunLockedError as exc:
            if source is None or exc.owner in (None, source):
                raise
            continue  # another accounts folder's run is writing it: the next one
        if source is not None and not _same_accounts(candidate, source):
            staged.release()  # taken while we looked: the next one
            continue
        return candidate, staged
    raise ValueError(f"{root}: a thousand weekly runs on {paths.run_dir.name} already; move some away")


def today() -> str:
    return datetime.now(UTC).date().isoformat()


# How far ahead of today (UTC) --date may be: the day is somewhere's today, or a run planned for the coming days.
MAX_DAYS_AHEAD = 31
EARLIEST_DAY = date(2000, 1, 1)  # before any ad platform's export: a typo


def run_day(text: str, now: date | None = None) -> str:
    """``--date``: a real calendar date written YYYY-MM-DD (so the folder stays inside results/weekly), at most
    ``MAX_DAYS_AHEAD`` days after today (a folder dated 9999 would sort first forever) and not before
    ``EARLIEST_DAY``; ValueError."""
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise ValueError
        day = date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a date written YYYY-MM-DD") from None
    latest = (now or datetime.now(UTC).date()) + timedelta(days=MAX_DAYS_AHEAD)
    if day > latest:
        raise ValueError(f"{text} is more than {MAX_DAYS_AHEAD} days after today (at most {latest.isoformat()})")
    if day < EARLIEST_DAY:
        raise ValueError(f"{text} is before {EARLIEST_DAY.isoformat()}: not a day a weekly run was made")
    return day.isoformat()


# --------------------------------------------------------------------------
# One account
# --------------------------------------------------------------------------


def _matches(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Same finding kind, and the same campaign (an unscoped finding covers any campaign)."""
    return a["id"] == b["id"] and (a.get("scope") is None or b.get("scope") is None or a["scope"] == b["scope"])


def second_opinion(findings: list[WeeklyFinding], reference: CaseOutput | None) -> SecondOpinion:
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


def checked(figure: dict[str, Any]) -> bool:
    """Whether a scored figure was checked against the account's data and found there: recomputed from
    its declaration, or (in an answer that declares nothing) grounded by the prose rules. An untraceable
    figure (grounded only by the prose rules in an answer that declares its figures) is not checked: a
    finding that has only such figures holds the report. A fabricated one holds it by itself."""
    return figure.get("grounded") is True and figure_status(figure) == GROUNDED


def hollow_problems(findings: list[WeeklyFinding]) -> list[str]:
    """Why an answer that parsed still says nothing a report can carry (empty when it says something)."""
    if not findings:
        return ["the answer has no finding (the output schema asks for at least one; an account with nothing "
                "wrong gets summary.no_material_issues)"]
    return [f"finding {n} ({f['id']}) has no {field}" for n, f in enumerate(findings, 1)
            for field in ("claim", "evidence") if not str(f.get(field) or "").strip()]


def hold_reasons(findings: list[WeeklyFinding], ungrounded: list[UngroundedFigure], opinion: SecondOpinion,
                 currency: str | None) -> list[str]:
    """Everything that keeps a report from going out as it is, one line each; empty when it may go."""
    holds = []
    if ungrounded:
        holds.append(f"{len(ungrounded)} figure(s) not found in the account's data")
    unchecked = [f"{n} ({f['id']})" for n, f in enumerate(findings, 1) if not any(checked(x) for x in f["figures"])]
    if unchecked:
        holds.append(f"finding(s) {', '.join(unchecked)} have no figure checked against the account's data")
    holds += currency_problems(findings, currency)
    if opinion.get("error"):
        holds.append(f"no second opinion from the reference auditor ({opinion['error']})")
    elif opinion.get("auditor_only") or opinion.get("assistant_only"):
        holds.append(f"the reference auditor disagrees: it finds {len(opinion.get('auditor_only') or [])} "
                     f"finding(s) the assistant does not say, and does not support "
                     f"{len(opinion.get('assistant_only') or [])} the assistant says")
    return holds


def account_result(account: Account, case: Case, output: CaseOutput, reference: CaseOutput | None, *,
                   figures: str) -> AccountResult:
    """The account's findings.json: status, why it is held or failed, findings with their figures, the second opinion."""
    base = {**_identity(account), "model": output.model, "cached": output.cached,
            "input_tokens": output.input_tokens, "output_tokens": output.output_tokens}
    score = score_case(case, output, figures=figures)
    if score.status != "ok":
        reason = score.error or f"the answer cannot be read: {score.parse_error}"
        return cast(AccountResult, {**base, "status": FAILED, "reason": reason, "holds": [], "findings": [], "ungrounded": [],
                                    "figures": 0, "second_opinion": second_opinion([], reference)})
    findings: list[WeeklyFinding] = []
    for i, row in enumerate(score.findings):
        finding = cast(WeeklyFinding, {k: row[k] for k in ("id", "scope", "full_id", "claim", "evidence", "severity")})
        finding["figures"] = [{k: v for k, v in fig.items() if k != "finding_index"}
                              for fig in score.figures if fig["finding_index"] == i]
        findings.append(finding)
    hollow = hollow_problems(findings)
    if hollow:
        return cast(AccountResult, {**base, "status": FAILED, "reason": "the answer is hollow: " + "; ".join(hollow),
                                    "holds": [], "findings": findings, "ungrounded": [], "figures": 0,
                                    "second_opinion": second_opinion([], reference)})
    ungrounded: list[UngroundedFigure] = [{"finding": fig["finding_index"] + 1, "field": fig["field"], "text": fig["text"],
                   "reason": fig["reason"]} for fig in score.fabricated_figures]
    opinion = second_opinion(findings, reference)
    holds = hold_reasons(findings, ungrounded, opinion, account.currency)
    return cast(AccountResult, {**base, "status": HOLD if holds else READY, "reason": "; ".join(holds), "holds": holds,
                                "findings": findings, "ungrounded": ungrounded, "figures": len(score.figures),
                                "second_opinion": opinion})


def skipped_result(account: Account, status: AccountStatus = SKIPPED, reason: str | None = None) -> AccountResult:
    return cast(AccountResult, {**_identity(account), "status": status, "reason": reason or account.problem or "",
                                "holds": [], "findings": [], "ungrounded": [], "figures": 0, "second_opinion": None})


# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviousRun:
    """The run a new one replaces: a run of the same accounts folder in the folder it takes."""

    paths: WeeklyPaths
    status: str | None
    started_at: str | None
    results: dict[str, AccountResult]
    unreadable: dict[str, str] = field(default_factory=dict)  # account folder -> why its findings.json cannot be read


@dataclass
class WeeklyRun:
    paths: WeeklyPaths
    manifest: WeeklyManifest
    results: dict[str, AccountResult] = field(default_factory=dict)
    kept_previous: bool = False  # cancelled over a complete run of the same accounts: that one was kept instead

    @property
    def exit_code(self) -> int:
        """0 every account ready to send; 3 some account failed, was skipped, not run or is on hold."""
        return 0 if self.results and all(r["status"] == READY for r in self.results.values()) else 3


def counts(results: dict[str, AccountResult]) -> dict[str, int]:
    return {status: sum(1 for r in results.values() if r["status"] == status) for status in STATUSES}


async def run_weekly(accounts: list[Account], backend: Backend, reference: Backend | None, *,
                     paths: WeeklyPaths, stamp: dict[str, Any], figures: str = "derived", concurrency: int = 4,
                     on_progress: Callable[[Progress], None] | None = None,
                     on_account: Callable[[AccountResult], None] | None = None,
                     cancel: asyncio.Event | None = None, accounts_dir: str | Path | None = None,
                     batch: WeeklyBatch | None = None, on_note: Callable[[str], None] | None = None,
                     on_folder: Callable[[WeeklyPaths], None] | None = None) -> WeeklyRun:
    """Run every readable account; write each as it lands, the index at the end, then take the folder's place.

    The folder is ``paths``, or with ``accounts_dir`` the one ``claim_folder`` takes from there
    (``on_folder`` hears which, before the first request). With ``batch``, the accounts not answered
    from the response cache go as one Message Batch (resumed, not sent again, when a batch already
    holds them); ``on_note`` hears what the wait says. The caller owns both backends and closes them.
    Raises RunLockedError when another run of the same accounts writes the folder now (or, with
    ``batch``, another weekly batch run is under way), LinkedFolderError when a folder on the way is a
    link, BatchStateError for a damaged batch state file, and OSError when the run's files cannot be
    written (the folder is left as it was).
    """
    paths, staged = claim_folder(paths, accounts_dir)
    state = batch_state_path(paths.run_dir.parent.parent) if batch is not None else None
    batch_lock = _batch_lock(state) if state is not None else None
    try:
        if batch_lock is not None and state is not None:
            batch_lock.acquire("cannot send or collect the weekly batch")
            BatchState.load(state).forget_collected(time.time() - FORGET_COLLECTED_DAYS * 86400)
        previous = _previous_run(paths, accounts_dir)
        if on_folder is not None:
            on_folder(paths)
        staged.start()
        work = WeeklyPaths(staged.work)
        run = await _run_accounts(accounts, backend, reference, work=work, stamp=stamp, figures=figures,
                                  concurrency=concurrency, on_progress=on_progress, on_account=on_account,
                                  cancel=cancel, accounts_dir=accounts_dir, write_account_files=write_account_files,
                                  write_index=write_index, batch=batch, batch_state=state, on_note=on_note,
                                  previous=previous)
        if run.manifest["status"] != "complete" and previous is not None and previous.status == "complete":
            staged.discard()  # a cancelled rerun never replaces a complete run
            run.kept_previous = True
        else:
            _carry_reviewed(paths, work)
            sync_tree(staged.work)  # written plainly as the accounts finished: durable now, before it is the run
            staged.swap_in()
    finally:
        if batch_lock is not None:
            batch_lock.release()
        staged.release()
    run.paths = paths
    return run


def _previous_run(paths: WeeklyPaths, accounts_dir: str | Path | None) -> PreviousRun | None:
    """The run the new one replaces (a run of the same accounts folder in its folder): status, start, results.

    A link in its place is no run of ours: it is removed as the link, nothing is read through it."""
    if accounts_dir is None or paths.run_dir.is_symlink() or not paths.manifest.is_file():
        return None
    try:
        manifest = read_weekly_manifest(paths.manifest)
        if manifest.get("accounts_dir") != str(Path(accounts_dir).resolve()):
            return None
    except (OSError, ResultsError):
        return None
    results, unreadable = read_results(paths)
    return PreviousRun(paths, manifest.get("status"), manifest.get("started_at"), results, unreadable)


def _carry_previous(previous: PreviousRun, work: WeeklyPaths, results: dict[str, AccountResult],
                    on_note: Callable[[str], None] | None = None) -> None:
    """The previous run's accounts this run did not produce (not in it, or not run): their files and rows, kept.

    An account whose findings.json could not be read is said (``on_note``) and, unless this run produced it,
    its files are kept as they are: the new run's folder names it as unreadable, as the previous one did."""
    old_paths = previous.paths
    for name, old in previous.results.items():
        new = results.get(name)
        if old["status"] == NOT_RUN or (new is not None and new["status"] != NOT_RUN):
            continue
        _copy_account(old_paths, work, name)
        note = f"kept from the run started {previous.started_at}: this run did not produce it"
        results[name] = {**old, "carried_from": previous.started_at,
                         "reason": f"{note}; {old['reason']}" if old.get("reason") else note}
        atomic_write_text(work.findings(name), _json_text(results[name]))
    for name, problem in previous.unreadable.items():
        new = results.get(name)
        if new is not None and new["status"] != NOT_RUN:
            what = "this run's report replaces it"
        else:
            _copy_account(old_paths, work, name)
            results.pop(name, None)
            what = "its files are kept as they are (fix or remove them; the index does not list it)"
        if on_note is not None:
            on_note(f"the run started {previous.started_at} had an account that could not be read: {problem}; {what}")


def _copy_account(old_paths: WeeklyPaths, work: WeeklyPaths, name: str) -> None:
    """An account's files of the previous run, copied into this run's folder (links left out)."""
    target = work.account_dir(name)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for source in old_paths.account_dir(name).iterdir():
        if source.is_file() and not source.is_symlink():
            shutil.copyfile(source, target / source.name)


async def _run_accounts(accounts: list[Account], backend: Backend, reference: Backend | None, *, work: WeeklyPaths,
                        stamp: dict[str, Any], figures: str, concurrency: int,
                        on_progress: Callable[[Progress], None] | None,
                        on_account: Callable[[AccountResult], None] | None, cancel: asyncio.Event | None,
                        accounts_dir: str | Path | None, write_account_files: Callable[..., None],
                        write_index: Callable[..., None], batch: WeeklyBatch | None = None,
                        batch_state: Path | None = None, on_note: Callable[[str], None] | None = None,
                        previous: PreviousRun | None = None) -> WeeklyRun:
    backend.run_id = new_run_id()  # recorded with every answer this run gets from the API
    header: WeeklyManifest = {"kind": "weekly", "run_id": backend.run_id, "started_at": now_iso(), "stamp": stamp, "figures": figures,
              "accounts_dir": str(Path(accounts_dir).resolve()) if accounts_dir is not None else None,
              "backend": backend.name, "backend_details": backend.describe(), "concurrency": concurrency,
              "batch": batch is not None, "reference": reference.describe() if reference is not None else None}
    run = WeeklyRun(work, {**header, "status": "running"})
    staged_write_text(work.manifest, _json_text(run.manifest))

    by_name = {a.name: a for a in accounts}
    for account in accounts:
        if account.problem is not None:
            run.results[account.name] = skipped_result(account)
            write_account_files(work, run.results[account.name], None)
            if on_account is not None:
                on_account(run.results[account.name])
    runnable = [a.as_case() for a in accounts if a.problem is None]
    batches: set[str] = set()  # the batches whose answers this run reports

    async def done(case: Case, output: CaseOutput, repeat: int) -> None:
        """One answer, direct or batched: scored, held or passed, its files written now."""
        if output.batch and output.provenance and output.provenance.get("batch_id"):
            batches.add(str(output.provenance["batch_id"]))
        ref = await reference.run(case) if reference is not None else None
        result = account_result(by_name[case.case_id], case, output, ref, figures=figures)
        run.results[case.case_id] = result
        write_account_files(work, result, output)
        if on_account is not None:
            on_account(result)

    unfinished = ("its batch had not ended when the run stopped waiting; rerun the same command to collect it "
                  "(nothing is sent again)" if batch is not None
                  else "the run stopped before this account finished; rerun")

    def finish(status: RunStatus, outcome: RunOutcome | None = None) -> None:
        for case in runnable:
            if case.case_id not in run.results:
                run.results[case.case_id] = skipped_result(by_name[case.case_id], NOT_RUN, unfinished)
        if previous is not None:
            _carry_previous(previous, work, run.results, on_note)
        run.results = dict(sorted(run.results.items()))
        run.manifest = {**header, "backend_details": backend.describe(), "finished_at": now_iso(), "status": status,
                        **({"batches": sorted(batches), "batch_state": str(batch_state)} if batch is not None else {}),
                        "usage": usage_of(outcome.progress if outcome is not None else None),
                        "counts": counts(run.results),
                        "accounts": [cast(AccountLine, {k: v for k, v in r.items()
                                                        if k in ("account", "status", "reason", "carried_from")})
                                     for r in run.results.values()]}
        staged_write_text(work.manifest, _json_text(run.manifest))
        write_index(work, run.results, run.manifest)

    try:
        if batch is not None and batch_state is not None:
            outcome = await run_batch(runnable, backend, state_path=batch_state, poll_seconds=batch.poll_seconds,
                                      timeout_seconds=batch.timeout_seconds, on_progress=on_progress,
                                      on_note=on_note, cancel=cancel, on_case_done=done)
        else:
            outcome = await run_cases(runnable, backend, concurrency=concurrency, on_progress=on_progress,
                                      cancel=cancel, on_case_done=done)
    except OSError:
        raise  # the run's files cannot be written: nothing to finish, the previous folder stays
    except BaseException:
        finish("cancelled")  # torn down (Ctrl-C as KeyboardInterrupt): what finished is kept
        raise
    # A batch not ended in time leaves accounts not run: incomplete, as a direct run's errors leave it complete
    # with those accounts failed (the index says which either way).
    finish(outcome.status if outcome.status == "cancelled" else "incomplete" if outcome.not_run else "complete",
           outcome)
    return run


def _carry_reviewed(previous: WeeklyPaths, work: WeeklyPaths) -> None:
    """Reviewed marks of the run being replaced, for the accounts whose report did not change."""
    marks = read_reviewed(previous)
    kept = {}
    for name, when in marks.items():
        try:
            if previous.report(name).read_bytes() == work.report(name).read_bytes():
                kept[name] = when
        except OSError:
            continue
    if kept:
        staged_write_text(work.reviewed, _json_text(dict(sorted(kept.items()))))


# --------------------------------------------------------------------------
# Reading a weekly run back (the app)
# --------------------------------------------------------------------------


def list_weekly(results_dir: str | Path) -> list[WeeklyPaths]:
    """Every weekly run under ``results_dir``, newest first (``2026-12-07-2`` before ``2026-12-07``)."""
    root = Path(results_dir) / WEEKLY_DIR
    if not root.is_dir():
        return []

    def newest(path: Path) -> tuple[str, int]:
        name = path.parent.name  # <day> or <day>-N
        return name[:10], int(name[11:]) if name[11:].isdigit() else 1

    runs = [p for p in root.glob(f"*/{WEEKLY_FILE}") if not p.parent.name.startswith(".")]
    return [WeeklyPaths(p.parent) for p in sorted(runs, key=newest, reverse=True)]


def read_results(paths: WeeklyPaths) -> tuple[dict[str, AccountResult], dict[str, str]]:
    """Every account's findings.json of the run, by account name, and the accounts whose findings.json cannot
    be read: the name of its folder -> why (naming the file and the field)."""
    results, unreadable = {}, {}
    for path in sorted(paths.run_dir.glob("accounts/*/findings.json")):
        try:
            result = read_account_result(path)
        except (OSError, ResultsError) as exc:
            unreadable[path.parent.name] = str(exc) if isinstance(exc, ResultsError) else f"{path}: cannot be read ({exc})"
            continue
        results[result["account"]] = result
    return results, unreadable


def load_results(paths: WeeklyPaths, problems: list[str] | None = None) -> dict[str, AccountResult]:
    """Every account's findings.json of the run, by account name. An unreadable one is left out and,
    when ``problems`` is given, said there (naming the file and the field); otherwise a ResultsError says it."""
    results, unreadable = read_results(paths)
    if unreadable and problems is None:
        raise ResultsError(next(iter(unreadable.values())))
    if problems is not None:
        problems.extend(unreadable.values())
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


def claude_backend(settings: RunSettings) -> Backend:
    """The Claude backend as ``reviewtui eval`` builds it: same settings, client, cache and retries; it reads
    from the response cache only answers with the API's whole record (and, with a stamp key, signed)."""
    return make_backend("claude", settings, require_record=True)
