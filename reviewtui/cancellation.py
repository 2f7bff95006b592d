"""Stopping work in a thread at its safe points.

A thread cannot be stopped from outside without harm: an exception raised into it (CPython's
``PyThreadState_SetAsyncExc``) lands wherever the thread happens to be, between a temporary file's
write and its rename, or inside a cache's bookkeeping, and leaves that half done. Work that may be
withdrawn (the author screen's support check, whose audit of a 100,000-row snapshot takes seconds)
takes a ``threading.Event`` from whoever may withdraw it instead, and looks at it between its steps,
where stopping leaves nothing behind: ``stop_if_set(cancel)`` raises ``Cancelled`` there.
"""

from __future__ import annotations

import threading


class Cancelled(BaseException):
    """The work was withdrawn before it ended; nothing it would have written was written.

    A BaseException, like asyncio's CancelledError, so that the ``except Exception`` guards on the
    way up (one detector's bug must not cost the others' findings; the support check is advisory)
    let it through instead of reporting it as a failure."""


def stop_if_set(cancel: threading.Event | None) -> None:
    """A safe point: raise ``Cancelled`` if ``cancel`` is set."""
    if cancel is not None and cancel.is_set():
        raise Cancelled
