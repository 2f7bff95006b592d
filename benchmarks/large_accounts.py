"""Large generated accounts in three shapes, for the benchmarks of whole commands at 10,000 and 100,000 rows.

    from large_accounts import SHAPES, make_account
    snapshot = make_account("ads", 100_000)

- ``campaigns``: many campaigns, one row per campaign and day over 30 days (bench_scoring's synthetic
  account: random rates, so its audit finds hundreds of steps, drifts and cap breaches);
- ``wide``: very many campaigns over a few days (7 complete days of a month just begun), one row each;
- ``ads``: few campaigns (30) over the whole month, each (date, campaign) split into one row per ad
  (an ``ad_id`` on every row, as an agency's ad-level export), steady rates, a conversion stop, a
  campaign that never converts, the same ad twice on a few days (real duplicates) and a budget cut;
- ``meta``: a Meta account in JPY (whole-yen costs in the tens of thousands) over a closed month, its
  rows shuffled as an export's are, a day without delivery left out (Meta's way), one campaign in seven
  weekend-only, some starting mid-month, one carrying the account, a conversion stop and budget cuts.
  Written apart from the other three, so a speed-up tuned to their regular grids shows here.

Every shape is deterministic (seeded) and the rows number at least ``rows``. Nothing here is part of the
package: the benchmarks import it.
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from typing import Any

from bench_scoring import make_snapshot

SHAPES = ("campaigns", "wide", "ads", "meta")

# What each shape is made to show, for its expected.yaml: the findings it must give (its first campaign's
# daily cap, 2x a 300-a-day budget, is passed by its random spend) and one it must not. The campaigns and
# wide shapes spend far past their monthly budget and cap every day; the ads shape spends under its
# budget, stops converting in campaign 700001 from the 24th and repeats one ad's row on three days.
PLANTED: dict[str, tuple[list[str], tuple[str, str]]] = {
    "campaigns": (["pacing.overspend", "pacing.daily_cap_exceeded@1000"], ("pacing.underspend", "underspend")),
    "wide": (["pacing.overspend", "pacing.daily_cap_exceeded@50001"], ("pacing.underspend", "underspend")),
    "ads": (["tracking.conversions_stopped@700001", "data.duplicate_rows"], ("pacing.overspend", "overspend")),
    "meta": (["pacing.overspend", "tracking.conversions_stopped@238510000009"], ("pacing.underspend", "underspend")),
}


def expected_yaml(shape: str, case_id: str) -> str:
    """The expected.yaml of a case of this shape: what the account shows (``PLANTED``)."""
    must_find, (must_not, says) = PLANTED[shape]
    found = "".join(f"  - id: {finding}\n    evidence: planted by large_accounts.py\n" for finding in must_find)
    return (f"case: {case_id}\nkind: ordinary\nmust_find:\n{found}must_not_say:\n  - id: {must_not}\n"
            f"    evidence: not planted\n    says: [{says}]\n")


def make_account(shape: str, rows: int, seed: int = 7) -> dict[str, Any]:
    """A snapshot of about ``rows`` daily rows in the given shape."""
    if shape == "campaigns":
        return make_snapshot(max(1, math.ceil(rows / 30)), 30, seed=seed)
    if shape == "wide":
        return _wide(max(1, math.ceil(rows / 7)), seed)
    if shape == "ads":
        return _ads(30, max(1, math.ceil(rows / (30 * 31))), seed)
    if shape == "meta":
        return _meta(rows, seed)
    raise ValueError(f"unknown shape {shape!r}; use one of {', '.join(SHAPES)}")


def _account(platform: str, currency: str, start: str, end: str, as_of: str, days_in_month: int) -> dict[str, Any]:
    return {
        "schema_version": "1.0", "platform": platform,
        "account": {"id": "123-456-7890", "currency_code": currency, "time_zone": "Europe/Berlin"},
        "period": {"start": start, "end": end, "as_of": as_of, "days_in_month": days_in_month},
    }


def _wide(campaigns: int, seed: int) -> dict[str, Any]:
    """``campaigns`` campaigns over the first 7 days of March, as of the 8th."""
    rng = random.Random(seed)
    start = date(2025, 3, 1)
    snapshot = _account("google_ads", "USD", "2025-03-01", "2025-03-31", "2025-03-08", 31)
    daily = []
    for c in range(campaigns):
        base = rng.uniform(5, 400)
        cvr = rng.uniform(0.01, 0.08)
        cpc = rng.uniform(0.3, 3.0)
        for d in range(7):
            clicks = max(0, int(rng.gauss(base, base ** 0.5)))
            conversions = float(round(clicks * cvr * rng.uniform(0.5, 1.5)))
            cost = round(clicks * cpc * rng.uniform(0.9, 1.1), 2)
            daily.append({
                "date": (start + timedelta(days=d)).isoformat(), "campaign_id": str(50000 + c),
                "impressions": clicks * rng.randint(10, 40), "clicks": clicks, "cost": cost,
                "conversions": conversions, "conversions_value": round(conversions * rng.uniform(40, 120), 2),
            })
    snapshot.update({
        "targets": {"monthly_budget": round(campaigns * 120.0 * 31, 2), "target_cpa": 40.0},
        "budgets": [{"budget_id": f"w{c}", "campaign_ids": [str(50000 + c)], "period": "DAILY", "amount": 150.0}
                    for c in range(campaigns)],
        "campaigns": [{"id": str(50000 + c), "name": f"Search | Wide {c}", "status": "ENABLED",
                       "bidding_strategy_type": "TARGET_CPA" if c % 3 else "MAXIMIZE_CLICKS"} for c in range(campaigns)],
        "daily": daily,
    })
    return snapshot


def _ads(campaigns: int, ads: int, seed: int) -> dict[str, Any]:
    """``campaigns`` campaigns x 31 days x ``ads`` ads a day, as of 2025-03-31 (30 complete days and a
    partial one). Campaign 1 stops converting on the 24th, campaign 2 never converts, campaign 3's
    daily budget is cut on the 15th, and ad 0 of campaign 4 appears twice on three days."""
    rng = random.Random(seed)
    start = date(2025, 3, 1)
    snapshot = _account("google_ads", "EUR", "2025-03-01", "2025-03-31", "2025-03-31", 31)
    daily: list[dict[str, Any]] = []
    budgets = []
    for c in range(campaigns):
        cid = str(700000 + c)
        cvr = 0.0 if c == 2 else rng.uniform(0.02, 0.06)
        cpc = rng.uniform(0.4, 2.5)
        ad_clicks = [rng.uniform(2, 30) for _ in range(ads)]
        budget = round(sum(ad_clicks) * cpc * 1.3, 2)
        budgets.append({"budget_id": f"b{c}", "campaign_ids": [cid], "period": "DAILY", "amount": budget,
                        **({"history": [{"changed_at": "2025-03-15T09:00:00+01:00", "old_amount": round(budget * 1.5, 2),
                                         "new_amount": budget}]} if c == 3 else {})})
        for d in range(31):
            day = (start + timedelta(days=d)).isoformat()
            partial = 0.4 if d == 30 else 1.0  # the as_of day is still running
            for a in range(ads):
                clicks = max(0, int(rng.gauss(ad_clicks[a], ad_clicks[a] ** 0.5) * partial))
                stopped = c == 1 and d >= 23
                conversions = 0.0 if stopped else float(sum(1 for _ in range(clicks) if rng.random() < cvr))
                row = {"date": day, "campaign_id": cid, "ad_id": f"{cid}{a:04d}",
                       "impressions": clicks * rng.randint(12, 35), "clicks": clicks,
                       "cost": round(clicks * cpc * rng.uniform(0.85, 1.15), 2), "conversions": conversions,
                       "conversions_value": round(conversions * rng.uniform(50, 90), 2),
                       "all_conversions": conversions}
                daily.append(row)
                if c == 4 and a == 0 and d in (9, 10, 11):
                    daily.append(dict(row))
    snapshot.update({
        "targets": {"monthly_budget": round(sum(b["amount"] for b in budgets) * 31, 2), "target_cpa": 30.0},
        "budgets": budgets,
        "campaigns": [{"id": str(700000 + c), "name": f"Search | Agency client {c} | DE", "status": "ENABLED",
                       "bidding_strategy_type": "TARGET_CPA"} for c in range(campaigns)],
        "daily": daily,
        "search_terms": [{"campaign_id": str(700000 + c % campaigns), "search_term": f"term {c}",
                          "impressions": 200 + c, "clicks": 12 + c % 9, "cost": round(6.0 + c * 0.7, 2),
                          "conversions": float(c % 4 != 0)} for c in range(120)],
    })
    return snapshot


def _meta(rows: int, seed: int) -> dict[str, Any]:
    """Campaigns are added until the rows number at least ``rows``: June 2025, as of 1 July (closed).
    Campaign 5 spends 40x a typical one; campaign 9 stops converting on the 19th; every 17th budget was
    halved on the 12th."""
    rng = random.Random(seed)
    start, days = date(2025, 6, 1), 30
    daily: list[dict[str, Any]] = []
    campaigns, budgets = [], []
    c = 0
    while len(daily) < rows or c < 10:
        cid = f"23851{c:07d}"
        kind = rng.random()
        weekend_only, late = kind < 0.15, 0.15 <= kind < 0.3
        first = rng.randint(8, 20) if late else 0
        base = rng.uniform(2000, 60000) * (40 if c == 5 else 1)  # yen a day
        cpm, ctr, cvr = rng.uniform(400, 1800), rng.uniform(0.004, 0.03), rng.uniform(0.01, 0.05)
        budget = round(base * 1.2 / 100) * 100
        campaigns.append({"id": cid, "name": f"Prospecting | JP | Set {c}", "status": "ACTIVE",
                          "objective": "OUTCOME_SALES", "bidding_strategy_type": "LOWEST_COST_WITHOUT_CAP"})
        history = ([{"changed_at": "2025-06-12 10:00:00", "old_amount": budget * 2, "new_amount": budget}]
                   if c % 17 == 3 else [])
        budgets.append({"budget_id": f"as{c}", "campaign_ids": [cid], "period": "DAILY", "amount": budget,
                        **({"history": history} if history else {})})
        for d in range(first, days):
            day = start + timedelta(days=d)
            if (weekend_only and day.weekday() < 5) or rng.random() < 0.04:
                continue
            cost = max(0, int(rng.gauss(base, base * 0.15)))
            impressions = int(cost / cpm * 1000)
            clicks = int(impressions * ctr)
            conversions = 0 if (c == 9 and d >= 18) else sum(1 for _ in range(min(clicks, 400)) if rng.random() < cvr)
            daily.append({"date": day.isoformat(), "campaign_id": cid, "impressions": impressions, "clicks": clicks,
                          "cost": cost, "conversions": float(conversions),
                          "conversions_value": float(conversions * rng.randint(3000, 12000)),
                          "reach": int(impressions * 0.7)})
        c += 1
    rng.shuffle(daily)
    snapshot = _account("meta_ads", "JPY", "2025-06-01", "2025-06-30", "2025-07-01", 30)
    snapshot["account"]["time_zone"] = "Asia/Tokyo"
    snapshot.update({
        "targets": {"monthly_budget": round(sum(r["cost"] for r in daily) * 0.9, -4), "target_cpa": 9000},
        "budgets": budgets, "campaigns": campaigns, "daily": daily,
    })
    return snapshot
