"""``reviewtui weekly ACCOUNTS``: the stamp check, then the assistant on every account (``weekly/``).

Exit codes: 0 every account's report is ready to send; 1 refused by the
stamp check (one line per reason on stderr, no backend built, no API call);
2 bad usage (no accounts folder, no API key, bad option, two accounts with
one name); 3 the run finished but some account failed, was skipped, did not
run or is held for review (the index says which), or it could not finish
(Ctrl-C, another weekly run writing the same folder, a full disk or a
read-only results folder, a batch not ended in time). Everything printed
that quotes an account's name or an error has its control characters made
visible.

``--batch`` sends the accounts as one Message Batch (``run.WeeklyBatch``);
the stamp is checked first, as for a direct run, so a refused stamp makes no
batch.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from pathlib import Path
from typing import Any, Callable, TextIO


from .. import assistant
from ..backends import Backend, BackendUsageError, create_backend
from ..files.untrusted import printable
from ..runs.batch import DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_SECONDS, BatchState, BatchStateError
from ..runs.result_files import ResultsError, RunPaths, refuse_results_in_cases, write_error
from ..runs.identity import WEEKLY_DIR
from ..runs.run_folder import RunLockedError
from ..runs.settings import DEFAULT_CONCURRENCY, RunSettings, UsageError, flag_type
from ..runs.runner import Progress, cancel_on_sigint
from ..runs.signature import KEY_ENV, SignatureError, key_path, load_key
from ..runs.summary import usage_text
from ..weekly.accounts import Account, load_accounts, name_clashes
from ..weekly.reports import stamp_words
from ..weekly.results import READY
from ..weekly.folder import WeeklyPaths
from ..weekly.run import WeeklyBatch, WeeklyRun, batch_state_path, claude_backend, run_day, run_weekly, today
from ..weekly.stamp import check_stamp, prompt_problem
from .args import EXIT_USAGE, parse_args

EXIT_REFUSED = 1
EXIT_INCOMPLETE = 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui weekly",
        description="Run the audit assistant on every account snapshot in ACCOUNTS, only if the current prompt "
        "version has a complete Claude run that passed the gate with the same prompt text, case set and model; "
        "write results/weekly/<date>/ (a report per account and an index).",
        epilog="exit codes: 0 every report ready to send, 1 refused by the stamp check (no API call), "
        "2 bad usage, 3 some account failed, was skipped or is held for review (see the index)",
    )
    parser.add_argument("accounts", metavar="ACCOUNTS",
                        help="a folder of account snapshots: <name>.json or <name>/snapshot.json each")
    parser.add_argument("--cases", default="cases", metavar="DIR",
                        help="the case set the stamp must have been made on: the project's, ./cases (any other "
                        "folder is refused)")
    parser.add_argument("--results-dir", default="results", metavar="DIR",
                        help="where the stamp is read and the weekly run written (default: ./results)")
    parser.add_argument("--model", default=assistant.DEFAULT_MODEL,
                        help=f"claude model; must be the model of the stamp (default {assistant.DEFAULT_MODEL})")
    parser.add_argument("--max-age", type=_max_age, metavar="DAYS",
                        help="refuse a stamp whose run finished more than DAYS days ago (a number above 0)")
    parser.add_argument("--check", action="store_true", help="only check the stamp: exit 0 allowed, 1 refused")
    parser.add_argument("--date", default=None, type=_date, metavar="YYYY-MM-DD",
                        help="the day of the weekly folder (default: today, UTC); a rerun of the same accounts "
                        "folder the same day replaces its own run, answered from the response cache")
    parser.add_argument("--stamp-key", metavar="FILE",
                        help="refuse a stamp not signed with this key by `reviewtui eval --stamp-key` (default: "
                        f"the file {KEY_ENV} names, if set)")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, metavar="N",
                        help=f"accounts in flight at once (default {DEFAULT_CONCURRENCY})")
    parser.add_argument("--max-tokens", type=int, metavar="N", help="as for reviewtui eval")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="as for reviewtui eval")
    parser.add_argument("--max-retries", type=int, metavar="N", help="as for reviewtui eval")
    parser.add_argument("--no-cache", action="store_true", help="do not answer from the response cache")
    parser.add_argument("--batch", action="store_true",
                        help="send the accounts as one Message Batch (half the price, answers within 24 hours); its "
                        "id is kept in results/weekly/.work/batch.json, so rerunning the same command resumes it")
    parser.add_argument("--batch-poll", type=flag_type("batch_poll"), default=DEFAULT_POLL_SECONDS, metavar="SECONDS",
                        help=f"with --batch: seconds between status checks (default {DEFAULT_POLL_SECONDS:g})")
    parser.add_argument("--batch-timeout", type=flag_type("batch_timeout"), default=DEFAULT_TIMEOUT_SECONDS,
                        metavar="SECONDS", help="with --batch: stop waiting after this long (the batch keeps running "
                        f"and a rerun collects it; default {DEFAULT_TIMEOUT_SECONDS:g}: the API ends a batch within "
                        "24 hours)")
    return parser


MAX_AGE_DAYS = 3650.0


def _max_age(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not math.isfinite(days) or not 0 < days <= MAX_AGE_DAYS:
        raise argparse.ArgumentTypeError(f"{text} must be a number of days above 0 and at most {MAX_AGE_DAYS:g}")
    return days


def _date(text: str) -> str:
    try:
        return run_day(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The Claude settings of ``reviewtui weekly``'s flags: the same object ``reviewtui eval`` runs with.

    Raises UsageError (a SettingsError naming the flag for a bad --max-tokens, --timeout or --max-retries).
    """
    return RunSettings(backend="claude", cases_dir=Path(args.cases), results_dir=Path(args.results_dir),
                       model=args.model, max_tokens=args.max_tokens, use_cache=not args.no_cache,
                       timeout=args.timeout, max_retries=args.max_retries, stamp_key=key_path(args.stamp_key))


