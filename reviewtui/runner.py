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
import os
import signal
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Iterator, Sequence

from .backends.base import Backend, CaseOutput
from .cases import Case

RUN_STATUSES = ("complete", "incomplete", "cancelled")
# Queue priorities: repeats of a case that has its first answer, then first requests, then "stop".
_REPEAT, _FIRST, _DONE = 0, 1, 2


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

    status: str  # "complete" | "incomplete" (some output not obtained) | "cancelled"
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

    Where the loop cannot take signal handlers, Ctrl-C stays a KeyboardInterrupt.
    """
    loop = asyncio.get_running_loop()
    handled = False
    try:
        loop.add_signal_handler(signal.SIGINT, cancel.set)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):
        pass
    try:
        yield
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)


def redact_secrets(text: str) -> str:
    """Never let the API key reach a result file, a log or a message."""
    key = os.environ.get("ANTHROPIC_API_KEY")
    if key and len(key) >= 8 and key in text:
        text = text.replace(key, "[redacted]")
    return text


class _Tally:
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
    tally = _Tally(len(jobs), cost_estimator or default_cost_estimator(), backend.model)
    outcome = RunOutcome(status="complete")
    finished: dict[str, dict[int, CaseOutput]] = {}
    stop = cancel or asyncio.Event()
    workers = min(concurrency, len(jobs))
    # (priority, case index, repeat). A case's repeats wait for its first answer,
    # then go ahead of the other cases' first requests: they read the prompt
    # prefix the first request wrote to the API's prompt cache (which lives a few
    # minutes) instead of all writing it at once.
    queue: asyncio.PriorityQueue[tuple[int, int, int]] = asyncio.PriorityQueue()
    for index in range(len(cases)):
        queue.put_nowait((_FIRST, index, 0))
    remaining = len(jobs)

    async def worker() -> None:
        nonlocal remaining
        while True:
            _, index, repeat = await queue.get()
            if index < 0 or stop.is_set():
                return
            case = cases[index]
            output = await _call_backend(backend, case, repeat)
            finished.setdefault(case.case_id, {})[repeat] = output
            if on_case_done is not None:
                result = on_case_done(case, output, repeat)
                if asyncio.iscoroutine(result):
                    await result
            progress = tally.add(output, repeat)
            if repeat == 0:
                for later in range(1, repeats):
                    queue.put_nowait((_REPEAT, index, later))
            remaining -= 1
            if remaining == 0:  # every job done: release the idle workers
                for _ in range(workers):
                    queue.put_nowait((_DONE, -1, 0))
            if on_progress is not None:
                on_progress(progress)

    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    stop_waiter = asyncio.ensure_future(stop.wait())
    cancelled = False
    try:
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending | {stop_waiter}, return_when=asyncio.FIRST_COMPLETED)
            pending.discard(stop_waiter)
            for task in done:
                if task is not stop_waiter and not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # a bug in a callback: surface it
            if stop.is_set():
                cancelled = True
                break
    finally:  # on our own cancellation too: abandon the cases in flight, then re-raise
        stop_waiter.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, stop_waiter, return_exceptions=True)

    for case, repeat in jobs:
        got = finished.get(case.case_id, {})
        if repeat in got:
            continue
        if case.case_id not in outcome.not_run:
            outcome.not_run.append(case.case_id)
    for case in cases:
        got = finished.get(case.case_id)
        if got:
            outcome.outputs[case.case_id] = [got[r] for r in sorted(got)]
    outcome.progress = tally.snapshot()
    if cancelled:
        outcome.status = "cancelled"
    elif outcome.errors:
        outcome.status = "incomplete"
    return outcome
