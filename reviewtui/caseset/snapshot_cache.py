"""What is computed from one snapshot, kept on the snapshot itself.

The derived index, the daily totals, the grounding index and the like cost milliseconds to
seconds and are asked for again and again for the same snapshot (the rules backend, then the
scoring of its answer; every finding of a case). They are kept in a ``SnapshotCache`` that lives
on the parsed snapshot: ``SnapshotData``, the dict ``Snapshot.load`` returns, carries one. A
computed value lives exactly as long as its snapshot, so two snapshots never share an entry, and
no table keyed by ``id()`` can hand a freed snapshot's values to a new one.

Callers that hold only the parsed dict go through ``cache_of(data)``: the snapshot's own cache,
or for a plain dict (built in memory, not loaded) a fresh one, so nothing is kept for it. A
caller about to ask for several values of a plain dict wraps it once with ``snapshot_data``.
Snapshots are never modified after loading (docs/cases.md), so an entry never goes stale.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, TypeVar

T = TypeVar("T")


class SnapshotCache:
    """Values computed from one snapshot, by key. Thread-safe: the app scores in worker threads.

    A value is computed outside the lock (computing one may ask for others, such as the derived
    index for the daily totals); when two threads compute the same key at once, the first one
    stored is kept and returned to both, so every caller sees one object per key.
    """

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value under ``key``, computed by ``compute()`` the first time."""
        with self._lock:
            if key in self._values:
                return self._values[key]
        value = compute()
        with self._lock:
            return self._values.setdefault(key, value)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._values


class SnapshotData(dict[str, Any]):
    """A parsed snapshot.json (a plain dict to every reader) that carries its ``SnapshotCache``.

    Copies and pickles are plain snapshots with a cache of their own: what was computed from
    one object is never carried to another.
    """

    __slots__ = ("cache",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cache = SnapshotCache()

    def __reduce__(self) -> tuple[Any, ...]:
        return (SnapshotData, (dict(self),))


def snapshot_data(data: Any) -> Any:
    """``data`` as a ``SnapshotData`` (a shallow copy of a plain dict, sharing its rows); anything
    else (a snapshot that is not a JSON object) as it is."""
    if isinstance(data, SnapshotData) or not isinstance(data, dict):
        return data
    return SnapshotData(data)


def cache_of(data: Any) -> SnapshotCache:
    """The cache of a parsed snapshot: its own for a ``SnapshotData``, a fresh (unkept) one else."""
    cache = getattr(data, "cache", None)
    return cache if isinstance(cache, SnapshotCache) else SnapshotCache()
