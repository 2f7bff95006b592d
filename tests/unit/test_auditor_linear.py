"""The auditor's per-campaign lookups give what a scan of every row or assessment gives."""

from __future__ import annotations

import random

from reviewtui.auditor import efficiency, tracking
from reviewtui.auditor.findings import Assessment, Context
from reviewtui.auditor.series import METRICS, Totals, build_series
from reviewtui.domain.thresholds import Thresholds


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
    """What _explained answers, by a scan: the first matching assessment (for the account, a cause in any scope)."""
    for item in ctx.assessments:
        if item.supported and item.kind in efficiency.EXPLAINED_BY and (scope is None or item.scope in (scope, None)):
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


def _fractional_snapshot(seed: int) -> dict:
    """Fractional conversions and costs (as data-driven attribution gives), so summation order shows in the last bits."""
    rng = random.Random(seed)
    daily = [{"date": f"2025-03-{d:02d}", "campaign_id": str(c), "clicks": rng.randint(0, 40),
              "cost": round(rng.uniform(0, 90), 2), "conversions": round(rng.uniform(0, 6) * (0.4 if d > 15 else 1), 3),
              "all_conversions": round(rng.uniform(0, 9), 3)}
             for d in range(1, 31) for c in range(1, 5) if rng.random() > 0.1]
    return {"platform": "google_ads", "account": {"id": "1"},
            "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-31"}, "daily": daily}


def test_the_step_scan_sees_each_split_as_change_does_to_the_last_bit():
    for seed in range(8):
        ctx = Context(build_series(_fractional_snapshot(seed)), Thresholds())
        s, lag = ctx.series, tracking.lag_model(ctx)
        for scope in (None, "1", "2", "3", "4"):
            dates = [d for d in tracking._dates(s, scope) if lag.settled(d)]
            seen = {}
            for i, split in tracking._splits(s, scope, dates, 3, lag):
                seen[i] = (split.before_clicks, split.before_conversions, split.after_clicks,
                           split.after_conversions, split.expected_after, split.log_likelihood_ratio)
            full = {}
            for i in range(3, len(dates) - 3 + 1):
                change = tracking._change(s, scope, dates[:i], dates[i:], lag)
                if change is not None:
                    full[i] = (change.before.clicks, change.before.conversions, change.after.clicks,
                               change.after.conversions, change.expected_after, change.log_likelihood_ratio)
            assert full and seen == full
            # with clicks flat: the splits _change gives whose clicks a day hold within 30%
            flat = {i: figures for i, figures in full.items()
                    if tracking._flat(figures[0], i, figures[2], len(dates) - i, 0.3)}
            assert {i: f for i, f in tracking._splits(s, scope, dates, 3, lag, 0.3)}.keys() == flat.keys()


def test_totals_add_sums_every_metric_as_a_loop_over_metrics_does():
    rng = random.Random(7)
    fast, loop = Totals(), Totals()
    for _ in range(500):
        metrics = {m: rng.choice([None, rng.uniform(0, 100), rng.randint(0, 9)]) for m in METRICS if rng.random() > 0.2}
        fast.add(metrics)
        for name in METRICS:
            if metrics.get(name) is not None:
                setattr(loop, name, getattr(loop, name) + metrics[name])
        loop.has_all_conversions |= metrics.get("all_conversions") is not None
        loop.rows += 1
    assert fast == loop


def test_an_audit_leaves_the_cyclic_collector_as_it_found_it():
    import gc

    from reviewtui.auditor.audit import audit

    was = gc.isenabled()
    try:
        for state in (True, False):
            gc.enable() if state else gc.disable()
            audit(_snapshot())
            assert gc.isenabled() is state
        gc.enable()
        audit({"daily": [{"date": "2025-03-01", "campaign_id": "1", "clicks": "many"}]})  # bad input, still restored
        assert gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()


def test_a_budget_read_once_gives_the_amount_budget_in_force_gives_on_every_day():
    from datetime import date, timedelta

    from reviewtui.auditor.schedule import read_budgets
    from reviewtui.domain.budgets import budget_in_force

    snapshot = _snapshot()
    snapshot["budgets"] = [
        {"budget_id": "b1", "campaign_ids": ["1"], "period": "DAILY", "amount": 50,
         "history": [{"changed_at": "2025-03-20", "old_amount": 30, "new_amount": 50},
                     {"changed_at": "2025-03-10T08:00:00", "old_amount": 20, "new_amount": 30},
                     {"changed_at": "not a date", "new_amount": 99}]},
        {"budget_id": "b2", "campaign_ids": ["2"], "amount": "40"},
        {"budget_id": "b3", "campaign_ids": ["3"], "history": [{"changed_at": "2025-03-05", "new_amount": None}]},
    ]
    budgets = read_budgets(build_series(snapshot))
    for budget in budgets:
        for offset in range(-2, 33):
            day = date(2025, 3, 1) + timedelta(days=offset)
            assert budget.on(day) == budget_in_force(budget.raw, day)
    assert [budgets[0].on(date(2025, 3, d)) for d in (9, 10, 19, 20)] == [20, 30, 30, 50]


