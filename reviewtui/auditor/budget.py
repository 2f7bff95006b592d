"""``budget.*``: profitable campaigns held back by budget, and budget sitting in the wrong place.

Lost impression share to budget matters only on a campaign that converts at
or better than target; beside an inefficient campaign with spend to spare,
it is misallocation.
"""

from __future__ import annotations

from . import text
from . import derived_names as names
from .findings import Context
from .schedule import read_budgets
from .series import Series, Totals
from .tracking import lag_model

LOST = "budget.lost_is_budget"
MISALLOCATED = "budget.misallocated"
LOST_FIELD = "search_budget_lost_impression_share"


def detect(ctx: Context) -> None:
    s = ctx.series
    if not s.holds(LOST_FIELD):
        ctx.unassessable(LOST, None, "impression share lost to budget (the rows do not report it)")
        ctx.unassessable(MISALLOCATED, None, "budget allocation (the rows do not report impression share lost to budget)")
        return
    limited = lost_to_budget(ctx)
    misallocated(ctx, limited)


def efficiency_ratio(s: Series, tot: Totals) -> float | None:
    """CPA over target CPA, or target ROAS over ROAS: above 1 is worse than target."""
    cpa_target, roas_target = s.target("target_cpa"), s.target("target_roas")
    if cpa_target and tot.cpa:
        return tot.cpa / cpa_target
    if roas_target and tot.roas:
        return roas_target / tot.roas
    return None


def recent_lost(s: Series, cid: str, days: int) -> list[tuple[float, str]]:
    dates = set(s.complete_dates()[-days:])
    return [(v, r.pointer) for r in s.rows_of([cid]) if r.day in dates and (v := r.get(LOST_FIELD)) is not None]


def recent_lost_share(s: Series, cid: str, days: int) -> float | None:
    """The mean budget-lost impression share over the campaign's rows on the last ``days`` complete
    dates, or None when fewer than half of them report it."""
    values = recent_lost(s, cid, days)
    if not values or len(values) < days // 2:
        return None
    return sum(v for v, _ in values) / len(values)


def lost_to_budget(ctx: Context) -> list[str]:
    s = ctx.series
    t = ctx.t(LOST)
    days = int(t.number("recent_days"))
    lag = lag_model(ctx)
    settled = [d for d in s.complete_dates() if lag.settled(d)]
    limited: list[str] = []
    for cid in sorted(s.campaign_totals):
        if ctx.withheld(LOST, cid):
            continue
        mean = recent_lost_share(s, cid, days)
        if mean is None:
            continue
        values = recent_lost(s, cid, days)
        if mean < t.number("min_lost_share"):
            ctx.rejected(LOST, cid, "little impression share lost to budget")
            continue
        ratio = efficiency_ratio(s, s.window(settled, cid))
        if ratio is None or ratio > t.number("max_cpa_over_target"):
            ctx.rejected(LOST, cid, "loses share to budget but is not at or better than target")
            continue
        limited.append(cid)
        low, high = min(v for v, _ in values), max(v for v, _ in values)
        ctx.found(
            LOST,
            cid,
            f"{s.label(cid)} converts at or better than target yet loses impression share to budget every day: "
            "raising its budget buys more conversions at a good price.",
            f"search_budget_lost_impression_share between {text.share(low)} and {text.share(high)} on each of the last "
            f"{len(values)} complete days; {_efficiency_words(ctx, cid)}.",
            rows=[p for _, p in values],
        )
    return limited


def _efficiency_words(ctx: Context, cid: str) -> str:
    s = ctx.series
    cpa_target, roas_target = s.target("target_cpa"), s.target("target_roas")
    cpa, roas = ctx.period(cid, "CPA"), ctx.period(cid, "ROAS")
    if cpa_target and cpa is not None:
        return f"CPA {text.money(cpa, s.currency)} over the period against a target of {text.money(cpa_target, s.currency)}"
    if roas_target and roas is not None:
        return f"ROAS {roas:.2f} over the period against a target of {roas_target:g}"
    return "efficiency against target as the rows show"


def budget_use(ctx: Context, cid: str) -> tuple[float, float, float] | None:
    """(share of its daily budget spent, cost per day, budget) over the last 7 complete days, from the derived index."""
    per_day = ctx.derived.get(names.window(cid, "cost per day", names.LAST_7))
    budgets = [b for b in read_budgets(ctx.series) if b.period == "DAILY" and b.campaign_ids == [cid]]
    end = ctx.series.last_complete
    amount = budgets[0].on(end) if budgets and end else None
    if per_day is None or not amount:
        return None
    return per_day / amount, per_day, amount


def misallocated(ctx: Context, limited: list[str]) -> None:
    s = ctx.series
    t = ctx.t(MISALLOCATED)
    if not limited:
        ctx.rejected(MISALLOCATED, None, "no efficient campaign is held back by budget")
        return
    if ctx.withheld(MISALLOCATED, None):
        return
    lag = lag_model(ctx)
    settled = [d for d in s.complete_dates() if lag.settled(d)]
    worst: tuple[float, str, tuple[float, float, float]] | None = None
    for cid in s.campaign_totals:
        if cid in limited or s.share_of_account_spend(cid) < t.number("min_share_of_account_cost"):
            continue
        ratio = efficiency_ratio(s, s.window(settled, cid))
        if ratio is None or ratio < t.number("min_cpa_over_target"):
            continue
        lost = recent_lost_share(s, cid, int(ctx.t(LOST).number("recent_days")))
        if lost is not None and lost >= ctx.t(LOST).number("min_lost_share"):
            continue  # also budget-limited: no spend to spare
        use = budget_use(ctx, cid)
        if use is None or use[0] > t.number("max_budget_use"):
            continue  # spends its budget: nothing to move without cutting it
        if worst is None or ratio > worst[0]:
            worst = (ratio, cid, use)
    if worst is None:
        ctx.rejected(MISALLOCATED, None, "no inefficient campaign with spend to spare beside the limited one")
        return
    poor, good = worst[1], limited[0]
    per_day, budget = worst[2][1:]
    ctx.found(
        MISALLOCATED,
        None,  # the finding is about the account's budget split, naming both campaigns
        f"Budget sits in {s.label(poor)}, far off target with spend to spare, while {s.label(good)} converts "
        "at target and is held back by budget: move budget from the first to the second.",
        f"{s.label(poor)}: {_efficiency_words(ctx, poor)}, spending {text.money(per_day, s.currency)} "
        f"a day over the last 7 complete days of a {text.money(budget, s.currency)} daily budget; {s.label(good)}: "
        f"{_efficiency_words(ctx, good)}.",
        rows=[r.pointer for r in s.rows_of([poor, good])][-6:],
    )
