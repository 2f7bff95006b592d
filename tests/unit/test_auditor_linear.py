"""The auditor's per-campaign lookups give what a scan of every row or assessment gives."""

from __future__ import annotations

import random

from reviewtui.auditor import efficiency
from reviewtui.auditor.findings import Assessment, Context
from reviewtui.auditor.series import build_series
from reviewtui.auditor.thresholds import Thresholds


def _snapshot() -> dict:
    rng = random.Random(3)
    daily = [{"date": f"2025-03-{d:02d}", "campaign_id": str(rng.choice([1, 2, 3, 4])), "clicks": rng.randint(1, 9),
              "cost": 1.5} for d in range(1, 29) for _ in range(3)]
    return {"platform": "google_ads", "account": {"id": "1"},
            "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-29"}, "daily": daily}


def test_rows_of_is_the_filtered_rows_in_row_order():
    s = build_series(_snapshot())
    for ids in (["1"], ["3", "1"], ["2", "4", "2"], ["9"]):
        assert s.rows_of(ids) == [r for r in s.rows if r.campaign_id in ids]


def _scan(ctx: Context, scope: str | None) -> str | None:
    """What _explained answered before it was indexed: the first matching assessment."""
    for item in ctx.assessments:
        if item.supported and item.kind in efficiency.EXPLAINED_BY and item.scope in (scope, None):
            return item.kind
        if item.supported and item.kind == "bidding.learning_period" and item.scope == scope and scope is not None:
            return item.kind
    return None


def test_the_indexed_explainers_answer_as_the_scan_does_while_assessments_are_added():
    rng = random.Random(5)
    kinds = [*efficiency.EXPLAINED_BY, "bidding.learning_period", "waste.zero_conv_campaign"]
    ctx = Context(build_series(_snapshot()), Thresholds())
    for _ in range(200):
        ctx.assessments.append(Assessment(rng.choice(kinds), rng.choice([None, "1", "2", "3"]),
                                          rng.choice([True, False, None])))
        for scope in (None, "1", "2", "3", "4"):
            assert efficiency._explained(ctx, scope) == _scan(ctx, scope)
