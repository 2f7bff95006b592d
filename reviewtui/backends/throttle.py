"""Adaptive concurrency: fewer requests in flight while the API rate-limits, more again once it stops.

``AdaptiveLimit`` is the run's gate on requests in flight, every attempt
included (the SDK's own retries too). Additive increase, multiplicative
decrease, as TCP does it:

- a 429 (or 529 overloaded) halves the limit (never below 1) and holds every
  new attempt until the ``retry-after`` it carries has passed;
- a response whose rate-limit headers say nothing is left
  (``anthropic-ratelimit-requests-remaining: 0``, or the input or output
  tokens) holds new attempts until the matching ``...-reset`` time;
- each success after a back-off counts toward recovery: after ``limit``
  successes in a row the limit grows by one, up to the ``--concurrency``
  the run was given.

The run's summary says when the limit went down and whether it came back
(``describe``). Nothing here knows HTTP: the claude backend feeds it status
codes and headers.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any, Mapping

RATE_LIMITED = (429, 529)
_REMAINING = ("requests", "input-tokens", "output-tokens", "tokens")
MAX_PAUSE_SECONDS = 60.0


def _seconds(value: str | None) -> float | None:
    """A retry-after value (seconds) as a float, or None."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return None if seconds is None or seconds < 0 else min(seconds, MAX_PAUSE_SECONDS)


def _until(reset: str | None) -> float | None:
    """Seconds until an RFC 3339 reset time, or None."""
    if not reset:
        return None
    try:
        when = datetime.fromisoformat(reset.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, min(when.timestamp() - time.time(), MAX_PAUSE_SECONDS))


class AdaptiveLimit:
    def __init__(self, maximum: int) -> None:
        if maximum < 1:
            raise ValueError("the concurrency limit must be at least 1")
        self.maximum = self.limit = self.lowest = maximum
        self.in_flight = 0
        self.backoffs = 0  # rate-limited responses seen
        self.pauses = 0  # holds from retry-after or an exhausted rate limit
        self._resume_at = 0.0
        self._successes = 0
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def acquire(self) -> None:
        changed = self._condition()
        async with changed:
            while True:
                wait = self._resume_at - time.monotonic()
                if wait > 0:
                    try:
                        await asyncio.wait_for(changed.wait(), timeout=wait)
                    except TimeoutError:
                        pass
                elif self.in_flight < self.limit:
                    self.in_flight += 1
                    return
                else:
                    await changed.wait()

    async def release(self, status: int | None = None, headers: Mapping[str, str] | None = None) -> None:
        """One attempt ended: with its status and headers, or None (no response: a dropped connection)."""
        headers = headers or {}
        changed = self._condition()
        async with changed:
            self.in_flight -= 1
            if status in RATE_LIMITED:
                self.backoffs += 1
                self._successes = 0
                self.limit = max(1, self.limit // 2)
                self.lowest = min(self.lowest, self.limit)
                self._hold(_seconds(headers.get("retry-after")))
            elif status is not None and status < 400:
                self._successes += 1
                if self.limit < self.maximum and self._successes >= self.limit:
                    self.limit += 1
                    self._successes = 0
                for kind in _REMAINING:
                    if headers.get(f"anthropic-ratelimit-{kind}-remaining") == "0":
                        self._hold(_until(headers.get(f"anthropic-ratelimit-{kind}-reset")))
            changed.notify_all()

    def _hold(self, seconds: float | None) -> None:
        if seconds:
            self.pauses += 1
            self._resume_at = max(self._resume_at, time.monotonic() + seconds)

    def describe(self) -> dict[str, Any]:
        return {"max": self.maximum, "lowest": self.lowest, "final": self.limit, "rate_limited": self.backoffs,
                "pauses": self.pauses}


def backoff_sentence(details: Mapping[str, Any] | None) -> str | None:
    """The summary's line about rate limiting, or None when the run was never limited."""
    if not details or not details.get("rate_limited"):
        return None
    recovered = ("came back to" if details["final"] >= details["max"] else "was back at")
    return (f"{details['rate_limited']} rate-limited response(s): concurrency backed off from {details['max']} "
            f"to {details['lowest']} and {recovered} {details['final']}")
