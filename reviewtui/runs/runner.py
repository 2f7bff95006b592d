"""Running a backend over cases: bounded concurrency, progress, cancellation.

``run_cases`` is the one loop that turns cases into ``CaseOutput``s, shared
by ``reviewtui eval`` and the app's eval worker. It knows nothing about
scoring or files: callers get each output through ``on_case_done`` as soon as
it lands (eval scores and writes it there, so an interrupted run keeps what
finished) and a small immutable ``Progress`` through ``on_progress`` (the
app's worker posts it as a message). No Textual here.

Per-case failures never stop a run: a backend is supposed to return a
``CaseOutput`` with ``error`` set, and an unexpected exception from a backend
is recorded the same way. Cancellation (the ``cancel`` event, or the task
itself being cancelled) stops new cases from starting and abandons the ones
in flight. With the event, ``run_cases`` returns a ``RunOutcome`` (status
``cancelled``) holding every output that already finished; a cancelled task
cleans up and re-raises, and what finished is only what ``on_case_done`` saw.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, Sequence

from ..backends.base import Backend, CaseOutput
from ..caseset.cases import Case
from ..backends.provenance import scrub_url_credentials
from .schedule import RunSchedule
from ..backends.throttle import AdaptiveLimit

if TYPE_CHECKING:
    from .manifest_fields import RunStatus

@dataclass(frozen=True)
class Progress:
    """Where a run stands; immutable so a worker can post it across threads."""

    done: int  # case runs finished (cases x repeats)
    total: int
    errors: int  # case runs whose output could not be obtained
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # estimated cost of the calls made (cache hits cost nothing); None: model not priced
    cached: int = 0  # case runs answered from the response cache
    cache_write_tokens: int = 0  # of input_tokens: written to the API's prompt cache
    cache_read_tokens: int = 0  # of input_tokens: read from the API's prompt cache
    case_id: str | None = None  # the case that just finished
    repeat: int = 0
    error: str | None = None  # its error, if any


@dataclass
class RunOutcome:
    """What a run produced: every finished output, keyed by case id, in repeat order."""

    status: RunStatus  # "complete" | "incomplete" (some output not obtained) | "cancelled"
    outputs: dict[str, list[CaseOutput]] = field(default_factory=dict)
    progress: Progress | None = None
    not_run: list[str] = field(default_factory=list)  # case ids with at least one repeat not finished

    @property
    def errors(self) -> list[CaseOutput]:
        return [o for outs in self.outputs.values() for o in outs if not o.obtained]


CostEstimator = Callable[[str | None, CaseOutput], "float | None"]
OnCaseDone = Callable[[Case, CaseOutput, int], "Awaitable[None] | None"]


def default_cost_estimator() -> CostEstimator:
    """``pricing.cost_of_output``: each kind of token at its own rate."""
    from .pricing import cost_of_output

    return cost_of_output


@contextmanager
def cancel_on_sigint(cancel: asyncio.Event) -> Iterator[None]:
    """Within the running loop, Ctrl-C sets ``cancel`` so a run stops and keeps what finished.

    After a Ctrl-C the process only writes what came back and ends, so further Ctrl-Cs are
    ignored from then on: left to Python's handler, one would raise in the middle of that
    writing, or, landing while the interpreter shuts down, end the process by SIGINT (exit 130
    instead of the run's 3). Where the loop cannot take signal handlers, Ctrl-C stays a
    KeyboardInterrupt.
    """
    loop = asyncio.get_running_loop()
    handled = False
    interrupted = False

    def stop() -> None:
        nonlocal interrupted
        interrupted = True
        cancel.set()

    try:
        loop.add_signal_handler(signal.SIGINT, stop)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):
        pass
    try:
        yield
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
            if interrupted:
                signal.signal(signal.SIGINT, signal.SIG_IGN)


def hold_long_lived() -> None:
    """Take the objects alive as a run starts (the cases, their snapshots, the SDK) out of the cyclic collector's walks.

    They live to the end of the run, and a full collection walks every one of
    them: on the fifty cases about 85 ms, during which no answer is read and no
    request is sent. What the run allocates afterwards is collected as usual.
    """
    gc.freeze()


def release_long_lived() -> None:
    """At the end of the run: they are the collector's again."""
    gc.unfreeze()


def skip_collection_at_exit() -> None:
    """Let this process end without the interpreter's last garbage collections walking every object left.

    At exit, after the atexit handlers, CPython collects the whole heap while it takes the
    modules apart: with the SDK loaded and the fifty cases in memory that is 0.3 to 0.6 s between
    the summary and the end of the process. Objects frozen by an atexit handler are left out of
    it (their memory goes back with the process). Registered once; it changes nothing before the
    interpreter exits, so a caller that runs ``main`` in its own process is not affected.
    """
    global _exit_freeze_registered
    if not _exit_freeze_registered:
        atexit.register(gc.freeze)
        _exit_freeze_registered = True


_exit_freeze_registered = False


def redact_secrets(text: str) -> str:
    """Never let the API key, or credentials in ANTHROPIC_BASE_URL, reach a result file, a log or a message."""
    key = os.environ.get("ANTHROPIC_API_KEY")
    if key and len(key) >= 8 and key in text:
        text = text.replace(key, "[redacted]")
    return scrub_url_credentials(text)


class Tally:
    """Running totals behind ``Progress``."""

    def __init__(self, total: int, estimate: CostEstimator, default_model: str | None) -> None:
        self.total = total
        self.estimate = estimate
        self.default_model = default_model
        self.done = self.errors = self.cached = 0
        self.input_tokens = self.output_tokens = 0
        self.cache_write_tokens = self.cache_read_tokens = 0
        self.cost_usd = 0.0
        self.cost_known = True

    def add(self, output: CaseOutput, repeat: int) -> Progress:
        self.done += 1
        self.errors += 0 if output.obtained else 1
        self.input_tokens += output.input_tokens
        self.output_tokens += output.output_tokens
        if output.cached:
            self.cached += 1
        elif output.input_tokens or output.output_tokens:
            self.cache_write_tokens += output.cache_creation_input_tokens
            self.cache_read_tokens += output.cache_read_input_tokens
            cost = self.estimate(output.model or self.default_model, output)
            if cost is None:
                self.cost_known = False
            else:
                self.cost_usd += cost
        return self.snapshot(output.case_id, repeat, output.error)

    def snapshot(self, case_id: str | None = None, repeat: int = 0, error: str | None = None) -> Progress:
        return Progress(
            done=self.done,
            total=self.total,
            errors=self.errors,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=round(self.cost_usd, 6) if self.cost_known else None,
            cached=self.cached,
            cache_write_tokens=self.cache_write_tokens,
            cache_read_tokens=self.cache_read_tokens,
            case_id=case_id,
            repeat=repeat,
            error=error,
        )


class Finisher:
    """Hands each output to ``on_case_done`` in the order they came back, then reports its progress.

    A plain function runs in one worker thread, off the event loop: scoring a
    case takes tens of milliseconds, and on the loop it would hold back the
    requests of every other worker. A coroutine function is awaited on the loop.
    One at a time, so the callback never runs twice at once.
    """

    def __init__(self, on_case_done: OnCaseDone | None, tally: Tally,
                 on_progress: Callable[[Progress], None] | None) -> None:
        self.on_case_done = on_case_done
        self.tally = tally
        self.on_progress = on_progress
        self._queue: asyncio.Queue[tuple[Case, CaseOutput, int] | None] = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reviewtui-score")
        self.task = asyncio.ensure_future(self._consume())
        self.drained = False

    def submit(self, case: Case, output: CaseOutput, repeat: int) -> None:
        self._queue.put_nowait((case, output, repeat))

    async def drain(self) -> None:
        """Finish everything submitted so far; raises what a callback raised."""
        self._queue.put_nowait(None)
        await self.task
        self.drained = True

    async def _consume(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while (item := await self._queue.get()) is not None:
                case, output, repeat = item
                progress = self.tally.add(output, repeat)
                callback = self.on_case_done
                if callback is not None:
                    if asyncio.iscoroutinefunction(callback):
                        await callback(case, output, repeat)
                    else:
                        result = await loop.run_in_executor(self._executor, callback, case, output, repeat)
                        if asyncio.iscoroutine(result):
                            await result
                if self.on_progress is not None:
                    self.on_progress(progress)
        finally:
            self._executor.shutdown(wait=False)

    def flush_now(self) -> None:
        """When the run itself is torn down (Ctrl-C as KeyboardInterrupt): finish the outputs that came
        back, synchronously, so none is lost. The one in the worker thread completes there."""
        self.task.cancel()
        self._executor.shutdown(wait=True)
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is None:
                continue
            case, output, repeat = item
            progress = self.tally.add(output, repeat)
            if self.on_case_done is not None and not asyncio.iscoroutinefunction(self.on_case_done):
                result = self.on_case_done(case, output, repeat)
                if asyncio.iscoroutine(result):
                    result.close()  # no loop left to run it on
            if self.on_progress is not None:
                self.on_progress(progress)


async def _call_backend(backend: Backend, case: Case, repeat: int) -> CaseOutput:
    try:
        output = await backend.run(case, repeat=repeat)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a backend bug must not stop the other cases
        return CaseOutput(case.case_id, None, error=redact_secrets(f"backend raised {type(exc).__name__}: {exc}"))
    if output.error is not None:
        output.error = redact_secrets(output.error)
    return output


async def run_cases(
    cases: Sequence[Case],
    backend: Backend,
    *,
    concurrency: int,
    repeats: int = 1,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: asyncio.Event | None = None,
    on_case_done: OnCaseDone | None = None,
    cost_estimator: CostEstimator | None = None,
) -> RunOutcome:
    """Run ``backend`` over ``cases`` (each ``repeats`` times), at most ``concurrency`` at once.

    ``on_case_done(case, output, repeat)`` (sync or async) runs for each
    finished output before its progress is reported. The caller owns the
    backend and closes it (``await backend.aclose()``).
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    jobs = [(case, repeat) for case in cases for repeat in range(repeats)]
    tally = Tally(len(jobs), cost_estimator or default_cost_estimator(), backend.model)
    finished: dict[str, dict[int, CaseOutput]] = {}
    stop = cancel or asyncio.Event()
    workers = min(concurrency, len(jobs))
    schedule = RunSchedule(len(cases), repeats)  # a case's repeats after its first answer (runs/schedule.py)

    async def worker() -> None:
        while True:
            job = await schedule.next()
            if job is None or stop.is_set():
                return
            index, repeat = job
            case = cases[index]
            output = await _call_backend(backend, case, repeat)
            finished.setdefault(case.case_id, {})[repeat] = output
            await schedule.done(index, repeat)
            finisher.submit(case, output, repeat)  # scored off the loop; the worker sends its next request
            # A backend that computes its answer (the reference auditor) never waits: hand the loop back
            # once per answer, so a cancel (escape, Ctrl-C) is heard before the next case starts.
            await asyncio.sleep(0)

    backend.use_limit(AdaptiveLimit(workers))  # fewer attempts in flight while the API rate-limits
    finisher = Finisher(on_case_done, tally, on_progress)
    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    stop_waiter = asyncio.ensure_future(stop.wait())
    cancelled = False
    hold_long_lived()
    try:
        pending: set[asyncio.Future[Any]] = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending | {stop_waiter, finisher.task},
                                               return_when=asyncio.FIRST_COMPLETED)
            pending.discard(stop_waiter)
            pending.discard(finisher.task)
            for task in done:
                if task is not stop_waiter and not task.cancelled() and (error := task.exception()) is not None:
                    raise error  # a bug in a callback: surface it
            if stop.is_set():
                cancelled = True
                break
        await finisher.drain()  # what came back before a stop is kept too
        # A stop while the answers that came back were scored (a backend that answers at once, as the
        # reference auditor from its cached audits, has given every answer by then) still stops the run
        cancelled = cancelled or stop.is_set()
    finally:  # on our own cancellation too: abandon the cases in flight, keep what came back, re-raise
        release_long_lived()
        stop_waiter.cancel()
        for task in tasks:
            task.cancel()
        if not finisher.drained:
            finisher.flush_now()
        await asyncio.gather(*tasks, stop_waiter, finisher.task, return_exceptions=True)

    return build_outcome(cases, repeats, finished, tally, "cancelled" if cancelled else "complete")


def build_outcome(cases: Sequence[Case], repeats: int, finished: dict[str, dict[int, CaseOutput]], tally: Tally,
                  status: RunStatus) -> RunOutcome:
    """The outcome of a run (direct or batched) from the outputs that finished."""
    outcome = RunOutcome(status=status)
    for case in cases:
        got = finished.get(case.case_id, {})
        if len(got) < repeats:
            outcome.not_run.append(case.case_id)
        if got:
            outcome.outputs[case.case_id] = [got[r] for r in sorted(got)]
    outcome.progress = tally.snapshot()
    if outcome.status == "complete" and outcome.errors:
        outcome.status = "incomplete"
    return outcome
