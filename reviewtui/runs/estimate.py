"""``reviewtui eval --estimate``: the input tokens and cost of a claude run, before any call.

Input tokens per case come from the API's token-counting endpoint when a key
is set (``ClaudeBackend.count_tokens``: free, and it makes no message), and
otherwise from an offline approximation: ``CHARS_PER_TOKEN`` characters a
token (the ratio the fake API and
benchmarks/prompt_size.py use) of the text the model reads; the endpoint's
count is the real one.
Output tokens cannot be counted before the answer: the estimate assumes
``ASSUMED_OUTPUT_TOKENS`` a call (thinking included), and says so.

Four prices: direct or batched (the price table's ``batch_discount``), each
without and with prompt caching. With caching, the run's first call writes
the shared system prefix and every other call reads it; each case's first
call writes its own user message and its repeats read the whole prefix.
That is the best case (the cache lives a few minutes; a batch caches on a
best-effort basis), so the truth lies between the two rows. Answers already
in the response cache cost nothing and are left out.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import assistant
from ..backends import Backend, BackendUsageError
from ..caseset.snapshot import Snapshot
from .pricing import estimate_cost, price_for
from .settings import API_KEY_ENV, RunSettings, UsageError

if TYPE_CHECKING:
    from ..caseset.cases import CaseSet

CHARS_PER_TOKEN = 4
ASSUMED_OUTPUT_TOKENS = 6000


def _texts(blocks: Any) -> list[str]:
    if isinstance(blocks, str):
        return [blocks]
    return [b.get("text", "") for b in blocks or [] if isinstance(b, dict)]


def approximate_tokens(request: dict[str, Any]) -> int:
    """Offline token count of a request: the text the model reads (system, messages, the output schema
    as compact JSON) at ``CHARS_PER_TOKEN`` characters a token."""
    chars = sum(len(t) for t in _texts(request.get("system")))
    chars += sum(len(t) for m in request.get("messages") or [] for t in _texts(m.get("content")))
    schema = ((request.get("output_config") or {}).get("format") or {}).get("schema")
    chars += len(json.dumps(schema, separators=(",", ":"))) if schema else 0
    return max(1, chars // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Estimate:
    model: str
    method: str  # how the input tokens were counted
    calls: int  # calls the run would make (cached answers left out)
    cached: int  # answers already in the response cache
    repeats: int
    shared_tokens: int  # the system prefix every call shares
    input_tokens: int  # every call's input, summed
    output_tokens: int
    cache_write_tokens: int  # with prompt caching
    cache_read_tokens: int
    costs: dict[str, float | None]  # "direct", "direct_cached", "batch", "batch_cached"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def estimate_run(case_tokens: list[tuple[int, int]], *, shared_tokens: int, model: str, method: str,
                 cached: int = 0, repeats: int = 1) -> Estimate:
    """``case_tokens``: per case, its input tokens per call and the calls it still needs (0 to ``repeats``)."""
    calls = sum(n for _, n in case_tokens)
    input_tokens = sum(t * n for t, n in case_tokens)
    output_tokens = calls * ASSUMED_OUTPUT_TOKENS
    write = read = 0
    first = True
    for tokens, n in case_tokens:
        if not n:
            continue
        own = max(0, tokens - shared_tokens)
        write += own + (shared_tokens if first else 0)
        read += (0 if first else shared_tokens) + (n - 1) * tokens
        first = False
    costs: dict[str, float | None] = {}
    for batch in (False, True):
        name = "batch" if batch else "direct"
        costs[name] = estimate_cost(model, input_tokens, output_tokens, batch=batch)
        costs[f"{name}_cached"] = estimate_cost(model, input_tokens, output_tokens, batch=batch,
                                                cache_write_tokens=write, cache_read_tokens=read)
    return Estimate(model, method, calls, cached, repeats, shared_tokens, input_tokens, output_tokens, write, read,
                    costs)


def estimate_case_set(case_set: "CaseSet", settings: RunSettings, backend: Backend | None) -> Estimate:
    """The estimate of a claude run of ``case_set`` with ``settings``: every request's input tokens counted
    by the API when a key is set (through ``backend``, or one built from the settings), approximated offline
    otherwise; answers already in the response cache left out. Raises UsageError for another backend."""
    from ..backends.cache import ResponseCache, cache_key, default_cache_dir
    from .session import make_backend

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
    return estimate_run(list(zip(counts[1:], needed)), shared_tokens=counts[0], model=model, method=method,
                        cached=cached, repeats=settings.repeats)


async def _count_all(backend: Backend, requests: list[dict[str, Any]], concurrency: int) -> list[int]:
    gate = asyncio.Semaphore(concurrency)

    async def one(request: dict[str, Any]) -> int:
        async with gate:
            return int(await backend.count_tokens(request))  # type: ignore[attr-defined]

    try:
        return list(await asyncio.gather(*(one(r) for r in requests)))
    except BackendUsageError as exc:
        raise UsageError(str(exc)) from None
    finally:
        await backend.aclose()


def _dollars(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.2f}"


def format_estimate(e: Estimate) -> str:
    known = price_for(e.model) is not None
    per_call = e.input_tokens / e.calls if e.calls else 0
    lines = [
        f"estimate for {e.calls} call(s) ({e.repeats} repeat(s) a case), model {e.model}; input tokens {e.method}",
        f"input tokens    {e.input_tokens:,} ({per_call:,.0f} a call, of which {e.shared_tokens:,} the shared "
        "system prompt)",
        f"output tokens   {e.output_tokens:,} (assumed {ASSUMED_OUTPUT_TOKENS:,} a call, thinking included)",
        f"prompt caching  {e.cache_write_tokens:,} written, {e.cache_read_tokens:,} read (at best)",
        f"{'':<24}{'direct':>12}{'batch':>12}",
        f"{'without prompt caching':<24}{_dollars(e.costs['direct']):>12}{_dollars(e.costs['batch']):>12}",
        f"{'with prompt caching':<24}{_dollars(e.costs['direct_cached']):>12}{_dollars(e.costs['batch_cached']):>12}",
    ]
    if e.cached:
        lines.append(f"{e.cached} answer(s) are in the response cache: they cost nothing and are left out")
    if not known:
        lines.append(f"no price for {e.model} in reviewtui/runs/pricing.yaml: add its rates there to see a cost")
    return "\n".join(lines) + "\n"
