"""A run of the assistant over a case set, without the command line: ``reviewtui eval`` and the app both run it.

``run_eval`` takes a loaded case set, a backend and the ``RunSettings``
(``runs/settings.py``), reports ``Progress`` through a callback and stops
cleanly when its ``cancel`` event is set. Its steps, for a caller that holds
the run itself (``reviewtui eval`` handles Ctrl-C between them):
``prepare_run`` (the version's lock, the prompt-hash guard, the run's own
folder), ``record_run`` (the backend over the cases, directly or as a
Message Batch) and ``finish_run`` (the record swapped into place).
``make_backend`` builds the backend a run's settings name.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, Callable

from .. import assistant
from ..backends import Backend, BackendUsageError, create_backend
from ..caseset.cases import CaseSet, case_dirs
from ..paths import is_project_cases, project_cases_dir
from .batch import run_batch
from .case_records import CaseRecord
from .gate import THRESHOLDS
from .identity import results_home, results_role
from .manifest_fields import Manifest, RunStatus
from ..backends.provenance import new_run_id
from .result_files import ResultsError, RunPaths, now_iso, refuse_results_in_cases, write_error
from .run_recorder import NothingToResume, RunRecorder
from .runner import Progress, run_cases
from .scoring_pool import ScoringPool, scoring_for_run, start_pool
from .settings import RunSettings, UsageError
from .signature import SignatureError, key_path, load_key, sign_run
from .stored_runs import Run, load_run

def run_header(case_set: CaseSet, backend: Backend, *, figures: str, concurrency: int, repeats: int,
               max_unparseable: int = 0, batch: bool = False) -> Manifest:
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
        "run_id": new_run_id(),  # recorded with every answer this run gets from the API (backends/provenance.py)
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
    key = stamp_key(settings)
    recorder = RunRecorder(paths, header, case_set.cases,
                           figures=settings.figures, repeats=settings.repeats, top=settings.results_dir)
    backend.run_id = header["run_id"]
    refuse_replacing_the_stamp(recorder, settings)
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


def refuse_replacing_the_stamp(recorder: RunRecorder, settings: RunSettings) -> None:
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


def stamp_key(settings: RunSettings) -> bytes | None:
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
                     pool: ScoringPool | None = None) -> RunStatus:
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


def finish_run(recorder: RunRecorder, backend: Backend, status: RunStatus) -> Run:
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
    status: RunStatus = "cancelled"
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
        from ..backends.cache import default_cache_dir

        options = {"model": settings.model, "max_tokens": settings.max_tokens,
                   "cache_dir": default_cache_dir(settings.results_dir), "use_cache": settings.use_cache,
                   "timeout": settings.timeout, "max_retries": settings.max_retries,
                   "sign_key": stamp_key(settings), "require_record": require_record}
    try:
        backend = create_backend(name, **options)
        if connect:
            backend.connect()
        return backend
    except BackendUsageError as exc:
        raise UsageError(str(exc)) from None


def requests_sure_to_be_sent(settings: RunSettings) -> bool:
    """Before the case set is read: fewer stored answers than the run's requests (or --no-cache), so at
    least one request will go out and the SDK is worth loading already. A folder that may answer
    everything says no: a rerun from the cache must not pay for the import."""
    if settings.batch:
        return False
    if not settings.use_cache:
        return True
    from ..backends.cache import default_cache_dir

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


def connect_for(backend: Backend, case_set: CaseSet, settings: RunSettings) -> ScoringPool | None:
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
