"""Running cases through Anthropic's Message Batches API (``reviewtui eval --batch``).

``run_batch`` is the batched counterpart of ``runner.run_cases``: same
cases, repeats, callbacks and ``RunOutcome``, so the eval (and the weekly
run) can choose either. The steps:

1. Each (case, repeat) is prepared; an answer already in the response cache
   is delivered at once and costs nothing.
2. The rest go into one Message Batch, each with a ``custom_id`` naming the
   case and repeat after a token of this batch. Before the batch is asked
   for, its requests and token are written to the state file (the version's
   ``batch.json``: ``run_folder.RunFolder.batch_state``); its id is written
   the moment the API gives it. So a process killed at any step pays for
   nothing twice: killed while waiting, the rerun polls the same batch;
   killed after the API accepted the batch but before its id was saved, the
   rerun looks for it (``_find_created``) among the batches the API lists,
   created since, with as many requests, and adopts it (an ended one only
   when its results carry this batch's custom_ids) instead of creating a
   second one.
3. The batch is polled every ``poll_seconds``; each change of its request
   counts is reported through ``on_note``.
4. Once it has ended, its results (JSONL, in any order) are matched to the
   requests by ``custom_id`` through the state file, and further to the case
   by the request's cache key. A succeeded answer goes to the response cache
   like a direct one; an errored, canceled or expired request is that case's
   error, so a rerun sends only those (everything else is in the cache). A
   result line with an unknown ``custom_id`` is reported and skipped.

The state file holds every batch of the prompt version, each with its id
(empty while it is being created), its token and the time it was asked for,
its requests (custom_id -> case, repeat, cache key) and whether its results
were collected. A batch whose requests no longer match any pending request
(the prompt or the cases changed) is left alone.

Stopping: ``cancel`` (Ctrl-C) stops the waiting, not the batch, which keeps
running at the API; ``timeout_seconds`` does the same and names the batch
id. Either way the rerun picks the batch up from the state file.
"""

from __future__ import annotations

import asyncio
import calendar
import json
import re
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

from ..files.atomic import atomic_write_text
from ..backends.base import BATCH_COUNTS, Backend, BatchBackend, BatchError, CaseOutput
from ..caseset.cases import Case
from .runner import (
    CostEstimator,
    Finisher,
    OnCaseDone,
    Progress,
    RunOutcome,
    Tally,
    build_outcome,
    default_cost_estimator,
)

if TYPE_CHECKING:
    from .manifest_fields import RunStatus

STATE_FORMAT = 1
DEFAULT_POLL_SECONDS = 30.0
# The API ends every batch within 24 hours (unfinished requests expire); an hour more for the results.
DEFAULT_TIMEOUT_SECONDS = 25 * 3600.0
_CUSTOM_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


class BatchStateError(Exception):
    """The state file cannot be read; the message names it and the fix."""


@dataclass
class BatchRecord:
    id: str  # "" from the moment it is asked for until the API has given its id
    created_at: str
    requests: dict[str, dict[str, Any]]  # custom_id -> {"case_id", "repeat", "key"}
    collected: bool = False
    token: str = ""  # starts every custom_id of the batch: how a batch found at the API is known as this one

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "created_at": self.created_at, "token": self.token, "collected": self.collected,
                "requests": self.requests}


@dataclass
class BatchState:
    path: Path
    batches: list[BatchRecord] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> "BatchState":
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise BatchStateError(f"cannot read {path} ({exc})") from None
        try:
            doc = json.loads(text)
            if not isinstance(doc, dict) or doc.get("format") != STATE_FORMAT or not isinstance(doc.get("batches"), list):
                raise ValueError(f"expected {{'format': {STATE_FORMAT}, 'batches': [...]}}")
            batches = []
            for i, entry in enumerate(doc["batches"]):
                if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) \
                        or not isinstance(entry.get("requests"), dict):
                    raise ValueError(f"batches[{i}] needs an 'id' and its 'requests'")
                batches.append(BatchRecord(entry["id"], str(entry.get("created_at", "")), entry["requests"],
                                           bool(entry.get("collected")), str(entry.get("token") or "")))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise BatchStateError(
                f"{path} is not a batch state file ({exc}); restore it, or delete it to send the pending "
                "requests in a new batch (a batch it named and that already ran would be paid for again)") from None
        return cls(path, batches)

    def save(self) -> None:
        doc = {"format": STATE_FORMAT, "batches": [b.to_dict() for b in self.batches]}
        atomic_write_text(self.path, json.dumps(doc, indent=2) + "\n")

    def forget_collected(self, before: float) -> int:
        """Drop the batches collected and asked for before ``before`` (seconds since the epoch); how many.

        Their answers are in the response cache and nothing resumes them; a state file every run
        shares (the weekly run's) would otherwise grow by a batch each week.
        """
        kept = [b for b in self.batches if not (b.collected and _seconds(b.created_at) < before)]
        dropped = len(self.batches) - len(kept)
        if dropped:
            self.batches = kept
            self.save()
        return dropped


