"""The one small interface every backend implements.

A backend turns a case into the assistant's raw output text. It never
raises for a per-case failure: it returns a ``CaseOutput`` with ``error``
set, so one bad case never stops a run.
"""

from __future__ import annotations

import abc
from dataclasses import asdict, dataclass
from typing import Any, AsyncIterator, Protocol, Sequence

from ..caseset.cases import Case


@dataclass
class CaseOutput:
    case_id: str
    raw_text: str | None  # the assistant's raw JSON text; None when nothing usable came back
    error: str | None = None  # why the output could not be obtained (API error, timeout, refusal...)
    input_tokens: int = 0  # every input token, cache writes and reads included
    output_tokens: int = 0  # thinking included
    stop_reason: str | None = None
    cached: bool = False
    model: str | None = None
    cache_creation_input_tokens: int = 0  # of input_tokens: written to the prompt cache (dearer)
    cache_read_input_tokens: int = 0  # of input_tokens: read from the prompt cache (cheaper)
    batch: bool = False  # answered through a Message Batch (priced at the batch discount)
    # The API's record of the answer (backends/provenance.py): message id, request or batch id, endpoint, request hash.
    provenance: dict[str, Any] | None = None
    snapshot_sha256: str | None = None  # the snapshot bytes the answer is about (set by the run that asked)

    @property
    def obtained(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A Message Batch's request counts, in the order the progress line gives them.
BATCH_COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")


@dataclass(frozen=True)
class Prepared:
    """One (case, repeat) ready to send: its request, cache key and cached answer (None on a miss)."""

    key: str
    request: dict[str, Any]
    cached: CaseOutput | None


@dataclass(frozen=True)
class BatchStatus:
    processing_status: str  # "in_progress" | "canceling" | "ended"
    counts: dict[str, int]

    @property
    def ended(self) -> bool:
        return self.processing_status == "ended"


@dataclass(frozen=True)
class ListedBatch:
    """A batch as the API lists it: enough to tell whether it may be one a killed run asked for."""

    id: str
    created_at: float  # seconds since the epoch
    total: int  # its requests, whatever their state
    ended: bool


class BatchError(Exception):
    """A batch that cannot be created, found or read; ``unknown``: the API does not know its id."""

    def __init__(self, message: str, *, unknown: bool = False) -> None:
        super().__init__(message)
        self.unknown = unknown


class Backend(abc.ABC):
    """Produces the assistant's output for one case.

    A backend with ``supports_batch`` also implements ``prepare``, ``remember``,
    ``create_batch``, ``batch_status``, ``list_batches`` and ``batch_results`` (``reviewtui.runs.batch``
    drives them).
    """

    name: str = "?"
    model: str | None = None
    supports_batch: bool = False
    # The run the backend answers for (backends/provenance.py ``new_run_id``), set by the run before it starts:
    # a backend that records where its answers came from records it with each one.
    run_id: str | None = None

    @abc.abstractmethod
    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        """The output for ``case`` (``repeat`` numbers repeated runs of the same case)."""

    def plan(self, cases: Sequence[Case], repeats: int) -> int:
        """Get ready for a run of ``cases`` x ``repeats``; how many of them need a request to an API.

        A backend that computes its answers here has none; the claude backend prepares each request
        and counts those its response cache cannot answer.
        """
        return 0

    def connect(self) -> None:  # noqa: B027 - a hook: only a backend that sends requests connects
        """Load what sending requests needs (the claude backend: the SDK), before a run that has requests due."""

    def use_limit(self, limit: Any) -> None:  # noqa: B027 - a hook: only a backend that sends requests uses it
        """The run's ``throttle.AdaptiveLimit``, for a backend that makes requests it can rate-limit."""

    async def aclose(self) -> None:  # noqa: B027 - a hook: most backends hold no connection
        """Release connections; called once at the end of a run."""

    def describe(self) -> dict[str, Any]:
        """What the run manifest records about this backend."""
        return {"backend": self.name, "model": self.model}


class BackendUsageError(Exception):
    """A backend that cannot be used as asked (unknown name, missing key...): exit 2."""


class BatchBackend(Protocol):
    """What ``reviewtui.runs.batch`` calls on a backend with ``supports_batch``."""

    name: str
    model: str | None

    def prepare(self, case: Case, repeat: int = 0) -> Prepared: ...

    def remember(self, key: str, output: CaseOutput) -> None: ...

    async def create_batch(self, requests: list[tuple[str, dict[str, Any]]]) -> str: ...

    async def batch_status(self, batch_id: str) -> BatchStatus: ...

    async def list_batches(self, since: float) -> list[ListedBatch]: ...

    def batch_results(self, batch_id: str) -> AsyncIterator[tuple[str, CaseOutput]]: ...
