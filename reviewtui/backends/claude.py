"""The ``claude`` backend: the audit prompt sent to the Messages API with the anthropic SDK.

- The key comes only from ``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL``
  points the SDK at another endpoint (a proxy, or the tests' fake server).
  The key is never written anywhere: error texts are scrubbed of it.
- The SDK's own retries stay on (429 honouring retry-after, 408/409, 5xx
  including 529 overloaded, timeouts, dropped connections). What still
  fails comes back as a ``CaseOutput`` with ``error`` set, never raised.
- Successful responses go to the content-addressed ``ResponseCache``; a
  rerun asks the cache first, so a finished case is never paid for twice.
- anthropic is imported only here, and only when the backend is built:
  the SDK takes about a second to import and the headless core must not
  pay for it.

Options (``create_backend("claude", ...)``; ``None`` means the default):
``model`` (``claude-sonnet-5-5``), ``max_tokens`` (20000, thinking included), ``cache_dir``
(no cache when None; the eval passes ``<results-dir>/.cache/responses``),
``use_cache`` (False: skip cache reads but still store), ``timeout``
(seconds per attempt, 600), ``max_retries`` (SDK retries per case, 2).
Concurrency is the runner's business; the SDK's connection pool is shared.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, AsyncIterator

from ..assistant import DEFAULT_MAX_TOKENS, DEFAULT_MODEL, build_request
from ..runs.cache import CachedResponse, ResponseCache, cache_key
from ..caseset.cases import Case
from ..caseset.snapshot import Snapshot
from ..runs.throttle import AdaptiveLimit
from ..caseset.untrusted import printable
from .base import BATCH_COUNTS, Backend, BackendUsageError, BatchError, BatchStatus, CaseOutput, Prepared

API_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_TIMEOUT_SECONDS = 600.0
DEFAULT_MAX_RETRIES = 2

# Statuses the SDK retries by itself; an error with one of these has had its retries.
_RETRIED_STATUSES = {408, 409, 429}

# Errors that will be the same for every case of the run: after the first,
# the remaining cases get the same error without another request.
_RUN_WIDE_STATUSES = {
    401: "authentication failed: check ANTHROPIC_API_KEY",
    403: "permission denied for this key",
    404: "not found: check the model name",
}

_STATUS_NAMES = {
    400: "invalid request",
    413: "request too large",
    429: "rate limited",
    500: "API internal error",
    503: "API unavailable",
    504: "API gateway timeout",
    529: "API overloaded",
}


class ClaudeBackend(Backend):
    name = "claude"
    supports_batch = True

    def __init__(
        self,
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        cache_dir: str | Path | None = None,
        use_cache: bool = True,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> None:
        self.model: str = model or DEFAULT_MODEL
        self.max_tokens = DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens
        self.timeout = DEFAULT_TIMEOUT_SECONDS if timeout is None else float(timeout)
        self.max_retries = DEFAULT_MAX_RETRIES if max_retries is None else max_retries
        if not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise BackendUsageError(f"--max-tokens must be a positive whole number, not {self.max_tokens!r}")
        if self.timeout <= 0:
            raise BackendUsageError(f"--timeout must be a positive number of seconds, not {timeout!r}")
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise BackendUsageError(f"--max-retries must be 0 or more, not {self.max_retries!r}")

        api_key = os.environ.get(API_KEY_ENV, "").strip()
        if not api_key:
            # Built by eval, the app and weekly (which has no --backend): the message names no flag.
            raise BackendUsageError(f"the claude backend needs {API_KEY_ENV} in the environment; set it and run again")
        self._api_key = api_key
        self.cache = ResponseCache(cache_dir, read=use_cache) if cache_dir is not None else None
        self.api_calls = 0
        self.cache_hits = 0
        self.batches_created = 0
        self.batch_requests = 0
        self._run_wide_error: str | None = None

        import anthropic  # deferred: only a claude run pays for the SDK import

        self._sdk = anthropic
        # An explicit api_key stops the SDK from looking for other credentials
        # (profiles, federation); base_url stays None so ANTHROPIC_BASE_URL applies.
        self.limit: AdaptiveLimit | None = None
        try:
            http_client = anthropic.DefaultAsyncHttpxClient(transport=_load_transport()(self))
            self._client = anthropic.AsyncAnthropic(api_key=api_key, timeout=self.timeout,
                                                    max_retries=self.max_retries, http_client=http_client)
        except Exception as exc:  # the SDK's HTTP layer rejects a malformed ANTHROPIC_BASE_URL here
            raise BackendUsageError(self._redact(
                f"cannot set up the Messages API client ({type(exc).__name__}: {exc}); "
                f"check ANTHROPIC_BASE_URL ({printable(os.environ.get('ANTHROPIC_BASE_URL', 'not set'), one_line=True)})"
            )) from None

    def use_limit(self, limit: AdaptiveLimit) -> None:
        """Gate every message attempt (the SDK's retries too) on the run's adaptive limit."""
        self.limit = limit

    def __repr__(self) -> str:  # never show the key
        return f"ClaudeBackend(model={self.model!r}, max_tokens={self.max_tokens})"

    def prepare(self, case: Case, repeat: int = 0) -> Prepared:
        """The case's request, its cache key, and its cached answer if there is one."""
        snapshot = case.snapshot if case.snapshot is not None else Snapshot.load(case.snapshot_path)
        request = build_request(snapshot.text, model=self.model, max_tokens=self.max_tokens)
        key = cache_key(request, repeat)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is None:
            return Prepared(key, request, None)
        self.cache_hits += 1
        output = CaseOutput(case.case_id, hit.text, input_tokens=hit.input_tokens, output_tokens=hit.output_tokens,
                            stop_reason=hit.stop_reason, cached=True, model=hit.model)
        return Prepared(key, request, output)

    def remember(self, key: str, output: CaseOutput) -> None:
        """Keep a successful answer in the response cache (direct and batched alike)."""
        if output.obtained and self.cache is not None:
            self.cache.put(key, CachedResponse(text=output.raw_text or "", stop_reason=output.stop_reason,
                                               input_tokens=output.input_tokens, output_tokens=output.output_tokens,
                                               model=output.model))

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        prepared = self.prepare(case, repeat)
        if prepared.cached is not None:
            return prepared.cached
        if self._run_wide_error is not None:
            return CaseOutput(case.case_id, None, error=self._run_wide_error, model=self.model)

        self.api_calls += 1
        try:
            message = await self._client.messages.create(**prepared.request)
        except self._sdk.AnthropicError as exc:
            return CaseOutput(case.case_id, None, error=self._redact(self._describe_error(exc)), model=self.model)

        output = self._case_output(case.case_id, message)
        # The cache write fsyncs: in a thread, so the loop keeps sending the other cases' requests meanwhile.
        await asyncio.to_thread(self.remember, prepared.key, output)
        return output

    async def count_tokens(self, request: dict[str, Any]) -> int:
        """Input tokens of a request, from the API's token-counting endpoint (no message is made)."""
        params = {k: v for k, v in request.items() if k != "max_tokens"}
        try:
            counted = await self._client.messages.count_tokens(**params)
        except self._sdk.AnthropicError as exc:
            raise BackendUsageError(self._redact(f"token counting failed: {self._describe_error(exc)}")) from None
        return counted.input_tokens

    # -- Message Batches ------------------------------------------------------------

    async def create_batch(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
        """Send (custom_id, request) pairs as one Message Batch; its id. BatchError when refused."""
        try:
            batch = await self._client.messages.batches.create(
                # build_request's dict is the Messages API body (its shape is checked against the fake API)
                requests=[{"custom_id": custom_id, "params": params} for custom_id, params in requests])  # type: ignore[typeddict-item]
        except self._sdk.AnthropicError as exc:
            raise BatchError(self._redact(f"cannot create the batch: {self._describe_error(exc)}")) from None
        self.batches_created += 1
        self.batch_requests += len(requests)
        return batch.id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        try:
            batch = await self._client.messages.batches.retrieve(batch_id)
        except self._sdk.AnthropicError as exc:
            raise self._batch_error(batch_id, exc) from None
        counts = batch.request_counts
        return BatchStatus(batch.processing_status, {name: getattr(counts, name) for name in BATCH_COUNTS})

    async def batch_results(self, batch_id: str) -> AsyncIterator[tuple[str, CaseOutput]]:
        """Each result line as (custom_id, output); the output's case_id is left to the caller."""
        try:
            lines = await self._client.messages.batches.results(batch_id)
            async for line in lines:
                yield line.custom_id, self._batch_output(line.result)
        except self._sdk.AnthropicError as exc:
            raise self._batch_error(batch_id, exc) from None

    def _batch_output(self, result: Any) -> CaseOutput:
        if result.type == "succeeded":
            output = self._case_output("", result.message)
        elif result.type == "errored":
            error = getattr(result.error, "error", None)
            what = f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', '')}".rstrip(": ")
            output = CaseOutput("", None, error=self._redact(f"batch request errored ({what})"), model=self.model)
        elif result.type == "expired":
            output = CaseOutput("", None, error="batch request expired (the batch reached its 24 hours first)",
                                model=self.model)
        else:
            output = CaseOutput("", None, error=f"batch request {result.type}", model=self.model)
        output.batch = True
        return output

    def _batch_error(self, batch_id: str, exc: Exception) -> BatchError:
        status = getattr(exc, "status_code", None)
        if status == 404:
            return BatchError(f"batch {batch_id} is not known to the API (HTTP 404): it was deleted, its results "
                              "are past their 29 days, or it belongs to another key or workspace", unknown=True)
        return BatchError(self._redact(f"batch {batch_id}: {self._describe_error(exc)}"))

    def _case_output(self, case_id: str, message: Any) -> CaseOutput:
        """Turn a Message into the case's output: the text block's JSON, or why there is none."""
        usage = message.usage
        # The API counts plain input apart from prompt-cache writes and reads; input_tokens
        # is their sum, and the two cache counts are kept so each is priced at its rate.
        cache_write = usage.cache_creation_input_tokens or 0
        cache_read = usage.cache_read_input_tokens or 0
        input_tokens = usage.input_tokens + cache_write + cache_read
        # Pick blocks by type: a thinking block may come before the text.
        text_blocks = [block.text for block in message.content if block.type == "text"]
        text = "".join(text_blocks) if text_blocks else None
        stop = message.stop_reason
        error = None
        if stop == "max_tokens":
            error = f"output truncated at max_tokens ({self.max_tokens}); raise --max-tokens"
        elif stop == "refusal":
            error = "the model refused" + _refusal_detail(getattr(message, "stop_details", None))
        elif stop == "model_context_window_exceeded":
            error = "the snapshot and prompt exceed the model's context window"
        elif stop not in ("end_turn", "stop_sequence"):
            error = f"unexpected stop_reason {stop!r}"
        elif text is None:
            kinds = ", ".join(block.type for block in message.content) or "none"
            error = f"the response has no text block (content blocks: {kinds})"
        return CaseOutput(
            case_id,
            text,  # kept on errors too: a truncated answer shows how far the model got
            error=error,
            input_tokens=input_tokens,
            output_tokens=usage.output_tokens,
            stop_reason=stop,
            model=message.model,
            cache_creation_input_tokens=cache_write,
            cache_read_input_tokens=cache_read,
        )

    def _describe_error(self, exc: Exception) -> str:
        """One line naming the status and the reason, for the summary and the results."""
        sdk = self._sdk
        plural = "retry" if self.max_retries == 1 else "retries"
        retried = f" (still failing after {self.max_retries} {plural})" if self.max_retries else ""
        if isinstance(exc, sdk.APITimeoutError):
            return f"request timed out after {self.timeout:g}s{retried}"
        if isinstance(exc, sdk.APIConnectionError):
            return f"cannot connect to the API: {exc.message}{retried}"
        if isinstance(exc, sdk.APIStatusError):
            status = exc.status_code
            what = _RUN_WIDE_STATUSES.get(status) or _STATUS_NAMES.get(status) or "API error"
            kind = f" {exc.type}" if getattr(exc, "type", None) else ""
            reason = getattr(exc, "api_message", None) or ""
            text = f"{what} (HTTP {status}{kind})" + (f": {reason}" if reason else "")
            if status in _RUN_WIDE_STATUSES:
                self._run_wide_error = self._redact(text)
            if status in _RETRIED_STATUSES or status >= 500:
                text += retried
            return text
        return f"{type(exc).__name__}: {exc}"

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[ANTHROPIC_API_KEY]")

    async def aclose(self) -> None:
        await self._client.close()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "timeout_seconds": self.timeout,
            "max_retries": self.max_retries,
            "cache_dir": str(self.cache.directory) if self.cache is not None else None,
            "cache_reads": bool(self.cache and self.cache.read),
            "api_calls": self.api_calls,  # messages.create calls; the SDK's retries are not counted
            "cache_hits": self.cache_hits,
            **({"concurrency": self.limit.describe()} if self.limit is not None else {}),
            **({"batches_created": self.batches_created, "batch_requests": self.batch_requests}
               if self.batches_created else {}),
        }


def _load_transport() -> type:
    """The throttled transport class, built on first use: httpx2 comes with the anthropic SDK."""
    global _Throttled
    if _Throttled is not None:
        return _Throttled
    import httpx2

    class Throttled(httpx2.AsyncBaseTransport):
        """The SDK's transport, with each POST /v1/messages attempt waiting for a slot of the backend's limit."""

        def __init__(self, backend: ClaudeBackend) -> None:
            self.backend = backend
            self.inner = httpx2.AsyncHTTPTransport(
                limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100))

        async def handle_async_request(self, request: Any) -> Any:
            limit = self.backend.limit
            if limit is None or request.url.path.rstrip("/") != "/v1/messages":
                return await self.inner.handle_async_request(request)
            await limit.acquire()
            try:
                response = await self.inner.handle_async_request(request)
            except BaseException:
                await asyncio.shield(limit.release(None))
                raise
            await limit.release(response.status_code, response.headers)
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    _Throttled = Throttled
    return Throttled


_Throttled: Any = None


def _refusal_detail(details: Any) -> str:
    if details is None:
        return ""
    parts = [p for p in (getattr(details, "category", None), getattr(details, "explanation", None)) if p]
    return f" ({': '.join(parts)})" if parts else ""