def custom_id_for(case_id: str, repeat: int, taken: set[str], token: str = "") -> str:
    """A custom_id the API accepts (``[a-zA-Z0-9_-]{1,64}``) naming the batch's token, the case and the repeat,
    unique in ``taken``."""
    prefix = f"{token}-" if token else ""
    base = f"{prefix}{_CUSTOM_ID_UNSAFE.sub('_', case_id)[:52 - len(prefix)]}-r{repeat}"
    custom_id, n = base, 1
    while custom_id in taken:
        n += 1
        custom_id = f"{base}-{n}"
    taken.add(custom_id)
    return custom_id


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts.get(name, 0)} {name}" for name in BATCH_COUNTS)


async def run_batch(
    cases: Sequence[Case],
    backend: Backend,
    *,
    state_path: str | Path,
    repeats: int = 1,
    poll_seconds: float = DEFAULT_POLL_SECONDS,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    on_progress: Callable[[Progress], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    cancel: asyncio.Event | None = None,
    on_case_done: OnCaseDone | None = None,
    cost_estimator: CostEstimator | None = None,
) -> RunOutcome:
    """Run ``backend`` over ``cases`` (each ``repeats`` times) through Message Batches.

    Raises BatchStateError for an unreadable state file (before any call).
    A batch the API refuses or does not know ends the run ``incomplete``
    with the reason given through ``on_note``; what finished is kept.
    """
    if not backend.supports_batch:
        raise ValueError(f"the {backend.name} backend cannot run batches")
    batching = cast(BatchBackend, backend)  # supports_batch: it has the batch methods
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    note = on_note or (lambda _text: None)
    state = BatchState.load(Path(state_path))
    tally = Tally(len(cases) * repeats, cost_estimator or default_cost_estimator(), backend.model)
    finished: dict[str, dict[int, CaseOutput]] = {}
    stop = cancel or asyncio.Event()

    finisher = Finisher(on_case_done, tally, on_progress)

    async def deliver(case: Case, repeat: int, output: CaseOutput) -> None:
        output.case_id = case.case_id
        finished.setdefault(case.case_id, {})[repeat] = output
        finisher.submit(case, output, repeat)

    pending: dict[str, tuple[Case, int, dict[str, Any]]] = {}  # cache key -> case, repeat, request
    for case in cases:
        for repeat in range(repeats):
            prepared = batching.prepare(case, repeat)
            if prepared.cached is not None:
                await deliver(case, repeat, prepared.cached)
            else:
                pending[prepared.key] = (case, repeat, prepared.request)

    open_batches = [b for b in state.batches if not b.collected
                    and any(entry.get("key") in pending for entry in b.requests.values())]
    status: RunStatus = "complete"
    try:
        for batch in open_batches:
            if batch.id:
                note(f"resuming batch {batch.id} (created {batch.created_at}, saved in {state.path})")
            elif not await _find_created(batching, state, batch, note):  # the API never made it: ask for it now
                jobs = [(e["key"], pending[e["key"]]) for e in batch.requests.values() if e.get("key") in pending]
                await _create(batching, state, batch, jobs, note)
        covered = {entry.get("key") for b in open_batches for entry in b.requests.values()}
        to_send = [(key, job) for key, job in pending.items() if key not in covered]
        if to_send and not stop.is_set():
            open_batches.append(await _create(batching, state, _intent(state, to_send), to_send, note))
        status = await _wait_and_collect(batching, state, open_batches, pending, deliver, note, stop,
                                         poll_seconds, timeout_seconds)
    except BatchError as exc:
        hint = f"; delete {state.path} to send its requests in a new batch" if exc.unknown else ""
        note(f"{exc}{hint}")
        status = "incomplete"
    finally:
        if sys.exc_info()[0] is None:
            await finisher.drain()
        if not finisher.drained:
            finisher.flush_now()
    return build_outcome(cases, repeats, finished, tally, status)


def _intent(state: BatchState, to_send: list[tuple[str, tuple[Case, int, dict[str, Any]]]]) -> BatchRecord:
    """The batch about to be asked for, saved with its token and requests before the API hears of it."""
    token = secrets.token_hex(4)
    taken: set[str] = set()
    entries = {custom_id_for(case.case_id, repeat, taken, token): {"case_id": case.case_id, "repeat": repeat,
                                                                   "key": key}
               for key, (case, repeat, _request) in to_send}
    record = BatchRecord("", _utc_now(), entries, token=token)
    state.batches.append(record)
    state.save()  # from here on a killed process leaves a record of what it may have created
    return record


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


async def _create(backend: BatchBackend, state: BatchState, record: BatchRecord,
                  to_send: list[tuple[str, tuple[Case, int, dict[str, Any]]]], note: Callable[[str], None]) -> BatchRecord:
    by_key = {entry["key"]: custom_id for custom_id, entry in record.requests.items()}
    requests = [(by_key[key], request) for key, (_case, _repeat, request) in to_send]
    record.id = await backend.create_batch(requests)
    state.save()  # at once: a process killed from here on resumes this batch
    note(f"batch {record.id} created with {len(requests)} request(s); its id is saved in {state.path}, "
         "so a rerun of the same command resumes it")
    return record


# How long before the saved creation time a batch the API lists may have been created (clocks differ).
CLOCK_SLACK_SECONDS = 600


async def _find_created(backend: BatchBackend, state: BatchState, record: BatchRecord,
                        note: Callable[[str], None]) -> bool:
    """A batch asked for by a run stopped before the API's answer: adopt it if the API made it.

    Candidates are the batches the API lists as created since the request (less the clock
    slack) with as many requests. An ended one is this batch when its results carry this
    batch's custom_ids; an unended one cannot show its custom_ids yet, so it is adopted only
    when it is the only candidate. No candidate: the API never made it, and it is asked for
    now with the same custom_ids. Several that cannot be told apart: BatchError, nothing sent.
    """
    since = _seconds(record.created_at) - CLOCK_SLACK_SECONDS
    candidates = [b for b in await backend.list_batches(since) if b.total == len(record.requests)]
    ours = set(record.requests)
    confirmed, unknown = [], []
    for batch in candidates:
        if batch.ended:
            ids = {custom_id async for custom_id, _output in backend.batch_results(batch.id)}
            if ids and ids <= ours:
                confirmed.append(batch)
        else:
            unknown.append(batch)
    found = confirmed if confirmed else unknown
    if len(found) > 1:
        raise BatchError(f"the batch asked for at {record.created_at} by a run that was stopped before the API "
                         f"answered may be any of {', '.join(b.id for b in found)} (created since, "
                         f"{len(record.requests)} requests each); wait until they end and run again (an ended "
                         f"batch is known by its custom_ids), or remove its entry (token {record.token}) from "
                         f"{state.path} to send its requests in a new batch")
    if not found:
        return False
    record.id = found[0].id
    state.save()
    note(f"found batch {record.id} at the API: asked for at {record.created_at} by a run that was stopped "
         f"before its id was saved; resuming it, not sending a second batch")
    return True


def _seconds(stamp: str) -> float:
    try:
        return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return 0.0  # unreadable: every listed batch is a candidate


async def _wait_and_collect(backend: BatchBackend, state: BatchState, batches: list[BatchRecord],
                            pending: dict[str, tuple[Case, int, dict[str, Any]]], deliver: Callable[..., Any],
                            note: Callable[[str], None], stop: asyncio.Event, poll_seconds: float,
                            timeout_seconds: float) -> RunStatus:
    started = time.monotonic()
    last: dict[str, dict[str, int]] = {}
    waiting = list(batches)
    while waiting:
        for batch in list(waiting):
            status = await backend.batch_status(batch.id)
            if status.counts != last.get(batch.id):
                last[batch.id] = status.counts
                note(f"batch {batch.id}: {status.processing_status}; {counts_text(status.counts)} "
                     f"({time.monotonic() - started:.0f}s)")
            if status.ended:
                await _collect(backend, state, batch, pending, deliver, note)
                waiting.remove(batch)
        if not waiting:
            break
        if time.monotonic() - started >= timeout_seconds:
            ids = ", ".join(b.id for b in waiting)
            note(f"batch {ids} still not ended after {timeout_seconds:g}s; it keeps running at the API and its id "
                 f"is saved in {state.path}: rerun the same command to resume it")
            return "incomplete"
        try:
            await asyncio.wait_for(stop.wait(), timeout=poll_seconds)
        except TimeoutError:
            continue
        ids = ", ".join(b.id for b in waiting)
        note(f"stopped waiting; batch {ids} keeps running at the API: rerun the same command to collect it")
        return "cancelled"
    return "complete"


async def _collect(backend: BatchBackend, state: BatchState, batch: BatchRecord,
                   pending: dict[str, tuple[Case, int, dict[str, Any]]], deliver: Callable[..., Any],
                   note: Callable[[str], None]) -> None:
    seen: set[str] = set()
    async for custom_id, output in backend.batch_results(batch.id):
        entry = batch.requests.get(custom_id)
        if entry is None:
            note(f"batch {batch.id}: a result with unknown custom_id {custom_id!r} (not a request of this run); skipped")
            continue
        seen.add(custom_id)
        key = str(entry.get("key"))
        # Kept whoever asks now: the batch is marked collected below, so an answer this run no longer
        # asks for (answered meanwhile, or the request of another run that shares the state file) would
        # otherwise be paid for and never read. The cache write (fsynced) in a thread: meanwhile the loop
        # records the answers read before this one.
        await asyncio.to_thread(backend.remember, key, output)
        job = pending.pop(key, None)
        if job is None:
            continue
        case, repeat, _ = job
        await deliver(case, repeat, output)
    for custom_id, entry in batch.requests.items():
        job = pending.pop(str(entry.get("key")), None) if custom_id not in seen else None
        if job is not None:
            case, repeat, _ = job
            await deliver(case, repeat, CaseOutput(case.case_id, None, batch=True, model=backend.model,
                                                   error=f"no result for {custom_id} in batch {batch.id}"))
    batch.collected = True
    state.save()
