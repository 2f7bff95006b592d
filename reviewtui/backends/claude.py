"""The ``claude`` backend: the audit prompt sent to the Messages API with the anthropic SDK.

- The key comes only from ``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL``
  points the SDK at another endpoint (a proxy, or the tests' fake server).
  The key is never written anywhere: error texts are scrubbed of it.
- The SDK's own retries stay on (429 honouring retry-after, 408/409, 5xx
  including 529 overloaded, timeouts, dropped connections). What still
  fails comes back as a ``CaseOutput`` with ``error`` set, never raised.
- Successful responses go to the content-addressed ``ResponseCache``; a
  rerun asks the cache first, so a finished case is never paid for twice.
- anthropic is imported only here, and only when a request is due
  (``connect``, or the first request, batch or token count): the SDK takes
  about a second to import, the headless core must not pay for it, and
  neither must a rerun whose every answer is in the response cache.
  ``plan`` prepares a run's requests before it starts and says how many
  the cache cannot answer.

Options (``create_backend("claude", ...)``; ``None`` means the default):
``model`` (``claude-sonnet-5-5``), ``max_tokens`` (20000, thinking included), ``cache_dir``
(no cache when None; the eval passes ``<results-dir>/.cache/responses``),
``use_cache`` (False: skip cache reads but still store), ``timeout``
(seconds per attempt, 600), ``max_retries`` (SDK retries per case, 2),
``sign_key`` (the stamp key: cache entries signed under it, unsigned ones not
read), ``require_record`` (read from the cache only answers with the API's
whole record, made at this endpoint: the weekly run's accounts).
Concurrency is the runner's business; the SDK's connection pool is shared.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Sequence

from ..assistant import DEFAULT_MAX_TOKENS, DEFAULT_MODEL, OutputError, build_request, parse_output
from .cache import CachedResponse, ResponseCache, cache_key
from .provenance import (configured_base_url, configured_endpoint, endpoint_of, public_url, record_problem,
                               scrub_url_credentials, text_sha256)
from ..caseset.cases import Case
from ..caseset.snapshot import Snapshot
from .throttle import AdaptiveLimit
from ..files.untrusted import printable
from .base import (BATCH_COUNTS, Backend, BackendUsageError, BatchError, BatchStatus, CaseOutput, ListedBatch,
                   Prepared)

if TYPE_CHECKING:
    import anthropic

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
        sign_key: bytes | None = None,
        require_record: bool = False,
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
        self.cache = ResponseCache(cache_dir, read=use_cache, key=sign_key) if cache_dir is not None else None
        self.require_record = require_record
        self.api_calls = 0
        self.cache_hits = 0
        self.batches_created = 0
        self.batch_requests = 0
        self._run_wide_error: str | None = None

        self.limit: AdaptiveLimit | None = None
        self._base_url = configured_base_url()  # for scrubbing its credentials from errors
        # Where the answers come from; the client's own base URL confirms it once connected (backends/provenance.py).
        self.endpoint = configured_endpoint()
        self._sdk: Any = None  # the anthropic module, once a request is due (connect)
        self._connection: anthropic.AsyncAnthropic | None = None  # the SDK's client, likewise
        self._planned: dict[tuple[str, int], Prepared] = {}  # plan's work, taken by run
        self._writes: set[asyncio.Future[None]] = set()  # response-cache writes still going

    def connect(self) -> None:
        """Import the SDK and build its client, once. Raises BackendUsageError for a malformed ANTHROPIC_BASE_URL.

        The eval calls it before its run's first request (``plan`` found requests to send), so the
        import is not paid on the event loop while requests wait; anything that needs the client
        calls it too.
        """
        if self._connection is not None:
            return
        import anthropic  # deferred: only a claude run that sends something pays for the SDK import

        # An explicit api_key stops the SDK from looking for other credentials
        # (profiles, federation); base_url stays None so ANTHROPIC_BASE_URL applies.
        try:
            http_client = anthropic.DefaultAsyncHttpxClient(transport=_load_transport()(self))
            self._connection = anthropic.AsyncAnthropic(api_key=self._api_key, timeout=self.timeout,
                                                        max_retries=self.max_retries, http_client=http_client)
        except Exception as exc:  # the SDK's HTTP layer rejects a malformed ANTHROPIC_BASE_URL here
            shown = public_url(os.environ['ANTHROPIC_BASE_URL']) if os.environ.get('ANTHROPIC_BASE_URL') else 'not set'
            raise BackendUsageError(self._redact(
                f"cannot set up the Messages API client ({type(exc).__name__}: {exc}); "
                f"check ANTHROPIC_BASE_URL ({printable(shown, one_line=True)})"
            )) from None
        self._sdk = anthropic
        _warm_response_parsing(anthropic)
        # Where the answers come from, recorded with each of them (backends/provenance.py).
        self.endpoint = endpoint_of(str(self._connection.base_url))

    @property
    def _client(self) -> anthropic.AsyncAnthropic:
        self.connect()
        assert self._connection is not None
        return self._connection

    @property
    def connected(self) -> bool:
        """Whether the SDK was loaded (a run answered from the cache never loads it)."""
        return self._connection is not None

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
        if hit is not None and self.require_record:
            hit = self._with_whole_record(key, hit)
        if hit is None:
            return Prepared(key, request, None)
        self.cache_hits += 1
        output = CaseOutput(case.case_id, hit.text, input_tokens=hit.input_tokens, output_tokens=hit.output_tokens,
                            stop_reason=hit.stop_reason, cached=True, model=hit.model,
                            provenance=dict(hit.provenance) if hit.provenance is not None else None)
        return Prepared(key, request, output)

    def _with_whole_record(self, key: str, hit: CachedResponse) -> CachedResponse | None:
        """``hit`` when it carries the API's whole record of it, made at this endpoint; else None (asked again)."""
        assert self.cache is not None
        problem = record_problem(hit.provenance, hit.text)
        asked = (hit.provenance or {}).get("endpoint")
        if problem is None and asked == self.endpoint:
            return hit
        why = {"record": "no whole record of the API", "ids": "ids not of the API's shape",
               "text": "a text that is not the one received"}.get(problem or "", f"answered at {asked}")
        self.cache.warn(f"cache file {self.cache.path_for(key)} holds an answer with {why}; not used, asking the "
                        "API again")
        return None

    def plan(self, cases: Sequence[Case], repeats: int) -> int:
        """Prepare every (case, repeat) of a run now, before its first request; how many need a request.

        ``run`` takes each one prepared here instead of preparing it again, so building the
        requests and reading the cache is done before the run starts, not between its requests.
        Planning the same (case, repeat) again keeps what was prepared.
        """
        due = 0
        for case in cases:
            for repeat in range(repeats):
                prepared = self._planned.get((case.case_id, repeat))
                if prepared is None:
                    prepared = self._planned[(case.case_id, repeat)] = self.prepare(case, repeat)
                due += prepared.cached is None
        return due

    def remember(self, key: str, output: CaseOutput) -> None:
        """Name the request ``key`` in the answer's provenance, and keep a good answer in the response cache.

        Direct and batched answers alike. An answer that is not JSON of the output schema is not
        kept: the next run asks for it again instead of reading the same unusable text forever.
        """
        self._name_request(key, output)
        if not output.obtained or self.cache is None:
            return
        try:
            parse_output(output.raw_text or "")
        except OutputError:
            return
        self.cache.put(key, CachedResponse(text=output.raw_text or "", stop_reason=output.stop_reason,
                                           input_tokens=output.input_tokens, output_tokens=output.output_tokens,
                                           model=output.model, provenance=output.provenance))

    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        prepared = self._planned.pop((case.case_id, repeat), None) or self.prepare(case, repeat)
        if prepared.cached is not None:
            return prepared.cached
        if self._run_wide_error is not None:
            return CaseOutput(case.case_id, None, error=self._run_wide_error, model=self.model)

        client = self._client  # outside the try: a client that cannot be built raises its own BackendUsageError
        self.api_calls += 1
        try:
            message = await client.messages.create(**prepared.request)
        except self._sdk.AnthropicError as exc:
            return CaseOutput(case.case_id, None, error=self._redact(self._describe_error(exc)), model=self.model)

        output = self._case_output(case.case_id, message, request_id=getattr(message, "_request_id", None))
        if output.provenance is not None:  # now, not in the cache write's thread: the run records the output at once
            output.provenance["request_sha256"] = prepared.key
        self._remember_in_background(prepared.key, output)
        return output

    @staticmethod
    def _name_request(key: str, output: CaseOutput) -> None:
        """The answer's provenance names the request it answers (the response cache's key)."""
        if output.provenance is not None:
            output.provenance["request_sha256"] = key

    def _remember_in_background(self, key: str, output: CaseOutput) -> None:
        """The cache write (a file and a folder fsync, a few milliseconds) in a thread, not awaited here.

        The worker that got this answer sends its next request at once instead of waiting for the
        disk; ``aclose`` waits for every write still going, and so does the end of ``asyncio.run``
        (it joins the threads), so a run that ends or is interrupted keeps every answer it got.
        """
        # Named here, not in the thread: the caller records the answer as soon as ``run`` returns,
        # possibly before the thread has started.
        self._name_request(key, output)
        write = asyncio.ensure_future(asyncio.to_thread(self.remember, key, output))
        self._writes.add(write)
        write.add_done_callback(self._writes.discard)

    async def count_tokens(self, request: dict[str, Any]) -> int:
        """Input tokens of a request, from the API's token-counting endpoint (no message is made)."""
        params = {k: v for k, v in request.items() if k != "max_tokens"}
        client = self._client
        try:
            counted = await client.messages.count_tokens(**params)
        except self._sdk.AnthropicError as exc:
            raise BackendUsageError(self._redact(f"token counting failed: {self._describe_error(exc)}")) from None
        return counted.input_tokens

    # -- Message Batches ------------------------------------------------------------

    async def create_batch(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
        """Send (custom_id, request) pairs as one Message Batch; its id. BatchError when refused."""
        client = self._client
        try:
            batch = await client.messages.batches.create(
                # build_request's dict is the Messages API body (its shape is checked against the fake API)
                requests=[{"custom_id": custom_id, "params": params} for custom_id, params in requests])  # type: ignore[typeddict-item]
        except self._sdk.AnthropicError as exc:
            raise BatchError(self._redact(f"cannot create the batch: {self._describe_error(exc)}")) from None
        self.batches_created += 1
        self.batch_requests += len(requests)
        return batch.id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        client = self._client
        try:
            batch = await client.messages.batches.retrieve(batch_id)
        except self._sdk.AnthropicError as exc:
            raise self._batch_error(batch_id, exc) from None
        counts = batch.request_counts
        return BatchStatus(batch.processing_status, {name: getattr(counts, name) for name in BATCH_COUNTS})

    async def list_batches(self, since: float) -> list[ListedBatch]:
        """The batches the API lists as created at or after ``since`` (seconds since the epoch), newest first."""
        found = []
        try:
            async for batch in self._client.messages.batches.list(limit=100):
                created = batch.created_at.timestamp()
                if created < since:
                    break  # listed newest first: the rest are older
                counts = batch.request_counts
                found.append(ListedBatch(batch.id, created, sum(getattr(counts, name) for name in BATCH_COUNTS),
                                         batch.processing_status == "ended"))
        except self._sdk.AnthropicError as exc:
            raise BatchError(self._redact(f"cannot list the batches: {self._describe_error(exc)}")) from None
        return found

    async def batch_results(self, batch_id: str) -> AsyncIterator[tuple[str, CaseOutput]]:
        """Each result line as (custom_id, output); the output's case_id is left to the caller."""
        client = self._client
        try:
            lines = await client.messages.batches.results(batch_id)
            async for line in lines:
                yield line.custom_id, self._batch_output(line.result, batch_id)
        except self._sdk.AnthropicError as exc:
            raise self._batch_error(batch_id, exc) from None

    def _batch_output(self, result: Any, batch_id: str) -> CaseOutput:
        if result.type == "succeeded":
            output = self._case_output("", result.message, batch_id=batch_id)
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

    def _case_output(self, case_id: str, message: Any, *, request_id: str | None = None,
                     batch_id: str | None = None) -> CaseOutput:
        """Turn a Message into the case's output: the text block's JSON, or why there is none.

        The output keeps the API's record of it: the message id, the request id of a direct call
        or the batch of a batched one, the endpoint, the SHA-256 of the text as it came back and the
        run that got it (``remember`` adds the request it answers).
        """
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
            provenance={"message_id": getattr(message, "id", None), "request_id": request_id, "batch_id": batch_id,
                        "endpoint": self.endpoint, "text_sha256": text_sha256(text) if text is not None else None,
                        "run_id": self.run_id},
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
        """``text`` without the API key or the credentials of ANTHROPIC_BASE_URL."""
        return scrub_url_credentials(text.replace(self._api_key, "[ANTHROPIC_API_KEY]"), self._base_url)

    async def aclose(self) -> None:
        self._planned.clear()
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
        if self._connection is not None:
            await self._connection.close()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "timeout_seconds": self.timeout,
            "max_retries": self.max_retries,
            "endpoint": self.endpoint,
            "cache_dir": str(self.cache.directory) if self.cache is not None else None,
            "cache_reads": bool(self.cache and self.cache.read),
            "api_calls": self.api_calls,  # messages.create calls; the SDK's retries are not counted
            "cache_hits": self.cache_hits,
            **({"concurrency": self.limit.describe()} if self.limit is not None else {}),
            **({"batches_created": self.batches_created, "batch_requests": self.batch_requests}
               if self.batches_created else {}),
        }


