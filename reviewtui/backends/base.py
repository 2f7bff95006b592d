"""The one small interface every backend implements.

A backend turns a case into the assistant's raw output text. It never
raises for a per-case failure: it returns a ``CaseOutput`` with ``error``
set, so one bad case never stops a run.
"""

from __future__ import annotations

import abc
from dataclasses import asdict, dataclass
from typing import Any

from ..cases import Case


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

    @property
    def obtained(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Backend(abc.ABC):
    """Produces the assistant's output for one case."""

    name: str = "?"
    model: str | None = None

    @abc.abstractmethod
    async def run(self, case: Case, *, repeat: int = 0) -> CaseOutput:
        """The output for ``case`` (``repeat`` numbers repeated runs of the same case)."""

    async def aclose(self) -> None:
        """Release connections; called once at the end of a run."""

    def describe(self) -> dict[str, Any]:
        """What the run manifest records about this backend."""
        return {"backend": self.name, "model": self.model}


class BackendUsageError(Exception):
    """A backend that cannot be used as asked (unknown name, missing key...): exit 2."""
