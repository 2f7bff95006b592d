"""A local fake of the Anthropic Messages API, for driving the real SDK in tests.

A real HTTP server on 127.0.0.1 (a free port, in a daemon thread) that
implements ``POST /v1/messages``:

- it checks the request the way the real API would reject it, and a bit
  more strictly (the ``Authorization: Bearer <key>`` header, ``model``,
  ``max_tokens``, ``system``, ``messages``, ``output_config.format`` of type
  ``json_schema`` whose schema has ``additionalProperties: false`` on every
  object, no ``temperature``, no unknown parameters); a bad request gets a
  400 ``invalid_request_error`` (401 for the key) saying what is wrong;
- it answers each request with the next planned response of the case it
  is about, found by a marker (e.g. the snapshot's account id) in the user
  message; the last planned response repeats once the plan runs out;
- it records every request, so a test can count calls per marker;
- it keeps a prompt cache as the API does: a prefix that ends at a block
  marked ``cache_control`` is written by the first request that carries it
  (``usage.cache_creation_input_tokens``) and read by later ones
  (``usage.cache_read_input_tokens``), at about 4 characters a token.

It also serves the Message Batches endpoints (``POST /v1/messages/batches``,
``GET /v1/messages/batches`` (newest first, ``limit`` and ``after_id``),
``GET /v1/messages/batches/{id}``, ``GET /v1/messages/batches/{id}/results``
as JSONL, in reverse order of the requests, as the API promises no order)
and ``POST /v1/messages/count_tokens``. Each request of a batch is checked
like a direct one and answered from the same plans when the batch is
created: a planned answer is a ``succeeded`` result, a planned API error an
``errored`` one, ``batch_canceled()`` and ``batch_expired()`` the other two
result types. A batch reports ``in_progress`` for its first
``batch_polls`` retrieves (``None``: until ``end_batches()``), then ``ended``.
``create_batch_delay`` and ``results_delay`` hold the answer to a batch's
creation (made at once) or to its results for that many seconds, so a test
can kill a client at those moments.

Use (``serving_in_env`` also sets ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL)::

    with serving_in_env(monkeypatch, "sk-test") as api:
        api.plan("111-000-0001", rate_limited(), answer('{"findings": []}'))
        ...  # run the claude backend or `reviewtui eval --backend claude`
        assert api.count("111-000-0001") == 2

Planned responses: ``answer``, ``slow_answer``, ``answer_with_thinking``, ``truncated``,
``refusal``, ``rate_limited``, ``overloaded``, ``server_error``, ``hang``,
``api_error`` (any status).
``write_case`` writes a valid case whose snapshot carries a marker.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

# Parameters of messages.create the fake accepts; anything else is a 400.
KNOWN_PARAMS = {
    "model", "max_tokens", "messages", "system", "output_config", "metadata", "stop_sequences",
    "stream", "thinking", "tool_choice", "tools", "service_tier", "cache_control", "container",
    "inference_geo", "speed", "diagnostics", "user_profile_id", "workspace_id",
}  # fmt: skip


# --------------------------------------------------------------------------
# Planned responses
# --------------------------------------------------------------------------


@dataclass
class Planned:
    """One planned response: a status, headers, a JSON body; or a delay before answering."""

    status: int = 200
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (a read timeout when above the client's)
    label: str = ""
    raw: bytes | None = None  # a body that is not JSON (a batch's JSONL results)


def _message(content: list[dict[str, Any]], stop_reason: str, *, output_tokens: int | None = None, **extra: Any) -> dict:
    # The id, model and input_tokens are filled in per request by the server.
    text_length = sum(len(block.get("text") or block.get("thinking") or "") for block in content)
    return {
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"output_tokens": output_tokens if output_tokens is not None else max(1, text_length // 4)},
        **extra,
    }


def answer(text: str, *, output_tokens: int | None = None) -> Planned:
    """A good answer: one text block holding ``text``."""
    return Planned(body=_message([{"type": "text", "text": text}], "end_turn", output_tokens=output_tokens), label="answer")


def answer_with_thinking(text: str, thinking: str = "Looking at the daily rows first.") -> Planned:
    """A good answer whose text block comes after a thinking block."""
    content = [
        {"type": "thinking", "thinking": thinking, "signature": "fake-signature"},
        {"type": "text", "text": text},
    ]
    return Planned(body=_message(content, "end_turn"), label="thinking+answer")


def truncated(partial_text: str = '{"findings": [{"id": "pacing.overspend", "scope": nu') -> Planned:
    """The model ran out of max_tokens mid-answer."""
    return Planned(body=_message([{"type": "text", "text": partial_text}], "max_tokens"), label="max_tokens")


def refusal(explanation: str | None = None) -> Planned:
    """The model declined to answer."""
    details = {"type": "refusal", "category": None, "explanation": explanation}
    return Planned(body=_message([], "refusal", stop_details=details), label="refusal")


def api_error(status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> Planned:
    """An API error response in the API's shape: ``{"type": "error", "error": {...}}``."""
    body = {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_01FakeError000000000000"}
    return Planned(status=status, body=body, headers=headers or {}, label=f"{status} {error_type}")


def rate_limited(retry_after: str = "1") -> Planned:
    """429 with a retry-after header (seconds), as the API sends it."""
    return api_error(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", {"retry-after": retry_after})


def batch_canceled() -> Planned:
    """In a batch: the request was canceled before it was processed."""
    return Planned(status=0, label="canceled")


def batch_expired() -> Planned:
    """In a batch: the batch reached its 24 hours before the request was processed."""
    return Planned(status=0, label="expired")


def overloaded() -> Planned:
    return api_error(529, "overloaded_error", "Overloaded")


def server_error() -> Planned:
    return api_error(500, "api_error", "Internal server error")


def slow_answer(text: str, seconds: float) -> Planned:
    """A good answer that takes ``seconds`` (as a model does), so requests overlap."""
    planned = answer(text)
    planned.delay, planned.label = seconds, f"answer after {seconds:g}s"
    return planned


def hang(seconds: float) -> Planned:
    """Answer only after ``seconds``: a read timeout for a client with a shorter timeout."""
    planned = answer('{"findings": []}')
    planned.delay, planned.label = seconds, f"hang {seconds:g}s"
    return planned


# --------------------------------------------------------------------------
# Request validation
# --------------------------------------------------------------------------


def _schema_nodes(schema: Any, where: str = "schema") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object node of a JSON schema, with its path."""
    if isinstance(schema, dict):
        yield where, schema
        for key, value in schema.items():
            yield from _schema_nodes(value, f"{where}.{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from _schema_nodes(value, f"{where}[{i}]")


def _objects_without_closed_properties(schema: Any) -> list[str]:
    """Paths of object schemas that lack ``additionalProperties: false``."""
    found = []
    for where, node in _schema_nodes(schema):
        kinds = node.get("type")
        is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds) or "properties" in node
        if is_object and node.get("additionalProperties") is not False:
            found.append(where)
    return found


def request_problem(body: Any) -> str | None:
    """Why the real API (or our contract) would reject this request body, or None."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if "temperature" in body:
        return "temperature: this model does not accept temperature"
    unknown = sorted(set(body) - KNOWN_PARAMS)
    if unknown:
        return f"{unknown[0]}: Extra inputs are not permitted"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: must be a positive integer"
    if body.get("stream"):
        return "stream: the fake serves non-streaming requests only"
    system = body.get("system")
    if isinstance(system, list):
        if not system or not all(isinstance(b, dict) and b.get("type") == "text" and b.get("text") for b in system):
            return "system: must be a non-empty list of text blocks"
    elif not isinstance(system, str) or not system:
        return "system: Field required (the audit prompt)"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: Field required"
    if not isinstance(messages[0], dict) or messages[0].get("role") != "user":
        return "messages.0.role: the first message must be from the user"
    if not user_text(body):
        return "messages.0.content: must not be empty"
    problem = _thinking_problem(body.get("thinking"), max_tokens)
    if problem:
        return problem
    fmt = (body.get("output_config") or {}).get("format") if isinstance(body.get("output_config"), dict) else None
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return "output_config.format.type: expected 'json_schema'"
    schema = fmt.get("schema")
    if not isinstance(schema, dict) or not schema:
        return "output_config.format.schema: Field required"
    open_objects = _objects_without_closed_properties(schema)
    if open_objects:
        return f"output_config.format.{open_objects[0]}: 'additionalProperties' must be explicitly set to false for object types"
    for where, node in _schema_nodes(schema):
        if node.get("minItems", 0) not in (0, 1):
            return f"output_config.format.{where}: minItems values other than 0 or 1 are not supported"
    return None


def _thinking_problem(thinking: Any, max_tokens: int) -> str | None:
    """The documented rules of the ``thinking`` parameter."""
    if thinking is None:
        return None
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind in ("adaptive", "disabled"):
        return None
    if kind != "enabled":
        return "thinking.type: expected 'adaptive', 'enabled' or 'disabled'"
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or budget < 1024:
        return "thinking.budget_tokens: must be at least 1024"
    if budget >= max_tokens:
        return "thinking.budget_tokens: must be less than max_tokens"
    return None


def _blocks(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def cache_prefixes(body: dict[str, Any]) -> list[str]:
    """The request's cacheable prefixes: its text up to each block marked cache_control, shortest first."""
    text, prefixes = "", []
    system = body.get("system")
    for block in _blocks(system):
        text += json.dumps(block.get("text", "") if isinstance(block, dict) else block)
        if isinstance(block, dict) and block.get("cache_control"):
            prefixes.append(text)
    for message in body.get("messages") or []:
        for block in _blocks(message.get("content") if isinstance(message, dict) else None):
            text += json.dumps(block.get("text", "") if isinstance(block, dict) else block)
            if isinstance(block, dict) and block.get("cache_control"):
                prefixes.append(text)
    return prefixes


def user_text(body: dict[str, Any]) -> str:
    """All the text of the request's user messages."""
    parts = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(parts)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    marker: str | None
    status: int  # what the fake answered (before any delay)
    label: str
    usage: dict[str, Any] | None = None  # the usage of a 200 answer (prompt-cache counts included)
    cache_prefixes: list[str] = field(default_factory=list)  # written to the prompt cache once answered
    received_at: float = field(default_factory=time.monotonic)
    answered_at: float | None = None  # when the answer was sent (after any delay)


class FakeMessagesAPI:
    """The fake server. Start it with ``with`` (or ``start()``/``stop()``)."""

    def __init__(self, *, api_key: str = "fake-anthropic-key-test-fake-key", default: Planned | None = None) -> None:
        self.api_key = api_key
        self.default = default  # served when no marker matches; None answers 400
        self.requests: list[RecordedRequest] = []
        self.prompt_cache: set[str] = set()  # prefixes written to the prompt cache
        self._plans: dict[str, list[Planned]] = {}
        self._lock = threading.Lock()
        self._released = threading.Event()  # set on stop, so hanging handlers end at once
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.batches: dict[str, dict[str, Any]] = {}  # id -> {"requests": [...], "results": [...], "retrieves": n}
        self.batch_polls: int | None = 1  # retrieves that report in_progress before a batch ends; None: never
        self.extra_result_lines: list[dict[str, Any]] = []  # appended to every results file (unknown custom_ids)
        self.create_batch_delay = 0.0  # seconds before the answer to a batch's creation (the batch exists at once)
        self.results_delay = 0.0  # seconds before a batch's results are sent
        self.served = 0  # responses sent (numbers each one's request-id header)
        self.messages_made = 0  # messages answered (numbers each one's id)
        self.in_flight = 0  # direct requests being answered now
        self.max_in_flight = 0

    # -- planning and counting ------------------------------------------------

    def plan(self, marker: str, *responses: Planned) -> None:
        """Responses for requests whose user message contains ``marker``, in order; the last repeats."""
        if not responses:
            raise ValueError("plan at least one response")
        with self._lock:
            self._plans[marker] = list(responses)

    def count(self, marker: str | None = None) -> int:
        """Requests received (for one marker, or all)."""
        with self._lock:
            return sum(1 for r in self.requests if marker is None or r.marker == marker)

    def end_batches(self) -> None:
        """Every batch reports ``ended`` from its next retrieve on."""
        with self._lock:
            self.batch_polls = 0

    def batches_created(self) -> list[str]:
        with self._lock:
            return list(self.batches)

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def _next_response(self, marker: str | None) -> Planned | None:
        with self._lock:
            queue = self._plans.get(marker) if marker is not None else None
            if not queue:
                return self.default
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def _marker_in(self, text: str) -> str | None:
        with self._lock:
            hits = [m for m in self._plans if m in text]
        return max(hits, key=len) if hits else None  # "acct-10" wins over "acct-1"

    # -- lifecycle --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake server is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeMessagesAPI":
        handler = type("Handler", (_Handler,), {"api": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # stop() waits for serve_forever to see the shutdown, up to one poll interval: short, as every
        # test that serves the fake pays it once.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="fake-messages-api", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeMessagesAPI":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------

    def respond(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[Planned, RecordedRequest]:
        """Decide the answer to one request, and record it."""
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            body = None
            planned = api_error(400, "invalid_request_error", f"the body is not JSON: {exc}")
        else:
            planned = self._check_and_plan(method, path, headers, body)
        return self.respond_to(method, path, headers, body, planned)

    def respond_to(self, method: str, path: str, headers: dict[str, str], body: Any,
                   planned: Planned) -> tuple[Planned, RecordedRequest]:
        """Fill in a planned message (id, model, usage, prompt cache) and record the request."""
        marker = self._marker_in(user_text(body)) if isinstance(body, dict) else None
        usage, prefixes = None, []
        if planned.status == 200 and planned.body is not None and planned.body.get("type") == "message":
            with self._lock:  # unique ids, as the API's are: never reused, whatever was cleared or sent at once
                self.messages_made += 1
                number = self.messages_made
            planned = _fill_in(planned, body, number)
            prefixes = cache_prefixes(body)
            with self._lock:
                _cache_usage(planned.body["usage"], prefixes, self.prompt_cache)
            usage = planned.body["usage"]
        record = RecordedRequest(method, path, headers, body, marker, planned.status, planned.label, usage, prefixes)
        with self._lock:
            self.requests.append(record)
        return planned, record

    def _check_and_plan(self, method: str, path: str, headers: dict[str, str], body: Any) -> Planned:
        route = path.split("?")[0]
        if headers.get("authorization") != f"Bearer {self.api_key}":
            return api_error(401, "authentication_error", "invalid x-api-key or bearer token")
        if not headers.get("anthropic-version"):
            return api_error(400, "invalid_request_error", "anthropic-version: header is required")
        if route.startswith("/v1/messages/batches"):
            query = dict(urllib.parse.parse_qsl(path.split("?", 1)[1])) if "?" in path else {}
            return self._batches(method, route, body, query)
        if (method, route) == ("POST", "/v1/messages/count_tokens"):
            return self._count_tokens(body)
        if method != "POST" or route != "/v1/messages":
            return api_error(404, "not_found_error", f"the fake serves /v1/messages, its batches and count_tokens, not {method} {path}")
        return self._plan_for(body)

    def _plan_for(self, body: Any) -> Planned:
        problem = request_problem(body)
        if problem:
            return api_error(400, "invalid_request_error", problem)
        planned = self._next_response(self._marker_in(user_text(body)))
        if planned is None:
            return api_error(400, "invalid_request_error", "fake server: no planned response matches this request")
        return planned


    # -- count_tokens and Message Batches -----------------------------------------

    def _count_tokens(self, body: Any) -> Planned:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body.get("messages"):
            return api_error(400, "invalid_request_error", "count_tokens needs model and messages")
        unknown = sorted(set(body) - KNOWN_PARAMS)
        if unknown or "max_tokens" in body:
            return api_error(400, "invalid_request_error", f"{(unknown or ['max_tokens'])[0]}: Extra inputs are not permitted")
        return Planned(body={"input_tokens": request_tokens(body)}, label="count_tokens")

    def _list_batches(self, query: dict[str, str]) -> Planned:
        with self._lock:
            ids = list(reversed(self.batches))  # newest first
        if query.get("after_id") in ids:
            ids = ids[ids.index(query["after_id"]) + 1:]
        limit = int(query.get("limit") or 20)
        page = [self._batch_object(batch_id) for batch_id in ids[:limit]]
        return Planned(body={"data": page, "has_more": len(ids) > limit, "first_id": page[0]["id"] if page else None,
                             "last_id": page[-1]["id"] if page else None}, label="batch list")

    def _batches(self, method: str, route: str, body: Any, query: dict[str, str]) -> Planned:
        parts = route.split("/")[4:]  # after /v1/messages/batches
        if method == "POST" and not parts:
            created = self._create_batch(body)
            created.delay = self.create_batch_delay if created.status == 200 else 0.0
            return created
        if method == "GET" and not parts:
            return self._list_batches(query)
        batch = self.batches.get(parts[0]) if parts else None
        if batch is None:
            return api_error(404, "not_found_error", f"message batch {parts[0] if parts else ''!r} not found")
        if method == "GET" and len(parts) == 1:
            with self._lock:
                batch["retrieves"] += 1
            return Planned(body=self._batch_object(parts[0]), label="batch")
        if method == "GET" and parts[1:] == ["results"]:
            if not self._batch_ended(batch):
                return api_error(400, "invalid_request_error", "the batch has not ended yet")
            lines = [*reversed(batch["results"]), *self.extra_result_lines]
            return Planned(body=None, label="results", headers={"content-type": "application/binary"},
                           raw="".join(json.dumps(line) + "\n" for line in lines).encode("utf-8"),
                           delay=self.results_delay)
        return api_error(404, "not_found_error", f"the fake does not serve {method} {route}")

    def _create_batch(self, body: Any) -> Planned:
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            return api_error(400, "invalid_request_error", "requests: Field required")
        seen: set[str] = set()
        for i, item in enumerate(requests):
            custom_id = item.get("custom_id") if isinstance(item, dict) else None
            if not isinstance(custom_id, str) or not CUSTOM_ID.fullmatch(custom_id):
                return api_error(400, "invalid_request_error", f"requests.{i}.custom_id: must match {CUSTOM_ID.pattern}")
            if custom_id in seen:
                return api_error(400, "invalid_request_error", f"requests.{i}.custom_id: {custom_id!r} is not unique")
            seen.add(custom_id)
            problem = request_problem(item.get("params"))
            if problem:
                return api_error(400, "invalid_request_error", f"requests.{i}.params.{problem}")
        batch_id = fake_batch_id(len(self.batches) + 1)
        results = []
        for item in requests:  # each request is answered now, as if it were sent on its own
            params = item["params"]
            planned, record = self.respond_to("POST", f"/v1/messages/batches#{item['custom_id']}", {}, params,
                                              self._plan_for(params))
            with self._lock:
                self.prompt_cache.update(record.cache_prefixes)
            results.append({"custom_id": item["custom_id"], "result": _batch_result(planned)})
        with self._lock:
            self.batches[batch_id] = {"results": results, "retrieves": 0,
                                      "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        return Planned(body=self._batch_object(batch_id), label="batch created")

    def _batch_ended(self, batch: dict[str, Any]) -> bool:
        return self.batch_polls is not None and batch["retrieves"] > self.batch_polls

    def _batch_object(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches.get(batch_id) or {"results": [], "retrieves": 0}
        ended = bool(batch["results"]) and self._batch_ended(batch)
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for line in batch["results"]:
            counts[line["result"]["type"] if ended else "processing"] += 1
        return {
            "id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts, "created_at": batch.get("created_at", "2026-01-01T00:00:00Z"),
            "expires_at": "2026-01-02T00:00:00Z",
            "ended_at": "2026-01-01T01:00:00Z" if ended else None, "archived_at": None, "cancel_initiated_at": None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch_id}/results" if ended else None,
        }  # fmt: skip


CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def request_tokens(body: dict[str, Any]) -> int:
    """The fake's token count of a request: about 4 characters a token."""
    return max(1, len(json.dumps(body)) // 4)


def _batch_result(planned: Planned) -> dict[str, Any]:
    if planned.label in ("canceled", "expired"):
        return {"type": planned.label}
    if planned.status == 200:
        return {"type": "succeeded", "message": planned.body}
    return {"type": "errored", "error": planned.body}


@contextmanager
def serving_in_env(monkeypatch: Any, api_key: str) -> Iterator[FakeMessagesAPI]:
    """A running fake, with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL pointing the SDK at it (pytest's monkeypatch)."""
    with FakeMessagesAPI(api_key=api_key) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", api_key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        yield server


def fake_batch_id(number: int) -> str:
    """The id of the fake's ``number``-th batch, of the API's shape (msgbatch_, then letters and digits)."""
    return f"msgbatch_01Fake{number:014d}"


def _fill_in(planned: Planned, request: dict[str, Any], number: int) -> Planned:
    """A copy of a planned message with the request's model, an id and input token usage."""
    body = json.loads(json.dumps(planned.body))
    body["id"] = f"msg_01Fake{number:014d}"  # the API's shape: msg_, then letters and digits
    body["model"] = request.get("model")
    body["usage"]["input_tokens"] = request_tokens(request)
    return Planned(planned.status, body, dict(planned.headers), planned.delay, planned.label, planned.raw)


def _cache_usage(usage: dict[str, Any], prefixes: list[str], cache: set[str]) -> None:
    """Split the input tokens into plain input, cache writes and cache reads.

    Only prefixes of answers already sent are in ``cache``: as with the API, a
    request sent beside the first one with the same prefix writes it again.
    """
    total = usage["input_tokens"]
    read = max((len(p) for p in prefixes if p in cache), default=0) // 4
    written = max(0, (len(prefixes[-1]) // 4 if prefixes else 0) - read)
    usage["cache_read_input_tokens"] = read
    usage["cache_creation_input_tokens"] = written
    usage["input_tokens"] = max(0, total - read - written)


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 makes the 6th simultaneous connection wait for a
    # SYN retry (a second): a client at concurrency 16 would look slow for the fake's sake.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client killed mid-request (the kill -9 tests and benchmark) resets its connection: that is
        # the client's doing, not the fake's, and not worth a traceback on stderr.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    api: FakeMessagesAPI
    protocol_version = "HTTP/1.1"
    # The headers and the body go out as two writes. With Nagle's algorithm the body waits for
    # the client's delayed ACK of the headers (40 ms on Linux), on every answer of a kept-alive
    # connection: a latency no real API adds. TCP_NODELAY sends each write at once.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        api = self.api
        direct = self.path.split("?")[0] == "/v1/messages"
        if direct:
            with api._lock:
                api.in_flight += 1
                api.max_in_flight = max(api.max_in_flight, api.in_flight)
        try:
            planned, record = api.respond(self.command, self.path, headers, raw)
            if planned.delay and api._released.wait(planned.delay):
                return  # the server is stopping
        finally:
            if direct:
                with api._lock:
                    api.in_flight -= 1
        with api._lock:  # the answer is on its way: its prefixes are cached from now on
            api.prompt_cache.update(record.cache_prefixes)
            api.served += 1
            serial = api.served
        payload = planned.raw if planned.raw is not None else json.dumps(planned.body or {}).encode("utf-8")
        try:
            self.send_response(planned.status)
            if "content-type" not in planned.headers:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.send_header("request-id", f"req_01Fake{serial:014d}")  # unique per response, of the API's shape
            for name, value in planned.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
            record.answered_at = time.monotonic()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout), as a real client would

    do_POST = _handle
    do_GET = _handle


# --------------------------------------------------------------------------
# Cases for tests that drive the fake
# --------------------------------------------------------------------------


def write_case(cases_dir: Path, case_id: str, marker: str, *, must_find: str = "tracking.conversions_stopped") -> Path:
    """Write a valid case whose snapshot's account id is ``marker``; returns its folder."""
    case_dir = Path(cases_dir) / case_id
    case_dir.mkdir(parents=True, exist_ok=True)
    snapshot = {
        "schema_version": "1.0",
        "platform": "google_ads",
        "account": {"id": marker, "currency_code": "EUR", "time_zone": "Europe/Berlin"},
        "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-19"},
        "campaigns": [{"id": "111", "name": "Search | Generic | DE", "status": "ENABLED"}],
        "daily": [
            {"date": "2025-03-08", "campaign_id": "111", "clicks": 410, "cost": 520.0, "conversions": 12.0},
            {"date": "2025-03-09", "campaign_id": "111", "clicks": 405, "cost": 515.5, "conversions": 0.0},
        ],
    }
    (case_dir / "snapshot.json").write_text(json.dumps(snapshot, indent=2) + "\n", encoding="utf-8")
    (case_dir / "expected.yaml").write_text(
        f"case: {case_id}\n"
        "kind: ordinary\n"
        "must_find:\n"
        f"  - id: {must_find}\n"
        "    evidence: Conversions are 0 on 2025-03-09 while clicks hold near 405\n"
        "    rows: [/daily/1]\n",
        encoding="utf-8",
    )
    return case_dir


def write_cases(cases_dir: Path, markers: dict[str, str]) -> Path:
    """``write_case`` for each case id -> marker; returns the case folder."""
    for case_id, marker in markers.items():
        write_case(cases_dir, case_id, marker)
    return Path(cases_dir)


def findings_json(*finding_ids: str) -> str:
    """An answer's JSON text holding one plain finding per id."""
    findings = [
        {"id": fid, "scope": None, "claim": "Conversions stopped.", "evidence": "Conversions are 0 on 2025-03-09.", "severity": "high"}
        for fid in finding_ids
    ]
    return json.dumps({"findings": findings})