def preload_sdk() -> None:
    """Start importing the SDK in a background thread, for a run sure to send a request.

    The eval calls it before it checks the case set, so the import (about a second) and the
    check share the start-up instead of following each other: parts of both wait on the disk,
    and on a busy machine the two threads get more of it. ``connect`` imports the module as
    usual, waiting for this import to finish if it has not; an import that failed here is
    simply tried again there, where its error is reported.
    """
    global _preloading
    if _preloading is None and "anthropic" not in sys.modules:
        _preloading = threading.Thread(target=_import_sdk, name="reviewtui-sdk-import", daemon=True)
        _preloading.start()


def _import_sdk() -> None:
    try:
        import anthropic
    except Exception:  # noqa: BLE001 - connect() imports it again and reports what is wrong
        return
    _warm_response_parsing(anthropic)


def _warm_response_parsing(anthropic: Any) -> None:
    """Build, before the run, what the SDK builds when it reads its first Message (the models of the
    content blocks: about 20 to 50 ms). Done on the first answer instead, it holds the event loop
    while the rest of the first round's answers wait, which lengthens every worker's next request."""
    global _response_parsing_warm
    if _response_parsing_warm:
        return
    try:
        anthropic.types.Message.construct(**_SAMPLE_MESSAGE)
    except Exception:  # noqa: BLE001 - only a head start: the first answer builds it otherwise
        pass
    _response_parsing_warm = True


_SAMPLE_MESSAGE = {
    "id": "msg_warm_up", "type": "message", "role": "assistant", "model": "warm-up",
    "content": [{"type": "thinking", "thinking": "", "signature": ""}, {"type": "text", "text": "{}"}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
}  # fmt: skip
_preloading: threading.Thread | None = None
_response_parsing_warm = False


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


_Throttled: type | None = None


def _refusal_detail(details: Any) -> str:
    if details is None:
        return ""
    parts = [p for p in (getattr(details, "category", None), getattr(details, "explanation", None)) if p]
    return f" ({': '.join(parts)})" if parts else ""
