"""``reviewtui eval`` (also ``python -m reviewtui.commands.eval``): run, score, write results, gate.

Progress goes to stderr, the summary to stdout, the results to disk
(``runs/result_files.py`` describes the files). Exit codes: 0 gate passed, 1 gate
failed, 2 bad usage or invalid case set (nothing scored), 3 run incomplete
(a case could not be obtained, or the run was cancelled: no verdict).

The run itself is ``runs/session.py``'s, the same as the app's; this module
reads the flags into ``RunSettings`` (``settings_from_args``), prints, and
holds Ctrl-C between the run's steps.

Tests may hand ``main`` a ready backend (``main(argv, backend=...)``) instead
of building one from ``--backend``; everything else (case loading, scoring,
files, summary, exit code) runs the real path.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping, TextIO

from .. import assistant
from ..backends import BACKEND_NAMES, Backend
from ..caseset.cases import CaseSet
from ..files.untrusted import printable
from ..runs.batch import DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_SECONDS, BatchState, BatchStateError
from ..runs.case_records import CaseRecord
from ..runs.ci_reports import colour_summary, summary_json, use_colour, write_junit
from ..runs.identity import results_home
from ..runs.manifest_fields import RunStatus
from ..runs.result_files import ResultsError, ResultsWriteError, RunPaths, write_error
from ..runs.run_folder import RunFolder, RunLockedError
from ..runs.run_recorder import RunRecorder
from ..runs.runner import Progress, cancel_on_sigint, skip_collection_at_exit
from ..runs.scoring_pool import ScoringPool
from ..runs.session import connect_for, finish_run, make_backend, prepare_run, record_run, requests_sure_to_be_sent
from ..runs.settings import API_KEY_ENV, DEFAULT_CONCURRENCY, RunSettings, UsageError, flag_type
from ..runs.signature import KEY_ENV
from ..runs.summary import format_summary
from ..runs.validation import count_line, has_errors, validate
from ..scoring.grounding import FIGURE_MODES
from .args import EXIT_USAGE, emit, exit_from_module, parse_args



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewtui eval",
        description="Run the audit assistant over the case set, score recall, precision and fabrication, "
        "write results/<PROMPT_VERSION>.csv and results/<PROMPT_VERSION>/ (claude; the reference auditor writes "
        "under results/reference/, a replay under results/replay/<folder>/), and gate the prompt version.",
        epilog="exit codes: 0 gate passed, 1 gate failed, 2 bad usage or invalid case set, "
        "3 run incomplete (a case could not be obtained, or cancelled)",
    )
    parser.add_argument("--backend", help=f"one of {', '.join(BACKEND_NAMES)} (default: claude when "
                        f"{API_KEY_ENV} is set, else rules, the built-in reference auditor)")
    parser.add_argument("--cases", default="cases", metavar="DIR", help="the case set (default: ./cases)")
    parser.add_argument("--results-dir", default="results", metavar="DIR", help="where results go (default: ./results)")
    parser.add_argument("--replay-dir", metavar="DIR", help="with --backend replay: a folder of <case_id>.json raw outputs")
    parser.add_argument("--model", help=f"claude model (default {assistant.DEFAULT_MODEL}; cheap: {assistant.CHEAP_MODEL})")
    parser.add_argument("--max-tokens", type=flag_type("max_tokens"), metavar="N",
                        help=f"claude output token limit, thinking included (default {assistant.DEFAULT_MAX_TOKENS})")
    parser.add_argument("--concurrency", type=flag_type("concurrency"), default=DEFAULT_CONCURRENCY, metavar="N",
                        help=f"cases in flight at once (default {DEFAULT_CONCURRENCY})")
    parser.add_argument("--repeats", type=flag_type("repeats"), default=1, metavar="N",
                        help="run each case N times (scores are averaged; fabrications add up; the summary gives "
                        "pass^N, pass@N and the cases whose verdict flips)")
    parser.add_argument("--max-unparseable", type=flag_type("max_unparseable"), default=0, metavar="N",
                        help="unparseable answers the gate allows (default 0: an answer that is not JSON of the "
                        "schema fails the gate)")
    parser.add_argument("--figures", choices=FIGURE_MODES, default="derived",
                        help="ground figures on snapshot values and the derived index (default) or on snapshot values only")
    parser.add_argument("--no-cache", action="store_true", help="claude: do not answer from the response cache")
    parser.add_argument("--timeout", type=flag_type("timeout"), metavar="SECONDS",
                        help="claude: seconds per request attempt before it counts as timed out (default 600)")
    parser.add_argument("--max-retries", type=flag_type("max_retries"), metavar="N",
                        help="claude: retries per case on 429, 5xx, 529, timeouts and dropped connections (default 2)")
    parser.add_argument("--estimate", action="store_true",
                        help="print the run's input tokens and cost (direct and batched, with and without prompt "
                        f"caching) and exit without a model call; counted by the API when {API_KEY_ENV} is set, "
                        "approximated offline otherwise")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="the summary (or the estimate) on stdout as text (default) or as one JSON object")
    parser.add_argument("--junit", metavar="FILE",
                        help="also write a JUnit XML report: one testcase per case, a failure naming the missed ids "
                        "and fabrications")
    parser.add_argument("--stamp-key", metavar="FILE",
                        help="sign the run's record with this key (hex, kept outside the repository) so "
                        "`reviewtui weekly --stamp-key FILE` can tell it was not changed (default: the file "
                        f"{KEY_ENV} names, if set)")
    parser.add_argument("--replace-stamp", action="store_true",
                        help="let a run of a case set that is not the project's (./cases) replace the record of the "
                        "version made on the project's cases, which the weekly run checks (by default refused: give "
                        "a try-out its own --results-dir)")
    parser.add_argument("--batch", action="store_true",
                        help="claude: send the run as one Message Batch (half the price, answers within 24 hours); "
                        "the batch id is kept in the run folder, so rerunning the same command resumes it")
    parser.add_argument("--batch-poll", type=flag_type("batch_poll"), default=DEFAULT_POLL_SECONDS, metavar="SECONDS",
                        help=f"with --batch: seconds between status checks (default {DEFAULT_POLL_SECONDS:g})")
    parser.add_argument("--batch-timeout", type=flag_type("batch_timeout"), default=DEFAULT_TIMEOUT_SECONDS, metavar="SECONDS",
                        help="with --batch: stop waiting after this long and print the batch id for a later "
                        f"resume (default {DEFAULT_TIMEOUT_SECONDS:g}: the API ends a batch within 24 hours)")
    return parser


def settings_from_args(args: argparse.Namespace) -> RunSettings:
    """The run settings the flags give. Raises SettingsError (a UsageError)."""
    return RunSettings(
        backend=args.backend, cases_dir=Path(args.cases), results_dir=Path(args.results_dir),
        replay_dir=Path(args.replay_dir) if args.replay_dir else None, model=args.model,
        max_tokens=args.max_tokens, use_cache=not args.no_cache, timeout=args.timeout,
        max_retries=args.max_retries, concurrency=args.concurrency, repeats=args.repeats,
        max_unparseable=args.max_unparseable, figures=args.figures, batch=args.batch,
        batch_poll=args.batch_poll, batch_timeout=args.batch_timeout,
        stamp_key=Path(args.stamp_key) if args.stamp_key else None, replace_stamp=args.replace_stamp,
    )


class _ProgressPrinter:
    """One line per finished case on stderr, with its score so far."""

    def __init__(self, stream: TextIO, records: Mapping[str, CaseRecord]) -> None:
        self.stream = stream
        self.records = records

    def __call__(self, p: Progress) -> None:
        if p.case_id is None:
            return
        record = self.records.get(p.case_id)
        if p.error:
            what = f"error: {p.error}"
        elif record is None:
            what = "done"
        elif record.status == "unparseable":
            what = f"unparseable: {record.error}"
        else:
            what = f"recall {record.recall:.2f}, precision {record.precision:.2f}, fabrications {record.fabrication}"
        tokens = f"; {p.input_tokens:,} in / {p.output_tokens:,} out so far" if p.input_tokens or p.output_tokens else ""
        cost = f", ${p.cost_usd:,.2f}" if p.cost_usd else ""
        repeat = f" (repeat {p.repeat + 1})" if p.repeat else ""
        # Error text can quote an API error body or a model's output: escape what a terminal would act on.
        print(printable(f"[{p.done}/{p.total}] {p.case_id}{repeat}: {what}{tokens}{cost}", one_line=True),
              file=self.stream, flush=True)


EXIT_INCOMPLETE = 3


def main(argv: list[str] | None = None, *, backend: Backend | None = None) -> int:
    """``reviewtui eval``; returns the exit code. ``backend``: a ready backend instead of ``--backend``.

    Ctrl-C at any moment exits 3 without a traceback: before the run starts
    nothing was run; during it, what finished is kept (``_run``); while the
    results are written, a second Ctrl-C waits for them.
    """
    try:
        return _run(argv, backend)
    except KeyboardInterrupt:
        print("cancelled before the run started: nothing was run or written", file=sys.stderr)
        return EXIT_INCOMPLETE


def _run(argv: list[str] | None, backend: Backend | None) -> int:
    parser = build_parser()
    args, code = parse_args(parser, argv)
    if args is None:
        return code
    skip_collection_at_exit()

    info = sys.stderr if args.format == "json" else sys.stdout  # stdout holds only the JSON then
    pool: ScoringPool | None = None
    try:
        settings = settings_from_args(args)
        if not settings.cases_dir.is_dir():  # one error, not the case-mix warnings of an empty set beside it
            what = "is not a folder" if settings.cases_dir.exists() else "does not exist"
            raise UsageError(f"the cases folder {args.cases} {what}; "
                             "pass --cases DIR with the folder that holds one folder per case (snapshot.json and "
                             "expected.yaml), or run from the repository, whose cases/ is the default")
        if args.estimate:
            pass  # no run: the backend is chosen for counting tokens only
        elif backend is None:
            name, why = settings.chosen_backend()
            emit([why], info)
            if name == "claude" and requests_sure_to_be_sent(settings):
                from ..backends.claude import preload_sdk

                preload_sdk()
        else:
            emit([f"backend {backend.name}: supplied by the caller"], info)
        # the run holds the cases to its end, as the check does: no collection walks a large audit meanwhile
        case_set, problems = validate(settings.cases_dir, hold=True)
        if has_errors(problems):
            for problem in problems:
                print(problem, file=sys.stderr)
            print(count_line(problems, len(case_set.cases)), file=sys.stderr)
            print(f"invalid case set {args.cases}: the errors above (the same as `reviewtui check` gives); "
                  "nothing was scored", file=sys.stderr)
            return EXIT_USAGE
        warnings = len(problems)
        if warnings:
            print(f"note: {warnings} warning(s) in the case set; `reviewtui check` lists them", file=sys.stderr)
        if args.junit and not Path(args.junit).resolve().parent.is_dir():
            raise UsageError(f"--junit {args.junit}: the folder {Path(args.junit).resolve().parent} does not exist")
        if args.estimate:
            return _print_estimate(case_set, settings, backend, as_json=args.format == "json")
        if backend is None:
            backend = make_backend(name, settings, connect=settings.batch)  # a direct run connects once it knows it sends
        if settings.batch:
            if not backend.supports_batch:
                raise UsageError(f"--batch needs the claude backend (Message Batches), not {backend.name}")
            try:  # a damaged state file stops the run before the folder is touched
                BatchState.load(RunFolder(RunPaths(results_home(settings.results_dir, backend),
                                                   assistant.PROMPT_VERSION)).batch_state)
            except BatchStateError as exc:
                raise UsageError(str(exc)) from None
        else:
            pool = connect_for(backend, case_set, settings)
        recorder = prepare_run(case_set, backend, settings)
    except (UsageError, ResultsError, OSError) as exc:
        if isinstance(exc, OSError):
            exc = write_error(RunPaths(Path(args.results_dir), assistant.PROMPT_VERSION), exc)
        print(printable(f"reviewtui eval: {exc}"), file=sys.stderr)
        if pool is not None:
            pool.close()
        if backend is not None:
            asyncio.run(backend.aclose())
        # Another run writing the version, a full disk, a read-only folder: run again later (exit 3).
        return EXIT_INCOMPLETE if isinstance(exc, (RunLockedError, ResultsWriteError)) else EXIT_USAGE
    _note_replaced_results(recorder)

    how = "as a Message Batch" if settings.batch else f"with concurrency {settings.concurrency}"
    print(f"running {len(case_set.cases)} case(s) x {settings.repeats} {how}; "
          f"results in {recorder.paths.run_dir}", file=sys.stderr, flush=True)
    status: RunStatus = "cancelled"
    failure: OSError | None = None
    try:
        status = asyncio.run(_run_until_interrupted(recorder, backend, settings, pool))
    except KeyboardInterrupt:
        status = "cancelled"
    except OSError as exc:  # the results could not be written: the record stays as it was
        failure = exc
    except BaseException:
        with _sigint_held():
            finish_run(recorder, backend, status)
        raise
    if failure is None:
        try:
            with _sigint_held():
                result = finish_run(recorder, backend, status)
        except OSError as exc:
            failure = exc
    if failure is not None:
        recorder.abandon()
        print(printable(f"reviewtui eval: {write_error(recorder.paths, failure)}"), file=sys.stderr)
        return EXIT_INCOMPLETE
    if result.manifest["status"] == "cancelled":
        print("cancelled: what finished is kept; a rerun answers finished cases from the cache", file=sys.stderr)
    if args.junit:
        try:
            write_junit(args.junit, result.manifest, result.records.values())
        except OSError as exc:
            print(f"reviewtui eval: cannot write --junit {args.junit}: {exc.strerror or exc}", file=sys.stderr)
    # A reader that stopped early (`| head`) changes nothing: the results are written, the exit code stands.
    if args.format == "json":
        emit([json.dumps(summary_json(result.manifest), indent=2)])
    else:
        summary = printable(format_summary(result.manifest))
        text = colour_summary(summary) if use_colour(sys.stdout, dict(os.environ)) else summary
        emit([text.removesuffix("\n")])
    emit([f"results: {recorder.paths.csv} and {recorder.paths.run_dir}/"], info)
    return result.exit_code


def _note_replaced_results(recorder: RunRecorder) -> None:
    """Results of this version from another backend or model get replaced: say so."""
    old = recorder.previous
    if not old:
        return
    if (old.get("backend"), old.get("model")) != (recorder.header["backend"], recorder.header["model"]):
        print(printable(f"note: replacing the {recorder.paths.version} results of backend {old.get('backend')} "
                        f"(model {old.get('model') or '-'}, {old.get('finished_at') or old.get('started_at')})"),
              file=sys.stderr)


def _print_estimate(case_set: CaseSet, settings: RunSettings, backend: Backend | None, *, as_json: bool) -> int:
    """``--estimate``: count (or approximate) every request's input tokens and print the four prices."""
    from ..runs.estimate import estimate_case_set, format_estimate

    estimate = estimate_case_set(case_set, settings, backend)
    if as_json:
        print(json.dumps(estimate.to_dict(), indent=2))
    else:
        sys.stdout.write(format_estimate(estimate))
    return 0


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Ctrl-C waits while the results are written (they are small and written atomically)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to hold
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _print_note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def _run_until_interrupted(recorder: RunRecorder, backend: Backend, settings: RunSettings,
                                 pool: ScoringPool | None) -> RunStatus:
    """Ctrl-C sets the cancel event, so the runner stops and keeps what finished."""
    cancel = asyncio.Event()
    try:
        with cancel_on_sigint(cancel):
            return await record_run(recorder, backend, settings,
                                    on_progress=_ProgressPrinter(sys.stderr, recorder.records), cancel=cancel,
                                    on_note=_print_note, pool=pool)
    finally:
        await backend.aclose()


if __name__ == "__main__":
    exit_from_module(main())
