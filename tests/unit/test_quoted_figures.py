"""The auditor's quoted figures, computed when quoted, against the whole derived index they stand for."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reviewtui.auditor.quoted_figures import WINDOW_METRICS, QuotedFigures
from reviewtui.auditor.series import MAX_METRIC
from reviewtui.caseset.snapshot_cache import SnapshotData
from reviewtui.scoring.daily_totals import METRICS, daily_totals
from reviewtui.scoring.derived_index import compute_derived_index

CASES = Path(__file__).resolve().parents[2] / "cases"
SNAPSHOTS = sorted(CASES.glob("*/snapshot.json"))


def _families(data: SnapshotData, index: dict[str, float]) -> list[str]:
    """Every name of the families computed when quoted (every scope, window and metric, every day's
    sums, the pacing figures of the rows as they are and of each corrected reading), held by the index
    or not."""
    totals = daily_totals(data)
    scopes = ["account", *(f"campaign {cid}" for cid in totals.by_campaign)]
    windows = list(totals.windows())
    names = [f"{scope}: {metric}, {window}" for scope in scopes for window in windows for metric in WINDOW_METRICS]
    names += [f"account: {metric} on {day.isoformat()}" for day in totals.account for metric in METRICS]
    names += [name for name in index if name.startswith("pacing: ")]  # the corrected readings' too
    return names + ["account: cost on 2001-01-01", "pacing: no such figure", "pacing: spend to date (micros converted)",
                    "pacing: spend to date (duplicate rows counted once)"]


def _same(got: float | None, expected: float | None) -> bool:
    if expected is not None and not abs(expected) < MAX_METRIC:
        expected = None  # past any real account: not quoted
    if got is None or expected is None:
        return got is None and expected is None
    return got == expected and math.copysign(1, got) == math.copysign(1, expected)


@pytest.mark.parametrize("path", SNAPSHOTS, ids=[p.parent.name for p in SNAPSHOTS])
def test_every_figure_is_the_index_s_to_the_last_bit_and_only_the_index_s(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    index = compute_derived_index(raw)
    failures: list[Exception] = []
    data = SnapshotData(raw)
    quoted = QuotedFigures(data, failures.append)
    families = _families(data, index)
    for name in families:
        assert _same(quoted.get(name), index.get(name)), name
    assert "derived index" not in data.cache  # none of them needed the whole index
    others = ["campaign none: cost, period", "account: cost, last 30 complete days"]
    for name in [*(set(index) - set(families)), *others]:  # the rest, from the whole index
        assert _same(quoted.get(name), index.get(name)), name
    assert failures == []


def test_a_window_figure_is_computed_without_the_whole_index() -> None:
    raw = json.loads(SNAPSHOTS[0].read_text(encoding="utf-8"))
    data = SnapshotData(raw)
    quoted = QuotedFigures(data, lambda exc: None)
    cid = next(iter(daily_totals(data).by_campaign))
    assert quoted.get(f"campaign {cid}: CVR, last 7 complete days") is not None
    assert quoted.get("account: cost, period") is not None
    assert quoted.get("pacing: spend to date") is not None
    assert "derived index" not in data.cache
    # a name of another family is read from the whole index, built then
    assert quoted.get("count: campaigns") == compute_derived_index(raw)["count: campaigns"]
