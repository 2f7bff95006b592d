"""Scoring a run's answers in a worker process, apart from the process that sends the requests.

Scoring an answer is pure Python (tens of milliseconds a case with real
findings, seconds on a 100,000-row snapshot the first time). In the client's
process it would hold the GIL against the event loop that reads the answers
and sends the next requests, even from a thread. ``ScoringPool`` hands it to
one worker process instead:

- ``score_record`` has the signature and the result of
  ``case_records.score_record``; the recorder calls it from the runner's finishing
  thread, which waits while the worker scores and then writes the record;
- each case travels once (pickled, as the run read it: a case saved while the
  run goes on is not re-read), then by its id; the worker keeps its cases, and
  with them the per-snapshot indexes scoring builds, for the whole run;
- the worker is started with the pool, so its start-up (a fresh interpreter
  importing the scoring modules) overlaps the first requests; it is started
  with SIGINT blocked, so Ctrl-C in a terminal (which reaches the whole
  process group) is the run's to handle: the run stops, and the answers that
  came back are still scored in the worker;
- the worker ends by itself when its run is gone (killed with SIGKILL, no
  clean-up): it watches its parent's process id;
- a scoring error is the case's error row, as in process; a worker that dies
  while it works (killed, out of memory) makes that case's error row
  (``scoring failed: the scoring process stopped ...``) and a fresh worker
  scores the next case; a worker that dies before it could score anything (a
  main module a fresh interpreter cannot import, such as a script read from
  stdin), or a pool that cannot start at all (no process support), leaves the
  scoring in this process.

``scoring_for_run`` decides where a run scores: in the pool for runs whose
answers come over the network, in this process otherwise; either way, an
answer scored before (same answer, same case files, same scorer code) is not
scored again (``score_cache``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent.futures import Future
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from ..backends.base import CaseOutput
from ..caseset.cases import Case
from ..scoring.score import CaseScore

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many requests, a worker's start-up (a fresh interpreter, about 0.3 s of CPU on the other
# core) costs more than scoring them here.
MIN_POOLED_JOBS = 16
# How often the worker looks whether its run is still there (``_end_with_parent``).
PARENT_CHECK_SECONDS = 0.5


class ScoringPool:
    """One worker process that scores cases; ``score_record`` blocks its caller (a thread) until the record is back.

    One caller at a time (the runner's finishing thread), as the recorder's callback is called.
    """

    def __init__(self) -> None:
        self._executor: ProcessPoolExecutor | None = None
        self._started: Future[None] | None = None  # the worker's warm-up: done once it runs
        self._sent: set[str] = set()  # case ids the current worker holds
        self.restarts = 0  # workers replaced after one stopped
        self.in_process = False  # a worker could not start: the rest of the run scores here
        self.start()

    def start(self) -> None:
        """Start the worker now (not at the first answer), with SIGINT blocked for it."""
        import multiprocessing  # here: `reviewtui eval --help` and the offline runs never load it
        from concurrent.futures import ProcessPoolExecutor

        blocked = _block_sigint()
        try:
            with _stderr_with_a_descriptor():
                self._executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_worker_init)
                self._started = self._executor.submit(_warm)  # spawns the worker process here, under the blocked mask
        finally:
            _restore_sigmask(blocked)
        self._sent = set()

    def score_record(self, case: Case, outputs: list[CaseOutput], *, figures: str) -> Any:
        """``case_records.score_record(case, outputs, figures=figures)``, computed in the worker."""
        from concurrent.futures.process import BrokenProcessPool

        from .case_records import score_record

        if self.in_process:
            return score_record(case, outputs, figures=figures)
        if self._executor is None:
            self.start()
        assert self._executor is not None and self._started is not None
        carried = case if case.case_id not in self._sent else None
        try:
            future: Future[Any] = self._executor.submit(_score_in_worker, case.case_id, carried, outputs, figures)
            self._sent.add(case.case_id)
            return future.result()
        except BrokenProcessPool as exc:
            started = self._started.done() and self._started.exception() is None
            self._replace()
            if not started:  # it died starting up (an interpreter that cannot import the main module): no worker will
                self.in_process = True
                return score_record(case, outputs, figures=figures)
            return _failed_record(case, outputs, f"the scoring process stopped ({exc or 'no reason given'})")
        except Exception as exc:  # noqa: BLE001 - the case could not reach the worker or come back: its error row
            self._sent.discard(case.case_id)  # it may not have arrived: carry it again next time
            return _failed_record(case, outputs, f"{type(exc).__name__}: {exc}")

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id (once it started), for diagnostics and tests."""
        processes = getattr(self._executor, "_processes", None) or {}
        return next(iter(processes), None)

    def _replace(self) -> None:
        """After the worker died: a fresh one for the next case (it holds no cases yet)."""
        self.restarts += 1
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = None
        self._sent = set()

    def close(self, *, wait: bool = True) -> None:
        """Stop the worker. ``wait=False``: do not wait for it to end (the interpreter's exit still does)."""
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)
            self._executor = None


