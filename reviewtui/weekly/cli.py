"""``reviewtui weekly ACCOUNTS``: the stamp check, then the assistant on every account.

Exit codes: 0 every account's report is ready to send; 1 refused by the
stamp check (one line per reason on stderr, no backend built, no API call);
2 bad usage (no accounts folder, no API key, bad option); 3 the run finished
but some account failed, was skipped, did not run or is held for review
(the index says which).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from ..cli_args import parse_args
from .. import assistant
from ..backends import BackendUsageError, create_backend
from ..eval import make_backend
from ..runs.settings import DEFAULT_CONCURRENCY, RunSettings, UsageError
from ..runs.runner import Progress, cancel_on_sigint
from .accounts import load_accounts
from .run import READY, WeeklyPaths, run_weekly, today
from .stamp import check_stamp

EXIT_REFUSED = 1
EXIT_USAGE = 2


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
                        help="the case set the stamp must have been made on (default: ./cases)")
    parser.add_argument("--results-dir", default="results", metavar="DIR",
                        help="where the stamp is read and the weekly run written (default: ./results)")
    parser.add_argument("--model", default=assistant.DEFAULT_MODEL,
                        help=f"claude model; must be the model of the stamp (default {assistant.DEFAULT_MODEL})")
    parser.add_argument("--max-age", type=float, metavar="DAYS",
                        help="refuse a stamp whose run finished more than DAYS days ago")
    parser.add_argument("--check", action="store_true", help="only check the stamp: exit 0 allowed, 1 refused")
    parser.add_argument("--date", default=None, metavar="YYYY-MM-DD",
                        help="name of the weekly folder (default: today, UTC); a rerun the same day resumes")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, metavar="N",
                        help=f"accounts in flight at once (default {DEFAULT_CONCURRENCY})")
    parser.add_argument("--max-tokens", type=int, metavar="N", help="as for reviewtui eval")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="as for reviewtui eval")
    parser.add_argument("--max-retries", type=int, metavar="N", help="as for reviewtui eval")
    parser.add_argument("--no-cache", action="store_true", help="do not answer from the response cache")
    return parser


def claude_backend(args: argparse.Namespace) -> Any:
    """The Claude backend exactly as ``reviewtui eval`` builds it: same settings, client, cache and retries.

    Raises UsageError (a SettingsError naming the flag for a bad --max-tokens, --timeout or --max-retries).
    """
    settings = RunSettings(backend="claude", results_dir=Path(args.results_dir), model=args.model,
                           max_tokens=args.max_tokens, use_cache=not args.no_cache, timeout=args.timeout,
                           max_retries=args.max_retries)
    return make_backend("claude", settings)


def _progress(p: Progress) -> None:
    if p.case_id is not None:
        what = f"error: {p.error}" if p.error else "answered" + (" (from the cache)" if p.cached else "")
        print(f"[{p.done}/{p.total}] {p.case_id}: {what}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args, code = parse_args(build_parser(), argv)
    if args is None:
        return code
    accounts_dir = Path(args.accounts)
    if not accounts_dir.is_dir():
        print(f"reviewtui weekly: {accounts_dir} is not a folder of account snapshots", file=sys.stderr)
        return EXIT_USAGE
    if args.concurrency < 1:
        print("reviewtui weekly: --concurrency must be at least 1", file=sys.stderr)
        return EXIT_USAGE

    check = check_stamp(args.results_dir, args.cases, model=args.model, max_tokens=args.max_tokens,
                        max_age_days=args.max_age)
    if not check.allowed:
        print(f"reviewtui weekly: refused: prompt version {assistant.PROMPT_VERSION} has not cleared the gate "
              f"for the weekly run ({len(check.reasons)} reason(s)); no request was made", file=sys.stderr)
        for reason in check.reasons:
            print(f"refused: {reason}", file=sys.stderr)
        return EXIT_REFUSED
    stamp = check.stamp()
    print(f"stamp ok: {check.manifest_path}: prompt {stamp['prompt_version']} (sha256 "
          f"{str(stamp['prompt_sha256'])[:12]}), model {stamp['model']}, passed the gate, finished "
          f"{stamp['finished_at']}", flush=True)
    if args.check:
        return 0

    accounts = load_accounts(accounts_dir)
    if not accounts:
        print(f"reviewtui weekly: no account snapshots in {accounts_dir} (<name>.json or <name>/snapshot.json)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        backend = claude_backend(args)
        reference = create_backend("rules")
    except (UsageError, BackendUsageError) as exc:
        print(f"reviewtui weekly: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for account in accounts:
        if account.problem:
            print(f"skipped {account.name}: {account.problem}", file=sys.stderr)
    paths = WeeklyPaths.for_date(args.results_dir, args.date or today())
    print(f"running {sum(1 for a in accounts if not a.problem)} account(s) with concurrency {args.concurrency}; "
          f"writing {paths.run_dir}", file=sys.stderr, flush=True)
    try:
        run = asyncio.run(_run(accounts, backend, reference, paths, stamp, args))
    except KeyboardInterrupt:
        print("cancelled: what finished is kept; a rerun answers finished accounts from the cache", file=sys.stderr)
        return 3
    for name, result in run.results.items():
        flag = "" if result["status"] == READY else f": {result['reason']}"
        print(f"{name:<24} {result['status']}{flag}")
    print(f"index: {paths.index_md} and {paths.index_csv}")
    return run.exit_code


async def _run(accounts, backend, reference, paths, stamp, args):
    """Ctrl-C stops new accounts and keeps those that finished, as in ``reviewtui eval``."""
    cancel = asyncio.Event()
    try:
        with cancel_on_sigint(cancel):
            return await run_weekly(accounts, backend, reference, paths=paths, stamp=stamp,
                                    figures=stamp.get("figures") or "derived", concurrency=args.concurrency,
                                    on_progress=_progress, cancel=cancel)
    finally:
        await backend.aclose()
        await reference.aclose()