def _say(text: str, stream: TextIO | None = None) -> None:
    """A line on the terminal (stderr by default) with the control characters of names and errors made visible."""
    print(printable(text, one_line=True), file=stream or sys.stderr, flush=True)


def _progress(p: Progress) -> None:
    if p.case_id is not None:
        what = f"error: {p.error}" if p.error else "answered" + (" (from the cache)" if p.cached else "")
        _say(f"[{p.done}/{p.total}] {p.case_id}: {what}")


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(build_parser(), argv)
    if args is None:
        return code
    accounts_dir = Path(args.accounts)
    if not accounts_dir.is_dir():
        _say(f"reviewtui weekly: {accounts_dir} is not a folder of account snapshots")
        return EXIT_USAGE
    if args.concurrency < 1:
        _say("reviewtui weekly: --concurrency must be at least 1")
        return EXIT_USAGE
    try:
        refuse_results_in_cases(args.results_dir, args.cases)
    except ResultsError as exc:
        _say(f"reviewtui weekly: {exc}")
        return EXIT_USAGE
    try:
        key_file = key_path(args.stamp_key)
        key = load_key(key_file, cases_dir=Path(args.cases), results_dir=Path(args.results_dir)) if key_file else None
    except SignatureError as exc:
        _say(f"reviewtui weekly: {exc}")
        return EXIT_USAGE

    problem = prompt_problem(args.max_tokens)
    if problem:
        _say(f"reviewtui weekly: {problem}")
        return EXIT_USAGE
    check = check_stamp(args.results_dir, args.cases, model=args.model, max_tokens=args.max_tokens,
                        max_age_days=args.max_age, stamp_key=key)
    if not check.allowed:
        _say(f"reviewtui weekly: refused: prompt version {assistant.PROMPT_VERSION} has not cleared the gate "
             f"for the weekly run ({len(check.reasons)} reason(s)); no request was made")
        for reason in check.reasons:
            _say(f"refused: {reason}")
        return EXIT_REFUSED
    stamp = check.stamp()
    _say(f"stamp ok: {check.manifest_path}: {stamp_words(stamp)}, passed the gate"
         + (", signature checked" if key is not None else ""), sys.stdout)
    if args.check:
        return 0

    accounts = load_accounts(accounts_dir)
    if not accounts:
        _say(f"reviewtui weekly: no account snapshots in {accounts_dir} (<name>.json or <name>/snapshot.json)")
        return EXIT_USAGE
    clashes = name_clashes(accounts)
    if clashes:
        for clash in clashes:
            _say(f"reviewtui weekly: {clash}")
        _say("reviewtui weekly: nothing was run: each account's report goes by its name")
        return EXIT_USAGE
    try:
        backend = claude_backend(run_settings(args))
        reference = create_backend("rules")
    except (UsageError, BackendUsageError) as exc:
        _say(f"reviewtui weekly: {exc}")
        return EXIT_USAGE
    if args.batch:
        try:  # a damaged state file stops the run before anything is sent or written
            BatchState.load(batch_state_path(args.results_dir))
        except BatchStateError as exc:
            _say(f"reviewtui weekly: {exc}")
            asyncio.run(_close(backend, reference))
            return EXIT_USAGE
    for account in accounts:
        if account.problem:
            _say(f"skipped {account.name}: {account.problem}")
    paths = WeeklyPaths.choose(args.results_dir, args.date or today(), accounts_dir)

    def writing(folder: WeeklyPaths) -> None:
        how = "as one Message Batch" if args.batch else f"with concurrency {args.concurrency}"
        _say(f"running {sum(1 for a in accounts if not a.problem)} account(s) {how}; writing {folder.run_dir}")

    try:
        run = asyncio.run(_run(accounts, backend, reference, paths, stamp, args, writing))
    except KeyboardInterrupt:
        _say("cancelled: what finished is kept; a rerun answers finished accounts from the cache")
        return EXIT_INCOMPLETE
    except RunLockedError as exc:
        _say(f"reviewtui weekly: {exc}")
        return EXIT_INCOMPLETE
    except BatchStateError as exc:  # damaged since the check above
        _say(f"reviewtui weekly: {exc}")
        return EXIT_USAGE
    except ResultsError as exc:  # a folder on the way is a link: nothing was written or sent
        _say(f"reviewtui weekly: {exc}")
        return EXIT_USAGE
    except OSError as exc:
        _say(f"reviewtui weekly: {write_error(RunPaths(Path(args.results_dir) / WEEKLY_DIR, paths.run_dir.name), exc)}")
        return EXIT_INCOMPLETE
    if run.kept_previous:
        _say(f"cancelled: the complete run already in {run.paths.run_dir} is kept as it was (a cancelled rerun never "
             "replaces a complete run); a rerun answers finished accounts from the cache")
        return EXIT_INCOMPLETE
    for name, result in run.results.items():
        flag = "" if result["status"] == READY else f": {result['reason']}"
        _say(f"{name:<24} {result['status']}{flag}", sys.stdout)
    _say(f"tokens: {usage_text(run.manifest.get('usage') or {})}"
         + (" (batched: each token at half the price)" if args.batch else ""), sys.stdout)
    _say(f"index: {paths.index_md} and {paths.index_csv}", sys.stdout)
    return run.exit_code


async def _run(accounts: list[Account], backend: Backend, reference: Backend, paths: WeeklyPaths, stamp: dict[str, Any],
               args: argparse.Namespace, on_folder: Callable[[WeeklyPaths], None]) -> WeeklyRun:
    """Ctrl-C stops new accounts (with --batch: the wait) and keeps those that finished, as in ``reviewtui eval``."""
    cancel = asyncio.Event()
    batch = WeeklyBatch(args.batch_poll, args.batch_timeout) if args.batch else None
    try:
        with cancel_on_sigint(cancel):
            return await run_weekly(accounts, backend, reference, paths=paths, stamp=stamp,
                                    figures=stamp.get("figures") or "derived", concurrency=args.concurrency,
                                    on_progress=_progress, cancel=cancel, accounts_dir=args.accounts,
                                    batch=batch, on_note=_say, on_folder=on_folder)
    finally:
        await _close(backend, reference)


async def _close(backend: Backend, reference: Backend) -> None:
    await backend.aclose()
    await reference.aclose()