def pool_pays(requests: int) -> bool:
    """Whether a run that sends ``requests`` requests scores in a worker process.

    A backend whose answers are computed here (``Backend.plan`` counts no request) keeps the
    scoring here too: nothing else competes with it. So does a run answered from the response cache.
    """
    return requests >= MIN_POOLED_JOBS


def start_pool(requests: int) -> ScoringPool | None:
    """A started worker when ``pool_pays``; None otherwise, or when no worker can start.

    Started as early as the run knows its requests, before the SDK is imported, so the worker's
    start-up runs on the other core meanwhile.
    """
    if not pool_pays(requests):
        return None
    try:
        return ScoringPool()
    except Exception:  # noqa: BLE001 - whatever stops a worker from starting, the run scores here as it would without one
        return None


@contextmanager
def scoring_for_run(recorder: Any, requests: int, pool: ScoringPool | None = None) -> Iterator[ScoringPool | None]:
    """For the length of a run, ``run_recorder.score`` reuses stored scores (``score_cache``) and computes the
    others in a worker process when ``pool_pays``, in this process otherwise.

    ``pool``: one started already (``start_pool``); it is closed at the end either way. A pool that
    cannot start (a platform without processes or semaphores) leaves the scoring here.
    """
    from .score_cache import reusing_scores

    if pool is None:
        pool = start_pool(requests)
    in_process = recorder.score
    recorder.score = reusing_scores(pool.score_record if pool is not None else in_process)
    try:
        yield pool
    finally:
        recorder.score = in_process
        if pool is not None:  # every answer is scored by now: the worker ends while the run writes its results
            pool.close(wait=False)


def _failed_record(case: Case, outputs: list[CaseOutput], reason: str) -> Any:
    """The case's record when its scoring never ran: every output an error row, as a scoring exception makes it."""
    from .case_records import CaseRecord

    scores = [CaseScore(case.case_id, "error", 0.0, 0.0, 0, missed_ids=[e.id for e in case.must_find],
                        error=f"scoring failed: {reason}") for _ in outputs]
    return CaseRecord(case.case_id, case.kind, list(outputs), scores)


@contextmanager
def _stderr_with_a_descriptor() -> Iterator[None]:
    """``sys.stderr`` with a real file descriptor while a worker (and multiprocessing's resource tracker) spawns.

    The spawn hands ``sys.stderr.fileno()`` to the new process. Inside the app, ``sys.stderr`` is
    Textual's capture, whose ``fileno()`` is -1, and the spawn fails ("bad value(s) in fds_to_keep").
    The worker points its own output at the null device anyway (``_worker_init``).
    """
    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        usable = False
    if usable:
        yield
        return
    captured = sys.stderr
    with open(os.devnull, "w", encoding="utf-8") as quiet:
        sys.stderr = quiet
        try:
            yield
        finally:
            sys.stderr = captured


def _block_sigint() -> set[int] | None:
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _restore_sigmask(previous: set[int] | None) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# -- in the worker process ------------------------------------------------------------

_CASES: dict[str, Case] = {}


def _worker_init() -> None:
    from .runner import skip_collection_at_exit

    _end_with_parent(os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # where the mask could not be inherited
    skip_collection_at_exit()  # the cases and indexes it holds are not walked when it ends
    # Nothing the worker could print belongs on the terminal (the app draws on it): what goes wrong
    # in it comes back as the case's error row.
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)


def _end_with_parent(parent: int) -> None:
    """End this worker when the process that started it is gone.

    A run killed with SIGKILL (or by the out-of-memory killer) shuts nothing down: its worker,
    perhaps in the middle of a large snapshot, would live on under PID 1 (and multiprocessing's
    resource tracker with it). A daemon thread watches the parent's id; once the worker has
    been handed to another parent, it exits at once.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="reviewtui-scoring-parent", daemon=True).start()


def _warm() -> None:
    """Import the scoring modules before the first answer arrives."""
    from . import case_records  # noqa: F401


def _score_in_worker(case_id: str, case: Case | None, outputs: list[CaseOutput], figures: str) -> Any:
    from .case_records import score_record

    if case is not None:
        _CASES[case_id] = case
    return score_record(_CASES[case_id], outputs, figures=figures)
