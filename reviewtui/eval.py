"""``reviewtui eval`` (also ``python -m reviewtui.eval``): run, score, write results, gate.

Progress goes to stderr, the summary to stdout, the results to disk
(``runs/result_files.py`` describes the files). Exit codes: 0 gate passed, 1 gate
failed, 2 bad usage or invalid case set (nothing scored), 3 run incomplete
(a case could not be obtained, or the run was cancelled: no verdict).

``run_eval`` is the same run without the command line, for the app's worker:
it takes a loaded case set, a backend and the ``RunSettings``
(``runs/settings.py``: the command line builds them from its flags with
``settings_from_args``), reports ``Progress`` through a callback and stops
cleanly when its ``cancel`` event is set.

Tests and the app may hand ``main`` a ready backend (``main(argv,
backend=...)``) instead of building one from ``--backend``; everything else
(case loading, scoring, files, summary, exit code) runs the real path.
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
from typing import Any, Callable, Iterator, Mapping, TextIO

from .cli_args import emit, exit_from_module, parse_args
from . import assistant, check
from .backends import BACKEND_NAMES, Backend, BackendUsageError, create_backend
from .caseset.cases import CaseSet
from .scoring.grounding import FIGURE_MODES
from .runs.settings import API_KEY_ENV, DEFAULT_CONCURRENCY, RunSettings, UsageError, flag_type
from .runs.identity import results_home, results_role
from .runs.result_files import (ResultsError, ResultsWriteError, RunPaths, now_iso, refuse_results_in_cases,
                         write_error)
from .runs.run_folder import RunFolder, RunLockedError
from .runs.gate import THRESHOLDS
from .runs.run_recorder import NothingToResume, RunRecorder
from .runs.case_records import CaseRecord
from .runs.summary import format_summary
from .runs.batch import DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_SECONDS, BatchState, BatchStateError, run_batch
from .runs.ci_reports import colour_summary, summary_json, use_colour, write_junit
from .runs.runner import Progress, cancel_on_sigint, run_cases, skip_collection_at_exit
from .runs.scoring_pool import ScoringPool, scoring_for_run, start_pool
from .runs.signature import KEY_ENV, SignatureError, key_path, load_key, sign_run
from .runs.stored_runs import Run, load_run
from .runs.provenance import new_run_id
from .paths import is_project_cases, project_cases_dir
from .caseset.snapshot import Snapshot
from .caseset.untrusted import printable

EXIT_USAGE = 2

# --------------------------------------------------------------------------
# The run, without the command line
# --------------------------------------------------------------------------


def run_header(case_set: CaseSet, backend: Backend, *, figures: str, concurrency: int, repeats: int,
               max_unparseable: int = 0, batch: bool = False) -> dict[str, Any]:
    """What the manifest records about the run before it starts."""
    details = backend.describe()
    return {
        "prompt_version": assistant.PROMPT_VERSION,
        # The stamp covers max_tokens too: the backend's when it has one, else the default.
        "prompt_sha256": assistant.prompt_sha256(details.get("max_tokens") or assistant.DEFAULT_MAX_TOKENS),
        "backend": backend.name,
        "results_role": results_role(backend.name),
        "model": details.get("model", backend.model),
        "backend_details": details,
        "cases_dir": str(case_set.root),
        "project_cases": is_project_cases(case_set.root),  # the only case set whose run is the weekly stamp
        "case_set_hash": case_set.digest(),
        "figures": figures,
        "thresholds": {**THRESHOLDS, "max_unparseable": max_unparseable},
        "concurrency": concurrency,
        "repeats": repeats,
        "batch": batch,
        "run_id": new_run_id(),  # recorded with every answer this run gets from the API (runs/provenance.py)
        "started_at": now_iso(),
    }


def prepare_run(case_set: CaseSet, backend: Backend, settings: RunSettings, *,
                on_record: Callable[[CaseRecord], None] | None = None) -> RunRecorder:
    """Take the version's lock, check the prompt-hash guard and start the run's own folder.

    Raises ResultsError (exit 2; RunLockedError, exit 3, when another run writes the version),
    and NothingToResume when a resume finds nothing to run.

    The record is the backend's own under ``settings.results_dir`` (``identity.results_home``):
    only Claude writes the assistant's. ``settings.resume`` keeps the cases the previous run of
    this version finished (``RunRecorder.resume``).
    """
    refuse_results_in_cases(settings.results_dir, case_set.root)
    header = run_header(case_set, backend, figures=settings.figures, concurrency=settings.concurrency,
                        repeats=settings.repeats, max_unparseable=settings.max_unparseable, batch=settings.batch)
    paths = RunPaths(results_home(settings.results_dir, backend), assistant.PROMPT_VERSION)
    key = _stamp_key(settings)
    recorder = RunRecorder(paths, header, case_set.cases,
                           figures=settings.figures, repeats=settings.repeats, top=settings.results_dir)
    backend.run_id = header["run_id"]
    _refuse_replacing_the_stamp(recorder, settings)
    if key is not None:
        recorder.sign = lambda run_dir: sign_run(run_dir, key)
    recorder.on_record = on_record  # before resume, so kept cases are reported too
    try:
        if settings.resume:
            recorder.resume()
        else:
            recorder.start()
    except NothingToResume:
        raise
    except BaseException:
        recorder.abandon()
        raise
    return recorder


def _refuse_replacing_the_stamp(recorder: RunRecorder, settings: RunSettings) -> None:
    """ResultsError (the lock released) when a run of a case set that is not the project's would replace the
    assistant's record of this version made on the project's cases: the weekly run's stamp. ``--replace-stamp``
    lets it; a try-out goes to its own ``--results-dir``."""
    previous = recorder.previous or {}
    if settings.replace_stamp or recorder.header.get("project_cases") is not False \
            or previous.get("project_cases") is not True or previous.get("results_role") != "assistant":
        return
    recorder.abandon()
    raise ResultsError(f"{recorder.paths.run_dir} holds the run of {recorder.paths.version} on the project's case set "
                       f"({project_cases_dir()}), the weekly run's stamp; this run of {settings.cases_dir} would "
                       "replace it: give a try-out its own --results-dir, or pass --replace-stamp to replace it")


def _stamp_key(settings: RunSettings) -> bytes | None:
    """The key to sign the record under (``--stamp-key``, else ``REVIEWTUI_STAMP_KEY``); UsageError when unusable."""
    path = key_path(settings.stamp_key)
    if path is None:
        return None
    try:
        return load_key(path, cases_dir=settings.cases_dir, results_dir=settings.results_dir)
    except SignatureError as exc:
        raise UsageError(str(exc)) from None


async def record_run(recorder: RunRecorder, backend: Backend, settings: RunSettings, *,
                     on_progress: Callable[[Progress], None] | None = None,
                     cancel: asyncio.Event | None = None, on_note: Callable[[str], None] | None = None,
                     pool: ScoringPool | None = None) -> str:
    """Run the backend over the recorder's cases; returns the run status. Does not close the backend.

    With ``settings.batch``, through a Message Batch whose id is kept in the run folder's
    batch.json; ``on_note`` hears what the wait for it says. Otherwise the backend plans the
    run first (``Backend.plan``: the requests built, the response cache read), and only a run
    with requests to send loads what sending needs (``Backend.connect``: the SDK) and scores in
    a worker process; ``pool``: that worker, started already (``scoring_pool.start_pool``).
    """

    def progress(p: Progress) -> None:
        recorder.set_progress(p)
        if on_progress is not None:
            on_progress(p)

    if settings.batch:
        outcome = await run_batch(recorder.pending_cases(), backend, state_path=recorder.folder.batch_state,
                                  repeats=settings.repeats, poll_seconds=settings.batch_poll,
                                  timeout_seconds=settings.batch_timeout, on_note=on_note,
                                  on_progress=progress, cancel=cancel, on_case_done=recorder.case_done)
    else:
        pending = recorder.pending_cases()
        requests = backend.plan(pending, settings.repeats)
        with scoring_for_run(recorder, requests, pool):
            if requests:
                backend.connect()
            outcome = await run_cases(pending, backend, concurrency=settings.concurrency,
                                      repeats=settings.repeats, on_progress=progress, cancel=cancel,
                                      on_case_done=recorder.case_done)
    return outcome.status


def finish_run(recorder: RunRecorder, backend: Backend, status: str) -> Run:
    recorder.header["backend_details"] = backend.describe()  # final call and cache counts
    manifest = recorder.finish(status)
    return Run(recorder.paths, manifest, dict(recorder.records))


async def run_eval(case_set: CaseSet, backend: Backend, settings: RunSettings, *,
                   on_progress: Callable[[Progress], None] | None = None,
                   on_record: Callable[[CaseRecord], None] | None = None,
                   cancel: asyncio.Event | None = None) -> Run:
    """The whole eval for a valid case set: results written, manifest returned.

    With ``settings.resume``, only the cases the previous run of this version did not finish run;
    when there are none and that run is complete, nothing runs or is written: the stored run
    comes back with its ``note`` saying so.

    Raises ResultsError (the prompt-hash guard, another run writing the version) before
    anything runs, and ResultsWriteError when the results cannot be written (a full disk, a
    read-only folder: the previous record stays as it was). The caller owns the backend and
    closes it.
    """
    try:
        recorder = prepare_run(case_set, backend, settings, on_record=on_record)
    except NothingToResume as done:
        run = load_run(RunPaths(results_home(settings.results_dir, backend), assistant.PROMPT_VERSION).run_dir)
        run.note = str(done)
        return run
    status = "cancelled"
    try:
        status = await record_run(recorder, backend, settings, on_progress=on_progress, cancel=cancel)
    except OSError as exc:  # the results could not be written: the record stays as it was
        recorder.abandon()
        raise write_error(recorder.paths, exc) from None
    except BaseException:
        finish_run(recorder, backend, status)  # cancelled: what finished is kept
        raise
    try:
        return finish_run(recorder, backend, status)
    except OSError as exc:
        raise write_error(recorder.paths, exc) from None


# --------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------


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


def make_backend(name: str, settings: RunSettings, *, connect: bool = True,
                 require_record: bool = False) -> Backend:
    """Build the named backend from the settings. Raises UsageError.

    ``connect``: load what sending requests needs now (the claude backend: the SDK and its client,
    where a malformed ANTHROPIC_BASE_URL is found). ``reviewtui eval`` passes False and connects
    only when its run has requests to send, so a rerun answered from the cache never loads the SDK.
    The claude backend signs its cache entries under the stamp key (and reads only signed ones),
    when there is one; ``require_record``: it reads from the cache only answers with the API's whole
    record (the weekly run).
    """
    if name != "claude":
        for flag in settings.claude_options_set():
            print(f"note: {flag} applies to the claude backend only; ignored", file=sys.stderr)
    if name != "replay" and settings.replay_dir:
        print("note: --replay-dir applies to the replay backend only; ignored", file=sys.stderr)
    options: dict[str, Any] = {}
    if name == "replay":
        options["replay_dir"] = str(settings.replay_dir) if settings.replay_dir else None
    elif name == "claude":
        from .runs.cache import default_cache_dir

        options = {"model": settings.model, "max_tokens": settings.max_tokens,
                   "cache_dir": default_cache_dir(settings.results_dir), "use_cache": settings.use_cache,
                   "timeout": settings.timeout, "max_retries": settings.max_retries,
                   "sign_key": _stamp_key(settings), "require_record": require_record}
    try:
        backend = create_backend(name, **options)
        if connect:
            backend.connect()
        return backend
    except BackendUsageError as exc:
        raise UsageError(str(exc)) from None


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
        if args.estimate:
            pass  # no run: the backend is chosen for counting tokens only
        elif backend is None:
            name, why = settings.chosen_backend()
            emit([why], info)
            if name == "claude" and _requests_sure_to_be_sent(settings):
                from .backends.claude import preload_sdk

                preload_sdk()
        else:
            emit([f"backend {backend.name}: supplied by the caller"], info)
        case_set, problems = check.validate(settings.cases_dir)
        if check.has_errors(problems):
            for problem in problems:
                print(problem, file=sys.stderr)
            print(check.count_line(problems, len(case_set.cases)), file=sys.stderr)
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
            pool = _connect_for(backend, case_set, settings)
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
    status = "cancelled"
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
    from .runs.cache import ResponseCache, cache_key, default_cache_dir
    from .runs.estimate import approximate_tokens, estimate_run, format_estimate

    if (backend is not None and backend.name != "claude") or settings.backend not in (None, "claude"):
        raise UsageError("--estimate prices claude calls; leave out --backend or use --backend claude")
    model = settings.model or assistant.DEFAULT_MODEL
    max_tokens = settings.max_tokens or assistant.DEFAULT_MAX_TOKENS
    cache = ResponseCache(default_cache_dir(settings.results_dir)) if settings.use_cache else None
    requests, needed, cached = [], [], 0
    for case in case_set.cases:
        snapshot = case.snapshot if case.snapshot is not None else Snapshot.load(case.snapshot_path)
        request = assistant.build_request(snapshot.text, model=model, max_tokens=max_tokens)
        hits = sum(1 for r in range(settings.repeats) if cache is not None and cache.get(cache_key(request, r)))
        requests.append(request)
        needed.append(settings.repeats - hits)
        cached += hits
    first = requests[0] if requests else assistant.build_request("{}", model=model, max_tokens=max_tokens)
    shared = {"model": model, "system": first["system"], "messages": [{"role": "user", "content": "."}]}
    if os.environ.get(API_KEY_ENV, "").strip():
        counter = backend if backend is not None else make_backend("claude", settings)
        counts = asyncio.run(_count_all(counter, [shared, *requests], settings.concurrency))
        method = "counted by the API's token-counting endpoint"
    else:
        counts = [approximate_tokens(r) for r in [shared, *requests]]
        method = "approximated offline at 4 characters a token (set ANTHROPIC_API_KEY to count them)"
    estimate = estimate_run(list(zip(counts[1:], needed)), shared_tokens=counts[0], model=model, method=method,
                            cached=cached, repeats=settings.repeats)
    if as_json:
        print(json.dumps(estimate.to_dict(), indent=2))
    else:
        sys.stdout.write(format_estimate(estimate))
    return 0


async def _count_all(backend: Backend, requests: list[dict[str, Any]], concurrency: int) -> list[int]:
    gate = asyncio.Semaphore(concurrency)

    async def one(request: dict[str, Any]) -> int:
        async with gate:
            return await backend.count_tokens(request)  # type: ignore[attr-defined]

    try:
        return list(await asyncio.gather(*(one(r) for r in requests)))
    except BackendUsageError as exc:
        raise UsageError(str(exc)) from None
    finally:
        await backend.aclose()


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
                                 pool: ScoringPool | None) -> str:
    """Ctrl-C sets the cancel event, so the runner stops and keeps what finished."""
    cancel = asyncio.Event()
    try:
        with cancel_on_sigint(cancel):
            return await record_run(recorder, backend, settings,
                                    on_progress=_ProgressPrinter(sys.stderr, recorder.records), cancel=cancel,
                                    on_note=_print_note, pool=pool)
    finally:
        await backend.aclose()


def _requests_sure_to_be_sent(settings: RunSettings) -> bool:
    """Before the case set is read: fewer stored answers than the run's requests (or --no-cache), so at
    least one request will go out and the SDK is worth loading already. A folder that may answer
    everything says no: a rerun from the cache must not pay for the import."""
    if settings.batch:
        return False
    if not settings.use_cache:
        return True
    from .caseset.cases import case_dirs
    from .runs.cache import default_cache_dir

    try:
        jobs = sum(1 for _ in case_dirs(settings.cases_dir)) * settings.repeats
    except OSError:
        return False  # the check of the case set says what is wrong
    try:
        with os.scandir(default_cache_dir(settings.results_dir)) as stored:
            answers = sum(1 for _ in stored)
    except OSError:
        answers = 0  # no cache folder yet
    return answers < jobs


def _connect_for(backend: Backend, case_set: CaseSet, settings: RunSettings) -> ScoringPool | None:
    """Before the results folder is touched: plan the run and, when it has requests to send, start the
    scoring worker and then load the SDK (its import overlaps the worker's start-up on the other core;
    a malformed ANTHROPIC_BASE_URL is a usage error here). Returns the worker, if one was started."""
    requests = backend.plan(case_set.cases, settings.repeats)
    if not requests:
        return None
    pool = start_pool(requests)
    try:
        backend.connect()
    except BackendUsageError as exc:
        if pool is not None:
            pool.close()
        raise UsageError(str(exc)) from None
    return pool


if __name__ == "__main__":
    exit_from_module(main())