def _stepping_snapshot(seed: int) -> dict:
    """Campaigns whose conversion rate steps (or not) on a random day, clicks whole or fractional,
    some days repeated exactly (ties between splits)."""
    rng = random.Random(seed)
    daily = []
    for c in range(1, 9):
        step, factor = rng.randint(4, 26), rng.choice([0.3, 0.5, 1.0, 2.0, 2.2])
        fractional = c == 8
        for d in range(1, 31):
            clicks = rng.randint(30, 60) if c % 3 else 50
            if fractional:
                clicks += 0.25
            rate = 0.08 * (factor if d >= step else 1.0)
            conversions = round(clicks * rate * rng.uniform(0.6, 1.4), 2) if c % 3 else 4.0
            daily.append({"date": f"2025-03-{d:02d}", "campaign_id": str(c), "clicks": clicks, "cost": 40.0,
                          "conversions": conversions})
    return {"platform": "google_ads", "account": {"id": "1"},
            "period": {"start": "2025-03-01", "end": "2025-03-31", "as_of": "2025-03-31"}, "daily": daily}


def test_the_screened_step_scan_finds_the_peak_the_full_scan_finds():
    from reviewtui.domain.chance import poisson_z

    screened = 0
    for seed in range(12):
        for snapshot in (_stepping_snapshot(seed), _fractional_snapshot(seed)):
            ctx = Context(build_series(snapshot), Thresholds())
            s, lag = ctx.series, tracking.lag_model(ctx)
            for scope in [None, *s.campaign_totals]:
                dates = [d for d in tracking._dates(s, scope) if lag.settled(d)]
                days = tracking._days(s, scope, dates, lag)
                screened += tracking._screened(days, 5, 0.35) is not None
                full = tracking._peak(tracking._scan(days, 5, 0.35))
                assert tracking._peak_split(days, 5, 0.35) == full
                # with a bar on z: the same peak, or None, and None only when the peak's z is below the bar
                found = tracking._peak_split(days, 5, 0.35, 4.0)
                assert found in (None, full)
                if full is not None and abs(poisson_z(full[1].after_conversions, full[1].expected_after)) >= 4.0:
                    assert found == full
    assert screened > 100  # the screen ran (whole clicks), not only the full scan


def test_a_budget_read_in_one_sweep_gives_the_cap_budget_of_each_day():
    from datetime import date, timedelta

    from reviewtui.auditor.schedule import read_budgets
    from reviewtui.domain.budgets import amount_on, amounts_on

    snapshot = _snapshot()
    snapshot["budgets"] = [
        {"budget_id": "b1", "campaign_ids": ["1"], "period": "DAILY", "amount": 50,
         "history": [{"changed_at": "2025-03-20", "old_amount": 30, "new_amount": 50},
                     {"changed_at": "2025-03-10T08:00:00", "old_amount": 20, "new_amount": 30},
                     {"changed_at": "2025-03-10", "old_amount": 30, "new_amount": 25}]},
        {"budget_id": "b2", "campaign_ids": ["2"], "amount": "40"},
        {"budget_id": "b3", "campaign_ids": ["3"], "history": [{"changed_at": "2025-03-05", "new_amount": None}]},
    ]
    days = [date(2025, 2, 27) + timedelta(days=i) for i in range(36)]
    for budget in read_budgets(build_series(snapshot)):
        assert budget.cap_budgets(days) == [budget.cap_budget(day) for day in days]
        assert amounts_on(budget.steps, days) == [amount_on(budget.steps, day) for day in days]


def test_a_budget_under_every_cap_has_no_day_above_its_cap():
    from reviewtui.auditor.pacing import _under_every_cap
    from reviewtui.domain.budgets import exceeds_daily_cap

    rng = random.Random(11)
    screened = 0
    for _ in range(3000):
        n = rng.randint(1, 6)
        amounts = [rng.choice([50.0, 50.000000000000014, 75.5, 100.0 / 3]) for _ in range(n)]
        multiples = [rng.choice([2.0, 1.25, 1.75]) for _ in range(n)]
        margin = rng.choice([0.0, 0.01])
        # costs on, just under and just over each day's cap
        costs = [a * m * (1 + margin) * rng.choice([1.0, 1 - 1e-16, 1 + 1e-15, 0.5]) for a, m in zip(amounts, multiples)]
        exceeded = any(exceeds_daily_cap(c, a, m, margin) for c, a, m in zip(costs, amounts, multiples))
        if _under_every_cap(costs, amounts, multiples, margin):
            screened += 1
            assert not exceeded
    assert screened > 100
    assert not _under_every_cap([10.0], [None], [2.0], 0.0)  # a day without a budget is read day by day
