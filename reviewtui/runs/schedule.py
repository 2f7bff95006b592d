"""Which request a free worker of a run sends next: a case's first request, or one of its repeats.

A case's repeats wait for its first answer, so they read the prompt prefix
(system prompt and snapshot) that the first request wrote to the API's prompt
cache instead of each writing it at full price. Among the requests that may
go, first requests go before repeats: each answer that comes back then frees
more repeats than the run has workers, so no worker waits at the end for the
repeats of a case whose first request went late (the fifty x 3 at 16 in 10
rounds of requests, not 11). A repeat that has waited ``REPEAT_WAIT_LIMIT``
since its case's first answer goes ahead of the first requests: the cached
prefix lives about five minutes from its last use, and a large case set must
not push the repeats past it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Callable

REPEAT_WAIT_LIMIT = 60.0  # seconds; well inside the prompt cache's five minutes


class RunSchedule:
    """The jobs of a run, ``(case index, repeat)``, handed out one per ``next()``.

    ``done(index, repeat)`` after each answer (an error counts: its repeats are
    sent all the same). ``next()`` returns None once every job was handed out
    and none can follow, so idle workers stop.
    """

    def __init__(self, cases: int, repeats: int, *, clock: Callable[[], float] = time.monotonic,
                 wait_limit: float = REPEAT_WAIT_LIMIT) -> None:
        self._firsts: deque[int] = deque(range(cases))
        self._repeats: deque[tuple[float, int, int]] = deque()  # (its first answer's time, case index, repeat)
        self._repeat_count = repeats
        self._firsts_out = 0  # first requests handed out whose answer has not come back
        self._clock = clock
        self._wait_limit = wait_limit
        self._changed = asyncio.Condition()

    def take(self) -> tuple[int, int] | None:
        """The job to send now, or None when none may go yet (or the run is over: ``finished``)."""
        if self._repeats and (not self._firsts or self._clock() - self._repeats[0][0] >= self._wait_limit):
            _, index, repeat = self._repeats.popleft()
            return index, repeat
        if self._firsts:
            self._firsts_out += 1
            return self._firsts.popleft(), 0
        return None

    @property
    def finished(self) -> bool:
        """Nothing left to hand out now or later (repeats come only from first answers still out)."""
        return not self._firsts and not self._repeats and (self._firsts_out == 0 or self._repeat_count == 1)

    async def next(self) -> tuple[int, int] | None:
        """``take``, waiting until a job may go; None once the run is ``finished``."""
        async with self._changed:
            while True:
                job = self.take()
                if job is not None or self.finished:
                    return job
                await self._changed.wait()

    async def done(self, index: int, repeat: int) -> None:
        if repeat != 0:
            return
        async with self._changed:
            self._firsts_out -= 1
            now = self._clock()
            self._repeats.extend((now, index, later) for later in range(1, self._repeat_count))
            self._changed.notify_all()
