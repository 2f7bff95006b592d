"""What is computed from a snapshot is kept on the snapshot (reviewtui/caseset/snapshot_cache.py):
never shared between two snapshots, one value per key under concurrent use."""

from __future__ import annotations

import pytest
import copy
import gc
import json
import pickle
import threading
from pathlib import Path

from reviewtui.caseset.snapshot import Snapshot
from reviewtui.caseset.snapshot_cache import SnapshotCache, SnapshotData, cache_of, snapshot_data
from reviewtui.scoring.daily_totals import daily_totals
from reviewtui.scoring.derived_index import derived_index, derived_named
from reviewtui.scoring.grounding import GroundingIndex

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scoring" / "snapshot.json"


def account(cost: float) -> SnapshotData:
    """A one-row snapshot whose whole-period cost is ``cost``."""
    return SnapshotData({
        "platform": "google_ads", "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-02"},
        "daily": [{"date": "2025-03-01", "campaign_id": "7", "cost": cost, "clicks": 1}],
    })


@pytest.mark.slow
def test_a_freed_snapshots_values_never_reach_one_that_takes_its_id() -> None:
    seen: dict[int, float] = {}
    reused = 0
    for cost in range(1, 40):
        data = account(float(cost))
        reused += id(data) in seen
        seen[id(data)] = cost
        assert derived_index(data)["account: cost, period"] == cost
        del data
        gc.collect()
        if reused >= 3:  # enough: each full collection walks the whole test process
            break
    assert reused  # CPython hands a freed object's address to the next one: the case above was exercised


def test_two_snapshots_of_the_same_content_have_their_own_entries() -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    one, two = Snapshot(FIXTURE, json.loads(text), text), Snapshot.load(FIXTURE)
    assert isinstance(one.data, SnapshotData) and isinstance(two.data, SnapshotData)
    assert derived_named(one.data) is derived_named(one.data)
    assert derived_named(one.data) is not derived_named(two.data)
    assert derived_index(one.data) == derived_index(two.data)
    assert GroundingIndex.for_snapshot(one) is not GroundingIndex.for_snapshot(two)


def test_a_plain_dict_is_read_afresh_each_time() -> None:
    plain = dict(account(5.0))
    assert daily_totals(plain) is not daily_totals(plain)
    assert derived_index(plain) == derived_index(account(5.0))
    assert not hasattr(plain, "cache")
    wrapped = snapshot_data(plain)
    assert wrapped == plain and snapshot_data(wrapped) is wrapped
    assert daily_totals(wrapped) is daily_totals(wrapped)
    assert snapshot_data([1]) == [1]


def test_copies_and_pickles_start_with_an_empty_cache() -> None:
    data = account(3.0)
    derived_index(data)
    assert "derived index" in data.cache
    for other in (copy.copy(data), copy.deepcopy(data), pickle.loads(pickle.dumps(data))):
        assert isinstance(other, SnapshotData) and other == data
        assert other.cache is not data.cache and "derived index" not in other.cache
        assert derived_named(other) is not derived_named(data)


def test_one_value_per_key_when_threads_ask_at_once() -> None:
    cache = SnapshotCache()
    threads, start, inside = 8, threading.Barrier(8), threading.Barrier(8)
    computed: list[int] = []
    results: list[object] = [None] * threads
    lock = threading.Lock()

    def compute() -> object:
        with lock:
            computed.append(1)
        try:  # every thread is computing before any stores: the race at its widest
            inside.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        return object()

    def ask(i: int) -> None:
        start.wait()
        results[i] = cache.get("key", compute)

    workers = [threading.Thread(target=ask, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({id(r) for r in results}) == 1  # however many threads computed it, all got the first
    assert computed and cache.get("key", object) is results[0]


def test_the_derived_index_is_one_object_for_threads_scoring_the_same_snapshot() -> None:
    data = Snapshot.load(FIXTURE).data
    start = threading.Barrier(6)
    found: list[object] = []

    def score() -> None:
        start.wait()
        found.append(derived_named(data))
        found.append(daily_totals(data))

    workers = [threading.Thread(target=score) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len({id(f) for f in found[::2]}) == 1 and len({id(f) for f in found[1::2]}) == 1
    assert cache_of(data).get("derived index", object) is found[0]


def test_a_cache_computes_a_value_that_asks_for_another() -> None:
    cache = SnapshotCache()
    assert cache.get("outer", lambda: cache.get("inner", lambda: 2) + 1) == 3
    assert "inner" in cache and "outer" in cache
